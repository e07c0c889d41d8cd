/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx ticks: nsamples ticks for every LWP at absolute deadlines
 * start + k * msec (no drift: a slow tick makes the next deadlines pass,
 * and they are skipped and counted), counters read while the target runs,
 * and the process released (running on) once nsamples is reached.
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

int
main(void)
{
	alarm_guard(100);
	open_cpc();
	test_ticks();
	test_missed();
	test_no_ticks();
	cpc_close(cpc);
	return check_report("test_pctx_ticks");
}
