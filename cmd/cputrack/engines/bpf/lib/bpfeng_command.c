/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The command the engine starts: forked, it waits at a gate (lib/process's
 * exec_gate.h, libpctx's too) until it is tracked, then execs. Nothing of
 * that depends on the programs, so a command named at bpfeng_open is
 * forked, with its guard, while the programs load: the verifier keeps the
 * CPUs busy for milliseconds, and the forks, which wait for each other,
 * fit beside it.
 * bpfeng_start then only tracks it and opens the gate, as it would a
 * command it forked itself.
 */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfeng_impl.h"
#include "exec_gate.h"

/*
 * Descriptors the command and its guard take while the programs load:
 * the gate's pipes, the pidfd and the guard's socket.
 */
#define COMMAND_FDS 8

/*
 * What the child does once it is tracked, before its exec: the signals
 * cputrack blocks unblocked, and the descriptor limit it raised put back.
 * The child is not tied to the engine's life (PR_SET_PDEATHSIG would
 * outlive its exec): a command the engine lets go at an exec must run on
 * after the engine. Its guard (bpfeng_guard.c) kills it if cputrack dies
 * first.
 */
static void
before_exec(const void *arg)
{
	const struct bpfeng *eng = arg;
	sigset_t none;

	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	if (eng->nofile_raised)
		(void)setrlimit(RLIMIT_NOFILE, &eng->nofile);
}

void
eng_command_close(struct eng_command *c)
{
	exec_gate_close(&c->gate);
}

int
eng_command_fork(struct bpfeng *eng, char *const argv[], struct eng_command *c)
{
	int err;

	c->pid = 0;
	if (exec_gate_open(&c->gate) != 0)
		return -1;
	if ((c->pid = fork()) < 0) {
		err = errno;
		exec_gate_close(&c->gate);
		c->pid = 0;
		errno = err;
		return -1;
	}
	if (c->pid == 0)
		exec_gate_child(&c->gate, argv[0], argv, before_exec, eng);
	exec_gate_forked(&c->gate);
	return 0;
}

int
eng_command_go(struct eng_command *c)
{
	return exec_gate_release(&c->gate);
}

/*
 * A child that never ran the command: its gate closed (it would exit
 * there) and killed, whichever comes first, and reaped.
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
	if (eng_guard_start(eng, c->pid) != 0) {
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
	exec_gate_init(&eng->ready.gate);
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
