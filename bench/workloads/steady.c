/*
 * steady ITERATIONS: one thread, CPU-bound, a fixed amount of work.
 * The harness calibrates ITERATIONS so that the bare run takes the wanted
 * time; a tool's cost then shows as a longer run.
 */
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	unsigned long long n, i, x = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: steady ITERATIONS\n");
		return 2;
	}
	n = strtoull(argv[1], NULL, 10);
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x == 42;	/* keeps x alive; practically always 0 */
}
