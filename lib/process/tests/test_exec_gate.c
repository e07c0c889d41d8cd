/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exec_gate: a failed exec's errno comes back, a successful one runs the
 * command, nothing runs before the gate opens nor when it closes
 * unopened, a child killed at the gate makes no SIGPIPE, and no end of
 * the pipes outlives the gate or reaches the command.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "exec_gate.h"

static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own */
}

/* The child forked at a gate for argv, before_exec(arg) before its exec. */
static pid_t
gated(struct exec_gate *g, char *const argv[], void (*before)(const void *),
    const void *arg)
{
	pid_t pid;

	if (exec_gate_open(g) != 0)
		return -1;
	if ((pid = fork()) == 0)
		exec_gate_child(g, argv[0], argv, before, arg);
	exec_gate_forked(g);
	return pid;
}

/* Its exit status, or -1 when it did not exit. */
static int
exit_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void
expect_errno(char *const argv[], int want)
{
	struct exec_gate g;
	pid_t pid = gated(&g, argv, NULL, NULL);
	int err;

	CHECK(pid > 0);
	err = exec_gate_release(&g);
	if (err != want) {
		fprintf(
		    stderr, "exec %s: errno %d, want %d\n", argv[0], err, want);
		check_failures++;
	}
	CHECK(exit_status(pid) == 127);
}

static void
test_failed_exec(void)
{
	char *missing[] = { "no-such-program-exec-gate", NULL };
	char *noexec[] = { "/etc/passwd", NULL };

	expect_errno(missing, ENOENT);
	expect_errno(noexec, EACCES);
}

static void
test_ends(void)
{
	char *argv[] = { "sh", "-c", "exit 7", NULL };
	int before = open_fds(), i;
	struct exec_gate g;
	pid_t pid;

	CHECK(exec_gate_open(&g) == 0);
	for (i = 0; i < 2; i++)
		CHECK((fcntl(g.go[i], F_GETFD) & FD_CLOEXEC) &&
		    (fcntl(g.report[i], F_GETFD) & FD_CLOEXEC));
	exec_gate_close(&g);
	CHECK(open_fds() == before);
	CHECK(g.go[0] == -1 && g.go[1] == -1 && g.report[0] == -1 &&
	    g.report[1] == -1);
	pid = gated(&g, argv, NULL, NULL);
	CHECK(pid > 0 && g.report[1] == -1);
	CHECK(exec_gate_release(&g) == 0);
	CHECK(open_fds() == before);
	CHECK(exit_status(pid) == 7);
}

/* The hook says it ran, through the pipe whose write end is arg. */
static void
hook(const void *arg)
{
	if (write(*(const int *)arg, "h", 1) != 1)
		_exit(126);
}

static void
test_hook_after_gate(void)
{
	char *argv[] = { "true", NULL };
	struct exec_gate g;
	int ran[2];
	char byte;
	pid_t pid;

	CHECK(pipe2(ran, O_NONBLOCK) == 0);
	pid = gated(&g, argv, hook, &ran[1]);
	CHECK(pid > 0);
	/* The child waits at the gate: nothing of it has run. */
	CHECK(read(ran[0], &byte, 1) == -1 && errno == EAGAIN);
	CHECK(exec_gate_release(&g) == 0);
	CHECK(read(ran[0], &byte, 1) == 1 && byte == 'h');
	CHECK(exit_status(pid) == 0);
	close(ran[0]);
	close(ran[1]);
}

static void
test_closed_unopened(void)
{
	char *argv[] = { "sh", "-c", "exit 7", NULL };
	struct exec_gate g;
	pid_t pid = gated(&g, argv, NULL, NULL);

	CHECK(pid > 0);
	exec_gate_close(&g);
	CHECK(exit_status(pid) == 127);
}

static void
test_killed_at_gate(void)
{
	char *argv[] = { "true", NULL };
	struct exec_gate g;
	siginfo_t si;
	pid_t pid = gated(&g, argv, NULL, NULL);

	CHECK(pid > 0);
	CHECK(kill(pid, SIGKILL) == 0);
	memset(&si, 0, sizeof(si));
	CHECK(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0);
	CHECK(si.si_code == CLD_KILLED);
	/* SIGPIPE's default would end this test here. */
	CHECK(exec_gate_release(&g) == 0);
	CHECK(waitpid(pid, NULL, 0) == pid);
}

int
main(void)
{
	signal(SIGPIPE, SIG_DFL);
	test_failed_exec();
	test_ends();
	test_hook_after_gate();
	test_closed_unopened();
	test_killed_at_gate();
	return check_report("test_exec_gate");
}
