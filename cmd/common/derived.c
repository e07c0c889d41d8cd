/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The derived metrics (see derived.h): perf stat's standard ones, by the
 * names perf prints them with. The events are canonical names, as rows
 * name their counters (cs is context-switches, cycles is cpu-cycles).
 * The clocks count ns: cycles per ns of task-clock are GHz, and events
 * per ns of it times 1e6 are thousands a second (perf's K/sec).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derived.h"

const struct derived_def derived_table[] = {
	{ "insn per cycle", "ipc", "instructions", "cpu-cycles", 1, "" },
	{ "cycles per insn", "cpi", "cpu-cycles", "instructions", 1, "" },
	{ "of all branches", "branch_miss_pct", "branch-misses",
	    "branch-instructions", 100, "%" },
	{ "of all cache refs", "cache_miss_pct", "cache-misses",
	    "cache-references", 100, "%" },
	{ "of all L1-dcache accesses", "l1d_miss_pct", "L1-dcache-load-misses",
	    "L1-dcache-loads", 100, "%" },
	{ "CPUs utilized", "cpus_utilized", "task-clock", NULL, 1, "" },
	{ "GHz", "ghz", "cpu-cycles", "task-clock", 1, "" },
	{ "page-faults", "page_faults_k_per_sec", "page-faults", "task-clock",
	    1e6, "K/sec" },
	{ "minor-faults", "minor_faults_k_per_sec", "minor-faults",
	    "task-clock", 1e6, "K/sec" },
	{ "major-faults", "major_faults_k_per_sec", "major-faults",
	    "task-clock", 1e6, "K/sec" },
	{ "context-switches", "context_switches_k_per_sec", "context-switches",
	    "task-clock", 1e6, "K/sec" },
	{ "cpu-migrations", "cpu_migrations_k_per_sec", "cpu-migrations",
	    "task-clock", 1e6, "K/sec" },
	/*
	 * Per CPU, cpu-clock stands for task-clock, as in perf stat -a; a set
	 * with both takes task-clock's.
	 */
	{ "CPUs utilized", "cpus_utilized", "cpu-clock", NULL, 1, "" },
	{ "page-faults", "page_faults_k_per_sec", "page-faults", "cpu-clock",
	    1e6, "K/sec" },
	{ "context-switches", "context_switches_k_per_sec", "context-switches",
	    "cpu-clock", 1e6, "K/sec" },
	{ "cpu-migrations", "cpu_migrations_k_per_sec", "cpu-migrations",
	    "cpu-clock", 1e6, "K/sec" },
};

const int derived_ndefs = sizeof(derived_table) / sizeof(derived_table[0]);

/*
 * The modes that follow event in a counter's name ("" for none, ":u",
 * ":u#pic1"), or NULL when the name is of another event.
 */
static const char *
modes_of(const char *name, const char *event)
{
	size_t n = strlen(event);

	if (strncmp(name, event, n) != 0)
		return NULL;
	if (name[n] != '\0' && name[n] != ':' && name[n] != '#')
		return NULL;
	return name + n;
}

/* The request named event with exactly these modes, or -1. */
static int
find(const struct spec *spec, const char *event, const char *modes)
{
	const char *m;
	int r;

	for (r = 0; r < spec->nreqs; r++)
		if ((m = modes_of(spec->reqs[r].name, event)) != NULL &&
		    strcmp(m, modes) == 0)
			return r;
	return -1;
}

static int
add_use(struct derived_set *ds, const struct derived_def *def, int num, int den,
    const char *modes)
{
	struct derived_use *grown, *u;
	char key[sizeof(u->key)];
	int i;

	snprintf(key, sizeof(key), "%s%s", def->key, modes);
	for (i = 0; i < ds->nuses; i++)
		if (strcmp(ds->uses[i].key, key) == 0)
			return 0;
	grown = reallocarray(ds->uses, (size_t)ds->nuses + 1, sizeof(*grown));
	if (grown == NULL)
		return -1;
	ds->uses = grown;
	u = &grown[ds->nuses++];
	u->def = def;
	u->num = num;
	u->den = den;
	memcpy(u->key, key, sizeof(u->key));
	if (*modes != '\0')
		snprintf(u->label, sizeof(u->label), "%s (%s)", def->name,
		    modes + 1);
	else
		snprintf(u->label, sizeof(u->label), "%s", def->name);
	return 0;
}

/* Each counter of def's numerator with the denominator it needs. */
static int
plan_def(const struct spec *spec, const struct derived_def *def,
    struct derived_set *ds)
{
	const char *modes;
	int r, den;

	for (r = 0; r < spec->nreqs; r++) {
		if ((modes = modes_of(spec->reqs[r].name, def->num)) == NULL)
			continue;
		den = -1;
		if (def->den != NULL && (den = find(spec, def->den, modes)) < 0)
			continue;
		if (add_use(ds, def, r, den, modes) != 0)
			return -1;
	}
	return 0;
}

int
derived_plan(const struct spec *spec, struct derived_set *ds)
{
	int d;

	ds->uses = NULL;
	ds->nuses = 0;
	for (d = 0; d < derived_ndefs; d++)
		if (plan_def(spec, &derived_table[d], ds) != 0) {
			derived_free(ds);
			return -1;
		}
	return 0;
}

void
derived_free(struct derived_set *ds)
{
	free(ds->uses);
	ds->uses = NULL;
	ds->nuses = 0;
}

bool
derived_value(const struct derived_use *u, const uint64_t *values,
    uint64_t elapsed_ns, double *value)
{
	uint64_t den = u->den >= 0 ? values[u->den] : elapsed_ns;

	if (den == 0)
		return false;
	*value = (double)values[u->num] / (double)den * u->def->scale;
	return true;
}
