/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * steady ITERATIONS: one thread, CPU-bound, a fixed amount of work.
 * The harness calibrates ITERATIONS so that the bare run takes the wanted
 * time; a tool's cost then shows as a longer run. At the end it prints
 * "steady: NS ns" on stderr, the time the loop itself took, so that the
 * cost of a tool while the program runs can be told from the cost of its
 * start and end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	unsigned long long n, i, x = 1;
	long long start;

	if (argc != 2) {
		fprintf(stderr, "usage: steady ITERATIONS\n");
		return 2;
	}
	n = strtoull(argv[1], NULL, 10);
	start = now_ns();
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	fprintf(stderr, "steady: %lld ns\n", now_ns() - start);
	return x == 42; /* keeps x alive; practically always 0 */
}
