/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_debugtrap N
 *
 * Writes wl_debugtrap_writes N times, queues itself the SIGTRAP that the
 * kernel sends for a debug exception no handler claimed (si_code
 * TRAP_BRKPT, the address of the code), then writes it N times more and
 * exits 0. Untraced it dies of that SIGTRAP, as a thread whose
 * breakpoint counter's exception a hypervisor lost does; a tracer that
 * drops the trap lets it count 2N writes. Only a process may queue a
 * kernel's si_code to itself, which is what makes this the same signal.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile long wl_debugtrap_writes;

static void
write_times(long n)
{
	long i;

	for (i = 0; i < n; i++)
		wl_debugtrap_writes = i;
}

static void
unclaimed_debug_trap(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGTRAP;
	si.si_code = TRAP_BRKPT;
	si.si_addr = (void *)unclaimed_debug_trap;
	(void)syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGTRAP, &si);
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	write_times(n);
	unclaimed_debug_trap();
	write_times(n);
	return 0;
}
