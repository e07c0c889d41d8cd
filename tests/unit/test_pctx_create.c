/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx create: the messages of a failed start, the command held after
 * its exec until pctx_run, killed with its tracer (PTRACE_O_EXITKILL) but
 * running on once released.
 */
#include <sys/prctl.h>

#include "test_pctx.h"

static char errtext[256];

static void
errfn(const char *fn, const char *fmt, va_list ap)
{
	int n = snprintf(errtext, sizeof(errtext), "%s: ", fn);

	vsnprintf(errtext + n, sizeof(errtext) - (size_t)n, fmt, ap);
}

static void
expect_failure(char *const *argv, const char *want)
{
	errtext[0] = '\0';
	CHECK(pctx_create(argv[0], argv, NULL, 0, errfn) == NULL);
	if (strncmp(errtext, want, strlen(want)) != 0) {
		fprintf(stderr, "create %s: got \"%s\", want \"%s\"\n", argv[0],
		    errtext, want);
		check_failures++;
	}
}

/* A set-id program, for the unprivileged refusal; NULL if none. */
static const char *
setid_program(void)
{
	static const char *candidates[] = { "/usr/bin/passwd", "/bin/su",
		"/usr/bin/su", "/usr/bin/chsh", "/usr/bin/newgrp",
		"/usr/bin/mount", "/bin/mount" };
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (stat(candidates[i], &st) == 0 && (st.st_mode & S_ISUID) &&
		    st.st_uid == 0)
			return candidates[i];
	return NULL;
}

static void
test_failures(void)
{
	char *missing[] = { "no-such-program-pctx", NULL };
	char *noexec[] = { "/etc/passwd", NULL };
	char *setid[] = { NULL, NULL };
	char want[256], got[256];
	int fds[2];
	ssize_t n;
	pid_t child;

	expect_failure(
	    missing, "create: cannot find program 'no-such-program-pctx'\n");
	expect_failure(noexec,
	    "create: cannot execute program "
	    "'/etc/passwd': Permission denied\n");
	if ((setid[0] = (char *)setid_program()) == NULL) {
		printf("no set-id program found: refusal not tested\n");
		return;
	}
	/* As nobody, a set-id program is refused before anything runs. */
	if (pipe(fds) != 0)
		exit(1);
	if ((child = fork()) == 0) {
		close(fds[0]);
		if (setresgid(65534, 65534, 65534) != 0 ||
		    setresuid(65534, 65534, 65534) != 0)
			_exit(1);
		errtext[0] = '\0';
		(void)pctx_create(setid[0], setid, NULL, 0, errfn);
		(void)write(fds[1], errtext, strlen(errtext));
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], got, sizeof(got) - 1);
	got[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(child, NULL, 0);
	snprintf(want, sizeof(want),
	    "create: cannot trace set-id or "
	    "unreadable program '%s'\n",
	    setid[0]);
	CHECK(strcmp(got, want) == 0);
}

/* Held after exec: nothing runs until pctx_run. */
static void
test_held(void)
{
	char *argv[] = { (char *)wl("wl_threads"), "1", "1", "1", NULL };
	pctx_t *pctx;
	pid_t pid;

	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	sleep_ms(50); /* not a wait: a span to run in, were it not held */
	CHECK(proc_state(pid) == 't');
	CHECK(tracer_of(pid, pid) == getpid());
	CHECK_EQ_U64(for_each_task(pid, NULL, NULL), 1);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, t_tick), 0);
	CHECK(lwp_rec(pid, 0, 1) != NULL && lwp_rec(pid, 0, 1)->count == 1);
	pctx_release(pctx);
}

/* Released before its run: it runs on and exits normally. */
static void
test_release_created(void)
{
	char *argv[] = { (char *)wl("wl_jobctl"), "3", "10", NULL };
	pctx_t *pctx;
	pid_t pid;
	int status = -1;

	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	pctx_release(pctx);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * The tracer is killed: its created command dies with it. The tracer runs
 * in a child; this process is the subreaper that collects the orphan.
 */
static void
test_exitkill(void)
{
	char *argv[] = { (char *)wl("wl_idle"), "2", "0", NULL };
	int fds[2], status = 0;
	pid_t tracer, target = 0;
	pctx_t *pctx;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (pipe(fds) != 0)
		exit(1);
	if ((tracer = fork()) == 0) {
		close(fds[0]);
		if ((pctx = pctx_create(argv[0], argv, NULL, 0, NULL)) == NULL)
			_exit(1);
		target = pctx_pid(pctx);
		(void)write(fds[1], &target, sizeof(target));
		(void)pctx_run(pctx, 0, 0, NULL);
		_exit(0);
	}
	close(fds[1]);
	CHECK(read(fds[0], &target, sizeof(target)) == sizeof(target));
	close(fds[0]);
	/* Let go from its stop at exec: its tracer is in pctx_run. */
	CHECK(wait_running(target));
	kill(tracer, SIGKILL);
	waitpid(tracer, NULL, 0);
	CHECK(waitpid(target, &status, 0) == target);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

int
main(void)
{
	alarm_guard(100);
	open_cpc();
	test_failures();
	test_held();
	test_release_created();
	test_exitkill();
	cpc_close(cpc);
	return check_report("test_pctx_create");
}
