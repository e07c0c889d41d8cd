/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpc_usr_section OUTSIDE INSIDE
 *
 * The v1 cpc_count_usr_events(3CPC) the way its man page shows it: the
 * controller counts system mode only (a `nouser` spec), and the program
 * turns user-mode counting on around the code it wants measured. Here the
 * code touches fresh pages: OUTSIDE pages before, INSIDE pages in the
 * section, OUTSIDE pages after, each touched once from user mode. Under
 * `cputrack -c page-faults,nouser`, the user-mode faults counted are the
 * INSIDE ones.
 */
#include <errno.h>
#include <libcpc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Not instrumented: a sanitizer build would fault in shadow pages too. */
static void __attribute__((no_sanitize_address)) touch(long pages)
{
	long page = sysconf(_SC_PAGESIZE), i;
	volatile char *p;

	p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	for (i = 0; i < pages; i++)
		p[i * page] = 1;
}

/*
 * A sanitizer build's LeakSanitizer cannot check a process that is traced
 * (it traces the process itself), and this one always runs under
 * cputrack or strace.
 */
int __lsan_is_turned_off(void);
int
__lsan_is_turned_off(void)
{
	return 1;
}

int
main(int argc, char **argv)
{
	long outside, inside;

	if (argc != 3)
		return 2;
	outside = atol(argv[1]);
	inside = atol(argv[2]);
	touch(outside);
	if (cpc_count_usr_events(1) != 0) {
		fprintf(
		    stderr, "cpc_count_usr_events(1): %s\n", strerror(errno));
		return 3;
	}
	touch(inside);
	if (cpc_count_usr_events(0) != 0) {
		fprintf(
		    stderr, "cpc_count_usr_events(0): %s\n", strerror(errno));
		return 3;
	}
	touch(outside);
	return 0;
}
