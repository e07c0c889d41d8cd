/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf stat's "shadow" metrics (see derived.h): each is given wherever a
 * set's own events hold all its inputs, with the same modes. The events
 * are canonical names, as rows name their counters (cs is
 * context-switches, cycles is cpu-cycles). Per CPU, cpu-clock stands for
 * task-clock, as in perf stat -a; a set with both takes task-clock's
 * (the first of a key wins). The clocks count ns.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derived.h"

#define SECONDS "(duration_time * 1e9)"

static const struct derived_def table[] = {
	{ "ipc", "insn per cycle", "instructions / cpu\\-cycles", "" },
	{ "cpi", "cycles per insn", "cpu\\-cycles / instructions", "" },
	{ "branch_miss_pct", "of all branches",
	    "branch\\-misses / branch\\-instructions * 100", "%" },
	{ "cache_miss_pct", "of all cache refs",
	    "cache\\-misses / cache\\-references * 100", "%" },
	{ "l1d_miss_pct", "of all L1-dcache accesses",
	    "L1\\-dcache\\-load\\-misses / L1\\-dcache\\-loads * 100", "%" },
	{ "cpus_utilized", "CPUs utilized", "task\\-clock / " SECONDS, "" },
	{ "ghz", "GHz", "cpu\\-cycles / task\\-clock", "" },
	{ "page_faults_k_per_sec", "page-faults",
	    "page\\-faults / task\\-clock * 1e6", "K/sec" },
	{ "minor_faults_k_per_sec", "minor-faults",
	    "minor\\-faults / task\\-clock * 1e6", "K/sec" },
	{ "major_faults_k_per_sec", "major-faults",
	    "major\\-faults / task\\-clock * 1e6", "K/sec" },
	{ "context_switches_k_per_sec", "context-switches",
	    "context\\-switches / task\\-clock * 1e6", "K/sec" },
	{ "cpu_migrations_k_per_sec", "cpu-migrations",
	    "cpu\\-migrations / task\\-clock * 1e6", "K/sec" },
	{ "cpus_utilized", "CPUs utilized", "cpu\\-clock / " SECONDS, "" },
	{ "page_faults_k_per_sec", "page-faults",
	    "page\\-faults / cpu\\-clock * 1e6", "K/sec" },
	{ "context_switches_k_per_sec", "context-switches",
	    "context\\-switches / cpu\\-clock * 1e6", "K/sec" },
	{ "cpu_migrations_k_per_sec", "cpu-migrations",
	    "cpu\\-migrations / cpu\\-clock * 1e6", "K/sec" },
};

#define NDEFS ((int)(sizeof(table) / sizeof(table[0])))

/* A formula's name without perf's escapes. */
static void
plain(const char *name, char *out, size_t len)
{
	size_t n = 0;

	for (; *name != '\0' && n + 1 < len; name++) {
		if (*name == '\\' && name[1] != '\0')
			name++;
		out[n++] = *name;
	}
	out[n] = '\0';
}

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

static bool
has_key(const struct derived_set *ds, const char *key)
{
	int i;

	for (i = 0; i < ds->nuses; i++)
		if (strcmp(ds->uses[i].key, key) == 0)
			return true;
	return false;
}

/* Each input of u found in spec with modes, bound; false if one is not. */
static bool
bind_inputs(const struct spec *spec, struct derived_use *u, const char *modes)
{
	char name[128];
	int i, n = formula_nnames(u->formula);

	if (n > DERIVED_MAX_INPUTS)
		return false;
	for (i = 0; i < n; i++) {
		plain(formula_name(u->formula, i), name, sizeof(name));
		if (strcmp(name, "duration_time") == 0)
			u->input[i] = DERIVED_ELAPSED;
		else if ((u->input[i] = find(spec, name, modes)) < 0)
			return false;
		formula_bind(u->formula, i, FORMULA_VALUE, FORMULA_SLOT, i);
	}
	u->ninputs = n;
	return true;
}

static int
add_use(struct derived_set *ds, struct derived_use *u)
{
	struct derived_use *grown;

	grown = reallocarray(ds->uses, (size_t)ds->nuses + 1, sizeof(*grown));
	if (grown == NULL)
		return -1;
	ds->uses = grown;
	grown[ds->nuses++] = *u;
	return 0;
}

/* The modes of the request its first event names, or NULL at the end. */
static const char *
next_modes(const struct spec *spec, const char *event, int *r)
{
	const char *m;

	for (; *r < spec->nreqs; (*r)++)
		if ((m = modes_of(spec->reqs[*r].name, event)) != NULL) {
			(*r)++;
			return m;
		}
	return NULL;
}

/* Each counter of def's first event, with the other inputs it needs. */
static int
plan_def(const struct spec *spec, const struct derived_def *def,
    struct derived_set *ds)
{
	struct derived_use u;
	const char *modes;
	char err[256], first[128];
	int r = 0;

	if ((u.formula = formula_parse(def->formula, err, sizeof(err))) ==
	    NULL) {
		fprintf(stderr, "metric %s: %s\n", def->key, err);
		return -1;
	}
	plain(formula_name(u.formula, 0), first, sizeof(first));
	formula_free(u.formula);
	while ((modes = next_modes(spec, first, &r)) != NULL) {
		memset(&u, 0, sizeof(u));
		u.def = def;
		snprintf(u.key, sizeof(u.key), "%s%s", def->key, modes);
		if (has_key(ds, u.key))
			continue;
		if ((u.formula = formula_parse(
			 def->formula, err, sizeof(err))) == NULL)
			return -1;
		if (!bind_inputs(spec, &u, modes)) {
			formula_free(u.formula);
			continue;
		}
		if (*modes != '\0')
			snprintf(u.label, sizeof(u.label), "%s (%s)", def->name,
			    modes + 1);
		else
			snprintf(u.label, sizeof(u.label), "%s", def->name);
		if (add_use(ds, &u) != 0) {
			formula_free(u.formula);
			return -1;
		}
	}
	return 0;
}

int
derived_plan(const struct spec *spec, struct derived_set *ds)
{
	int i;

	ds->uses = NULL;
	ds->nuses = 0;
	for (i = 0; i < NDEFS; i++)
		if (plan_def(spec, &table[i], ds) != 0) {
			derived_free(ds);
			return -1;
		}
	return 0;
}

void
derived_free(struct derived_set *ds)
{
	int i;

	for (i = 0; i < ds->nuses; i++)
		formula_free(ds->uses[i].formula);
	free(ds->uses);
	ds->uses = NULL;
	ds->nuses = 0;
}

bool
derived_value(const struct derived_set *ds, const struct derived_use *u,
    const uint64_t *values, uint64_t elapsed_ns, double *value)
{
	double in[DERIVED_MAX_INPUTS], v;
	struct formula_frame fr = { in, u->ninputs, NULL, NULL };
	int i;

	(void)ds;
	for (i = 0; i < u->ninputs; i++)
		if (u->input[i] >= 0)
			in[i] = (double)values[u->input[i]];
		else
			in[i] = elapsed_ns > 0 ? (double)elapsed_ns / 1e9 : NAN;
	v = formula_eval(u->formula, &fr);
	if (isnan(v) || isinf(v))
		return false;
	*value = v;
	return true;
}
