/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The counters as metrics: every row updates a table of counter series
 * (cpustat: per CPU and set; cputrack: per LWP and per process, and set),
 * which is written out whole, as OpenMetrics or in the Prometheus text
 * format, whenever it is wanted. The table holds the series of what is
 * counted now, and those of what ended for a while (OUT_METRICS_RETAIN_NS,
 * and the latest OUT_METRICS_MAX_ENDED at most) so that a scraper sees
 * their last values: its size does not grow with time or with churn,
 * whether a scraper comes or not.
 *
 * The caller serialises every call (the output's lock).
 */
#ifndef OUT_METRICS_H
#define OUT_METRICS_H

#include <stdbool.h>

#include "export.h"
#include "out_buf.h"
#include "out_run.h"

#define OUT_METRICS_RETAIN_NS (300 * 1000000000LL)
#define OUT_METRICS_MAX_ENDED 1024 /* series of ended LWPs, processes */

struct out_metrics;

/* thread_series: cputrack's series per LWP too (--thread-series). */
struct out_metrics *out_metrics_new(
    const struct out_run *run, bool thread_series);
void out_metrics_free(struct out_metrics *m);
/* A row, at now (CLOCK_MONOTONIC ns). */
void out_metrics_row(
    struct out_metrics *m, const struct out_row *row, hrtime_t now);
/*
 * cputrack: a process counted from now, while it is there: its name
 * (comm; NULL: read) and cgroup (NULL: read), which its series will be
 * labelled with.
 */
void out_metrics_process(
    struct out_metrics *m, pid_t pid, const char *comm, const char *cgroup);
/* Whether a row changed anything since the last render. */
bool out_metrics_changed(const struct out_metrics *m);
/*
 * The whole table: OpenMetrics 1.0, or the Prometheus text format 0.0.4;
 * with health, the exporter's own metrics too.
 */
void out_metrics_render(struct out_metrics *m, struct out_buf *b,
    bool openmetrics, hrtime_t now, const struct out_health *health);

#endif /* OUT_METRICS_H */
