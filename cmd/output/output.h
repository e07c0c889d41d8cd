/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rows of both commands, in every format, and the clock they are
 * timed by. A command says what happened (struct out_row); this module
 * alone decides how it is written: the table layout of the originals, the
 * machine-readable streams (CSV and JSON Lines, one schema,
 * OUTPUT_SCHEMA_VERSION, described in cpctools-output(5)),
 * the counters as metrics (OpenMetrics or the Prometheus text format)
 * in a file that each interval replaces, or served over HTTP, or a trace
 * for the timeline viewers (the Trace Event format).
 *
 * Writing never blocks the command: rows go at once, as they are, into a
 * bounded queue, and a writer thread renders and writes them. When the
 * queue is full (the reader stopped, a slow disk), rows are dropped and
 * counted, and output_close says how many, of which kinds. A record read
 * back (paced) counts nothing: its rows wait for room instead.
 */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "libcpc.h"
#include "setgrp.h"

#define OUTPUT_SCHEMA_VERSION 2

/* The bound of the queue of rendered rows, in bytes. */
#define OUTPUT_QUEUE_BYTES (4 * 1024 * 1024)

/* output_close's status when rows were dropped and nothing else failed. */
#define OUTPUT_STATUS_DROPPED 3

/*
 * The formats of rows, one per line of formats.def; OUT_SINK: a sink's
 * format, rendered whole (its configuration says which).
 */
enum out_format {
#define FORMAT(word, NAME) OUT_##NAME,
#include "formats.def"
#undef FORMAT
	OUT_SINK
};
enum out_tool { OUT_CPUTRACK, OUT_CPUSTAT };

struct metric_env;
struct metric_plan;

/*
 * --input: where and when the record was made, and by which version:
 * every format writes these instead of the reader's own.
 */
struct out_origin {
	char host[256];
	char start[40]; /* RFC 3339, UTC, as the record gives it */
	unsigned long long start_epoch_ns;
	char tool_version[64];
};
struct metric_value;
struct out_sink_ops;

/* A sink a command has, and its configuration (out_sink.h). */
struct out_sink {
	const struct out_sink_ops *ops;
	void *cfg;
};

struct out_config {
	enum out_tool tool;
	enum out_format format;
	/*
	 * The command's sinks (nsinks): those the run wants are opened, in
	 * this order.
	 */
	const struct out_sink *sinks;
	int nsinks;
	const setgrp_t *specs; /* the run's master set group */
	const char *path;      /* -o/--output FILE, or NULL */
	int fd;		       /* --output-fd, or -1: standard output */
	const char *engine;    /* cputrack's engine, for the metrics */
	bool title;	       /* table: the title line (not -n) */
	bool tsc;	       /* -t: the tsc column */
	bool pid;	       /* cputrack -f: the pid column */
	bool cgroup_names;     /* --for-each-cgroup: rows name theirs */
	char timestamp;	       /* cpustat -T: 'u', 'd', or 0 */
	int per_unit;	       /* cpustat --per-*: enum topo_unit */
	bool cpus_chosen;      /* cpustat -C: the table's total reads "all" */
	bool metrics;	       /* --metrics: perf stat's derived metrics */
	/*
	 * -M: the vendors' metrics, planned (metric_plan.h), whose events
	 * are one set of the run; NULL: none. --metric-only: the table
	 * gives metrics alone, as columns; --metric-no-threshold: no metric
	 * is hidden under a parent below its threshold.
	 */
	struct metric_plan *metric_plan;
	/* --input: the recorded machine's facts; NULL: this machine's */
	const struct metric_env *env;
	/* The set -M reads: its own, a -c set it joined, or --input's */
	bool metric_set_given;
	int metric_set;
	bool metric_only;
	bool metric_show_all;
	bool default_events;	  /* no -c: perf stat's default set */
	const char *default_note; /* ...what it left out and why, or NULL */
	/*
	 * table: a line before the title names each pic; set for the
	 * default events, and by output_open for a terminal.
	 */
	bool name_pics;
	char csv_separator; /* -x: CSV's separator; 0: ',' */
	bool summary_only;  /* cputrack -r -n: no rows but the summary */
	/*
	 * --input: rows are written at the reader's pace, never dropped
	 * (nothing is counted while they wait).
	 */
	bool paced;
	const struct out_origin *origin; /* --input's record's, or NULL */
	/* --for-each-cgroup's kubelet-root: pods only below it; NULL: found */
	const char *kubelet_root;
};

/* What a row says; fields that do not apply are -1 or NULL. */
struct out_row {
	hrtime_t when;	   /* CLOCK_MONOTONIC ns: when its counts
			      were read; 0: when it is written */
	bool at_start;	   /* timed at the run's start instead */
	const char *label; /* tick, exit, ...: a literal */
	pid_t pid;
	/*
	 * cputrack: the process's number in the run, 1 for the first seen;
	 * never another's, as a pid may be once reused; 0: none.
	 */
	unsigned long proc;
	int lwp;
	pid_t tid;
	const char *comm; /* the process's name, or NULL:
			     read from /proc when needed */
	int cpu;	  /* a cpustat tick row's CPU */
	int ncpus;	  /* a cpustat total or unit row's CPUs
			     counted */
	/*
	 * A cpustat row's CPUs counted, which say the parts it holds (core
	 * PMUs, boxes: spec_part_counted); NULL: every part.
	 */
	const cpu_set_t *cpus;
	/* a cpustat --per-* row's unit, as perf names it (S0-D0-C1) */
	const char *unit;
	unsigned long intervals; /* a cpustat row's intervals: more
				    than 1 in a gap row */
	int setno;		 /* -1: a row without counts */
	const uint64_t *values;	 /* the set's, one per request, then
				    their parts (spec_nvalues) */
	uint64_t tick;		 /* -t: its enabled time in TSC ticks */
	uint64_t enabled_ns;
	uint64_t running_ns;
	/*
	 * The wall-clock ns the values were counted over (with several sets,
	 * their set's turns), for the metrics that divide by it (CPUs
	 * utilized); 0: not known.
	 */
	uint64_t elapsed_ns;
	pid_t child;	  /* fork: the child */
	const char *args; /* exec: the new image's arguments */
	/*
	 * Why the row's values were not counted (permission refused, out of
	 * descriptors, never running): they are then written as none, never
	 * as 0. And what a total leaves out (LWPs or
	 * CPUs that could not be counted), when it does. A set that was
	 * enabled but never ran (multiplexed out) is found here and said
	 * the same way.
	 */
	const char *not_counted;
	const char *partial;
	/*
	 * not_counted only because a signal stopped the run before the row's
	 * first interval ended: shown, but neither said nor a failure.
	 */
	bool stopped_early;
	/*
	 * The metrics of the row's set (out_run_set_metrics's: --metrics's,
	 * then -M's), in that order: the output works them out once, for
	 * every format and sink; a command leaves it NULL.
	 */
	const struct metric_value *metrics;
};

/* The row's metric i, false where it has none (not counted, no divisor). */
bool out_row_metric(const struct out_row *row, int i, double *value);

/*
 * cputrack -r: what one event of a set came to over the runs, each run's
 * value being the tree's total (the totals of all its processes).
 */
struct out_runs_stat {
	double mean;
	double rse_pct; /* the mean's relative standard error, as perf
			   stat's "+- x%"; < 0: not known (one run) */
	uint64_t min;
	uint64_t max;
};

/* A set's line of the summary after the runs. */
struct out_summary {
	unsigned runs; /* the runs its values come from */
	int setno;
	const struct out_runs_stat *stats; /* one per request of the set */
};

struct output;

/* --format's word: 0, or -1 for a bad argument. */
int output_parse_format(const char *arg, enum out_format *format);
/*
 * The word of the format of rows i (formats.def's order), or NULL after
 * the last; *summarizes: whether it writes -r's summary of the runs.
 */
const char *output_format_word(size_t i, bool *summarizes);
/* Whether format writes -r's summary of the runs. */
bool output_format_summarizes(enum out_format format);

/*
 * Whether descriptor fd is open for writing; said on stderr when not. A
 * command that opens descriptors of its own before output_open checks
 * --output-fd first, while a closed one cannot yet be one of its own.
 */
int output_check_fd(int fd);
/*
 * Open the destination (the file, the descriptor, standard output, the
 * listening socket): NULL, said on stderr, when it cannot be.
 */
struct output *output_open(cpc_t *cpc, const struct out_config *cfg);
/*
 * A run that ended by itself (its target, its count), not by a signal:
 * the sinks that serve the final counts wait (the exporter's --linger:
 * until a client has taken them, or its time passes, or SIGINT, SIGTERM,
 * SIGHUP or SIGQUIT comes).
 */
void output_linger(struct output *o);
/*
 * Write out what is queued, wait for it, and let everything go. The
 * status the run should add: 0; 1 when a row was not counted, a total
 * was partial, or a write failed that output_flush had not reported
 * (each said on stderr); OUTPUT_STATUS_DROPPED when rows were dropped
 * (said on stderr, with how many of each kind).
 */
int output_close(struct output *o);

/* The instant rows are timed from: now, when the run starts. */
hrtime_t output_now(void);
/* The run starts now; the title and the stream's head are written then. */
hrtime_t output_start_clock(struct output *o);

/* The title line (table), or the stream's head, once the clock starts. */
void output_title(struct output *o);
void output_row(struct output *o, const struct out_row *row);
/* cputrack -r: a set's summary, after the rows of every run. */
void output_summary(struct output *o, const struct out_summary *sum);
/* cpustat -T: the timestamp line before a table row. */
void output_timestamp(struct output *o);
/*
 * cputrack: a process counted from now, read while it is there for what
 * the metrics label its series with (its cgroup, unless given); comm: its
 * name.
 */
void output_process(
    struct output *o, pid_t pid, const char *comm, const char *cgroup);
/*
 * --for-each-cgroup: how many cgroups are counted in their parents' rows,
 * for the exporter's own metrics.
 */
void output_cgroups_folded(struct output *o, unsigned n);

/*
 * Have what is queued written, without waiting for it; 0, or -1 with
 * errno once writing has failed (EPIPE: the reader went away).
 */
int output_flush(struct output *o);

#endif /* OUTPUT_H */
