/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Overflow notification on the real kernel: a request preset to
 * 2^64 - P with CPC_OVF_NOTIFY_EMT interrupts after exactly P events
 * (syscalls:sys_enter_write, which counts every write(2) exactly), the
 * thread that overflowed gets SIGEMT with si_code EMT_CPCOVF and si_addr
 * the interrupted PC, the set stays frozen until cpc_set_restart, and
 * cpc_request_preset sets the next period.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "test_cpc.h"

#define WRITE_EVENT   "syscalls:sys_enter_write"
#define PRESET_FOR(p) (UINT64_MAX - (uint64_t)(p) + 1)
#define ROUNDS	      5
#define THREADS	      4
#define LIMIT	      100000

static int devnull = -1;

/* What the SIGEMT handler saw, per thread. */
static __thread volatile int emt_count;
static __thread volatile int emt_code;
static __thread void *volatile emt_addr;
static __thread volatile uintptr_t emt_uc_pc;
static __thread volatile pid_t emt_tid;
static atomic_int emt_total;
static atomic_int emt_wrong_signal;

static uintptr_t
uc_pc(const ucontext_t *uc)
{
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
	(void)uc;
	return 0;
#endif
}

static void
on_emt(int sig, siginfo_t *si, void *arg)
{
	if (sig != SIGEMT || si->si_signo != SIGEMT)
		atomic_fetch_add(&emt_wrong_signal, 1);
	emt_code = si->si_code;
	emt_addr = si->si_addr;
	emt_uc_pc = uc_pc(arg);
	emt_tid = (pid_t)syscall(SYS_gettid);
	emt_count++;
	atomic_fetch_add(&emt_total, 1);
}

static void
install_emt_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_emt;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGEMT, &sa, NULL) != 0)
		abort();
}

static void
one_write(void)
{
	if (write(devnull, "x", 1) != 1)
		abort();
}

/* Write until the next SIGEMT; how many writes it took. */
static long
writes_until_signal(void)
{
	int before = emt_count;
	long n = 0;

	while (emt_count == before && n < LIMIT) {
		one_write();
		n++;
	}
	return n;
}

static uint64_t
sample_value(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf, int index)
{
	uint64_t v = 12345;

	CHECK(cpc_set_sample(cpc, set, buf) == 0);
	cpc_buf_get(cpc, buf, index, &v);
	return v;
}

static void
test_caps(cpc_t *cpc)
{
	CHECK(cpc_caps(cpc) ==
	    (CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE));
	CHECK(SIGEMT != SIGIO);
	CHECK(EMT_CPCOVF == 1);
}

/* Overflow after exactly P writes, frozen, then ROUNDS restarts. */
static void
test_overflow_and_restart(cpc_t *cpc)
{
	const long p = 100, p2 = 37;
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf;
	int ind, round;
	long n;

	emt_count = 0; /* a rerun starts afresh */
	ind = cpc_set_add_request(cpc, set, WRITE_EVENT, PRESET_FOR(p),
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	CHECK(ind == 0);
	buf = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	CHECK_EQ_U64(sample_value(cpc, set, buf, ind), PRESET_FOR(p));

	CHECK_EQ_U64(writes_until_signal(), p);
	CHECK_EQ_U64(emt_count, 1);
	CHECK_EQ_U64(emt_code, EMT_CPCOVF);
	CHECK(emt_addr != NULL);
	/* The handler's ucontext is the interrupted code, at si_addr. */
	CHECK((uintptr_t)emt_addr == emt_uc_pc);
	CHECK(emt_tid == (pid_t)syscall(SYS_gettid));
	/* 2^64 - P + P wraps to 0, and stays there: the set is frozen. */
	CHECK_EQ_U64(sample_value(cpc, set, buf, ind), 0);
	for (n = 0; n < 50; n++)
		one_write();
	CHECK_EQ_U64(sample_value(cpc, set, buf, ind), 0);
	CHECK_EQ_U64(emt_count, 1);

	for (round = 0; round < ROUNDS; round++) {
		CHECK(cpc_set_restart(cpc, set) == 0);
		CHECK_EQ_U64(sample_value(cpc, set, buf, ind), PRESET_FOR(p));
		CHECK_EQ_U64(writes_until_signal(), p);
		CHECK_EQ_U64(sample_value(cpc, set, buf, ind), 0);
	}
	CHECK_EQ_U64(emt_count, 1 + ROUNDS);

	/* A new preset is the next start, and with it the next period. */
	CHECK(cpc_request_preset(cpc, ind, PRESET_FOR(p2)) == 0);
	CHECK(cpc_set_restart(cpc, set) == 0);
	CHECK_EQ_U64(sample_value(cpc, set, buf, ind), PRESET_FOR(p2));
	CHECK_EQ_U64(writes_until_signal(), p2);

	/* A restart before the overflow starts the period afresh. */
	CHECK(cpc_set_restart(cpc, set) == 0);
	for (n = 0; n < p2 - 5; n++)
		one_write();
	CHECK(cpc_set_restart(cpc, set) == 0);
	CHECK_EQ_U64(writes_until_signal(), p2);
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_set_destroy(cpc, set);
}

/*
 * Only the notifying request interrupts (CPC_CAP_OVERFLOW_PRECISE), and
 * its overflow freezes the whole set.
 */
static void
test_precise_and_group_freeze(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf;
	int a, b, before = emt_count;
	uint64_t v;

	/* b is 10 short of wrapping but does not notify. */
	a = cpc_set_add_request(cpc, set, WRITE_EVENT, PRESET_FOR(60),
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	b = cpc_set_add_request(
	    cpc, set, WRITE_EVENT, PRESET_FOR(10), CPC_COUNT_USER, 0, NULL);
	buf = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	CHECK_EQ_U64(writes_until_signal(), 60);
	CHECK_EQ_U64(emt_count, before + 1);
	CHECK(cpc_set_sample(cpc, set, buf) == 0);
	cpc_buf_get(cpc, buf, a, &v);
	CHECK_EQ_U64(v, 0);
	cpc_buf_get(cpc, buf, b, &v);
	CHECK_EQ_U64(v, 50); /* wrapped silently, then frozen with a */
	one_write();
	CHECK(cpc_set_sample(cpc, set, buf) == 0);
	cpc_buf_get(cpc, buf, b, &v);
	CHECK_EQ_U64(v, 50);
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_set_destroy(cpc, set);
}

struct worker {
	cpc_t *cpc;
	long period;
	long writes[3];
	int signals;
	pid_t tid, signalled_tid;
	int code;
	int bound;
};

static pthread_barrier_t start_line;

/* Each thread binds its own set and must get its own signals only. */
static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	cpc_set_t *set = cpc_set_create(w->cpc);
	int round;

	w->tid = (pid_t)syscall(SYS_gettid);
	cpc_set_add_request(w->cpc, set, WRITE_EVENT, PRESET_FOR(w->period),
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	w->bound = cpc_bind_curlwp(w->cpc, set, 0) == 0;
	pthread_barrier_wait(&start_line);
	for (round = 0; round < 3 && w->bound; round++) {
		w->writes[round] = writes_until_signal();
		if (cpc_set_restart(w->cpc, set) != 0)
			break;
	}
	w->signals = emt_count;
	w->signalled_tid = emt_tid;
	w->code = emt_code;
	if (w->bound)
		cpc_unbind(w->cpc, set);
	cpc_set_destroy(w->cpc, set);
	return NULL;
}

static void
test_threads(cpc_t *cpc)
{
	struct worker w[THREADS];
	pthread_t t[THREADS];
	int i, r, total_before = atomic_load(&emt_total);

	pthread_barrier_init(&start_line, NULL, THREADS);
	for (i = 0; i < THREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].cpc = cpc;
		w[i].period = 50 + 20 * i;
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start_line);
	for (i = 0; i < THREADS; i++) {
		CHECK(w[i].bound);
		for (r = 0; r < 3; r++)
			CHECK_EQ_U64(w[i].writes[r], w[i].period);
		CHECK_EQ_U64(w[i].signals, 3);
		CHECK(w[i].signalled_tid == w[i].tid);
		CHECK_EQ_U64(w[i].code, EMT_CPCOVF);
	}
	CHECK_EQ_U64(atomic_load(&emt_total) - total_before, 3 * THREADS);
}

struct inheritor {
	long writes;
	int signals;
	pid_t tid, signalled_tid;
};

static void *
inheritor_main(void *arg)
{
	struct inheritor *in = arg;

	in->tid = (pid_t)syscall(SYS_gettid);
	in->writes = writes_until_signal();
	in->signals = emt_count;
	in->signalled_tid = emt_tid;
	return NULL;
}

/*
 * CPC_BIND_LWP_INHERIT with overflow (documented in docs/libcpc.md):
 * a thread created after the bind counts from zero in its own copy, and
 * gets SIGEMT itself after 2^64 - P of its own events; that overflow
 * freezes the whole set, the binder's counters and every copy.
 */
static void
test_inherit(cpc_t *cpc)
{
	const long p = 80;
	cpc_set_t *set = cpc_set_create(cpc);
	struct inheritor in;
	cpc_buf_t *buf;
	pthread_t t;
	uint64_t v;
	int mine = emt_count;

	cpc_set_add_request(cpc, set, WRITE_EVENT, PRESET_FOR(p),
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	buf = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT) == 0);
	one_write(); /* the binder's own: 1 of its P */
	memset(&in, 0, sizeof(in));
	pthread_create(&t, NULL, inheritor_main, &in);
	pthread_join(t, NULL);
	CHECK_EQ_U64(in.writes, p);
	CHECK_EQ_U64(in.signals, 1);
	CHECK(in.signalled_tid == in.tid);
	CHECK_EQ_U64(emt_count, mine); /* the binder got none */
	/* The binder's view is the family's sum, frozen: 1 + P. */
	cpc_set_sample(cpc, set, buf);
	cpc_buf_get(cpc, buf, 0, &v);
	CHECK_EQ_U64(v, PRESET_FOR(p) + 1 + p);
	one_write();
	cpc_set_sample(cpc, set, buf);
	cpc_buf_get(cpc, buf, 0, &v);
	CHECK_EQ_U64(v, PRESET_FOR(p) + 1 + p);
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_set_destroy(cpc, set);
}

/* Overflow signals need a thread: not for CPU-bound sets. */
static void
test_cpu_refused(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);

	cpc_set_add_request(cpc, set, WRITE_EVENT, PRESET_FOR(10),
	    CPC_COUNT_USER | CPC_COUNT_SYSTEM | CPC_OVF_NOTIFY_EMT, 0, NULL);
	errno = 0;
	CHECK(cpc_bind_cpu(cpc, 0, set, 0) == -1);
	CHECK(errno == ENOTSUP);
	cpc_set_destroy(cpc, set);
}

/* A preset far from overflow with the flag counts normally. */
static void
test_zero_preset_counts(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf;
	int before = emt_count, i;

	cpc_set_add_request(cpc, set, WRITE_EVENT, 0,
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	buf = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	for (i = 0; i < 500; i++)
		one_write();
	CHECK_EQ_U64(sample_value(cpc, set, buf, 0), 500);
	CHECK_EQ_U64(emt_count, before);
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_set_destroy(cpc, set);
}

static volatile int user_traps;

static void
user_trap(int sig)
{
	(void)sig;
	user_traps++;
}

/* Other SIGTRAPs still reach the program's own handler. */
static void
test_sigtrap_chain(cpc_t *cpc)
{
	struct sigaction sa, old;
	cpc_set_t *set = cpc_set_create(cpc);

	user_traps = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = user_trap;
	sigaction(SIGTRAP, &sa, &old);
	cpc_set_add_request(cpc, set, WRITE_EVENT, PRESET_FOR(30),
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	raise(SIGTRAP);
	CHECK_EQ_U64(user_traps, 1);
	CHECK_EQ_U64(writes_until_signal(), 30);
	CHECK_EQ_U64(user_traps, 1);
	cpc_unbind(cpc, set);
	cpc_set_destroy(cpc, set);
}

int
main(void)
{
	cpc_t *cpc;

	require_tracefs();
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	if ((devnull = open("/dev/null", O_WRONLY)) < 0)
		abort();
	install_emt_handler();
	test_caps(cpc);
	test_overflow_and_restart(cpc);
	test_precise_and_group_freeze(cpc);
	test_threads(cpc);
	test_inherit(cpc);
	test_cpu_refused(cpc);
	test_zero_preset_counts(cpc);
	test_sigtrap_chain(cpc);
	CHECK_EQ_U64(atomic_load(&emt_wrong_signal), 0);
	cpc_close(cpc);
	return check_report("test_cpc_ovf");
}
