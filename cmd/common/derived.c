/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The derived metrics (see derived.h): a group's formulas, matched to a
 * set's counters by name. The events are canonical names, as rows name
 * their counters (cs is context-switches, cycles is cpu-cycles).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derived.h"

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

/* The first input of e that is an event, or -1 (a formula of constants). */
static int
first_event(const struct mexpr *e)
{
	int i;

	for (i = 0; i < e->nnames; i++)
		if (e->names[i][0] != '#')
			return i;
	return -1;
}

/* Each input of u found in spec with modes; false if one is not. */
static bool
bind_inputs(const struct spec *spec, struct derived_use *u, const char *modes)
{
	const char *name;
	int i;

	for (i = 0; i < u->expr.nnames; i++) {
		name = u->expr.names[i];
		if (strcmp(name, "#elapsed") == 0)
			u->input[i] = DERIVED_ELAPSED;
		else if (strcmp(name, "#slots") == 0)
			u->input[i] = DERIVED_SLOTS;
		else if ((u->input[i] = find(spec, name, modes)) < 0)
			return false;
	}
	return true;
}

static int
add_use(struct derived_set *ds, const struct derived_use *u)
{
	struct derived_use *grown;

	grown = reallocarray(ds->uses, (size_t)ds->nuses + 1, sizeof(*grown));
	if (grown == NULL)
		return -1;
	ds->uses = grown;
	grown[ds->nuses++] = *u;
	return 0;
}

/* Each counter of def's first event with the other inputs it needs. */
static int
plan_def(const struct spec *spec, const struct mgroup_metric *def,
    const struct mexpr *e, struct derived_set *ds)
{
	struct derived_use u;
	const char *modes;
	int r, first = first_event(e);

	for (r = 0; first >= 0 && r < spec->nreqs; r++) {
		if ((modes = modes_of(spec->reqs[r].name, e->names[first])) ==
		    NULL)
			continue;
		memset(&u, 0, sizeof(u));
		u.def = def;
		u.expr = *e;
		snprintf(u.key, sizeof(u.key), "%s%s", def->key, modes);
		if (has_key(ds, u.key) || !bind_inputs(spec, &u, modes))
			continue;
		if (*modes != '\0')
			snprintf(u.label, sizeof(u.label), "%s (%s)", def->name,
			    modes + 1);
		else
			snprintf(u.label, sizeof(u.label), "%s", def->name);
		if (add_use(ds, &u) != 0)
			return -1;
	}
	return 0;
}

static int
plan_group(
    const struct spec *spec, const struct mgroup *g, struct derived_set *ds)
{
	struct mexpr e;
	char err[256];
	int m;

	for (m = 0; m < g->nmetrics; m++) {
		if (mexpr_compile(
			g->metrics[m].formula, &e, err, sizeof(err)) != 0) {
			fprintf(stderr, "metric %s of %s: %s",
			    g->metrics[m].key, g->name, err);
			return -1;
		}
		if (plan_def(spec, &g->metrics[m], &e, ds) != 0)
			return -1;
	}
	return 0;
}

int
derived_plan(const struct spec *spec, const struct mgroup *const *groups,
    int ngroups, struct derived_set *ds)
{
	const struct mgroup *dflt = mgroup_default();
	int i;

	ds->uses = NULL;
	ds->nuses = 0;
	ds->slots = 0;
	for (i = 0; i < (ngroups > 0 ? ngroups : 1); i++)
		if (plan_group(spec, ngroups > 0 ? groups[i] : dflt, ds) != 0) {
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
derived_value(const struct derived_set *ds, const struct derived_use *u,
    const uint64_t *values, uint64_t elapsed_ns, double *value)
{
	double in[MEXPR_MAX_NAMES];
	int i;

	for (i = 0; i < u->expr.nnames; i++)
		if (u->input[i] >= 0)
			in[i] = (double)values[u->input[i]];
		else if (u->input[i] == DERIVED_ELAPSED)
			in[i] = elapsed_ns > 0 ? (double)elapsed_ns : NAN;
		else
			in[i] = ds->slots > 0 ? ds->slots : NAN;
	return mexpr_eval(&u->expr, in, value);
}
