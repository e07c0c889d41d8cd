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
 *
 * The units' rows of an interval are written in the units' order (perf's:
 * by socket, die, core), whichever unit completes first: a unit's row
 * waits, ready, until those before it are written. A unit whose rows
 * pile up (another's CPU stalled) has them written without waiting, so
 * that no row is held for long.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpustat.h"
#include "diag.h"
#include "topology.h"

/* A unit's row, complete, waiting for the rows before it. */
struct ready_row {
	struct out_row row;
	cpu_set_t cpus;
	char partial[64];
	uint64_t values[]; /* max_values of them */
};

/* Rows a unit keeps waiting before they are written out of order. */
#define READY_MAX 4

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
	struct ready_row *ready[READY_MAX]; /* oldest first */
	int nready;
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

static int
place_order(const void *a, const void *b)
{
	const struct cpu_place *x = &((const struct cpu_unit *)a)->place;
	const struct cpu_place *y = &((const struct cpu_unit *)b)->place;
	const int xs[] = { x->socket, x->die, x->node, x->core, x->cache_level,
		x->cache };
	const int ys[] = { y->socket, y->die, y->node, y->core, y->cache_level,
		y->cache };
	size_t i;

	for (i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		if (xs[i] != ys[i])
			return xs[i] < ys[i] ? -1 : 1;
	return 0;
}

/* The units in perf's order, each worker pointing at its own again. */
static void
sort_units(struct cpustat *cs)
{
	struct cpu_place *of = calloc((size_t)cs->nworkers, sizeof(*of));
	int i, k;

	if (of == NULL)
		return; /* in the CPUs' order */
	for (i = 0; i < cs->nworkers; i++)
		of[i] = cs->workers[i].unit->place;
	qsort(cs->units, (size_t)cs->nunits, sizeof(*cs->units), place_order);
	for (i = 0; i < cs->nworkers; i++)
		for (k = 0; k < cs->nunits; k++)
			if (topology_same(&cs->units[k].place, &of[i]))
				cs->workers[i].unit = &cs->units[k];
	free(of);
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
	sort_units(cs);
	return 0;
}

void
cpustat_units_free(struct cpustat *cs)
{
	int i, k;

	for (i = 0; cs->units != NULL && i < cs->nunits; i++) {
		free(cs->units[i].values);
		for (k = 0; k < cs->units[i].nready; k++)
			free(cs->units[i].ready[k]);
	}
	free(cs->units);
	cs->units = NULL;
}

/* The unit's pending row, complete: made ready to write; NULL: no memory. */
static struct ready_row *
ready_row_of(struct cpustat *cs, const struct cpu_unit *u, bool stopped)
{
	size_t nvalues = (size_t)max_values(cs);
	struct ready_row *r =
	    calloc(1, sizeof(*r) + nvalues * sizeof(uint64_t));

	if (r == NULL)
		return NULL;
	memcpy(r->values, u->values, nvalues * sizeof(uint64_t));
	r->cpus = u->arrived_cpus;
	r->row = (struct out_row) {
		.label = u->intervals > 1 ? "gap" : "tick",
		.pid = -1,
		.lwp = -1,
		.tid = -1,
		.cpu = -1,
		.ncpus = u->arrived,
		.unit = u->name,
		.setno = u->setno,
		.intervals = u->intervals,
		.when = u->when,
		.tick = u->tick,
		.enabled_ns = u->enabled_ns,
		.running_ns = u->running_ns,
		/* Each CPU's enabled time is wall time: their mean. */
		.elapsed_ns =
		    u->timed > 0 ? u->enabled_ns / (uint64_t)u->timed : 0,
	};
	/*
	 * A run stopped (a signal) between its CPUs' samples of an interval
	 * leaves a row that holds those that sampled it: its ncpus says how
	 * many, and the run's end is no failure of the others.
	 */
	if (u->arrived < u->size && !stopped)
		snprintf(r->partial, sizeof(r->partial),
		    "%d of %d CPUs not counted", u->size - u->arrived, u->size);
	return r;
}

/* A ready row out, and let go. */
static void
write_ready(struct cpustat *cs, struct ready_row *r)
{
	r->row.values = r->values;
	r->row.cpus = &r->cpus;
	r->row.partial = r->partial[0] != '\0' ? r->partial : NULL;
	output_timestamp(cs->out);
	output_row(cs->out, &r->row);
	cpustat_flush(cs);
	free(r);
}

/* The unit's oldest ready row, written. */
static void
write_oldest(struct cpustat *cs, struct cpu_unit *u)
{
	struct ready_row *r = u->ready[0];

	memmove(u->ready, u->ready + 1,
	    (size_t)(u->nready - 1) * sizeof(*u->ready));
	u->nready--;
	write_ready(cs, r);
}

/*
 * The ready rows, in the units' order: from the unit whose row is due,
 * each in turn, up to one that is still counting and has none ready
 * (unless rows pile up: then past it). A unit whose CPUs all stopped has
 * no row to wait for.
 */
static void
write_in_order(struct cpustat *cs, bool piled)
{
	struct cpu_unit *u;
	int passed = 0;

	while (passed < cs->nunits) {
		u = &cs->units[cs->unit_due];
		if (u->nready > 0) {
			write_oldest(cs, u);
			passed = 0;
		} else if (u->live > 0 && !piled) {
			return;
		} else {
			passed++;
		}
		cs->unit_due = (cs->unit_due + 1) % cs->nunits;
	}
}

/* The unit's pending row is complete: written in turn; the next empty. */
static void
unit_flush(struct cpustat *cs, struct cpu_unit *u)
{
	struct ready_row *r;
	bool stopped;
	int i;

	pthread_mutex_lock(&cs->stop_lock);
	stopped = cs->stop;
	pthread_mutex_unlock(&cs->stop_lock);
	if ((r = ready_row_of(cs, u, stopped)) == NULL)
		diag(NULL, "no memory available\n");
	else
		u->ready[u->nready++] = r;
	write_in_order(cs, u->nready == READY_MAX);
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
	else if (u->live == 0)
		write_in_order(w->cs, false); /* none of its rows to wait for */
}
