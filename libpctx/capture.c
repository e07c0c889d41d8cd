/*
 * pctx_capture: trace a running process, every thread of it.
 *
 * PTRACE_SEIZE attaches without stopping anything. Threads are seized one
 * by one from /proc/PID/task, and the directory is read again until a pass
 * finds no new thread: a thread created meanwhile by a thread not yet
 * seized would otherwise be missed (one created by a seized thread is
 * auto-attached; seizing it again fails with EPERM, and its first stop
 * reaches the event loop like any new thread's).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
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
		pctx_error_to(errfn, "capture", "cannot capture self!\n");
		return -1;
	}
	if (pid <= 0 || procfs_stat(pid, &state, &flags) != 0) {
		pctx_error_to(errfn, "capture", "pid %d doesn't exist\n", pid);
		return -1;
	}
	if (flags & PF_KTHREAD) {
		pctx_error_to(errfn, "capture", "pid %d is a system process\n",
		    pid);
		return -1;
	}
	if (state == 'Z' || state == 'X') {
		pctx_error_to(errfn, "capture", "pid %d is a zombie\n", pid);
		return -1;
	}
	if (procfs_ids(pid, NULL, NULL, &tracer_pid) == 0 && tracer_pid != 0) {
		pctx_error_to(errfn, "capture",
		    "pid %d is already being traced\n", pid);
		return -1;
	}
	return 0;
}

/* Seize the threads not yet known; the number seized, or -1. */
static int
seize_new_threads(pctx_t *pctx)
{
	char path[64];
	struct dirent *de;
	const char *errstr;
	DIR *dir;
	pid_t tid;
	int seized = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pctx->pid);
	if ((dir = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(dir)) != NULL) {
		tid = (pid_t)strtonum(de->d_name, 1, INT32_MAX, &errstr);
		if (errstr != NULL || lwp_by_tid(tid) != NULL)
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0, (long)pctx->opts) != 0)
			continue;	/* gone (ESRCH) or ours already (EPERM) */
		if (lwp_add(pctx, tid, LWP_ANNOUNCED) == NULL) {
			(void)ptrace(PTRACE_DETACH, tid, 0, 0);
			closedir(dir);
			return -1;
		}
		seized++;
	}
	closedir(dir);
	return seized;
}

static void
capture_failed(pctx_t *pctx)
{
	detach_process(pctx);
	pctx_dispose(pctx);
}

pctx_t *
pctx_capture(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn)
{
	pctx_t *pctx;
	int n = 0, quiet;

	if (check_capturable(pid, errfn) != 0)
		return NULL;
	if ((pctx = pctx_alloc(pid, arg, verbose, errfn)) == NULL) {
		pctx_error_to(errfn, "capture", "pid %d: out of memory\n", pid);
		return NULL;
	}
	/* Forks are always reported; unfollowed children are let go. */
	pctx->opts = SEIZE_OPTS_BASE | SEIZE_OPTS_FORK;
	if (ptrace(PTRACE_SEIZE, pid, 0, (long)pctx->opts) != 0) {
		n = errno;
		pctx_dispose(pctx);
		if (n == EPERM)
			pctx_error_to(errfn, "capture",
			    "pid %d: permission denied\n", pid);
		else
			pctx_error_to(errfn, "capture",
			    "pid %d doesn't exist\n", pid);
		return NULL;
	}
	if (lwp_add(pctx, pid, LWP_ANNOUNCED) == NULL) {
		(void)ptrace(PTRACE_DETACH, pid, 0, 0);
		pctx_dispose(pctx);
		pctx_error_to(errfn, "capture", "pid %d: out of memory\n", pid);
		return NULL;
	}
	/* Two quiet passes: a readdir racing with exiting threads can skip. */
	for (quiet = 0; quiet < 2 && (n = seize_new_threads(pctx)) >= 0; )
		quiet = n == 0 ? quiet + 1 : 0;
	if (n < 0) {
		capture_failed(pctx);
		pctx_error_to(errfn, "capture", "pid %d doesn't exist\n", pid);
		return NULL;
	}
	return pctx;
}
