/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_steps NTHREADS K [NAME]
 *
 * Starts NTHREADS threads, then reads its standard input a byte at a
 * time: at each 'w' every thread makes K one-byte write(2) calls to
 * /dev/null, and the next byte is read only when all of them are done; at
 * 'q' or the end of the input the threads end, are joined, and the
 * program exits 0. Other bytes (newlines) are skipped. The main thread
 * writes nothing. A test feeds it a step at a time, when what it watches
 * (a tool's rows) has seen the step before: how the writes fall into the
 * tool's intervals is then the test's choice, not the scheduler's. With
 * NAME, thread i (from 1) names itself NAME-i as it starts.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

static int devnull;
static const char *name;
static long k;
static bool ending;
static pthread_barrier_t go, done;

static void *
worker(void *arg)
{
	long n;
	char own[16];

	if (name != NULL) {
		snprintf(own, sizeof(own), "%s-%ld", name, (long)(intptr_t)arg);
		prctl(PR_SET_NAME, own);
	}
	for (;;) {
		pthread_barrier_wait(&go);
		if (ending)
			return NULL;
		for (n = 0; n < k; n++)
			(void)write(devnull, "x", 1);
		pthread_barrier_wait(&done);
	}
}

int
main(int argc, char **argv)
{
	pthread_t *t;
	long i, n;
	char c;

	if (argc < 3)
		return 2;
	n = atol(argv[1]);
	k = atol(argv[2]);
	name = argc > 3 ? argv[3] : NULL;
	if (n < 1 || (devnull = open("/dev/null", O_WRONLY)) < 0 ||
	    (t = calloc((size_t)n, sizeof(*t))) == NULL)
		return 1;
	pthread_barrier_init(&go, NULL, (unsigned)n + 1);
	pthread_barrier_init(&done, NULL, (unsigned)n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(
			&t[i], NULL, worker, (void *)(intptr_t)(i + 1)) != 0)
			return 1;
	while (read(0, &c, 1) == 1 && c != 'q') {
		if (c != 'w')
			continue;
		pthread_barrier_wait(&go);
		pthread_barrier_wait(&done);
	}
	ending = true;
	pthread_barrier_wait(&go);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
