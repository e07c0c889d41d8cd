/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Set groups: see setgrp.h. A clone's sets are all bound for as long as
 * its LWP or CPU is counted; a set keeps its value across its turns, and
 * each sample takes the difference from the previous one of the same set.
 * A clone freed is kept by its master, its sets unbound, and the next
 * clone asked for is that one, its counts zeroed: a thread's sets are
 * then built and checked once, not for every thread.
 *
 * Sets whose events have no counter limit (software events, tracepoints,
 * probes) are bound together, as one joint set in one perf group that
 * counts all the time. A turn is then bookkeeping at one read of that
 * group: what each set's events counted from the read that began its turn
 * to the read that ended it. Nothing falls between two turns or in both.
 * Sets of hardware events take turns on the PMU's counters instead: the
 * next starts before the current stops (cpc_set_switch), and what the LWP
 * does in between is counted by both; on a CPU whose PMU the sets hold
 * (cpustat without --shared) the current stops first, and what happens
 * in between is in neither.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "count_estimate.h"
#include "setgrp.h"

#define MAX_SPARES 64 /* freed clones a master keeps, of each kind */

/*
 * An accumulator's set of several groups, fed with each group's times
 * (setgrp_sample_groups): each value's estimate added up step by step,
 * as libcpc adds up a scaled set's (cpc_set_scale); a value waits for a
 * step until its group has run again. The set's times add up its longest
 * enabled group's time, and for running that less the longest wait of a
 * group, as libcpc's do.
 */
struct group_steps {
	int *group;		/* per value: its request's group */
	uint64_t *raw;		/* per value: its count at its last step */
	uint64_t *estimate;	/* per value */
	struct set_times *step; /* per group: its times at its last step */
	struct set_times *seen; /* per group: at the last sample */
	struct set_times acc;
	int ngroups;
};

/* One spec's set in a clone, and what it has counted. */
struct slot {
	cpc_set_t *set;
	cpc_buf_t *now;		/* a bound set's latest sample */
	uint64_t *last;		/* the values at the previous sample */
	uint64_t *slice_values; /* the slice's and the total's */
	uint64_t *total_values;
	hrtime_t last_when;
	hrtime_t last_from; /* the clock just before that sample's read */
	hrtime_t turn_from; /* the current set's: its turn's start */
	/*
	 * A switched set counts from its last sample's read until the switch
	 * stops it: that time is its next slice's, with what it counted.
	 */
	uint64_t carried_ns;
	uint64_t last_tick;
	struct set_times last_times;
	struct set_counts slice; /* now - last */
	struct set_counts total; /* the sum of the slices */
	bool had_turn;		 /* has counted: its rows are due */
	bool sampled;
	/*
	 * In a joint set: while its turn lasts, what the set counted is the
	 * joint reading less origin; between turns it is held.
	 */
	uint64_t *origin, *held;
	struct set_times origin_times, held_times;
	hrtime_t held_when;
	struct group_steps *steps; /* an accumulator's of several groups */
};

struct setgrp {
	cpc_t *cpc;
	bool is_master;
	setgrp_t *master;     /* a clone's */
	setgrp_t *next_spare; /* a freed clone's, in its master */
	setgrp_t *spares[2];  /* a master's: accumulators, counting */
	int nspares[2];
	struct spec **specs;   /* the master's, shared by its clones */
	cpc_set_t **templates; /* the master's: to size buffers */
	int nsets;
	struct slot *slots; /* a clone's, nsets of them */
	bool has_sets;	    /* a clone with sets to bind */
	bool joint;	    /* its sets count at once: see above */
	int **joint_at;	    /* the master's: per spec, each request's
			       place in the joint set */
	int njoint_at;	    /* specs joint_at has room for */
	bool bound;
	int current;
	cpc_set_t *joint_set; /* a joint clone's one set */
	cpc_buf_t *reading;   /* the joint set's latest sample */
	struct set_times reading_times;
	hrtime_t reading_from; /* the clock just before it was read */
};

setgrp_t *
setgrp_new(cpc_t *cpc)
{
	setgrp_t *g;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	g->cpc = cpc;
	g->is_master = true;
	return g;
}

static int
master_grow(setgrp_t *g, struct spec *spec, cpc_set_t *template)
{
	struct spec **specs;
	cpc_set_t **templates;

	specs = reallocarray(g->specs, (size_t)g->nsets + 1, sizeof(*specs));
	if (specs == NULL)
		return -1;
	g->specs = specs;
	templates = reallocarray(
	    g->templates, (size_t)g->nsets + 1, sizeof(*templates));
	if (templates == NULL)
		return -1;
	g->templates = templates;
	g->specs[g->nsets] = spec;
	g->templates[g->nsets] = template;
	g->nsets++;
	return 0;
}

/*
 * A request's attributes but the picnum spec_parse puts last: it names a
 * counter of the PMU, which events of unlimited kind do not take.
 */
static uint_t
attrs_but_pic(const struct spec_req *r)
{
	if (r->nattrs > 0 &&
	    strcmp(r->attrs[r->nattrs - 1].ca_name, "picnum") == 0)
		return r->nattrs - 1;
	return r->nattrs;
}

/* Whether two requests count the same, whatever pic they were given. */
static bool
same_request(const struct spec_req *a, const struct spec_req *b)
{
	uint_t k, n = attrs_but_pic(a);

	if (strcmp(a->event, b->event) != 0 || a->flags != b->flags ||
	    n != attrs_but_pic(b))
		return false;
	for (k = 0; k < n; k++)
		if (strcmp(a->attrs[k].ca_name, b->attrs[k].ca_name) != 0 ||
		    a->attrs[k].ca_val != b->attrs[k].ca_val)
			return false;
	return true;
}

/* Where an earlier spec than s asked for request r: its joint place. */
static int
earlier_place(const setgrp_t *g, int s, const struct spec_req *r)
{
	int t, j;

	for (t = 0; t < s; t++)
		for (j = 0; j < g->specs[t]->nreqs; j++)
			if (same_request(&g->specs[t]->reqs[j], r))
				return g->joint_at[t][j];
	return -1;
}

/* Events the kernel counts with no limit on how many count at once. */
static bool
unlimited_kind(const char *kind)
{
	static const char *const kinds[] = { "software", "tracepoint", "kprobe",
		"uprobe" };
	size_t i;

	for (i = 0; kind != NULL && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kind, kinds[i]) == 0)
			return true;
	return false;
}

const char *
setgrp_first_breakpoint(const setgrp_t *g)
{
	const char *kind;
	int s, r;

	for (s = 0; s < g->nsets; s++)
		for (r = 0; r < g->specs[s]->nreqs; r++)
			if ((kind = cpc_event_kind(
				 g->cpc, g->specs[s]->reqs[r].event)) != NULL &&
			    strcmp(kind, "breakpoint") == 0)
				return g->specs[s]->reqs[r].event;
	return NULL;
}

bool
setgrp_counts_breakpoints(const setgrp_t *g)
{
	return setgrp_first_breakpoint(g) != NULL;
}

int
setgrp_limited_groups(const setgrp_t *g, int s)
{
	const struct spec *spec = g->specs[s];
	int i, j, n = 0;

	for (i = 0; i < spec->nreqs; i++) {
		if (unlimited_kind(cpc_event_kind(g->cpc, spec->reqs[i].event)))
			continue;
		for (j = 0; j < i; j++)
			if (spec->reqs[j].group == spec->reqs[i].group &&
			    !unlimited_kind(
				cpc_event_kind(g->cpc, spec->reqs[j].event)))
				break;
		n += j == i;
	}
	return n;
}

static void
joint_at_free(setgrp_t *g)
{
	int s;

	for (s = 0; s < g->njoint_at; s++)
		free(g->joint_at[s]);
	free(g->joint_at);
	g->joint_at = NULL;
	g->njoint_at = 0;
}

/*
 * Whether the master's sets can be bound as one joint set (more than one
 * set, every event of unlimited kind, no more distinct requests than a
 * set holds), and if so each request's place in it, for every clone.
 */
static bool
plan_joint(setgrp_t *g)
{
	const struct spec_req *r;
	int s, i, n = 0;

	joint_at_free(g);
	if (g->nsets < 2 || getenv("CPCTOOLS_SET_SWITCH") != NULL ||
	    (g->joint_at = calloc((size_t)g->nsets, sizeof(int *))) == NULL)
		return false;
	g->njoint_at = g->nsets;
	for (s = 0; s < g->nsets; s++) {
		if ((g->joint_at[s] = calloc(
			 (size_t)g->specs[s]->nreqs, sizeof(int))) == NULL)
			goto no;
		for (i = 0; i < g->specs[s]->nreqs; i++) {
			r = &g->specs[s]->reqs[i];
			if (!unlimited_kind(cpc_event_kind(g->cpc, r->event)))
				goto no;
			if ((g->joint_at[s][i] = earlier_place(g, s, r)) < 0)
				g->joint_at[s][i] = n++;
		}
	}
	if (n <= (int)cpc_npic(g->cpc))
		return true;
no:
	joint_at_free(g);
	return false;
}

int
setgrp_add(setgrp_t *g, const char *text)
{
	enum spec_error err;
	struct spec *spec;
	cpc_set_t *template;

	if ((spec = spec_parse(g->cpc, text, &err)) == NULL) {
		if (err == SPEC_UNCOUNTABLE)
			return 2;
		if (err != SPEC_NOMEM)
			return -1;
		diag(NULL, "no memory available\n");
		return 1;
	}
	if ((template = spec_build_set(g->cpc, spec)) == NULL ||
	    master_grow(g, spec, template) != 0) {
		if (template != NULL)
			(void)cpc_set_destroy(g->cpc, template);
		spec_free(spec);
		diag(NULL, "no memory available\n");
		return 1;
	}
	g->joint = plan_joint(g);
	return 0;
}

/* The master's set s, and its template, released. */
static void
master_drop(setgrp_t *g, int s)
{
	if (g->templates[s] != NULL)
		(void)cpc_set_destroy(g->cpc, g->templates[s]);
	spec_free(g->specs[s]);
}

int
setgrp_join_last(setgrp_t *g, int s)
{
	int last = g->nsets - 1;
	enum spec_error err;
	struct spec *spec;
	cpc_set_t *template = NULL;
	char *text;

	if (asprintf(&text, "%s,%s", g->specs[s]->text, g->specs[last]->text) <
	    0) {
		diag(NULL, "no memory available\n");
		return 1;
	}
	spec = spec_parse(g->cpc, text, &err);
	free(text);
	if (spec == NULL && err != SPEC_NOMEM)
		return err == SPEC_UNCOUNTABLE ? 2 : -1;
	if (spec == NULL || (template = spec_build_set(g->cpc, spec)) == NULL) {
		spec_free(spec);
		diag(NULL, "no memory available\n");
		return 1;
	}
	master_drop(g, s);
	master_drop(g, last);
	g->specs[s] = spec;
	g->templates[s] = template;
	g->nsets--;
	g->joint = plan_joint(g);
	return 0;
}

int
setgrp_nsets(const setgrp_t *g)
{
	return g->nsets;
}

bool
setgrp_joint(const setgrp_t *g)
{
	return g->joint;
}

int
setgrp_check(const setgrp_t *g, int cpuid)
{
	int s, n, bad = 0;

	for (s = 0; s < g->nsets; s++)
		bad += (n = spec_check(g->cpc, g->specs[s], cpuid)) < 0 ? 1 : n;
	return bad;
}

const struct spec *
setgrp_spec(const setgrp_t *g, int s)
{
	return g->specs[s];
}

static int
steps_init(struct slot *sl, const struct spec *spec)
{
	struct group_steps *gs;
	size_t nvalues = (size_t)spec_nvalues(spec);
	int v;

	if ((sl->steps = gs = calloc(1, sizeof(*gs))) == NULL ||
	    (gs->group = calloc(nvalues, sizeof(int))) == NULL ||
	    (gs->raw = calloc(2 * nvalues, sizeof(uint64_t))) == NULL ||
	    (gs->step = calloc(
		 2 * (size_t)spec->ngroups, sizeof(struct set_times))) == NULL)
		return -1;
	gs->estimate = gs->raw + nvalues;
	gs->seen = gs->step + spec->ngroups;
	gs->ngroups = spec->ngroups;
	for (v = 0; v < (int)nvalues; v++)
		gs->group[v] =
		    spec_group_index(spec, spec_value_request(spec, v));
	return 0;
}

static void
steps_free(struct group_steps *gs)
{
	if (gs == NULL)
		return;
	free(gs->group);
	free(gs->raw);
	free(gs->step);
	free(gs);
}

static void
steps_zero(struct group_steps *gs, size_t nvalues)
{
	memset(gs->raw, 0, 2 * nvalues * sizeof(uint64_t));
	memset(gs->step, 0, 2 * (size_t)gs->ngroups * sizeof(*gs->step));
	gs->acc = (struct set_times) { 0 };
}

static int
slot_init(setgrp_t *g, const setgrp_t *master, struct slot *sl, int s)
{
	size_t nreqs = (size_t)master->specs[s]->nreqs,
	       nvalues = (size_t)spec_nvalues(master->specs[s]);
	cpc_t *cpc = g->cpc;

	if (g->has_sets && !g->joint &&
	    (sl->set = spec_build_set(cpc, master->specs[s])) == NULL)
		return -1;
	if (g->joint &&
	    ((sl->origin = calloc(nreqs, sizeof(uint64_t))) == NULL ||
		(sl->held = calloc(nreqs, sizeof(uint64_t))) == NULL))
		return -1;
	if (sl->set != NULL &&
	    (sl->now = cpc_buf_create(cpc, master->templates[s])) == NULL)
		return -1;
	if ((sl->last = calloc(3 * nvalues, sizeof(uint64_t))) == NULL)
		return -1;
	if (!g->has_sets && master->specs[s]->ngroups > 1 &&
	    steps_init(sl, master->specs[s]) != 0)
		return -1;
	sl->slice.values = sl->slice_values = sl->last + nvalues;
	sl->total.values = sl->total_values = sl->last + 2 * nvalues;
	sl->slice.set = sl->total.set = s;
	return 0;
}

/*
 * A slot counts from zero again. Written, not left to calloc, for a
 * clone made: a sample into fresh pages would fault after its read, and a
 * page-fault counter would count that in the caller's interval.
 */
static void
slot_zero(const setgrp_t *g, struct slot *sl, int s)
{
	size_t nreqs = (size_t)g->specs[s]->nreqs,
	       nvalues = (size_t)spec_nvalues(g->specs[s]);

	memset(sl->last, 0, 3 * nvalues * sizeof(uint64_t));
	if (sl->steps != NULL)
		steps_zero(sl->steps, nvalues);
	if (sl->origin != NULL) {
		memset(sl->origin, 0, nreqs * sizeof(uint64_t));
		memset(sl->held, 0, nreqs * sizeof(uint64_t));
	}
	sl->last_when = sl->last_from = sl->held_when = sl->turn_from = 0;
	sl->carried_ns = 0;
	sl->last_tick = 0;
	sl->last_times = sl->origin_times = sl->held_times =
	    (struct set_times) { 0 };
	sl->slice.when = sl->total.when = 0;
	sl->slice.since = sl->total.since = 0;
	sl->slice.tick = sl->total.tick = 0;
	sl->slice.times = sl->total.times = (struct set_times) { 0 };
	sl->slice.span_ns = sl->total.span_ns = 0;
	sl->slice.turn_ns = sl->total.turn_ns = 0;
	sl->had_turn = sl->sampled = false;
}

/*
 * Every spec's requests, in spec order, in one set, without their
 * picnums; a request that an earlier spec asked for too is counted once,
 * by one perf event (plan_joint), so that a turn's end and the next one's
 * start are one value.
 */
static int
joint_init(setgrp_t *g)
{
	const struct spec_req *r;
	int s, i, n = 0;

	if ((g->joint_set = cpc_set_create(g->cpc)) == NULL)
		return -1;
	for (s = 0; s < g->nsets; s++) {
		for (i = 0; i < g->specs[s]->nreqs; i++) {
			if (g->joint_at[s][i] < n)
				continue;
			r = &g->specs[s]->reqs[i];
			if (cpc_set_add_request(g->cpc, g->joint_set, r->event,
				0, r->flags, attrs_but_pic(r), r->attrs) < 0)
				return -1;
			n++;
		}
	}
	return (g->reading = cpc_buf_create(g->cpc, g->joint_set)) == NULL ?
	    -1 :
	    0;
}

static void clone_free(setgrp_t *g);

static setgrp_t *
clone_new(setgrp_t *master, bool has_sets)
{
	setgrp_t *g;
	int s;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	g->cpc = master->cpc;
	g->master = master;
	g->specs = master->specs;
	g->nsets = master->nsets;
	g->has_sets = has_sets;
	g->joint = has_sets && master->joint;
	g->joint_at = master->joint_at;
	if ((g->slots = calloc((size_t)g->nsets, sizeof(*g->slots))) == NULL)
		goto fail;
	for (s = 0; s < g->nsets; s++)
		if (slot_init(g, master, &g->slots[s], s) != 0)
			goto fail;
	if (g->joint && joint_init(g) != 0)
		goto fail;
	return g;
fail:
	clone_free(g);
	errno = ENOMEM;
	return NULL;
}

/* A clone the master kept, or a new one; its counts start from zero. */
static setgrp_t *
clone_of(setgrp_t *master, bool has_sets)
{
	setgrp_t *g = master->spares[has_sets];
	int s;

	if (g == NULL && (g = clone_new(master, has_sets)) == NULL)
		return NULL;
	if (g == master->spares[has_sets]) {
		master->spares[has_sets] = g->next_spare;
		master->nspares[has_sets]--;
	}
	for (s = 0; s < g->nsets; s++)
		slot_zero(g, &g->slots[s], s);
	g->current = 0;
	return g;
}

setgrp_t *
setgrp_clone(setgrp_t *master)
{
	return clone_of(master, true);
}

setgrp_t *
setgrp_accumulator(setgrp_t *master)
{
	return clone_of(master, false);
}

static void
clone_free(setgrp_t *g)
{
	struct slot *sl;
	int s;

	for (s = 0; g->slots != NULL && s < g->nsets; s++) {
		sl = &g->slots[s];
		if (sl->now != NULL)
			(void)cpc_buf_destroy(g->cpc, sl->now);
		if (sl->set != NULL)
			(void)cpc_set_destroy(g->cpc, sl->set);
		free(sl->last);
		free(sl->origin);
		free(sl->held);
		steps_free(sl->steps);
	}
	free(g->slots);
	if (g->reading != NULL)
		(void)cpc_buf_destroy(g->cpc, g->reading);
	if (g->joint_set != NULL)
		(void)cpc_set_destroy(g->cpc, g->joint_set);
	free(g);
}

static void
master_free(setgrp_t *g)
{
	setgrp_t *spare;
	int s, kind;

	for (kind = 0; kind < 2; kind++)
		while ((spare = g->spares[kind]) != NULL) {
			g->spares[kind] = spare->next_spare;
			clone_free(spare);
		}
	for (s = 0; s < g->nsets; s++)
		master_drop(g, s);
	joint_at_free(g);
	free(g->templates);
	free(g->specs);
	free(g);
}

int
setgrp_add_spec(setgrp_t *g, struct spec *spec)
{
	return master_grow(g, spec, NULL);
}

void
setgrp_free(setgrp_t *g)
{
	setgrp_t *master;

	if (g == NULL)
		return;
	if (g->is_master) {
		master_free(g);
		return;
	}
	master = g->master;
	if (master->nspares[g->has_sets] >= MAX_SPARES) {
		clone_free(g);
		return;
	}
	setgrp_unbind(g);
	g->next_spare = master->spares[g->has_sets];
	master->spares[g->has_sets] = g;
	master->nspares[g->has_sets]++;
}

/*
 * A joint set starts from zero: the current set's turn begins there, and
 * its count goes on from what it held.
 */
static void
joint_start(setgrp_t *g)
{
	struct slot *sl = &g->slots[g->current];
	int i;

	for (i = 0; i < g->specs[g->current]->nreqs; i++)
		sl->origin[i] = -sl->held[i];
	sl->origin_times.enabled_ns = -sl->held_times.enabled_ns;
	sl->origin_times.running_ns = -sl->held_times.running_ns;
	cpc_buf_zero(g->cpc, g->reading);
	g->reading_times = (struct set_times) { 0 };
}

/*
 * Every slot's first slice starts at the bind: taken just before it, so
 * that a slice's span holds all it counted (the rows' elapsed time).
 */
static void
bound_at(setgrp_t *g, const struct timespec *before)
{
	setgrp_started_at(
	    g, (hrtime_t)before->tv_sec * 1000000000LL + before->tv_nsec);
	g->bound = true;
}

void
setgrp_started_at(setgrp_t *g, hrtime_t when)
{
	int s;

	for (s = 0; s < g->nsets; s++)
		g->slots[s].last_when = g->slots[s].last_from = when;
	g->slots[g->current].turn_from = when;
	g->slots[g->current].had_turn = true;
}

/* Bind every set through bind(set, flags), the current one counting. */
static int
bind_all(setgrp_t *g,
    int (*bind)(setgrp_t *, cpc_set_t *, uint_t, const void *),
    const void *target)
{
	struct timespec before;
	int s, saved;

	clock_gettime(CLOCK_MONOTONIC, &before);
	if (g->joint) {
		if (bind(g, g->joint_set, 0, target) != 0)
			return -1;
		joint_start(g);
		bound_at(g, &before);
		return 0;
	}
	for (s = 0; s < g->nsets; s++) {
		if (bind(g, g->slots[s].set,
			s == g->current ? 0 : CPC_BIND_STANDBY, target) != 0)
			goto fail;
	}
	bound_at(g, &before);
	return 0;
fail:
	saved = errno;
	while (s-- > 0)
		(void)cpc_unbind(g->cpc, g->slots[s].set);
	errno = saved;
	return -1;
}

struct pctx_target {
	pctx_t *pctx;
	id_t lwpid;
};

static int
bind_pctx(setgrp_t *g, cpc_set_t *set, uint_t flags, const void *target)
{
	const struct pctx_target *t = target;

	return cpc_bind_pctx(g->cpc, t->pctx, t->lwpid, set, flags);
}

struct cpu_target {
	int cpu;
	uint_t flags; /* CPC_BIND_SHARED, CPC_BIND_EXCLUSIVE or 0 */
};

static int
bind_cpu(setgrp_t *g, cpc_set_t *set, uint_t flags, const void *target)
{
	const struct cpu_target *t = target;

	return cpc_bind_cpu(g->cpc, t->cpu, set, flags | t->flags);
}

int
setgrp_bind_pctx(setgrp_t *g, pctx_t *pctx, id_t lwpid)
{
	struct pctx_target t = { pctx, lwpid };

	return bind_all(g, bind_pctx, &t);
}

int
setgrp_bind_cpu(setgrp_t *g, int cpu, uint_t hold_flags)
{
	struct cpu_target t = { cpu, hold_flags };

	return bind_all(g, bind_cpu, &t);
}

void
setgrp_unbind(setgrp_t *g)
{
	int s;

	if (!g->bound)
		return;
	if (g->joint)
		(void)cpc_unbind(g->cpc, g->joint_set);
	/* In reverse: a CPU binding gives back the affinity it found. */
	for (s = g->nsets - 1; s >= 0 && !g->joint; s--)
		(void)cpc_unbind(g->cpc, g->slots[s].set);
	g->bound = false;
}

int
setgrp_current(const setgrp_t *g)
{
	return g->current;
}

/* Add what a span counted, of n values, into the slot's total. */
static void
add_to_total(struct slot *sl, const struct set_counts *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sl->total_values[i] += c->values[i];
	if (c->when > sl->total.when)
		sl->total.when = c->when;
	/* The earliest start; one not known makes the total's unknown. */
	if (!sl->sampled || c->since == 0 ||
	    (sl->total.since != 0 && c->since < sl->total.since))
		sl->total.since = c->since;
	sl->total.tick += c->tick;
	sl->total.times.enabled_ns += c->times.enabled_ns;
	sl->total.times.running_ns += c->times.running_ns;
	sl->total.span_ns += c->span_ns;
	sl->total.turn_ns += c->turn_ns;
	sl->sampled = true;
}

static hrtime_t
clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * A slice's wall-clock time, and how much of it was the set's turn: what
 * its last turn carried past its sample to the switch, and, if it is the
 * set in use, from when its turn began or the slice's first read did, the
 * later.
 */
static void
slice_wall(const setgrp_t *g, struct slot *sl)
{
	struct set_counts *slice = &sl->slice;
	hrtime_t start = sl->last_from;

	slice->span_ns = slice->turn_ns = 0;
	if (slice->since == 0)
		return;
	slice->span_ns = (uint64_t)(slice->when - slice->since);
	slice->turn_ns = sl->carried_ns;
	sl->carried_ns = 0;
	if (slice->set != g->current)
		return;
	if (sl->turn_from > start)
		start = sl->turn_from;
	if (slice->when > start)
		slice->turn_ns += (uint64_t)(slice->when - start);
	/*
	 * A turn that began before the read that opened the slice held all
	 * of it, and no more: that read's own time is the last slice's.
	 */
	if (slice->turn_ns > slice->span_ns)
		slice->turn_ns = slice->span_ns;
}

/*
 * A set's latest sample: its values, their time (the clock after the
 * read), tick and times, and the clock before the read (0: not taken,
 * when stands for it).
 */
struct sample {
	const uint64_t *values;
	hrtime_t when;
	uint64_t tick;
	struct set_times times;
	hrtime_t from;
};

/*
 * The slice of a slot from its previous sample to s, and into the total
 * when add. s's values may be the slice's own: each is read before the
 * slice's is written.
 */
static void
take_slice(setgrp_t *g, struct slot *sl, const struct sample *s, bool add)
{
	struct set_counts *slice = &sl->slice;
	uint64_t v;
	int i, n = spec_nvalues(g->specs[slice->set]);

	for (i = 0; i < n; i++) {
		v = s->values[i];
		sl->slice_values[i] = v - sl->last[i];
		sl->last[i] = v;
	}
	slice->since = sl->last_when;
	slice->when = s->when > sl->last_when ? s->when : sl->last_when;
	slice_wall(g, sl);
	slice->tick = s->tick - sl->last_tick;
	slice->times.enabled_ns =
	    s->times.enabled_ns - sl->last_times.enabled_ns;
	slice->times.running_ns =
	    s->times.running_ns - sl->last_times.running_ns;
	sl->last_when = s->when;
	sl->last_from = s->from != 0 ? s->from : s->when;
	sl->last_tick = s->tick;
	sl->last_times = s->times;
	if (add)
		add_to_total(sl, slice, n);
}

/* Read the joint set: what each set's turn is measured against. */
static int
joint_read(setgrp_t *g)
{
	/*
	 * The next set's turn begins at this reading: its clock taken before
	 * the read, so that the turn holds all that set counts.
	 */
	g->reading_from = clock_now();
	if (cpc_set_sample(g->cpc, g->joint_set, g->reading) != 0)
		return -1;
	(void)cpc_set_times(g->cpc, g->joint_set, &g->reading_times.enabled_ns,
	    &g->reading_times.running_ns);
	return 0;
}

/* The joint reading's value of request i of set s. */
static uint64_t
reading_of(const setgrp_t *g, int s, int i)
{
	uint64_t v = 0;

	(void)cpc_buf_get(g->cpc, g->reading, g->joint_at[s][i], &v);
	return v;
}

/*
 * What a set of a joint clone has counted: for the current set, up to a
 * new reading; for another, what it held when its last turn ended.
 */
static int
joint_sample_slot(setgrp_t *g, struct slot *sl, bool add)
{
	int s = (int)(sl - g->slots), i;
	struct sample now;

	if (s == g->current) {
		if (joint_read(g) != 0)
			return -1;
		for (i = 0; i < g->specs[s]->nreqs; i++)
			sl->held[i] = reading_of(g, s, i) - sl->origin[i];
		sl->held_times.enabled_ns =
		    g->reading_times.enabled_ns - sl->origin_times.enabled_ns;
		sl->held_times.running_ns =
		    g->reading_times.running_ns - sl->origin_times.running_ns;
		sl->held_when = cpc_buf_hrtime(g->cpc, g->reading);
	}
	now = (struct sample) { sl->held, sl->held_when,
		cpc_tick_of(g->cpc, sl->held_times.enabled_ns), sl->held_times,
		s == g->current ? g->reading_from : 0 };
	take_slice(g, sl, &now, add);
	return 0;
}

/*
 * The joint set's next turn begins at its latest reading, where the
 * current one's ended: the next set's count goes on from what it held.
 */
static void
joint_rotate(setgrp_t *g, int next)
{
	struct slot *sl = &g->slots[next];
	int i;

	for (i = 0; i < g->specs[next]->nreqs; i++)
		sl->origin[i] = reading_of(g, next, i) - sl->held[i];
	sl->origin_times.enabled_ns =
	    g->reading_times.enabled_ns - sl->held_times.enabled_ns;
	sl->origin_times.running_ns =
	    g->reading_times.running_ns - sl->held_times.running_ns;
	sl->turn_from = g->reading_from;
}

/* A sample's values, then each parted request's parts: see spec.h. */
static void
read_buf(setgrp_t *g, const struct spec *spec, cpc_buf_t *buf, uint64_t *to)
{
	const struct spec_req *r;
	int i, k;

	for (i = 0; i < spec->nreqs; i++)
		(void)cpc_buf_get(g->cpc, buf, i, &to[i]);
	for (i = 0; spec->nparts > 0 && i < spec->nreqs; i++)
		for (k = 0; k < spec->nparts; k++)
			if (!spec->reqs[i].parted ||
			    cpc_buf_get_part(g->cpc, buf, i, k,
				&to[spec->nreqs + i * spec->nparts + k]) != 0)
				to[spec->nreqs + i * spec->nparts + k] = 0;
	for (i = 0; spec->nboxes > 0 && i < spec->nreqs; i++)
		for (r = &spec->reqs[i], k = 0; k < r->nboxes; k++)
			if (cpc_buf_get_box(
				g->cpc, buf, i, k, &to[r->box_first + k]) != 0)
				to[r->box_first + k] = 0;
}

/* Sample set s: what it counted since its previous sample. */
static int
sample_slot(setgrp_t *g, struct slot *sl, bool add)
{
	struct sample now = { sl->slice_values, 0, 0, { 0, 0 }, 0 };

	if (g->joint)
		return joint_sample_slot(g, sl, add);
	/* Sets taking turns: a turn holds the whole read (slice_wall). */
	if (g->nsets > 1)
		now.from = clock_now();
	if (cpc_set_sample(g->cpc, sl->set, sl->now) != 0)
		return -1;
	read_buf(g, g->specs[sl->slice.set], sl->now, sl->slice_values);
	now.when = cpc_buf_hrtime(g->cpc, sl->now);
	now.tick = cpc_buf_tick(g->cpc, sl->now);
	(void)cpc_set_times(
	    g->cpc, sl->set, &now.times.enabled_ns, &now.times.running_ns);
	take_slice(g, sl, &now, add);
	return 0;
}

void
setgrp_sample_counts(setgrp_t *g, int s, const uint64_t *values,
    const struct set_times *t, hrtime_t when)
{
	struct slot *sl = &g->slots[s];
	struct sample now = { values, when, cpc_tick_of(g->cpc, t->enabled_ns),
		*t, 0 };

	sl->had_turn = true;
	take_slice(g, sl, &now, true);
}

/* The set's times since the last sample, added up (struct group_steps). */
static void
steps_times(struct group_steps *gs, const struct set_times *t)
{
	uint64_t enabled = 0, wait = 0, en, ru;
	bool unrun = false;
	int k;

	for (k = 0; k < gs->ngroups; k++) {
		en = t[k].enabled_ns - gs->seen[k].enabled_ns;
		ru = t[k].running_ns - gs->seen[k].running_ns;
		if (en > enabled)
			enabled = en;
		if (en > ru && en - ru > wait)
			wait = en - ru;
		unrun |= en > 0 && ru == 0;
		gs->seen[k] = t[k];
	}
	gs->acc.enabled_ns += enabled;
	if (!unrun)
		gs->acc.running_ns += enabled - wait;
}

/* Each value's step, where its group has run since its last one. */
static void
steps_estimates(struct group_steps *gs, int nvalues, const uint64_t *raw,
    const struct set_times *t)
{
	const struct set_times *was;
	int v, k;

	for (v = 0; v < nvalues; v++) {
		k = gs->group[v];
		was = &gs->step[k];
		if (t[k].running_ns <= was->running_ns)
			continue;
		gs->estimate[v] += count_estimate(raw[v] - gs->raw[v],
		    t[k].enabled_ns - was->enabled_ns,
		    t[k].running_ns - was->running_ns);
		gs->raw[v] = raw[v];
	}
	for (k = 0; k < gs->ngroups; k++)
		if (t[k].running_ns > gs->step[k].running_ns)
			gs->step[k] = t[k];
}

void
setgrp_sample_groups(setgrp_t *g, int s, const uint64_t *values,
    const struct set_times *t, hrtime_t when)
{
	struct slot *sl = &g->slots[s];
	struct group_steps *gs = sl->steps;

	if (gs == NULL) {
		setgrp_sample_counts(g, s, values, &t[0], when);
		return;
	}
	steps_estimates(gs, spec_nvalues(g->specs[s]), values, t);
	steps_times(gs, t);
	setgrp_sample_counts(g, s, gs->estimate, &gs->acc, when);
}

void
setgrp_set_current(setgrp_t *g, int s)
{
	if (s != g->current)
		g->slots[s].turn_from = g->slots[g->current].last_when;
	g->current = s;
	g->slots[s].had_turn = true;
}

const struct set_counts *
setgrp_sample(setgrp_t *g)
{
	struct slot *sl = &g->slots[g->current];

	return sample_slot(g, sl, true) == 0 ? &sl->slice : NULL;
}

int
setgrp_sample_all(setgrp_t *g)
{
	int s;

	for (s = 0; s < g->nsets; s++)
		if (g->slots[s].had_turn &&
		    sample_slot(g, &g->slots[s], true) != 0)
			return -1;
	return 0;
}

int
setgrp_rebase(setgrp_t *g)
{
	return sample_slot(g, &g->slots[g->current], false);
}

/*
 * The switch stops the current set only after its sample: what it counts
 * from that read on is in its next slice, and so is the time, from just
 * before the read to once it has stopped.
 */
static int
switch_sets(setgrp_t *g, int next)
{
	struct slot *from = &g->slots[g->current];
	hrtime_t stopped;

	if (cpc_set_switch(g->cpc, from->set, g->slots[next].set) != 0)
		return -1;
	stopped = clock_now();
	if (from->last_from != 0 && stopped > from->last_from)
		from->carried_ns += (uint64_t)(stopped - from->last_from);
	return 0;
}

int
setgrp_rotate(setgrp_t *g)
{
	int next = (g->current + 1) % g->nsets;

	if (next == g->current)
		return 0;
	/*
	 * Its turn begins at the current set's latest sample, which the
	 * switch follows; a joint set's, at that sample's read.
	 */
	g->slots[next].turn_from = g->slots[g->current].last_when;
	if (g->joint)
		joint_rotate(g, next);
	else if (switch_sets(g, next) != 0)
		return -1;
	g->current = next;
	g->slots[next].had_turn = true;
	return 0;
}

const struct set_counts *
setgrp_slice(const setgrp_t *g, int s)
{
	return &g->slots[s].slice;
}

const struct set_counts *
setgrp_total(const setgrp_t *g, int s)
{
	return &g->slots[s].total;
}

bool
setgrp_sampled(const setgrp_t *g, int s)
{
	return g->slots[s].sampled;
}

uint64_t
setgrp_counted_ns(const struct set_counts *c)
{
	uint64_t span;

	if (c->since == 0 || c->when <= c->since || c->span_ns == 0)
		return 0;
	span = (uint64_t)(c->when - c->since);
	if (c->turn_ns == c->span_ns)
		return span;
	/* In double: span * turn_ns would overflow within hours. */
	return (
	    uint64_t)((double)span * ((double)c->turn_ns / (double)c->span_ns) +
	    0.5);
}

void
setgrp_accumulate(setgrp_t *acc, const setgrp_t *g)
{
	int s;

	for (s = 0; s < acc->nsets; s++)
		if (g->slots[s].sampled)
			add_to_total(&acc->slots[s], &g->slots[s].total,
			    spec_nvalues(acc->specs[s]));
}

void
setgrp_reset(setgrp_t *acc)
{
	int s;

	for (s = 0; s < acc->nsets; s++)
		slot_zero(acc, &acc->slots[s], s);
}
