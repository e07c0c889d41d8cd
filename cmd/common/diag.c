/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Diagnostics for the commands, shared with libcpc's error handler; a
 * name a message quotes is made inert (safename.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "safename.h"

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

/*
 * The message, made inert line by line (safename.h): a name it quotes
 * (a command line, a cgroup) reaches the terminal with no control
 * character; its own line ends stay. NULL: no memory.
 */
static char *
inert_text(const char *fmt, va_list ap)
{
	char *text, *safe, *line, *end;
	size_t size, at = 0;

	if (vasprintf(&text, fmt, ap) < 0)
		return NULL;
	size = 4 * strlen(text) + 1;
	if ((safe = malloc(size)) == NULL) {
		free(text);
		return NULL;
	}
	for (line = text;; line = end + 1) {
		if ((end = strchr(line, '\n')) != NULL)
			*end = '\0';
		at += safename(safe + at, size - at, line);
		if (end == NULL)
			break;
		safe[at++] = '\n';
	}
	safe[at] = '\0';
	free(text);
	return safe;
}

void
diag_cpc_open(int err)
{
	/* The kernel has perf events where it has their paranoia setting. */
	if (err == ENOSYS &&
	    access("/proc/sys/kernel/perf_event_paranoid", F_OK) == 0)
		diag(NULL,
		    "cannot access performance counters - perf_event_open(2) "
		    "is refused by the seccomp filter this process runs under: "
		    "its profile (a container's) must allow it, as "
		    "containerd's and Docker's current defaults do with "
		    "CAP_PERFMON\n");
	else
		diag(NULL, "cannot access performance counters - %s\n",
		    strerror(err));
}

void
diag_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	const char *at = debug && fn != NULL ? fn : "";
	const char *colon = debug && fn != NULL ? ": " : "";
	char *text, *message;

	(void)subcode;
	if ((text = inert_text(fmt, ap)) == NULL) {
		fprintf(stderr, "%s: no memory available\n", progname);
		return;
	}
	if (sink == NULL) {
		fprintf(stderr, "%s: %s%s%s", progname, at, colon, text);
	} else if (asprintf(&message, "%s: %s%s%s", progname, at, colon,
		       text) >= 0) {
		sink(sink_arg, message);
		free(message);
	}
	free(text);
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
