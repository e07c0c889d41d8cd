/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's sets as the engines that open perf counters themselves (the
 * BPF and scan engines) take them: each set's requests as lists of
 * perf_event_attr (libcpc gives each counter's attributes; on a hybrid
 * CPU a request has a counter on each core PMU that has it), each
 * counter in its set's perf group ({...}), and a set's counts back from
 * those counters turned into the set's values and parts (spec.h), each
 * scaled by its own group's times.
 */
#ifndef ENGINE_SETS_H
#define ENGINE_SETS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "setgrp.h"

/*
 * A set's counters, in the order its counts come back: each one's
 * attributes, event name and core PMU (-1: of every CPU), and the perf
 * group it is opened in (numbered as spec_group_index numbers them; a
 * group's leader is its first counter). groups NULL: the set is one
 * perf group (a set of one group, or the sets bound as one joint set).
 */
struct engine_counters {
	const struct perf_event_attr *attrs;
	const char *const *names;
	int nattrs;
	const int *cores;
	const int *groups;
};

/* Counter k's group leader in c: the first counter of its group. */
static inline int
engine_counters_leader(const struct engine_counters *c, int k)
{
	int j;

	for (j = 0; c->groups != NULL && j < k; j++)
		if (c->groups[j] == c->groups[k])
			return j;
	return c->groups != NULL ? k : 0;
}

/* Counter k's group, numbered as engine_sets_groups counts them. */
static inline int
engine_counters_group(const struct engine_counters *c, int k)
{
	return c->groups != NULL ? c->groups[k] : 0;
}

/* The perf groups of c: 1, or one past its last group's number. */
static inline int
engine_counters_ngroups(const struct engine_counters *c)
{
	int k, n = 1;

	for (k = 0; c->groups != NULL && k < c->nattrs; k++)
		if (c->groups[k] >= n)
			n = c->groups[k] + 1;
	return n;
}

struct engine_sets;

/*
 * The sets of specs, as the engines take them; quiet: libcpc says nothing
 * of a request it refuses (auto's first try). NULL, with why, for a
 * request that cannot be opened as a perf counter, or no memory.
 */
struct engine_sets *engine_sets_new(
    cpc_t *cpc, const setgrp_t *specs, bool quiet, char *why, size_t whylen);
void engine_sets_free(struct engine_sets *es);

/* The counters of each set, one per spec, held by es. */
const struct engine_counters *engine_sets_counters(
    const struct engine_sets *es);

/* The perf groups set s is opened as: 1, or its spec's groups. */
int engine_sets_groups(const struct engine_sets *es, int s);

/* The values of the largest set, and those of a start: all 0. */
int engine_sets_most(const struct engine_sets *es);
const uint64_t *engine_sets_zeros(const struct engine_sets *es);

/*
 * Set s's values from what its counters counted (one count per counter),
 * held until the next call: the counts themselves where each request has
 * one counter, else each request's counters summed, each its core PMU's
 * part.
 */
const uint64_t *engine_sets_values(
    struct engine_sets *es, int s, const uint64_t *counts);

/*
 * Set s's counts, as of when, into grp (an accumulator): its values, each
 * scaled by its own group's times where the set has several
 * (setgrp_sample_groups); times gives each opened group's
 * (engine_sets_groups of them).
 */
void engine_sets_sample(struct engine_sets *es, setgrp_t *grp, int s,
    const uint64_t *counts, const struct set_times *times, hrtime_t when);
/* The same for values already made from counts (engine_sets_values). */
void engine_sets_sample_values(struct engine_sets *es, setgrp_t *grp, int s,
    const uint64_t *values, const struct set_times *times, hrtime_t when);

#endif /* ENGINE_SETS_H */
