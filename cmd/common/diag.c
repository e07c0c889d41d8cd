/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Diagnostics for the commands, shared with libcpc's error handler.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"

static const char *progname = "cpctools";
static bool debug;
static void (*sink)(void *, const char *);
static void *sink_arg;

void
diag_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	progname = slash != NULL ? slash + 1 : argv0;
}

const char *
diag_progname(void)
{
	return progname;
}

void
diag_set_debug(bool on)
{
	debug = on;
}

bool
diag_debugging(void)
{
	return debug;
}

void
diag_set_sink(void (*fn)(void *arg, const char *message), void *arg)
{
	sink = fn;
	sink_arg = arg;
}

static void
to_sink(const char *fn, const char *fmt, va_list ap)
{
	char message[1024];
	int n;

	n = snprintf(message, sizeof(message), "%s: %s%s", progname,
	    debug && fn != NULL ? fn : "", debug && fn != NULL ? ": " : "");
	if (n >= 0 && (size_t)n < sizeof(message))
		vsnprintf(message + n, sizeof(message) - (size_t)n, fmt, ap);
	sink(sink_arg, message);
}

void
diag_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode;
	if (sink != NULL) {
		to_sink(fn, fmt, ap);
		return;
	}
	fprintf(stderr, "%s: ", progname);
	if (debug && fn != NULL)
		fprintf(stderr, "%s: ", fn);
	vfprintf(stderr, fmt, ap);
}

void
diag(const char *fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_errhndlr(fn, -1, fmt, ap);
	va_end(ap);
}

void
diag_debug(const char *fmt, ...)
{
	va_list ap;

	if (!debug)
		return;
	va_start(ap, fmt);
	diag_errhndlr(NULL, -1, fmt, ap);
	va_end(ap);
}
