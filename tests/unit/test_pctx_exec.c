/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx exec: Solaris order (fini_lwp for every LWP, exec, init_lwp(1)),
 * a chain of execs, an exec by a thread that is not the leader, and what
 * happens without an exec handler or when it fails.
 */
#include "test_pctx.h"

/* N+1 images of one pid, K writes each. */
static void
test_exec_chain(void)
{
	char *argv[] = { (char *)wl("wl_exec_chain"), "3", "5", NULL };
	struct lwprec *r, *next;
	struct procrec *p;
	pctx_t *pctx;
	pid_t pid;
	int image;

	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, t_tick), 0);
	p = proc_of(pid);
	CHECK_EQ_U64(p->images, 3);
	CHECK_EQ_U64(p->exits, 1);
	CHECK_EQ_U64(p->exit_status, 0);
	check_all_paired();
	for (image = 0; image <= 3; image++) {
		CHECK_EQ_U64(count_lwps(pid, image), 1);
		r = lwp_rec(pid, image, 1);
		CHECK(r != NULL && r->count == 5 && r->tid == pid);
		next = lwp_rec(pid, image + 1, 1);
		if (r != NULL && next != NULL)
			CHECK(r->order < next->order);
	}
	/* The last exec's argument string. */
	CHECK(strlen(p->cmd) > 4 &&
	    strcmp(p->cmd + strlen(p->cmd) - 4, " 0 5") == 0);
	pctx_release(pctx);
}

/* A second thread execs: the pid stays, LWP numbering restarts at 1. */
static void
test_nonleader_exec(void)
{
	char *argv[] = { (char *)wl("wl_nonleader_exec"), "4",
		(char *)wl("wl_threads"), "2", "6", "1", NULL };
	struct lwprec *r;
	struct procrec *p;
	pctx_t *pctx;
	pid_t pid;

	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, t_tick), 0);
	p = proc_of(pid);
	CHECK_EQ_U64(p->images, 1);
	CHECK_EQ_U64(p->exits, 1);
	CHECK_EQ_U64(p->exit_status, 0);
	check_all_paired();
	CHECK_EQ_U64(count_lwps(pid, 0), 2);
	r = lwp_rec(pid, 0, 1);
	CHECK(r != NULL && r->count == 4 && r->tid == pid && r->exits == 0);
	r = lwp_rec(pid, 0, 2);
	CHECK(r != NULL && r->count == 4 && r->tid != pid && r->creates == 1 &&
	    r->exits == 0);
	CHECK_EQ_U64(count_lwps(pid, 1), 3);
	r = lwp_rec(pid, 1, 1);
	CHECK(r != NULL && r->count == 1 && r->tid == pid);
	r = lwp_rec(pid, 1, 2);
	CHECK(r != NULL && r->count == 6 && r->exits == 1);
	r = lwp_rec(pid, 1, 3);
	CHECK(r != NULL && r->count == 6 && r->exits == 1);
	pctx_release(pctx);
}

static int
wait_exit_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * ct_exec 3 wl_gate 0 0: three writes, an exec, then the new image reads
 * its stdin, a pipe, until the test closes the other end (*gate). A run
 * reaps any child of the caller that ends during it (libpctx.h), so the
 * process let go at its exec must outlive the run for the test to see
 * how it ends; the gate holds it without a timed wait.
 */
static pctx_t *
create_gated(int *gate)
{
	char *argv[] = { (char *)wl("ct_exec"), "3", (char *)wl("wl_gate"), "0",
		"0", NULL };
	int pipefd[2], saved_in, saved_out, devnull;
	pctx_t *pctx;

	if (pipe2(pipefd, O_CLOEXEC) != 0 ||
	    (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0 ||
	    (saved_in = dup(0)) < 0 || (saved_out = dup(1)) < 0 ||
	    dup2(pipefd[0], 0) < 0 || dup2(devnull, 1) < 0) {
		perror("create_gated");
		exit(1);
	}
	pctx = create_wl(argv);
	if (dup2(saved_in, 0) < 0 || dup2(saved_out, 1) < 0) {
		perror("create_gated");
		exit(1);
	}
	close(saved_in);
	close(saved_out);
	close(devnull);
	close(pipefd[0]);
	*gate = pipefd[1];
	return pctx;
}

/* No exec handler: the run ends at the exec, and the process runs on. */
static void
test_exec_unhandled(void)
{
	pctx_t *pctx;
	pid_t pid;
	int gate;

	pctx = create_gated(&gate);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(
	    pctx_set_events(pctx, PCTX_SYSC_EXEC_EVENT, NULL, PCTX_NULL_EVENT),
	    0);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, t_tick), 0);
	CHECK_EQ_U64(proc_of(pid)->exits, 0);
	CHECK(lwp_rec(pid, 0, 1) != NULL && lwp_rec(pid, 0, 1)->count == 3 &&
	    lwp_rec(pid, 0, 1)->finis == 1);
	pctx_release(pctx);
	CHECK_EQ_U64(tracer_of(pid, pid), 0);
	close(gate);
	CHECK_EQ_U64(wait_exit_status(pid), 0);
}

/* The exec handler fails: the run returns -1, the process runs on. */
static void
test_exec_refused(void)
{
	pctx_t *pctx;
	pid_t pid;
	int gate;

	execs_allowed = 0;
	pctx = create_gated(&gate);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, t_tick), (uint64_t)-1);
	CHECK_EQ_U64(proc_of(pid)->images, 1);
	CHECK_EQ_U64(proc_of(pid)->exits, 0);
	pctx_release(pctx);
	CHECK_EQ_U64(tracer_of(pid, pid), 0);
	close(gate);
	CHECK_EQ_U64(wait_exit_status(pid), 0);
	execs_allowed = 1000;
}

int
main(void)
{
	alarm_guard(100);
	open_cpc();
	test_exec_chain();
	test_nonleader_exec();
	test_exec_unhandled();
	test_exec_refused();
	cpc_close(cpc);
	return check_report("test_pctx_exec");
}
