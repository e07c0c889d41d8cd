/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --cgroup's own rows (cputrack_cgroup_sum.h): an accumulator fed, at
 * each tick, with the totals of the cgroup's threads, so that its rows
 * divide by the sets' turns and show what was counted since the last, as
 * a thread's do.
 */
#include <stdlib.h>
#include <string.h>

#include "cputrack_cgroup_sum.h"

struct cgroup_sum {
	struct cputrack *ct;
	setgrp_t *rows; /* the cgroup's rows, sampled with the sums */
	setgrp_t *gone; /* the totals of the threads that went */
	struct row_lwp who;
	int set;		/* the set of the sum being made */
	uint64_t *values;	/* the sum being made */
	struct set_times times; /* ... and its times */
};

struct cgroup_sum *
cgroup_sum_new(struct cputrack *ct, const struct cgroup_dir *cg, int most)
{
	struct cgroup_sum *cs = calloc(1, sizeof(*cs));

	if (cs == NULL)
		return NULL;
	cs->ct = ct;
	cs->who = (struct row_lwp) { 0, 0, 0, cg->name, 0 };
	if ((cs->rows = setgrp_accumulator(ct->specs)) == NULL ||
	    (cs->gone = setgrp_accumulator(ct->specs)) == NULL ||
	    (cs->values = calloc((size_t)most, sizeof(uint64_t))) == NULL) {
		cgroup_sum_free(cs);
		return NULL;
	}
	return cs;
}

void
cgroup_sum_free(struct cgroup_sum *cs)
{
	if (cs == NULL)
		return;
	setgrp_free(cs->rows);
	setgrp_free(cs->gone);
	free(cs->values);
	free(cs);
}

void
cgroup_sum_keep(struct cgroup_sum *cs, const setgrp_t *grp)
{
	setgrp_accumulate(cs->gone, grp);
}

void
cgroup_sum_begin(struct cgroup_sum *cs, int s)
{
	int n = spec_nvalues(setgrp_spec(cs->ct->specs, s));

	cs->set = s;
	memset(cs->values, 0, (size_t)n * sizeof(uint64_t));
	cs->times = (struct set_times) { 0, 0 };
	cgroup_sum_add(cs, cs->gone);
}

void
cgroup_sum_add(struct cgroup_sum *cs, const setgrp_t *grp)
{
	int s = cs->set, n = spec_nvalues(setgrp_spec(cs->ct->specs, s)), i;
	const struct set_counts *c;

	if (!setgrp_sampled(grp, s))
		return;
	c = setgrp_total(grp, s);
	cs->times.enabled_ns += c->times.enabled_ns;
	cs->times.running_ns += c->times.running_ns;
	for (i = 0; i < n; i++)
		cs->values[i] += c->values[i];
}

void
cgroup_sum_row(struct cgroup_sum *cs, hrtime_t when, unsigned long intervals)
{
	int s = cs->set;

	setgrp_sample_counts(cs->rows, s, cs->values, &cs->times, when);
	row_cgroup(cs->ct, &cs->who, "cgroup", s, setgrp_slice(cs->rows, s),
	    intervals);
}

void
cgroup_sum_set_current(struct cgroup_sum *cs, int s)
{
	setgrp_set_current(cs->rows, s);
}

void
cgroup_sum_total(const struct cgroup_sum *cs)
{
	row_totals(cs->ct, &cs->who, "total", cs->rows, NULL);
}
