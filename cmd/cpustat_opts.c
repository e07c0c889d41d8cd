/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpustat's command line. Nothing here exits: the caller does, with the
 * status it is given.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "cpctools_version.h"
#include "cpus.h"
#include "cpustat.h"
#include "diag.h"

enum {
	OPT_FORMAT = 256, OPT_CPUS, OPT_OUTPUT, OPT_OUTPUT_FD, OPT_LISTEN,
	OPT_HELP, OPT_VERSION, OPT_LIST, OPT_SHARED
};

static const struct option long_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "output-fd", required_argument, NULL, OPT_OUTPUT_FD },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "shared", no_argument, NULL, OPT_SHARED },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "list", optional_argument, NULL, OPT_LIST },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

/* What the command line asked for besides a run. */
struct parse {
	bool	help;		/* -h: usage and the events */
	bool	usage;		/* --help */
	bool	version;
	bool	list;		/* --list[=GLOB] */
	const char *glob;
	bool	bad;
};

static void
usage(FILE *out)
{
	const char *p = diag_progname();

	fprintf(out,
	    "Usage:\n"
	    "\t%s -c spec [-c spec]... [-p period] [-T u|d]\n"
	    "\t\t[-sntD] [--format=table|csv|json|openmetrics|prometheus]\n"
	    "\t\t[--output=file | --output-fd=fd] [--listen=addr:port]\n"
	    "\t\t[--cpus=list] [--shared] [interval [count]]\n"
	    "\t%s --list[=glob] | --help | --version\n"
	    "\n"
	    "\t-c spec\t  specify processor events to be monitored\n"
	    "\t-n\t  suppress titles\n"
	    "\t-p period cycle through event list periodically\n"
	    "\t-s\t  run user soaker thread for system-only events\n"
	    "\t-t\t  include %s register\n"
	    "\t-T d|u\t  Display a timestamp in date (d) or unix time_t (u)\n"
	    "\t-D\t  enable debug mode\n"
	    "\t-h\t  print extended usage information\n"
	    "\t--format=table|csv|json|openmetrics|prometheus\n"
	    "\t\t  output format, default table\n"
	    "\t--output=file\n"
	    "\t\t  write cpu statistics to this file\n"
	    "\t--output-fd=fd\n"
	    "\t\t  write cpu statistics to this open descriptor\n"
	    "\t--listen=addr:port\n"
	    "\t\t  serve the counts as metrics over HTTP at /metrics\n"
	    "\t--cpus=list\n"
	    "\t\t  measure only these CPUs (e.g. 0-3,6)\n"
	    "\t--shared  count hardware events without holding the PMU\n"
	    "\t--list[=glob]\n"
	    "\t\t  list every countable event (matching glob), and exit\n"
	    "\t--help\t  print this usage and exit\n"
	    "\t--version print the version and exit\n"
	    "\n"
	    "\tUse cputrack(1) to monitor per-process statistics.\n",
	    p, p, CPC_TICKREG_NAME);
}

/* Library errors; permission problems get cpustat's own hint instead. */
void
cpustat_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	if (subcode == CPC_ATTR_REQUIRES_PRIVILEGE)
		return;
	diag_errhndlr(fn, subcode, fmt, ap);
}

/* A finite decimal number of seconds, wholly consumed, >= min_secs. */
static bool
parse_seconds(const char *arg, double *secs, double min_secs)
{
	char *end;

	errno = 0;
	*secs = strtod(arg, &end);
	return arg[0] != '\0' && *end == '\0' && errno == 0 &&
	    *secs >= min_secs && *secs < 1e9;
}

static bool
is_number(const char *arg)
{
	double secs;

	return parse_seconds(arg, &secs, -1e9);
}

/*
 * getopt's complaints, under the program's own name. A negative interval
 * or count ("-1") looks like an option to getopt, and is reported as the
 * bad operand it is.
 */
static void
option_error(int argc, char **argv)
{
	const char *arg = argv[optind - 1];

	if (optind < argc && argv[optind][0] == '-' && optopt != 0 &&
	    argv[optind][1] == optopt && is_number(argv[optind]))
		arg = argv[optind];
	if (optopt != 0 && arg[0] == '-' && arg[1] == optopt &&
	    is_number(arg))
		diag(NULL, "invalid argument \"%s\"\n", arg);
	else if (optopt == 0)
		diag(NULL, "unrecognized option '%s'\n", arg);
	else if (optopt >= OPT_FORMAT)
		diag(NULL, "option '%s' requires an argument\n", arg);
	else if (strchr("cpT", optopt) != NULL)
		diag(NULL, "option requires an argument -- '%c'\n", optopt);
	else
		diag(NULL, "invalid option -- '%c'\n", optopt);
}

static void
output_fd_option(struct cpustat_opts *o, struct parse *p, const char *arg)
{
	const char *errstr;

	o->output_fd = (int)strtonum(arg, 0, INT_MAX, &errstr);
	if (errstr != NULL) {
		diag(NULL, "invalid descriptor \"%s\"\n", arg);
		p->bad = true;
	}
	o->have_output_fd = true;
}

static void
listen_option(struct cpustat_opts *o, struct parse *p, const char *arg)
{
	if (output_parse_listen(arg) != 0) {
		diag(NULL, "invalid listen address \"%s\" (addr:port, "
		    "[addr6]:port or :port)\n", arg);
		p->bad = true;
	} else if (!output_can_listen()) {
		diag(NULL, "--listen: this build has no HTTP server "
		    "(libmicrohttpd)\n");
		p->bad = true;
	}
	o->listen = arg;
}

/* interval [count]; false for a bad operand (said). */
static bool
parse_operands(struct cpustat_opts *o, int argc, char **argv)
{
	const char *errstr;
	double secs;

	if (argc > 2)
		return false;
	if (argc == 2) {
		o->count = (unsigned long)strtonum(argv[1], 1, LLONG_MAX,
		    &errstr);
		if (errstr != NULL) {
			diag(NULL, "invalid argument \"%s\"\n", argv[1]);
			return false;
		}
	}
	if (argc >= 1) {
		if (!parse_seconds(argv[0], &secs, 0.001) ||
		    secs * 1000 > (double)UINT32_MAX) {
			diag(NULL, "invalid argument \"%s\"\n", argv[0]);
			return false;
		}
		o->interval_ms = (unsigned)(secs * 1000);
	}
	return true;
}

/* One option; a nonzero return is the status to exit with at once. */
static int
option(struct cpustat *cs, struct parse *p, int c, int argc, char **argv)
{
	struct cpustat_opts *o = &cs->opt;
	double period;
	int status;

	switch (c) {
	case 'D':
		diag_set_debug(true);
		break;
	case 'c':
		if ((status = setgrp_add(cs->specs, optarg)) > 0)
			return status;
		p->bad = status < 0;
		break;
	case 'h':
		p->help = true;
		break;
	case 'n':
		o->no_title = true;
		break;
	case 't':
		o->tsc = true;
		break;
	case 'T':
		/* Only the first letter counts, as in the original. */
		if (optarg[0] != 'u' && optarg[0] != 'd') {
			diag(NULL, "invalid argument \"%s\" for -T (u or d)\n",
			    optarg);
			p->bad = true;
		}
		o->timestamp = optarg[0];
		break;
	case 's':
		o->soak = true;
		break;
	case 'p':
		if (!parse_seconds(optarg, &period, 0)) {
			diag(NULL, "invalid parameter \"%s\"\n", optarg);
			p->bad = true;
			break;
		}
		o->rest_ms = (long)(period * 1000);
		break;
	case OPT_FORMAT:
		if (output_parse_format(optarg, &o->format) != 0) {
			diag(NULL, "invalid format \"%s\" (table, csv, json, "
			    "openmetrics or prometheus)\n", optarg);
			p->bad = true;
		}
		break;
	case OPT_OUTPUT:
		o->output_path = optarg;
		break;
	case OPT_OUTPUT_FD:
		output_fd_option(o, p, optarg);
		break;
	case OPT_LISTEN:
		listen_option(o, p, optarg);
		break;
	case OPT_CPUS:
		if (cpus_parse_list(optarg, &o->cpus) != 0) {
			diag(NULL, "invalid CPU list \"%s\"\n", optarg);
			p->bad = true;
		}
		o->have_cpus = true;
		break;
	case OPT_SHARED:
		o->shared = true;
		break;
	case OPT_HELP:
		p->usage = true;
		break;
	case OPT_VERSION:
		p->version = true;
		break;
	case OPT_LIST:
		p->list = true;
		p->glob = optarg;
		break;
	default:
		option_error(argc, argv);
		p->bad = true;
		break;
	}
	return 0;
}

/* -p P with S sets: rest P - I*S after each cycle; count means cycles. */
static void
apply_period(struct cpustat_opts *o, int nsets)
{
	long cycle_ms = (long)o->interval_ms * nsets;

	if (o->rest_ms < 0)
		return;
	o->rest_ms = o->rest_ms > cycle_ms ? o->rest_ms - cycle_ms : 0;
	o->count *= (unsigned long)nsets;
}

/* What ends the run before it starts: help, version, a usage error. */
static bool
done(struct cpustat *cs, const struct parse *p, int *status)
{
	*status = 0;
	if (p->usage) {
		usage(stdout);
		return true;
	}
	if (p->version) {
		printf("%s (cpctools) %s\n", diag_progname(), CPCTOOLS_VERSION);
		return true;
	}
	if (p->list) {
		if (caps_list(cs->cpc, p->glob, stdout) > 0)
			return true;
		if (p->glob != NULL)
			diag(NULL, "--list: no countable event matches '%s'\n",
			    p->glob);
		*status = 1;
		return true;
	}
	if (p->help) {
		usage(stdout);
		putchar('\n');
		caps_print(cs->cpc, stdout);
		return true;
	}
	if (cs->opt.output_path != NULL && cs->opt.have_output_fd)
		diag(NULL, "--output and --output-fd cannot be given "
		    "together\n");
	if (p->bad || setgrp_nsets(cs->specs) == 0 ||
	    (cs->opt.output_path != NULL && cs->opt.have_output_fd)) {
		usage(stderr);
		*status = 2;
		return true;
	}
	return false;
}

bool
cpustat_options(struct cpustat *cs, int argc, char **argv, int *status)
{
	struct parse p = { 0 };
	int c;

	opterr = 0;
	while (!p.bad && (c = getopt_long(argc, argv, ":Dc:hntT:sp:",
	    long_options, NULL)) != -1)
		if ((*status = option(cs, &p, c == ':' ? '?' : c, argc,
		    argv)) != 0)
			return false;
	if (done(cs, &p, status))
		return false;
	if (!parse_operands(&cs->opt, argc - optind, argv + optind)) {
		usage(stderr);
		*status = 2;
		return false;
	}
	apply_period(&cs->opt, setgrp_nsets(cs->specs));
	return true;
}
