/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx fork and vfork: the child is offered to the fork callback as its
 * own pctx in the same tracer; followed (pctx_run inside the callback) it
 * is counted from its first instruction, otherwise it runs on untraced.
 */
#include "test_pctx.h"

/* Depth 2, width 2: 7 processes, K writes each, all followed. */
static void
test_fork_tree(void)
{
	char *argv[] = { (char *)wl("wl_forktree"), "2", "2", "5", NULL };
	struct lwprec *r;
	pctx_t *pctx;
	pid_t pid;
	int i, nchildren = 0, nexits = 0;

	follow_forks = true;
	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, t_tick), 0);
	check_all_paired();
	for (i = 0; i < nprocs; i++) {
		if (procs[i].pid != pid && procs[i].parent == 0)
			continue;
		if (procs[i].parent != 0) {
			nchildren++;
			CHECK_EQ_U64(procs[i].fork_lwpid, 1);
		}
		nexits += procs[i].exits;
		CHECK_EQ_U64(procs[i].exit_status, 0);
		CHECK_EQ_U64(count_lwps(procs[i].pid, 0), 1);
		r = lwp_rec(procs[i].pid, 0, 1);
		CHECK(r != NULL && r->count == 5 && r->tid == procs[i].pid);
	}
	CHECK_EQ_U64(nchildren, 6);
	CHECK_EQ_U64(nexits, 7);
	pctx_release(pctx);
	follow_forks = false;
}

/* Not followed: the fork callback sees the direct children only. */
static void
test_fork_unfollowed(void)
{
	char *argv[] = { (char *)wl("wl_forktree"), "2", "2", "5", NULL };
	pctx_t *pctx;
	pid_t pid;
	int i, nchildren = 0, base = nprocs;

	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, t_tick), 0);
	for (i = base; i < nprocs; i++)
		if (procs[i].parent == pid) {
			nchildren++;
			CHECK_EQ_U64(count_lwps(procs[i].pid, 0), 0);
		}
	CHECK_EQ_U64(nchildren, 2);
	CHECK_EQ_U64(proc_of(pid)->exits, 1);
	CHECK_EQ_U64(proc_of(pid)->exit_status, 0);
	CHECK(lwp_rec(pid, 0, 1) != NULL && lwp_rec(pid, 0, 1)->count == 5);
	pctx_release(pctx);
}

/* vfork, then exec in the child: both sides counted exactly. */
static void
test_vfork_exec(void)
{
	char *argv[] = { (char *)wl("wl_vfork_exec"), "3",
		(char *)wl("wl_threads"), "1", "4", "2", NULL };
	struct procrec *c = NULL;
	pctx_t *pctx;
	pid_t pid;
	int i;

	follow_forks = true;
	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, t_tick), 0);
	check_all_paired();
	for (i = 0; i < nprocs; i++)
		if (procs[i].parent == pid)
			c = &procs[i];
	CHECK(c != NULL);
	CHECK(lwp_rec(pid, 0, 1) != NULL && lwp_rec(pid, 0, 1)->count == 3);
	CHECK_EQ_U64(proc_of(pid)->exit_status, 0);
	if (c != NULL) {
		CHECK_EQ_U64(c->images, 1);
		CHECK_EQ_U64(c->exits, 1);
		CHECK(lwp_rec(c->pid, 0, 1) != NULL &&
		    lwp_rec(c->pid, 0, 1)->count == 0);
		CHECK(lwp_rec(c->pid, 1, 1) != NULL &&
		    lwp_rec(c->pid, 1, 1)->count == 2);
		CHECK(lwp_rec(c->pid, 1, 2) != NULL &&
		    lwp_rec(c->pid, 1, 2)->count == 4);
	}
	pctx_release(pctx);
	follow_forks = false;
}

int
main(void)
{
	alarm_guard(100);
	open_cpc();
	test_fork_tree();
	test_fork_unfollowed();
	test_vfork_exec();
	cpc_close(cpc);
	return check_report("test_pctx_fork");
}
