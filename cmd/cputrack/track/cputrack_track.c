/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tracking model both engines share (cputrack_track.h): the records
 * of the processes and LWPs, and the rows of their events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cputrack_track.h"
#include "diag.h"
#include "procname.h"

static void
started_process(struct output *out, pid_t pid, const char *comm)
{
	char *own = proc_cgroup(getpid());

	output_process(out, pid, comm, own);
	free(own);
}

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
	/*
	 * A fork's child (its name known) starts in its parent's cgroup; a
	 * started command in this one's, which it had no time to leave
	 * before its exec (it may have since, as the engine tells late).
	 */
	if (p->started)
		started_process(ct->out, pid, p->comm);
	else if (comm == NULL)
		output_process(ct->out, pid, p->comm, NULL);
	return p;
}

static void
forget_all_ended(struct track_proc *p)
{
	while (p->nended > 0)
		setgrp_free(p->ended[--p->nended].totals);
}

static int
by_lwpid(const void *a, const void *b)
{
	id_t x = ((const struct track_ended *)a)->who.lwpid,
	     y = ((const struct track_ended *)b)->who.lwpid;

	return (x > y) - (x < y);
}

/* The LWPs the image's end took: their rows where more than one. */
static void
rows_of_ended(struct track_proc *p)
{
	int i;

	if (p->nended > 1)
		qsort(p->ended, (size_t)p->nended, sizeof(*p->ended), by_lwpid);
	for (i = 0; p->nended > 1 && i < p->nended; i++)
		row_totals(p->ct, &p->ended[i].who, "lwp_exit",
		    p->ended[i].totals, NULL);
	forget_all_ended(p);
}

/* Keep an LWP's final totals until its image's end says them. */
static void
keep_ended(struct track_lwp *l)
{
	struct track_proc *p = l->proc;
	struct track_ended *grown, *e;
	int n;

	if (p->nended == p->ended_room) {
		n = p->ended_room > 0 ? 2 * p->ended_room : 8;
		if ((grown = reallocarray(
			 p->ended, (size_t)n, sizeof(*grown))) == NULL)
			return; /* its totals are still in the image's */
		p->ended = grown;
		p->ended_room = n;
	}
	e = &p->ended[p->nended];
	if ((e->totals = setgrp_accumulator(p->ct->specs)) == NULL)
		return;
	setgrp_accumulate(e->totals, l->grp);
	e->who = l->who;
	p->nended++;
}

/* An LWP kept by keep_ended has had a row of its own after all. */
static void
forget_ended(struct track_proc *p, const struct track_lwp *l)
{
	int i;

	for (i = p->nended - 1; i >= 0; i--)
		if (p->ended[i].who.lwpid == l->who.lwpid) {
			setgrp_free(p->ended[i].totals);
			p->ended[i] = p->ended[--p->nended];
			return;
		}
}

void
track_proc_free(struct track_proc *p)
{
	if (p == NULL)
		return;
	forget_all_ended(p);
	free(p->ended);
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

	rows_of_ended(p);
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
	rows_of_ended(p);
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
	rows_of_ended(p);
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

int
track_lwp_recount(struct track_lwp *l)
{
	if ((l->grp = setgrp_accumulator(l->proc->ct->specs)) == NULL)
		return -1;
	l->finished = false;
	return 0;
}

void
track_lwp_started(const struct track_lwp *l, const struct set_counts *c)
{
	if (c != NULL && l->proc->ct->opt.verbose)
		row_counts(l->proc->ct, &l->who, "init_lwp", c->set, c);
}

/*
 * The live view makes no use of a creation's row: a thread shows from
 * its first tick or its end, and a churning target makes one per thread.
 */
void
track_lwp_created(const struct track_lwp *l, int set)
{
	if (l->proc->ct->opt.top)
		return;
	row_counts(
	    l->proc->ct, &l->who, "lwp_create", set, setgrp_total(l->grp, set));
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
	keep_ended(l);
}

void
track_lwp_exit(const struct track_lwp *l)
{
	forget_ended(l->proc, l);
	row_totals(l->proc->ct, &l->who, "lwp_exit", l->grp, NULL);
}

int
track_batch_add(struct track_batch *b, struct track_lwp *l,
    const struct set_counts *c, unsigned long intervals)
{
	struct track_batch_lwp *room;
	size_t n;

	if (b->n == b->room) {
		n = b->room * 2 + 64;
		if ((room = reallocarray(b->lwps, n, sizeof(*room))) == NULL) {
			diag(NULL, "no memory available\n");
			return -1;
		}
		b->lwps = room;
		b->room = n;
	}
	b->lwps[b->n++] = (struct track_batch_lwp) { l, c, intervals };
	return 0;
}

static int
rows_order(const void *a, const void *b)
{
	const struct row_lwp *x =
	    &((const struct track_batch_lwp *)a)->lwp->who;
	const struct row_lwp *y =
	    &((const struct track_batch_lwp *)b)->lwp->who;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->lwpid > y->lwpid) - (x->lwpid < y->lwpid);
}

/* Whether the engine gathered it in order already, as libpctx walks. */
static bool
in_order(const struct track_batch *b)
{
	size_t i;

	for (i = 1; i < b->n; i++)
		if (rows_order(&b->lwps[i - 1], &b->lwps[i]) > 0)
			return false;
	return true;
}

/* An empty batch may have no array, and qsort wants one. */
void
track_batch_order(struct track_batch *b)
{
	if (b->n > 1 && !in_order(b))
		qsort(b->lwps, b->n, sizeof(*b->lwps), rows_order);
}

void
track_tick(struct track_batch *b)
{
	const struct track_batch_lwp *e;
	size_t i;

	track_batch_order(b);
	for (i = 0; i < b->n; i++) {
		e = &b->lwps[i];
		row_tick(e->lwp->proc->ct, &e->lwp->who, e->counts->set,
		    e->counts, e->intervals);
	}
	b->n = 0;
}

void
track_last_tick(struct track_batch *b)
{
	const struct track_batch_lwp *e;
	size_t i;

	track_batch_order(b);
	for (i = 0; i < b->n; i++) {
		e = &b->lwps[i];
		row_counts(e->lwp->proc->ct, &e->lwp->who, "tick",
		    e->counts->set, e->counts);
	}
	b->n = 0;
}

void
track_batch_free(struct track_batch *b)
{
	free(b->lwps);
	*b = (struct track_batch) { NULL, 0, 0 };
}

void
track_not_counted(
    struct cputrack *ct, const struct row_lwp *who, const char *why)
{
	int s;

	for (s = 0; s < ct->nsets; s++)
		row_not_counted(ct, who, "init_lwp", s, why);
}

void
track_lwp_exit_uncounted(const struct track_lwp *l, const char *why)
{
	struct cputrack *ct = l->proc->ct;
	int s;

	for (s = 0; s < ct->nsets; s++)
		row_not_counted(ct, &l->who, "lwp_exit", s, why);
}
