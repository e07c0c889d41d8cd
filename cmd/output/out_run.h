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
	/* --metrics: per set, the metrics it gives; else NULL. */
	struct default_metrics *derived;
	double *derived_values; /* a row's, out_run_derived_values */
	/* Their distinct keys, in set and table order. */
	const char **metric_keys;
	int nmetric_keys;
	/*
	 * -M: the set of the plan's events (-1: none), and a row's metrics,
	 * worked out under the output's lock (out_run_plan_values).
	 */
	int metric_set;
	int nmetrics;
	/*
	 * The machine's facts the formulas read (the plan's, or read for a
	 * JSON stream's head, which --input reads back); has_env: known.
	 */
	struct metric_env env;
	bool has_env;
	struct metric_value *metric_values;
	double *metric_sources;	    /* per counter of the set: its boxes */
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
/*
 * --metrics's values of a row, one per metric of its set, into
 * run->derived_values (NAN where a metric has none: not counted, nothing
 * to divide by); NULL for a row without them. The caller holds the
 * output's lock, as for out_run_plan_values.
 */
const double *out_run_derived_values(
    struct out_run *run, const struct out_row *row);
/* How many values out_run_derived_values gives a row of set s. */
int out_run_nderived(const struct out_run *run, int s);
/*
 * -M's metrics of a row of the plan's set, into run->metric_values: NULL
 * for a row of another set or without counts. The caller holds the
 * output's lock (one row at a time).
 */
const struct metric_value *out_run_plan_values(
    struct out_run *run, const struct out_row *row);

/* Shown metric i of -M's plan (NULL: none). */
const struct metric_shown *out_run_plan_metric(
    const struct out_run *run, int i);

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
