/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputop's processes counted from outside: the records the scan keeps
 * (cputop_scan.c, found by cputop_procs.c), shared with what counts the
 * tasks that ended between two scans (cputop_ended.c, on
 * cputop_unseen.c's sentinels).
 */
#ifndef CPUTOP_SCAN_H
#define CPUTOP_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cputop_unseen.h"
#include "cputrack_track.h"
#include "engine_sets.h"

/*
 * A counted thread's counts since it started, per set (each set's values
 * as its spec has them, and times), as a sentinel's records gave them at
 * its end: what it counted before the scan found it is their difference
 * from its own counters' totals.
 */
struct lwp_whole {
	bool *got;		 /* per set */
	uint64_t *values;	 /* per set, most_values each */
	struct set_times *times; /* per set, each group's: most_groups each */
};

struct scan_lwp {
	struct track_lwp base;
	int *fds; /* per set, its counters, leader first; NULL: uncounted */
	struct lwp_whole *whole; /* NULL: no record of its whole life */
	bool seen;
	bool left_out; /* for want of descriptors: its rows say so */
	bool retry;    /* not counted for want of the right: tried again */
};

struct scan_proc {
	struct track_proc base;	  /* a found one's: zeroed but its pid */
	int stat_fd;		  /* /proc/PID/stat: its end, its name */
	unsigned long long start; /* its start time: a pid used again */
	unsigned long long cpu;	  /* a found one's CPU time */
	struct scan_lwp **lwps;	  /* by tid */
	int nlwps, room;
	id_t next_lwpid;
	struct row_lwp leader; /* its exit row's */
	struct unseen *unseen; /* its sentinel, or NULL */
	bool retry; /* no sentinel for want of the right: tried again */
	bool seen;
	bool gone; /* as a scan found it, before the sentinels were read */
};

/* A task that ended unseen, in one set, as one sentinel's records say. */
struct ended_task {
	struct unseen_task t;
	struct scan_proc *owner; /* the sentinel's */
	/* t.values points here, then t.times after the values */
	uint64_t values[];
};

/* A task whose counts were taken, from which sentinel, and when. */
struct ended_taken {
	pid_t tid;
	unsigned long owner; /* its process's key */
	hrtime_t when;
};

/* A task whose records came in part, its rest never: how many lack. */
struct ended_part {
	pid_t tid;
	int missing;
};

/* The names the message of what is left out gives at most. */
#define NAMES_SAID 4

/* What the scan left out for want of descriptors, to say. */
struct left_out {
	size_t procs; /* whole processes */
	struct {
		char comm[16];
		size_t n;
	} named[NAMES_SAID]; /* ...the first names, and how many of each */
	int nnamed;
	size_t partial; /* processes with threads left out */
	size_t threads; /* ...those threads */
	char partial_names[192];
};

struct scan_track {
	struct cputrack *ct;
	struct engine_sets *sets;
	const struct engine_counters *eng; /* each set's counters */
	int nsets, current, fds_per_lwp;
	int unseen_fds;		  /* a sentinel's */
	bool sentinels;		  /* this kernel's are safe (unseen_possible) */
	struct scan_proc **procs; /* by pid */
	size_t nprocs, room;
	struct scan_proc **found; /* a scan's new processes */
	size_t nfound, found_room;
	struct track_batch ticked; /* a scan's tick rows */
	bool everyone;		   /* root: every process; or the user's own */
	uid_t uid;
	long fd_room; /* descriptors left to count with */
	struct left_out left, said;
	uint64_t *readbuf;	 /* a group's read */
	uint64_t *counts;	 /* a set's, one per counter */
	struct set_times *times; /* ...and each of its groups' times */
	int most_values;	 /* the largest set's spec values */
	int most_groups;	 /* the most groups a set is opened as */
	uint64_t *before;	 /* a set's, before a thread was found */
	int tfd, sfd, epfd;	 /* epfd: the sentinels' rings */
	hrtime_t scanned_at;	 /* the last scan's time */
	/*
	 * The tasks a reading of the rings gave, and those taken in the last
	 * UNSEEN_PART_WAIT_NS (by tid), whose rest may come from another ring.
	 */
	struct ended_task **ended;
	size_t nended, ended_room;
	struct ended_taken *taken, *taken_before;
	size_t ntaken, ntaken_before, taken_room, taken_before_room;
	struct ended_part *parts; /* tasks whose rest never came */
	size_t nparts, parts_room;
	struct scan_proc *reading;     /* the sentinel being read */
	unsigned long lost, lost_said; /* records the rings lost */
	size_t no_ring, no_ring_said;  /* processes with no sentinel */
	unsigned long ticks;
	bool ended_run;
	int status;
};

/*
 * cputop_procs.c: a watched process by pid, a thread of it by tid, and
 * the orders the scan keeps them in (qsort's).
 */
struct scan_proc *scan_proc_of(const struct scan_track *st, pid_t pid);
struct scan_lwp *scan_lwp_of(const struct scan_proc *p, pid_t tid);
int scan_by_pid(const void *a, const void *b);
int scan_by_tid(const void *a, const void *b);
/* No memory: said, and the run ends with status 1. */
void scan_no_memory(struct scan_track *st);

/*
 * cputop_ended.c: what every sentinel says of the tasks that ended, as of
 * when: each task's counts in the process it belongs to, once. Before a
 * scan lets go of a process or thread: a task the scan counted is known
 * by its thread's record.
 */
void scan_read_ended(struct scan_track *st, hrtime_t when);
/*
 * How long the loop may wait for a ring to wake it: a ring that is being
 * written, or holds records past its published head (cputop_unseen.c),
 * may stop waking its reader, and is read every BUSY_RING_READ_MS; -1
 * while every ring is quiet.
 */
int scan_rings_wait_ms(const struct scan_track *st);
#define BUSY_RING_READ_MS 10
/*
 * After scan_read_ended, before the sentinels of the processes gone are
 * closed (last: every sentinel, at the run's end): the records their
 * rings hold past the head, waited for; at the run's end, the tasks whose
 * records came in part, lost.
 */
void scan_read_settled(struct scan_track *st, bool last);
/* Before p's sentinel is closed: its tasks still in part, lost. */
void scan_drop_parts(struct scan_track *st, struct scan_proc *p);
void scan_ended_free(struct scan_track *st);
/*
 * A counted thread's end, its own counters read a last time: what it
 * counted before the scan found it, where a sentinel said its whole life,
 * as an LWP of its process that ended; its record of that let go.
 */
void scan_count_before(
    struct scan_track *st, struct scan_lwp *l, hrtime_t when);
void scan_whole_free(struct scan_lwp *l);

#endif /* CPUTOP_SCAN_H */
