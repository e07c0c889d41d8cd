/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef CPCCMD_ACCESS_H
#define CPCCMD_ACCESS_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Whether a process may be traced is libcpc's cpc_may_trace: a cputrack
 * given CAP_BPF and CAP_PERFMON as file capabilities counts only what its
 * user could attach a debugger to.
 */

/* Why pid cannot be traced, said on stderr when it is the usual reason. */
void trace_refusal_hint(pid_t pid);

/*
 * For an engine that traces: when pid has a tracer already, name it, and
 * say that the BPF engine counts without tracing.
 */
void tracer_hint(pid_t pid);

#endif /* CPCCMD_ACCESS_H */
