/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * churn TOTAL BATCH: create TOTAL short threads, BATCH at a time, and join
 * each batch before the next.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *
body(void *arg)
{
	__atomic_add_fetch((unsigned long *)arg, 1, __ATOMIC_RELAXED);
	return NULL;
}

int
main(int argc, char **argv)
{
	unsigned long total, batch, done = 0, count = 0, i;
	pthread_t t[64];
	pthread_attr_t attr;
	int err;

	if (argc != 3 || (batch = strtoul(argv[2], NULL, 10)) == 0 ||
	    batch > 64) {
		fprintf(stderr, "usage: churn TOTAL BATCH(1-64)\n");
		return 2;
	}
	total = strtoul(argv[1], NULL, 10);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	while (done < total) {
		unsigned long n = total - done < batch ? total - done : batch;

		for (i = 0; i < n; i++)
			if ((err = pthread_create(
				 &t[i], &attr, body, &count))) {
				fprintf(stderr, "churn: pthread_create: %s\n",
				    strerror(err));
				return 1;
			}
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		done += n;
	}
	return count == total ? 0 : 1;
}
