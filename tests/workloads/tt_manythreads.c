/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tt_manythreads NTHREADS K
 *
 * Starts NTHREADS threads that are all alive at once: each makes K
 * one-byte write(2) calls to /dev/null and waits at a barrier until every
 * thread has made its calls; then they all end and the main thread, which
 * joins them, makes K such calls itself. Exit status 0, or 1 if a thread
 * cannot be created.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t all_done;
static int devnull;
static long k;

static void
writes(void)
{
	long i;

	for (i = 0; i < k; i++)
		(void)write(devnull, "x", 1);
}

static void *
thread_main(void *arg)
{
	(void)arg;
	writes();
	pthread_barrier_wait(&all_done);
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
	k = atol(argv[2]);
	if (n < 1 || (t = calloc((size_t)n, sizeof(*t))) == NULL ||
	    (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	pthread_barrier_init(&all_done, NULL, (unsigned)n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL) != 0)
			return 1;
	pthread_barrier_wait(&all_done);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	writes();
	return 0;
}
