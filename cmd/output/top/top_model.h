/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the live view shows: every process and thread that cputrack's rows
 * speak of, with what each counted in the latest refresh (the view's
 * interval) and since it was first seen.
 *
 * Rows go in as they come (top_model_row). At each refresh
 * (top_model_refresh) the counts of the ticks since the one before become
 * what is shown, and what ended before that refresh goes: an ended thread
 * or process is shown, marked, for one refresh after its end. Rates come
 * from tick and gap rows only; totals are exact where a total row (exit,
 * lwp_exit, exec) gives them, and the sum of the ticks until then.
 *
 * The caller serialises every call.
 */
#ifndef TOP_MODEL_H
#define TOP_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "out_run.h"

/* A set's counts over a span, as the view reads them. */
struct top_counts {
	const uint64_t *values; /* spec_nvalues of the set */
	uint64_t elapsed_ns;	/* the wall-clock ns they were counted over */
	bool counted;		/* a row with counts came in the span */
	bool multiplexed;	/* the set ran part of its enabled time */
	int reason;		/* not counted: top_model_reason's, or -1 */
};

enum top_span { TOP_SHOWN, TOP_TOTAL };

/* A thread, or a process (the sum of its threads). */
struct top_entity {
	pid_t pid;
	pid_t tid;		/* a thread's; a process's is its pid */
	int lwp;		/* a thread's number in its process; 0 */
	unsigned long proc;	/* the process's key in the run */
	char comm[64];		/* a thread's: its own, once the view read it */
	uint64_t comm_refresh;	/* the refresh a thread's name was read at */
	uint64_t first_refresh; /* the refresh it was first shown at */
	bool ended;		/* ended before this refresh */
	uid_t uid;		/* a process's owner, once known */
	bool uid_known;
	int nthreads;	       /* a process's threads now */
	int uncounted;	       /* ...of which not counted */
	pid_t ppid;	       /* a process's parent, or 0: not known */
	char *cmdline;	       /* a process's arguments, or NULL */
	char *cgroup;	       /* a process's cgroup (v2), or NULL */
	unsigned long nfolded; /* ended processes of one name, summed; 0 */
};

struct top_model;

struct top_model *top_model_new(const struct out_run *run);
void top_model_free(struct top_model *m);
void top_model_row(struct top_model *m, const struct out_row *row);
/*
 * A process the engine found, while it is there: its owner, parent,
 * arguments and cgroup are read now, for its first row, which may come
 * once it has ended.
 */
void top_model_process(struct top_model *m, pid_t pid);
/*
 * Whether a tick's counts came since the last refresh: only then has a
 * refresh anything new to show.
 */
bool top_model_ticked(const struct top_model *m);
/* The latest tick rows' time: CLOCK_MONOTONIC ns, or 0. */
int64_t top_model_tick_time(const struct top_model *m);
/* A refresh: what came since the last one is shown now. */
void top_model_refresh(struct top_model *m);
/*
 * The last refresh, at the end of the run: as top_model_refresh, but
 * every process that ended before stays or comes back, for the final
 * totals: those of every process seen, whether or not it lived across a
 * refresh (past a bound, ended processes of one name as one, summed).
 */
void top_model_last_refresh(struct top_model *m);
/* How many refreshes so far. */
uint64_t top_model_refreshes(const struct top_model *m);

/* The processes shown, and the threads of each. */
int top_model_nprocs(const struct top_model *m);
struct top_entity *top_model_proc(struct top_model *m, int i);
int top_model_nthreads(const struct top_model *m, int proc);
struct top_entity *top_model_thread(struct top_model *m, int proc, int i);
/*
 * An entity's counts of set s over a span. Of a process, the sum of its
 * threads. The time of the shown span is the refresh's (the set's turns
 * in it): a process that ended within it has its counts over the refresh,
 * not over its short life.
 */
struct top_counts top_model_counts(const struct top_model *m,
    const struct top_entity *e, enum top_span span, int set);
/* A reason for values not counted, by its number. */
const char *top_model_reason(const struct top_model *m, int reason);
int top_model_nreasons(const struct top_model *m);

#endif /* TOP_MODEL_H */
