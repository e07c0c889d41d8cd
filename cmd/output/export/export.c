/* SPDX-License-Identifier: BSD-2-Clause */
/* The exporter (see export.h): the metrics, and their listener. */
#include <errno.h>
#include <stdlib.h>

#include "diag.h"
#include "export.h"
#include "k8s_labels.h"
#include "listen_addr.h"
#include "out_http.h"
#include "out_metrics.h"

struct exporter {
	const struct out_run *run;
	const struct export_config *cfg;
	struct out_metrics *metrics;
	struct out_http *http; /* --listen's, or NULL */
	struct out_sink_host host;
};

enum { OPT_LISTEN, OPT_WEB_CONFIG, OPT_LINGER, OPT_THREAD_SERIES };

static const struct out_sink_option options[] = {
	[OPT_LISTEN] = { .name = "listen",
	    .takes_arg = true,
	    .help = { "\t--listen=addr:port\n"
		      "\t\t  serve the counts as metrics over HTTP at /metrics\n" } },
	[OPT_WEB_CONFIG] = { .name = "web-config",
	    .takes_arg = true,
	    .help = { "\t--web-config=file\n"
		      "\t\t  TLS and users for --listen (Prometheus's web config)\n" } },
	/* Each tool's run ends by itself its own way. */
	[OPT_LINGER] = { .name = "linger",
	    .takes_arg = true,
	    .help = { [OUT_CPUTRACK] =
			  "\t--linger=secs\n"
			  "\t\t  after a run that ended by itself, "
			  "serve the final counts\n"
			  "\t\t  until a scrape takes them, secs at "
			  "most (--listen)\n",
		[OUT_CPUSTAT] = "\t--linger=secs\n"
				"\t\t  after the count of intervals, serve "
				"the final counts\n"
				"\t\t  until a scrape takes them, secs at "
				"most (--listen)\n" } },
	[OPT_THREAD_SERIES] = { .name = "thread-series",
	    .help = { "\t--thread-series\n"
		      "\t\t  the metrics have a series per LWP as well as "
		      "per\n"
		      "\t\t  process and cgroup\n" },
	    .part = OUT_USAGE_METRICS,
	    .tools = OUT_TOOLS(OUT_CPUTRACK) },
	{ 0 }
};

static const char *const formats[] = { "openmetrics", "prometheus", NULL };

static int
parse_listen(struct export_config *c, const char *arg, char quote)
{
	c->listen = arg;
	if (listen_addr_parse(arg) != 0) {
		diag(NULL,
		    "invalid listen address %c%s%c (addr:port, "
		    "[addr6]:port or :port)\n",
		    quote, arg, quote);
		return -1;
	}
	if (!out_http_available()) {
		diag(NULL,
		    "--listen: this build has no HTTP server "
		    "(libmicrohttpd)\n");
		return -1;
	}
	return 0;
}

/* --linger=SECS: 0 to a day, in seconds, fractions too. */
static int
parse_linger(struct export_config *c, const char *arg, char quote)
{
	char *end;
	double secs;

	errno = 0;
	secs = strtod(arg, &end);
	if (arg[0] == '\0' || *end != '\0' || errno != 0 || !(secs >= 0) ||
	    secs > 86400) {
		diag(NULL, "invalid linger time %c%s%c (seconds, 0 to 86400)\n",
		    quote, arg, quote);
		return -1;
	}
	c->linger_ms = (long)(secs * 1000 + 0.5);
	c->linger_given = true;
	return 0;
}

static int
export_option(void *cfg, int i, const char *arg, char quote)
{
	struct export_config *c = cfg;

	switch (i) {
	case OPT_LISTEN:
		return parse_listen(c, arg, quote);
	case OPT_WEB_CONFIG:
		c->web_config = arg;
		return 0;
	case OPT_THREAD_SERIES:
		c->thread_series = true;
		return 0;
	default:
		return parse_linger(c, arg, quote);
	}
}

static void
export_format(void *cfg, int i)
{
	struct export_config *c = cfg;

	c->format = true;
	c->openmetrics = i == 0;
}

/*
 * --web-config and --linger say how to serve: there must be a server;
 * --thread-series shapes the metrics: there must be metrics.
 */
static const char *
export_check(const void *cfg)
{
	const struct export_config *c = cfg;

	if (c->thread_series && c->listen == NULL && !c->format)
		return "--thread-series needs metrics: --format=openmetrics, "
		       "--format=prometheus or --listen";
	if (c->web_config != NULL && c->listen == NULL)
		return "--web-config needs --listen: it says how to serve it";
	if (c->linger_given && c->listen == NULL)
		return "--linger needs --listen: it keeps the listener up";
	return NULL;
}

static bool
export_wanted(const struct out_config *cfg, const void *own)
{
	const struct export_config *c = own;

	(void)cfg;
	return c->listen != NULL || c->format;
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
export_open(const struct out_run *run, const void *own, int fd,
    const struct out_sink_host *host)
{
	const struct export_config *cfg = own;
	struct exporter *e = calloc(1, sizeof(*e));

	(void)fd;
	if (e == NULL ||
	    (e->metrics = out_metrics_new(run, cfg->thread_series)) == NULL) {
		diag(NULL, "no memory available\n");
		free(e);
		return NULL;
	}
	e->run = run;
	e->cfg = cfg;
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

	out_metrics_render(e->metrics, b, e->cfg->openmetrics, now, NULL);
}

/*
 * The counts are final: with --linger, wait until a client has taken
 * them whole, or its time passes, or an ending signal comes. Nothing
 * when it does not listen.
 */
static void
export_wait_final(void *state)
{
	struct exporter *e = state;

	if (e->http != NULL && e->cfg->linger_ms > 0)
		(void)out_http_wait_final(e->http, e->cfg->linger_ms);
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
	.options = options,
	.config_size = sizeof(struct export_config),
	.option = export_option,
	.formats = formats,
	.format = export_format,
	.check = export_check,
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

const char *
export_kubelet_root_invalid(const char *path)
{
	return k8s_root_invalid(path);
}
