/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The exporter: the counters as metrics (out_metrics.c), for a file or a
 * stream (--format=openmetrics, prometheus) and over HTTP (--listen,
 * out_http.c, with --web-config's TLS and users, webconfig.c and
 * web_auth.c). The output reaches it through these calls alone (the
 * architecture check, tests/arch, holds it to that), and it serialises
 * them: every call but export_can_listen and export_parse_listen is made
 * under the output's lock, which render, called from the listener's
 * thread, takes too.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <stdbool.h>
#include <sys/types.h>

#include "out_buf.h"
#include "out_run.h"

struct exporter;

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
 * Render the metrics into b (export_render), in OpenMetrics or the
 * Prometheus format, with what the server says of its password checks.
 */
typedef void(out_render_fn)(void *arg, struct out_buf *b, bool openmetrics,
    const struct out_http_auth *auth);

/* Whether this build can serve HTTP (libmicrohttpd). */
bool export_can_listen(void);
/* ADDR:PORT, [ADDR6]:PORT or :PORT, PORT 1 to 65535: 0, or -1. */
int export_parse_listen(const char *arg);
/*
 * The metrics of a run, and with listen (not NULL) a socket bound and
 * listening now, with web_config's TLS and users if it is not NULL;
 * each answer is rendered by render(render_arg, ...). NULL, said on
 * stderr, if it cannot be.
 */
struct exporter *export_open(const struct out_run *run, const char *listen,
    const char *web_config, out_render_fn *render, void *render_arg);
/* The listener, if any, starts serving; one that cannot is closed, said. */
void export_serve(struct exporter *e);
/* Whether it still listens. */
bool export_listening(const struct exporter *e);
/* A row, at now (CLOCK_MONOTONIC ns). */
void export_row(struct exporter *e, const struct out_row *row, hrtime_t now);
/*
 * cputrack: a process counted from now, while it is there: its name
 * (comm; NULL: read) and cgroup, which its series will be labelled with.
 */
void export_process(
    struct exporter *e, pid_t pid, const char *comm, const char *cgroup);
/* Whether a row changed anything since the last render. */
bool export_changed(const struct exporter *e);
/*
 * The whole table into b: OpenMetrics 1.0, or the Prometheus text format
 * 0.0.4; with health, the exporter's own metrics too.
 */
void export_render(struct exporter *e, struct out_buf *b, bool openmetrics,
    hrtime_t now, const struct out_health *health);
/*
 * The counts are final: wait, timeout_ms at most, until a client has
 * taken them whole (1), or not (0), or an ending signal came (-1).
 */
int export_wait_final(struct exporter *e, long timeout_ms);
/* No request is served from now on. */
void export_stop_listening(struct exporter *e);
void export_close(struct exporter *e);

#endif /* EXPORT_H */
