/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpc_marked [-u] OUTSIDE INSIDE
 *
 * The application side of cpc_enable(3CPC): the program marks the code
 * it wants counted, and leaves the counters themselves to a controlling
 * process (cputrack). It turns counting off at once, makes OUTSIDE
 * one-byte write(2) calls, turns counting on around INSIDE more, turns
 * it off again and makes OUTSIDE more. Under `cputrack -c
 * syscalls:sys_enter_write`, exactly INSIDE are counted.
 *
 * With -u it is the other way round: counting stays on, and is turned off
 * around the INSIDE calls (an unmarked section): 2 * OUTSIDE are counted.
 *
 * Exit status 0 when every call succeeded; 3 when one failed (its errno
 * is said on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <libcpc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void
writes(int fd, long n)
{
	while (n-- > 0)
		(void)write(fd, "x", 1);
}

static void
call(int (*fn)(cpc_t *), cpc_t *cpc, const char *name)
{
	if (fn(cpc) != 0) {
		fprintf(stderr, "%s: %s\n", name, strerror(errno));
		exit(3);
	}
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
	int unmarked = argc > 1 && strcmp(argv[1], "-u") == 0;
	long outside, inside;
	cpc_t *cpc;
	int fd;

	if (argc != 3 + unmarked)
		return 2;
	outside = atol(argv[1 + unmarked]);
	inside = atol(argv[2 + unmarked]);
	if ((fd = open("/dev/null", O_WRONLY)) < 0 ||
	    (cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		return 1;
	if (!unmarked)
		call(cpc_disable, cpc, "cpc_disable");
	writes(fd, outside);
	call(unmarked ? cpc_disable : cpc_enable, cpc, "first call");
	writes(fd, inside);
	call(unmarked ? cpc_enable : cpc_disable, cpc, "second call");
	writes(fd, outside);
	(void)cpc_close(cpc);
	return 0;
}
