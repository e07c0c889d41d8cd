/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Trace Event format (the JSON array form) that ui.perfetto.dev and
 * chrome://tracing open: counters on a track per thread (cputrack) or
 * CPU (cpustat), named by metadata events, with instant events for the
 * forks, execs and ends the rows tell of.
 */
#ifndef OUT_TRACE_H
#define OUT_TRACE_H

#include "out_buf.h"
#include "out_run.h"

/* What the trace has named so far; only the writer thread uses it. */
struct out_trace;

/* tool: the name of the command's own process, which the head gives. */
struct out_trace *out_trace_new(const char *tool);
void out_trace_free(struct out_trace *tr);

/* The array's opening and the run's facts, at time 0. */
void out_trace_head(
    const struct out_trace *tr, const struct out_run *run, struct out_buf *b);
void out_trace_row(struct out_trace *tr, const struct out_run *run,
    struct out_buf *b, const struct out_row *row, hrtime_t t);
/* The array's end, once every row is written. */
void out_trace_tail(struct out_buf *b);

#endif /* OUT_TRACE_H */
