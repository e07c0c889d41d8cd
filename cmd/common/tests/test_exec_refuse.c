/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exec_refuse.c on the running kernel: after it, execve(2) and
 * execveat(2) fail with EPERM in the calling thread, in a thread it
 * starts later and in a child forked later, while what a counting run
 * needs (perf_event_open, getpid, files) still works, and the process
 * says "Seccomp: 2" and "NoNewPrivs: 1". Each check runs in a child: the
 * filter is for good.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "exec_refuse.h"

/*
 * An exec that is let through runs a shell that exits 255: every bit of
 * the child's status set, every check failed.
 */
static char *const shell_argv[] = { "sh", "-c", "exit 255", NULL };
static char *const no_env[] = { NULL };

static bool
execve_refused(void)
{
	return execve("/bin/sh", shell_argv, no_env) == -1 && errno == EPERM;
}

static bool
execveat_refused(void)
{
	return syscall(SYS_execveat, AT_FDCWD, "/bin/sh", shell_argv, no_env,
		   0) == -1 &&
	    errno == EPERM;
}

/* Whether /proc/self/status has the line want. */
static bool
status_says(const char *want)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	bool found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strcmp(line, want) == 0;
	fclose(f);
	return found;
}

static bool
counter_opens(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.exclude_kernel = 1,
	};
	long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);

	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

static bool
forked_child_refused(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(execve_refused() ? 0 : 1);
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A thread started after the filter. */
static bool thread_refused;

static void *
later_thread(void *unused)
{
	(void)unused;
	thread_refused = execve_refused();
	return NULL;
}

enum {
	REFUSE_OK,
	EXECVE,
	EXECVEAT,
	THREAD,
	CHILD,
	COUNTER,
	SECCOMP,
	NNP,
	NCHECKS
};
static const char *const what[NCHECKS] = {
	"exec_refuse returns 0",
	"execve refused",
	"execveat refused",
	"a thread started after refused",
	"a child forked after refused",
	"perf_event_open still opens",
	"Seccomp: 2",
	"NoNewPrivs: 1",
};

/* The child's checks, a bit each for those that failed. */
static int
child_checks(void)
{
	pthread_t t;
	int failed = 0;

	if (exec_refuse() != 0)
		failed |= 1 << REFUSE_OK;
	if (pthread_create(&t, NULL, later_thread, NULL) != 0)
		return (1 << NCHECKS) - 1;
	pthread_join(t, NULL);
	failed |= !execve_refused() << EXECVE;
	failed |= !execveat_refused() << EXECVEAT;
	failed |= !thread_refused << THREAD;
	failed |= !forked_child_refused() << CHILD;
	failed |= !counter_opens() << COUNTER;
	failed |= !status_says("Seccomp:\t2\n") << SECCOMP;
	failed |= !status_says("NoNewPrivs:\t1\n") << NNP;
	return failed;
}

int
main(void)
{
	int status, i;
	pid_t pid;

#if !defined(__x86_64__) && !defined(__aarch64__)
	SKIP("exec_refuse knows x86-64 and arm64 only");
#endif
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child_checks());
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	for (i = 0; i < NCHECKS; i++) {
		check_count++;
		if (WIFEXITED(status) && (WEXITSTATUS(status) & (1 << i))) {
			check_failures++;
			fprintf(stderr, "failed: %s\n", what[i]);
		}
	}
	/* The parent, never filtered, still execs. */
	CHECK(status_says("Seccomp:\t0\n"));
	return check_report("test_exec_refuse");
}
