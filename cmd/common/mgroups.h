/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Metric groups: named sets of events with the metrics their counts
 * answer (perf stat's -M), kept as data in mgroups_table.c with the
 * vendors' definitions they come from (SOURCES). A group may have a
 * variant per kind of CPU: the first whose events this machine counts
 * is the one -M takes.
 */
#ifndef MGROUPS_H
#define MGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "libcpc.h"

/* One metric: a formula (mexpr.h) over the group's events. */
struct mgroup_metric {
	const char *key;     /* the machine name: CSV, JSON, series */
	const char *name;    /* as the table says it after the value */
	const char *formula; /* mexpr.h's language */
	const char *unit;    /* "", "%", "GB/s", "J", "W", "K/sec", ... */
	const char *means;   /* one sentence: what it tells */
};

struct mgroup {
	const char *name;    /* -M's: TopdownL1 */
	const char *desc;    /* one line */
	const char *applies; /* the CPUs the variant is for, in words */
	/*
	 * The -c spec -M adds; NULL for Default, whose events are the run's
	 * own (perf stat's default set where no -c names any).
	 */
	const char *events;
	const struct mgroup_metric *metrics;
	int nmetrics;
	const char *source; /* its entry in cmd/common/SOURCES */
	/*
	 * The core models the variant is for, as libpfm4 describes them
	 * ("AMD64 Fam19h Zen3"), '|' between them; NULL: any. For events
	 * that a name does not tell apart: amd_df's are numbers, and the
	 * same numbers are other events on another model.
	 */
	const char *models;
	/*
	 * How many of its events its PMU counts at once, where they are all
	 * on a PMU of the socket (the kernel's own bound, not sysfs's): each
	 * is a group of its own, so more count by turns (multiplexed);
	 * 0: the core PMU's counters bound them.
	 */
	int pmu_counters;
};

extern const struct mgroup mgroup_table[];
extern const int mgroup_ntable;

/* The table's entry of the group Default: today's derived metrics. */
const struct mgroup *mgroup_default(void);

/*
 * Whether name is a group of the table (perf's spelling, any case).
 */
bool mgroup_known(const char *name);

/*
 * The variant of group name this machine counts: its entry, or NULL
 * with why (len bytes) saying in one line which event is missing and
 * why (no PMU, this CPU has no such event, too few counters), and which
 * CPUs that variant is for.
 */
const struct mgroup *mgroup_resolve(
    cpc_t *cpc, const char *name, char *why, size_t len);

/*
 * The core PMU's issue slots per cycle, as the kernel gives them
 * (/sys/bus/event_source/devices/PMU/caps/slots: Arm's PMMIR_EL1.SLOTS),
 * or 0 where it gives none.
 */
double mgroup_core_slots(cpc_t *cpc);

/*
 * The events of a group's spec, one at a time: start with *pos NULL;
 * false after the last. ev gets the event (len bytes) as the spec
 * names it.
 */
bool mgroup_next_event(
    const struct mgroup *g, const char **pos, char *ev, size_t len);

#endif /* MGROUPS_H */
