/* SPDX-License-Identifier: BSD-2-Clause */
/* The exporter (see export.h): the metrics, and their listener. */
#include <stdlib.h>

#include "diag.h"
#include "export.h"
#include "listen_addr.h"
#include "out_http.h"
#include "out_metrics.h"

struct exporter {
	const struct out_run *run;
	struct out_metrics *metrics;
	struct out_http *http; /* --listen's, or NULL */
	struct out_sink_host host;
};

bool
export_can_listen(void)
{
	return out_http_available();
}

int
export_parse_listen(const char *arg)
{
	return listen_addr_parse(arg);
}

static bool
export_wanted(const struct out_config *cfg)
{
	return cfg->listen != NULL || cfg->format == OUT_OPENMETRICS ||
	    cfg->format == OUT_PROMETHEUS;
}

/* A scrape's render, under the output's lock: with the exporter's health. */
struct scrape {
	struct exporter *e;
	struct out_buf *b;
	bool openmetrics;
	struct out_health health;
};

static void
render_scrape(void *arg, const struct out_sink_stats *stats)
{
	struct scrape *s = arg;
	const struct out_config *cfg = &s->e->run->cfg;

	s->health.engine = cfg->engine;
	s->health.rows_dropped = stats->rows_dropped;
	s->health.cgroups_folded =
	    cfg->cgroup_names ? (long long)stats->cgroups_folded : -1;
	out_metrics_render(
	    s->e->metrics, s->b, s->openmetrics, output_now(), &s->health);
}

/* Render the metrics for an HTTP request, in its own buffer. */
static void
render_for_http(void *arg, struct out_buf *b, bool openmetrics,
    const struct out_http_auth *auth)
{
	struct scrape s = { arg, b, openmetrics,
		{ .scrape_start = output_now(), .auth = auth } };
	struct exporter *e = arg;

	e->host.locked(e->host.host, render_scrape, &s);
}

static void export_close(void *state, struct out_buf *text);

static void *
export_open(const struct out_run *run, int fd, const struct out_sink_host *host)
{
	const struct out_config *cfg = &run->cfg;
	struct exporter *e = calloc(1, sizeof(*e));

	(void)fd;
	if (e == NULL || (e->metrics = out_metrics_new(run)) == NULL) {
		diag(NULL, "no memory available\n");
		free(e);
		return NULL;
	}
	e->run = run;
	e->host = *host;
	if (cfg->listen != NULL &&
	    (e->http = out_http_open(
		 cfg->listen, cfg->web_config, render_for_http, e)) == NULL) {
		export_close(e, NULL);
		return NULL;
	}
	return e;
}

/* No request is served from now on. */
static void
export_stop_listening(void *state)
{
	struct exporter *e = state;

	out_http_close(e->http);
	e->http = NULL;
}

/* The listener, if any, starts serving; one that cannot is closed, said. */
static void
export_serve(void *state)
{
	struct exporter *e = state;

	if (e->http != NULL && out_http_start(e->http) != 0)
		export_stop_listening(e);
}

static void
export_row(void *state, const struct out_row *row, hrtime_t when)
{
	struct exporter *e = state;

	out_metrics_row(e->metrics, row, when);
}

static void
export_process(void *state, pid_t pid, const char *comm, const char *cgroup)
{
	struct exporter *e = state;

	out_metrics_process(e->metrics, pid, comm, cgroup);
}

static bool
export_changed(const void *state)
{
	const struct exporter *e = state;

	return out_metrics_changed(e->metrics);
}

/* The whole table, in --format's: OpenMetrics 1.0, or Prometheus 0.0.4. */
static void
export_render(void *state, struct out_buf *b, hrtime_t now)
{
	struct exporter *e = state;

	out_metrics_render(
	    e->metrics, b, e->run->cfg.format == OUT_OPENMETRICS, now, NULL);
}

/*
 * The counts are final: wait, ms at most, until a client has taken them
 * whole, or an ending signal comes. Nothing when it does not listen.
 */
static void
export_wait_final(void *state, long ms)
{
	struct exporter *e = state;

	if (e->http != NULL)
		(void)out_http_wait_final(e->http, ms);
}

static void
export_close(void *state, struct out_buf *text)
{
	struct exporter *e = state;

	(void)text;
	if (e == NULL)
		return;
	export_stop_listening(e);
	out_metrics_free(e->metrics);
	free(e);
}

const struct out_sink_ops export_sink = {
	.name = "metrics",
	.wanted = export_wanted,
	.open = export_open,
	.start = export_serve,
	.row = export_row,
	.process = export_process,
	.render = export_render,
	.changed = export_changed,
	.linger = export_wait_final,
	.stop = export_stop_listening,
	.close = export_close,
};
