/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_getpriority N
 *
 * Makes exactly N getpriority(2) system calls, and no others of that
 * kind: a tracepoint (syscalls:sys_enter_getpriority) that hardly anything
 * else on a system fires, so that a system-wide count of it on the CPU
 * this runs on is N. Exit status 0.
 */
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	long i, n;

	if (argc < 2)
		return 2;
	n = atol(argv[1]);
	for (i = 0; i < n; i++)
		(void)syscall(SYS_getpriority, PRIO_PROCESS, 0);
	return 0;
}
