/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --cgroup: the cgroup's own row at each tick and its total, the sum of
 * what its threads counted, those that are live and those gone. The
 * engine counts the threads; here their totals become the cgroup's.
 */
#ifndef CPUTRACK_CGROUP_SUM_H
#define CPUTRACK_CGROUP_SUM_H

#include "cputrack.h"

struct cgroup_sum;

/* The sum for cgroup cg, with room for most values a set. NULL: no memory. */
struct cgroup_sum *cgroup_sum_new(
    struct cputrack *ct, const struct cgroup_dir *cg, int most);
void cgroup_sum_free(struct cgroup_sum *cs);

/* A thread that goes: its counts stay in the cgroup's. */
void cgroup_sum_keep(struct cgroup_sum *cs, const setgrp_t *grp);

/*
 * A tick's row in set s: cgroup_sum_begin, cgroup_sum_add with each live
 * thread's sets, then cgroup_sum_row, at when, which writes the sum less
 * that of the last row.
 */
void cgroup_sum_begin(struct cgroup_sum *cs, int s);
void cgroup_sum_add(struct cgroup_sum *cs, const setgrp_t *grp);
void cgroup_sum_row(
    struct cgroup_sum *cs, hrtime_t when, unsigned long intervals);

/* The sets take their turns as a thread's do. */
void cgroup_sum_set_current(struct cgroup_sum *cs, int s);

/* The cgroup's total row, at the end of the run. */
void cgroup_sum_total(const struct cgroup_sum *cs);

#endif /* CPUTRACK_CGROUP_SUM_H */
