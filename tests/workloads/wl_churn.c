/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_churn ROUNDS PER_ROUND K [hold]
 *
 * ROUNDS times: start PER_ROUND short threads that each make K one-byte
 * write(2) calls to /dev/null, and join them. The main thread writes
 * nothing. With hold, it then prints "done\n" and reads stdin to its
 * end before it exits, so that what watches it can look at the end of
 * the churn while the process is still there. Exit status 0.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
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
	bool hold;
	char c;

	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "hold") != 0))
		return 2;
	hold = argc == 5;
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
	if (hold) {
		if (write(1, "done\n", 5) != 5)
			return 1;
		while (read(0, &c, 1) == 1)
			;
	}
	return 0;
}
