/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The command line both commands share: -c, -D, -h, -n, -t, the output's
 * long options (--format, --output, --output-fd, --metrics), the options
 * of the command's sinks (sinks.h: --listen, --top), --help, --version
 * and --list, parsed one way for both, with getopt's complaints
 * under the program's name. Each command gives its own letters and long
 * options, and a function for them; its messages quote a bad argument as
 * the original did ('"' for cpustat, '\'' for cputrack).
 */
#ifndef CMDLINE_H
#define CMDLINE_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "libcpc.h"
#include "metrics_option.h"
#include "output.h"
#include "setgrp.h"

/* The first value of a command's own long options. */
#define CMDLINE_OWN 512

struct cmdline {
	/* What the command gives. */
	enum out_tool tool;
	/* getopt's: its own letters and c: D h n t (o: for -o FILE) */
	const char *optstring;
	const struct option *options; /* its own, ending with { 0 } */
	char quote;		      /* around a bad argument */
	const char *output_name;      /* "-o" or "--output" */
	bool stop_at_bad;	      /* the first bad option ends the parse */
	/* "-1" after the options is a bad operand, not a bad option. */
	bool numeric_operands;
	/* No argument at all is a run (cputop's default view), not a usage. */
	bool runs_bare;
	void (*usage)(FILE *out);
	void (*version)(FILE *out); /* more lines after --version's, or NULL */
	/*
	 * One of its own options, c with its argument value: 0, or the
	 * status to exit with at once; *bad for a bad argument, said.
	 */
	int (*option)(void *arg, int c, const char *value, bool *bad);
	/*
	 * Its own options that --input takes (the engine, which a wrapper
	 * may always give), ending with 0: --input refuses the others.
	 */
	const int *record_options;
	void *arg;
	cpc_t *cpc;
	setgrp_t *specs; /* -c adds to it */

	/* -M and its options (out.metric_plan: what they planned) */
	struct metrics_option metrics;

	/* What the command line said: the output's options (out.specs and
	   what only the command knows are left to it). */
	struct out_config out;
};

/*
 * Parse argv. False when the run is over before it starts, with *status:
 * --help, --version, -h (0), --list (0, or 1 when no event matches), a
 * -c spec that cannot count (its status), or a usage error (2): one line
 * on stderr that says what is wrong, or, with no argument at all, the
 * usage (unless runs_bare). True to go on; optind is at the first operand.
 */
bool cmdline_parse(struct cmdline *cl, int argc, char **argv, int *status);

/*
 * A usage error the command found in what cmdline_parse left (its
 * operands): its one line on stderr, and status 2.
 */
int cmdline_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

#endif /* CMDLINE_H */
