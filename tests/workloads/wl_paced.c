/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_paced RATE [SECONDS]
 *
 * Makes one-byte write(2) calls to /dev/null at RATE a second, from the
 * main thread alone: RATE / 100 of them every 10 ms, at deadlines on the
 * monotonic clock counted from its start, so that a late wakeup is made
 * up at the next one and the pace never drifts. For SECONDS seconds, or
 * until it is killed (SECONDS 0 or absent). A service whose rate is
 * known exactly, whatever the load. Exit 0.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define STEP_NS 10000000L /* 10 ms */

static void
add_ns(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

int
main(int argc, char **argv)
{
	struct timespec next;
	long rate, per_step, steps, step, i;
	int devnull;

	if (argc < 2 || (rate = atol(argv[1])) < 100)
		return 2;
	per_step = rate / 100;
	steps = argc > 2 ? atol(argv[2]) * 100 : 0;
	if ((devnull = open("/dev/null", O_WRONLY)) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (step = 0; steps == 0 || step < steps; step++) {
		for (i = 0; i < per_step; i++)
			(void)write(devnull, "x", 1);
		add_ns(&next, STEP_NS);
		while (clock_nanosleep(
			   CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0)
			;
	}
	return 0;
}
