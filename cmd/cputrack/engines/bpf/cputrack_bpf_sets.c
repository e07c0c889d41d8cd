/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's sets as the BPF engine counts them (cputrack_bpf_sets.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cputrack_bpf_sets.h"
#include "diag.h"
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

struct bpf_sets {
	cpc_t *cpc;
	const setgrp_t *specs;
	int nsets;
	struct bpfeng_set *engine; /* per set */
	struct counter_map *maps;  /* per set */
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
request_counters(struct bpf_sets *bs, cpc_set_t *set, int s, int i)
{
	const struct spec *spec = setgrp_spec(bs->specs, s);
	struct bpfeng_set *out = &bs->engine[s];
	struct perf_event_attr *attrs = (struct perf_event_attr *)out->attrs;
	const char **names = (const char **)out->names;
	int *cores = (int *)out->cores, *groups = (int *)out->groups, k,
	    n = out->nattrs;
	struct counter_map *m = &bs->maps[s];

	for (k = 0; spec->reqs[i].parted && k < spec->nparts; k++) {
		if (cpc_set_request_attr_core(bs->cpc, set, i, k, &attrs[n]) !=
		    0) {
			if (errno == ENOENT)
				continue; /* said: the spec's note */
			return -1;
		}
		cores[n++] = k;
	}
	if (!spec->reqs[i].parted) {
		if (cpc_set_request_attr(bs->cpc, set, i, &attrs[n]) != 0)
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
engine_set(struct bpf_sets *bs, int s, char *why, size_t whylen)
{
	const struct spec *spec = setgrp_spec(bs->specs, s);
	size_t most = (size_t)spec->nreqs * (size_t)(1 + spec->nparts);
	struct bpfeng_set *out = &bs->engine[s];
	struct counter_map *m = &bs->maps[s];
	cpc_set_t *set = NULL;
	/* Joint sets count every event all the time, in one group. */
	bool apart = spec->ngroups > 1 && !setgrp_joint(bs->specs);
	int i, err = 0;

	*out = (struct bpfeng_set) { calloc(most, sizeof(*out->attrs)),
		calloc(most, sizeof(*out->names)), 0,
		calloc(most, sizeof(*out->cores)),
		apart ? calloc(most, sizeof(*out->groups)) : NULL };
	m->req = calloc(most, sizeof(int));
	m->core = calloc(most, sizeof(int));
	if (out->attrs == NULL || out->names == NULL || out->cores == NULL ||
	    (apart && out->groups == NULL) || m->req == NULL ||
	    m->core == NULL || (set = spec_build_set(bs->cpc, spec)) == NULL) {
		snprintf(why, whylen, "no memory available");
		return -1;
	}
	for (i = 0; i < spec->nreqs && err == 0; i++)
		if (request_counters(bs, set, s, i) != 0) {
			err = errno;
			request_refused(spec->reqs[i].event, err, why, whylen);
		}
	(void)cpc_set_destroy(bs->cpc, set);
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

struct bpf_sets *
bpf_sets_new(
    cpc_t *cpc, const setgrp_t *specs, bool quiet, char *why, size_t whylen)
{
	struct bpf_sets *bs = calloc(1, sizeof(*bs));
	int s, n = setgrp_nsets(specs);

	if (bs == NULL) {
		snprintf(why, whylen, "no memory available");
		return NULL;
	}
	*bs = (struct bpf_sets) { cpc, specs, n,
		calloc((size_t)n, sizeof(*bs->engine)),
		calloc((size_t)n, sizeof(*bs->maps)), most_values(specs), NULL,
		NULL, NULL };
	bs->zeros = calloc((size_t)bs->most, sizeof(uint64_t));
	bs->values = calloc((size_t)bs->most, sizeof(uint64_t));
	bs->times = calloc((size_t)bs->most, sizeof(*bs->times));
	if (bs->engine == NULL || bs->maps == NULL || bs->zeros == NULL ||
	    bs->values == NULL || bs->times == NULL) {
		snprintf(why, whylen, "no memory available");
		bpf_sets_free(bs);
		return NULL;
	}
	if (quiet)
		(void)cpc_seterrhndlr(cpc, quiet_errhndlr);
	for (s = 0; s < n; s++)
		if (engine_set(bs, s, why, whylen) != 0)
			break;
	(void)cpc_seterrhndlr(cpc, diag_errhndlr);
	if (s < n) {
		bpf_sets_free(bs);
		return NULL;
	}
	return bs;
}

void
bpf_sets_free(struct bpf_sets *bs)
{
	int s;

	if (bs == NULL)
		return;
	for (s = 0; s < bs->nsets; s++) {
		if (bs->engine != NULL) {
			free((void *)bs->engine[s].attrs);
			free((void *)bs->engine[s].names);
			free((void *)bs->engine[s].cores);
			free((void *)bs->engine[s].groups);
		}
		if (bs->maps != NULL) {
			free(bs->maps[s].req);
			free(bs->maps[s].core);
		}
	}
	free(bs->engine);
	free(bs->maps);
	free(bs->zeros);
	free(bs->values);
	free(bs->times);
	free(bs);
}

const struct bpfeng_set *
bpf_sets_engine(const struct bpf_sets *bs)
{
	return bs->engine;
}

int
bpf_sets_most(const struct bpf_sets *bs)
{
	return bs->most;
}

const uint64_t *
bpf_sets_zeros(const struct bpf_sets *bs)
{
	return bs->zeros;
}

const uint64_t *
bpf_sets_values(struct bpf_sets *bs, int s, const struct bpfeng_set_counts *sc)
{
	const struct counter_map *m = &bs->maps[s];
	const struct spec *spec = setgrp_spec(bs->specs, s);
	int c, r;

	if (!m->parted)
		return sc->values;
	memset(bs->values, 0, (size_t)spec_nvalues(spec) * sizeof(uint64_t));
	for (c = 0; c < m->n; c++) {
		r = m->req[c];
		bs->values[r] += sc->values[c];
		if (m->core[c] >= 0 && spec->nparts > 0)
			bs->values[spec->nreqs + r * spec->nparts +
			    m->core[c]] = sc->values[c];
	}
	return bs->values;
}

void
bpf_sets_sample(struct bpf_sets *bs, setgrp_t *grp, int s,
    const struct bpfeng_set_counts *sc, hrtime_t when)
{
	const struct spec *spec = setgrp_spec(bs->specs, s);
	const uint64_t *values = bpf_sets_values(bs, s, sc);
	/* A set the engine opened as one group (joint) lends it its times. */
	int g, opened = bs->engine[s].groups != NULL ? spec->ngroups : 1;
	uint64_t running, stopped;

	for (g = 0; g < spec->ngroups; g++) {
		bpfeng_group_times(sc, bs->engine[s].nattrs, g < opened ? g : 0,
		    &running, &stopped);
		bs->times[g] =
		    (struct set_times) { running + stopped, running };
	}
	setgrp_sample_groups(grp, s, values, bs->times, when);
}
