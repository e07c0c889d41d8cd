/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_exec_chain N K
 *
 * Makes K one-byte write(2) calls to /dev/null, then, while N > 0, execs
 * itself (/proc/self/exe) as "wl_exec_chain N-1 K". N + 1 images in all,
 * K writes each, one pid. Exit status 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	char next[32];
	char *args[4];
	int devnull;
	long n, k, i;

	if (argc < 3)
		return 2;
	n = atol(argv[1]);
	k = atol(argv[2]);
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	for (i = 0; i < k; i++)
		(void)write(devnull, "x", 1);
	if (n <= 0)
		return 0;
	snprintf(next, sizeof(next), "%ld", n - 1);
	args[0] = argv[0];
	args[1] = next;
	args[2] = argv[2];
	args[3] = NULL;
	execv("/proc/self/exe", args);
	return 127;
}
