/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tracking model both engines share (cputrack_track.h): the records
 * of the processes, and the rows of their events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cputrack_track.h"
#include "procname.h"

struct track_proc *
track_proc_new(
    struct cputrack *ct, pid_t pid, bool started, const char *comm, size_t size)
{
	struct track_proc *p;

	if ((p = calloc(1, size)) == NULL)
		return NULL;
	if ((p->acc = setgrp_accumulator(ct->specs)) == NULL) {
		free(p);
		return NULL;
	}
	p->ct = ct;
	p->pid = pid;
	p->key = cputrack_proc_key(ct);
	p->started = started;
	if (comm != NULL)
		strlcpy(p->comm, comm, sizeof(p->comm));
	else
		proc_comm(pid, p->comm, sizeof(p->comm));
	return p;
}

void
track_proc_free(struct track_proc *p)
{
	if (p == NULL)
		return;
	setgrp_free(p->acc);
	free(p);
}

struct row_lwp
track_who(const struct track_proc *p, id_t lwpid, pid_t tid)
{
	return (struct row_lwp) { p->pid, lwpid, tid, p->comm, p->key };
}

/* What the process's totals leave out, or NULL. */
static const char *
partial_of(struct track_proc *p)
{
	if (p->uncounted == 0)
		return NULL;
	snprintf(p->partial, sizeof(p->partial),
	    "%d LWP%s not counted "
	    "(out of file descriptors)",
	    p->uncounted, p->uncounted == 1 ? "" : "s");
	return p->partial;
}

void
track_exec(
    struct track_proc *p, id_t lwpid, const char *args, const char *image)
{
	struct row_lwp who = track_who(p, lwpid, p->pid);

	row_exec(p->ct, &who, p->acc, args, image, partial_of(p));
	setgrp_reset(p->acc);
	p->uncounted = 0;
}

void
track_rename(struct track_proc *p, const char *image)
{
	strlcpy(p->comm, image, sizeof(p->comm));
}

void
track_exit(struct track_proc *p, const struct row_lwp *who, int status)
{
	if (p->started)
		p->ct->command_status = status;
	row_totals(p->ct, who, "exit", p->acc, partial_of(p));
}
