/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The computation the seed examples leave to the reader ("==> Computation
 * to be measured goes here <=="): n page faults on fresh pages and n
 * one-byte write(2) calls, so that software events count exactly n.
 */
#ifndef SEED_COMPUTE_H
#define SEED_COMPUTE_H

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Not instrumented: ASan would fault in shadow pages, more page faults. */
static void __attribute__((no_sanitize_address)) compute(int n)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	static int devnull = -1;
	volatile char *p;
	int i;

	if (devnull < 0 && (devnull = open("/dev/null", O_WRONLY)) < 0)
		abort();
	p = mmap(NULL, (size_t)n * (size_t)pagesz, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	for (i = 0; i < n; i++)
		p[(long)i * pagesz] = 1;
	munmap((void *)p, (size_t)n * (size_t)pagesz);
	for (i = 0; i < n; i++)
		if (write(devnull, "x", 1) != 1)
			abort();
}

#endif /* SEED_COMPUTE_H */
