/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's tracking model: one record per tracked process, owned by
 * cputrack whichever engine follows it, and the rows made from it. An
 * engine's adapter keeps its own record around the model's (the model's
 * first: it asks for the size of the whole) and calls the model at each
 * event; the model writes the rows, so that both engines write them once.
 */
#ifndef CPUTRACK_TRACK_H
#define CPUTRACK_TRACK_H

#include <stddef.h>

#include "cputrack.h"

/* A tracked process: the totals of its current image's LWPs that ended. */
struct track_proc {
	struct cputrack *ct;
	pid_t pid;
	unsigned long key; /* for its rows, through execs */
	setgrp_t *acc;
	bool started;	  /* the command cputrack started */
	int uncounted;	  /* LWPs of the image left uncounted */
	char comm[16];	  /* its image's name, for rows: read
			     while it is there to read */
	char partial[96]; /* what the totals leave out */
};

/*
 * A process's record, size bytes (an adapter's, the model's first),
 * zeroed but for the model's. comm: its name, known (a fork's is its
 * parent's), or NULL: read it. NULL when there is no memory.
 */
struct track_proc *track_proc_new(struct cputrack *ct, pid_t pid, bool started,
    const char *comm, size_t size);
void track_proc_free(struct track_proc *p);

/* A row's LWP of the process. */
struct row_lwp track_who(const struct track_proc *p, id_t lwpid, pid_t tid);

/*
 * The image's end at an exec by LWP lwpid: the old image's totals and the
 * exec marker naming image (the new one's name, or NULL); the totals
 * start again. The adapter renames the process when it follows it.
 */
void track_exec(
    struct track_proc *p, id_t lwpid, const char *args, const char *image);
void track_rename(struct track_proc *p, const char *image);
/* The process's end: its totals, in who's row; status as cputrack's. */
void track_exit(struct track_proc *p, const struct row_lwp *who, int status);

#endif /* CPUTRACK_TRACK_H */
