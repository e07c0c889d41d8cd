/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's tracking model: one record per tracked process and one per
 * tracked LWP, owned by cputrack whichever engine follows them, and the
 * rows made from them. An engine's adapter keeps what only its engine
 * needs in a record that begins with the model's, which the model makes
 * in one allocation of the size the adapter gives, and calls the model
 * at each event; the model writes the rows, so that they are written
 * once for every engine. docs/architecture.md says how an engine plugs
 * in.
 */
#ifndef CPUTRACK_TRACK_H
#define CPUTRACK_TRACK_H

#include <stddef.h>

#include "cputrack.h"

/*
 * An LWP of the image whose counts became final without an lwp_exit row
 * of its own: one that the process's end (its exit, a fatal signal,
 * another LWP's exec) took. Its totals are kept until the image ends.
 */
struct track_ended {
	struct row_lwp who;
	setgrp_t *totals;
};

/* A tracked process: the totals of its current image's LWPs that ended. */
struct track_proc {
	struct cputrack *ct;
	pid_t pid;
	unsigned long key; /* for its rows, through execs */
	setgrp_t *acc;
	struct track_ended *ended; /* of its image: see track_lwp_final */
	int nended, ended_room;
	bool started;	  /* the command cputrack started */
	int uncounted;	  /* LWPs of the image left uncounted */
	char comm[16];	  /* its image's name, for rows: read
			     while it is there to read */
	char partial[96]; /* what the totals leave out */
};

/*
 * A process's record, size bytes (an adapter's, the model's first),
 * zeroed but for the model's. The run's first is the command cputrack
 * started, if it started one. comm: its name, known (a fork's is its
 * parent's), or NULL: read it. NULL when there is no memory.
 */
struct track_proc *track_proc_new(
    struct cputrack *ct, pid_t pid, const char *comm, size_t size);
void track_proc_free(struct track_proc *p);

/* A row's LWP of the process. */
struct row_lwp track_who(const struct track_proc *p, id_t lwpid, pid_t tid);

/*
 * The image's end at an exec by LWP lwpid: the old image's totals and the
 * exec marker naming image (the new one's name, or NULL); the totals
 * start again. The adapter renames the process when it follows it.
 *
 * At an image's end (track_exec, track_exit, track_leave), every LWP
 * that it took has its lwp_exit row first, with its totals, where it
 * took more than one: then every thread's totals are there, whatever
 * ended the image, and the image's total is their sum with the rows of
 * the LWPs that ended before it. A single LWP's totals are the image's
 * row itself, as on Solaris.
 */
void track_exec(
    struct track_proc *p, id_t lwpid, const char *args, const char *image);
void track_rename(struct track_proc *p, const char *image);
/*
 * Whether the engine follows the exec into its new image, said: -e's
 * are followed in silence, the started command's before it made a
 * thread or a process (follows_wrapper_execs) and those not followed are
 * said on stderr.
 */
void track_exec_follow(
    const struct track_proc *p, const char *args, bool followed);
/* The process's end: its totals, in who's row; status as cputrack's. */
void track_exit(struct track_proc *p, const struct row_lwp *who, int status);
/* --cgroup: it left the cgroup, and runs on: its totals, in who's row. */
void track_leave(struct track_proc *p, const struct row_lwp *who);
/*
 * LWP lwpid of process ppid forked child, at when (0: now); p is ppid's
 * record, or NULL where the engine saw the fork of a process it had no
 * record of.
 */
void track_fork(struct cputrack *ct, const struct track_proc *p, pid_t ppid,
    id_t lwpid, pid_t child, hrtime_t when);

/*
 * A tracked LWP: its sets, and the model's view of its counts. An LWP
 * left uncounted keeps a record with no sets, so that every event about
 * it finds it rather than its process's.
 */
struct track_lwp {
	struct track_proc *proc;
	struct row_lwp who; /* its pid, lwpid and tid, for rows */
	setgrp_t *grp;	    /* NULL: not counted */
	bool finished;	    /* its counts are final and summed */
};

/*
 * How an LWP's sets count: bound to perf counters of its own, or fed by
 * an engine that reads counters its own way (setgrp_sample_counts).
 */
enum track_counting { TRACK_BOUND, TRACK_FED };

/*
 * An LWP's record, size bytes (an adapter's, the model's first), zeroed
 * but for the model's. NULL: no memory.
 */
struct track_lwp *track_lwp_new(struct track_proc *p, id_t lwpid, pid_t tid,
    enum track_counting how, size_t size);
void track_lwp_free(struct track_lwp *l);
/* It goes on uncounted: its sets go back, and nothing is summed. */
void track_lwp_uncounted(struct track_lwp *l);
/* An LWP fed by its engine counts again from now: 0, or -1 (no memory). */
int track_lwp_recount(struct track_lwp *l);

/*
 * The LWP's rows. Its counters started, at c (-v shows it; NULL: not
 * sampled); it was made by a tracked thread, and set shows its zero start;
 * its counts are final, into its process's totals; it ended on its own.
 * Its ticks are a batch's (track_tick).
 */
void track_lwp_started(const struct track_lwp *l, const struct set_counts *c);
void track_lwp_created(const struct track_lwp *l, int set);
void track_lwp_final(struct track_lwp *l);
void track_lwp_exit(const struct track_lwp *l);

/*
 * A tick's LWPs, each with the counts its engine just read (a slice of
 * one set) and the intervals they hold, gathered in the engine's order.
 * The model puts them in the one order of every engine (by process, the
 * oldest first, then by LWP) and writes their rows. An adapter keeps one
 * from tick to tick, so that its room stays.
 */
struct track_batch_lwp {
	struct track_lwp *lwp;
	const struct set_counts *counts; /* held until the batch's rows */
	unsigned long intervals;
};
struct track_batch {
	struct track_batch_lwp *lwps;
	size_t n, room;
};

/*
 * c: what l counted since its last tick, over intervals of the run (more
 * than one: the engine missed ticks, and its row is a gap row). 0, or -1
 * when there is no memory (said).
 */
int track_batch_add(struct track_batch *b, struct track_lwp *l,
    const struct set_counts *c, unsigned long intervals);
/* The batch in the rows' order, for an adapter's own rows of it. */
void track_batch_order(struct track_batch *b);
/*
 * The batch's rows, in order, and it is empty again: each LWP's tick, or
 * its last tick (what it counted since its last one, its intervals aside)
 * where the run ends between two.
 */
void track_tick(struct track_batch *b);
void track_last_tick(struct track_batch *b);
void track_batch_free(struct track_batch *b);
/* An LWP whose counters cannot count: a row per set, with why. */
void track_not_counted(
    struct cputrack *ct, const struct row_lwp *who, const char *why);
/* An LWP left uncounted ended, its process going on: the same, its end. */
void track_lwp_exit_uncounted(const struct track_lwp *l, const char *why);

#endif /* CPUTRACK_TRACK_H */
