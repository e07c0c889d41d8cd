/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -r N: a started command run N times. Each run's value of an event is
 * the tree's total: what every process of it counted, summed from their
 * total rows (exit, and exec for an image left). After the runs, per set
 * and event, the mean of those values, perf stat's "+- x%" (the standard
 * error of the mean relative to it), the least and the greatest.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cputrack.h"
#include "diag.h"

/* One event of a set: this run's total, and the runs' so far. */
struct event_runs {
	uint64_t now;
	unsigned n; /* runs that counted it */
	double sum;
	double sumsq;
	uint64_t min;
	uint64_t max;
};

struct repeat {
	int nsets;
	int *nreqs;
	bool *counted_now;	    /* per set: this run has a total */
	struct event_runs **events; /* per set, per request */
};

struct repeat *
repeat_new(const setgrp_t *specs)
{
	struct repeat *rp;
	int s;

	if ((rp = calloc(1, sizeof(*rp))) == NULL)
		return NULL;
	rp->nsets = setgrp_nsets(specs);
	rp->nreqs = calloc((size_t)rp->nsets, sizeof(*rp->nreqs));
	rp->counted_now = calloc((size_t)rp->nsets, sizeof(bool));
	rp->events = calloc((size_t)rp->nsets, sizeof(*rp->events));
	if (rp->nreqs == NULL || rp->counted_now == NULL ||
	    rp->events == NULL) {
		repeat_free(rp);
		return NULL;
	}
	for (s = 0; s < rp->nsets; s++) {
		rp->nreqs[s] = setgrp_spec(specs, s)->nreqs;
		rp->events[s] =
		    calloc((size_t)rp->nreqs[s], sizeof(struct event_runs));
		if (rp->events[s] == NULL) {
			repeat_free(rp);
			return NULL;
		}
	}
	return rp;
}

void
repeat_free(struct repeat *rp)
{
	int s;

	if (rp == NULL)
		return;
	for (s = 0; rp->events != NULL && s < rp->nsets; s++)
		free(rp->events[s]);
	free(rp->events);
	free(rp->counted_now);
	free(rp->nreqs);
	free(rp);
}

void
repeat_add(struct repeat *rp, int set, const uint64_t *values)
{
	int r;

	rp->counted_now[set] = true;
	for (r = 0; r < rp->nreqs[set]; r++)
		rp->events[set][r].now += values[r];
}

void
repeat_end_run(struct repeat *rp)
{
	struct event_runs *e;
	int s, r;

	for (s = 0; s < rp->nsets; s++) {
		for (r = 0; r < rp->nreqs[s]; r++) {
			e = &rp->events[s][r];
			if (rp->counted_now[s]) {
				if (e->n == 0 || e->now < e->min)
					e->min = e->now;
				if (e->n == 0 || e->now > e->max)
					e->max = e->now;
				e->n++;
				e->sum += (double)e->now;
				e->sumsq += (double)e->now * (double)e->now;
			}
			e->now = 0;
		}
		rp->counted_now[s] = false;
	}
}

static struct out_runs_stat
stat_of(const struct event_runs *e)
{
	struct out_runs_stat st = {
		.mean = e->sum / e->n,
		.rse_pct = -1,
		.min = e->min,
		.max = e->max,
	};
	double var;

	if (e->n > 1 && st.mean > 0) {
		var = (e->sumsq - e->n * st.mean * st.mean) / (e->n - 1);
		st.rse_pct =
		    100 * sqrt(var > 0 ? var : 0) / sqrt(e->n) / st.mean;
	} else if (e->n > 1) {
		st.rse_pct = 0;
	}
	return st;
}

void
repeat_write(const struct repeat *rp, struct output *out)
{
	struct out_runs_stat *stats;
	int s, r;

	for (s = 0; s < rp->nsets; s++) {
		/* Every event of a set counts in the same runs. */
		if (rp->nreqs[s] == 0 || rp->events[s][0].n == 0)
			continue;
		if ((stats = calloc((size_t)rp->nreqs[s], sizeof(*stats))) ==
		    NULL) {
			diag(NULL, "no memory available\n");
			return;
		}
		for (r = 0; r < rp->nreqs[s]; r++)
			stats[r] = stat_of(&rp->events[s][r]);
		output_summary(out,
		    &(struct out_summary) {
			.runs = rp->events[s][0].n,
			.setno = s,
			.stats = stats,
		    });
		free(stats);
	}
}
