/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_pingpong ROUNDS
 *
 * Two threads pass one byte back and forth through two pipes, ROUNDS
 * times: each blocks in read(2) until the other writes, so every round
 * is two wakeups and, on one CPU, two context switches. Prints the
 * elapsed time and the CPU time both threads used (user and system), in
 * nanoseconds, to stdout, and exits 0. A load made of context switches,
 * to measure what watching them costs; the CPU time holds when other
 * work shares the machine.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds;

static void *
partner(void *arg)
{
	char c;
	long i;

	(void)arg;
	for (i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long
cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
	    1000000000LL +
	    ((long long)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	long long start, cpu;
	char c = 'x';
	long i;

	if (argc < 2)
		return 2;
	rounds = atol(argv[1]);
	if (pipe(ping) != 0 || pipe(pong) != 0 ||
	    pthread_create(&t, NULL, partner, NULL) != 0)
		return 1;
	start = now_ns();
	cpu = cpu_ns();
	for (i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	pthread_join(t, NULL);
	printf("%lld %lld\n", now_ns() - start, cpu_ns() - cpu);
	return 0;
}
