/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --metrics: the metrics perf stat prints beside its counts (insn per
 * cycle, CPUs utilized, K/sec page-faults, ...), for the events a set
 * counts itself. They are perf's Default group of the metric data (the
 * common model), and the project's own few beside it (cpctools.tsv),
 * each resolved against the set's counters: a metric is given where the
 * set holds every event it reads, and a row's value is the metric plan's
 * (metric_plan.h), the one evaluator of -M too. Each keeps the key and
 * the words it has always been printed with (ipc, "insn per cycle").
 */
#ifndef DEFAULT_METRICS_H
#define DEFAULT_METRICS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "metric_plan.h"
#include "spec.h"

/*
 * A metric a set gives, with counters of the same modes: where a set
 * counts an event in several modes (instructions:u), its modes end the
 * key (ipc:u) and the label.
 */
struct default_metric {
	char key[80];	  /* the machine name: CSV, JSON, series */
	char label[96];	  /* as the table says it after the value */
	const char *unit; /* "", "%", "K/sec", ... */
	double factor;	  /* the printed value is the metric's times it */
	struct metric_plan *plan; /* the metric alone, bound to counters */
	int *counter; /* the plan's counter i is the set's counter[i] */
	int ncounters;
	uint64_t *counts; /* scratch: the plan's counters of a row */
	/*
	 * The plan's evaluation writes its own scratch: rows, the live view
	 * and the exporter may each ask from their own thread.
	 */
	pthread_mutex_t lock;
};

struct default_metrics {
	struct default_metric *uses;
	int nuses;
};

/*
 * The metrics spec's own counters give, in the table's order: 0, or -1
 * (no memory, or data the plan refuses, said on stderr).
 */
int default_metrics_plan(const struct spec *spec, struct default_metrics *dm);
void default_metrics_free(struct default_metrics *dm);

/*
 * The value of a metric from a row's counted values (one per counter of
 * the set) and its elapsed wall-clock seconds (NaN: not known): false
 * when it has none, as when a divisor is 0 or an input was not counted.
 */
bool default_metric_value(const struct default_metric *u,
    const uint64_t *values, double elapsed_s, double *value);

#endif /* DEFAULT_METRICS_H */
