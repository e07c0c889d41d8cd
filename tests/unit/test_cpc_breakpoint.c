/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Hardware truth without a PMU: the CPU's debug registers. mem:ADDR:x on
 * a function counts its calls exactly, per LWP (each thread binds its
 * own set and calls it a different number of times, while the others
 * call it too); an overflow preset one short of the call count delivers
 * SIGEMT at the call before the last, at that function, and freezes the
 * set; buffered records carry the function's address as their PC; a data
 * breakpoint counts the writes to a variable; msr/tsc/ counts per LWP,
 * above zero and growing; a debug trap that no handler claimed does not
 * kill a thread that counts a breakpoint.
 */
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "test_cpc.h"

#define THREADS	      4
#define CALLS	      1000
#define PRESET_FOR(p) (UINT64_MAX - (uint64_t)(p) + 1)

static volatile unsigned long bp_calls; /* calls that have begun */
static volatile unsigned long bp_data;	/* written once per call */
static char bp_event[64], data_event[64];
static bool have_tsc;

__attribute__((noinline)) static void
bp_target(void)
{
	bp_calls++;
	bp_data++;
	__asm__ volatile("" ::: "memory");
}

static void
call_times(long n)
{
	long i;

	for (i = 0; i < n; i++)
		bp_target();
}

static uint64_t
sample_value(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf, int index)
{
	uint64_t v = 12345;

	CHECK(cpc_set_sample(cpc, set, buf) == 0);
	cpc_buf_get(cpc, buf, index, &v);
	return v;
}

struct worker {
	cpc_t *cpc;
	long calls;
	uint64_t counted, data_writes, tsc1, tsc2;
	int rc;
};

static pthread_barrier_t start;

/*
 * Each LWP binds its own set, through its own handle, and makes its own
 * number of calls.
 */
static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	cpc_set_t *set;
	int bp, data, tsc = -1;
	cpc_buf_t *buf;

	if ((w->cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		w->rc = 1;
		pthread_barrier_wait(&start);
		return NULL;
	}
	set = cpc_set_create(w->cpc);

	bp = cpc_set_add_request(
	    w->cpc, set, bp_event, 0, CPC_COUNT_USER, 0, NULL);
	data = cpc_set_add_request(
	    w->cpc, set, data_event, 0, CPC_COUNT_USER, 0, NULL);
	if (have_tsc)
		tsc = cpc_set_add_request(
		    w->cpc, set, "msr/tsc/", 0, CPC_COUNT_USER, 0, NULL);
	buf = cpc_buf_create(w->cpc, set);
	w->rc = bp < 0 || data < 0 || (have_tsc && tsc < 0) ||
	    cpc_bind_curlwp(w->cpc, set, 0) != 0;
	pthread_barrier_wait(&start);
	if (w->rc == 0) {
		call_times(w->calls);
		w->counted = sample_value(w->cpc, set, buf, bp);
		w->data_writes = sample_value(w->cpc, set, buf, data);
		if (tsc >= 0) {
			w->tsc1 = sample_value(w->cpc, set, buf, tsc);
			call_times(w->calls);
			w->tsc2 = sample_value(w->cpc, set, buf, tsc);
		}
		CHECK(cpc_unbind(w->cpc, set) == 0);
	}
	cpc_buf_destroy(w->cpc, buf);
	cpc_set_destroy(w->cpc, set);
	cpc_close(w->cpc);
	return NULL;
}

/* Per LWP: each thread counts its own calls, exactly. */
static void
test_calls_per_lwp(cpc_t *cpc)
{
	struct worker w[THREADS];
	pthread_t t[THREADS];
	int i;

	(void)cpc; /* each thread has its own */
	pthread_barrier_init(&start, NULL, THREADS);
	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker) { .calls = CALLS * (i + 1) };
		CHECK(pthread_create(&t[i], NULL, worker_main, &w[i]) == 0);
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	for (i = 0; i < THREADS; i++) {
		CHECK(w[i].rc == 0);
		CHECK_EQ_U64(w[i].counted, (uint64_t)w[i].calls);
		CHECK_EQ_U64(w[i].data_writes, (uint64_t)w[i].calls);
		if (have_tsc) {
			CHECK(w[i].tsc1 > 0);
			CHECK(w[i].tsc2 > w[i].tsc1);
		}
	}
	printf("%s per LWP: %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
	       " calls; msr/tsc/ %s\n",
	    bp_event, w[0].counted, w[1].counted, w[2].counted, w[3].counted,
	    have_tsc ? "above 0, growing" : "(no msr PMU)");
}

static volatile int emt_count, emt_code;
static volatile unsigned long emt_at_calls;
static void *volatile emt_addr;

static void
on_emt(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	emt_count++;
	emt_code = si->si_code;
	emt_addr = si->si_addr;
	emt_at_calls = bp_calls;
}

/*
 * Preset one short of the call count: the breakpoint traps as the call
 * before the last begins, before its first instruction; SIGEMT comes
 * then, at that PC, and the set stays frozen at zero.
 */
static void
test_overflow_at_the_right_call(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	struct sigaction sa;
	cpc_buf_t *buf;
	unsigned long before;
	int ind;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_emt;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	CHECK(sigaction(SIGEMT, &sa, NULL) == 0);
	emt_count = 0;
	ind = cpc_set_add_request(cpc, set, bp_event, PRESET_FOR(CALLS - 1),
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	CHECK(ind == 0);
	buf = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	before = bp_calls;
	call_times(CALLS);
	CHECK_EQ_U64(emt_count, 1);
	CHECK_EQ_U64(emt_code, EMT_CPCOVF);
	/* Trapped as call CALLS - 1 began: CALLS - 2 calls had begun. */
	CHECK_EQ_U64(emt_at_calls - before, CALLS - 2);
	CHECK(emt_addr == (void *)bp_target);
	CHECK_EQ_U64(sample_value(cpc, set, buf, ind), 0);
	call_times(10);
	CHECK_EQ_U64(sample_value(cpc, set, buf, ind), 0);
	printf("SIGEMT at call %lu of %d, PC %p (%s)\n",
	    emt_at_calls - before + 1, CALLS, emt_addr, bp_event);
	CHECK(cpc_set_restart(cpc, set) == 0);
	CHECK_EQ_U64(sample_value(cpc, set, buf, ind), PRESET_FOR(CALLS - 1));
	call_times(CALLS - 1);
	CHECK_EQ_U64(emt_count, 2);
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_buf_destroy(cpc, buf);
	cpc_set_destroy(cpc, set);
}

/* Buffered: one record per call, each at the function. */
static void
test_buffered_records(cpc_t *cpc)
{
	static cpc_ovf_record_t recs[CALLS];
	uint64_t pcbuf[CPC_PCBUF_SIZE], lost = 99;
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf;
	int n, i, at = 0;

	CHECK(cpc_set_add_request(cpc, set, bp_event, UINT64_MAX,
		  CPC_COUNT_USER | CPC_OVF_BUFFERED, 0, NULL) == 0);
	buf = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	call_times(CALLS / 4);
	n = cpc_set_sample_records(cpc, set, recs, CALLS, &lost);
	CHECK_EQ_U64(n, CALLS / 4);
	CHECK_EQ_U64(lost, 0);
	for (i = 0; i < n; i++)
		at += (recs[i].cr_valid & CPC_REC_PC) &&
		    recs[i].cr_pc == (uint64_t)(uintptr_t)bp_target;
	CHECK_EQ_U64(at, CALLS / 4);
	/* The proposal's interface: the PCs, and how many. */
	call_times(10);
	CHECK_EQ_U64(cpc_set_sample_pcbuf(cpc, set, buf, pcbuf), 10);
	for (i = 0, at = 0; i < 10; i++)
		at += pcbuf[i] == (uint64_t)(uintptr_t)bp_target;
	CHECK_EQ_U64(at, 10);
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_buf_destroy(cpc, buf);
	cpc_set_destroy(cpc, set);
}

/*
 * The SIGTRAP the kernel sends for a debug exception no handler claimed
 * (si_code TRAP_BRKPT), which a breakpoint counter's own exception becomes
 * where a hypervisor loses the guest's DR6; only a thread may queue a
 * kernel's si_code to itself.
 */
static void
queue_debug_trap(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGTRAP;
	si.si_code = TRAP_BRKPT;
	si.si_addr = (void *)queue_debug_trap;
	(void)syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGTRAP, &si);
}

/*
 * While a breakpoint is counted here the trap is dropped and the count
 * goes on, exact; once none is, it is fatal again, as without libcpc.
 */
static void
test_debug_trap_dropped(cpc_t *cpc)
{
#if defined(__x86_64__) || defined(__i386__)
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf;
	int ind, status = 0;
	pid_t child;

	ind =
	    cpc_set_add_request(cpc, set, bp_event, 0, CPC_COUNT_USER, 0, NULL);
	CHECK(ind == 0);
	buf = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	call_times(CALLS / 2);
	queue_debug_trap();
	call_times(CALLS / 2);
	CHECK_EQ_U64(sample_value(cpc, set, buf, ind), CALLS);
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_buf_destroy(cpc, buf);
	cpc_set_destroy(cpc, set);
	if ((child = fork()) == 0) {
		queue_debug_trap();
		_exit(0);
	}
	CHECK(child > 0 && waitpid(child, &status, 0) == child);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTRAP);
	printf(
	    "a debug trap: dropped while %s counts, fatal after\n", bp_event);
#else
	(void)cpc;
	printf("note: debug traps are dropped on x86 alone (BRK would trap "
	       "again)\n");
#endif
}

/*
 * Whether the kernel's own breakpoint on bp_target counts its calls, as
 * the oracle for whether this machine has usable debug registers: some
 * hypervisors accept the breakpoint and never fire it.
 */
static bool
breakpoints_fire(void)
{
	struct perf_event_attr attr;
	uint64_t count = 0;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = (uint64_t)(uintptr_t)bp_target;
	attr.bp_len = sizeof(long);
	attr.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	call_times(10);
	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		count = 0;
	close(fd);
	bp_calls = bp_data = 0;
	return count == 10;
}

int
main(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set;
	char why[512];

	if (cpc == NULL)
		SKIP("cpc_open failed: %s", strerror(errno));
	snprintf(bp_event, sizeof(bp_event), "mem:%p:x", (void *)bp_target);
	snprintf(
	    data_event, sizeof(data_event), "mem:%p/8:w", (void *)&bp_data);
	if (cpc_event_status(cpc, bp_event, why, sizeof(why)) !=
	    CPC_EVENT_COUNTABLE)
		SKIP("no hardware breakpoints here: %s", why);
	if (!breakpoints_fire())
		SKIP("hardware breakpoints do not fire here: the kernel's own "
		     "breakpoint on a function called 10 times did not count "
		     "10 (the hypervisor gives the guest no debug registers)");
	set = cpc_set_create(cpc);
	CHECK(cpc_set_add_request(
		  cpc, set, bp_event, 0, CPC_COUNT_USER, 0, NULL) == 0);
	if (cpc_set_check(cpc, set, -1) != 0)
		SKIP("the debug registers cannot be used here");
	cpc_set_destroy(cpc, set);
	have_tsc =
	    cpc_event_status(cpc, "msr/tsc/", NULL, 0) == CPC_EVENT_COUNTABLE;
	test_calls_per_lwp(cpc);
	test_overflow_at_the_right_call(cpc);
	test_buffered_records(cpc);
	test_debug_trap_dropped(cpc);
	cpc_close(cpc);
	return check_report("test_cpc_breakpoint");
}
