/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's sets as the engines that open perf counters themselves take
 * them (engine_sets.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "engine_sets.h"
#include "spec.h"

/*
 * A set's counters as the engine counts them: one per request, or on a
 * hybrid CPU one per core PMU of each request counted on them (their
 * parts), each with its request and core PMU (-1: of every CPU).
 */
struct counter_map {
	int n;
	int *req;
	int *core;
	bool parted; /* not one counter per request, in order */
};

struct engine_sets {
	cpc_t *cpc;
	const setgrp_t *specs;
	int nsets;
	struct engine_counters *engine; /* per set */
	struct counter_map *maps;	/* per set */
	int most;
	uint64_t *zeros;
	uint64_t *values;	 /* a set's, from its counters */
	struct set_times *times; /* a set's groups', from its counters */
};

static void
quiet_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn;
	(void)subcode;
	(void)fmt;
	(void)ap;
}

/* Why a request cannot be counted by the engine, said as one line. */
static void
request_refused(const char *event, int err, char *why, size_t whylen)
{
	if (err == ENOTSUP)
		snprintf(why, whylen,
		    "'%s' is counted only by "
		    "the ptrace engine (a derived event, a sum of several, or "
		    "an overflow request)",
		    event);
	else
		snprintf(why, whylen, "'%s': %s", event, strerror(err));
}

/*
 * Request i's counters: its event, or on a hybrid CPU its event on each
 * core PMU that has it. Appended to set s's engine set and map; errno on
 * failure.
 */
static int
request_counters(struct engine_sets *es, cpc_set_t *set, int s, int i)
{
	const struct spec *spec = setgrp_spec(es->specs, s);
	struct engine_counters *out = &es->engine[s];
	struct perf_event_attr *attrs = (struct perf_event_attr *)out->attrs;
	const char **names = (const char **)out->names;
	int *cores = (int *)out->cores, *groups = (int *)out->groups, k,
	    n = out->nattrs;
	struct counter_map *m = &es->maps[s];

	for (k = 0; spec->reqs[i].parted && k < spec->nparts; k++) {
		if (cpc_set_request_attr_core(es->cpc, set, i, k, &attrs[n]) !=
		    0) {
			if (errno == ENOENT)
				continue; /* said: the spec's note */
			return -1;
		}
		cores[n++] = k;
	}
	if (!spec->reqs[i].parted) {
		if (cpc_set_request_attr(es->cpc, set, i, &attrs[n]) != 0)
			return -1;
		cores[n++] = -1;
	}
	for (k = out->nattrs; k < n; k++) {
		names[k] = spec->reqs[i].event;
		if (groups != NULL)
			groups[k] = spec_group_index(spec, i);
		m->req[k] = i;
		m->core[k] = cores[k];
	}
	m->parted |=
	    n - out->nattrs != 1 || out->nattrs != i || cores[out->nattrs] >= 0;
	out->nattrs = m->n = n;
	return 0;
}

/*
 * Set s as the engine takes it: libcpc gives each counter's attributes,
 * and the set's groups ({...}) which counter is in which, each opened as
 * a perf group of its own (spec_group_index numbers them).
 */
static int
engine_set(struct engine_sets *es, int s, char *why, size_t whylen)
{
	const struct spec *spec = setgrp_spec(es->specs, s);
	size_t most = (size_t)spec->nreqs * (size_t)(1 + spec->nparts);
	struct engine_counters *out = &es->engine[s];
	struct counter_map *m = &es->maps[s];
	cpc_set_t *set = NULL;
	/* Joint sets count every event all the time, in one group. */
	bool apart = spec->ngroups > 1 && !setgrp_joint(es->specs);
	int i, err = 0;

	*out = (struct engine_counters) { calloc(most, sizeof(*out->attrs)),
		calloc(most, sizeof(*out->names)), 0,
		calloc(most, sizeof(*out->cores)),
		apart ? calloc(most, sizeof(*out->groups)) : NULL };
	m->req = calloc(most, sizeof(int));
	m->core = calloc(most, sizeof(int));
	if (out->attrs == NULL || out->names == NULL || out->cores == NULL ||
	    (apart && out->groups == NULL) || m->req == NULL ||
	    m->core == NULL || (set = spec_build_set(es->cpc, spec)) == NULL) {
		snprintf(why, whylen, "no memory available");
		return -1;
	}
	for (i = 0; i < spec->nreqs && err == 0; i++)
		if (request_counters(es, set, s, i) != 0) {
			err = errno;
			request_refused(spec->reqs[i].event, err, why, whylen);
		}
	(void)cpc_set_destroy(es->cpc, set);
	return err == 0 ? 0 : -1;
}

static int
most_values(const setgrp_t *specs)
{
	int s, most = 1;

	for (s = 0; s < setgrp_nsets(specs); s++)
		if (spec_nvalues(setgrp_spec(specs, s)) > most)
			most = spec_nvalues(setgrp_spec(specs, s));
	return most;
}

struct engine_sets *
engine_sets_new(
    cpc_t *cpc, const setgrp_t *specs, bool quiet, char *why, size_t whylen)
{
	struct engine_sets *es = calloc(1, sizeof(*es));
	int s, n = setgrp_nsets(specs);

	if (es == NULL) {
		snprintf(why, whylen, "no memory available");
		return NULL;
	}
	*es = (struct engine_sets) { cpc, specs, n,
		calloc((size_t)n, sizeof(*es->engine)),
		calloc((size_t)n, sizeof(*es->maps)), most_values(specs), NULL,
		NULL, NULL };
	es->zeros = calloc((size_t)es->most, sizeof(uint64_t));
	es->values = calloc((size_t)es->most, sizeof(uint64_t));
	es->times = calloc((size_t)es->most, sizeof(*es->times));
	if (es->engine == NULL || es->maps == NULL || es->zeros == NULL ||
	    es->values == NULL || es->times == NULL) {
		snprintf(why, whylen, "no memory available");
		engine_sets_free(es);
		return NULL;
	}
	if (quiet)
		(void)cpc_seterrhndlr(cpc, quiet_errhndlr);
	for (s = 0; s < n; s++)
		if (engine_set(es, s, why, whylen) != 0)
			break;
	(void)cpc_seterrhndlr(cpc, diag_errhndlr);
	if (s < n) {
		engine_sets_free(es);
		return NULL;
	}
	return es;
}

void
engine_sets_free(struct engine_sets *es)
{
	int s;

	if (es == NULL)
		return;
	for (s = 0; s < es->nsets; s++) {
		if (es->engine != NULL) {
			free((void *)es->engine[s].attrs);
			free((void *)es->engine[s].names);
			free((void *)es->engine[s].cores);
			free((void *)es->engine[s].groups);
		}
		if (es->maps != NULL) {
			free(es->maps[s].req);
			free(es->maps[s].core);
		}
	}
	free(es->engine);
	free(es->maps);
	free(es->zeros);
	free(es->values);
	free(es->times);
	free(es);
}

const struct engine_counters *
engine_sets_counters(const struct engine_sets *es)
{
	return es->engine;
}

int
engine_sets_most(const struct engine_sets *es)
{
	return es->most;
}

const uint64_t *
engine_sets_zeros(const struct engine_sets *es)
{
	return es->zeros;
}

int
engine_sets_groups(const struct engine_sets *es, int s)
{
	return es->engine[s].groups != NULL ?
	    setgrp_spec(es->specs, s)->ngroups :
	    1;
}

const uint64_t *
engine_sets_values(struct engine_sets *es, int s, const uint64_t *counts)
{
	const struct counter_map *m = &es->maps[s];
	const struct spec *spec = setgrp_spec(es->specs, s);
	int c, r;

	if (!m->parted)
		return counts;
	memset(es->values, 0, (size_t)spec_nvalues(spec) * sizeof(uint64_t));
	for (c = 0; c < m->n; c++) {
		r = m->req[c];
		es->values[r] += counts[c];
		if (m->core[c] >= 0 && spec->nparts > 0)
			es->values[spec->nreqs + r * spec->nparts +
			    m->core[c]] = counts[c];
	}
	return es->values;
}

void
engine_sets_sample_values(struct engine_sets *es, setgrp_t *grp, int s,
    const uint64_t *values, const struct set_times *times, hrtime_t when)
{
	const struct spec *spec = setgrp_spec(es->specs, s);
	/* A set opened as one group (joint) lends each group its times. */
	int g, opened = engine_sets_groups(es, s);

	for (g = 0; g < spec->ngroups; g++)
		es->times[g] = times[g < opened ? g : 0];
	setgrp_sample_groups(grp, s, values, es->times, when);
}

void
engine_sets_sample(struct engine_sets *es, setgrp_t *grp, int s,
    const uint64_t *counts, const struct set_times *times, hrtime_t when)
{
	engine_sets_sample_values(
	    es, grp, s, engine_sets_values(es, s, counts), times, when);
}
