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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpctools_version.h"
#include "diag.h"
#include "metric_model.h"
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

/* --metrics: what each set gives, planned once for every row. */
static int
collect_metrics(struct out_run *run)
{
	const struct default_metrics *ds;
	const char **grown;
	int s, u, most = 0;

	if (!run->cfg.metrics)
		return 0;
	run->derived = calloc((size_t)run->nsets, sizeof(*run->derived));
	if (run->derived == NULL)
		return -1;
	for (s = 0; s < run->nsets; s++) {
		ds = &run->derived[s];
		if (default_metrics_plan(run->specs[s], &run->derived[s]) != 0)
			return -1;
		if (ds->nuses > most)
			most = ds->nuses;
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
	run->derived_values = calloc((size_t)most + 1, sizeof(double));
	return run->derived_values != NULL ? 0 : -1;
}

/*
 * The machine's facts, for a JSON stream's head where no plan read them:
 * what --input needs to evaluate formulas on the record.
 */
static void
read_env(struct out_run *run)
{
	const char *pmu;

	if (run->has_env || run->cfg.format != OUT_JSON)
		return;
	pmu = run->cpc != NULL ? cpc_core_pmu(run->cpc, 0, NULL) : NULL;
	run->has_env = metric_env_host(&run->env, "/sys", pmu,
			   run->cfg.tool == OUT_CPUSTAT, NULL) == 0 &&
	    metric_cpuid("/sys", run->env.cpuid, sizeof(run->env.cpuid)) == 0;
}

/* -M: the plan's set, each of its events bound to its counter. */
static int
bind_plan(struct out_run *run)
{
	const struct metric_plan *plan = run->cfg.metric_plan;
	const char *text;
	char err[512];
	int s;

	run->metric_set = -1;
	if (plan == NULL)
		return 0;
	text = metric_plan_spec(plan);
	for (s = 0; s < run->nsets && run->metric_set < 0; s++)
		if (strcmp(run->specs[s]->text, text) == 0)
			run->metric_set = s;
	if (run->cfg.metric_set_given)
		run->metric_set = run->cfg.metric_set;
	if (run->metric_set < 0 && text[0] != '\0')
		return 0; /* a run that counts none of them (--list) */
	if (run->metric_set >= 0 &&
	    metric_plan_bind(run->cfg.metric_plan, run->specs[run->metric_set],
		err, sizeof(err)) != 0) {
		diag(NULL, "-M: %s\n", err);
		return -1;
	}
	run->env = *metric_plan_env(plan);
	run->has_env = true;
	run->nmetrics = metric_plan_nmetrics(plan);
	run->metric_values =
	    calloc((size_t)run->nmetrics + 1, sizeof(*run->metric_values));
	run->metric_sources = calloc(run->metric_set >= 0 ?
		(size_t)run->specs[run->metric_set]->nreqs + 1 :
		1,
	    sizeof(double));
	return run->metric_values != NULL && run->metric_sources != NULL ? 0 :
									   -1;
}

/* How many of counter i's boxes the row counts (1 for one of none). */
static double
boxes_counted(const struct spec *spec, int i, const struct out_row *row)
{
	int k, n = 0;

	if (spec->reqs[i].nboxes == 0)
		return 1;
	for (k = 0; k < spec->reqs[i].nboxes; k++)
		n += spec_part_counted(spec, i, k, row->cpus);
	return n;
}

const struct metric_value *
out_run_plan_values(struct out_run *run, const struct out_row *row)
{
	const struct spec *spec;
	struct metric_counts in;
	int i;

	if (run->metric_set < 0 || row->setno != run->metric_set ||
	    row->values == NULL)
		return NULL;
	spec = run->specs[run->metric_set];
	for (i = 0; i < spec->nreqs; i++)
		run->metric_sources[i] = boxes_counted(spec, i, row);
	in = (struct metric_counts) {
		.values = row->values,
		.nvalues = spec->nreqs,
		.sources = run->metric_sources,
		.cpus = row->ncpus > 0 ? row->ncpus : 1,
		.elapsed_s =
		    row->elapsed_ns > 0 ? (double)row->elapsed_ns / 1e9 : NAN,
		.counted = row->not_counted == NULL,
	};
	metric_plan_eval(run->cfg.metric_plan, &in, run->cfg.metric_show_all,
	    run->metric_values);
	return run->metric_values;
}

const struct metric_shown *
out_run_plan_metric(const struct out_run *run, int i)
{
	return run->cfg.metric_plan != NULL ?
	    metric_plan_metric(run->cfg.metric_plan, i) :
	    NULL;
}

bool
out_row_derived(const struct out_row *row, int i, double *value)
{
	if (row->derived == NULL || isnan(row->derived[i]))
		return false;
	*value = row->derived[i];
	return true;
}

int
out_run_nderived(const struct out_run *run, int s)
{
	return run->derived != NULL && s >= 0 ? run->derived[s].nuses : 0;
}

const double *
out_run_derived_values(struct out_run *run, const struct out_row *row)
{
	const struct default_metrics *ds;
	int i;

	if (out_run_nderived(run, row->setno) == 0 ||
	    row->not_counted != NULL || row->values == NULL)
		return NULL;
	ds = &run->derived[row->setno];
	for (i = 0; i < ds->nuses; i++)
		if (!default_metric_value(&ds->uses[i], row->values,
			row->elapsed_ns, &run->derived_values[i]))
			run->derived_values[i] = NAN;
	return run->derived_values;
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
	run->tool_version =
	    cfg->origin != NULL ? cfg->origin->tool_version : CPCTOOLS_VERSION;
	if (cfg->origin != NULL)
		snprintf(run->host, sizeof(run->host), "%s", cfg->origin->host);
	else if (gethostname(run->host, sizeof(run->host)) != 0)
		run->host[0] = '\0';
	run->host[sizeof(run->host) - 1] = '\0';
	out_run_start(run);
	if (collect_specs(run) != 0 || collect_events(run) != 0 ||
	    collect_metrics(run) != 0 || bind_plan(run) != 0) {
		errno = ENOMEM;
		return -1;
	}
	if (run->cfg.env != NULL) {
		run->env = *run->cfg.env;
		run->has_env = true;
	}
	read_env(run);
	return 0;
}

void
out_run_fini(struct out_run *run)
{
	int s;

	for (s = 0; run->derived != NULL && s < run->nsets; s++)
		default_metrics_free(&run->derived[s]);
	free(run->derived);
	run->derived = NULL;
	free(run->metric_keys);
	run->metric_keys = NULL;
	free(run->metric_values);
	run->metric_values = NULL;
	free(run->derived_values);
	run->derived_values = NULL;
	free(run->metric_sources);
	run->metric_sources = NULL;
	free(run->events);
	run->events = NULL;
	free(run->specs);
	run->specs = NULL;
}

void
out_run_start(struct out_run *run)
{
	const struct out_origin *o;
	struct timespec mono;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &run->start_real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	run->start = (hrtime_t)mono.tv_sec * 1000000000LL + mono.tv_nsec;
	if (run->cfg.origin != NULL) {
		/* A record read back started when it was made. */
		o = run->cfg.origin;
		run->start_real.tv_sec =
		    (time_t)(o->start_epoch_ns / 1000000000);
		run->start_real.tv_nsec =
		    (long)(o->start_epoch_ns % 1000000000);
		snprintf(
		    run->start_text, sizeof(run->start_text), "%s", o->start);
		return;
	}
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
