/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The command line both commands share (see cmdline.h). Nothing here
 * exits: the caller does, with the status it is given.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "cmdline.h"
#include "cpctools_version.h"
#include "defaults.h"
#include "diag.h"
#include "dryrun.h"
#include "format_words.h"
#include "metrics_list.h"
#include "replay.h"
#include "sinks.h"

enum {
	OPT_FORMAT = 256,
	OPT_OUTPUT,
	OPT_OUTPUT_FD,
	OPT_METRICS,
	OPT_HELP,
	OPT_VERSION,
	OPT_LIST,
	OPT_JSON,
	OPT_METRIC_GROUPS,
	OPT_METRIC_ONLY,
	OPT_METRIC_NO_GROUP,
	OPT_METRIC_NO_THRESHOLD,
	OPT_INPUT,
	OPT_DRY_RUN
};

static const struct option shared_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "output-fd", required_argument, NULL, OPT_OUTPUT_FD },
	{ "metrics", no_argument, NULL, OPT_METRICS },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "list", optional_argument, NULL, OPT_LIST },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "metric-groups", required_argument, NULL, OPT_METRIC_GROUPS },
	{ "metric-only", no_argument, NULL, OPT_METRIC_ONLY },
	{ "metric-no-group", no_argument, NULL, OPT_METRIC_NO_GROUP },
	{ "metric-no-threshold", no_argument, NULL, OPT_METRIC_NO_THRESHOLD },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
};

#define NSHARED	    (sizeof(shared_options) / sizeof(shared_options[0]))
#define MAX_OPTIONS 40

/* What the command line asked for besides a run. */
struct parse {
	bool help;  /* -h: usage and the events */
	bool usage; /* --help */
	bool version;
	bool list;    /* --list[=GLOB] */
	bool dry_run; /* --dry-run: what would be opened */
	const char *glob;
	const char *input; /* --input FILE: a record written again */
	int own;	   /* the first of the command's own options, or 0 */
	/*
	 * The option that chose the format (--format=csv, -x, -j), or
	 * NULL, and the format's word
	 */
	const char *format_by;
	const char *format_word;
	bool bad;
	/* getopt's: the command's letters and its sinks' */
	char optstring[64];
};

/*
 * The shared long options, the command's and its sinks', in one table
 * for getopt, and the letters of the command and its sinks.
 */
static bool
all_options(const struct cmdline *cl, struct parse *p, struct option *all)
{
	size_t n = 0, i;

	for (i = 0; i < NSHARED; i++)
		all[n++] = shared_options[i];
	for (i = 0; cl->options != NULL && cl->options[i].name != NULL; i++) {
		if (n == MAX_OPTIONS - 1)
			return false;
		all[n++] = cl->options[i];
	}
	if (strlcpy(p->optstring, cl->optstring, sizeof(p->optstring)) >=
	    sizeof(p->optstring))
		return false;
	return sinks_getopt(
	    &cl->out, all, &n, MAX_OPTIONS, p->optstring, sizeof(p->optstring));
}

/* A finite decimal number, wholly consumed. */
static bool
is_number(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	return arg[0] != '\0' && *end == '\0' && errno == 0 && v >= -1e9 &&
	    v < 1e9;
}

/* Whether the letter c (the command's or a sink's) takes an argument. */
static bool
takes_argument(const struct parse *p, int c)
{
	const char *at;

	if (c <= 0 || c > 255 || c == ':' || c == '+')
		return false;
	at = strchr(p->optstring, c);
	return at != NULL && at[1] == ':';
}

/*
 * getopt's complaints, under the program's own name. With
 * numeric_operands, a negative number ("-1") that getopt took for an
 * option is reported as the bad operand it is.
 */
static void
option_error(
    const struct cmdline *cl, const struct parse *p, int argc, char **argv)
{
	const char *arg = argv[optind - 1];
	char q = cl->quote;

	if (cl->numeric_operands && optopt != 0) {
		if (optind < argc && argv[optind][0] == '-' &&
		    argv[optind][1] == optopt && is_number(argv[optind]))
			arg = argv[optind];
		if (arg[0] == '-' && arg[1] == optopt && is_number(arg)) {
			diag(NULL, "invalid argument %c%s%c\n", q, arg, q);
			return;
		}
	}
	if (optopt == 0)
		diag(NULL, "unrecognized option '%s'\n", arg);
	else if (optopt >= OPT_FORMAT)
		diag(NULL, "option '%s' requires an argument\n", arg);
	else if (takes_argument(p, optopt))
		diag(NULL, "option requires an argument -- '%c'\n", optopt);
	else
		diag(NULL, "invalid option -- '%c'\n", optopt);
}

static void
output_fd_option(struct cmdline *cl, struct parse *p, const char *arg)
{
	const char *errstr;

	cl->out.fd = (int)strtonum(arg, 0, INT_MAX, &errstr);
	if (errstr != NULL) {
		diag(NULL, "invalid descriptor %c%s%c\n", cl->quote, arg,
		    cl->quote);
		p->bad = true;
		cl->out.fd = 0;
	}
}

/*
 * The format (its word) chosen by option by; one option that chose
 * another before it is a usage error, said.
 */
static void
choose_format(struct cmdline *cl, struct parse *p, enum out_format format,
    const char *word, const char *by)
{
	if (p->format_by != NULL && strcmp(p->format_word, word) != 0) {
		diag(NULL, "%s and %s cannot be given together\n", p->format_by,
		    by);
		p->bad = true;
		return;
	}
	cl->out.format = format;
	p->format_by = by;
	p->format_word = word;
}

/* --format's word: a format of rows, or one a sink renders whole. */
static void
format_option(struct cmdline *cl, struct parse *p, const char *arg)
{
	enum out_format format = OUT_SINK;
	char words[256];

	if (output_parse_format(arg, &format) != 0 &&
	    sinks_format(&cl->out, arg) == NULL) {
		diag(NULL, "invalid format %c%s%c (%s)\n", cl->quote, arg,
		    cl->quote,
		    format_words(cl->tool, words, sizeof(words), ", ", " or "));
		p->bad = true;
		return;
	}
	choose_format(cl, p, format, arg, "--format");
}

/* perf's -x SEP: CSV, its fields separated by one character. */
static void
csv_separator_option(struct cmdline *cl, struct parse *p, const char *arg)
{
	/* A byte of its own, never one of a UTF-8 character. */
	if (strlen(arg) != 1 || (unsigned char)arg[0] >= 0x80 ||
	    strchr("\"\r\n", arg[0]) != NULL) {
		diag(NULL,
		    "invalid separator %c%s%c (one character, not a quote or "
		    "a line end)\n",
		    cl->quote, arg, cl->quote);
		p->bad = true;
		return;
	}
	cl->out.csv_separator = arg[0];
	choose_format(cl, p, OUT_CSV, "csv", "-x");
}

/*
 * No -c: perf stat's default events, as far as they count here, with
 * their derived metrics where the rows have room for them, and a line
 * that names them. 0, or the status to exit with.
 */
static int
default_events(struct cmdline *cl)
{
	enum out_format f = cl->out.format;
	int status;

	if ((status = defaults_add(
		 cl->specs, cl->cpc, cl->tool, &cl->out.default_note)) != 0)
		return status;
	cl->out.default_events = true;
	if (f == OUT_TABLE || f == OUT_CSV || f == OUT_JSON)
		cl->out.metrics = true;
	return 0;
}

/* Whether the command's own option c means nothing amiss for --input. */
static bool
record_option(const struct cmdline *cl, int c)
{
	const int *ok;

	for (ok = cl->record_options; ok != NULL && *ok != 0; ok++)
		if (*ok == c)
			return true;
	return false;
}

/* One option; a nonzero return is the status to exit with at once. */
static int
option(struct cmdline *cl, struct parse *p, int c, int argc, char **argv)
{
	int status;

	switch (c) {
	case 'c':
		if ((status = setgrp_add(cl->specs, optarg)) > 0)
			return status;
		if (status < 0)
			p->bad = true;
		break;
	case 'D':
		diag_set_debug(true);
		break;
	case 'h':
		p->help = true;
		break;
	case 'n':
		cl->out.title = false;
		break;
	case 't':
		cl->out.tsc = true;
		break;
	case 'o':
	case OPT_OUTPUT:
		cl->out.path = optarg;
		break;
	case OPT_FORMAT:
		format_option(cl, p, optarg);
		break;
	case 'x':
		csv_separator_option(cl, p, optarg);
		break;
	case 'j':
	case OPT_JSON:
		choose_format(
		    cl, p, OUT_JSON, "json", c == 'j' ? "-j" : "--json");
		break;
	case OPT_OUTPUT_FD:
		output_fd_option(cl, p, optarg);
		break;
	case OPT_METRICS:
		cl->out.metrics = true;
		break;
	case OPT_DRY_RUN:
		p->dry_run = true;
		break;
	case 'M':
	case OPT_METRIC_GROUPS:
		if (metrics_option_add(&cl->metrics, optarg) != 0)
			p->bad = true;
		break;
	case OPT_METRIC_ONLY:
		cl->metrics.only = true;
		break;
	case OPT_METRIC_NO_GROUP:
		cl->metrics.no_group = true;
		break;
	case OPT_METRIC_NO_THRESHOLD:
		cl->metrics.no_threshold = true;
		break;
	case OPT_INPUT:
		p->input = optarg;
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
	case '?':
	case ':':
		option_error(cl, p, argc, argv);
		p->bad = true;
		break;
	default:
		if (sinks_option(&cl->out, c, optarg, cl->quote, &p->bad))
			break;
		if (p->own == 0 && !record_option(cl, c))
			p->own = c;
		return cl->option(cl->arg, c, optarg, &p->bad);
	}
	return 0;
}

/*
 * --input with one of the command's own options (-p, -T, -r, --per-socket,
 * ...): each asks how to count, and a record is read back, not counted
 * again. Its one line, and 2.
 */
static int
refuse_for_record(const struct cmdline *cl, int c)
{
	const struct option *o;

	for (o = cl->options; c >= 256 && o != NULL && o->name != NULL; o++)
		if (o->val == c)
			return cmdline_usage_error(
			    "--%s cannot be given with --input: a record is "
			    "read back as it was counted, not counted again",
			    o->name);
	return cmdline_usage_error(
	    "-%c cannot be given with --input: a record is read back as it "
	    "was counted, not counted again",
	    c);
}

/* What ends the run before it starts: help, version, a usage error. */
static bool
done(struct cmdline *cl, const struct parse *p, int *status)
{
	bool both = cl->out.path != NULL && cl->out.fd >= 0;
	const char *why;
	struct list_style style = { LIST_TEXT, cl->out.csv_separator, false };

	*status = 0;
	if (p->usage) {
		cl->usage(stdout);
		return true;
	}
	if (p->version) {
		printf("%s (cpctools) %s\n", diag_progname(), CPCTOOLS_VERSION);
		if (cl->version != NULL)
			cl->version(stdout);
		return true;
	}
	if (p->list) {
		if (cl->out.format == OUT_JSON)
			style.format = LIST_JSON;
		else if (cl->out.format == OUT_CSV)
			style.format = LIST_CSV;
		if (caps_list(cl->cpc, p->glob, &style, stdout) +
			metrics_list(
			    cl->cpc, cl->tool, p->glob, &style, stdout) >
		    0)
			return true;
		if (p->glob != NULL)
			diag(NULL, "--list: no countable event matches '%s'\n",
			    p->glob);
		*status = 1;
		return true;
	}
	if (p->help) {
		cl->usage(stdout);
		putchar('\n');
		caps_print(cl->cpc, stdout);
		defaults_print(cl->cpc, cl->tool, stdout);
		return true;
	}
	if (both)
		diag(NULL, "%s and --output-fd cannot be given together\n",
		    cl->output_name);
	/* Each bad option said what is wrong with it, in one line. */
	if (p->bad || both) {
		*status = 2;
		return true;
	}
	if (p->input != NULL) {
		*status = p->own != 0 ? refuse_for_record(cl, p->own) :
					replay_record(cl, p->input);
		return true;
	}
	if ((*status = metrics_option_plan(&cl->metrics, cl->cpc, cl->tool,
		 NULL, cl->specs, &cl->out)) != 0)
		return true;
	if (setgrp_nsets(cl->specs) == 0 && (*status = default_events(cl)) != 0)
		return true;
	if (p->dry_run) {
		*status = dryrun_print(cl->cpc, cl->specs, &cl->out, stdout);
		return true;
	}
	if ((why = sinks_check(&cl->out)) != NULL) {
		*status = cmdline_usage_error("%s", why);
		return true;
	}
	return false;
}

bool
cmdline_parse(struct cmdline *cl, int argc, char **argv, int *status)
{
	struct option all[MAX_OPTIONS];
	struct parse p = { 0 };
	int c;

	cl->out = (struct out_config) {
		.tool = cl->tool,
		.format = OUT_TABLE,
		.fd = -1,
		.title = true,
	};
	if (sinks_setup(&cl->out) != 0) {
		diag(NULL, "no memory available\n");
		*status = 1;
		return false;
	}
	if (!all_options(cl, &p, all)) {
		diag(NULL, "too many options\n");
		*status = 1;
		return false;
	}
	/* Nothing asked at all: how to ask, unless that is a run. */
	if (argc <= 1 && !cl->runs_bare) {
		cl->usage(stderr);
		*status = 2;
		return false;
	}
	opterr = 0;
	while (!(cl->stop_at_bad && p.bad) &&
	    (c = getopt_long(argc, argv, p.optstring, all, NULL)) != -1)
		if ((*status = option(cl, &p, c, argc, argv)) != 0)
			return false;
	if (!done(cl, &p, status))
		return true;
	/* The run is over before it starts: -M's plan is no one's. */
	metrics_option_free(&cl->out);
	return false;
}

int
cmdline_usage_error(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	diag(NULL, "%s\n", line);
	return 2;
}
