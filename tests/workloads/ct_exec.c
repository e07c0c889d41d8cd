/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ct_exec K PROG [ARG...]
 *
 * Makes K one-byte write(2) calls to /dev/null, then execs PROG with the
 * ARGs (PROG is argv[0] too) from the main thread. If the exec fails it
 * creates the file named by the environment variable CT_EXEC_FAILED (if
 * set; open(2) with O_CREAT, no write(2)) and exits 127.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	const char *failed;
	int devnull, fd;
	long n;

	if (argc < 3)
		return 2;
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	for (n = atol(argv[1]); n > 0; n--)
		(void)write(devnull, "x", 1);
	execv(argv[2], &argv[2]);
	if ((failed = getenv("CT_EXEC_FAILED")) != NULL &&
	    (fd = open(failed, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0)
		close(fd);
	return 127;
}
