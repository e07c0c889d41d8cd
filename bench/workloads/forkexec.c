/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * forkexec COUNT [PROGRAM]: COUNT times, fork, exec PROGRAM (default
 * /bin/true) in the child and wait for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	const char *prog = argc > 2 ? argv[2] : "/bin/true";
	unsigned long n, i;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: forkexec COUNT [PROGRAM]\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	for (i = 0; i < n; i++) {
		if ((pid = fork()) < 0) {
			perror("forkexec: fork");
			return 1;
		}
		if (pid == 0) {
			execl(prog, prog, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "forkexec: child failed\n");
			return 1;
		}
	}
	return 0;
}
