/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_spin_writes FILE SECONDS
 *
 * Makes one-byte write(2) calls to /dev/null without pause for SECONDS
 * seconds, from the main thread alone, and after each one stores how many
 * it has made in the first 8 bytes of FILE (created, mapped shared), so
 * that another process can tell how far it is at any moment. Exit 0.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	uint64_t *count, n = 0;
	double end;
	int fd, devnull, i;

	if (argc < 3)
		return 2;
	if ((fd = open(argv[1], O_RDWR | O_CREAT, 0644)) < 0 ||
	    ftruncate(fd, sizeof(*count)) != 0 ||
	    (count = mmap(NULL, sizeof(*count), PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0)) == MAP_FAILED ||
	    (devnull = open("/dev/null", O_WRONLY)) < 0)
		return 1;
	end = now() + atof(argv[2]);
	while (now() < end) {
		for (i = 0; i < 1000; i++) {
			(void)write(devnull, "x", 1);
			__atomic_store_n(count, ++n, __ATOMIC_RELEASE);
		}
	}
	return 0;
}
