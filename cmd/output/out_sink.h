/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A sink: where a run's rows go beside the stream of a format, or in its
 * place. Each is a folder below cmd/output that defines one of these: the
 * exporter (export/: the metrics, for a file, a stream or --listen) and
 * the live view (top/: --top). A sink owns its options, its formats and
 * its configuration, which the command line fills (cmd/cli/sinks.c, from
 * the one table of sinks, sinks.def); the output opens those the run
 * wants (out_config's sinks), in that order, and reaches them through
 * these operations alone, naming none of them.
 *
 * Every call but open, stop, linger and close is made under the output's
 * lock; a sink's own thread takes it through its host (locked).
 */
#ifndef OUT_SINK_H
#define OUT_SINK_H

#include <stdbool.h>
#include <sys/types.h>

#include "out_buf.h"
#include "out_run.h"

/* The output's own counts, for a sink that reports them. */
struct out_sink_stats {
	unsigned long long rows_dropped;
	unsigned cgroups_folded; /* --for-each-cgroup's */
};

/* What the output lends a sink: fn(arg, its counts) under its lock. */
struct out_sink_host {
	void (*locked)(void *host,
	    void (*fn)(void *arg, const struct out_sink_stats *stats),
	    void *arg);
	void *host;
};

/* An option's tools, by enum out_tool: OUT_TOOLS(OUT_CPUTRACK). */
#define OUT_TOOLS(tool) (1u << (tool))

/*
 * Where a sink's option stands in a command's usage: among the options
 * that say where the counts go, those that shape the metrics, or those
 * that say how the run is shown.
 */
enum out_usage_part { OUT_USAGE_DESTINATION, OUT_USAGE_METRICS, OUT_USAGE_RUN };

/*
 * An option of a sink: its long name and its letter (either may be
 * NULL or 0), whether it takes an argument, its lines in the usage, by
 * enum out_tool (NULL: the first's), as the tools word them, and where
 * they stand, and the tools that have it (0: all of them).
 */
struct out_sink_option {
	const char *name;
	char letter;
	bool takes_arg;
	const char *help[2];
	enum out_usage_part part;
	unsigned tools;
};

struct out_sink_ops {
	/* Its records' label, in what was dropped; what a command asks by. */
	const char *name;
	/* Its options, ending with { 0 }; NULL: none. */
	const struct out_sink_option *options;
	/*
	 * Its configuration: config_size bytes, zeroed, then config_init
	 * (or NULL), then filled by option: options[i] given, with arg (or
	 * NULL). 0, or -1 for a bad argument, said with quote around it.
	 */
	size_t config_size;
	void (*config_init)(void *cfg);
	int (*option)(void *cfg, int i, const char *arg, char quote);
	/*
	 * --format's words it renders whole (out_config's OUT_SINK), NULL-
	 * ended, or NULL; format: formats[i] is the run's.
	 */
	const char *const *formats;
	void (*format)(void *cfg, int i);
	/* Once the options are read: what one needs and lacks, or NULL. */
	const char *(*check)(const void *cfg);
	/*
	 * The stream is the sink's: no format writes rows to it; the sink's
	 * text (flush's, close's) goes there instead.
	 */
	bool takes_stream;
	/* Whether the run's options (and its own, own) want it. */
	bool (*wanted)(const struct out_config *cfg, const void *own);
	/*
	 * Open it for run, with its configuration own, whose stream is
	 * descriptor fd (-1: a file replaced whole): its state, or NULL,
	 * said on stderr.
	 */
	void *(*open)(const struct out_run *run, const void *own, int fd,
	    const struct out_sink_host *host);
	/* The run starts: its threads start now, never before a fork. */
	void (*start)(void *state);
	/* A row, at when (CLOCK_MONOTONIC ns, the output's order). */
	void (*row)(void *state, const struct out_row *row, hrtime_t when);
	/* cputrack: a process counted from now (output_process); or NULL. */
	void (*process)(
	    void *state, pid_t pid, const char *comm, const char *cgroup);
	/* After a burst of rows: true with text for the stream; or NULL. */
	bool (*flush)(void *state, struct out_buf *text);
	/*
	 * The stream whole, for the formats that write no rows (the
	 * metrics), at now; NULL: it renders none.
	 */
	void (*render)(void *state, struct out_buf *b, hrtime_t now);
	/* Whether render's text changed since it was last rendered. */
	bool (*changed)(const void *state);
	/* A run that ended by itself: the final counts' wait; or NULL. */
	void (*linger)(void *state);
	/* Nothing is served from now on; or NULL. */
	void (*stop)(void *state);
	/*
	 * Let everything go; a sink that takes the stream puts its last text
	 * into text, when it is not NULL.
	 */
	void (*close)(void *state, struct out_buf *text);
};

#endif /* OUT_SINK_H */
