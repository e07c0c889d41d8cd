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

/* What an ended task counted in one set, as its records gave it. */
struct unseen_task {
	pid_t pid, tid;
	int set;
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
 * The tasks whose records are all in, as of now: a task's counts in one
 * set at a time to fn (which must not keep t); the records the kernel had
 * no room for. A task whose records came in part waits for the rest.
 */
unsigned long unseen_read(struct unseen *u, hrtime_t now,
    void (*fn)(void *arg, const struct unseen_task *t), void *arg);

#endif /* CPUTOP_UNSEEN_H */
