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
 * It is a sink of the output (top_sink, out_sink.h), which cputrack hands
 * in: rows come from the engine's thread, the keys and the drawing run on
 * the screen's own thread.
 */
#ifndef TOP_H
#define TOP_H

#include "out_sink.h"

/*
 * The sink: wanted for --top. On the terminal at the stream's descriptor
 * (which must be one), or in batch mode, where each refresh's text, and
 * the last totals at the end, go to the stream.
 */
extern const struct out_sink_ops top_sink;

#endif /* TOP_H */
