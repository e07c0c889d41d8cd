/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_spin_for NTHREADS MS
 *
 * The main thread and NTHREADS more threads spin in user mode for MS
 * milliseconds of wall-clock time each, then the threads are joined and
 * the process exits 0: a target of known width whose CPU time is bounded
 * by its wall time times the threads.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static long ms;

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *
spin(void *arg)
{
	long long end = now_ns() + ms * 1000000LL;

	(void)arg;
	while (now_ns() < end)
		;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t *t;
	long i, n;

	if (argc < 3)
		return 2;
	n = atol(argv[1]);
	ms = atol(argv[2]);
	if (n < 0 || (t = calloc((size_t)n + 1, sizeof(*t))) == NULL)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, spin, NULL) != 0)
			return 1;
	spin(NULL);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
