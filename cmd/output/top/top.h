/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack --top (and cputop): the run's rows, not written but shown as a
 * full-screen view of processes and threads, redrawn at each refresh; or,
 * in batch mode (-b), the view as plain text once per refresh.
 *
 *	top_model.c   the processes and threads, and what each counted
 *	top_view.c    the view as lines of text: columns, sort, filter
 *	top_screen.c  the terminal: curses, the keys, resizes
 *	top.c	      this: the refreshes, and the lock they share
 *
 * It is a sink of the output (top_sink, out_sink.h), cputrack's row of
 * the table of sinks (cmd/cli/sinks.def), with its options --top and -b:
 * rows come from the engine's thread, the keys and the drawing run on the
 * screen's own thread.
 */
#ifndef TOP_H
#define TOP_H

#include <stdbool.h>
#include <stdio.h>

#include "out_sink.h"

/*
 * Its configuration: --top and -b, and what cputrack tells the view of
 * the run (out_config's sinks).
 */
struct top_config {
	bool on;	      /* --top, or run as cputop */
	bool batch;	      /* -b: the view as text, once per refresh */
	bool repeat;	      /* -r: runs repeated, which it cannot show */
	const char *watching; /* what is watched, in words */
	/*
	 * Why the whole machine is counted process by process, from
	 * outside (the engine that stands in); NULL: it is not
	 */
	const char *outside;
	unsigned tick_ms;	/* -T */
	unsigned refresh_ms;	/* a refresh's interval */
	const char *note;	/* a line of its own, or NULL */
	const char *modes_note; /* events that count user mode only */
	/*
	 * The master of the started command's own terminal, whose output
	 * the view shows and keeps; -1: none (the command writes where
	 * cputrack's descriptors go)
	 */
	int command_fd;
};

/*
 * The sink: wanted for --top. On the terminal at the stream's descriptor
 * (which must be one), or in batch mode, where each refresh's text, and
 * the last totals at the end, go to the stream.
 */
extern const struct out_sink_ops top_sink;

/*
 * The combinations the view refuses, once cputrack has told it on,
 * batch, repeat and tick_ms, with the output's configuration (its
 * format, its file, the other sinks): NULL, or the line that says why.
 */
const char *top_refusal(
    const struct out_config *out, const struct top_config *c);

/* cputop's usage (--help), with the engines' names joined by '|'. */
void top_usage(FILE *out, const char *engines);

#endif /* TOP_H */
