/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pctx_create: start a command traced, held just after its exec.
 *
 * The child waits at a gate (lib/process's exec_gate.h, the BPF engine's
 * too) until the parent has seized it, so it is traced before it runs a
 * single instruction of the new image, without any signal or group-stop
 * noise; the gate carries back the errno of a failed exec.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_gate.h"
#include "pctx_impl.h"

/* Find file as execvp(3) would; 0 with the path, or -1. */
static int
find_program(const char *file, char *path, size_t len)
{
	const char *dirs, *p, *end;
	size_t dlen;

	if (strchr(file, '/') != NULL) {
		strlcpy(path, file, len);
		return access(path, F_OK);
	}
	if ((dirs = getenv("PATH")) == NULL)
		dirs = "/bin:/usr/bin";
	for (p = dirs;; p = end + 1) {
		if ((end = strchr(p, ':')) == NULL)
			end = p + strlen(p);
		dlen = (size_t)(end - p);
		snprintf(path, len, "%.*s%s%s", (int)dlen, p,
		    dlen != 0 ? "/" : "", file);
		if (access(path, X_OK) == 0)
			return 0;
		if (*end == '\0')
			return -1;
	}
}

/*
 * A set-id program would run without its privileges under an unprivileged
 * tracer, and an unreadable one cannot be counted: refuse both, as Solaris
 * did, unless we may trace anything (CAP_SYS_PTRACE).
 */
static bool
untraceable(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid()) ||
	    access(path, R_OK) != 0)
		return !pctxlib_have_cap_sys_ptrace();
	return false;
}

/* Wait for the exec stop, passing on what comes before it. */
static int
await_exec(pid_t pid)
{
	int status;

	for (;;) {
		if (waitpid(pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!WIFSTOPPED(status))
			return -1;
		if ((unsigned)status >> 16 == PTRACE_EVENT_EXEC)
			return 0;
		if ((unsigned)status >> 16 == 0)
			(void)ptrace(
			    PTRACE_CONT, pid, 0, (long)WSTOPSIG(status));
		else
			(void)ptrace(PTRACE_CONT, pid, 0, 0);
	}
}

static void
reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
		;
}

/*
 * A caller made undumpable (it runs with file capabilities, as a
 * cputrack given cap_perfmon does) forks a child that is undumpable too
 * until its exec, and a tracer without CAP_SYS_PTRACE may not seize it.
 * The child is forked dumpable: only a tracer holding every capability
 * it has may seize it even so, and its exec decides its dumpability.
 */
static pid_t
fork_dumpable(void)
{
	int was = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	pid_t pid;

	if (was == 0)
		(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	pid = fork();
	if (pid != 0 && was == 0)
		(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	return pid;
}

static pctx_t *
start_traced(const char *file, char *const *argv, void *arg, int verbose,
    pctx_errfn_t *errfn)
{
	int err, opts = SEIZE_OPTS_BASE | PTRACE_O_EXITKILL;
	struct exec_gate gate;
	pctx_t *pctx;
	struct lwp *lwp;
	pid_t pid;

	if (exec_gate_open(&gate) != 0) {
		pctxlib_error_to(
		    errfn, "create", "cannot fork, program '%s'\n", file);
		return NULL;
	}
	if ((pid = fork_dumpable()) == 0)
		exec_gate_child(&gate, file, argv, NULL, NULL);
	exec_gate_forked(&gate);
	if (pid < 0) {
		exec_gate_close(&gate);
		pctxlib_error_to(
		    errfn, "create", "cannot fork, program '%s'\n", file);
		return NULL;
	}
	if (ptrace(PTRACE_SEIZE, pid, 0, (long)opts) != 0) {
		err = errno;
		exec_gate_close(&gate);
		reap(pid);
		pctxlib_error_to(
		    errfn, "create", "%s, program '%s'\n", strerror(err), file);
		return NULL;
	}
	err = exec_gate_release(&gate);
	if (err != 0) {
		reap(pid);
		if (err == ENOENT)
			pctxlib_error_to(errfn, "create",
			    "cannot find program '%s'\n", file);
		else
			pctxlib_error_to(errfn, "create",
			    "cannot execute program '%s': %s\n", file,
			    strerror(err));
		return NULL;
	}
	if (await_exec(pid) != 0) {
		reap(pid);
		pctxlib_error_to(
		    errfn, "create", "cannot execute program '%s'\n", file);
		return NULL;
	}
	if ((pctx = pctxlib_alloc(pid, arg, verbose, errfn)) == NULL ||
	    (lwp = pctxlib_lwp_add(pctx, pid, LWP_HELD | LWP_ANNOUNCED)) ==
		NULL) {
		if (pctx != NULL)
			pctxlib_proc_dispose(pctx);
		reap(pid);
		pctxlib_error_to(
		    errfn, "create", "cannot fork, program '%s'\n", file);
		return NULL;
	}
	lwp->held_status = (PTRACE_EVENT_EXEC << 16) | (SIGTRAP << 8) | 0x7f;
	pctx->created = true;
	pctx->opts = opts;
	return pctx;
}

pctx_t *
pctx_create(const char *filename, char *const *argv, void *arg, int verbose,
    pctx_errfn_t *errfn)
{
	char path[PATH_MAX];

	if (filename == NULL || argv == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (find_program(filename, path, sizeof(path)) != 0) {
		pctxlib_error_to(
		    errfn, "create", "cannot find program '%s'\n", filename);
		return NULL;
	}
	if (untraceable(path)) {
		pctxlib_error_to(errfn, "create",
		    "cannot trace set-id or unreadable program '%s'\n",
		    filename);
		return NULL;
	}
	return start_traced(filename, argv, arg, verbose, errfn);
}
