/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_spin NTHREADS
 *
 * The main thread and NTHREADS more threads spin in user mode until the
 * process is killed: a multithreaded target whose CPU time says at once
 * whether all of it is stopped.
 */
#include <pthread.h>
#include <stdlib.h>

static void *
spin(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	for (;;)
		n++;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	long i, n = argc > 1 ? atol(argv[1]) : 1;

	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, spin, NULL) != 0)
			return 1;
	spin(NULL);
	return 0;
}
