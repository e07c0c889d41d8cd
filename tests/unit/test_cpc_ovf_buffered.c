/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Buffered overflow (CPC_OVF_BUFFERED, seed 004) on the real kernel.
 * page-faults sampled every event over N freshly touched pages give
 * one record per page, in order, whose data address is that page, from
 * this thread, at times inside the run; SIGEMT comes once per
 * CPC_PCBUF_SIZE records and cpc_set_sample_pcbuf drains them; a tiny
 * ring loses records, and records + lost is exactly N.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "test_cpc.h"

#define EVERY_EVENT UINT64_MAX /* 2^64 - 1: overflow at each event */
#define PAGES	    200
#define LOST_PAGES  2000
#define MAX_RECS    4096

static long pagesz;
static cpc_ovf_record_t *recs;
static int devnull = -1;

static char *
fresh_pages(int n)
{
	char *p = mmap(NULL, (size_t)n * (size_t)pagesz, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	return p;
}

/* Not instrumented: ASan would fault in shadow pages, more page faults. */
static void __attribute__((noinline, no_sanitize_address)) touch(char *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		((volatile char *)p)[(long)i * pagesz] = 1;
}

/* Fault in this much stack now, so that the test proper does not. */
static void __attribute__((noinline)) prefault_stack(void)
{
	volatile char big[64 * 1024];
	size_t i;

	for (i = 0; i < sizeof(big); i += 512)
		big[i] = 0;
}

static hrtime_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Runs the measured path once, so that the code and data it uses are
 * mapped before a test counts this thread's page faults.
 */
static void
warm_up(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	char *pages = fresh_pages(4);
	uint64_t lost;

	if (cpc_set_add_request(cpc, set, "page-faults", EVERY_EVENT,
		CPC_COUNT_USER | CPC_OVF_BUFFERED, 0, NULL) == 0 &&
	    cpc_bind_curlwp(cpc, set, 0) == 0) {
		(void)now_ns();
		touch(pages, 4);
		(void)cpc_set_sample_records(cpc, set, recs, MAX_RECS, &lost);
		(void)cpc_unbind(cpc, set);
	}
	cpc_set_destroy(cpc, set);
	munmap(pages, 4 * (size_t)pagesz);
}

static int
in_pages(const cpc_ovf_record_t *rec, const char *pages, int npages)
{
	uint64_t lo = (uint64_t)(uintptr_t)pages;
	uint64_t hi = lo + (uint64_t)npages * (uint64_t)pagesz;

	return (rec->cr_valid & CPC_REC_VADDR) && rec->cr_vaddr >= lo &&
	    rec->cr_vaddr < hi;
}

/*
 * Only the fresh pages are held to one record each, in order: a page of
 * this program that memory pressure took back faults again, and that
 * fault is real and rightly recorded too.
 */
static void
test_exact_page_records(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	char *pages = fresh_pages(PAGES);
	hrtime_t t0, t1;
	uint64_t lost = 99;
	int n, i, ours = 0, exact = 0, mine = 0, timely = 0, pcs = 0, phys = 0;
	const cpc_ovf_record_t *rec;
	pid_t tid = (pid_t)syscall(SYS_gettid), pid = getpid();

	CHECK(cpc_set_add_request(cpc, set, "page-faults", EVERY_EVENT,
		  CPC_COUNT_USER | CPC_OVF_BUFFERED, 0, NULL) == 0);
	prefault_stack();
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	t0 = now_ns();
	touch(pages, PAGES);
	t1 = now_ns();
	n = cpc_set_sample_records(cpc, set, recs, MAX_RECS, &lost);
	CHECK(n >= PAGES);
	CHECK_EQ_U64(lost, 0);
	for (i = 0; i < n; i++) {
		rec = &recs[i];
		if (!in_pages(rec, pages, PAGES)) {
			printf("also recorded: a fault at %#llx, pc %#llx\n",
			    (unsigned long long)rec->cr_vaddr,
			    (unsigned long long)rec->cr_pc);
			continue;
		}
		exact += rec->cr_vaddr ==
		    (uint64_t)(uintptr_t)(pages + (long)ours * pagesz);
		ours++;
		mine += rec->cr_tid == tid && rec->cr_pid == pid &&
		    (rec->cr_valid & CPC_REC_TID);
		timely += rec->cr_time >= t0 && rec->cr_time <= t1;
		pcs += rec->cr_pc != 0 && rec->cr_index == 0;
		phys += (rec->cr_valid & CPC_REC_PADDR) != 0;
	}
	CHECK_EQ_U64(ours, PAGES);
	CHECK_EQ_U64(exact, PAGES);
	CHECK_EQ_U64(mine, PAGES);
	CHECK_EQ_U64(timely, PAGES);
	CHECK_EQ_U64(pcs, PAGES);
	/* No precise PC from a software event. */
	CHECK((recs[0].cr_valid & CPC_REC_PRECISE_PC) == 0);
	/* The page is not mapped yet when its fault is counted. */
	printf("physical addresses given for %d of %d page-fault records "
	       "(%s)\n",
	    phys, ours, geteuid() == 0 ? "root" : "not root");
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_set_destroy(cpc, set);
	munmap(pages, (size_t)PAGES * (size_t)pagesz);
}

static volatile int full_signals, wrong_code, wrong_thread;
static volatile int drained_in_handler;
static cpc_t *handler_cpc;
static cpc_set_t *handler_set;
static pid_t bound_tid;
static uint64_t pcbuf[CPC_PCBUF_SIZE];

static void
on_full(int sig, siginfo_t *si, void *uc)
{
	int n, saved = errno;

	(void)sig;
	(void)uc;
	full_signals++;
	if (si->si_code != EMT_CPCOVF)
		wrong_code++;
	if ((pid_t)syscall(SYS_gettid) != bound_tid)
		wrong_thread++;
	if ((n = cpc_set_sample_pcbuf(handler_cpc, handler_set, NULL, pcbuf)) >
	    0)
		drained_in_handler += n;
	errno = saved;
}

/* The watcher's signals come asynchronously. */
static bool
signals_came(void *want)
{
	return full_signals >= *(int *)want;
}

/* The proposal's flow: signal when CPC_PCBUF_SIZE PCs wait, drain them. */
static void
test_pcbuf_signal(cpc_t *cpc)
{
	const int total = 3 * CPC_PCBUF_SIZE + 10;
	int want = 3;
	cpc_set_t *set = cpc_set_create(cpc);
	char *pages = fresh_pages(total);
	struct sigaction sa;
	cpc_buf_t *buf;
	uint64_t v;
	int rest;

	full_signals = wrong_code = wrong_thread = drained_in_handler = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_full;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGEMT, &sa, NULL);
	/* The proposal passes the period itself as the preset. */
	CHECK(cpc_set_add_request(cpc, set, "page-faults", 1,
		  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT | CPC_OVF_BUFFERED, 0,
		  NULL) == 0);
	buf = cpc_buf_create(cpc, set);
	handler_cpc = cpc;
	handler_set = set;
	bound_tid = (pid_t)syscall(SYS_gettid);
	prefault_stack();
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	touch(pages, total);
	CHECK(wait_for("3 signals of full buffers", signals_came, &want));
	sleep_ms(20); /* not a wait: the span a fourth signal would come in */
	CHECK_EQ_U64(full_signals, 3);
	CHECK_EQ_U64(wrong_code, 0);
	CHECK_EQ_U64(wrong_thread, 0);
	CHECK_EQ_U64(drained_in_handler, 3 * CPC_PCBUF_SIZE);
	rest = cpc_set_sample_pcbuf(cpc, set, buf, pcbuf);
	CHECK(pcbuf[0] != 0);
	cpc_buf_get(cpc, buf, 0, &v);
#ifdef __SANITIZE_ADDRESS__
	/* The instrumented handler faults in shadow pages of its own. */
	CHECK(rest >= 10 && rest < CPC_PCBUF_SIZE);
	CHECK(v >= 1 + (uint64_t)total);
#else
	CHECK_EQ_U64(rest, 10);
	/* The counter still counts, from its preset. */
	CHECK_EQ_U64(v, 1 + total);
#endif
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_set_destroy(cpc, set);
	munmap(pages, (size_t)total * (size_t)pagesz);
	signal(SIGEMT, SIG_DFL);
}

/* A ring too small for the run: what is lost is counted, exactly. */
static void
test_lost_records(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	char *pages = fresh_pages(LOST_PAGES);
	uint64_t lost = 0;
	int n;

	CHECK(cpc_set_ring_pages(cpc, set, 3) == -1 && errno == EINVAL);
	CHECK(cpc_set_ring_pages(cpc, set, 1) == 0);
	CHECK(cpc_set_add_request(cpc, set, "page-faults", EVERY_EVENT,
		  CPC_COUNT_USER | CPC_OVF_BUFFERED, 0, NULL) == 0);
	prefault_stack();
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	touch(pages, LOST_PAGES);
	n = cpc_set_sample_records(cpc, set, recs, MAX_RECS, &lost);
	printf("tiny ring: %d records kept, %llu lost\n", n,
	    (unsigned long long)lost);
	CHECK(n > 0 && n < LOST_PAGES);
	CHECK(lost > 0);
	CHECK_EQ_U64((uint64_t)n + lost, LOST_PAGES);

	/* cpc_set_sample_pcbuf says so through the error handler. */
	cpc_seterrhndlr(cpc, recording_handler);
	forget_error();
	touch(pages, LOST_PAGES); /* no new faults: already mapped */
	munmap(pages, (size_t)LOST_PAGES * (size_t)pagesz);
	pages = fresh_pages(LOST_PAGES);
	touch(pages, LOST_PAGES);
	while (cpc_set_sample_pcbuf(cpc, set, NULL, pcbuf) > 0)
		;
	CHECK_EQ_U64(last_error.calls, 1);
	CHECK_EQ_U64(last_error.subcode, CPC_OVF_RECORDS_LOST);
	CHECK(strcmp(last_error.fn, "cpc_set_sample_pcbuf") == 0);
	CHECK(strstr(last_error.msg, "overflow records lost") != NULL);
	CHECK(strcmp(cpc_subcode_text(CPC_OVF_RECORDS_LOST),
		  "Overflow records lost") == 0);
	cpc_seterrhndlr(cpc, NULL);
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_set_destroy(cpc, set);
	munmap(pages, (size_t)LOST_PAGES * (size_t)pagesz);
}

static void __attribute__((noinline)) writes(int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (write(devnull, "x", 1) != 1)
			abort();
}

/* Two buffered requests share the ring; records name their request. */
static void
test_two_requests_and_stacks(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	char *pages = fresh_pages(50);
	uint64_t lost = 1;
	int n, i, faults = 0, wr = 0, stacks = 0, pf, wi;

	pf = cpc_set_add_request(cpc, set, "page-faults", EVERY_EVENT,
	    CPC_COUNT_USER | CPC_OVF_BUFFERED, 0, NULL);
	wi = cpc_set_add_request(cpc, set, "syscalls:sys_enter_write",
	    EVERY_EVENT, CPC_COUNT_USER | CPC_OVF_BUFFERED | CPC_OVF_CALLSTACK,
	    0, NULL);
	CHECK(pf == 0 && wi == 1);
	prefault_stack();
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	touch(pages, 50);
	writes(70);
	n = cpc_set_sample_records(cpc, set, recs, MAX_RECS, &lost);
	CHECK_EQ_U64(n, 120);
	CHECK_EQ_U64(lost, 0);
	for (i = 0; i < n; i++) {
		if (recs[i].cr_index == pf)
			faults++;
		if (recs[i].cr_index != wi)
			continue;
		wr++;
		stacks += (recs[i].cr_valid & CPC_REC_STACK) &&
		    recs[i].cr_nstack >= 2 &&
		    recs[i].cr_stack[0] == recs[i].cr_pc;
	}
	CHECK_EQ_U64(faults, 50);
	CHECK_EQ_U64(wr, 70);
	CHECK_EQ_U64(stacks, 70);
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_set_destroy(cpc, set);
	munmap(pages, 50 * (size_t)pagesz);
}

static void
test_refusals(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);

	cpc_set_add_request(cpc, set, "page-faults", EVERY_EVENT,
	    CPC_COUNT_USER | CPC_OVF_BUFFERED, 0, NULL);
	errno = 0;
	CHECK(cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT) == -1);
	CHECK(errno == ENOTSUP);
	CHECK(cpc_set_sample_records(cpc, set, recs, 1, NULL) == -1);
	CHECK(errno == EINVAL);
	cpc_set_destroy(cpc, set);
}

int
main(void)
{
	cpc_t *cpc;

	require_tracefs();
	pagesz = sysconf(_SC_PAGESIZE);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	if ((devnull = open("/dev/null", O_WRONLY)) < 0)
		abort();
	recs = calloc(MAX_RECS, sizeof(*recs));
	if (recs == NULL)
		abort();
	memset(recs, 0, MAX_RECS * sizeof(*recs)); /* fault it in now */
	warm_up(cpc);
	test_exact_page_records(cpc);
	test_pcbuf_signal(cpc);
	test_lost_records(cpc);
	test_two_requests_and_stacks(cpc);
	test_refusals(cpc);
	free(recs);
	cpc_close(cpc);
	return check_report("test_cpc_ovf_buffered");
}
