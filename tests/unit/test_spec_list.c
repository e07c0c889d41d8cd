/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Discovery: caps_list (--list[=GLOB]) prints every countable event, one
 * per line as name, tab, kind, tab, description, and the parametric
 * forms; the glob selects by name. caps_print (-h) keeps the Solaris
 * layout, lists generic events only where some map here, and leaves the
 * tracepoints to --list. Compared with what the kernel itself lists
 * (tracefs, sysfs) and with the library's own answers for each name.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "caps.h"
#include "check.h"
#include "diag.h"
#include "spec.h"

static cpc_t *cpc;

/* Run caps_list into a buffer; the number of lines it said it printed. */
static int
list_into(const char *glob, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int n = caps_list(cpc, glob, &(struct list_style) { 0 }, f);

	fclose(f);
	return n;
}

static int
count_lines(const char *buf)
{
	int n = 0;

	for (; *buf != '\0'; buf++)
		n += *buf == '\n';
	return n;
}

/* The tracepoints tracefs names that match glob (NULL: all). */
static int
tracefs_matches(const char *glob)
{
	FILE *f = fopen("/sys/kernel/tracing/available_events", "r");
	char line[512], *nl;
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		n += glob == NULL || fnmatch(glob, line, 0) == 0;
	}
	fclose(f);
	return n;
}

static bool
is_form(const char *name)
{
	return strstr(name, "ADDR") != NULL || strstr(name, "PATH") != NULL ||
	    strstr(name, "TERM=") != NULL || strstr(name, "FUNCTION") != NULL ||
	    strcmp(name, "rNNNN") == 0;
}

/* Each line: three fields; names countable, of the kind the library says. */
static void
test_list_all(void)
{
	char *buf = NULL, *line, *rest, *name, *kind, *desc;
	size_t len;
	int n = list_into(NULL, &buf, &len), lines = 0, tracepoints = 0;
	bool task_clock = false, breakpoint_form = false;

	CHECK(n > 0);
	CHECK(count_lines(buf) == n);
	for (rest = buf; (line = strsep(&rest, "\n")) != NULL;) {
		if (line[0] == '\0')
			continue;
		lines++;
		name = strsep(&line, "\t");
		kind = strsep(&line, "\t");
		desc = line;
		if (kind == NULL || desc == NULL || name[0] == '\0' ||
		    kind[0] == '\0' || strchr(desc, '\t') != NULL) {
			check_failures++;
			fprintf(stderr, "bad --list line for '%s'\n", name);
			continue;
		}
		task_clock |= strcmp(name, "task-clock") == 0 &&
		    strcmp(kind, "software") == 0 && desc[0] != '\0';
		breakpoint_form |= strncmp(name, "mem:ADDR", 8) == 0 &&
		    strcmp(kind, "breakpoint") == 0;
		tracepoints += strcmp(kind, "tracepoint") == 0;
		if (is_form(name))
			continue;
		if (cpc_event_status(cpc, name, NULL, 0) !=
			CPC_EVENT_COUNTABLE ||
		    cpc_event_kind(cpc, name) == NULL ||
		    strcmp(cpc_event_kind(cpc, name), kind) != 0) {
			check_failures++;
			fprintf(stderr,
			    "listed '%s' (%s) is not countable, or "
			    "of another kind\n",
			    name, kind);
		}
	}
	check_count++;
	CHECK(lines == n);
	CHECK(task_clock);
	if (access("/sys/bus/event_source/devices/breakpoint", F_OK) == 0)
		CHECK(breakpoint_form);
	if (tracefs_matches(NULL) > 0)
		CHECK(tracepoints == tracefs_matches(NULL));
	printf("--list: %d lines, %d tracepoints\n", n, tracepoints);
	free(buf);
}

/* A glob: just the names it matches, every one tracefs has. */
static void
test_list_glob(void)
{
	char *buf = NULL;
	size_t len;
	int n;

	if (tracefs_matches(NULL) <= 0) {
		printf("note: no tracefs; the tracepoint glob is skipped\n");
	} else {
		n = list_into("syscalls:sys_enter_w*", &buf, &len);
		CHECK(n == tracefs_matches("syscalls:sys_enter_w*"));
		CHECK(n > 0);
		CHECK(strstr(buf, "syscalls:sys_enter_write\ttracepoint\t") !=
		    NULL);
		CHECK(strstr(buf, "task-clock") == NULL);
		free(buf);
		buf = NULL;
	}
	n = list_into("*-clock", &buf, &len);
	CHECK(n == 2);
	CHECK(strstr(buf, "cpu-clock\tsoftware\t") != NULL);
	CHECK(strstr(buf, "task-clock\tsoftware\t") != NULL);
	free(buf);
	buf = NULL;
	n = list_into("no such thing*", &buf, &len);
	CHECK(n == 0 && len == 0);
	free(buf);
}

struct counter {
	int n;
};

static void
count_generic(void *arg, const char *event)
{
	(void)event;
	((struct counter *)arg)->n++;
}

/* -h: the layout old parsers read. */
static void
test_help(void)
{
	struct counter generic = { 0 };
	char *buf = NULL, *p;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	int tracepoints = tracefs_matches(NULL);
	char want[128];

	caps_print(cpc, f);
	fclose(f);
	cpc_walk_generic_events_all(cpc, &generic, count_generic);
	CHECK(strncmp(buf, "\tCPU performance counter interface: ", 36) == 0);
	CHECK(
	    strstr(buf,
		"\n\tevent specification syntax:\n\t[picn=]<eventn>"
		"[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]\n") !=
	    NULL);
	/* Generic events only where some map on this CPU. */
	CHECK((strstr(buf, "\n\tGeneric Events:\n\n\tevent[0-") != NULL) ==
	    (generic.n > 0));
	CHECK((strstr(buf,
		   "\n\tSee generic_events(3CPC) for descriptions of "
		   "these events\n") != NULL) == (generic.n > 0));
	CHECK(strstr(buf, "\n\tGeneric Events:\n\n\tevent[0-7]: \n") == NULL);
	snprintf(want, sizeof(want),
	    "\n\tPlatform Specific Events:\n\n"
	    "\tevent[0-%u]: ",
	    cpc_npic(cpc) - 1);
	CHECK((p = strstr(buf, want)) != NULL);
	if (p != NULL)
		CHECK(strstr(p, " task-clock ") != NULL);
	CHECK(strstr(buf, "syscalls:sys_enter_write ") == NULL);
	if (tracepoints > 0) {
		snprintf(want, sizeof(want),
		    "\n\tTracepoints: "
		    "subsystem:event, %d in /sys/kernel/tracing/events",
		    tracepoints);
		CHECK(strstr(buf, want) != NULL);
		CHECK(strstr(buf, "--list='syscalls:*'") != NULL);
	}
	CHECK(strstr(buf, "\n\tattributes: ") != NULL);
	CHECK(strstr(buf, "nouser sys \n") != NULL);
	if (access("/sys/bus/event_source/devices/breakpoint", F_OK) == 0)
		CHECK(strstr(buf, "\n\tother forms: ") != NULL &&
		    strstr(buf, "mem:ADDR[/LEN][:r|w|rw|x] ") != NULL);
	printf("-h: %zu bytes, %d generic events\n", len, generic.n);
	free(buf);
}

int
main(int argc, char **argv)
{
	(void)argc;
	diag_init(argv[0]);
	if (access("/sys/kernel/tracing/events", F_OK) != 0)
		(void)mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open failed: %s", strerror(errno));
	test_list_all();
	test_list_glob();
	test_help();
	cpc_close(cpc);
	return check_report("test_spec_list");
}
