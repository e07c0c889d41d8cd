/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's command line. Nothing here exits: the caller does, with the
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
#include "cputrack.h"
#include "diag.h"

enum {
	OPT_FORMAT = 256, OPT_OUTPUT_FD, OPT_LISTEN, OPT_HELP, OPT_VERSION,
	OPT_LIST, OPT_STRICT_EXEC, OPT_ENGINE
};

static const struct option long_options[] = {
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "output-fd", required_argument, NULL, OPT_OUTPUT_FD },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "list", optional_argument, NULL, OPT_LIST },
	{ "strict-exec", no_argument, NULL, OPT_STRICT_EXEC },
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
	    "\t%s [-T secs] [-N count] [-Defhntv] [-o file]\n"
	    "\t\t[--format=table|csv|json|openmetrics|prometheus]\n"
	    "\t\t[--output-fd=fd] [--listen=addr:port] [--strict-exec]\n"
	    "\t\t[--engine=ptrace|bpf|auto]\n"
	    "\t\t-c events [command [args] | -p pid]\n"
	    "\t%s --list[=glob] | --help | --version\n"
	    "\n"
	    "\t-T secs\t  seconds between samples, default 1\n"
	    "\t-N count  number of samples, default unlimited\n"
	    "\t-D\t  enable debug mode\n"
	    "\t-e\t  follow exec(2), and execve(2)\n"
	    "\t-f\t  follow fork(2), fork1(2), and vfork(2)\n"
	    "\t-h\t  print extended usage information\n"
	    "\t-n\t  suppress titles\n"
	    "\t-t\t  include virtualized %s register\n"
	    "\t-v\t  verbose mode\n"
	    "\t-o file\t  write cpu statistics to this file\n"
	    "\t-c events specify processor events to be monitored\n"
	    "\t-p pid\t  pid of existing process to capture\n"
	    "\t--format=table|csv|json|openmetrics|prometheus\n"
	    "\t\t  output format, default table\n"
	    "\t--output=file\n"
	    "\t\t  the same as -o file\n"
	    "\t--output-fd=fd\n"
	    "\t\t  write cpu statistics to this open descriptor\n"
	    "\t--listen=addr:port\n"
	    "\t\t  serve the counts as metrics over HTTP at /metrics\n"
	    "\t--engine=ptrace|bpf|auto\n"
	    "\t\t  how threads are followed and counted: ptrace (the\n"
	    "\t\t  default), BPF at each context switch, or BPF where it\n"
	    "\t\t  can run\n"
	    "\t--strict-exec\n"
	    "\t\t  without -e, not even an exec before the first sample is\n"
	    "\t\t  followed\n"
	    "\t--list[=glob]\n"
	    "\t\t  list every countable event (matching glob), and exit\n"
	    "\t--help\t  print this usage and exit\n"
	    "\t--version print the version and exit\n"
	    "\n"
	    "\tUse " CPCTOOLS_CPUSTAT_NAME
	    "(1) to monitor system-wide statistics.\n",
	    p, p, CPC_TICKREG_NAME);
}

static void
parse_interval(struct cputrack_opts *o, struct parse *p, const char *arg)
{
	double secs;
	char *end;

	errno = 0;
	secs = strtod(arg, &end);
	/* !(secs >= 0) also refuses "nan". */
	if (arg[0] == '\0' || *end != '\0' || errno != 0 || !(secs >= 0) ||
	    secs * 1000 > (double)UINT_MAX || (secs > 0 && secs < 0.001)) {
		diag(NULL, "invalid interval '%s'\n", arg);
		p->bad = true;
		return;
	}
	o->interval_ms = (unsigned)(secs * 1000);
}

static long long
parse_number(struct parse *p, const char *what, const char *arg,
    long long min, long long max)
{
	const char *errstr;
	long long n = strtonum(arg, min, max, &errstr);

	if (errstr != NULL) {
		diag(NULL, "invalid %s '%s'\n", what, arg);
		p->bad = true;
	}
	return n;
}

static int
parse_engine(const char *arg, enum track_engine *engine)
{
	if (strcmp(arg, "ptrace") == 0)
		*engine = ENGINE_PTRACE;
	else if (strcmp(arg, "bpf") == 0)
		*engine = ENGINE_BPF;
	else if (strcmp(arg, "auto") == 0)
		*engine = ENGINE_AUTO;
	else
		return -1;
	return 0;
}

static void
listen_option(struct cputrack_opts *o, struct parse *p, const char *arg)
{
	if (output_parse_listen(arg) != 0) {
		diag(NULL, "invalid listen address '%s' (addr:port, "
		    "[addr6]:port or :port)\n", arg);
		p->bad = true;
	} else if (!output_can_listen()) {
		diag(NULL, "--listen: this build has no HTTP server "
		    "(libmicrohttpd)\n");
		p->bad = true;
	}
	o->listen = arg;
}

/* getopt's complaints, under the program's own name. */
static void
option_error(char **argv)
{
	if (optopt == 0)
		diag(NULL, "unrecognized option '%s'\n", argv[optind - 1]);
	else if (optopt >= OPT_FORMAT ||
	    strncmp(argv[optind - 1], "--", 2) == 0)
		diag(NULL, "option '%s' requires an argument\n",
		    argv[optind - 1]);
	else if (strchr("TNocpr", optopt) != NULL)
		diag(NULL, "option requires an argument -- '%c'\n", optopt);
	else
		diag(NULL, "invalid option -- '%c'\n", optopt);
}

/* One option; a nonzero return is the status to exit with at once. */
static int
option(struct cputrack *ct, struct parse *p, int c, char **argv)
{
	struct cputrack_opts *o = &ct->opt;
	int status;

	switch (c) {
	case 'T':
		parse_interval(o, p, optarg);
		break;
	case 'N':
		o->nsamples = (unsigned)parse_number(p, "count", optarg, 0,
		    UINT_MAX);
		break;
	case 'D':
		diag_set_debug(true);
		break;
	case 'e':
		o->follow_exec = true;
		break;
	case 'f':
		o->follow_fork = true;
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
	case 'v':
		o->verbose = true;
		break;
	case 'o':
		o->log_path = optarg;
		break;
	case 'c':
		if ((status = setgrp_add(ct->specs, optarg)) > 0)
			return status;
		if (status < 0)
			p->bad = true;
		break;
	case 'p':
		o->pid = (pid_t)parse_number(p, "pid", optarg, 1, INT_MAX);
		break;
	case OPT_FORMAT:
		if (output_parse_format(optarg, &o->format) != 0) {
			diag(NULL, "invalid format '%s' (table, csv, json, "
			    "openmetrics or prometheus)\n", optarg);
			p->bad = true;
		}
		break;
	case OPT_OUTPUT_FD:
		o->output_fd = (int)parse_number(p, "descriptor", optarg, 0,
		    INT_MAX);
		o->have_output_fd = true;
		break;
	case OPT_LISTEN:
		listen_option(o, p, optarg);
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
	case OPT_STRICT_EXEC:
		o->strict_exec = true;
		break;
	case OPT_ENGINE:
		if (parse_engine(optarg, &o->engine) != 0) {
			diag(NULL, "invalid engine '%s' (ptrace, bpf or "
			    "auto)\n", optarg);
			p->bad = true;
		}
		break;
	case 'r':	/* the original accepts it, and ignores it: refused */
		p->bad = true;
		break;
	default:
		option_error(argv);
		p->bad = true;
		break;
	}
	return 0;
}

/* What ends the run before it starts: help, version, a usage error. */
static bool
done(struct cputrack *ct, const struct parse *p, int argc, int *status)
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
		if (caps_list(ct->cpc, p->glob, stdout) > 0)
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
		caps_print(ct->cpc, stdout);
		return true;
	}
	if (ct->opt.log_path != NULL && ct->opt.have_output_fd)
		diag(NULL, "-o and --output-fd cannot be given together\n");
	if (p->bad || setgrp_nsets(ct->specs) == 0 ||
	    (ct->opt.log_path != NULL && ct->opt.have_output_fd) ||
	    (optind >= argc && ct->opt.pid == 0) ||
	    (optind < argc && ct->opt.pid != 0)) {
		usage(stderr);
		*status = 2;
		return true;
	}
	return false;
}

bool
cputrack_options(struct cputrack *ct, int argc, char **argv, int *status)
{
	struct parse p = { 0 };
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:T:N:Defhntvo:r:c:p:",
	    long_options, NULL)) != -1)
		if ((*status = option(ct, &p, c == ':' ? '?' : c, argv)) != 0)
			return false;
	if (done(ct, &p, argc, status))
		return false;
	ct->opt.command = optind < argc ? &argv[optind] : NULL;
	return true;
}
