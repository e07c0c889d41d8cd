/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The HTTP module: out_http.c, webconfig.c and web_auth.c, with
 * libmicrohttpd, GnuTLS, libyaml and libcrypt, built as a module of its
 * own that the commands load at their first --listen (out_http_module.c).
 * Loading those libraries took a fifth of every command's start, listening
 * or not. The module exports one table, under OUT_HTTP_MODULE_SYMBOL; what
 * it calls of the command's own (diagnostics, the output's buffers, the
 * listening socket) the command's link makes visible (host.syms).
 */
#ifndef OUT_HTTP_MODULE_H
#define OUT_HTTP_MODULE_H

#include "out_http.h"

/* Raised whenever this table, or what its calls take, changes. */
#define OUT_HTTP_MODULE_ABI    1
#define OUT_HTTP_MODULE_SYMBOL "cpctools_http_module"

/* out_http.h's calls, as the module makes them. */
struct out_http_module {
	int abi;	     /* OUT_HTTP_MODULE_ABI of its build */
	const char *version; /* CPCTOOLS_VERSION of its build */
	struct out_http *(*open)(const char *arg, const char *web_config,
	    out_render_fn *render, void *render_arg);
	int (*start)(struct out_http *h);
	int (*wait_final)(struct out_http *h, long timeout_ms);
	void (*close)(struct out_http *h);
};

#endif /* OUT_HTTP_MODULE_H */
