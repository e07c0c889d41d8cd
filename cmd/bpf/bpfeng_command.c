/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The command the engine starts: forked, it waits at a gate (a pipe)
 * until it is tracked, then execs. Nothing of that depends on the
 * programs, so a command named at bpfeng_open is forked, with its guard,
 * while the programs load: the verifier keeps the CPUs busy for
 * milliseconds, and the forks, which wait for each other, fit beside it.
 * bpfeng_start then only tracks it and opens the gate, as it would a
 * command it forked itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfeng_impl.h"

/*
 * Descriptors the command and its guard take while the programs load:
 * the gate's, the exec's report, the pidfd and the guard's socket.
 */
#define COMMAND_FDS 8

/*
 * The child waits until it is tracked, then execs. It is not tied to the
 * engine's life (PR_SET_PDEATHSIG would outlive its exec): a command the
 * engine lets go at an exec must run on after the engine. Its guard
 * (bpfeng_guard.c) kills it if cputrack dies first.
 */
static void __attribute__((noreturn))
child_exec(const struct bpfeng *eng, char *const argv[], int go, int report)
{
	sigset_t none;
	char byte = 0;
	int err;

	while (read(go, &byte, 1) < 0 && errno == EINTR)
		;
	if (byte != 'g')
		_exit(127);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	if (eng->nofile_raised)
		(void)setrlimit(RLIMIT_NOFILE, &eng->nofile);
	execvp(argv[0], argv);
	err = errno;
	if (write(report, &err, sizeof(err)) == -1) {
		/* The parent sees exit status 127 all the same. */
	}
	_exit(127);
}

static void
close_pair(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	fds[0] = fds[1] = -1;
}

void
eng_command_close(struct eng_command *c)
{
	if (c->go >= 0)
		close(c->go);
	if (c->report >= 0)
		close(c->report);
	c->go = c->report = -1;
}

int
eng_command_fork(struct bpfeng *eng, char *const argv[], struct eng_command *c)
{
	int go[2] = { -1, -1 }, report[2] = { -1, -1 }, err;

	c->pid = 0;
	c->go = c->report = -1;
	if (pipe2(go, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0 ||
	    (c->pid = fork()) < 0) {
		err = errno;
		close_pair(go);
		close_pair(report);
		c->pid = 0;
		errno = err;
		return -1;
	}
	if (c->pid == 0)
		child_exec(eng, argv, go[0], report[1]);
	close(go[0]);
	close(report[1]);
	c->go = go[1];
	c->report = report[0];
	return 0;
}

/* 0 when the child's exec succeeded (its end of the pipe closed). */
static int
exec_result(int report)
{
	ssize_t n;
	int err;

	while ((n = read(report, &err, sizeof(err))) < 0 && errno == EINTR)
		;
	return n == (ssize_t)sizeof(err) ? err : 0;
}

int
eng_command_go(struct eng_command *c)
{
	int err = write(c->go, "g", 1) != 1 ? errno : exec_result(c->report);

	eng_command_close(c);
	return err;
}

/*
 * A child that never ran the command: killed (it holds the gate's other
 * end too, so closing this one wakes nothing), and reaped.
 */
static void
command_drop(struct eng_command *c)
{
	eng_command_close(c);
	if (c->pid > 0)
		(void)kill(c->pid, SIGKILL);
	while (c->pid > 0 && waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	c->pid = 0;
}

void
eng_command_prepare(struct bpfeng *eng, char *const argv[])
{
	struct eng_command *c = &eng->ready;

	if (argv == NULL || argv[0] == NULL || eng->fd_spare < COMMAND_FDS ||
	    eng_command_fork(eng, argv, c) != 0)
		return;
	/* Without pidfds (before Linux 5.3) there is no guard to start. */
	eng->child_fd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (eng_guard_start(eng) != 0) {
		eng_command_abandon(eng);
		return;
	}
	eng->ready_argv = argv;
}

bool
eng_command_take(struct bpfeng *eng, char *const argv[], struct eng_command *c)
{
	if (eng->ready.pid <= 0)
		return false;
	if (eng->ready_argv != argv) {
		eng_command_abandon(eng);
		return false;
	}
	*c = eng->ready;
	eng->ready.pid = 0;
	eng->ready.go = eng->ready.report = -1;
	eng->ready_argv = NULL;
	return true;
}

void
eng_command_abandon(struct bpfeng *eng)
{
	if (eng->ready.pid <= 0)
		return;
	command_drop(&eng->ready);
	eng->ready_argv = NULL;
	eng_guard_gone(eng);
	if (eng->child_fd >= 0)
		close(eng->child_fd);
	eng->child_fd = -1;
}
