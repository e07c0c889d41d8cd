/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * writes N: N write(2) calls of one byte to /dev/null, and no other
 * write: syscalls:sys_enter_write counts exactly N for the process. With
 * two identical sets taking turns, the sum over the sets is N only if no
 * event falls between two turns.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	long n, i;
	int fd;

	if (argc != 2 || (n = atol(argv[1])) < 0) {
		fprintf(stderr, "usage: writes N\n");
		return 2;
	}
	if ((fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (write(fd, "", 1) != 1)
			return 1;
	return 0;
}
