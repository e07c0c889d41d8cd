/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx ticks: nsamples ticks for every LWP at absolute deadlines
 * start + k * msec (no drift: a slow tick makes the next deadlines pass,
 * and they are skipped and counted), counters read while the target runs,
 * and the process released (running on) once nsamples is reached. A
 * client's tick_end comes once per tick, after that tick's LWPs.
 */
#include "test_pctx.h"

#define MAXT 64

static long long tick_ns[MAXT];
static int nt;
static uint64_t tick_counts[MAXT];
static char tick_states[MAXT];
static int sleep_at_tick;

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int
timed_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwprec *r = find_lwp(pid, lwpid);

	if (lwpid == 1 && nt < MAXT) {
		tick_ns[nt] = now_ns();
		tick_states[nt] = proc_state(pid);
		tick_counts[nt] = r != NULL ? sample(r->set) : UINT64_MAX;
		if (++nt == sleep_at_tick)
			sleep_ms(250); /* not a wait: a late tick */
	}
	return t_tick(pctx, pid, lwpid, arg);
}

/*
 * A run of 5 ticks at 100 ms. Deadlines are absolute, from the start of
 * the run: the k-th tick comes at its deadline or later, never before; a
 * tick that comes after the next deadline passed skips it, counted
 * (test_missed makes it happen). How late a tick comes is the machine's
 * business, not checked here (bench/ measures it).
 */
static void
test_ticks(void)
{
	char *argv[] = { (char *)wl("wl_jobctl"), "100", "10", NULL };
	long long start;
	unsigned long missed;
	pctx_t *pctx;
	pid_t pid;
	int i, status;

	nt = 0;
	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	start = now_ns();
	CHECK_EQ_U64(pctx_run(pctx, 100, 5, timed_tick), 0);
	missed = pctx_missed_ticks(pctx);
	CHECK_EQ_U64(nt + missed, 5);
	CHECK(lwp_rec(pid, 0, 1) != NULL && lwp_rec(pid, 0, 1)->ticks == nt);
	for (i = 0; i < nt; i++) {
		/* The (i + 1)-th tick: i + 1 deadlines, or more, passed. */
		CHECK(tick_ns[i] - start >= (i + 1) * 100000000LL);
		/* Counted while running, never stopped for it. */
		CHECK(tick_states[i] != 't' && tick_states[i] != 'T');
		if (i > 0)
			CHECK(tick_counts[i] >= tick_counts[i - 1]);
	}
	printf("first tick %lld us after pctx_run, %lu missed\n",
	    nt > 0 ? (tick_ns[0] - start) / 1000 : -1, missed);
	/* Released after 5 samples: it runs on to its normal end. */
	pctx_release(pctx);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_U64(proc_of(pid)->exits, 0);
}

/* A slow tick callback: the deadlines it overran are skipped. */
static void
test_missed(void)
{
	char *argv[] = { (char *)wl("wl_jobctl"), "100", "10", NULL };
	unsigned long missed;
	pctx_t *pctx;
	pid_t pid;

	nt = 0;
	sleep_at_tick = 1;
	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_run(pctx, 100, 5, timed_tick), 0);
	missed = pctx_missed_ticks(pctx);
	printf("%d ticks, %lu missed\n", nt, missed);
	CHECK(missed >= 1);
	CHECK_EQ_U64(nt + missed, 5);
	pctx_release(pctx);
	kill_reap(pid);
	sleep_at_tick = 0;
}

/* msec 0: no ticks, whatever nsamples says; the run lasts to the exit. */
static void
test_no_ticks(void)
{
	char *argv[] = { (char *)wl("wl_jobctl"), "5", "20", NULL };
	pctx_t *pctx;
	pid_t pid;

	nt = 0;
	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_run(pctx, 0, 1, timed_tick), 0);
	CHECK_EQ_U64(nt, 0);
	CHECK_EQ_U64(proc_of(pid)->exits, 1);
	CHECK(lwp_rec(pid, 0, 1) != NULL && lwp_rec(pid, 0, 1)->count == 5);
	pctx_release(pctx);
}

/*
 * The callbacks of a run, in order: an LWP's tick is its lwpid, a
 * client's end of the tick is 0.
 */
#define MAXLOG 1024
static id_t tick_log[MAXLOG];
static int nlog;
static pctx_t *logged_pctx;
static int strange_ends; /* with another pctx or arg than registered */

static int
logged_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	if (nlog < MAXLOG)
		tick_log[nlog++] = lwpid;
	return t_tick(pctx, pid, lwpid, arg);
}

static void
logged_tick_end(pctx_t *pctx, void *arg)
{
	if (pctx != logged_pctx || arg != tick_log)
		strange_ends++;
	if (nlog < MAXLOG)
		tick_log[nlog++] = 0;
}

static const pctx_client_t end_client = { .tick_end = logged_tick_end };

static pctx_t *
logged_run(char *const *argv)
{
	pctx_t *pctx = create_wl(argv);

	nlog = 0;
	strange_ends = 0;
	logged_pctx = pctx;
	CHECK(pctx_add_client(pctx, &end_client, tick_log) == 0);
	return pctx;
}

/*
 * The ticks in the log: each one's LWPs once each, in LWP order, then
 * its end, and nothing after the last end. The most LWPs of one tick.
 */
static int
logged_ticks(int *widest)
{
	int i, ticks = 0, width = 0;
	id_t last = 0;

	*widest = 0;
	for (i = 0; i < nlog; i++) {
		if (tick_log[i] != 0) {
			CHECK(tick_log[i] > last);
			last = tick_log[i];
			width++;
			continue;
		}
		ticks++;
		*widest = width > *widest ? width : *widest;
		width = 0;
		last = 0;
	}
	CHECK(nlog < MAXLOG && nlog > 0 && tick_log[nlog - 1] == 0);
	return ticks;
}

/* Four spinning LWPs, 8 ticks: 8 ends, each after that tick's LWPs. */
static void
test_tick_end(void)
{
	char *argv[] = { (char *)wl("wl_spin"), "3", NULL };
	pctx_t *pctx = logged_run(argv);
	pid_t pid = pctx_pid(pctx);
	int ticks, widest;

	CHECK_EQ_U64(pctx_run(pctx, 50, 8, logged_tick), 0);
	ticks = logged_ticks(&widest);
	printf("%d ends of tick, %lu missed, at most %d LWPs in one\n", ticks,
	    pctx_missed_ticks(pctx), widest);
	CHECK_EQ_U64(ticks + pctx_missed_ticks(pctx), 8);
	CHECK_EQ_U64(widest, 4);
	CHECK_EQ_U64(strange_ends, 0);
	pctx_release(pctx);
	kill_reap(pid);
}

/*
 * A failing tick callback ends the run, and its tick still ends: the
 * LWPs after the failing one have no callback, the client its end.
 */
static void
test_tick_end_after_failure(void)
{
	char *argv[] = { (char *)wl("wl_spin"), "3", NULL };
	pctx_t *pctx = logged_run(argv);
	pid_t pid = pctx_pid(pctx);
	int i, lwp_ticks = 0, widest;

	tick_fail_at = nticks + 2;
	CHECK(pctx_run(pctx, 50, 8, logged_tick) == -1);
	tick_fail_at = 0;
	for (i = 0; i < nlog; i++)
		lwp_ticks += tick_log[i] != 0;
	CHECK_EQ_U64(lwp_ticks, 2);
	CHECK(logged_ticks(&widest) >= 1);
	CHECK_EQ_U64(strange_ends, 0);
	pctx_release(pctx);
	kill_reap(pid);
}

int
main(void)
{
	alarm_guard(100);
	open_cpc();
	test_ticks();
	test_missed();
	test_no_ticks();
	test_tick_end();
	test_tick_end_after_failure();
	cpc_close(cpc);
	return check_report("test_pctx_ticks");
}
