/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ct_marker FILE [K [DELAY_MS]]
 *
 * Sleeps DELAY_MS milliseconds (default 0), makes K (default 0) one-byte
 * write(2) calls to /dev/null, then creates FILE (open(2) with O_CREAT, no
 * write(2)) and exits 0. Whether FILE exists tells whether the program ran
 * to its end; a test that expects the program never to start checks that
 * FILE is absent.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec ts;
	long k, ms;
	int devnull, fd;

	if (argc < 2)
		return 2;
	k = argc > 2 ? atol(argv[2]) : 0;
	ms = argc > 3 ? atol(argv[3]) : 0;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	if (ms > 0)
		nanosleep(&ts, NULL);
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	while (k-- > 0)
		(void)write(devnull, "x", 1);
	if ((fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		return 1;
	close(fd);
	return 0;
}
