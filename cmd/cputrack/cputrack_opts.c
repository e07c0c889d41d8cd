/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's command line: its own options and operands, on the parser
 * both commands share (cmdline.c). Nothing here exits: the caller does,
 * with the status it is given.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "cpctools_version.h"
#include "cputrack_engine.h"
#include "cputrack_opts.h"
#include "defaults.h"
#include "diag.h"
#include "export.h"
#include "format_words.h"
#include "progpath.h"
#include "sinks.h"
#include "top.h"

enum {
	OPT_STRICT_EXEC = CMDLINE_OWN,
	OPT_ENGINE,
	OPT_PASS_STATUS,
	OPT_CGROUP,
	OPT_EACH_CGROUP,
	OPT_TID,
	OPT_PER_THREAD,
	OPT_REPEAT
};

/* The name under which cputrack is cputrack --top. */
#define TOP_NAME "cputop"

/* -r's bound: enough for any statistics, and no accidental forever. */
#define MAX_REPEAT 100000

static const struct option own_options[] = {
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "for-each-cgroup", required_argument, NULL, OPT_EACH_CGROUP },
	{ "pass-status", no_argument, NULL, OPT_PASS_STATUS },
	{ "strict-exec", no_argument, NULL, OPT_STRICT_EXEC },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *out)
{
	const char *p = diag_progname();
	char names[64], formats[128];

	engine_names(names, sizeof(names), "|", "|");
	format_words(OUT_CPUTRACK, formats, sizeof(formats), "|", "|");
	/* The view's usage is its own: cputop has none of the rows'. */
	if (strcmp(p, TOP_NAME) == 0) {
		top_usage(out, names);
		return;
	}
	fprintf(out,
	    "Usage:\n"
	    "\t%s [-T secs] [-N count] [-Defhntv] [-o file]\n"
	    "\t\t[--format=%s]\n"
	    "\t\t[--output-fd=fd] [--strict-exec] [--engine=%s]\n"
	    "\t\t[--pass-status] [--metrics]\n",
	    p, formats, names);
	sinks_synopsis(out, OUT_CPUTRACK);
	fprintf(out,
	    "\t\t-c events [command [args] | -p pid[,pid]... |\n"
	    "\t\t--tid=tid[,tid]... | --cgroup=dir |\n"
	    "\t\t--for-each-cgroup=dir[,depth=n][,max=n][,readonly]\n"
	    "\t\t[,kubelet-root=path]]\n"
	    "\t%s --input=file [-M name[,name]] [--format=...]\n"
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
	    "\t-p pid[,pid]...\n"
	    "\t\t  pids of existing processes to capture (-p may be\n"
	    "\t\t  repeated)\n"
	    "\t--tid=tid[,tid]...\n"
	    "\t\t  count only these threads of existing processes, not\n"
	    "\t\t  those made later (--tid may be repeated)\n"
	    "\t--cgroup=dir\n"
	    "\t\t  every process in a cgroup (v2) and below it, those\n"
	    "\t\t  that come included, while they are there (BPF engine)\n"
	    "\t--for-each-cgroup=dir[,depth=n][,max=n][,readonly]\n"
	    "\t\t[,kubelet-root=path]\n"
	    "\t\t  as --cgroup, with rows and series of each cgroup apart\n"
	    "\t\t  (n levels below dir at most; max of them, default %u;\n"
	    "\t\t  pod labels only below the kubelet's root path)\n"
	    "\t--format=%s\n"
	    "\t\t  output format, default table\n"
	    "\t--output=file\n"
	    "\t\t  the same as -o file\n"
	    "\t--output-fd=fd\n"
	    "\t\t  write cpu statistics to this open descriptor\n",
	    p, p, CPC_TICKREG_NAME, CGROUPS_MAX_DEFAULT, formats);
	sinks_help(out, OUT_CPUTRACK, OUT_USAGE_DESTINATION);
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
	sinks_help(out, OUT_CPUTRACK, OUT_USAGE_METRICS);
	fprintf(out,
	    "\t--engine=%s\n"
	    "\t\t  how threads are followed and counted:\n",
	    names);
	engine_help(out);
	fprintf(out,
	    "\t--strict-exec\n"
	    "\t\t  without -e, no exec is followed, not even a wrapper's\n"
	    "\t\t  (env, nice) before it makes a thread or a process\n"
	    "\t--pass-status\n"
	    "\t\t  exit with the command's status (128 + signal if a\n"
	    "\t\t  signal ended it) when the run itself succeeded\n"
	    "\t-r count, --repeat=count\n"
	    "\t\t  run the command count times, then give each event's\n"
	    "\t\t  mean, +- %%, min and max over the runs\n");
	sinks_help(out, OUT_CPUTRACK, OUT_USAGE_RUN);
	fprintf(out,
	    "\t--list[=glob]\n"
	    "\t\t  list every countable event (matching glob), and exit\n"
	    "\t--help\t  print this usage and exit\n"
	    "\t--version print the version and exit\n"
	    "\n"
	    "\tWithout -c, perf stat's default events, as far as this\n"
	    "\tmachine counts them. perf users: -I msec, -x sep, -j (--json),\n"
	    "\t-G dir (--cgroup), --per-thread; perf's -e is -c, its -t --tid.\n"
	    "\n");
	fputc('\t', out);
	engine_line(out);
	fprintf(out,
	    "\n"
	    "\tUse " CPCTOOLS_CPUSTAT_NAME
	    "(1) to monitor system-wide statistics.\n");
}

static void
parse_interval(struct cputrack_opts *o, bool *bad, const char *arg)
{
	double secs;
	char *end;

	errno = 0;
	secs = strtod(arg, &end);
	/* !(secs >= 0) also refuses "nan". */
	if (arg[0] == '\0' || *end != '\0' || errno != 0 || !(secs >= 0) ||
	    secs * 1000 > (double)UINT_MAX || (secs > 0 && secs < 0.001)) {
		diag(NULL,
		    "invalid interval '%s' (0, or from 0.001 to %u "
		    "seconds)\n",
		    arg, UINT_MAX / 1000);
		*bad = true;
		return;
	}
	o->interval_ms = (unsigned)(secs * 1000);
}

/* perf's -I MSEC: the interval in milliseconds. */
static void
parse_interval_ms(struct cputrack_opts *o, bool *bad, const char *arg)
{
	const char *errstr;

	o->interval_ms = (unsigned)strtonum(arg, 1, UINT_MAX, &errstr);
	if (errstr != NULL) {
		diag(NULL,
		    "invalid interval '%s' for -I (milliseconds, 1 or more)\n",
		    arg);
		*bad = true;
	}
}

/* -T secs or -I msec: one of them. */
static void
interval_option(struct cputrack_opts *o, bool *bad, int c, const char *arg)
{
	if (o->interval_by != '\0' && o->interval_by != c) {
		diag(NULL, "-T and -I cannot be given together\n");
		*bad = true;
		return;
	}
	o->interval_by = (char)c;
	if (c == 'T')
		parse_interval(o, bad, arg);
	else
		parse_interval_ms(o, bad, arg);
}

static long long
parse_number(
    bool *bad, const char *what, const char *arg, long long min, long long max)
{
	const char *errstr;
	long long n = strtonum(arg, min, max, &errstr);

	if (errstr != NULL) {
		diag(NULL, "invalid %s '%s'\n", what, arg);
		*bad = true;
	}
	return n;
}

/* A list of ids, -p's pids or --tid's tids; what says "pid" or "tid". */
struct id_list {
	pid_t **ids;
	size_t *n;
	const char *what;
};

/* Why an id token is bad, from strtonum's answer. */
static const char *
id_fault(const char *tok, const char *errstr, const char *what)
{
	if (tok[0] == '\0')
		return "empty";
	if (strcmp(errstr, "too small") == 0)
		return strcmp(what, "pid") == 0 ? "a pid is 1 or more" :
						  "a tid is 1 or more";
	if (strcmp(errstr, "too large") == 0)
		return "too large";
	return "not a number";
}

/* One id of a list, tok within arg; false when it is bad (said). */
static bool
add_id(const struct id_list *l, const char *tok, const char *arg)
{
	const char *errstr;
	pid_t id = (pid_t)strtonum(tok, 1, INT_MAX, &errstr);
	pid_t *more;
	size_t i;

	if (errstr != NULL || tok[0] == '\0') {
		if (strcmp(tok, arg) == 0)
			diag(NULL, "invalid %s '%s'\n", l->what, arg);
		else
			diag(NULL, "invalid %s '%s' in '%s' (%s)\n", l->what,
			    tok, arg,
			    id_fault(
				tok, errstr != NULL ? errstr : "", l->what));
		return false;
	}
	for (i = 0; i < *l->n; i++)
		if ((*l->ids)[i] == id) {
			diag(NULL, "%s %d is listed twice\n", l->what, (int)id);
			return false;
		}
	if ((more = reallocarray(*l->ids, *l->n + 1, sizeof(*more))) == NULL) {
		diag(NULL, "no memory available\n");
		return false;
	}
	*l->ids = more;
	(*l->ids)[(*l->n)++] = id;
	return true;
}

/*
 * -p's or --tid's argument: ids separated by commas; the option again
 * adds to the list. The first bad one is said.
 */
static void
parse_ids(const struct id_list *l, bool *bad, const char *arg)
{
	char *copy, *tok, *rest;

	if ((copy = strdup(arg)) == NULL) {
		diag(NULL, "no memory available\n");
		*bad = true;
		return;
	}
	rest = copy;
	do {
		tok = strsep(&rest, ",");
		if (!add_id(l, tok, arg)) {
			*bad = true;
			break;
		}
	} while (rest != NULL);
	free(copy);
}

static const char *
cgroup_option(const struct cputrack_opts *o)
{
	return o->each_cgroup ? "--for-each-cgroup" : "--cgroup";
}

/* Resolved at once: a bad directory is bad input, said before anything. */
static void
parse_cgroup(struct cputrack_opts *o, bool *bad, const char *arg)
{
	char why[PATH_MAX + 128];

	free(o->cgroup);
	if ((o->cgroup = malloc(sizeof(*o->cgroup))) == NULL) {
		diag(NULL, "no memory available\n");
		*bad = true;
		return;
	}
	if (cgroup_dir_resolve(arg, o->cgroup, why, sizeof(why)) != 0) {
		diag(NULL, "%s %s\n", cgroup_option(o), why);
		*bad = true;
	}
}

/*
 * readonly: the run may not start where a cgroup could be changed through
 * what it sees (a node daemon's container, given the host's hierarchy):
 * the manifest asks for it, so that a mount made writable by a layout or
 * a cluster the manifest did not foresee stops the daemon, not the host.
 */
static void
require_readonly(bool *bad)
{
	char which[PATH_MAX + 32];
	FILE *f;
	int found;

	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL) {
		diag(NULL,
		    "--for-each-cgroup: readonly: cannot read "
		    "/proc/self/mountinfo - %s\n",
		    strerror(errno));
		*bad = true;
		return;
	}
	found = cgroup_writable_mount(f, which, sizeof(which));
	fclose(f);
	if (found) {
		diag(NULL,
		    "--for-each-cgroup: readonly: %s is mounted read-write: "
		    "a cgroup could be changed from here\n",
		    which);
		*bad = true;
	}
}

/*
 * kubelet-root=path: the kubelet's cgroup root, where the exporter would
 * not find it, as a path in the hierarchy; a bad one is said at once.
 */
static void
parse_kubelet_root(struct cputrack_opts *o, bool *bad, const char *path)
{
	const char *why = export_kubelet_root_invalid(path);

	free(o->kubelet_root);
	o->kubelet_root = NULL;
	if (why != NULL) {
		diag(
		    NULL, "--for-each-cgroup: kubelet-root=%s %s\n", path, why);
		*bad = true;
	} else if ((o->kubelet_root = strdup(path)) == NULL) {
		diag(NULL, "no memory available\n");
		*bad = true;
	}
	o->out.kubelet_root = o->kubelet_root;
}

/*
 * --for-each-cgroup=dir[,depth=n][,max=n][,readonly][,kubelet-root=path]:
 * the directory as --cgroup's, then how deep its cgroups are kept apart
 * and how many of them, whether every cgroup mount must be read-only, and
 * where the kubelet's pods are.
 */
static void
parse_each_cgroup(struct cputrack_opts *o, bool *bad, const char *arg)
{
	char *dir = strdup(arg), *comma, *opt;
	bool readonly = false;

	if (dir == NULL) {
		diag(NULL, "no memory available\n");
		*bad = true;
		return;
	}
	o->each_cgroup = true;
	free(o->kubelet_root);
	o->kubelet_root = NULL;
	o->out.kubelet_root = NULL;
	o->cgroup_depth = CGROUP_DEPTH_DEFAULT;
	o->cgroups_max = CGROUPS_MAX_DEFAULT;
	while ((comma = strrchr(dir, ',')) != NULL) {
		*comma = '\0';
		opt = comma + 1;
		if (strncmp(opt, "depth=", 6) == 0)
			o->cgroup_depth = (unsigned)parse_number(
			    bad, "depth", opt + 6, 0, CGROUP_DEPTH_ALL);
		else if (strncmp(opt, "max=", 4) == 0)
			o->cgroups_max = (unsigned)parse_number(
			    bad, "max", opt + 4, 1, CGROUPS_MAX_LIMIT);
		else if (strcmp(opt, "readonly") == 0)
			readonly = true;
		else if (strncmp(opt, "kubelet-root=", 13) == 0)
			parse_kubelet_root(o, bad, opt + 13);
		else {
			diag(NULL,
			    "--for-each-cgroup: '%s' is not depth=n, max=n, "
			    "readonly or kubelet-root=path\n",
			    opt);
			*bad = true;
		}
	}
	parse_cgroup(o, bad, dir);
	if (readonly && !*bad)
		require_readonly(bad);
	free(dir);
}

/*
 * Only an engine that sees a process come into a cgroup counts one, so
 * --cgroup counts with it. 0, or the status to exit with.
 */
static int
cgroup_engine(struct cputrack_opts *o)
{
	const struct engine *sees = engine_seeing_cgroups();

	if (o->engine_given && o->engine != NULL && !o->engine->sees_cgroups) {
		diag(NULL,
		    "%s needs the %s engine: the %s engine cannot "
		    "see a process come into a cgroup\n",
		    cgroup_option(o), sees->says, o->engine->says);
		return 2;
	}
	o->engine = sees;
	/* Each cgroup apart is what the kernel gives CPU-wide counters. */
	if (o->each_cgroup && sees->may_count_cpus != NULL &&
	    !sees->may_count_cpus()) {
		diag(NULL,
		    "--for-each-cgroup counts whole CPUs: it needs CAP_PERFMON "
		    "(root has it)\n");
		return 2;
	}
	/* Whatever its processes make or run is the cgroup's. */
	o->follow_fork = o->follow_exec = true;
	if (o->pass_status) {
		diag(NULL, "--pass-status needs a command to start, not %s\n",
		    cgroup_option(o));
		return 2;
	}
	return 0;
}

/* --engine: a name of the engines' table, or auto. */
static void
engine_option(struct cputrack *ct, bool *bad, const char *value)
{
	char names[64];

	ct->opt.engine_given = true;
	if (engine_parse(value, &ct->opt.engine) != 0) {
		diag(NULL, "invalid engine '%s' (%s)\n", value,
		    engine_names(names, sizeof(names), ", ", " or "));
		*bad = true;
	} else
		engine_probe_where(ct, ct->opt.engine);
}

/* One of cputrack's own options. */
static int
option(void *arg, int c, const char *value, bool *bad)
{
	struct cputrack *ct = arg;
	struct cputrack_opts *o = &ct->opt;

	switch (c) {
	case 'T':
	case 'I':
		interval_option(o, bad, c, value);
		break;
	case 'G': /* perf's -G CGROUP */
		o->each_cgroup = false;
		parse_cgroup(o, bad, value);
		break;
	case OPT_PER_THREAD: /* perf's: the rows are per thread already */
		break;
	case 'a':
		diag(NULL,
		    "-a: cputrack counts processes; count every CPU with "
		    "cpustat (perf's -a)\n");
		*bad = true;
		break;
	case 'N':
		o->nsamples =
		    (unsigned)parse_number(bad, "count", value, 0, UINT_MAX);
		break;
	case 'e':
		o->follow_exec = true;
		break;
	case 'f':
		o->follow_fork = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case 'p':
		parse_ids(&(struct id_list) { &o->pids, &o->npids, "pid" }, bad,
		    value);
		break;
	case OPT_TID:
		parse_ids(&(struct id_list) { &o->tids, &o->ntids, "tid" }, bad,
		    value);
		break;
	case OPT_STRICT_EXEC:
		o->strict_exec = true;
		break;
	case OPT_CGROUP:
		o->each_cgroup = false;
		parse_cgroup(o, bad, value);
		break;
	case OPT_EACH_CGROUP:
		parse_each_cgroup(o, bad, value);
		break;
	case OPT_PASS_STATUS:
		o->pass_status = true;
		break;
	case OPT_ENGINE:
		engine_option(ct, bad, value);
		break;
	case 'r':
	case OPT_REPEAT:
		o->repeat = (unsigned)parse_number(
		    bad, "repeat count", value, 1, MAX_REPEAT);
		break;
	}
	return 0;
}

/*
 * Whether a word names events only: one event, or a list of them joined
 * by commas as perf's -e takes them.
 */
static bool
word_names_events(cpc_t *cpc, const char *word)
{
	char name[256];
	const char *p = word, *comma;
	size_t len;

	do {
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= sizeof(name))
			return false;
		memcpy(name, p, len);
		name[len] = '\0';
		if (cpc_event_kind(cpc, name) == NULL)
			return false;
		p += len + 1;
	} while (comma != NULL);
	return true;
}

/*
 * perf's -e EVENT and -t TID mean something else here (follow exec, the
 * tsc column): a command word that is no program but an event or a
 * thread id is taken for what the user meant, and answered in one line.
 */
static int
perf_letter_misread(const struct cputrack *ct, const char *word)
{
	char path[PATH_MAX];
	const char *d;
	bool tid, event;

	for (d = word; *d >= '0' && *d <= '9'; d++)
		continue;
	tid = ct->opt.out.tsc && d != word && *d == '\0';
	event = ct->opt.follow_exec && word_names_events(ct->cpc, word);
	/* The search of PATH only where the word could be misread. */
	if ((!tid && !event) || program_path(word, path, sizeof(path)))
		return 0;
	if (tid)
		return cmdline_usage_error(
		    "-t adds the tsc column here; to count thread %s, "
		    "use --tid=%s (perf's -t)",
		    word, word);
	return cmdline_usage_error(
	    "-e follows exec here; to count %s, use -c %s "
	    "(perf's -e)",
	    word, word);
}

/*
 * --tid counts the named threads and nothing they or others make: it
 * takes no other target, and no option that follows processes. The
 * first conflict, said; 0 when there is none.
 */
static int
tids_conflict(const struct cputrack_opts *o, int argc, char **argv)
{
	if (o->npids != 0)
		return cmdline_usage_error(
		    "--tid and -p cannot be given together");
	if (o->cgroup != NULL)
		return cmdline_usage_error(
		    "--tid and %s cannot be given together", cgroup_option(o));
	if (optind < argc)
		return cmdline_usage_error(
		    "--tid and a command ('%s') cannot be given together",
		    argv[optind]);
	if (o->follow_fork)
		return cmdline_usage_error(
		    "--tid and -f cannot be given together: --tid counts "
		    "threads, -f follows processes");
	if (o->follow_exec)
		return cmdline_usage_error(
		    "--tid and -e cannot be given together: an exec ends "
		    "the named threads");
	if (o->pass_status) {
		diag(NULL,
		    "--pass-status needs a command to start, not --tid\n");
		return 2;
	}
	return 0;
}

/*
 * -r repeats a command it starts, into rows that a stream can hold one
 * run after another. The first conflict, said; 0 when there is none.
 */
static int
repeat_conflict(const struct cputrack_opts *o, int argc)
{
	const struct out_config *out = &o->out;
	char words[64];

	if (o->npids != 0 || o->ntids != 0 || o->cgroup != NULL ||
	    optind >= argc)
		return cmdline_usage_error(
		    "-r repeats a command that cputrack starts: give one, "
		    "not -p, --tid or --cgroup");
	if (sinks_any_wanted(out, NULL) ||
	    !output_format_summarizes(out->format))
		return cmdline_usage_error(
		    "-r writes rows and their summary: --format=%s, "
		    "without --listen",
		    format_summary_words(words, sizeof(words), ", ", " or "));
	return 0;
}

/*
 * --top with no target: the whole machine, as its root cgroup, which the
 * engine that sees cgroups counts (engine_instead when it cannot); with
 * no cgroup v2 hierarchy, or an engine that traces a target asked for,
 * the engine that stands in (cputop's processes counted from outside).
 * 0, or 1 for no memory.
 */
static int
top_machine(struct cputrack *ct)
{
	struct cputrack_opts *o = &ct->opt;
	char why[PATH_MAX + 128];
	const char *reason;

	o->top_machine = true;
	if (o->engine_given && o->engine != NULL && !o->engine->sees_cgroups) {
		snprintf(why, sizeof(why), "--engine=%s traces a target",
		    o->engine->name);
		(void)engine_instead(ct, why);
		return 0;
	}
	if ((o->cgroup = malloc(sizeof(*o->cgroup))) == NULL) {
		diag(NULL, "no memory available\n");
		return 1;
	}
	if (cgroup_dir_resolve("/", o->cgroup, why, sizeof(why)) == 0) {
		strlcpy(o->watching, "the whole machine", sizeof(o->watching));
		return 0;
	}
	/* The reason, not the directory the user never named. */
	reason = strncmp(why, "'/': ", 5) == 0 ? why + 5 : why;
	diag(NULL, "%s: counting %s from outside, one by one\n", reason,
	    geteuid() == 0 ? "every process" : "your processes");
	(void)engine_instead(ct, reason);
	return 0;
}

/*
 * The view's line for the events that count user mode only by Solaris's
 * rule, where this user may count kernel mode too, as perf stat then does:
 * its counts are smaller than perf's, and the line says why.
 */
static void
modes_note(struct cputrack *ct)
{
	char *note = ct->opt.modes_note;
	size_t size = sizeof(ct->opt.modes_note), n = 0;
	const struct spec *spec;
	int s, r;

	note[0] = '\0';
	if (!defaults_kernel_countable())
		return;
	for (s = 0; s < setgrp_nsets(ct->specs); s++) {
		spec = setgrp_spec(ct->specs, s);
		for (r = 0; r < spec->nreqs && n < size; r++)
			if (spec->reqs[r].user_by_rule &&
			    strstr(note, spec->reqs[r].name) == NULL)
				n +=
				    (size_t)snprintf(note + n, size - n, "%s%s",
					n > 0 ? ", " : "", spec->reqs[r].name);
	}
	if (n > 0 && n < size)
		snprintf(note + n, size - n,
		    ": user mode only, by Solaris's rule (perf stat counts "
		    "kernel mode too: add ,sys)");
	ct->opt.view->modes_note = n > 0 ? note : NULL;
}

/*
 * --top (or cputop): the view instead of rows, on the terminal or (-b) as
 * text; cputop with no target watches the whole machine. 0, or the
 * status to exit with, said.
 */
static int
top_options(struct cputrack *ct, int argc)
{
	struct cputrack_opts *o = &ct->opt;
	struct out_config *out = &o->out;
	const char *refused;

	/* What the view must know of the run to say what it refuses. */
	o->view->on = o->top;
	o->view->repeat = o->repeat != 0;
	o->view->tick_ms = o->interval_ms;
	if ((refused = top_refusal(out, o->view)) != NULL)
		return cmdline_usage_error("%s", refused);
	if (!o->top)
		return 0;
	if (optind >= argc && o->npids == 0 && o->ntids == 0 &&
	    o->cgroup == NULL && top_machine(ct) != 0)
		return 1;
	/*
	 * A live view shows what its processes make and run, as top does: a
	 * build's compilers, a server's workers (-ef). --tid counts threads.
	 */
	if (o->ntids == 0)
		o->follow_fork = o->follow_exec = true;
	/* Each refresh shows every set: one tick of each. */
	o->view->refresh_ms =
	    o->interval_ms * (unsigned)setgrp_nsets(ct->specs);
	o->view->watching = o->watching;
	out->metrics = true;
	modes_note(ct);
	return 0;
}

/* What --top watches, in words, for its header. */
static void
say_watching(struct cputrack_opts *o)
{
	char *w = o->watching;
	size_t i, size = sizeof(o->watching);

	if (!o->top || w[0] != '\0')
		return;
	if (o->cgroup != NULL)
		snprintf(w, size, "cgroup %s", o->cgroup->name);
	else if (o->command != NULL)
		snprintf(w, size, "'%s'", o->command[0]);
	for (i = 0; i < o->npids; i++)
		snprintf(w + strlen(w), size - strlen(w), "%s%d",
		    i ? "," : "pid ", (int)o->pids[i]);
	for (i = 0; i < o->ntids; i++)
		snprintf(w + strlen(w), size - strlen(w), "%s%d",
		    i ? "," : "tid ", (int)o->tids[i]);
}

/*
 * --engine with --input: how a run would count, which a record does not;
 * taken so that a wrapper that always names the engine reads records too.
 */
static const int record_options[] = { OPT_ENGINE, 0 };

bool
cputrack_options(struct cputrack *ct, int argc, char **argv, int *status)
{
	struct cmdline cl = {
		.tool = OUT_CPUTRACK,
		.optstring = "+:T:N:Defhntvo:r:c:p:I:x:jG:aM:",
		.options = own_options,
		.quote = '\'',
		.output_name = "-o",
		.usage = usage,
		.version = engine_line,
		.option = option,
		.record_options = record_options,
		.arg = ct,
		.cpc = ct->cpc,
		.specs = ct->specs,
	};
	char names[64];

	ct->opt.top = strcmp(diag_progname(), TOP_NAME) == 0;
	cl.runs_bare = ct->opt.top;
	if (!cmdline_parse(&cl, argc, argv, status))
		return false;
	ct->opt.out = cl.out;
	/* The view's options are its sink's: cputrack asks it. */
	ct->opt.view = sinks_config(&cl.out, "top");
	ct->opt.top = ct->opt.top || ct->opt.view->on;
	ct->opt.top_batch = ct->opt.view->batch;
	if ((*status = top_options(ct, argc)) != 0)
		return false;
	if (!ct->opt.engine_given && engine_default(&ct->opt.engine) != 0) {
		*status = cmdline_usage_error("invalid engine '%s' in %s (%s)",
		    getenv(ENGINE_ENV), ENGINE_ENV,
		    engine_names(names, sizeof(names), ", ", " or "));
		return false;
	}
	ct->opt.out.cgroup_names = ct->opt.each_cgroup;
	if (ct->opt.repeat != 0 &&
	    (*status = repeat_conflict(&ct->opt, argc)) != 0)
		return false;
	/* -r -n: the summary alone, as perf stat -r gives it. */
	ct->opt.out.summary_only = ct->opt.repeat != 0 && !ct->opt.out.title;
	if (ct->opt.ntids != 0) {
		*status = tids_conflict(&ct->opt, argc, argv);
		say_watching(&ct->opt);
		return *status == 0;
	}
	if (ct->opt.cgroup != NULL) {
		if (ct->opt.npids != 0) {
			*status = cmdline_usage_error(
			    "%s and -p cannot be given together",
			    cgroup_option(&ct->opt));
			return false;
		}
		if (optind < argc) {
			*status = cmdline_usage_error(
			    "%s and a command ('%s') cannot be given "
			    "together",
			    cgroup_option(&ct->opt), argv[optind]);
			return false;
		}
		*status = cgroup_engine(&ct->opt);
		say_watching(&ct->opt);
		return *status == 0;
	}
	/* cputop with no target, counted from outside. */
	if (ct->opt.instead != NULL)
		return true;
	/* A command to start, or -p: one of them. */
	if (optind >= argc && ct->opt.npids == 0) {
		*status = cmdline_usage_error(
		    "no command and no -p: give a command to start, -p pid, "
		    "--tid=tid or --cgroup=dir");
		return false;
	}
	if (optind < argc && ct->opt.npids != 0) {
		*status = cmdline_usage_error(
		    "-p and a command ('%s') cannot be given together",
		    argv[optind]);
		return false;
	}
	/* A captured process's status is its parent's, not cputrack's. */
	if (ct->opt.pass_status && ct->opt.npids != 0) {
		diag(NULL, "--pass-status needs a command to start, not -p\n");
		*status = 2;
		return false;
	}
	if (optind < argc &&
	    (*status = perf_letter_misread(ct, argv[optind])) != 0)
		return false;
	ct->opt.command = optind < argc ? &argv[optind] : NULL;
	/* The view stands where the command would: its status is cputop's. */
	if (ct->opt.top && ct->opt.command != NULL)
		ct->opt.pass_status = true;
	say_watching(&ct->opt);
	return true;
}
