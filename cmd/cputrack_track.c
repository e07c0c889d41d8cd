/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tracking model both engines share (cputrack_track.h): the records
 * of the processes and LWPs, and the rows of their events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cputrack_track.h"
#include "procname.h"

struct track_proc *
track_proc_new(struct cputrack *ct, pid_t pid, const char *comm, size_t size)
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
	p->started = p->key == 1 && ct->opt.command != NULL;
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
track_exec_follow(const struct track_proc *p, const char *args, bool followed)
{
	enum exec_follow how = EXEC_NOT_FOLLOWED;

	if (followed)
		how = p->ct->opt.follow_exec ? EXEC_FOLLOWED :
					       EXEC_FOLLOWED_EARLY;
	exec_say(p->pid, args, how);
}

void
track_exit(struct track_proc *p, const struct row_lwp *who, int status)
{
	if (p->started)
		p->ct->command_status = status;
	row_totals(p->ct, who, "exit", p->acc, partial_of(p));
}

void
track_fork(struct cputrack *ct, const struct track_proc *p, pid_t ppid,
    id_t lwpid, pid_t child, hrtime_t when)
{
	struct row_lwp parent = { ppid, lwpid, -1, p != NULL ? p->comm : NULL,
		p != NULL ? p->key : 0 };

	row_fork(ct, &parent, child, when);
}

void
track_leave(struct track_proc *p, const struct row_lwp *who)
{
	row_totals(p->ct, who, "leave", p->acc, partial_of(p));
}

struct track_lwp *
track_lwp_new(struct track_proc *p, id_t lwpid, pid_t tid,
    enum track_counting how, size_t size)
{
	struct track_lwp *l;

	if ((l = calloc(1, size)) == NULL)
		return NULL;
	l->grp = how == TRACK_BOUND ? setgrp_clone(p->ct->specs) :
				      setgrp_accumulator(p->ct->specs);
	if (l->grp == NULL) {
		free(l);
		return NULL;
	}
	l->proc = p;
	l->who = track_who(p, lwpid, tid);
	return l;
}

void
track_lwp_free(struct track_lwp *l)
{
	setgrp_free(l->grp);
	free(l);
}

void
track_lwp_uncounted(struct track_lwp *l)
{
	setgrp_free(l->grp);
	l->grp = NULL;
	l->finished = true;
}

void
track_lwp_started(const struct track_lwp *l, const struct set_counts *c)
{
	if (c != NULL && l->proc->ct->opt.verbose)
		row_counts(l->proc->ct, &l->who, "init_lwp", c->set, c);
}

void
track_lwp_created(const struct track_lwp *l, int set)
{
	row_counts(
	    l->proc->ct, &l->who, "lwp_create", set, setgrp_total(l->grp, set));
}

void
track_lwp_tick(const struct track_lwp *l, const struct set_counts *c,
    unsigned long intervals)
{
	row_tick(l->proc->ct, &l->who, c->set, c, intervals);
}

void
track_lwp_last_tick(const struct track_lwp *l, const struct set_counts *c)
{
	row_counts(l->proc->ct, &l->who, "tick", c->set, c);
}

void
track_lwp_final(struct track_lwp *l)
{
	struct cputrack *ct = l->proc->ct;
	int c = setgrp_current(l->grp);

	if (ct->opt.verbose)
		row_counts(ct, &l->who, "fini_lwp", c, setgrp_total(l->grp, c));
	setgrp_accumulate(l->proc->acc, l->grp);
	l->finished = true;
}

void
track_lwp_exit(const struct track_lwp *l)
{
	row_totals(l->proc->ct, &l->who, "lwp_exit", l->grp, NULL);
}

int
track_lwp_order(const struct track_lwp *a, const struct track_lwp *b)
{
	const struct row_lwp *x = &a->who, *y = &b->who;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->lwpid > y->lwpid) - (x->lwpid < y->lwpid);
}

void
track_not_counted(
    struct cputrack *ct, const struct row_lwp *who, const char *why)
{
	int s;

	for (s = 0; s < ct->nsets; s++)
		row_not_counted(ct, who, "init_lwp", s, why);
}
