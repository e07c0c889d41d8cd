/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guard of a started command (lib/process's proc_guard.h): a cputrack
 * killed with SIGKILL kills the command it still tracks, and with -f
 * every process below it, as the ptrace engine's PTRACE_O_EXITKILL kills
 * what it traces, while a command the engine let go runs on after it.
 */
#include <errno.h>

#include "bpfeng_impl.h"

int
eng_guard_start(struct bpfeng *eng, pid_t pid)
{
	/* Without pidfds (before Linux 5.3), no kill could be sure. */
	if (eng->child_fd < 0)
		return 0;
	return proc_guard_start(&eng->guard, eng->child_fd, pid,
	    (eng->flags & BPFENG_FOLLOW_FORK) != 0);
}

void
eng_guard_dismiss(struct bpfeng *eng)
{
	proc_guard_dismiss(&eng->guard);
}

void
eng_guard_gone(struct bpfeng *eng)
{
	proc_guard_gone(&eng->guard);
}
