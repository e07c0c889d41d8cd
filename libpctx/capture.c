/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pctx_capture: trace a running process, every thread of it.
 *
 * PTRACE_SEIZE attaches without stopping anything. Threads are seized one
 * by one from /proc/PID/task, and the directory is read again until a pass
 * finds no new thread: a thread created meanwhile by a thread not yet
 * seized would otherwise be missed (one created by a seized thread is
 * auto-attached; seizing it again fails with EPERM, and its first stop
 * reaches the event loop like any new thread's). The reading is shared with
 * the search for threads that come with no clone event (workers.c).
 */
#include <errno.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "pctx_impl.h"

/* Solaris's refusals, checked before touching the process. */
static int
check_capturable(pid_t pid, pctx_errfn_t *errfn)
{
	unsigned long flags;
	pid_t tracer_pid;
	char state;

	if (pid == getpid()) {
		pctxlib_error_to(errfn, "capture", "cannot capture self!\n");
		return -1;
	}
	if (pid <= 0 || pctxlib_procfs_stat(pid, &state, &flags) != 0) {
		pctxlib_error_to(
		    errfn, "capture", "pid %d doesn't exist\n", pid);
		return -1;
	}
	if (flags & PF_KTHREAD) {
		pctxlib_error_to(
		    errfn, "capture", "pid %d is a system process\n", pid);
		return -1;
	}
	if (state == 'Z' || state == 'X') {
		pctxlib_error_to(errfn, "capture", "pid %d is a zombie\n", pid);
		return -1;
	}
	if (pctxlib_procfs_ids(pid, NULL, NULL, &tracer_pid) == 0 &&
	    tracer_pid != 0) {
		pctxlib_error_to(
		    errfn, "capture", "pid %d is already being traced\n", pid);
		return -1;
	}
	return 0;
}

pctx_t *
pctx_capture(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn)
{
	pctx_t *pctx;
	int n = 0, quiet;

	if (check_capturable(pid, errfn) != 0)
		return NULL;
	if ((pctx = pctxlib_alloc(pid, arg, verbose, errfn)) == NULL) {
		pctxlib_error_to(
		    errfn, "capture", "pid %d: out of memory\n", pid);
		return NULL;
	}
	/* Forks are always reported; unfollowed children are let go. */
	pctx->opts = SEIZE_OPTS_BASE | SEIZE_OPTS_FORK;
	if (ptrace(PTRACE_SEIZE, pid, 0, (long)pctx->opts) != 0) {
		n = errno;
		pctxlib_proc_dispose(pctx);
		if (n == EPERM)
			pctxlib_error_to(errfn, "capture",
			    "pid %d: permission denied\n", pid);
		else
			pctxlib_error_to(
			    errfn, "capture", "pid %d doesn't exist\n", pid);
		return NULL;
	}
	if (pctxlib_lwp_add(pctx, pid, LWP_ANNOUNCED) == NULL) {
		(void)ptrace(PTRACE_DETACH, pid, 0, 0);
		pctxlib_proc_dispose(pctx);
		pctxlib_error_to(
		    errfn, "capture", "pid %d: out of memory\n", pid);
		return NULL;
	}
	/* Two quiet passes: a readdir racing with exiting threads can skip. */
	for (quiet = 0; quiet < 2 &&
	     (n = pctxlib_seize_unknown_threads(pctx, false)) >= 0;)
		quiet = n == 0 ? quiet + 1 : 0;
	if (n < 0) {
		pctxlib_proc_release_now(pctx);
		pctxlib_error_to(
		    errfn, "capture", "pid %d doesn't exist\n", pid);
		return NULL;
	}
	return pctx;
}
