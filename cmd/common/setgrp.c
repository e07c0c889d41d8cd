/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Set groups: see setgrp.h. A clone's sets are all bound for as long as
 * its LWP or CPU is counted, so a turn costs two ioctls and no event is
 * lost between turns; a set keeps its value across its turns, and each
 * sample takes the difference from the previous one of the same set.
 */
#include <errno.h>
#include <stdlib.h>

#include "diag.h"
#include "setgrp.h"

/* One spec's set in a clone, and what it has counted. */
struct slot {
	cpc_set_t	*set;
	cpc_buf_t	*last;		/* at the previous sample */
	cpc_buf_t	*now;		/* the latest sample */
	cpc_buf_t	*slice;		/* now - last */
	cpc_buf_t	*total;		/* the sum of the slices */
	struct set_times last_times, slice_times, total_times;
	bool		 had_turn;	/* has counted: its rows are due */
	bool		 sampled;
};

struct setgrp {
	cpc_t		*cpc;
	bool		 is_master;
	struct spec	**specs;	/* the master's, shared by its clones */
	cpc_set_t	**templates;	/* the master's: to size buffers */
	int		  nsets;
	struct slot	*slots;		/* a clone's, nsets of them */
	bool		  has_sets;	/* a clone with sets to bind */
	bool		  bound;
	int		  current;
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
	templates = reallocarray(g->templates, (size_t)g->nsets + 1,
	    sizeof(*templates));
	if (templates == NULL)
		return -1;
	g->templates = templates;
	g->specs[g->nsets] = spec;
	g->templates[g->nsets] = template;
	g->nsets++;
	return 0;
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
	return 0;
}

int
setgrp_nsets(const setgrp_t *g)
{
	return g->nsets;
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
slot_init(setgrp_t *g, const setgrp_t *master, struct slot *sl, int s)
{
	cpc_set_t *sizer = master->templates[s];
	cpc_t *cpc = g->cpc;

	if (g->has_sets &&
	    (sl->set = spec_build_set(cpc, master->specs[s])) == NULL)
		return -1;
	if ((sl->last = cpc_buf_create(cpc, sizer)) == NULL ||
	    (sl->now = cpc_buf_create(cpc, sizer)) == NULL ||
	    (sl->slice = cpc_buf_create(cpc, sizer)) == NULL ||
	    (sl->total = cpc_buf_create(cpc, sizer)) == NULL)
		return -1;
	return 0;
}

static setgrp_t *
clone(const setgrp_t *master, bool has_sets)
{
	setgrp_t *g;
	int s;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	g->cpc = master->cpc;
	g->specs = master->specs;
	g->nsets = master->nsets;
	g->has_sets = has_sets;
	if ((g->slots = calloc((size_t)g->nsets, sizeof(*g->slots))) == NULL)
		goto fail;
	for (s = 0; s < g->nsets; s++)
		if (slot_init(g, master, &g->slots[s], s) != 0)
			goto fail;
	return g;
fail:
	setgrp_free(g);
	errno = ENOMEM;
	return NULL;
}

setgrp_t *
setgrp_clone(const setgrp_t *master)
{
	return clone(master, true);
}

setgrp_t *
setgrp_accumulator(const setgrp_t *master)
{
	return clone(master, false);
}

static void
slot_free(cpc_t *cpc, struct slot *sl)
{
	cpc_buf_t *bufs[] = { sl->last, sl->now, sl->slice, sl->total };
	size_t i;

	for (i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		if (bufs[i] != NULL)
			(void)cpc_buf_destroy(cpc, bufs[i]);
	if (sl->set != NULL)
		(void)cpc_set_destroy(cpc, sl->set);
}

void
setgrp_free(setgrp_t *g)
{
	int s;

	if (g == NULL)
		return;
	if (g->is_master) {
		for (s = 0; s < g->nsets; s++) {
			(void)cpc_set_destroy(g->cpc, g->templates[s]);
			spec_free(g->specs[s]);
		}
		free(g->templates);
		free(g->specs);
	} else if (g->slots != NULL) {
		for (s = 0; s < g->nsets; s++)
			slot_free(g->cpc, &g->slots[s]);
		free(g->slots);
	}
	free(g);
}

/* Bind every set through bind(set, flags), the current one counting. */
static int
bind_all(setgrp_t *g, int (*bind)(setgrp_t *, cpc_set_t *, uint_t,
    const void *), const void *target)
{
	int s, saved;

	for (s = 0; s < g->nsets; s++) {
		if (bind(g, g->slots[s].set, s == g->current ? 0 :
		    CPC_BIND_STANDBY, target) != 0)
			goto fail;
	}
	g->bound = true;
	g->slots[g->current].had_turn = true;
	return 0;
fail:
	saved = errno;
	while (s-- > 0)
		(void)cpc_unbind(g->cpc, g->slots[s].set);
	errno = saved;
	return -1;
}

struct pctx_target {
	pctx_t	*pctx;
	id_t	 lwpid;
};

static int
bind_pctx(setgrp_t *g, cpc_set_t *set, uint_t flags, const void *target)
{
	const struct pctx_target *t = target;

	return cpc_bind_pctx(g->cpc, t->pctx, t->lwpid, set, flags);
}

static int
bind_cpu(setgrp_t *g, cpc_set_t *set, uint_t flags, const void *target)
{
	return cpc_bind_cpu(g->cpc, *(const int *)target, set, flags);
}

int
setgrp_bind_pctx(setgrp_t *g, pctx_t *pctx, id_t lwpid)
{
	struct pctx_target t = { pctx, lwpid };

	return bind_all(g, bind_pctx, &t);
}

int
setgrp_bind_cpu(setgrp_t *g, int cpu)
{
	return bind_all(g, bind_cpu, &cpu);
}

void
setgrp_unbind(setgrp_t *g)
{
	int s;

	if (!g->bound)
		return;
	/* In reverse: a CPU binding gives back the affinity it found. */
	for (s = g->nsets - 1; s >= 0; s--)
		(void)cpc_unbind(g->cpc, g->slots[s].set);
	g->bound = false;
}

int
setgrp_current(const setgrp_t *g)
{
	return g->current;
}

/* The slice of a slot whose latest sample is in now, and its times. */
static void
take_slice(setgrp_t *g, struct slot *sl, uint64_t enabled, uint64_t running,
    bool add)
{
	cpc_buf_sub(g->cpc, sl->slice, sl->now, sl->last);
	cpc_buf_copy(g->cpc, sl->last, sl->now);
	sl->slice_times.enabled_ns = enabled - sl->last_times.enabled_ns;
	sl->slice_times.running_ns = running - sl->last_times.running_ns;
	sl->last_times.enabled_ns = enabled;
	sl->last_times.running_ns = running;
	if (!add)
		return;
	cpc_buf_add(g->cpc, sl->total, sl->total, sl->slice);
	sl->total_times.enabled_ns += sl->slice_times.enabled_ns;
	sl->total_times.running_ns += sl->slice_times.running_ns;
	sl->sampled = true;
}

/* Sample set s: what it counted since its previous sample. */
static int
sample_slot(setgrp_t *g, struct slot *sl, bool add)
{
	uint64_t enabled, running;

	if (cpc_set_sample(g->cpc, sl->set, sl->now) != 0)
		return -1;
	(void)cpc_set_times(g->cpc, sl->set, &enabled, &running);
	take_slice(g, sl, enabled, running, add);
	return 0;
}

void
setgrp_sample_counts(setgrp_t *g, int s, const uint64_t *values,
    const struct set_times *t, hrtime_t when)
{
	struct slot *sl = &g->slots[s];
	int i;

	for (i = 0; i < g->specs[s]->nreqs; i++)
		(void)cpc_buf_set(g->cpc, sl->now, i, values[i]);
	cpc_buf_set_time(g->cpc, sl->now, when, t->enabled_ns);
	sl->had_turn = true;
	take_slice(g, sl, t->enabled_ns, t->running_ns, true);
}

void
setgrp_set_current(setgrp_t *g, int s)
{
	g->current = s;
	g->slots[s].had_turn = true;
}

int
setgrp_sample(setgrp_t *g)
{
	return sample_slot(g, &g->slots[g->current], true);
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

int
setgrp_rotate(setgrp_t *g)
{
	int next = (g->current + 1) % g->nsets;

	if (next == g->current)
		return 0;
	if (cpc_set_switch(g->cpc, g->slots[g->current].set,
	    g->slots[next].set) != 0)
		return -1;
	g->current = next;
	g->slots[next].had_turn = true;
	return 0;
}

cpc_buf_t *
setgrp_slice(const setgrp_t *g, int s)
{
	return g->slots[s].slice;
}

const struct set_times *
setgrp_slice_times(const setgrp_t *g, int s)
{
	return &g->slots[s].slice_times;
}

cpc_buf_t *
setgrp_total(const setgrp_t *g, int s)
{
	return g->slots[s].total;
}

const struct set_times *
setgrp_total_times(const setgrp_t *g, int s)
{
	return &g->slots[s].total_times;
}

bool
setgrp_sampled(const setgrp_t *g, int s)
{
	return g->slots[s].sampled;
}

void
setgrp_accumulate(setgrp_t *acc, const setgrp_t *g)
{
	struct slot *a;
	const struct slot *sl;
	int s;

	for (s = 0; s < acc->nsets; s++) {
		a = &acc->slots[s];
		sl = &g->slots[s];
		if (!sl->sampled)
			continue;
		cpc_buf_add(acc->cpc, a->total, a->total, sl->total);
		a->total_times.enabled_ns += sl->total_times.enabled_ns;
		a->total_times.running_ns += sl->total_times.running_ns;
		a->sampled = true;
	}
}

void
setgrp_reset(setgrp_t *acc)
{
	struct slot *a;
	int s;

	for (s = 0; s < acc->nsets; s++) {
		a = &acc->slots[s];
		cpc_buf_zero(acc->cpc, a->total);
		a->total_times = (struct set_times){ 0 };
		a->sampled = false;
	}
}
