/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx pctx_join: several captured processes followed by one run,
 * each counted exactly; the run ends when the last is gone; releasing
 * the root lets every one go; pctx_let_go lets one go while the others
 * run on; what pctx_join refuses.
 */
#include "test_pctx.h"

/* A gated workload's pid and the write end of its standard input. */
struct gated {
	pid_t pid;
	int gate;
};

/* wl_gate NTHREADS K, its input a pipe kept here; once it is ready. */
static struct gated
spawn_gated(const char *nthreads, const char *k)
{
	char *argv[] = { (char *)wl("wl_gate"), (char *)nthreads, (char *)k,
		NULL };
	struct gated g;
	int in[2], out[2];
	char buf[16];

	if (pipe(in) != 0 || pipe(out) != 0)
		exit(1);
	if ((g.pid = fork()) == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (read(out[0], buf, sizeof(buf)) <= 0) {
		fprintf(stderr, "wl_gate did not get ready\n");
		exit(1);
	}
	close(out[0]);
	g.gate = in[1];
	return g;
}

static struct gated gated[2];

/* The first tick, when every LWP counts: the gates open. */
static int
open_gates(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	static bool opened;
	int i;

	if (!opened) {
		opened = true;
		for (i = 0; i < 2; i++) {
			CHECK(write(gated[i].gate, "\n", 1) == 1);
			close(gated[i].gate);
		}
	}
	return t_tick(pctx, pid, lwpid, arg);
}

static pctx_t *
capture(pid_t pid)
{
	pctx_t *pctx = pctx_capture(pid, NULL, 0, NULL);

	CHECK(pctx != NULL);
	if (pctx == NULL)
		exit(check_report("test_pctx_join"));
	CHECK(set_all_events(pctx) == 0);
	(void)proc_of(pid);
	return pctx;
}

/* Each worker of process pid wrote k, counted from the capture on. */
static void
check_counts(pid_t pid, id_t nlwps, uint64_t k)
{
	struct lwprec *r;
	id_t id;

	CHECK_EQ_U64(count_lwps(pid, 0), nlwps);
	CHECK_EQ_U64(proc_of(pid)->exits, 1);
	CHECK_EQ_U64(proc_of(pid)->exit_status, 0);
	for (id = 1; id <= nlwps; id++) {
		r = lwp_rec(pid, 0, id);
		CHECK(r != NULL && r->inits == 1 && r->finis == 1);
		if (r != NULL)
			CHECK_EQ_U64(r->count, id == 1 ? 0 : k);
	}
}

/* After release: running on, not stopped, untraced. */
static void
check_free(pid_t pid)
{
	CHECK(wait_running(pid));
	CHECK(tracer_of(pid, pid) == 0);
}

/* Two processes, one loop: both counted exactly, to both exits. */
static void
test_join_run(void)
{
	pctx_t *a, *b;

	gated[0] = spawn_gated("1", "10");
	gated[1] = spawn_gated("2", "20");
	a = capture(gated[0].pid);
	b = capture(gated[1].pid);
	CHECK(pctx_join(b, a) == 0);
	CHECK_EQ_U64(pctx_run(a, 20, 0, open_gates), 0);
	check_counts(gated[0].pid, 2, 10);
	check_counts(gated[1].pid, 3, 20);
	/* The run reaped them, its tracees. */
	CHECK(proc_state(gated[0].pid) == 0);
	CHECK(proc_state(gated[1].pid) == 0);
	pctx_release(a);
}

/* The end of the samples lets each go. */
static void
test_join_samples(void)
{
	char *argv1[] = { (char *)wl("wl_idle"), "1", "0", NULL };
	char *argv2[] = { (char *)wl("wl_idle"), "2", "0", NULL };
	pid_t p1 = spawn_ready(argv1), p2 = spawn_ready(argv2);
	pctx_t *a = capture(p1), *b = capture(p2);

	CHECK(pctx_join(b, a) == 0);
	CHECK_EQ_U64(pctx_run(a, 20, 2, t_tick), 0);
	CHECK_EQ_U64(count_lwps(p1, 0), 2);
	CHECK_EQ_U64(count_lwps(p2, 0), 3);
	check_free(p1);
	check_free(p2);
	pctx_release(a);
	kill_reap(p1);
	kill_reap(p2);
}

/*
 * pctx_terminate of either ends the run with both traced; the root's
 * release lets both go.
 */
static void
test_join_release(void)
{
	char *argv1[] = { (char *)wl("wl_idle"), "1", "0", NULL };
	char *argv2[] = { (char *)wl("wl_idle"), "2", "0", NULL };
	pid_t p1 = spawn_ready(argv1), p2 = spawn_ready(argv2);
	pctx_t *a = capture(p1), *b = capture(p2);

	CHECK(pctx_join(b, a) == 0);
	CHECK_EQ_U64(pctx_run(a, 20, 0, terminate_tick), 0);
	CHECK(tracer_of(p1, p1) == getpid());
	CHECK(tracer_of(p2, p2) == getpid());
	pctx_release(a);
	check_free(p1);
	check_free(p2);
	kill_reap(p1);
	kill_reap(p2);
}

/* pctx_let_go's processes, for its tick. */
static pid_t let_go_root, let_go_peer;

/*
 * The root is let go at its first tick; the peer, still traced then, at
 * its first tick after the one of that round, once the root runs on
 * untraced: a let-go waits for the end of the ticks of its round.
 */
static int
let_go_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	static unsigned peer_ticks, root_gone_at;
	static bool root_gone;

	if (lwpid == 1 && pid == let_go_root) {
		CHECK(pctx_let_go(pctx) == 0);
		root_gone = true;
		root_gone_at = peer_ticks;
	} else if (lwpid == 1 && pid == let_go_peer &&
	    ++peer_ticks > root_gone_at + 1 && root_gone) {
		CHECK(tracer_of(let_go_root, let_go_root) == 0);
		CHECK(tracer_of(let_go_peer, let_go_peer) == getpid());
		CHECK(pctx_let_go(pctx) == 0);
	}
	return t_tick(pctx, pid, lwpid, arg);
}

/*
 * pctx_let_go of the root lets it go and the peer goes on; the run ends
 * with 0 once the peer is let go too, both running on, untraced.
 */
static void
test_join_let_go(void)
{
	char *argv1[] = { (char *)wl("wl_idle"), "1", "0", NULL };
	char *argv2[] = { (char *)wl("wl_idle"), "2", "0", NULL };
	pid_t p1 = spawn_ready(argv1), p2 = spawn_ready(argv2);
	pctx_t *a = capture(p1), *b = capture(p2);

	let_go_root = p1;
	let_go_peer = p2;
	CHECK(pctx_join(b, a) == 0);
	CHECK_EQ_U64(pctx_run(a, 20, 0, let_go_tick), 0);
	CHECK_EQ_U64(proc_of(p1)->exits, 0);
	CHECK_EQ_U64(proc_of(p2)->exits, 0);
	check_free(p1);
	check_free(p2);
	errno = 0;
	CHECK(pctx_let_go(NULL) == -1 && errno == EINVAL);
	pctx_release(a);
	kill_reap(p1);
	kill_reap(p2);
}

/* What pctx_join refuses, and that a refused join changes nothing. */
static void
test_join_refusals(void)
{
	char *argv[] = { (char *)wl("wl_idle"), "1", "0", NULL };
	pid_t p1 = spawn_ready(argv), p2 = spawn_ready(argv),
	      p3 = spawn_ready(argv);
	pctx_t *a = capture(p1), *b = capture(p2), *c = capture(p3);

	errno = 0;
	CHECK(pctx_join(a, a) == -1 && errno == EINVAL);
	CHECK(pctx_join(NULL, a) == -1 && errno == EINVAL);
	CHECK(pctx_join(b, a) == 0);
	/* b is a's now: not a root to join, nor to join again or run. */
	errno = 0;
	CHECK(pctx_join(c, b) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(pctx_join(b, c) == -1 && errno == EINVAL);
	/* a has b: it joins no other. */
	errno = 0;
	CHECK(pctx_join(a, c) == -1 && errno == EINVAL);
	CHECK(pctx_run(b, 20, 1, t_tick) == -1);
	pctx_release(c);
	pctx_release(a);
	check_free(p1);
	check_free(p2);
	check_free(p3);
	kill_reap(p1);
	kill_reap(p2);
	kill_reap(p3);
}

int
main(void)
{
	alarm_guard(100);
	open_cpc();
	test_join_run();
	test_join_samples();
	test_join_release();
	test_join_let_go();
	test_join_refusals();
	cpc_close(cpc);
	return check_report("test_pctx_join");
}
