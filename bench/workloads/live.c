/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * live THREADS ITERATIONS SECONDS: start THREADS threads that block until
 * the end, then, in the main thread, do ITERATIONS of CPU work (as steady
 * does) and sleep SECONDS, then let the threads go and join them.
 *
 * If BENCH_READY names a file, it is created once all threads are
 * running, so that a harness can start measuring in the steady state.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static unsigned long started;
static int go;

static void *
body(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	started++;
	pthread_cond_broadcast(&cv);
	while (!go)
		pthread_cond_wait(&cv, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int
main(int argc, char **argv)
{
	unsigned long n, i;
	unsigned long long iters, k, x = 1;
	double secs;
	pthread_t *t;
	pthread_attr_t attr;
	const char *ready = getenv("BENCH_READY");
	struct timespec ts;
	int err, fd;

	if (argc != 4) {
		fprintf(stderr, "usage: live THREADS ITERATIONS SECONDS\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	iters = strtoull(argv[2], NULL, 10);
	secs = strtod(argv[3], NULL);
	if ((t = calloc(n ? n : 1, sizeof(*t))) == NULL)
		return 1;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++)
		if ((err = pthread_create(&t[i], &attr, body, NULL))) {
			fprintf(stderr, "live: pthread_create %lu: %s\n", i,
			    strerror(err));
			return 1;
		}
	pthread_mutex_lock(&lock);
	while (started < n)
		pthread_cond_wait(&cv, &lock);
	pthread_mutex_unlock(&lock);
	if (ready != NULL && (fd = open(ready, O_WRONLY | O_CREAT, 0644)) >= 0)
		close(fd);

	for (k = 0; k < iters; k++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0)
		;

	pthread_mutex_lock(&lock);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return x == 42;
}
