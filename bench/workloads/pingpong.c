/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pingpong ROUNDS: two threads hand one byte to each other through two
 * pipes, ROUNDS round trips; each blocks in read(2) until the other has
 * written. Pinned to one CPU (taskset), every round trip is two context
 * switches, so the run is a measure of what a context switch costs.
 *
 * Prints "WALL_NS CPU_NS": the time the round trips took and the CPU time
 * both threads used meanwhile (user and system). The CPU time holds when
 * the machine has other work to do; the wall time does not.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int to_partner[2], to_main[2];
static long rounds;

static void *
partner(void *arg)
{
	char byte;
	long i;

	(void)arg;
	for (i = 0; i < rounds; i++) {
		if (read(to_partner[0], &byte, 1) != 1 ||
		    write(to_main[1], &byte, 1) != 1)
			break;
	}
	return NULL;
}

static long long
ns_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	long long wall, cpu;
	pthread_t thread;
	char byte = 0;
	long i;

	if (argc != 2 || (rounds = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: pingpong ROUNDS\n");
		return 2;
	}
	if (pipe(to_partner) != 0 || pipe(to_main) != 0 ||
	    pthread_create(&thread, NULL, partner, NULL) != 0) {
		perror("pingpong");
		return 1;
	}
	wall = ns_of(CLOCK_MONOTONIC);
	cpu = ns_of(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < rounds; i++) {
		if (write(to_partner[1], &byte, 1) != 1 ||
		    read(to_main[0], &byte, 1) != 1) {
			perror("pingpong");
			return 1;
		}
	}
	if (pthread_join(thread, NULL) != 0)
		return 1;
	printf("%lld %lld\n", ns_of(CLOCK_MONOTONIC) - wall,
	    ns_of(CLOCK_PROCESS_CPUTIME_ID) - cpu);
	return 0;
}
