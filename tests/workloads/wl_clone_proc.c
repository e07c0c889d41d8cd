/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_clone_proc K M
 *
 * Makes K one-byte write(2) calls to /dev/null, then creates a child
 * process with a bare clone(2): no CLONE_THREAD and no exit signal, so a
 * tracer sees a clone event, as for a thread, and not a fork event. The
 * child makes M writes and exits 0; the parent waits for it and exits with
 * its status.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int devnull;

static int
child_main(void *arg)
{
	long n;

	for (n = *(long *)arg; n > 0; n--)
		(void)write(devnull, "x", 1);
	return 0;
}

int
main(int argc, char **argv)
{
	size_t stack_size = 256 * 1024;
	char *stack;
	int status;
	long n, child_writes;
	pid_t pid;

	if (argc != 3)
		return 2;
	child_writes = atol(argv[2]);
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0 ||
	    (stack = malloc(stack_size)) == NULL)
		return 1;
	for (n = atol(argv[1]); n > 0; n--)
		(void)write(devnull, "x", 1);
	pid = clone(child_main, stack + stack_size, 0, &child_writes);
	if (pid < 0)
		return 1;
	if (waitpid(pid, &status, __WALL) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
