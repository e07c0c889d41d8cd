/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The exporter: the counters as metrics (out_metrics.c), for a file or a
 * stream (--format=openmetrics, prometheus) and over HTTP (--listen,
 * out_http.c, with --web-config's TLS and users, webconfig.c and
 * web_auth.c). It is a sink of the output (export_sink, out_sink.h), a
 * row of the table of sinks (cmd/cli/sinks.def), with its options and its
 * formats. Nothing else reaches it past this header (the architecture
 * check, tests/arch, holds code outside export/ to that). A scrape,
 * from the listener's thread, renders under the output's lock, as every
 * other call of the output is made.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <stdbool.h>
#include <sys/types.h>

#include "out_buf.h"
#include "out_run.h"
#include "out_sink.h"

/* The password checks of --web-config's users, for the exporter's metrics. */
struct out_http_auth {
	bool on; /* users are named: the rest counts */
	unsigned long long checked, remembered, busy;
};

/*
 * What a scrape of --listen adds about the exporter itself: the process_*
 * metrics every Prometheus client exports (CPU, memory, descriptors, its
 * start), the rows the output dropped, the engine, and how long the
 * scrape took. Not in a textfile: node_exporter has process_* of its own.
 */
struct out_health {
	const char *engine; /* cputrack's, or NULL */
	unsigned long long rows_dropped;
	long long cgroups_folded;	  /* --for-each-cgroup's, or -1 */
	hrtime_t scrape_start;		  /* CLOCK_MONOTONIC ns */
	const struct out_http_auth *auth; /* --web-config's checks, or NULL */
};

/*
 * Render the metrics into b (the exporter's), in OpenMetrics or the
 * Prometheus format, with what the server says of its password checks.
 */
typedef void(out_render_fn)(void *arg, struct out_buf *b, bool openmetrics,
    const struct out_http_auth *auth);

/* What its options and --format say. */
struct export_config {
	const char *listen;	/* --listen ADDR:PORT, or NULL */
	const char *web_config; /* --web-config FILE, or NULL */
	long linger_ms;		/* --linger: the final counts' wait */
	bool linger_given;
	bool format;	    /* --format is the metrics', */
	bool openmetrics;   /* ... OpenMetrics 1.0, not Prometheus 0.0.4 */
	bool thread_series; /* cputrack's metrics: a series per LWP too */
};

/*
 * The sink: wanted for the metrics formats and for --listen; with
 * --listen, a socket bound and listening when it opens, with
 * --web-config's TLS and users.
 */
extern const struct out_sink_ops export_sink;

/*
 * Why path cannot be the kubelet's cgroup root the pod labels are read
 * below (--for-each-cgroup's kubelet-root, k8s_labels.h); NULL: it can.
 */
const char *export_kubelet_root_invalid(const char *path);

#endif /* EXPORT_H */
