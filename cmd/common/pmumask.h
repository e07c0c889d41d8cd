/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The PMUs that count for a whole socket rather than for a CPU or a
 * thread: those with a cpumask file in sysfs (the uncore PMUs, RAPL's
 * power, cstate_pkg). Their kernel drivers take an event opened on any
 * CPU to the one CPU that the cpumask names for its socket, and refuse it
 * on a thread: so cpustat counts their events on those CPUs alone, and
 * cputrack not at all.
 */
#ifndef PMUMASK_H
#define PMUMASK_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "setgrp.h"

/* The PMU that an event names ("power" of "power/energy-pkg/"), or false. */
bool pmumask_pmu(const char *event, char *pmu, size_t size);

/*
 * The CPUs of the cpumask of event's PMU (cpc_event_cpumask): 0, or -1
 * when its PMU has none (a core PMU, a software event, a tracepoint) or
 * is not there. A PMU named without its box's number (uncore_imc for
 * uncore_imc_0, uncore_imc_1, ...) gives the union of its boxes'.
 */
int pmumask_cpus(cpc_t *cpc, const char *event, cpu_set_t *cpus);

/* What a run's sets count on: per socket (a cpumask PMU's), or not. */
struct pmumask_use {
	int socket_reqs;	  /* requests of cpumask PMUs */
	int cpu_reqs;		  /* the others */
	const char *socket_event; /* the first of each */
	const char *cpu_event;
	cpu_set_t cpus; /* the union of the cpumasks */
};
void pmumask_scan(cpc_t *cpc, const setgrp_t *g, struct pmumask_use *u);

/*
 * The line that refuses a run's events of per-socket PMUs (cputrack's,
 * per thread), or (cpustat's) the one that refuses them beside events
 * counted on every CPU: said, and true, when there is one. The two kinds
 * count together per socket alone (per_socket: --per-socket), where a
 * socket's row holds both, and only when measured (the CPUs counted)
 * holds every CPU of the cpumasks: a CPU row would hold no socket's count.
 */
bool pmumask_refuse_threads(cpc_t *cpc, const setgrp_t *g);
bool pmumask_refuse_mixed(
    const struct pmumask_use *u, bool per_socket, const cpu_set_t *measured);

#endif /* PMUMASK_H */
