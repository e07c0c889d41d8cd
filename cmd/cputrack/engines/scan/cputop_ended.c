/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputop's processes counted from outside: the tasks that ended between
 * two scans (see cputop_unseen.h). A reading of every sentinel's ring
 * gathers the tasks that ended since the last, then counts each task the
 * scan did not count itself, once, in the process it belongs to: its own
 * where the scan watches its pid (a thread of it), else the process whose
 * sentinel said it (a child, or a child's child). A task that inherited
 * several sentinels (a child of a watched child) is said by each: the
 * youngest sentinel's process, its nearest watched ancestor, takes it. A
 * task's records may be split over readings: later ones are then taken
 * from the sentinel the first's were, or not at all, for as long as a
 * part may wait for its rest (UNSEEN_PART_WAIT_NS).
 *
 * Its counts become an LWP of that process that is made and ends at
 * once: its lwp_exit row, which the view folds into the process's line,
 * and its totals in the process's, as those of any LWP that ended. A task
 * the scan counted itself, from the scan that found it, is kept the
 * record of its whole life, and at its end what it counted before that
 * scan (the whole less its own counters' totals) is such an LWP too: a
 * short task that a slow scan catches alive loses no count.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cputop_scan.h"

/* A task whose rest never came, to be said lost unless taken whole. */
static void
note_part(struct scan_track *st, const struct unseen_task *t)
{
	struct ended_part *grown;
	size_t room = st->parts_room;

	if (st->nparts == room) {
		room = room * 2 + 16;
		if ((grown = reallocarray(st->parts, room, sizeof(*grown))) ==
		    NULL) {
			st->lost += (unsigned long)t->missing;
			return;
		}
		st->parts = grown;
		st->parts_room = room;
	}
	st->parts[st->nparts++] = (struct ended_part) { t->tid, t->missing };
}

/* One set's counts of a task, as a sentinel said them: kept. */
static void
collect(void *arg, const struct unseen_task *t)
{
	struct scan_track *st = arg;
	size_t n = (size_t)st->eng[t->set].nattrs, room = st->ended_room;
	size_t g, ng = (size_t)engine_sets_groups(st->sets, t->set);
	/* A set opened as one group (joint) lends each group its times. */
	size_t said = (size_t)engine_counters_ngroups(&st->eng[t->set]);
	struct ended_task **grown, *e;
	struct set_times *times;

	if (t->missing > 0) {
		note_part(st, t);
		return;
	}
	if (st->nended == room) {
		room = room * 2 + 64;
		if ((grown = reallocarray(st->ended, room, sizeof(*grown))) ==
		    NULL) {
			scan_no_memory(st);
			return;
		}
		st->ended = grown;
		st->ended_room = room;
	}
	if ((e = malloc(sizeof(*e) + n * sizeof(uint64_t) +
		 ng * sizeof(*times))) == NULL) {
		scan_no_memory(st);
		return;
	}
	e->t = *t;
	memcpy(e->values, t->values, n * sizeof(uint64_t));
	times = (struct set_times *)(void *)(e->values + n);
	for (g = 0; g < ng; g++)
		times[g] = t->times[g < said ? g : 0];
	e->t.values = e->values;
	e->t.times = times;
	e->owner = st->reading;
	st->ended[st->nended++] = e;
}

/* By task, the youngest sentinel's first; one sentinel's together. */
static int
by_task(const void *a, const void *b)
{
	const struct ended_task *x = *(struct ended_task *const *)a;
	const struct ended_task *y = *(struct ended_task *const *)b;

	if (x->t.tid != y->t.tid)
		return x->t.tid < y->t.tid ? -1 : 1;
	if (x->owner->start != y->owner->start)
		return x->owner->start > y->owner->start ? -1 : 1;
	return (x->owner->base.key > y->owner->base.key) -
	    (x->owner->base.key < y->owner->base.key);
}

/* The sentinel's process a recent reading took tid from, or 0. */
static unsigned long
taken_before(const struct scan_track *st, pid_t tid)
{
	size_t lo = 0, hi = st->ntaken_before, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (st->taken_before[mid].tid == tid)
			return st->taken_before[mid].owner;
		if (st->taken_before[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void
note_taken(struct scan_track *st, pid_t tid, unsigned long owner, hrtime_t when)
{
	struct ended_taken *grown;
	size_t room = st->taken_room;

	if (st->ntaken == room) {
		room = room * 2 + 64;
		if ((grown = reallocarray(st->taken, room, sizeof(*grown))) ==
		    NULL)
			return; /* a split task's second part may count twice */
		st->taken = grown;
		st->taken_room = room;
	}
	st->taken[st->ntaken++] = (struct ended_taken) { tid, owner, when };
}

/*
 * The process a task's counts go to: the one of its pid where it is
 * watched, else the sentinel's; NULL, with the thread in *counted, where
 * the scan counted the task itself.
 */
static struct scan_proc *
home_of(const struct scan_track *st, const struct ended_task *e,
    struct scan_lwp **counted)
{
	struct scan_proc *p = scan_proc_of(st, e->t.pid);
	struct scan_lwp *l;

	*counted = NULL;
	if (p == NULL)
		return e->owner;
	l = scan_lwp_of(p, e->t.tid);
	if (l != NULL && l->fds != NULL) {
		*counted = l;
		return NULL;
	}
	return p;
}

static void
whole_free(struct lwp_whole *w)
{
	if (w == NULL)
		return;
	free(w->got);
	free(w->values);
	free(w->times);
	free(w);
}

void
scan_whole_free(struct scan_lwp *l)
{
	whole_free(l->whole);
	l->whole = NULL;
}

/* A counted thread's record of its whole life, made empty; or NULL. */
static struct lwp_whole *
whole_of(struct scan_track *st, struct scan_lwp *l)
{
	size_t n = (size_t)st->nsets;
	struct lwp_whole *w;

	if (l->whole != NULL)
		return l->whole;
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	w->got = calloc(n, sizeof(*w->got));
	w->times = calloc(n * (size_t)st->most_groups, sizeof(*w->times));
	w->values = calloc(n * (size_t)st->most_values, sizeof(*w->values));
	if (w->got == NULL || w->times == NULL || w->values == NULL) {
		whole_free(w);
		return NULL;
	}
	l->whole = w;
	return w;
}

/* A counted thread's whole life in the sets its records give, kept. */
static void
keep_whole(
    struct scan_track *st, struct scan_lwp *l, struct ended_task **e, size_t n)
{
	struct lwp_whole *w = whole_of(st, l);
	const uint64_t *v;
	size_t i;
	int s;

	for (i = 0; w != NULL && i < n; i++) {
		s = e[i]->t.set;
		v = engine_sets_values(st->sets, s, e[i]->values);
		memcpy(w->values + (size_t)s * (size_t)st->most_values, v,
		    (size_t)spec_nvalues(setgrp_spec(st->ct->specs, s)) *
			sizeof(uint64_t));
		memcpy(w->times + (size_t)s * (size_t)st->most_groups,
		    e[i]->t.times,
		    (size_t)engine_sets_groups(st->sets, s) *
			sizeof(*w->times));
		w->got[s] = true;
	}
}

/* One set's counts of the task into its LWP's sets. */
static void
sample_ended(struct scan_track *st, struct track_lwp *l,
    const struct ended_task *e, hrtime_t when)
{
	int s = e->t.set;

	setgrp_set_current(l->grp, s);
	engine_sets_sample(st->sets, l->grp, s, e->values, e->t.times, when);
}

/* The task's counts, n sets of them, as an LWP of p that ended. */
static void
count_ended(struct scan_track *st, struct scan_proc *p, struct ended_task **e,
    size_t n, hrtime_t when)
{
	struct track_lwp *l;
	size_t i;

	l = track_lwp_new(
	    &p->base, ++p->next_lwpid, e[0]->t.tid, TRACK_FED, sizeof(*l));
	if (l == NULL) {
		scan_no_memory(st);
		return;
	}
	setgrp_started_at(l->grp, st->scanned_at);
	for (i = 0; i < n; i++)
		sample_ended(st, l, e[i], when);
	track_lwp_final(l);
	track_lwp_exit(l);
	track_lwp_free(l);
}

/*
 * The records of one task (n, sorted): those of one sentinel, the one
 * taken before if any, else the youngest, counted.
 */
static void
take_task(struct scan_track *st, struct ended_task **e, size_t n, hrtime_t when)
{
	unsigned long owner = taken_before(st, e[0]->t.tid);
	struct scan_proc *home;
	struct scan_lwp *counted;
	size_t first = 0, k;

	while (owner != 0 && first < n && e[first]->owner->base.key != owner)
		first++;
	if (first == n)
		return;
	for (k = first; k < n && e[k]->owner == e[first]->owner; k++)
		continue;
	note_taken(st, e[first]->t.tid, e[first]->owner->base.key, when);
	if ((home = home_of(st, e[first], &counted)) != NULL)
		count_ended(st, home, e + first, k - first, when);
	else if (counted != NULL)
		keep_whole(st, counted, e + first, k - first);
}

/* By tid; of one tid, the latest first. */
static int
by_tid(const void *a, const void *b)
{
	const struct ended_taken *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->when < y->when) - (x->when > y->when);
}

/*
 * This reading's takes joined to the recent ones, sorted by tid, one
 * each; those older than a part may wait, let go.
 */
static void
keep_recent(struct scan_track *st, hrtime_t when)
{
	size_t i, n = 0, room = st->taken_before_room;
	struct ended_taken *grown, *r;

	if (st->ntaken_before + st->ntaken == 0)
		return;
	if (st->ntaken_before + st->ntaken > room) {
		room = (st->ntaken_before + st->ntaken) * 2;
		if ((grown = reallocarray(
			 st->taken_before, room, sizeof(*grown))) == NULL)
			return; /* a split task's later part may count twice */
		st->taken_before = grown;
		st->taken_before_room = room;
	}
	r = st->taken_before;
	if (st->ntaken > 0) { /* the recent ones are sorted already */
		memcpy(r + st->ntaken_before, st->taken,
		    st->ntaken * sizeof(*st->taken));
		st->ntaken_before += st->ntaken;
		qsort(r, st->ntaken_before, sizeof(*r), by_tid);
	}
	for (i = 0; i < st->ntaken_before; i++)
		if ((n == 0 || r[n - 1].tid != r[i].tid) &&
		    when - r[i].when < UNSEEN_PART_WAIT_NS)
			r[n++] = r[i];
	st->ntaken_before = n;
}

/*
 * The tasks whose rest never came: lost, but where another sentinel's
 * records gave the task whole.
 */
static void
count_parts_lost(struct scan_track *st)
{
	size_t i;

	for (i = 0; i < st->nparts; i++)
		if (taken_before(st, st->parts[i].tid) == 0)
			st->lost += (unsigned long)st->parts[i].missing;
	st->nparts = 0;
}

/* The tasks gathered, each counted once; then let go. */
static void
take_all(struct scan_track *st, hrtime_t when)
{
	size_t i, j;

	if (st->nended > 1)
		qsort(st->ended, st->nended, sizeof(*st->ended), by_task);
	st->ntaken = 0;
	for (i = 0; i < st->nended; i = j) {
		for (j = i + 1; j < st->nended &&
		     st->ended[j]->t.tid == st->ended[i]->t.tid;
		     j++)
			continue;
		take_task(st, st->ended + i, j - i, when);
	}
	for (i = 0; i < st->nended; i++)
		free(st->ended[i]);
	st->nended = 0;
	keep_recent(st, when);
	st->ntaken = 0;
	count_parts_lost(st);
}

void
scan_read_ended(struct scan_track *st, hrtime_t when)
{
	size_t i;

	for (i = 0; i < st->nprocs; i++) {
		if (st->procs[i]->unseen == NULL)
			continue;
		st->reading = st->procs[i];
		st->lost +=
		    unseen_read(st->procs[i]->unseen, when, collect, st);
	}
	st->reading = NULL;
	take_all(st, when);
}

/*
 * Whether a ring holds records past its head (pending) or is busy; of a
 * process gone (ending: its ring is read a last time now), or of any.
 */
static bool
any_ring(
    const struct scan_track *st, bool (*is)(const struct unseen *), bool ending)
{
	size_t i;

	for (i = 0; i < st->nprocs; i++)
		if (st->procs[i]->unseen != NULL &&
		    (!ending || st->procs[i]->gone) && is(st->procs[i]->unseen))
			return true;
	return false;
}

int
scan_rings_wait_ms(const struct scan_track *st)
{
	return any_ring(st, unseen_busy, false) ? BUSY_RING_READ_MS : -1;
}

void
scan_read_settled(struct scan_track *st, bool last)
{
	struct timespec pause = { 0, UNSEEN_PAST_WAIT_NS };
	size_t i;
	int tries;

	/* Each read takes what the one before saw: twice is enough. */
	for (tries = 0; tries < 3 && any_ring(st, unseen_pending, !last);
	     tries++) {
		(void)nanosleep(&pause, NULL);
		scan_read_ended(st, output_now());
	}
	for (i = 0; last && i < st->nprocs; i++)
		if (st->procs[i]->unseen != NULL)
			scan_drop_parts(st, st->procs[i]);
}

void
scan_drop_parts(struct scan_track *st, struct scan_proc *p)
{
	unseen_drop_parts(p->unseen, collect, st);
	count_parts_lost(st);
}

void
scan_ended_free(struct scan_track *st)
{
	size_t i;

	for (i = 0; i < st->nended; i++)
		free(st->ended[i]);
	free(st->ended);
	free(st->taken);
	free(st->taken_before);
	free(st->parts);
}

/* Set s's counts before the thread was found: whole less its own. */
static const uint64_t *
before_found(struct scan_track *st, const struct scan_lwp *l, int s)
{
	const struct set_counts *own = setgrp_total(l->base.grp, s);
	const uint64_t *whole =
	    l->whole->values + (size_t)s * (size_t)st->most_values;
	int i, n = spec_nvalues(setgrp_spec(st->ct->specs, s));
	uint64_t *d = st->before;

	for (i = 0; i < n; i++)
		d[i] =
		    whole[i] > own->values[i] ? whole[i] - own->values[i] : 0;
	return d;
}

void
scan_count_before(struct scan_track *st, struct scan_lwp *l, hrtime_t when)
{
	struct scan_proc *p = (struct scan_proc *)l->base.proc;
	struct track_lwp *b;
	int s;

	if (l->whole == NULL)
		return;
	b = track_lwp_new(
	    &p->base, ++p->next_lwpid, l->base.who.tid, TRACK_FED, sizeof(*b));
	if (b == NULL) {
		scan_no_memory(st);
		scan_whole_free(l);
		return;
	}
	setgrp_started_at(b->grp, st->scanned_at);
	for (s = 0; s < st->nsets; s++) {
		if (!l->whole->got[s] || !setgrp_sampled(l->base.grp, s))
			continue;
		setgrp_set_current(b->grp, s);
		engine_sets_sample_values(st->sets, b->grp, s,
		    before_found(st, l, s),
		    l->whole->times + (size_t)s * (size_t)st->most_groups,
		    when);
	}
	track_lwp_final(b);
	track_lwp_exit(b);
	track_lwp_free(b);
	scan_whole_free(l);
}
