/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ptrace_floor COMMAND [ARG...]: the least a ptrace follower can do. It
 * runs COMMAND traced, with every clone, fork, vfork and exec reported
 * (the stops cputrack -f -e and strace -f take), and restarts each stop at
 * once: no counters, no output, no bookkeeping. Its cost over the bare
 * COMMAND is the price of the stops alone, the floor under any tool that
 * follows threads and processes with ptrace. Exits with COMMAND's status.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define FOLLOW_ALL                                                        \
	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
	    PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)

/*
 * A stop's signal goes back to the tracee, except the SIGSTOP with which
 * every auto-attached task starts (the benchmarks' workloads send none of
 * their own) and the stops of ptrace events.
 */
static int
signal_to_pass(int status)
{
	int sig = WSTOPSIG(status);

	if ((status >> 16) != 0 || sig == SIGSTOP || sig == SIGTRAP)
		return 0;
	return sig;
}

static int
follow(pid_t root)
{
	int status, root_status = 0;
	pid_t tid;

	for (;;) {
		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			return root_status; /* ECHILD: all are gone */
		}
		if (WIFSTOPPED(status))
			(void)ptrace(
			    PTRACE_CONT, tid, 0, (long)signal_to_pass(status));
		else if (tid == root)
			root_status = WIFEXITED(status) ?
			    WEXITSTATUS(status) :
			    128 + WTERMSIG(status);
	}
}

int
main(int argc, char **argv)
{
	int status;
	pid_t root;

	if (argc < 2) {
		fprintf(stderr, "usage: ptrace_floor command [arg ...]\n");
		return 2;
	}
	if ((root = fork()) < 0) {
		perror("ptrace_floor: fork");
		return 1;
	}
	if (root == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0 || raise(SIGSTOP) != 0)
			_exit(126);
		execvp(argv[1], &argv[1]);
		_exit(127);
	}
	if (waitpid(root, &status, 0) != root || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, root, 0, (long)FOLLOW_ALL) != 0 ||
	    ptrace(PTRACE_CONT, root, 0, 0) != 0) {
		perror("ptrace_floor: cannot trace the command");
		return 1;
	}
	return follow(root);
}
