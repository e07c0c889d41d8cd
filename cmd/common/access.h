/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef CPCCMD_ACCESS_H
#define CPCCMD_ACCESS_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Whether the invoking user could attach a debugger to pid, as ptrace(2)
 * decides it (owner, set-id and dumpable state, Yama), whatever
 * capabilities other than CAP_SYS_PTRACE this process holds. A cputrack
 * given CAP_BPF and CAP_PERFMON as file capabilities counts only such
 * processes. False with errno ESRCH for a process that is gone.
 */
bool may_trace(pid_t pid);

/* Why pid cannot be traced, said on stderr when it is the usual reason. */
void trace_refusal_hint(pid_t pid);

/*
 * For an engine that traces: when pid has a tracer already, name it, and
 * say that the BPF engine counts without tracing.
 */
void tracer_hint(pid_t pid);

#endif /* CPCCMD_ACCESS_H */
