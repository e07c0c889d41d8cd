/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The stand-in for out_http.c in a build without libmicrohttpd (a static
 * cross build, for one): --listen is refused, with the reason.
 */
#include <stddef.h>

#include "diag.h"
#include "out_http.h"

bool
out_http_available(void)
{
	return false;
}

struct out_http *
out_http_open(const char *arg, const char *web_config, out_render_fn *render,
    void *render_arg)
{
	(void)web_config;
	(void)render;
	(void)render_arg;
	diag(NULL,
	    "cannot listen on '%s': this build has no HTTP server "
	    "(libmicrohttpd)\n",
	    arg);
	return NULL;
}

int
out_http_start(struct out_http *h)
{
	(void)h;
	return -1;
}

int
out_http_wait_final(struct out_http *h, long timeout_ms)
{
	(void)h;
	(void)timeout_ms;
	return 0;
}

void
out_http_close(struct out_http *h)
{
	(void)h;
}
