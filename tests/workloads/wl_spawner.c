/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_spawner NSPAWNERS K
 *
 * NSPAWNERS threads each start, one after the other and forever, a short
 * thread that makes K one-byte write(2) calls to /dev/null and exits, and
 * join it. The main thread prints "ready\n" to stdout once the spawners
 * run, then sleeps. Runs until killed: a process whose set of threads
 * never stands still.
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

static void *
spawner(void *arg)
{
	pthread_t t;

	(void)arg;
	for (;;)
		if (pthread_create(&t, NULL, worker, NULL) == 0)
			pthread_join(t, NULL);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	long i, n;

	if (argc < 3)
		return 2;
	n = atol(argv[1]);
	k = atol(argv[2]);
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, spawner, NULL) != 0)
			return 1;
	(void)write(1, "ready\n", 6);
	for (;;)
		pause();
}
