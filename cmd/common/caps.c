/*
 * The capabilities listing that follows the usage text with -h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "caps.h"

#define WRAP_AT		76
#define EVENT_INDENT	17

struct names {
	FILE	*out;
	int	 col;
};

static void
print_wrapped(void *arg, const char *name)
{
	struct names *n = arg;
	int len = (int)strlen(name);

	if (n->col + len + 1 > WRAP_AT) {
		fprintf(n->out, "\n%*s", EVENT_INDENT, "");
		n->col = EVENT_INDENT;
	}
	fprintf(n->out, "%s ", name);
	n->col += len + 1;
}

/* Every counter takes every listed event, so one line covers them all. */
static void
event_block(cpc_t *cpc, FILE *out,
    void (*walk)(cpc_t *, void *, void (*)(void *, const char *)))
{
	struct names n = { out, EVENT_INDENT };

	fprintf(out, "\n\tevent[0-%u]: ", cpc_npic(cpc) - 1);
	walk(cpc, &n, print_wrapped);
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

/* Tracepoints under tracefs; *denied if it is there but unreadable. */
static int
count_tracepoints(bool *denied)
{
	const char *dirs[] = { "/sys/kernel/tracing/events",
	    "/sys/kernel/debug/tracing/events" };
	struct dirent *sub, *ev;
	char path[600];
	DIR *d, *e;
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && n == 0; i++) {
		if ((d = opendir(dirs[i])) == NULL) {
			if (i == 0 && (errno == EACCES || errno == EPERM))
				*denied = true;
			continue;
		}
		while ((sub = readdir(d)) != NULL) {
			if (sub->d_name[0] == '.' || sub->d_type != DT_DIR)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i],
			    sub->d_name);
			if ((e = opendir(path)) == NULL)
				continue;
			while ((ev = readdir(e)) != NULL)
				if (ev->d_name[0] != '.' &&
				    ev->d_type == DT_DIR)
					n++;
			closedir(e);
		}
		closedir(d);
	}
	return n;
}

void
caps_print(cpc_t *cpc, FILE *out)
{
	struct names n = { out, 20 };
	bool denied = false;
	int tracepoints = count_tracepoints(&denied);

	fprintf(out, "\tCPU performance counter interface: %s\n",
	    cpc_cciname(cpc));
	fputs("\n\tevent specification syntax:\n", out);
	fputs("\t[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>"
	    "[,attr[n][=<val>]],...]\n", out);
	fputs("\n\tGeneric Events:\n", out);
	event_block(cpc, out, cpc_walk_generic_events_all);
	fputs("\n\tSee generic_events(3CPC) for descriptions of these "
	    "events\n", out);
	fputs("\n\tPlatform Specific Events:\n", out);
	event_block(cpc, out, cpc_walk_events_all);
	if (tracepoints > 0)
		fprintf(out, "\n\tTracepoints: subsystem:event, %d in "
		    "/sys/kernel/tracing/events (e.g. syscalls:sys_enter_write)"
		    "\n", tracepoints);
	else if (denied)
		fputs("\n\tTracepoints: none readable by this user "
		    "(/sys/kernel/tracing: Permission denied;\n\tthey need "
		    "root, or read access to /sys/kernel/tracing/events)\n",
		    out);
	else
		fputs("\n\tTracepoints: none (tracefs is not mounted at "
		    "/sys/kernel/tracing)\n", out);
	fputs("\n\tattributes: ", out);
	cpc_walk_attrs(cpc, &n, attr_wrapped);
	fputs("nouser sys ", out);
	cpuref_block(cpc_cpuref(cpc), out);
}
