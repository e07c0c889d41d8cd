/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_jobctl K INTERVAL_MS
 *
 * Makes K one-byte write(2) calls to /dev/null, one every INTERVAL_MS
 * milliseconds, and exits 0. Slow on purpose: there is time to stop and
 * continue it (SIGSTOP, SIGTSTP, SIGCONT) while it works. Progress can be
 * watched in /proc/PID/io (syscw).
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
	int devnull;

	if (argc < 3)
		return 2;
	k = atol(argv[1]);
	ms = atol(argv[2]);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	while (k-- > 0) {
		(void)write(devnull, "x", 1);
		nanosleep(&ts, NULL);
	}
	return 0;
}
