/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_vfork_exec K PROG [ARG...]
 *
 * Makes K one-byte write(2) calls to /dev/null, then vfork(2)s a child that
 * execs PROG with the ARGs (PROG is argv[0] too), waits for it, and exits
 * with its exit status (127 if the exec failed).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	int devnull, status;
	long n;
	pid_t pid;

	if (argc < 3)
		return 2;
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	for (n = atol(argv[1]); n > 0; n--)
		(void)write(devnull, "x", 1);
	if ((pid = vfork()) < 0)
		return 1;
	if (pid == 0) {
		execv(argv[2], &argv[2]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
