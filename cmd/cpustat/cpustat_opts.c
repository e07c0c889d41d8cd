/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpustat's command line: its own options and operands, on the parser
 * both commands share (cmdline.c). Nothing here exits: the caller does,
 * with the status it is given.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "cpus.h"
#include "cpustat.h"
#include "diag.h"
#include "format_words.h"
#include "sinks.h"
#include "topology.h"

enum {
	OPT_CPUS = CMDLINE_OWN,
	OPT_SHARED,
	OPT_EXCLUSIVE,
	OPT_PER_CORE,
	OPT_PER_DIE,
	OPT_PER_SOCKET,
	OPT_PER_NODE,
	OPT_PER_CACHE,
	OPT_PER_THREAD,
	OPT_TIMEOUT,
	OPT_INTERVAL_COUNT
};

static const struct option own_options[] = {
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "per-core", no_argument, NULL, OPT_PER_CORE },
	{ "per-die", no_argument, NULL, OPT_PER_DIE },
	{ "per-socket", no_argument, NULL, OPT_PER_SOCKET },
	{ "per-node", no_argument, NULL, OPT_PER_NODE },
	{ "per-cache", optional_argument, NULL, OPT_PER_CACHE },
	{ "shared", no_argument, NULL, OPT_SHARED },
	{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "interval-count", required_argument, NULL, OPT_INTERVAL_COUNT },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *out)
{
	const char *p = diag_progname();
	char formats[128];

	format_words(OUT_CPUSTAT, formats, sizeof(formats), "|", "|");
	fprintf(out,
	    "Usage:\n"
	    "\t%s -c spec [-c spec]... [-p period] [-T u|d]\n"
	    "\t\t[-sntD] [--format=%s]\n"
	    "\t\t[--output=file | --output-fd=fd] [-C list | --cpus=list]\n"
	    "\t\t[--per-core | --per-die | --per-socket | --per-node |\n"
	    "\t\t --per-cache[=Ln]]\n"
	    "\t\t[--shared | --exclusive] [--metrics] [-M name[,name]]\n",
	    p, formats);
	sinks_synopsis(out, OUT_CPUSTAT);
	fprintf(out,
	    "\t\t[interval [count]]\n"
	    "\t%s --input=file [-M name[,name]] [--format=...]\n"
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
	    "\t--format=%s\n"
	    "\t\t  output format, default table\n"
	    "\t--output=file\n"
	    "\t\t  write cpu statistics to this file\n"
	    "\t--output-fd=fd\n"
	    "\t\t  write cpu statistics to this open descriptor\n",
	    p, p, CPC_TICKREG_NAME, formats);
	sinks_help(out, OUT_CPUSTAT, OUT_USAGE_DESTINATION);
	fprintf(out,
	    "\t--metrics\n"
	    "\t\t  add perf's derived metrics (insn per cycle, CPUs\n"
	    "\t\t  utilized, ...) to each row of counts\n"
	    "\t-M name[,name]\n"
	    "\t\t  count perf's metrics and metric groups of this CPU\n"
	    "\t\t  (TopdownL1, tma_retiring, MemoryBW: --list names them)\n"
	    "\t--metric-only\n"
	    "\t\t  print the metrics alone, a column each\n"
	    "\t--metric-no-group\n"
	    "\t\t  open each metric's events without a group\n"
	    "\t--metric-no-threshold\n"
	    "\t\t  show every metric, not only under crossed thresholds\n"
	    "\t--input=file\n"
	    "\t\t  print a JSON Lines record again instead of counting\n"
	    "\t--dry-run print what would be counted, and exit\n");
	sinks_help(out, OUT_CPUSTAT, OUT_USAGE_METRICS);
	fprintf(out,
	    "\t-C list, --cpus=list\n"
	    "\t\t  measure only these CPUs (e.g. 0-3,6)\n"
	    "\t--per-core, --per-die, --per-socket, --per-node\n"
	    "\t\t  a row per core (S0-D0-C1), die (S0-D0), socket (S0)\n"
	    "\t\t  or NUMA node (N0), its CPUs summed, per interval\n"
	    "\t--per-cache[=Ln]\n"
	    "\t\t  a row per cache of level n (S0-D0-L3-ID0; without n,\n"
	    "\t\t  the highest), its CPUs summed, per interval\n"
	    "\t--shared  count hardware events without holding counters\n"
	    "\t\t  (multiplexed with everyone)\n"
	    "\t--exclusive\n"
	    "\t\t  hold each CPU's whole PMU, as Solaris did\n");
	sinks_help(out, OUT_CPUSTAT, OUT_USAGE_RUN);
	fprintf(out,
	    "\t--list[=glob]\n"
	    "\t\t  list every countable event (matching glob), and exit\n"
	    "\t--help\t  print this usage and exit\n"
	    "\t--version print the version and exit\n"
	    "\n"
	    "\tWithout -c, perf stat's default events, as far as this\n"
	    "\tmachine counts them. perf users: -a and -A (what cpustat\n"
	    "\tdoes), -e event (-c), -I msec, -x sep, -j (--json), -o file.\n"
	    "\n"
	    "\tUse cputrack(1) to monitor per-process statistics.\n");
}

/*
 * Why this thread's CPU could not be bound, as libcpc said it: the
 * counters it needs are held (CPC_COUNTERS_HELD), or the core PMU of a
 * hybrid CPU's core type has no such event (CPC_INVALID_EVENT). Kept for
 * the CPU's one line.
 */
static __thread char bind_why[512];

void
cpustat_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	size_t n;

	if (subcode == CPC_ATTR_REQUIRES_PRIVILEGE)
		return;
	if (subcode != CPC_COUNTERS_HELD &&
	    (subcode != CPC_INVALID_EVENT || fn == NULL ||
		strcmp(fn, "cpc_bind_cpu") != 0)) {
		diag_errhndlr(fn, subcode, fmt, ap);
		return;
	}
	vsnprintf(bind_why, sizeof(bind_why), fmt, ap);
	n = strlen(bind_why);
	if (n > 0 && bind_why[n - 1] == '\n')
		bind_why[n - 1] = '\0';
}

const char *
cpustat_bind_why(void)
{
	return bind_why;
}

void
cpustat_bind_why_clear(void)
{
	bind_why[0] = '\0';
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
parse_count(struct cpustat_opts *o, const char *arg)
{
	const char *errstr;

	o->count = (unsigned long)strtonum(arg, 1, LLONG_MAX, &errstr);
	if (errstr != NULL) {
		diag(NULL, "invalid argument \"%s\"\n", arg);
		return false;
	}
	return true;
}

/*
 * perf stat -a CMD counts the machine for the command's life; cpustat
 * counts it for interval [count]. The line says what to type: for
 * sleep SECS, the same run; for any other command, cputrack's.
 */
static void
command_misread(int argc, char **argv)
{
	double secs;

	if (strcmp(argv[0], "sleep") == 0 && argc == 2 &&
	    parse_seconds(argv[1], &secs, 0.001)) {
		diag(NULL,
		    "-a sleep %s: cpustat counts the machine for interval "
		    "[count], not a command's life: type cpustat %s 1\n",
		    argv[1], argv[1]);
		return;
	}
	diag(NULL,
	    "-a %s: cpustat counts the machine for interval [count], not a "
	    "command's life: type cpustat secs 1, or cputrack %s for the "
	    "command alone\n",
	    argv[0], argv[0]);
}

/* interval [count], or -I's count; false for a bad operand (said). */
static bool
parse_operands(struct cpustat_opts *o, int argc, char **argv)
{
	double secs;

	if (o->system_wide && argc >= 1 && !o->interval_given &&
	    !parse_seconds(argv[0], &secs, 0.001)) {
		command_misread(argc, argv);
		return false;
	}
	if (o->interval_given && argc > 1) {
		diag(NULL,
		    "too many operands: \"%s\" (with -I, a count at most)\n",
		    argv[1]);
		return false;
	}
	if (o->interval_given)
		return argc == 0 || parse_count(o, argv[0]);
	if (argc > 2) {
		diag(NULL,
		    "too many operands: \"%s\" (an interval and a count at "
		    "most)\n",
		    argv[2]);
		return false;
	}
	if (argc == 2 && !parse_count(o, argv[1]))
		return false;
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

/* perf's -I MSEC: the interval in milliseconds, the operands a count. */
static void
interval_ms_option(struct cpustat_opts *o, const char *arg, bool *bad)
{
	const char *errstr;

	o->interval_ms = (unsigned)strtonum(arg, 1, UINT32_MAX, &errstr);
	if (errstr != NULL) {
		diag(NULL,
		    "invalid interval \"%s\" for -I (milliseconds, 1 or "
		    "more)\n",
		    arg);
		*bad = true;
	}
	o->interval_given = true;
}

/* --shared or --exclusive: one of them at most. */
static int
hold_option(struct cpustat_opts *o, uint_t flag, bool *bad)
{
	if (o->hold != 0 && o->hold != flag) {
		diag(NULL, "--shared and --exclusive exclude each other\n");
		*bad = true;
	}
	o->hold = flag;
	return 0;
}

/* --per-core, --per-die, --per-socket, --per-node or --per-cache. */
static void
per_unit_option(struct cpustat_opts *o, int unit, bool *bad)
{
	if (o->per_unit != 0 && o->per_unit != unit) {
		diag(NULL,
		    "--per-core, --per-die, --per-socket, --per-node and "
		    "--per-cache exclude each other\n");
		*bad = true;
	}
	o->per_unit = unit;
}

/* --per-cache[=Ln] (perf's spelling, l3 as L3, 3 too); 0: the highest. */
static void
per_cache_option(struct cpustat_opts *o, const char *level, bool *bad)
{
	const char *digits = level;
	const char *errstr;

	per_unit_option(o, TOPO_CACHE, bad);
	o->cache_level = 0;
	if (level == NULL)
		return;
	if (*digits == 'L' || *digits == 'l')
		digits++;
	o->cache_level = (int)strtonum(digits, 1, 9, &errstr);
	if (errstr != NULL) {
		diag(NULL, "--per-cache=%s: not a cache level (L1, L2, L3)\n",
		    level);
		*bad = true;
	}
}

/*
 * perf stat's letters that mean nothing for whole CPUs, or have another
 * spelling here: one line each, with what to type.
 */
static const struct {
	int option;
	const char *answer;
} perf_answers[] = {
	{ 'i',
	    "-i: cpustat counts whole CPUs, where no task inherits "
	    "counters: drop -i (perf's --no-inherit)" },
	{ 'g',
	    "-g: each -c set is counted as one group already: drop -g "
	    "(perf's --group)" },
	{ 'd',
	    "-d: cpustat has no detailed sets: name the events with -c, "
	    "or a metric group with -M (perf's -d)" },
	{ 'v', "-v: cpustat's -D says what it does (perf's --verbose)" },
	{ 'B',
	    "-B: cpustat prints plain numbers: drop -B (perf's "
	    "--big-num)" },
	{ 'q',
	    "-q: cpustat has no quiet mode: send the rows to a file with "
	    "-o file (perf's --quiet)" },
	{ 'S', "-S: cpustat calls no sync(): drop -S (perf's --sync)" },
	{ OPT_PER_THREAD,
	    "--per-thread: cpustat counts whole CPUs; a row "
	    "per thread is cputrack's (cputrack -p pid)" },
};

static void
perf_letter_refused(int c, const char *value)
{
	const char *errstr;
	long long ms;
	size_t i;

	switch (c) {
	case OPT_TIMEOUT:
		ms = strtonum(value, 1, UINT32_MAX, &errstr);
		if (errstr != NULL)
			diag(NULL,
			    "--timeout=%s: not a number of milliseconds; "
			    "cpustat stops after interval [count]: type "
			    "cpustat secs 1\n",
			    value);
		else
			diag(NULL,
			    "--timeout=%s: cpustat stops after interval "
			    "[count]: type cpustat %g 1\n",
			    value, (double)ms / 1000);
		return;
	case OPT_INTERVAL_COUNT:
		diag(NULL,
		    "--interval-count=%s: cpustat's count is an operand: "
		    "type cpustat -I msec %s\n",
		    value, value);
		return;
	}
	for (i = 0; i < sizeof(perf_answers) / sizeof(perf_answers[0]); i++)
		if (perf_answers[i].option == c)
			diag(NULL, "%s\n", perf_answers[i].answer);
}

/* One of cpustat's own options. */
static int
option(void *arg, int c, const char *value, bool *bad)
{
	struct cpustat_opts *o = &((struct cpustat *)arg)->opt;
	double period;
	int status;

	switch (c) {
	case 'T':
		/* Only the first letter counts, as in the original. */
		if (value[0] != 'u' && value[0] != 'd') {
			diag(NULL, "invalid argument \"%s\" for -T (u or d)\n",
			    value);
			*bad = true;
		}
		o->timestamp = value[0];
		break;
	case 's':
		o->soak = true;
		break;
	case 'p':
		if (!parse_seconds(value, &period, 0)) {
			diag(NULL, "invalid parameter \"%s\"\n", value);
			*bad = true;
			break;
		}
		o->rest_ms = (long)(period * 1000);
		break;
	case OPT_CPUS:
	case 'C': /* perf's letter */
		if (cpus_parse_list(value, &o->cpus) != 0) {
			diag(NULL, "invalid CPU list \"%s\"\n", value);
			*bad = true;
		}
		o->have_cpus = true;
		break;
	case 'I':
		interval_ms_option(o, value, bad);
		break;
	case 'e': /* perf's -e EVENT is -c's */
		if ((status = setgrp_add(
			 ((struct cpustat *)arg)->specs, value)) > 0)
			return status;
		*bad = *bad || status < 0;
		break;
	case 'a': /* perf's system-wide, per-CPU counts: cpustat's own */
		o->system_wide = true;
		break;
	case 'A':
		break;
	case 'i':
	case 'g':
	case 'd':
	case 'v':
	case 'B':
	case 'q':
	case 'S':
	case OPT_PER_THREAD:
	case OPT_TIMEOUT:
	case OPT_INTERVAL_COUNT:
		perf_letter_refused(c, value);
		*bad = true;
		break;
	case 'G':
		diag(NULL,
		    "-G: cpustat counts whole CPUs; count a cgroup with "
		    "cputrack --cgroup=%s\n",
		    value);
		*bad = true;
		break;
	case 'r':
		diag(NULL,
		    "-r: cpustat starts no command to repeat; repeat one with "
		    "cputrack -r %s command\n",
		    value);
		*bad = true;
		break;
	case OPT_PER_CORE:
		per_unit_option(o, TOPO_CORE, bad);
		break;
	case OPT_PER_DIE:
		per_unit_option(o, TOPO_DIE, bad);
		break;
	case OPT_PER_SOCKET:
		per_unit_option(o, TOPO_SOCKET, bad);
		break;
	case OPT_PER_NODE:
		per_unit_option(o, TOPO_NODE, bad);
		break;
	case OPT_PER_CACHE:
		per_cache_option(o, value, bad);
		break;
	case OPT_SHARED:
	case OPT_EXCLUSIVE:
		return hold_option(o,
		    c == OPT_SHARED ? CPC_BIND_SHARED : CPC_BIND_EXCLUSIVE,
		    bad);
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

bool
cpustat_options(struct cpustat *cs, int argc, char **argv, int *status)
{
	struct cmdline cl = {
		.tool = OUT_CPUSTAT,
		.optstring = ":Dc:hntT:sp:I:x:je:aAG:r:C:M:o:igdvBqS",
		.options = own_options,
		.quote = '"',
		.output_name = "--output",
		.stop_at_bad = true,
		.numeric_operands = true,
		.usage = usage,
		.option = option,
		.arg = cs,
		.cpc = cs->cpc,
		.specs = cs->specs,
	};

	if (!cmdline_parse(&cl, argc, argv, status))
		return false;
	cs->opt.out = cl.out;
	cs->opt.out.per_unit = cs->opt.per_unit;
	cs->opt.out.cpus_chosen = cs->opt.have_cpus;
	if (!parse_operands(&cs->opt, argc - optind, argv + optind)) {
		*status = 2; /* said */
		return false;
	}
	apply_period(&cs->opt, setgrp_nsets(cs->specs));
	return true;
}
