/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpustat --per-core, --per-die, --per-socket, --per-node: the CPUs'
 * rows summed per unit, one row per unit per interval, as perf stat's.
 *
 * Each CPU's thread hands its row to its unit instead of the output; the
 * last of the unit's CPUs to hand in its row of the interval writes the
 * unit's row (out_lock held throughout). The CPUs keep one schedule, so
 * their rows of an interval come together; a CPU whose row comes again
 * before the others' (it caught up after a stall, its row a gap row), or
 * with another set, first has the unit's row written with what came,
 * which then says which CPUs it leaves out, as a total does. A CPU that
 * stops sampling (it went offline, it could not be bound, the run was
 * stopped) is no longer waited for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpustat.h"
#include "diag.h"
#include "topology.h"

struct cpu_unit {
	struct cpu_place place;
	char name[32];
	int size;	  /* its CPUs measured */
	int live;	  /* of those, the ones still sampling */
	int arrived;	  /* CPUs whose row is in the pending one */
	int arrived_gone; /* ...of which stopped sampling since */
	cpu_set_t arrived_cpus;
	/*
	 * Of those, the ones whose set counted there: a set of a socket
	 * PMU's events alone counts on its cpumask's CPUs, and on the others
	 * has nothing enabled.
	 */
	int timed;
	int setno;
	unsigned long intervals;
	hrtime_t when;
	uint64_t tick;
	uint64_t enabled_ns;
	uint64_t running_ns;
	uint64_t *values;
};

/* The largest number of values of a set: a row's values fit in it. */
static int
max_values(const struct cpustat *cs)
{
	int s, n, most = 0;

	for (s = 0; s < setgrp_nsets(cs->specs); s++)
		if ((n = spec_nvalues(setgrp_spec(cs->specs, s))) > most)
			most = n;
	return most;
}

/* The unit of place u, made if it is new; NULL without memory. */
static struct cpu_unit *
unit_of(struct cpustat *cs, const struct cpu_place *u)
{
	struct cpu_unit *unit;
	int i;

	for (i = 0; i < cs->nunits; i++)
		if (topology_same(&cs->units[i].place, u))
			return &cs->units[i];
	unit = &cs->units[cs->nunits];
	unit->values = calloc((size_t)max_values(cs) + 1, sizeof(uint64_t));
	if (unit->values == NULL)
		return NULL;
	cs->nunits++;
	unit->place = *u;
	topology_name(u, unit->name, sizeof(unit->name));
	return unit;
}

static void
no_cache(int cpu, int level)
{
	if (level == 0)
		diag(NULL,
		    "cpu%d: sysfs gives no cache (no "
		    "/sys/devices/system/cpu/cpu%d/cache); count it without "
		    "--per-cache\n",
		    cpu, cpu);
	else
		diag(NULL,
		    "--per-cache=L%d: cpu%d has no level %d cache in sysfs "
		    "(/sys/devices/system/cpu/cpu%d/cache)\n",
		    level, cpu, level, cpu);
}

/* --per-cache: whether each CPU to be measured has the cache; else said. */
int
cpustat_units_check(const struct cpustat *cs, const cpu_set_t *cpus)
{
	struct cpu_place p;
	int cpu;

	for (cpu = 0; cs->opt.per_unit == TOPO_CACHE && cpu < CPU_SETSIZE;
	     cpu++)
		if (CPU_ISSET(cpu, cpus) &&
		    topology_cache("/sys", cpu, cs->opt.cache_level, &p) != 0) {
			no_cache(cpu, cs->opt.cache_level);
			return -1;
		}
	return 0;
}

int
cpustat_units_build(struct cpustat *cs)
{
	struct cpu_place p, u;
	struct cpu_worker *w;
	int i;

	cs->units = calloc((size_t)cs->nworkers, sizeof(*cs->units));
	if (cs->units == NULL) {
		diag(NULL, "no memory available\n");
		return -1;
	}
	for (i = 0; i < cs->nworkers; i++) {
		w = &cs->workers[i];
		if (topology_place("/sys", w->cpu, &p) != 0) {
			diag(NULL,
			    "cpu%d: sysfs gives no topology (no "
			    "/sys/devices/system/cpu/cpu%d/topology); "
			    "count it without --per-*\n",
			    w->cpu, w->cpu);
			return -1;
		}
		if (cs->opt.per_unit == TOPO_CACHE &&
		    topology_cache("/sys", w->cpu, cs->opt.cache_level, &p) !=
			0) {
			no_cache(w->cpu, cs->opt.cache_level);
			return -1;
		}
		u = topology_unit(&p, (enum topo_unit)cs->opt.out.per_unit);
		if ((w->unit = unit_of(cs, &u)) == NULL) {
			diag(NULL, "no memory available\n");
			return -1;
		}
		w->unit->size++;
		w->unit->live++;
	}
	return 0;
}

void
cpustat_units_free(struct cpustat *cs)
{
	int i;

	for (i = 0; cs->units != NULL && i < cs->nunits; i++)
		free(cs->units[i].values);
	free(cs->units);
	cs->units = NULL;
}

/* Write the unit's pending row, and start the next one empty. */
static void
unit_flush(struct cpustat *cs, struct cpu_unit *u)
{
	struct out_row row = {
		.label = u->intervals > 1 ? "gap" : "tick",
		.pid = -1,
		.lwp = -1,
		.tid = -1,
		.cpu = -1,
		.ncpus = u->arrived,
		.cpus = &u->arrived_cpus,
		.unit = u->name,
		.setno = u->setno,
		.intervals = u->intervals,
		.when = u->when,
		.values = u->values,
		.tick = u->tick,
		.enabled_ns = u->enabled_ns,
		.running_ns = u->running_ns,
		/* Each CPU's enabled time is wall time: their mean. */
		.elapsed_ns =
		    u->timed > 0 ? u->enabled_ns / (uint64_t)u->timed : 0,
	};
	char partial[64];
	bool stopped;
	int i;

	pthread_mutex_lock(&cs->stop_lock);
	stopped = cs->stop;
	pthread_mutex_unlock(&cs->stop_lock);
	/*
	 * A run stopped (a signal) between its CPUs' samples of an interval
	 * leaves a row that holds those that sampled it: its ncpus says how
	 * many, and the run's end is no failure of the others.
	 */
	if (u->arrived < u->size && !stopped) {
		snprintf(partial, sizeof(partial), "%d of %d CPUs not counted",
		    u->size - u->arrived, u->size);
		row.partial = partial;
	}
	output_timestamp(cs->out);
	output_row(cs->out, &row);
	cpustat_flush(cs);
	memset(u->values, 0, (size_t)max_values(cs) * sizeof(uint64_t));
	u->arrived = u->arrived_gone = u->timed = 0;
	CPU_ZERO(&u->arrived_cpus);
	u->intervals = 0;
	u->when = 0;
	u->tick = u->enabled_ns = u->running_ns = 0;
	for (i = 0; i < cs->nworkers; i++)
		if (cs->workers[i].unit == u)
			cs->workers[i].unit_arrived = false;
}

/* Whether every CPU of the unit still sampling has handed in its row. */
static bool
unit_complete(const struct cpu_unit *u)
{
	return u->arrived > 0 && u->arrived - u->arrived_gone >= u->live;
}

void
cpustat_unit_add(struct cpu_worker *w, int s, unsigned long n)
{
	const struct set_counts *c = setgrp_slice(w->grp, s);
	struct cpu_unit *u = w->unit;
	int i, nvalues = spec_nvalues(setgrp_spec(w->cs->specs, s));

	if (u->arrived > 0 && (w->unit_arrived || u->setno != s))
		unit_flush(w->cs, u);
	u->setno = s;
	for (i = 0; i < nvalues; i++)
		u->values[i] += c->values[i];
	u->tick += c->tick;
	u->enabled_ns += c->times.enabled_ns;
	u->running_ns += c->times.running_ns;
	if (c->when > u->when)
		u->when = c->when;
	if (n > u->intervals)
		u->intervals = n;
	u->arrived++;
	u->timed += c->times.enabled_ns > 0;
	CPU_SET(w->cpu, &u->arrived_cpus);
	w->unit_arrived = true;
	if (unit_complete(u))
		unit_flush(w->cs, u);
}

void
cpustat_unit_leave(struct cpu_worker *w)
{
	struct cpu_unit *u = w->unit;

	u->live--;
	if (w->unit_arrived)
		u->arrived_gone++;
	if (unit_complete(u))
		unit_flush(w->cs, u);
}
