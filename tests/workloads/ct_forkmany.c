/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ct_forkmany N K
 *
 * Forks N children, one after the other. Each child makes K one-byte
 * write(2) calls to /dev/null and then waits, blocked in read(2) on a
 * pipe, until the parent has forked them all and closes the pipe; so all
 * N children are alive together. The parent writes nothing, waits for
 * every child, and exits 0 if each exited 0; a child that did not is
 * said on stderr, with its status.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	int devnull, gate[2], status, rc = 0;
	long i, n, k, j;
	char c;
	pid_t pid;

	if (argc < 3)
		return 2;
	n = atol(argv[1]);
	k = atol(argv[2]);
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0 ||
	    pipe(gate) != 0)
		return 1;
	for (i = 0; i < n; i++) {
		if ((pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			close(gate[1]);
			for (j = 0; j < k; j++)
				(void)write(devnull, "x", 1);
			(void)read(gate[0], &c, 1);
			_exit(0);
		}
	}
	close(gate[1]);
	while ((pid = wait(&status)) > 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (WIFSIGNALED(status))
			fprintf(stderr,
			    "ct_forkmany: child %d: killed by "
			    "signal %d\n",
			    (int)pid, WTERMSIG(status));
		else
			fprintf(stderr, "ct_forkmany: child %d: exit %d\n",
			    (int)pid, WEXITSTATUS(status));
		rc = 1;
	}
	return rc;
}
