/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_churn ROUNDS PER_ROUND K
 *
 * ROUNDS times: start PER_ROUND short threads that each make K one-byte
 * write(2) calls to /dev/null, and join them. The main thread writes
 * nothing. Exit status 0.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int devnull;
static long k;

static void *
worker(void *arg)
{
	long n = k;

	(void)arg;
	while (n-- > 0)
		(void)write(devnull, "x", 1);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t *t;
	long r, i, rounds, per;

	if (argc < 4)
		return 2;
	rounds = atol(argv[1]);
	per = atol(argv[2]);
	k = atol(argv[3]);
	if ((devnull = open("/dev/null", O_WRONLY)) < 0 ||
	    (t = calloc(per > 0 ? per : 1, sizeof(*t))) == NULL)
		return 1;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < per; i++)
			if (pthread_create(&t[i], NULL, worker, NULL) != 0)
				return 1;
		for (i = 0; i < per; i++)
			pthread_join(t[i], NULL);
	}
	free(t);
	return 0;
}
