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

static int
add_metric(struct out_run *run, const struct out_metric *m)
{
	struct out_metric *grown;

	grown = reallocarray(
	    run->metrics, (size_t)run->nmetrics + 1, sizeof(*grown));
	if (grown == NULL)
		return -1;
	run->metrics = grown;
	grown[run->nmetrics++] = *m;
	return 0;
}

/* --metrics: the keys set s gives, and each new one's CSV column. */
static int
add_keys(struct out_run *run, int s)
{
	const struct default_metrics *ds = &run->key_plans[s];
	const char **grown;
	int u;

	if (default_metrics_plan(run->specs[s], &run->key_plans[s]) != 0)
		return -1;
	for (u = 0; u < ds->nuses; u++) {
		if (add_metric(run,
			&(struct out_metric) { .key = ds->uses[u].key,
			    .unit = ds->uses[u].unit,
			    .by_key = true,
			    .use = &ds->uses[u] }) != 0)
			return -1;
		if (metric_key(run, ds->uses[u].key) >= 0)
			continue;
		grown = reallocarray(run->metric_keys,
		    (size_t)run->nmetric_keys + 1, sizeof(*grown));
		if (grown == NULL)
			return -1;
		run->metric_keys = grown;
		grown[run->nmetric_keys++] = ds->uses[u].key;
	}
	return 0;
}

/* -M's metrics, after those of the set before. */
static int
add_plan(struct out_run *run)
{
	const struct metric_shown *shown;
	int i;

	run->plan_first = run->nmetrics;
	for (i = 0; i < run->nplan; i++) {
		shown = metric_plan_metric(run->cfg.metric_plan, i);
		if (add_metric(run,
			&(struct out_metric) { .key = shown->key,
			    .unit = shown->unit,
			    .shown = shown }) != 0)
			return -1;
	}
	return 0;
}

/*
 * Every metric of the run, planned once for every row: each set's keys
 * of --metrics, then -M's in its set (or after all sets, where no set
 * counts its events), and a row's scratch for the largest set's.
 */
static int
collect_metrics(struct out_run *run)
{
	struct out_set_metrics *sm;
	int s, most = 0, reqs = 0;

	run->set_metrics = calloc((size_t)run->nsets + 1, sizeof(*sm));
	if (run->set_metrics == NULL)
		return -1;
	if (run->cfg.metrics &&
	    (run->key_plans = calloc(
		 (size_t)run->nsets + 1, sizeof(*run->key_plans))) == NULL)
		return -1;
	for (s = 0; s < run->nsets; s++) {
		sm = &run->set_metrics[s];
		sm->first = run->nmetrics;
		if (run->key_plans != NULL && add_keys(run, s) != 0)
			return -1;
		if (s == run->metric_set) {
			run->plan_at = run->nmetrics - sm->first;
			if (add_plan(run) != 0)
				return -1;
		}
		sm->n = run->nmetrics - sm->first;
		if (sm->n > most)
			most = sm->n;
		if (run->specs[s]->nreqs > reqs)
			reqs = run->specs[s]->nreqs;
	}
	if (run->metric_set < 0 && run->nplan > 0 && add_plan(run) != 0)
		return -1;
	run->metric_values =
	    calloc((size_t)most + 1, sizeof(*run->metric_values));
	run->metric_sources = calloc((size_t)reqs + 1, sizeof(double));
	return run->metric_values != NULL && run->metric_sources != NULL ? 0 :
									   -1;
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
	run->nplan = metric_plan_nmetrics(plan);
	return 0;
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

int
out_run_set_metrics(
    const struct out_run *run, int s, const struct out_metric **first)
{
	/* A set with no metric may have no list to point into. */
	if (s < 0 || s >= run->nsets || run->set_metrics == NULL ||
	    run->set_metrics[s].n == 0) {
		*first = NULL;
		return 0;
	}
	*first = &run->metrics[run->set_metrics[s].first];
	return run->set_metrics[s].n;
}

/* A metric of --metrics: a value, or NaN; no threshold, no tree. */
static void
key_value(const struct out_metric *m, const struct metric_counts *in,
    struct metric_value *out)
{
	*out = (struct metric_value) { .value = NAN, .crossed = -1 };
	if (in->counted &&
	    !default_metric_value(
		m->use, in->values, in->elapsed_s, &out->value))
		out->value = NAN;
}

void
out_run_eval(const struct out_run *run, int s, const struct metric_counts *in,
    struct metric_value *out)
{
	const struct out_metric *first;
	int i, n = out_run_set_metrics(run, s, &first);

	for (i = 0; i < n; i++)
		if (first[i].by_key)
			key_value(&first[i], in, &out[i]);
	if (s == run->metric_set && run->nplan > 0)
		metric_plan_eval(run->cfg.metric_plan, in,
		    run->cfg.metric_show_all, out + run->plan_at);
}

const struct metric_value *
out_run_row_metrics(struct out_run *run, const struct out_row *row)
{
	const struct out_metric *first;
	const struct spec *spec;
	struct metric_counts in;
	int i;

	if (row->values == NULL ||
	    out_run_set_metrics(run, row->setno, &first) == 0)
		return NULL;
	spec = run->specs[row->setno];
	/* Only -M's formulas read the boxes. */
	for (i = 0; row->setno == run->metric_set && i < spec->nreqs; i++)
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
	out_run_eval(run, row->setno, &in, run->metric_values);
	return run->metric_values;
}

const struct metric_shown *
out_run_plan_metric(const struct out_run *run, int i)
{
	return i >= 0 && i < run->nplan ?
	    run->metrics[run->plan_first + i].shown :
	    NULL;
}

const struct metric_value *
out_row_plan(const struct out_run *run, const struct out_row *row)
{
	if (row->metrics == NULL || row->setno < 0 ||
	    row->setno != run->metric_set || run->nplan == 0)
		return NULL;
	return row->metrics + run->plan_at;
}

bool
out_row_metric(const struct out_row *row, int i, double *value)
{
	if (row->metrics == NULL || isnan(row->metrics[i].value) ||
	    isinf(row->metrics[i].value))
		return false;
	*value = row->metrics[i].value;
	return true;
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
	    bind_plan(run) != 0 || collect_metrics(run) != 0) {
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

	for (s = 0; run->key_plans != NULL && s < run->nsets; s++)
		default_metrics_free(&run->key_plans[s]);
	free(run->key_plans);
	run->key_plans = NULL;
	free(run->metrics);
	run->metrics = NULL;
	free(run->set_metrics);
	run->set_metrics = NULL;
	free(run->metric_keys);
	run->metric_keys = NULL;
	free(run->metric_values);
	run->metric_values = NULL;
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
