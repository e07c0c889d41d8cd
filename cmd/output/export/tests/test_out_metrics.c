/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * out_metrics.c: the store of counter series behind --format=openmetrics,
 * --format=prometheus and --listen, fed rows as the commands make them
 * and rendered whole. The times given are the caller's clock, so the
 * retention of ended series is checked without waiting for it.
 *
 * cpustat: a series per CPU and set; ticks and gap rows add; a gap row's
 * intervals are counted; a row not counted says why and adds nothing;
 * a partial total says what it leaves out. cputrack: a series per LWP
 * and per process; ticks add; an LWP's total replaces what its ticks
 * added up to; an image's end gives the one LWP still running what the
 * process's total has beyond the others; series under the same labels
 * (a pid used again, an exec that keeps the name) go on from where they
 * were, never down; ended series go after OUT_METRICS_RETAIN_NS. Both:
 * labels escaped, both text formats, and the table's growth.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "out_metrics.h"
#include "procname.h"
#include "out_run.h"

#define SEC 1000000000LL

static cpc_t *cpc;

struct store {
	setgrp_t *specs;
	struct out_run run;
	struct out_metrics *m;
	struct out_buf text;
};

/* --metrics: the derived metrics too. */
static bool with_metrics;

static void
store_open_as(struct store *s, enum out_tool tool, bool thread_series)
{
	struct out_config cfg = { .tool = tool,
		.format = OUT_SINK,
		.fd = -1,
		.metrics = with_metrics };

	memset(s, 0, sizeof(*s));
	if ((s->specs = setgrp_new(cpc)) == NULL ||
	    setgrp_add(s->specs, "page-faults,task-clock") != 0 ||
	    setgrp_add(s->specs, "context-switches") != 0) {
		fprintf(stderr, "cannot parse the specs\n");
		exit(1);
	}
	cfg.specs = s->specs;
	if (out_run_init(&s->run, cpc, &cfg) != 0 ||
	    (s->m = out_metrics_new(&s->run, thread_series)) == NULL) {
		fprintf(stderr, "out_metrics_new: %s\n", strerror(errno));
		exit(1);
	}
}

/* With the series of each LWP, which most of the tests look at. */
static void
store_open(struct store *s, enum out_tool tool)
{
	store_open_as(s, tool, true);
}

static void
store_close(struct store *s)
{
	out_metrics_free(s->m);
	out_run_fini(&s->run);
	out_buf_free(&s->text);
	setgrp_free(s->specs);
}

/* The whole table now, in s->text. */
static const char *
render(struct store *s, bool openmetrics, hrtime_t now)
{
	out_buf_reset(&s->text);
	out_metrics_render(s->m, &s->text, openmetrics, now, NULL);
	CHECK(!s->text.failed);
	return s->text.data != NULL ? s->text.data : "";
}

/* Whether text has line, whole. */
static bool
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

static void
expect_line(const char *text, const char *line, bool there, int at)
{
	check_count++;
	if (has_line(text, line) != there) {
		check_failures++;
		fprintf(stderr, "line %d: %s \"%s\" in:\n%s\n", at,
		    there ? "no" : "unexpected", line, text);
	}
}

#define HAS(text, line)	  expect_line((text), (line), true, __LINE__)
#define LACKS(text, line) expect_line((text), (line), false, __LINE__)

/* Lines of text that begin with prefix. */
static int
count_lines(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p;
	int count = 0;

	for (p = text; p != NULL && *p != '\0';
	     p = strchr(p, '\n'), p = p != NULL ? p + 1 : NULL)
		if (strncmp(p, prefix, n) == 0)
			count++;
	return count;
}

static struct out_row
cpu_row(int cpu, int set, const uint64_t *values, uint64_t enabled)
{
	return (struct out_row) {
		.label = "tick",
		.pid = -1,
		.lwp = -1,
		.tid = -1,
		.cpu = cpu,
		.ncpus = -1,
		.intervals = 1,
		.setno = set,
		.values = values,
		.enabled_ns = enabled,
		.running_ns = enabled / 2,
		.child = -1,
	};
}

static void
test_cpustat(void)
{
	uint64_t t1[] = { 10, 3 * SEC / 2 }, t2[] = { 5, SEC / 2 };
	uint64_t gap[] = { 7, SEC }, cs[] = { 42 };
	struct out_row row;
	struct store s;
	const char *text;

	store_open(&s, OUT_CPUSTAT);
	CHECK(out_metrics_changed(s.m));
	text = render(&s, true, 10 * SEC);
	CHECK(!out_metrics_changed(s.m));
	/* Nothing counted yet: the run's facts only. */
	CHECK(count_lines(text, "cpustat_events_total") == 0);
	HAS(text,
	    "cpustat_set_info{set=\"0\",spec=\"page-faults,task-clock\"} 1");
	HAS(text, "cpustat_set_info{set=\"1\",spec=\"context-switches\"} 1");
	CHECK(strstr(text, "cpctools_build_info{tool=\"cpustat\",version=\"") !=
	    NULL);

	row = cpu_row(0, 0, t1, 2 * SEC);
	out_metrics_row(s.m, &row, 11 * SEC);
	CHECK(out_metrics_changed(s.m));
	row = cpu_row(0, 0, t2, 2 * SEC);
	out_metrics_row(s.m, &row, 12 * SEC);
	/* A gap row: its counts add, its intervals are counted. */
	row = cpu_row(0, 0, gap, 2 * SEC);
	row.intervals = 3;
	out_metrics_row(s.m, &row, 13 * SEC);
	row = cpu_row(0, 1, cs, SEC);
	out_metrics_row(s.m, &row, 13 * SEC);
	/* CPU 1 not counted: said, with the reason; nothing added. */
	row = cpu_row(1, 0, t1, 2 * SEC);
	row.not_counted = "permission refused";
	out_metrics_row(s.m, &row, 13 * SEC);
	/* The total leaves CPU 1 out. */
	row = cpu_row(-1, 0, t1, 6 * SEC);
	row.label = "total";
	row.partial = "CPU 1 not counted";
	out_metrics_row(s.m, &row, 14 * SEC);

	text = render(&s, true, 15 * SEC);
	HAS(text, "# TYPE cpustat_events counter");
	HAS(text,
	    "# HELP cpustat_events Events counted, from the start of the run.");
	HAS(text,
	    "cpustat_events_total{cpu=\"0\",event=\"page-faults\",set=\"0\"} 22");
	HAS(text, "# TYPE cpustat_event_seconds counter");
	HAS(text, "# UNIT cpustat_event_seconds seconds");
	HAS(text,
	    "cpustat_event_seconds_total{cpu=\"0\",event=\"task-clock\",set=\"0\"} 3.000000000");
	HAS(text,
	    "cpustat_events_total{cpu=\"0\",event=\"context-switches\",set=\"1\"} 42");
	HAS(text,
	    "cpustat_enabled_seconds_total{cpu=\"0\",set=\"0\"} 6.000000000");
	HAS(text,
	    "cpustat_running_seconds_total{cpu=\"0\",set=\"0\"} 3.000000000");
	HAS(text,
	    "cpustat_running_seconds_total{cpu=\"0\",set=\"1\"} 0.500000000");
	HAS(text, "cpustat_gap_intervals_total{cpu=\"0\",set=\"0\"} 3");
	HAS(text, "cpustat_gap_intervals_total{cpu=\"0\",set=\"1\"} 0");
	HAS(text,
	    "cpustat_not_counted{cpu=\"1\",set=\"0\",reason=\"permission refused\"} 1");
	HAS(text, "cpustat_partial{set=\"0\",reason=\"CPU 1 not counted\"} 1");
	/* Neither CPU 1 nor the total row is a series of counts. */
	CHECK(count_lines(text, "cpustat_events_total{cpu=\"1\"") == 0);
	CHECK(count_lines(text, "cpustat_events_total{set=") == 0);
	CHECK(count_lines(text, "cpustat_events_total{") == 2);
	/* OpenMetrics ends with its EOF, once. */
	CHECK(count_lines(text, "# EOF") == 1);
	CHECK(strlen(text) > 6 &&
	    strcmp(text + strlen(text) - 6, "# EOF\n") == 0);

	/* The Prometheus text format: sample names in TYPE, no UNIT, no EOF. */
	text = render(&s, false, 15 * SEC);
	HAS(text, "# TYPE cpustat_events_total counter");
	HAS(text,
	    "# HELP cpustat_event_seconds_total Clock events (cpu-clock, task-clock), from the start of the run.");
	HAS(text,
	    "cpustat_events_total{cpu=\"0\",event=\"page-faults\",set=\"0\"} 22");
	CHECK(count_lines(text, "# UNIT") == 0);
	CHECK(count_lines(text, "# EOF") == 0);
	HAS(text, "# TYPE cpustat_set_info gauge");

	/* A row without counts changes nothing for cpustat. */
	row = cpu_row(0, -1, NULL, 0);
	out_metrics_row(s.m, &row, 16 * SEC);
	CHECK(!out_metrics_changed(s.m));
	/* CPU series never end: still there long after. */
	text = render(&s, true, 1000 * SEC);
	HAS(text,
	    "cpustat_events_total{cpu=\"0\",event=\"page-faults\",set=\"0\"} 22");
	store_close(&s);
}

static struct out_row
lwp_row(const char *label, pid_t pid, int lwp, const char *comm,
    const uint64_t *values)
{
	return (struct out_row) {
		.label = label,
		.pid = pid,
		.lwp = lwp,
		.tid = pid + lwp - 1,
		.comm = comm,
		.cpu = -1,
		.ncpus = -1,
		.setno = 0,
		.values = values,
		.enabled_ns = SEC,
		.running_ns = SEC,
		.child = -1,
	};
}

/* A row of page faults, enabled and running for enabled_s seconds. */
static void
feed_for(struct store *s, const char *label, pid_t pid, int lwp,
    const char *comm, uint64_t faults, int enabled_s, hrtime_t now)
{
	uint64_t v[] = { faults, 0 };
	struct out_row row = lwp_row(label, pid, lwp, comm, v);

	row.enabled_ns = row.running_ns = (uint64_t)enabled_s * SEC;
	out_metrics_row(s->m, &row, now);
}

/* A row of one second's. */
static void
feed(struct store *s, const char *label, pid_t pid, int lwp, const char *comm,
    uint64_t faults, hrtime_t now)
{
	feed_for(s, label, pid, lwp, comm, faults, 1, now);
}

#define APP "my\\\"app\\\\" /* the label value of comm my"app\ */

static void
test_cputrack_lwps(void)
{
	struct store s;
	const char *text;
	const char *comm = "my\"app\\";

	store_open(&s, OUT_CPUTRACK);
	feed(&s, "init_lwp", 100, 1, comm, 0, 1 * SEC);
	feed(&s, "tick", 100, 1, comm, 3, 2 * SEC);
	feed(&s, "tick", 100, 1, comm, 4, 3 * SEC);
	feed(&s, "lwp_create", 100, 2, comm, 0, 3 * SEC);
	feed(&s, "tick", 100, 2, comm, 10, 4 * SEC);
	text = render(&s, true, 4 * SEC);
	HAS(text,
	    "cputrack_events_total{pid=\"100\",lwp=\"1\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 7");
	HAS(text,
	    "cputrack_events_total{pid=\"100\",lwp=\"2\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 10");
	HAS(text,
	    "cputrack_process_events_total{pid=\"100\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 17");
	HAS(text,
	    "cputrack_enabled_seconds_total{pid=\"100\",lwp=\"1\",comm=\"" APP
	    "\",set=\"0\"} 3.000000000");

	/* An LWP's total replaces what its ticks added up to. */
	feed(&s, "lwp_exit", 100, 2, comm, 12, 5 * SEC);
	text = render(&s, true, 5 * SEC);
	HAS(text,
	    "cputrack_events_total{pid=\"100\",lwp=\"2\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 12");
	HAS(text,
	    "cputrack_process_events_total{pid=\"100\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 17");

	/*
	 * The process's total at its exit: its series has it, and LWP 1,
	 * the one still running and the one that ended it, gets what the
	 * total has beyond LWP 2's: 25 - 12, and 10 s - 1 s enabled.
	 */
	feed(&s, "tick", 100, 1, comm, 1, 6 * SEC);
	feed_for(&s, "exit", 100, 1, comm, 25, 10, 6 * SEC);
	text = render(&s, true, 6 * SEC);
	HAS(text,
	    "cputrack_process_events_total{pid=\"100\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 25");
	HAS(text,
	    "cputrack_events_total{pid=\"100\",lwp=\"1\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 13");
	HAS(text,
	    "cputrack_enabled_seconds_total{pid=\"100\",lwp=\"1\",comm=\"" APP
	    "\",set=\"0\"} 9.000000000");

	/*
	 * The pid used again by a process of the same name, while the old
	 * series are kept: the counters go on from where they were.
	 */
	feed(&s, "init_lwp", 100, 1, comm, 0, 100 * SEC);
	feed(&s, "tick", 100, 1, comm, 2, 101 * SEC);
	text = render(&s, true, 101 * SEC);
	HAS(text,
	    "cputrack_events_total{pid=\"100\",lwp=\"1\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 15");
	HAS(text,
	    "cputrack_process_events_total{pid=\"100\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 27");
	/* LWP 2 ended at 5 s: kept OUT_METRICS_RETAIN_NS, then dropped. */
	HAS(text,
	    "cputrack_events_total{pid=\"100\",lwp=\"2\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 12");
	text = render(&s, true, 5 * SEC + OUT_METRICS_RETAIN_NS);
	CHECK(count_lines(
		  text, "cputrack_events_total{pid=\"100\",lwp=\"2\"") == 1);
	text = render(&s, true, 5 * SEC + OUT_METRICS_RETAIN_NS + 1);
	CHECK(count_lines(
		  text, "cputrack_events_total{pid=\"100\",lwp=\"2\"") == 0);
	/* Those still counting stay. */
	HAS(text,
	    "cputrack_events_total{pid=\"100\",lwp=\"1\",comm=\"" APP
	    "\",event=\"page-faults\",set=\"0\"} 15");
	store_close(&s);
}

/*
 * By default a process's series only, with its LWPs' enabled and running
 * time summed: what rules scale its rates by.
 */
static void
test_cputrack_process_only(void)
{
	struct store s;
	const char *text;

	store_open_as(&s, OUT_CPUTRACK, false);
	feed(&s, "init_lwp", 100, 1, "app", 0, 1 * SEC);
	feed(&s, "tick", 100, 1, "app", 3, 2 * SEC);
	feed(&s, "lwp_create", 100, 2, "app", 0, 2 * SEC);
	feed_for(&s, "tick", 100, 2, "app", 10, 2, 3 * SEC);
	text = render(&s, true, 3 * SEC);
	CHECK(count_lines(text, "cputrack_events_total{") == 0);
	CHECK(count_lines(text, "cputrack_enabled_seconds_total{") == 0);
	CHECK(count_lines(text, "cputrack_running_seconds_total{") == 0);
	HAS(text,
	    "cputrack_process_events_total{pid=\"100\",comm=\"app\","
	    "event=\"page-faults\",set=\"0\"} 13");
	HAS(text,
	    "cputrack_process_enabled_seconds_total{pid=\"100\","
	    "comm=\"app\",set=\"0\"} 5.000000000");
	HAS(text,
	    "cputrack_process_running_seconds_total{pid=\"100\","
	    "comm=\"app\",set=\"0\"} 5.000000000");
	store_close(&s);
}

static void
test_cputrack_exec(void)
{
	uint64_t none[] = { 0, 0 };
	struct out_row row;
	struct store s;
	const char *text;

	store_open(&s, OUT_CPUTRACK);
	feed(&s, "init_lwp", 200, 1, "sh", 0, 1 * SEC);
	feed(&s, "tick", 200, 1, "sh", 5, 2 * SEC);
	/* The old image's totals, then the marker with the new name. */
	feed_for(&s, "exec", 200, 1, "sh", 6, 10, 3 * SEC);
	row = lwp_row("exec", 200, 1, "ls", none);
	row.setno = -1;
	row.values = NULL;
	row.args = "ls -l";
	out_metrics_row(s.m, &row, 3 * SEC);
	feed(&s, "init_lwp", 200, 1, "ls", 0, 3 * SEC);
	feed(&s, "tick", 200, 1, "ls", 2, 4 * SEC);
	text = render(&s, true, 4 * SEC);
	HAS(text,
	    "cputrack_process_events_total{pid=\"200\",comm=\"sh\",event=\"page-faults\",set=\"0\"} 6");
	HAS(text,
	    "cputrack_events_total{pid=\"200\",lwp=\"1\",comm=\"sh\",event=\"page-faults\",set=\"0\"} 6");
	HAS(text,
	    "cputrack_events_total{pid=\"200\",lwp=\"1\",comm=\"ls\",event=\"page-faults\",set=\"0\"} 2");
	HAS(text,
	    "cputrack_process_events_total{pid=\"200\",comm=\"ls\",event=\"page-faults\",set=\"0\"} 2");

	/* An exec that keeps the name: the counters go on, never down. */
	feed_for(&s, "exec", 200, 1, "ls", 3, 10, 5 * SEC);
	row.args = "ls -a";
	out_metrics_row(s.m, &row, 5 * SEC);
	feed(&s, "init_lwp", 200, 1, "ls", 0, 5 * SEC);
	feed(&s, "tick", 200, 1, "ls", 4, 6 * SEC);
	text = render(&s, true, 6 * SEC);
	HAS(text,
	    "cputrack_events_total{pid=\"200\",lwp=\"1\",comm=\"ls\",event=\"page-faults\",set=\"0\"} 7");
	HAS(text,
	    "cputrack_process_events_total{pid=\"200\",comm=\"ls\",event=\"page-faults\",set=\"0\"} 7");
	/* And again: what each image counted adds up. */
	feed_for(&s, "exec", 200, 1, "ls", 5, 10, 7 * SEC);
	row.args = "ls -d";
	out_metrics_row(s.m, &row, 7 * SEC);
	feed(&s, "init_lwp", 200, 1, "ls", 0, 7 * SEC);
	feed(&s, "tick", 200, 1, "ls", 1, 7 * SEC);
	text = render(&s, true, 7 * SEC);
	HAS(text,
	    "cputrack_events_total{pid=\"200\",lwp=\"1\",comm=\"ls\",event=\"page-faults\",set=\"0\"} 9");
	HAS(text,
	    "cputrack_process_events_total{pid=\"200\",comm=\"ls\",event=\"page-faults\",set=\"0\"} 9");

	/* Not counted: said for the LWP, nothing added to its process. */
	row = lwp_row("tick", 200, 2, NULL, none);
	row.values = (uint64_t[]) { 1000, 0 };
	row.not_counted = "out of descriptors";
	out_metrics_row(s.m, &row, 7 * SEC);
	text = render(&s, true, 7 * SEC);
	HAS(text,
	    "cputrack_not_counted{pid=\"200\",lwp=\"2\",comm=\"ls\",set=\"0\",reason=\"out of descriptors\"} 1");
	HAS(text,
	    "cputrack_process_events_total{pid=\"200\",comm=\"ls\",event=\"page-faults\",set=\"0\"} 9");
	CHECK(count_lines(
		  text, "cputrack_events_total{pid=\"200\",lwp=\"2\"") == 0);

	/*
	 * A fork: the child has its parent's name, which the fork row
	 * carries; /proc (this process's name) is read only for a row
	 * that carries none.
	 */
	row = lwp_row("fork", 200, 1, "ls", none);
	row.setno = -1;
	row.values = NULL;
	row.child = 201;
	out_metrics_row(s.m, &row, 8 * SEC);
	feed(&s, "tick", 201, 1, NULL, 9, 9 * SEC);
	row = lwp_row("fork", 200, 1, NULL, none);
	row.setno = -1;
	row.values = NULL;
	row.child = getpid();
	out_metrics_row(s.m, &row, 8 * SEC);
	feed(&s, "tick", getpid(), 1, NULL, 9, 9 * SEC);
	text = render(&s, true, 9 * SEC);
	HAS(text,
	    "cputrack_process_events_total{pid=\"201\",comm=\"ls\",event=\"page-faults\",set=\"0\"} 9");
	{
		char line[256];

		snprintf(line, sizeof(line),
		    "cputrack_process_events_total"
		    "{pid=\"%d\",comm=\"test_out_metric\",event=\"page-faults\","
		    "set=\"0\"} 9",
		    (int)getpid());
		HAS(text, line);
	}
	store_close(&s);
}

/* Thousands of series: the table grows, every one found again. */
static void
test_many_series(void)
{
	char line[256];
	struct store s;
	const char *text;
	int lwp, round;

	store_open(&s, OUT_CPUTRACK);
	for (round = 1; round <= 3; round++)
		for (lwp = 1; lwp <= 3000; lwp++)
			feed(&s, "tick", 300, lwp, "many", (uint64_t)lwp,
			    round * SEC);
	text = render(&s, false, 4 * SEC);
	CHECK(count_lines(text, "cputrack_events_total{pid=\"300\"") == 3000);
	for (lwp = 1; lwp <= 3000; lwp += 997) {
		snprintf(line, sizeof(line),
		    "cputrack_events_total{pid=\"300\","
		    "lwp=\"%d\",comm=\"many\",event=\"page-faults\",set=\"0\"} "
		    "%d",
		    lwp, 3 * lwp);
		HAS(text, line);
	}
	HAS(text,
	    "cputrack_process_events_total{pid=\"300\",comm=\"many\",event=\"page-faults\",set=\"0\"} 13504500");
	store_close(&s);
}

/* A --cgroup row of set: pid and LWP 0, the cgroup's name for comm. */
static void
feed_cgroup_named(struct store *s, const char *label, const char *name, int set,
    const uint64_t *values, hrtime_t when)
{
	struct out_row row = lwp_row(label, 0, 0, name, values);

	row.tid = 0;
	row.setno = set;
	row.when = when;
	out_metrics_row(s->m, &row, when);
}

static void
feed_cgroup(struct store *s, const char *label, int set, const uint64_t *values,
    hrtime_t when)
{
	feed_cgroup_named(s, label, "/svc", set, values, when);
}

/*
 * A cgroup's rows add up in its series, which count the time each set was
 * in use between them; its total adds nothing; a process that left has
 * its totals, as at an exit.
 */
static void
test_cputrack_cgroup(void)
{
	uint64_t faults5[] = { 5, 0 }, faults4[] = { 4, 0 }, cs7[] = { 7 };
	uint64_t total[] = { 9, 0 };
	struct store s;
	const char *text;

	store_open(&s, OUT_CPUTRACK);
	s.run.start = 10 * SEC;
	feed_cgroup(&s, "cgroup", 0, faults5, 11 * SEC);
	feed_cgroup(&s, "cgroup", 1, cs7, 12 * SEC);
	feed_cgroup(&s, "cgroup", 0, faults4, 13 * SEC + SEC / 2);
	feed_cgroup(&s, "total", 0, total, 14 * SEC);
	feed(&s, "tick", 100, 1, "svc", 3, 12 * SEC);
	feed(&s, "leave", 100, 1, "svc", 5, 13 * SEC);
	text = render(&s, true, 14 * SEC);
	HAS(text,
	    "cputrack_cgroup_events_total{cgroup=\"/svc\",event=\"page-"
	    "faults\",set=\"0\"} 9");
	HAS(text,
	    "cputrack_cgroup_events_total{cgroup=\"/svc\",event=\"context-"
	    "switches\",set=\"1\"} 7");
	HAS(text,
	    "cputrack_cgroup_set_seconds_total{cgroup=\"/svc\",set=\"0\"} "
	    "2.500000000");
	HAS(text,
	    "cputrack_cgroup_set_seconds_total{cgroup=\"/svc\",set=\"1\"} "
	    "1.000000000");
	HAS(text,
	    "cputrack_process_events_total{pid=\"100\",comm=\"svc\",event="
	    "\"page-faults\",set=\"0\"} 5");
	CHECK(strstr(text, "pid=\"0\"") == NULL);
	store_close(&s);
}

/*
 * The cgroup label: a process the tracker says is there has its own (this
 * one's, read from /proc) or the one the tracker gives, a fork's child its
 * parent's, and a process only seen in rows none.
 */
static void
test_cputrack_process_cgroup(void)
{
	char *own = proc_cgroup(getpid()), line[512];
	struct out_row row;
	struct store s;
	const char *text;

	if (own == NULL) {
		printf("# no cgroup v2 hierarchy here: the cgroup label is "
		       "not checked\n");
		return;
	}
	store_open(&s, OUT_CPUTRACK);
	out_metrics_process(s.m, getpid(), "me", NULL);
	feed(&s, "tick", getpid(), 1, "me", 3, 1 * SEC);
	row = lwp_row("fork", getpid(), 1, "me", NULL);
	row.setno = -1;
	row.child = 4000001;
	out_metrics_row(s.m, &row, 1 * SEC);
	feed(&s, "tick", 4000001, 1, "me", 4, 2 * SEC);
	feed(&s, "tick", 4000002, 1, "other", 5, 2 * SEC);
	out_metrics_process(s.m, 4000003, "given", "/given/here");
	feed(&s, "tick", 4000003, 1, "given", 6, 2 * SEC);
	text = render(&s, true, 2 * SEC);
	snprintf(line, sizeof(line),
	    "cputrack_process_events_total{pid=\"%d\",comm=\"me\","
	    "cgroup=\"%s\",event=\"page-faults\",set=\"0\"} 3",
	    (int)getpid(), own);
	HAS(text, line);
	snprintf(line, sizeof(line),
	    "cputrack_process_events_total{pid=\"4000001\",comm=\"me\","
	    "cgroup=\"%s\",event=\"page-faults\",set=\"0\"} 4",
	    own);
	HAS(text, line);
	HAS(text,
	    "cputrack_process_events_total{pid=\"4000002\",comm=\"other\","
	    "event=\"page-faults\",set=\"0\"} 5");
	HAS(text,
	    "cputrack_process_events_total{pid=\"4000003\",comm=\"given\","
	    "cgroup=\"/given/here\",event=\"page-faults\",set=\"0\"} 6");
	store_close(&s);
	free(own);
}

#define POD_UIDS "0f2c6a1e_9b3d_4c5e_8f70_1a2b3c4d5e6f"
#define POD_UID	 "0f2c6a1e-9b3d-4c5e-8f70-1a2b3c4d5e6f"
#define CTR_ID \
	"4b825dc642cb6eb9a060e54bf8d69288fbee4904aa1b2c3d4e5f60718293a4b5"
#define POD_CG                                                                     \
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_UIDS \
	".slice"

/*
 * A pod's and a container's cgroups: their ids follow the cgroup label,
 * on the cgroup's series (--for-each-cgroup) and on a process's in the
 * container; a cgroup that names none has none.
 */
static void
test_k8s_labels(void)
{
	uint64_t faults5[] = { 5, 0 }, faults2[] = { 2, 0 };
	struct store s;
	const char *text;

	store_open(&s, OUT_CPUTRACK);
	s.run.start = 10 * SEC;
	feed_cgroup_named(&s, "cgroup", POD_CG, 0, faults2, 11 * SEC);
	feed_cgroup_named(&s, "cgroup",
	    POD_CG "/cri-containerd-" CTR_ID ".scope", 0, faults5, 11 * SEC);
	feed_cgroup_named(&s, "cgroup", "/system.slice", 0, faults5, 11 * SEC);
	out_metrics_process(
	    s.m, 4000004, "app", "/machine.slice/libpod-" CTR_ID ".scope");
	feed(&s, "tick", 4000004, 1, "app", 3, 11 * SEC);
	text = render(&s, true, 12 * SEC);
	HAS(text,
	    "cputrack_cgroup_events_total{cgroup=\"" POD_CG
	    "\",pod_uid=\"" POD_UID "\",qos_class=\"Burstable\",event=\"page-"
	    "faults\",set=\"0\"} 2");
	HAS(text,
	    "cputrack_cgroup_events_total{cgroup=\"" POD_CG
	    "/cri-containerd-" CTR_ID ".scope\",pod_uid=\"" POD_UID
	    "\",container_id=\"" CTR_ID "\",qos_class=\"Burstable\","
	    "runtime=\"containerd\",event=\"page-faults\",set=\"0\"} 5");
	HAS(text,
	    "cputrack_cgroup_events_total{cgroup=\"/system.slice\",event=\"page-"
	    "faults\",set=\"0\"} 5");
	HAS(text,
	    "cputrack_process_events_total{pid=\"4000004\",comm=\"app\","
	    "cgroup=\"/machine.slice/libpod-" CTR_ID
	    ".scope\",container_id=\"" CTR_ID
	    "\",runtime=\"podman\",event=\"page-faults\",set=\"0\"} 3");
	store_close(&s);
}

/*
 * kubelet-root= reaches the series: a pod below the root given has its
 * labels, one at the root otherwise found has none.
 */
static void
test_k8s_root_given(void)
{
	uint64_t faults3[] = { 3, 0 };
	struct store s;
	const char *text;

	store_open(&s, OUT_CPUTRACK);
	s.run.start = 10 * SEC;
	s.run.cfg.kubelet_root = "/kubelet/kubepods";
	feed_cgroup_named(&s, "cgroup", "/kubelet/kubepods/pod" POD_UID, 0,
	    faults3, 11 * SEC);
	feed_cgroup_named(&s, "cgroup", POD_CG, 0, faults3, 11 * SEC);
	text = render(&s, true, 12 * SEC);
	HAS(text,
	    "cputrack_cgroup_events_total{cgroup=\"/kubelet/kubepods/pod" POD_UID
	    "\",pod_uid=\"" POD_UID "\",qos_class=\"Guaranteed\",event=\"page-"
	    "faults\",set=\"0\"} 3");
	HAS(text,
	    "cputrack_cgroup_events_total{cgroup=\"" POD_CG
	    "\",event=\"page-faults\",set=\"0\"} 3");
	store_close(&s);
}

/* The sample of text that starts with prefix, as a number; NAN if none. */
static double
sample_value(const char *text, const char *prefix)
{
	const char *p;

	for (p = text; p != NULL && *p != '\0';
	     p = strchr(p, '\n'), p = p != NULL ? p + 1 : NULL)
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			return strtod(p + strlen(prefix), NULL);
	return NAN;
}

/*
 * --metrics: each CPU's and each process's derived metrics, from all
 * their counts: 22 page faults in 3.5 s of task-clock (1.5 + 0.5 + 1.5)
 * are 22 / 3.5e9 * 1e6 K/sec. None for a CPU not counted, none for the
 * set of context-switches alone (no task-clock to divide by), none that
 * divides by the elapsed time (CPUs utilized: a rate of the counters').
 */
static void
test_metrics(void)
{
	uint64_t t1[] = { 10, 3 * SEC / 2 }, t2[] = { 2, SEC / 2 },
		 cs[] = { 42 };
	const char *cpu0 =
	    "cpustat_metric{cpu=\"0\",metric=\"page_faults_k_per_sec\","
	    "set=\"0\"} ";
	struct out_row row;
	struct store s;
	const char *text;
	double v;

	with_metrics = true;
	store_open(&s, OUT_CPUSTAT);
	with_metrics = false;
	row = cpu_row(0, 0, t1, 2 * SEC);
	out_metrics_row(s.m, &row, 11 * SEC);
	row = cpu_row(0, 0, t2, 2 * SEC);
	out_metrics_row(s.m, &row, 12 * SEC);
	row = cpu_row(0, 0, t1, 2 * SEC);
	out_metrics_row(s.m, &row, 13 * SEC);
	row = cpu_row(0, 1, cs, SEC);
	out_metrics_row(s.m, &row, 13 * SEC);
	row = cpu_row(1, 0, t1, 2 * SEC);
	row.not_counted = "permission refused";
	out_metrics_row(s.m, &row, 13 * SEC);
	text = render(&s, true, 15 * SEC);
	HAS(text, "# TYPE cpustat_metric gauge");
	v = sample_value(text, cpu0);
	CHECK(fabs(v - 22.0 / 3.5e9 * 1e6) < 1e-15);
	CHECK(count_lines(text, "cpustat_metric{") == 1);
	CHECK(strstr(text, "cpus_utilized") == NULL);
	store_close(&s);

	with_metrics = true;
	store_open_as(&s, OUT_CPUTRACK, false);
	with_metrics = false;
	out_metrics_process(s.m, 4242, "prog", "/user.slice");
	row = lwp_row("tick", 4242, 1, "prog", t1);
	out_metrics_row(s.m, &row, 11 * SEC);
	row = lwp_row("tick", 4242, 2, "prog", t2);
	out_metrics_row(s.m, &row, 12 * SEC);
	text = render(&s, false, 15 * SEC);
	HAS(text, "# TYPE cputrack_process_metric gauge");
	v = sample_value(text,
	    "cputrack_process_metric{pid=\"4242\",comm=\"prog\","
	    "cgroup=\"/user.slice\",metric=\"page_faults_k_per_sec\","
	    "set=\"0\"} ");
	CHECK(fabs(v - 12.0 / 2e9 * 1e6) < 1e-15);
	/* Without --thread-series, no series per LWP. */
	CHECK(count_lines(text, "cputrack_metric{") == 0);
	store_close(&s);
}

int
main(void)
{
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	test_cpustat();
	test_cputrack_lwps();
	test_cputrack_process_only();
	test_cputrack_exec();
	test_many_series();
	test_cputrack_cgroup();
	test_cputrack_process_cgroup();
	test_k8s_labels();
	test_k8s_root_given();
	test_metrics();
	cpc_close(cpc);
	return check_report("test_out_metrics");
}
