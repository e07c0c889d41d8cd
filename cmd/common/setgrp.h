/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Set groups: the -c specs of a run, and the sets that take turns on one
 * LWP (cputrack) or one CPU (cpustat).
 *
 * A master group holds the parsed specs. Each LWP or CPU clones it and
 * binds its sets all at once. Sets of events with no counter limit are
 * bound as one joint set that counts all the time, and a turn
 * (setgrp_rotate) is bookkeeping at one read of it. Otherwise one libcpc
 * set is bound per spec: the first counts, the others wait in standby and
 * take over in turn (cpc_set_switch), so that no event falls between two
 * turns. A sample of the current set adds what it counted since its last
 * sample to its total. An accumulator clone has no sets, only totals: a
 * process's, summed over its LWPs.
 */
#ifndef SETGRP_H
#define SETGRP_H

#include <stdbool.h>
#include <stdint.h>

#include "libcpc.h"
#include "spec.h"

typedef struct setgrp setgrp_t;

/* Enabled and running nanoseconds of a sample's slice, or of a total. */
struct set_times {
	uint64_t enabled_ns;
	uint64_t running_ns;
};

/* What a set counted over a span. */
struct set_counts {
	const uint64_t *values; /* one per request of its spec, then parts */
	hrtime_t when;		/* its end, CLOCK_MONOTONIC ns */
	/*
	 * Its start on the same clock: the sample before it, or when its
	 * sets were bound; a total's, its first slice's; an accumulator's,
	 * the earliest of those added. 0: not known (an engine that gives
	 * no start, or a total of a slice without one).
	 */
	hrtime_t since;
	uint64_t tick; /* its enabled time in TSC ticks */
	struct set_times times;
	/*
	 * Wall-clock ns: span_ns of the slices (when - since of each), and
	 * turn_ns of those the set was in use, its own turns; a total's and
	 * an accumulator's summed over what they add up. Counts have no
	 * wall-clock time of their own (an LWP's enabled time is its CPU
	 * time), and with several sets the span also holds the others'
	 * turns. Both 0 where since is not known.
	 */
	uint64_t span_ns;
	uint64_t turn_ns;
	int set; /* which set counted it */
};

setgrp_t *setgrp_new(cpc_t *cpc);
/*
 * Parse and add one spec: 0; -1 for a syntax error (reported: a usage
 * error); or the status to exit with: 2 for events this machine cannot
 * count (each reported), 1 for no memory.
 */
int setgrp_add(setgrp_t *master, const char *text);
/*
 * Add a spec made elsewhere, with no libcpc set: a record's, which
 * --input writes again (nothing of it is bound or counted). The group
 * owns it from then on. 0, or -1 (no memory).
 */
int setgrp_add_spec(setgrp_t *master, struct spec *spec);
/*
 * Append the last set's events to set s, which counts them from then on,
 * and drop the last: -M beside -c, counted together as perf counts -M
 * with -e. As setgrp_add says; the sets are unchanged on an error.
 */
int setgrp_join_last(setgrp_t *g, int s);
int setgrp_nsets(const setgrp_t *g);
/* Whether the sets are bound as one joint set (see the top). */
bool setgrp_joint(const setgrp_t *g);
/*
 * Before anything starts: open every request as it will be bound, on the
 * calling thread (cpuid -1), a CPU or every CPU (SPEC_CHECK_CPUS). The
 * number of requests refused, each said in one line.
 */
int setgrp_check(const setgrp_t *master, int cpuid);
const struct spec *setgrp_spec(const setgrp_t *g, int s);
/*
 * How many of set s's groups ({...}) hold events that wait for a counter
 * (hardware, uncore): what an engine that opens a set as one group cannot
 * count apart where it is more than one. Software events and tracepoints
 * count in any group, all the time.
 */
int setgrp_limited_groups(const setgrp_t *g, int s);

/*
 * Whether any set counts a hardware breakpoint (mem:), whose debug traps
 * only an engine that traces its process can keep from killing it; the
 * first such request's event as written, or NULL.
 */
bool setgrp_counts_breakpoints(const setgrp_t *g);
const char *setgrp_first_breakpoint(const setgrp_t *g);

/*
 * A clone to count with, or one with totals only. A clone freed goes back
 * to its master, unbound, for the next one asked for: the commands clone
 * for every thread they follow. So the master outlives its clones, and
 * one thread at a time clones it and frees its clones.
 */
setgrp_t *setgrp_clone(setgrp_t *master);
setgrp_t *setgrp_accumulator(setgrp_t *master);
void setgrp_free(setgrp_t *g);

/*
 * An accumulator's start, when its thread began to be counted: its
 * slices' spans (the rows' elapsed time) run from then, as a bound
 * group's run from its bind.
 */
void setgrp_started_at(setgrp_t *g, hrtime_t when);

int setgrp_bind_pctx(setgrp_t *g, pctx_t *pctx, id_t lwpid);
int setgrp_bind_cpu(setgrp_t *g, int cpu, uint_t hold_flags);
void setgrp_unbind(setgrp_t *g);

/* The set counting now, and the one that a sample is about. */
int setgrp_current(const setgrp_t *g);
/*
 * Sample the current set: its slice since the last sample, into its
 * total. That slice, or NULL.
 */
const struct set_counts *setgrp_sample(setgrp_t *g);
/* Sample every set: the slices not yet sampled go into the totals. */
int setgrp_sample_all(setgrp_t *g);
/* Take a sample of the current set as the start of its next slice. */
int setgrp_rebase(setgrp_t *g);
/*
 * The next set takes over. Its turn begins where the current set's
 * latest sample ended it: a rotation follows that sample.
 */
int setgrp_rotate(setgrp_t *g);

/*
 * An accumulator clone can count for an engine that reads counters its
 * own way (cputrack's BPF engine): set s has counted values (cumulative,
 * one per request, then the parts: spec_nvalues of them, see spec.h) in
 * t's times, as of when; what they add since the
 * previous sample of s is its slice, into its total. The engine rotates
 * the sets itself, and says which counts now.
 */
void setgrp_sample_counts(setgrp_t *g, int s, const uint64_t *values,
    const struct set_times *t, hrtime_t when);
/*
 * The same for a set of several perf groups ({...}) that the engine
 * opens each on its own: t gives each group's times (numbered as
 * spec_group_index numbers them), and each value is scaled by its own
 * group's, step by step, as perf scales a count by its enabled over its
 * running time. The set's times are its least counted group's: running
 * below enabled says that the groups took turns. A set of one group
 * takes t[0] as it is.
 */
void setgrp_sample_groups(setgrp_t *g, int s, const uint64_t *values,
    const struct set_times *t, hrtime_t when);
/* Set s takes over at the current set's latest sample, as a rotation. */
void setgrp_set_current(setgrp_t *g, int s);

/* Per set: the last slice sampled, and the total of the slices. */
const struct set_counts *setgrp_slice(const setgrp_t *g, int s);
const struct set_counts *setgrp_total(const setgrp_t *g, int s);
bool setgrp_sampled(const setgrp_t *g, int s);

/*
 * The wall-clock ns counts were counted over, for a rate against wall
 * time (CPUs utilized): their span, when - since, times the share of it
 * their set was in use (turn_ns / span_ns); with one set, the span. For
 * one LWP that is the sum of its set's turns; for a process's LWPs, whose
 * turns need not line up, the span at their mean share. 0: not known.
 */
uint64_t setgrp_counted_ns(const struct set_counts *c);

/* An accumulator: add a group's totals; start again from zero. */
void setgrp_accumulate(setgrp_t *acc, const setgrp_t *g);
void setgrp_reset(setgrp_t *acc);

#endif /* SETGRP_H */
