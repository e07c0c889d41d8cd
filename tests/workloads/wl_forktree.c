/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_forktree DEPTH WIDTH K
 *
 * Every process makes K one-byte write(2) calls to /dev/null; then, while
 * DEPTH > 0, it forks WIDTH children that do the same with DEPTH - 1, and
 * waits for them. There are 1 + WIDTH + WIDTH^2 + ... + WIDTH^DEPTH
 * processes. Exit status 0 if every child exited 0.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int
tree(int devnull, long depth, long width, long k)
{
	long i, n;
	int status, rc = 0;
	pid_t pid;

	for (n = k; n > 0; n--)
		(void)write(devnull, "x", 1);
	if (depth <= 0)
		return 0;
	for (i = 0; i < width; i++) {
		if ((pid = fork()) < 0)
			return 1;
		if (pid == 0)
			_exit(tree(devnull, depth - 1, width, k));
	}
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			rc = 1;
	return rc;
}

int
main(int argc, char **argv)
{
	int devnull;

	if (argc < 4)
		return 2;
	if ((devnull = open("/dev/null", O_WRONLY)) < 0)
		return 1;
	return tree(devnull, atol(argv[1]), atol(argv[2]), atol(argv[3]));
}
