/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every record of a stream may need and what never changes in a
 * run: the options, the sets and their events with their units, the
 * host, the tool, and when the run started, on both clocks.
 */
#ifndef OUT_RUN_H
#define OUT_RUN_H

#include <stdbool.h>
#include <time.h>

#include "default_metrics.h"
#include "evscale.h"
#include "metric_plan.h"
#include "output.h"

/* One distinct event of the run's sets, in set and counter order. */
struct out_event {
	const char *name;
	const char *unit; /* "ns" or "count" */
	/* sysfs's scale and unit for it (MiB, Joules): shown beside */
	bool scaled;
	struct evscale scale;
};

/*
 * A metric the rows give: one of -M's (shown: its place in the plan's
 * tree), or one of --metrics's (by_key: printed by its key beside the
 * counts, in the words of use). Rows of a set carry the values of that
 * set's metrics alone, --metrics's first, then -M's in -M's set.
 */
struct out_metric {
	const char *key;
	const char *unit;
	bool by_key;
	const struct default_metric *use; /* --metrics's evaluator */
	const struct metric_shown *shown; /* -M's; NULL for --metrics's */
};

/* The metrics of one set's rows: run->metrics[first] on, n of them. */
struct out_set_metrics {
	int first;
	int n;
};

struct out_run {
	struct out_config cfg;
	cpc_t *cpc;
	const char *tool;	  /* "cputrack" or "cpustat" */
	const char *tool_version; /* ours, or a record's (--input) */
	char host[256];
	struct out_event *events;
	int nevents;
	bool any_scaled; /* an event has a sysfs scale: rows look for it */
	const struct spec **specs; /* the run's -c specs, nsets of them */
	int nsets;
	/* Every metric of the run, set by set, and each set's share. */
	struct out_metric *metrics;
	int nmetrics;
	struct out_set_metrics *set_metrics;
	/* --metrics: per set, the evaluators of its keys; else NULL. */
	struct default_metrics *key_plans;
	/* Their distinct keys, in set and table order. */
	const char **metric_keys;
	int nmetric_keys;
	/*
	 * -M: the set of the plan's events (-1: none), its metrics
	 * (run->metrics[plan_first] on, nplan of them), and where they
	 * start among a row's of that set.
	 */
	int metric_set;
	int nplan;
	int plan_first;
	int plan_at;
	/*
	 * The machine's facts the formulas read (the plan's, or read for a
	 * JSON stream's head, which --input reads back); has_env: known.
	 */
	struct metric_env env;
	bool has_env;
	/* A row's metrics, worked out under the output's lock. */
	struct metric_value *metric_values;
	double *metric_sources;	    /* per counter of a set: its boxes */
	hrtime_t start;		    /* CLOCK_MONOTONIC ns: row time 0 */
	struct timespec start_real; /* CLOCK_REALTIME at the same moment */
	char start_text[40];	    /* start_real, RFC 3339, UTC */
};

int out_run_init(struct out_run *run, cpc_t *cpc, const struct out_config *cfg);
void out_run_fini(struct out_run *run);
/* Take the start on both clocks, now. */
void out_run_start(struct out_run *run);

/* The index of an event in run->events, or -1. */
int out_run_event(const struct out_run *run, const char *name);
/* Whether the event counts nanoseconds (a clock) rather than events. */
bool out_run_is_clock(const struct out_run *run, const char *name);
unsigned long long out_run_start_ns(const struct out_run *run);
/* The metrics rows of set s give: how many, from *first on. */
int out_run_set_metrics(
    const struct out_run *run, int s, const struct out_metric **first);
/*
 * The one evaluator: the metrics of set s (out_run_set_metrics's, in
 * that order) from counts of its counters, into out. Rows, the live
 * view's sums and the exporter's series all ask it.
 */
void out_run_eval(const struct out_run *run, int s,
    const struct metric_counts *in, struct metric_value *out);
/*
 * A row's metrics, into run->metric_values: NULL for a row without
 * counts, or of a set that gives none. The caller holds the output's
 * lock (one row at a time).
 */
const struct metric_value *out_run_row_metrics(
    struct out_run *run, const struct out_row *row);

/* Shown metric i of -M's plan (NULL: none). */
const struct metric_shown *out_run_plan_metric(
    const struct out_run *run, int i);
/* -M's values in a row (nplan of them): NULL in a row of another set. */
const struct metric_value *out_row_plan(
    const struct out_run *run, const struct out_row *row);

/*
 * Whether a row's metrics come from multiplexed counts: its set counted
 * for less of the time than it was enabled.
 */
bool out_run_multiplexed(const struct out_row *row);

/*
 * A row's value of counter i of its set, in the counter's sysfs unit,
 * and per second of the row's elapsed time: false for a counter with no
 * scale, or not counted (a rate also needs the elapsed time).
 */
bool out_run_scaled(
    const struct out_run *run, const struct out_row *row, int i, double *value);
bool out_run_scaled_rate(
    const struct out_run *run, const struct out_row *row, int i, double *value);
/* The event of counter i of set s: its run's entry. */
const struct out_event *out_run_req_event(
    const struct out_run *run, int s, int i);

#endif /* OUT_RUN_H */
