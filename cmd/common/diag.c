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

void
diag_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode;
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
