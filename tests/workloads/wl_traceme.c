/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_traceme K [PROGRAM [ARG...]]
 *
 * Asks its parent to trace it (PTRACE_TRACEME), as programs that resist
 * debuggers do; then forks a child that exits at once (its end stops a
 * tracee on SIGCHLD), waits for it, makes K one-byte write(2) calls to
 * /dev/null, and, given a program, execs it (a tracee stops at its exec
 * too). Exit status 0, or 1 when a step failed; a parent that never
 * resumes it leaves it stopped for good.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	int devnull, status;
	long k;
	pid_t pid;

	if (argc < 2)
		return 2;
	k = atol(argv[1]);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0 ||
	    (devnull = open("/dev/null", O_WRONLY)) < 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, &status, 0) != pid || status != 0)
		return 1;
	for (; k > 0; k--)
		(void)write(devnull, "x", 1);
	if (argc > 2) {
		execvp(argv[2], argv + 2);
		return 1;
	}
	return 0;
}
