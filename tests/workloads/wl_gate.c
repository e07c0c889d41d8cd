/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_gate NTHREADS K [BEFORE]
 *
 * Starts NTHREADS threads that each make BEFORE (default 0) one-byte
 * write(2) calls to /dev/null and wait. The main thread then prints
 * "ready\n" to stdout and reads stdin until a newline or end of file (the
 * gate); after it, each thread makes K such calls and ends, and the main
 * thread joins them and exits 0, writing nothing more. What a tool that
 * attached between "ready" and the gate counts is exactly K per thread.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int devnull;
static long k, before;
static pthread_barrier_t ready, gate;

static void
writes(long n)
{
	while (n-- > 0)
		(void)write(devnull, "x", 1);
}

static void *
worker(void *arg)
{
	(void)arg;
	writes(before);
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&gate);
	writes(k);
	return NULL;
}

static void
wait_gate(void)
{
	char c;

	while (read(0, &c, 1) == 1 && c != '\n')
		;
}

int
main(int argc, char **argv)
{
	pthread_t *t;
	long i, n;

	if (argc < 3)
		return 2;
	n = atol(argv[1]);
	k = atol(argv[2]);
	before = argc > 3 ? atol(argv[3]) : 0;
	if ((devnull = open("/dev/null", O_WRONLY)) < 0 ||
	    (t = calloc(n > 0 ? n : 1, sizeof(*t))) == NULL ||
	    pthread_barrier_init(&ready, NULL, (unsigned)n + 1) != 0 ||
	    pthread_barrier_init(&gate, NULL, (unsigned)n + 1) != 0)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	pthread_barrier_wait(&ready);
	if (write(1, "ready\n", 6) != 6)
		return 1;
	wait_gate();
	pthread_barrier_wait(&gate);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
