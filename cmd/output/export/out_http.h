/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --listen=ADDR:PORT: the metrics over HTTP, at /metrics, served with
 * libmicrohttpd from a thread of its own, rendered afresh for each
 * request: nothing is kept between requests, so memory stays bounded
 * whether a scraper comes or not, and what each client can hold is
 * bounded, so that slow clients never keep a scrape from being answered.
 * OpenMetrics to a client that asks for it (as Prometheus does), the
 * Prometheus text format to others. With --web-config, over TLS and to
 * the users it names alone.
 */
#ifndef OUT_HTTP_H
#define OUT_HTTP_H

#include <stdbool.h>

#include "export.h"

struct out_http;

/* Whether this build can serve HTTP (libmicrohttpd). */
bool out_http_available(void);
/*
 * Bind and listen now, with web_config's TLS and users if it is not NULL
 * (webconfig.h; errors said on stderr): NULL if it cannot.
 */
struct out_http *out_http_open(const char *arg, const char *web_config,
    out_render_fn *render, void *render_arg);
/* Start serving, from a thread that blocks every signal: 0 or -1. */
int out_http_start(struct out_http *h);
/*
 * The counts are final (every row is in): say so on the landing page, and
 * wait, timeout_ms at most, until a client has taken a whole answer
 * rendered since: 1 once one has, 0 at the timeout, -1 when a signal
 * that ends the commands (SIGINT, SIGTERM, SIGHUP, SIGQUIT) is pending
 * or comes.
 */
int out_http_wait_final(struct out_http *h, long timeout_ms);
void out_http_close(struct out_http *h);

#endif /* OUT_HTTP_H */
