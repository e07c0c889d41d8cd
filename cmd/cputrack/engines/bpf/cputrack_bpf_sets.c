/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's sets as the BPF engine counts them (cputrack_bpf_sets.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cputrack_bpf_sets.h"
#include "engine_sets.h"

struct bpf_sets {
	struct engine_sets *sets;
	struct bpfeng_set *engine; /* per set, as sets describes it */
	struct set_times *times;   /* a set's groups', from its counts */
	int nsets;
};

struct bpf_sets *
bpf_sets_new(
    cpc_t *cpc, const setgrp_t *specs, bool quiet, char *why, size_t whylen)
{
	struct bpf_sets *bs = calloc(1, sizeof(*bs));
	const struct engine_counters *c;
	int s;

	if (bs == NULL ||
	    (bs->sets = engine_sets_new(cpc, specs, quiet, why, whylen)) ==
		NULL) {
		free(bs);
		return NULL;
	}
	bs->nsets = setgrp_nsets(specs);
	bs->engine = calloc((size_t)bs->nsets, sizeof(*bs->engine));
	bs->times =
	    calloc((size_t)engine_sets_most(bs->sets), sizeof(*bs->times));
	if (bs->engine == NULL || bs->times == NULL) {
		snprintf(why, whylen, "no memory available");
		bpf_sets_free(bs);
		return NULL;
	}
	c = engine_sets_counters(bs->sets);
	for (s = 0; s < bs->nsets; s++)
		bs->engine[s] = (struct bpfeng_set) { c[s].attrs, c[s].names,
			c[s].nattrs, c[s].cores, c[s].groups };
	return bs;
}

void
bpf_sets_free(struct bpf_sets *bs)
{
	if (bs == NULL)
		return;
	engine_sets_free(bs->sets);
	free(bs->engine);
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
	return engine_sets_most(bs->sets);
}

const uint64_t *
bpf_sets_zeros(const struct bpf_sets *bs)
{
	return engine_sets_zeros(bs->sets);
}

void
bpf_sets_sample(struct bpf_sets *bs, setgrp_t *grp, int s,
    const struct bpfeng_set_counts *sc, hrtime_t when)
{
	int g, n = engine_sets_groups(bs->sets, s);
	uint64_t running, stopped;

	for (g = 0; g < n; g++) {
		bpfeng_group_times(
		    sc, bs->engine[s].nattrs, g, &running, &stopped);
		bs->times[g] =
		    (struct set_times) { running + stopped, running };
	}
	engine_sets_sample(bs->sets, grp, s, sc->values, bs->times, when);
}
