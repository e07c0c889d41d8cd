/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_threads NTHREADS K [MAINK]
 *
 * The main thread makes MAINK (default 0) write(2) calls of one byte to
 * /dev/null, then starts NTHREADS threads that each make K such calls, and
 * joins them. Exit status 0.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int devnull;
static long k;

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
	writes(k);
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
	if ((devnull = open("/dev/null", O_WRONLY)) < 0 ||
	    (t = calloc(n > 0 ? n : 1, sizeof(*t))) == NULL)
		return 1;
	writes(argc > 3 ? atol(argv[3]) : 0);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
