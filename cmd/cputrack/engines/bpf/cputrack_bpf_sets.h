/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's sets as the BPF engine counts them: the engines' shared sets
 * (engine_sets.h) as the sets bpfeng_open takes, and a set's share of a
 * thread's counts from the engine sampled with each group's own times.
 */
#ifndef CPUTRACK_BPF_SETS_H
#define CPUTRACK_BPF_SETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfeng.h"
#include "setgrp.h"

struct bpf_sets;

/*
 * The sets of specs, as the engine takes them; quiet: libcpc says nothing
 * of a request it refuses (auto's first try). NULL, with why, for a
 * request the engine cannot count or no memory.
 */
struct bpf_sets *bpf_sets_new(
    cpc_t *cpc, const setgrp_t *specs, bool quiet, char *why, size_t whylen);
void bpf_sets_free(struct bpf_sets *bs);

/* The engine's sets, one per spec, held by bs. */
const struct bpfeng_set *bpf_sets_engine(const struct bpf_sets *bs);

/* The values of the largest set, and those of a start: all 0. */
int bpf_sets_most(const struct bpf_sets *bs);
const uint64_t *bpf_sets_zeros(const struct bpf_sets *bs);

/*
 * Set s's counts from the engine, as of when, into grp (an accumulator):
 * its values, each scaled by its own group's times where the set has
 * several (setgrp_sample_groups).
 */
void bpf_sets_sample(struct bpf_sets *bs, setgrp_t *grp, int s,
    const struct bpfeng_set_counts *sc, hrtime_t when);

#endif /* CPUTRACK_BPF_SETS_H */
