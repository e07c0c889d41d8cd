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
 * The output (output.c) owns it: rows come from the engine's thread, the
 * keys and the drawing run on the screen's own thread.
 */
#ifndef TOP_H
#define TOP_H

#include <stdbool.h>

#include "out_buf.h"
#include "out_run.h"

struct top;

/*
 * Open the view: on the terminal at fd (which must be one), or in batch
 * mode. NULL, said on stderr, when it cannot be.
 */
struct top *top_open(const struct out_run *run, int fd);
/* The screen's thread starts with the run. */
int top_start(struct top *t);
void top_row(struct top *t, const struct out_row *row);
/*
 * After a burst of rows: a refresh when one is due. In batch mode its
 * text goes into text (true), for the output to write.
 */
bool top_flush(struct top *t, struct out_buf *text);
/*
 * The end: the terminal as it was, and the last totals into text (unless
 * it is NULL), for the output to write.
 */
void top_close(struct top *t, struct out_buf *text);

#endif /* TOP_H */
