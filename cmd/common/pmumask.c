/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which events count per socket: their PMU's cpumask, as libcpc reads it
 * (see pmumask.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "diag.h"
#include "pmumask.h"
#include "spec.h"

bool
pmumask_pmu(const char *event, char *pmu, size_t size)
{
	const char *slash = strchr(event, '/');
	size_t n;

	if (slash == NULL || slash == event ||
	    (n = (size_t)(slash - event)) >= size)
		return false;
	memcpy(pmu, event, n);
	pmu[n] = '\0';
	return true;
}

int
pmumask_cpus(cpc_t *cpc, const char *event, cpu_set_t *cpus)
{
	const char *list;
	cpu_set_t one;
	int i, r = -1;

	CPU_ZERO(cpus);
	for (i = 0; (list = cpc_event_cpumask(cpc, event, i)) != NULL; i++)
		if (cpus_parse_list(list, &one) == 0) {
			CPU_OR(cpus, cpus, &one);
			r = 0;
		}
	return r;
}

void
pmumask_scan(cpc_t *cpc, const setgrp_t *g, struct pmumask_use *u)
{
	const struct spec *spec;
	cpu_set_t one;
	int s, r;

	memset(u, 0, sizeof(*u));
	CPU_ZERO(&u->cpus);
	for (s = 0; s < setgrp_nsets(g); s++) {
		spec = setgrp_spec(g, s);
		for (r = 0; r < spec->nreqs; r++) {
			if (pmumask_cpus(cpc, spec->reqs[r].event, &one) == 0) {
				CPU_OR(&u->cpus, &u->cpus, &one);
				if (u->socket_reqs++ == 0)
					u->socket_event = spec->reqs[r].event;
			} else if (u->cpu_reqs++ == 0) {
				u->cpu_event = spec->reqs[r].event;
			}
		}
	}
}

bool
pmumask_refuse_threads(cpc_t *cpc, const setgrp_t *g)
{
	struct pmumask_use u;
	char pmu[256];

	pmumask_scan(cpc, g, &u);
	if (u.socket_reqs == 0)
		return false;
	(void)pmumask_pmu(u.socket_event, pmu, sizeof(pmu));
	diag(NULL,
	    "%s: PMU '%s' counts a whole socket, on the CPU its cpumask "
	    "names, never a thread; count it with cpustat\n",
	    u.socket_event, pmu);
	return true;
}

bool
pmumask_refuse_mixed(
    const struct pmumask_use *u, bool per_socket, const cpu_set_t *measured)
{
	char pmu[256];
	int cpu;

	if (u->socket_reqs == 0 || u->cpu_reqs == 0)
		return false;
	(void)pmumask_pmu(u->socket_event, pmu, sizeof(pmu));
	if (!per_socket) {
		diag(NULL,
		    "%s: PMU '%s' counts once per socket, on the CPUs its "
		    "cpumask names, and %s on every CPU: count them together "
		    "with --per-socket, or with two cpustats\n",
		    u->socket_event, pmu, u->cpu_event);
		return true;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &u->cpus) && !CPU_ISSET(cpu, measured)) {
			diag(NULL,
			    "%s: PMU '%s' counts its socket on CPU %d, which "
			    "is not measured (-C, or this process's affinity "
			    "mask): add it\n",
			    u->socket_event, pmu, cpu);
			return true;
		}
	return false;
}
