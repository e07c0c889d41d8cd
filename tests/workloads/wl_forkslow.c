/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_forkslow DEPTH WIDTH K MS
 *
 * As wl_forktree, but slow: every process makes K one-byte write(2) calls
 * to /dev/null, forks its WIDTH children while DEPTH > 0, sleeps MS
 * milliseconds, makes K more, and waits for its children. Each process
 * writes exactly 2K times, and lives long enough to be sampled.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int devnull;
static long width, k, ms;

static void
writes(void)
{
	long n;

	for (n = k; n > 0; n--)
		(void)write(devnull, "x", 1);
}

static int
tree(long depth)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	int status, rc = 0;
	pid_t pid;
	long i;

	writes();
	for (i = 0; depth > 0 && i < width; i++) {
		if ((pid = fork()) < 0)
			return 1;
		if (pid == 0)
			_exit(tree(depth - 1));
	}
	nanosleep(&ts, NULL);
	writes();
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			rc = 1;
	return rc;
}

int
main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	width = atol(argv[2]);
	k = atol(argv[3]);
	ms = atol(argv[4]);
	if ((devnull = open("/dev/null", O_WRONLY)) < 0)
		return 1;
	return tree(atol(argv[1]));
}
