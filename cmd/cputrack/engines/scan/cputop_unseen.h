/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputop's processes counted from outside (cputop_scan.c): what their
 * threads and children that start and end between two scans count. A
 * scan never sees those, so each process watched has a sentinel on its
 * first thread: every set's counters again, inherited (perf's inherit) by
 * each thread and process that thread starts from then on, and by what
 * those start. The sentinel's own counts are never read: at the exit of
 * each task that inherited it, the kernel writes what the task counted
 * over its whole life into the sentinel's ring buffer (inherit_stat: a
 * record per counter, with its pid and tid). The scan takes the records
 * of the tasks it did not count itself, each once.
 *
 * The ring is a buffer of the first thread's own (an inherited counter
 * may not be mapped; it writes there through PERF_EVENT_IOC_SET_OUTPUT).
 * Its pages are locked memory, which the kernel bounds per user
 * (kernel.perf_event_mlock_kb, then RLIMIT_MEMLOCK).
 */
#ifndef CPUTOP_UNSEEN_H
#define CPUTOP_UNSEEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine_sets.h"
#include "libcpc.h"

/*
 * What an ended task counted in one set, as its records gave it; or, with
 * missing > 0, a task whose records came in part and whose rest never
 * came (its counts are not to be taken).
 */
struct unseen_task {
	pid_t pid, tid;
	int set;
	int missing;		       /* records that never came */
	const uint64_t *values;	       /* one per counter of the set */
	const struct set_times *times; /* one per group of the set */
};

struct unseen;

/*
 * Whether this kernel keeps sentinels from swapping counts with other
 * tools' counters of the same tasks (cputop_unseen.c): without that,
 * there are none.
 */
bool unseen_possible(void);

/* The descriptors and pages a sentinel of these sets takes. */
int unseen_nfds(const struct engine_counters *sets, int nsets);

/*
 * A sentinel on thread tid, set current counting: NULL with *err (an
 * errno: EMFILE for descriptors, ENOBUFS for no room for the ring's locked
 * pages, EACCES or EPERM for a thread this user may not count now, ESRCH
 * for one gone).
 */
struct unseen *unseen_open(const struct engine_counters *sets, int nsets,
    int current, pid_t tid, int *err);
void unseen_close(struct unseen *u);
/* The descriptor that polls readable when the ring is half full. */
int unseen_fd(const struct unseen *u);
/* Set next counts from now on, as the scan's counters hand over. */
void unseen_hand_over(struct unseen *u, int current, int next);
/*
 * The tasks whose records are all in, as of now, and those whose rest
 * will not come: a task's counts in one set at a time to fn (which must
 * not keep t); the records the kernel had no room for.
 */
unsigned long unseen_read(struct unseen *u, hrtime_t now,
    void (*fn)(void *arg, const struct unseen_task *t), void *arg);

/*
 * How long a task's part waits for the rest of its records, which come
 * within microseconds of each other unless the ring had no room for them
 * or stopped publishing its head (below).
 */
#define UNSEEN_PART_WAIT_NS 1000000000L

/*
 * How long records past a ring's published head wait before a read takes
 * them: far longer than the kernel takes to write one whole.
 */
#define UNSEEN_PAST_WAIT_NS 10000000L

/*
 * Whether the last read found records past the ring's published head,
 * for a read UNSEEN_PAST_WAIT_NS or more after it to take.
 */
bool unseen_pending(const struct unseen *u);
/* The tasks still waiting for the rest of their records, to fn as such. */
void unseen_drop_parts(struct unseen *u,
    void (*fn)(void *arg, const struct unseen_task *t), void *arg);
/*
 * Whether the last read found records, or left some past the head: a
 * ring that stops publishing its head wakes no reader, so one that is
 * being written is read often.
 */
bool unseen_busy(const struct unseen *u);

#endif /* CPUTOP_UNSEEN_H */
