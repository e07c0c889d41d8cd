/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_hold N [FILE]
 *
 * Makes exactly N getpriority(2) calls (syscalls:sys_enter_getpriority,
 * which a container runtime's own setup never makes, where it makes
 * write(2) calls in the container's cgroup before the container's program
 * starts), then, where FILE is given, creates it (open(2) with O_CREAT),
 * then waits until SIGTERM or SIGINT, which end it with status 0, also as
 * a container's first process, whose signals have no default action. A
 * container's program whose count is known and whose cgroup stays while it
 * is scraped. It needs no library but libc, so that it can be linked
 * static and be a container's whole image.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static void
leave(int sig)
{
	(void)sig;
	_exit(0);
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = leave };
	long i, n;

	if (argc < 2 || (n = atol(argv[1])) < 0)
		return 2;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (i = 0; i < n; i++)
		(void)syscall(SYS_getpriority, PRIO_PROCESS, 0);
	if (argc > 2 && open(argv[2], O_WRONLY | O_CREAT, 0600) < 0)
		return 1;
	for (;;)
		pause();
}
