/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The facts of a run that its records carry (see out_run.h).
 *
 * An event's unit is found from what it is, not from how it was spelled:
 * libcpc resolves the name, and the kernel's two clock events (cpu-clock,
 * task-clock, in any spelling) count nanoseconds, as does perf's
 * duration_time; everything else counts events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out_run.h"

static const char *
unit_of(cpc_t *cpc, const char *name)
{
	if (strcmp(name, "duration_time") == 0 ||
	    cpc_event_counts_ns(cpc, name) == 1)
		return "ns";
	return "count";
}

int
out_run_event(const struct out_run *run, const char *name)
{
	int i;

	for (i = 0; i < run->nevents; i++)
		if (strcmp(run->events[i].name, name) == 0)
			return i;
	return -1;
}

bool
out_run_is_clock(const struct out_run *run, const char *name)
{
	int i = out_run_event(run, name);

	return i >= 0 && strcmp(run->events[i].unit, "ns") == 0;
}

/* The specs, once: a row then finds its own with no call. */
static int
collect_specs(struct out_run *run)
{
	int s, n = setgrp_nsets(run->cfg.specs);

	if ((run->specs = calloc((size_t)n, sizeof(*run->specs))) == NULL)
		return -1;
	for (s = 0; s < n; s++)
		run->specs[s] = setgrp_spec(run->cfg.specs, s);
	run->nsets = n;
	return 0;
}

static int
collect_events(struct out_run *run)
{
	const struct spec *spec;
	struct out_event *grown;
	int s, r;

	for (s = 0; s < run->nsets; s++) {
		spec = run->specs[s];
		for (r = 0; r < spec->nreqs; r++) {
			if (out_run_event(run, spec->reqs[r].name) >= 0)
				continue;
			grown = reallocarray(run->events,
			    (size_t)run->nevents + 1, sizeof(*grown));
			if (grown == NULL)
				return -1;
			run->events = grown;
			grown[run->nevents].name = spec->reqs[r].name;
			grown[run->nevents].unit =
			    unit_of(run->cpc, spec->reqs[r].event);
			grown[run->nevents].scaled = evscale_read(run->cpc,
			    spec->reqs[r].event, &grown[run->nevents].scale);
			run->any_scaled |= grown[run->nevents].scaled;
			run->nevents++;
		}
	}
	return 0;
}

static int
metric_key(const struct out_run *run, const char *key)
{
	int i;

	for (i = 0; i < run->nmetric_keys; i++)
		if (strcmp(run->metric_keys[i], key) == 0)
			return i;
	return -1;
}

/* Whether a metric of ds reads the PMU's slots per cycle (Neoverse). */
static bool
needs_slots(const struct derived_set *ds)
{
	int u, i;

	for (u = 0; u < ds->nuses; u++)
		for (i = 0; i < ds->uses[u].expr.nnames; i++)
			if (ds->uses[u].input[i] == DERIVED_SLOTS)
				return true;
	return false;
}

/* --metrics, -M: what each set gives, planned once for every row. */
static int
collect_metrics(struct out_run *run)
{
	const struct derived_set *ds;
	const char **grown;
	int s, u;

	if (!run->cfg.metrics)
		return 0;
	run->derived = calloc((size_t)run->nsets, sizeof(*run->derived));
	if (run->derived == NULL)
		return -1;
	for (s = 0; s < run->nsets; s++) {
		ds = &run->derived[s];
		if (derived_plan(run->specs[s], run->cfg.mgroups,
			run->cfg.nmgroups, &run->derived[s]) != 0)
			return -1;
		if (needs_slots(ds))
			run->derived[s].slots = mgroup_core_slots(run->cpc);
		for (u = 0; u < ds->nuses; u++) {
			if (metric_key(run, ds->uses[u].key) >= 0)
				continue;
			grown = reallocarray(run->metric_keys,
			    (size_t)run->nmetric_keys + 1, sizeof(*grown));
			if (grown == NULL)
				return -1;
			run->metric_keys = grown;
			grown[run->nmetric_keys++] = ds->uses[u].key;
		}
	}
	return 0;
}

bool
out_run_metric(
    const struct out_run *run, const struct out_row *row, int i, double *value)
{
	const struct derived_set *ds;

	if (run->derived == NULL || row->setno < 0 ||
	    row->not_counted != NULL || row->values == NULL)
		return false;
	ds = &run->derived[row->setno];
	return i < ds->nuses &&
	    derived_value(
		ds, &ds->uses[i], row->values, row->elapsed_ns, value);
}

const struct out_event *
out_run_req_event(const struct out_run *run, int s, int i)
{
	int e = out_run_event(run, run->specs[s]->reqs[i].name);

	return e >= 0 ? &run->events[e] : NULL;
}

bool
out_run_scaled(
    const struct out_run *run, const struct out_row *row, int i, double *value)
{
	const struct out_event *e;

	if (!run->any_scaled || row->setno < 0 || row->not_counted != NULL ||
	    row->values == NULL ||
	    (e = out_run_req_event(run, row->setno, i)) == NULL || !e->scaled)
		return false;
	*value = evscale_value(&e->scale, row->values[i]);
	return true;
}

bool
out_run_scaled_rate(
    const struct out_run *run, const struct out_row *row, int i, double *value)
{
	const struct out_event *e;

	if (!out_run_scaled(run, row, i, value) || row->elapsed_ns == 0)
		return false;
	e = out_run_req_event(run, row->setno, i);
	*value = evscale_rate(&e->scale, row->values[i], row->elapsed_ns);
	return true;
}

bool
out_run_multiplexed(const struct out_row *row)
{
	return row->running_ns > 0 && row->running_ns < row->enabled_ns;
}

int
out_run_init(struct out_run *run, cpc_t *cpc, const struct out_config *cfg)
{
	memset(run, 0, sizeof(*run));
	run->cfg = *cfg;
	run->cpc = cpc;
	run->tool = cfg->tool == OUT_CPUTRACK ? "cputrack" : "cpustat";
	if (gethostname(run->host, sizeof(run->host)) != 0)
		run->host[0] = '\0';
	run->host[sizeof(run->host) - 1] = '\0';
	out_run_start(run);
	if (collect_specs(run) != 0 || collect_events(run) != 0 ||
	    collect_metrics(run) != 0) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void
out_run_fini(struct out_run *run)
{
	int s;

	for (s = 0; run->derived != NULL && s < run->nsets; s++)
		derived_free(&run->derived[s]);
	free(run->derived);
	run->derived = NULL;
	free(run->metric_keys);
	run->metric_keys = NULL;
	free(run->events);
	run->events = NULL;
	free(run->specs);
	run->specs = NULL;
}

void
out_run_start(struct out_run *run)
{
	struct timespec mono;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &run->start_real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	run->start = (hrtime_t)mono.tv_sec * 1000000000LL + mono.tv_nsec;
	gmtime_r(&run->start_real.tv_sec, &tm);
	n = strftime(
	    run->start_text, sizeof(run->start_text), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(run->start_text + n, sizeof(run->start_text) - n, ".%09ldZ",
	    run->start_real.tv_nsec);
}

unsigned long long
out_run_start_ns(const struct out_run *run)
{
	return (unsigned long long)run->start_real.tv_sec * 1000000000ULL +
	    (unsigned long long)run->start_real.tv_nsec;
}
