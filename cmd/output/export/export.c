/* SPDX-License-Identifier: BSD-2-Clause */
/* The exporter (see export.h): the metrics, and their listener. */
#include <stdlib.h>

#include "diag.h"
#include "export.h"
#include "listen_addr.h"
#include "out_http.h"
#include "out_metrics.h"

struct exporter {
	struct out_metrics *metrics;
	struct out_http *http; /* --listen's, or NULL */
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

struct exporter *
export_open(const struct out_run *run, const char *listen,
    const char *web_config, out_render_fn *render, void *render_arg)
{
	struct exporter *e = calloc(1, sizeof(*e));

	if (e == NULL || (e->metrics = out_metrics_new(run)) == NULL) {
		diag(NULL, "no memory available\n");
		free(e);
		return NULL;
	}
	if (listen != NULL &&
	    (e->http = out_http_open(listen, web_config, render, render_arg)) ==
		NULL) {
		export_close(e);
		return NULL;
	}
	return e;
}

void
export_serve(struct exporter *e)
{
	if (e->http != NULL && out_http_start(e->http) != 0)
		export_stop_listening(e);
}

bool
export_listening(const struct exporter *e)
{
	return e->http != NULL;
}

void
export_row(struct exporter *e, const struct out_row *row, hrtime_t now)
{
	out_metrics_row(e->metrics, row, now);
}

void
export_process(
    struct exporter *e, pid_t pid, const char *comm, const char *cgroup)
{
	out_metrics_process(e->metrics, pid, comm, cgroup);
}

bool
export_changed(const struct exporter *e)
{
	return out_metrics_changed(e->metrics);
}

void
export_render(struct exporter *e, struct out_buf *b, bool openmetrics,
    hrtime_t now, const struct out_health *health)
{
	out_metrics_render(e->metrics, b, openmetrics, now, health);
}

int
export_wait_final(struct exporter *e, long timeout_ms)
{
	return e->http != NULL ? out_http_wait_final(e->http, timeout_ms) : 0;
}

void
export_stop_listening(struct exporter *e)
{
	out_http_close(e->http);
	e->http = NULL;
}

void
export_close(struct exporter *e)
{
	if (e == NULL)
		return;
	export_stop_listening(e);
	out_metrics_free(e->metrics);
	free(e);
}
