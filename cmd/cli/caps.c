/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The capabilities listing that follows the usage text with -h, in the
 * layout the Solaris tools print and scripts read, and --list: every
 * countable event, one per line.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "out_buf.h"
#include "out_json.h"
#include "safename.h"

#define WRAP_AT	     76
#define EVENT_INDENT 17

struct names {
	FILE *out;
	int col;
};

/*
 * The names -h lists: the walkers' names less tracepoints (counted, and
 * listed by --list) and libpfm4's pmu::-prefixed spellings of names it
 * lists bare; the forms that take a parameter go on a line of their own.
 */
struct platform {
	const char **name;
	bool *generic;
	int n, ngeneric;
	const char **form;
	int nform;
	int ntracepoints;
	bool nomem;
};

static void
collect_listed(void *arg, const char *event, const char *kind, const char *desc)
{
	struct platform *pl = arg;
	const char **grown;
	bool *g;

	(void)desc;
	if (pl->nomem)
		return;
	if (strcmp(kind, "tracepoint") == 0) {
		pl->ntracepoints++;
		return;
	}
	if (strchr(event, ':') != NULL && strstr(event, "::") != NULL)
		return;
	if (strpbrk(event, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != NULL &&
	    (strstr(event, "ADDR") != NULL || strstr(event, "PATH") != NULL ||
		strstr(event, "FUNCTION") != NULL ||
		strstr(event, "TERM=") != NULL ||
		strcmp(event, "rNNNN") == 0)) {
		if ((grown = reallocarray(pl->form, (size_t)pl->nform + 1,
			 sizeof(*grown))) == NULL) {
			pl->nomem = true;
			return;
		}
		pl->form = grown;
		pl->form[pl->nform++] = event;
		return;
	}
	grown = reallocarray(pl->name, (size_t)pl->n + 1, sizeof(*grown));
	g = reallocarray(pl->generic, (size_t)pl->n + 1, sizeof(*g));
	if (grown != NULL)
		pl->name = grown;
	if (g != NULL)
		pl->generic = g;
	if (grown == NULL || g == NULL) {
		pl->nomem = true;
		return;
	}
	pl->generic[pl->n] = strncmp(event, "PAPI", 4) == 0;
	pl->ngeneric += pl->generic[pl->n];
	pl->name[pl->n++] = event;
}

static void
print_wrapped(void *arg, const char *name)
{
	struct names *n = arg;
	int len = (int)strlen(name);

	if (n->col + len + 1 > WRAP_AT) {
		fprintf(n->out, "\n%*s", EVENT_INDENT, "");
		n->col = EVENT_INDENT;
	}
	/* A name from sysfs or tracefs, made inert. */
	safename_fputs(name, n->out);
	fputc(' ', n->out);
	n->col += len + 1;
}

/* Every counter takes every listed event, so one line covers them all. */
static void
event_line(cpc_t *cpc, FILE *out, const struct platform *pl, bool generic)
{
	struct names n = { out, EVENT_INDENT };
	int i;

	fprintf(out, "\n\tevent[0-%u]: ", cpc_npic(cpc) - 1);
	for (i = 0; i < pl->n; i++)
		if (pl->generic[i] == generic)
			print_wrapped(&n, pl->name[i]);
	fputc('\n', out);
}

static void
attr_wrapped(void *arg, const char *attr)
{
	struct names *n = arg;
	int len = (int)strlen(attr);

	if (strcmp(attr, "picnum") == 0)
		return;
	if (n->col + len + 1 > WRAP_AT) {
		fprintf(n->out, "\n%20s", "");
		n->col = 20;
	}
	fprintf(n->out, "%s ", attr);
	n->col += len + 1;
}

static void
cpuref_block(const char *ref, FILE *out)
{
	char words[CPC_MAX_CPUREF], *w, *rest;
	int col = 8;

	strlcpy(words, ref, sizeof(words));
	fputs("\n\n\t", out);
	for (rest = words; (w = strsep(&rest, " ")) != NULL;) {
		int len = (int)strlen(w);

		if (len == 0)
			continue;
		if (col + len + 1 > WRAP_AT) {
			fputs("\n\t", out);
			col = 8;
		}
		fprintf(out, "%s ", w);
		col += len + 1;
	}
	fputc('\n', out);
}

/* Whether tracefs is there but closed to this user. */
static bool
tracefs_denied(void)
{
	DIR *d;

	if ((d = opendir("/sys/kernel/tracing/events")) != NULL) {
		closedir(d);
		return false;
	}
	return errno == EACCES || errno == EPERM;
}

/*
 * Where the kernel has several core PMUs (a hybrid CPU), which they are
 * and what that means for an event named without one.
 */
static void
core_pmus_print(cpc_t *cpc, FILE *out)
{
	const char *name, *cpus;
	int i;

	if (cpc_core_pmu(cpc, 1, NULL) == NULL)
		return;
	fputs("\tcore PMUs:", out);
	for (i = 0; (name = cpc_core_pmu(cpc, i, &cpus)) != NULL; i++)
		fprintf(out, "%s %s (CPUs %s)", i > 0 ? "," : "", name, cpus);
	fputs("\n\tan event named without a PMU counts on each that has it, "
	      "summed;\n\tPMU/event/ counts on that PMU's CPUs only\n",
	    out);
}

void
caps_print(cpc_t *cpc, FILE *out)
{
	struct platform pl = { 0 };
	struct names n = { out, 20 };
	int i;

	cpc_walk_events_described(cpc, &pl, collect_listed);
	fprintf(
	    out, "\tCPU performance counter interface: %s\n", cpc_cciname(cpc));
	core_pmus_print(cpc, out);
	fputs("\n\tevent specification syntax:\n", out);
	fputs("\t[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>"
	      "[,attr[n][=<val>]],...]\n",
	    out);
	/* Only names that map on this CPU; none, no line at all. */
	if (pl.ngeneric > 0) {
		fputs("\n\tGeneric Events:\n", out);
		event_line(cpc, out, &pl, true);
		fputs("\n\tSee generic_events(3CPC) for descriptions of these "
		      "events\n",
		    out);
	}
	fputs("\n\tPlatform Specific Events:\n", out);
	event_line(cpc, out, &pl, false);
	if (pl.ntracepoints > 0)
		fprintf(out,
		    "\n\tTracepoints: subsystem:event, %d in "
		    "/sys/kernel/tracing/events (e.g. syscalls:sys_enter_write)"
		    ";\n\t--list='syscalls:*' names them\n",
		    pl.ntracepoints);
	else if (tracefs_denied())
		fputs("\n\tTracepoints: none readable by this user "
		      "(/sys/kernel/tracing: Permission denied;\n\tthey need "
		      "root, or read access to /sys/kernel/tracing/events)\n",
		    out);
	else
		fputs("\n\tTracepoints: none (tracefs is not mounted at "
		      "/sys/kernel/tracing)\n",
		    out);
	if (pl.nform > 0) {
		struct names f = { out, 20 };

		fputs("\n\tother forms: ", out);
		for (i = 0; i < pl.nform; i++)
			attr_wrapped(&f, pl.form[i]);
		fputc('\n', out);
	}
	fputs("\n\tattributes: ", out);
	cpc_walk_attrs(cpc, &n, attr_wrapped);
	fputs("nouser sys ", out);
	cpuref_block(cpc_cpuref(cpc), out);
	free(pl.name);
	free(pl.generic);
	free(pl.form);
}

struct listing {
	FILE *out;
	const char *glob;
	int n;
	struct list_style *style;
};

/* One JSON object on a line of its own: {"name":..,"kind":..,..}. */
static void
json_line(FILE *out, const char *event, const char *kind, const char *desc)
{
	struct out_json_obj o = { json_object(), true };
	struct out_buf b = { 0 };

	out_json_put(&o, "name", out_json_text(event));
	out_json_put(&o, "kind", out_json_text(kind));
	out_json_put(&o, "description", out_json_text(desc));
	out_json_emit(&o, &b);
	if (!b.failed && b.data != NULL)
		fprintf(out, "%s\n", b.data);
	out_buf_free(&b);
}

/* The three fields as one CSV record, under the header, once. */
static void
csv_line(FILE *out, struct list_style *style, const char *name,
    const char *kind, const char *desc)
{
	struct out_buf b = { 0 };
	char sep = style->sep != '\0' ? style->sep : ',';

	if (!style->headed)
		fprintf(out, "name%ckind%cdescription\n", sep, sep);
	style->headed = true;
	out_buf_csv_sep(&b, name, sep);
	out_buf_add(&b, &sep, 1);
	out_buf_csv_sep(&b, kind, sep);
	out_buf_add(&b, &sep, 1);
	out_buf_csv_sep(&b, desc, sep);
	out_buf_add(&b, "\n", 1);
	if (!b.failed)
		(void)fwrite(b.data, 1, b.len, out);
	out_buf_free(&b);
}

void
list_line(FILE *out, struct list_style *style, const char *name,
    const char *kind, const char *desc)
{
	switch (style->format) {
	case LIST_JSON:
		json_line(out, name, kind, desc);
		break;
	case LIST_CSV:
		csv_line(out, style, name, kind, desc);
		break;
	case LIST_TEXT:
		/* Names and descriptions from sysfs or tracefs, made inert. */
		safename_fputs(name, out);
		fprintf(out, "\t%s\t", kind);
		safename_fputs(desc, out);
		fputc('\n', out);
		break;
	}
}

static void
list_one(void *arg, const char *event, const char *kind, const char *desc)
{
	struct listing *l = arg;

	if (l->glob != NULL && fnmatch(l->glob, event, 0) != 0)
		return;
	list_line(l->out, l->style, event, kind, desc);
	l->n++;
}

/* The core PMUs in --list's form: "cpu_core/\tcore PMU\tCPUs 0-15". */
static void
core_pmus_list(cpc_t *cpc, struct listing *l)
{
	char pmu[80], desc[200];
	const char *name, *cpus;
	int i;

	if (cpc_core_pmu(cpc, 1, NULL) == NULL)
		return;
	for (i = 0; (name = cpc_core_pmu(cpc, i, &cpus)) != NULL; i++) {
		snprintf(pmu, sizeof(pmu), "%s/", name);
		snprintf(desc, sizeof(desc),
		    "counts on CPUs %s; an event named without a PMU counts on "
		    "each core PMU that has it, summed",
		    cpus);
		list_one(l, pmu, "core PMU", desc);
	}
}

int
caps_list(cpc_t *cpc, const char *glob, struct list_style *style, FILE *out)
{
	struct listing l = { out, glob, 0, style };

	core_pmus_list(cpc, &l);
	cpc_walk_events_described(cpc, &l, list_one);
	return l.n;
}
