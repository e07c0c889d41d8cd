/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A row's metrics (see metric_plan.h): each shown metric evaluated on the
 * counts of its own group, as perf evaluates it; the metrics it reads
 * evaluated once a group; thresholds, then the tree's marks: a node under
 * a parent whose threshold is not crossed is hidden, and the bottleneck is
 * the crossed node reached from the largest crossed root through the
 * largest crossed child at each level (toplev's "<==").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metric_plan_impl.h"
#include "spec.h"

int
plan_eval_init(struct metric_plan *p)
{
	size_t ne = (size_t)p->nevents + 1, nn = (size_t)p->nnodes + 1;
	size_t ng = (size_t)p->ngroups + 1;
	int i, j, t;

	p->slots = calloc(ne * PLAN_SLOTS_PER_EVENT, sizeof(double));
	p->req_of = calloc(ne * ng, sizeof(int));
	p->memo = calloc(nn, sizeof(double));
	p->known = calloc(nn, sizeof(bool));
	p->order = calloc((size_t)p->nshown + 1, sizeof(int));
	if (!p->slots || !p->req_of || !p->memo || !p->known || !p->order)
		return -1;
	/* The shown metrics by group: each group's counts loaded once. */
	for (i = 0; i < p->nshown; i++)
		p->order[i] = i;
	for (i = 1; i < p->nshown; i++)
		for (j = i; j > 0 &&
		     p->nodes[p->shown_node[p->order[j]]].group <
			 p->nodes[p->shown_node[p->order[j - 1]]].group;
		     j--) {
			t = p->order[j];
			p->order[j] = p->order[j - 1];
			p->order[j - 1] = t;
		}
	return 0;
}

void
plan_eval_fini(struct metric_plan *p)
{
	free(p->slots);
	free(p->req_of);
	free(p->memo);
	free(p->known);
	free(p->order);
}

/*
 * Each group's counter of each event: its own instance, or else the
 * event's first (a metric of no group reads those).
 */
static void
map_requests(struct metric_plan *p)
{
	int g, e, i, first;

	for (e = 0; e < p->nevents; e++) {
		first = -1;
		for (i = 0; i < p->ninst && first < 0; i++)
			if (p->inst[i].event == e)
				first = p->inst[i].request;
		for (g = 0; g <= p->ngroups; g++)
			p->req_of[g * p->nevents + e] = first;
	}
	for (i = 0; i < p->ninst; i++)
		p->req_of[p->inst[i].group * p->nevents + p->inst[i].event] =
		    p->inst[i].request;
}

bool
metric_counter_is(const char *counter, const char *name)
{
	size_t n = strlen(name);

	if (strcmp(counter, name) == 0)
		return true;
	/* A run's modes on an event the formula names bare (task-clock:uk). */
	return strchr(name, ':') == NULL && strncmp(counter, name, n) == 0 &&
	    counter[n] == ':' && counter[n + 1] != '\0' &&
	    strspn(counter + n + 1, "ukhHGI") == strlen(counter + n + 1);
}

int
metric_plan_bind(
    struct metric_plan *p, const struct spec *spec, char *err, size_t len)
{
	bool *used = calloc((size_t)spec->nreqs + 1, sizeof(bool));
	/* The plan's events end the set: a -c set they joined leads. */
	int base = spec->nreqs - p->ninst, i, k, r;

	if (used == NULL) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (i = 0; i < p->ninst; i++) {
		const char *want = p->events[p->inst[i].event].spec;

		r = -1;
		if (base >= 0 && strcmp(spec->reqs[base + i].event, want) == 0)
			r = base + i;
		for (k = 0; r < 0 && k < spec->nreqs; k++)
			if (!used[k] && strcmp(spec->reqs[k].event, want) == 0)
				r = k;
		/* A record's set (--input): its counters by their names. */
		for (k = 0; r < 0 && k < spec->nreqs; k++)
			if (metric_counter_is(spec->reqs[k].name,
				p->events[p->inst[i].event].name))
				r = k;
		if (r < 0) {
			snprintf(err, len, "the metrics' set has no counter %s",
			    want);
			free(used);
			return -1;
		}
		used[r] = true;
		p->inst[i].request = r;
	}
	free(used);
	map_requests(p);
	return 0;
}

/* Group g's counts of every event into the frame's slots. */
static void
load_group(struct metric_plan *p, int g, const struct metric_counts *in)
{
	double *s;
	int e, req;

	for (e = 0; e < p->nevents; e++) {
		s = &p->slots[e * PLAN_SLOTS_PER_EVENT];
		req = p->req_of[g * p->nevents + e];
		s[1] = 1;
		s[2] = in->cpus > 0 ? in->cpus : 1;
		if (p->events[e].tool)
			s[0] = in->elapsed_s;
		else if (req < 0 || req >= in->nvalues)
			s[0] = NAN;
		else {
			s[0] = (double)in->values[req];
			if (in->sources != NULL)
				s[1] = in->sources[req];
		}
	}
	memset(p->known, 0, (size_t)p->nnodes * sizeof(bool));
}

struct frame_ctx {
	struct metric_plan *p;
	struct formula_frame frame;
};

static double
node_value(void *arg, int k)
{
	struct frame_ctx *c = arg;
	struct metric_plan *p = c->p;

	if (k < 0 || k >= p->nnodes || p->nodes[k].expr == NULL)
		return NAN;
	if (!p->known[k]) {
		p->known[k] = true;
		p->memo[k] = NAN; /* a formula that reads itself: none */
		p->memo[k] = formula_eval(p->nodes[k].expr, &c->frame);
	}
	return p->memo[k];
}

/* Shown metric i's value and threshold, on the loaded counts. */
static void
eval_shown(
    struct metric_plan *p, int i, struct frame_ctx *c, struct metric_value *out)
{
	int k = p->shown_node[i];
	double t;

	out->value = node_value(c, k) * p->shown[i].scale;
	out->crossed = -1;
	if (p->nodes[k].threshold != NULL) {
		t = formula_eval(p->nodes[k].threshold, &c->frame);
		out->crossed = isnan(t) ? -1 : t != 0;
	}
}

/* The bottleneck: from the largest crossed root, the largest crossed
 * child at each level, down to the last. */
static void
mark_bottleneck(const struct metric_plan *p, struct metric_value *out)
{
	int at = -1, best, i;

	do {
		best = -1;
		for (i = 0; i < p->nshown; i++)
			if (p->shown[i].parent == at && p->shown[i].level > 0 &&
			    out[i].crossed == 1 && !out[i].hidden &&
			    (best < 0 || out[i].value > out[best].value))
				best = i;
		if (best >= 0)
			at = best;
	} while (best >= 0);
	if (at >= 0)
		out[at].bottleneck = true;
}

void
metric_plan_eval(const struct metric_plan *cp, const struct metric_counts *in,
    bool show_all, struct metric_value *out)
{
	struct metric_plan *p = (struct metric_plan *)cp;
	struct frame_ctx c = { p,
		{ p->slots, p->nevents * PLAN_SLOTS_PER_EVENT, node_value,
		    NULL } };
	int i, j, g, loaded = -1, parent;

	c.frame.ctx = &c;
	for (i = 0; i < p->nshown; i++) {
		out[i].value = NAN;
		out[i].crossed = -1;
		out[i].hidden = false;
		out[i].bottleneck = false;
	}
	for (j = 0; in->counted && j < p->nshown; j++) {
		i = p->order[j];
		g = p->nodes[p->shown_node[i]].group;
		if (g != loaded) {
			load_group(p, g, in);
			loaded = g;
		}
		eval_shown(p, i, &c, &out[i]);
	}
	for (i = 0; !show_all && i < p->nshown; i++) {
		parent = p->shown[i].parent;
		out[i].hidden = parent >= 0 &&
		    (out[parent].crossed == 0 || out[parent].hidden);
	}
	mark_bottleneck(p, out);
}
