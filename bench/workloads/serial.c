/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * serial N GAP_MS: N threads, one after the other, each created and
 * joined, GAP_MS milliseconds apart (and GAP_MS before the first and after
 * the last), so that a tracer sees each thread's creation and exit on
 * their own.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *
body(void *arg)
{
	return arg;
}

static void
pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		continue;
}

int
main(int argc, char **argv)
{
	pthread_t thread;
	long n, gap, i;

	if (argc != 3 || (n = atol(argv[1])) < 0 || (gap = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: serial N GAP_MS\n");
		return 2;
	}
	pause_ms(gap);
	for (i = 0; i < n; i++) {
		if (pthread_create(&thread, NULL, body, NULL) != 0 ||
		    pthread_join(thread, NULL) != 0)
			return 1;
		pause_ms(gap);
	}
	return 0;
}
