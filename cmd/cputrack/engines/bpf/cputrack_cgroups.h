/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --for-each-cgroup: the cgroups at and below the target directory, each
 * with its own rows. The engine counts each apart and names it by its id;
 * here each id gets its name in the hierarchy, its counts are sampled at
 * the ticks, and a cgroup that is removed gives its last row.
 */
#ifndef CPUTRACK_CGROUPS_H
#define CPUTRACK_CGROUPS_H

#include <stdint.h>

#include "cputrack.h"
#include "cputrack_bpf_sets.h"

struct cgroup_rows;

/* The rows of top's cgroups, depth levels below it at most kept apart. */
struct cgroup_rows *cgroup_rows_new(
    struct cputrack *ct, const struct cgroup_dir *top, unsigned depth);
void cgroup_rows_free(struct cgroup_rows *cr);

/*
 * The cgroups there at the start, found by cgroup_rows_new's walk, each
 * given to count (its id) so that it is counted from the start, an idle
 * one's 0 a count: only where they all have room below max (with the
 * target's), so that which cgroups are folded stays the first counted.
 */
void cgroup_rows_count_present(struct cgroup_rows *cr, unsigned max,
    int (*count)(void *arg, uint64_t id), void *arg);

/*
 * Names come by event from now on: cgroup_rows_named for each cgroup made
 * cgroup_rows_gone for each removed; never by a walk.
 */
void cgroup_rows_by_event(struct cgroup_rows *cr);
/* Cgroup id, made, named name in cgroup parent (ignored if not ours). */
void cgroup_rows_named(
    struct cgroup_rows *cr, uint64_t id, uint64_t parent, const char *name);
void cgroup_rows_gone(struct cgroup_rows *cr, uint64_t id);

/*
 * A cgroup the engine began to count: named now, while it is there; or,
 * folded, one it had no room for, whose counts are in its parent's rows.
 */
void cgroup_rows_found(struct cgroup_rows *cr, uint64_t id, bool folded);

/* A cgroup's counts at this tick, in set s (its totals so far). */
void cgroup_rows_sample(struct cgroup_rows *cr, uint64_t id, int s,
    struct bpf_sets *sets, const struct bpfeng_set_counts *sc, hrtime_t when);

/*
 * Every counted cgroup's row of this tick, in set s; one that is gone has
 * its last, labelled rmdir, and forget(arg, id) drops its counts. Cgroups
 * folded since the last tick are said in one line.
 */
void cgroup_rows_tick(struct cgroup_rows *cr, int s, unsigned long intervals,
    void (*forget)(void *arg, uint64_t id), void *arg);

/* The sets take their turns at the ticks for every cgroup at once. */
void cgroup_rows_set_current(struct cgroup_rows *cr, int s);

/* Each cgroup's total row, at the end of the run. */
void cgroup_rows_totals(struct cgroup_rows *cr);

#endif /* CPUTRACK_CGROUPS_H */
