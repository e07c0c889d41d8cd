/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live view as text: the model's processes and threads, filtered,
 * sorted and laid out in columns, with the header that says what is
 * watched and how, and the footer with the keys. The screen (top_screen.c)
 * draws these lines with curses; batch mode (-b) prints them.
 */
#ifndef TOP_VIEW_H
#define TOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "out_buf.h"
#include "out_run.h"
#include "top_model.h"
#include "top_output.h"

/* What the lines are, for the screen's attributes. */
enum top_line_kind {
	TOP_LINE_HEADER,
	TOP_LINE_TITLE, /* the columns' names */
	TOP_LINE_PROC,
	TOP_LINE_THREAD,
	TOP_LINE_ENDED, /* a process or thread that ended */
	TOP_LINE_FOOTER,
	TOP_LINE_HELP,
	TOP_LINE_PANE,	/* the command's output pane: its title */
	TOP_LINE_OUTPUT /* ...and a line the command wrote */
};

struct top_lines {
	struct out_buf text; /* the lines, each ended by a NUL */
	size_t *at;	     /* where each starts in text */
	unsigned char *kind;
	int n, cap;
	int body;     /* the first process line */
	int pane;     /* the output pane's first line, or -1: none */
	int selected; /* the selected process's line, or -1 */
	bool failed;  /* no memory: lines are missing */
};

/* What the person at the keyboard chose. */
struct top_choice {
	int sort;		/* the column sorted by */
	bool ascending;		/* < then >: the other way */
	bool all_threads;	/* H: every process's threads */
	bool totals;		/* a: since the start, not per second */
	bool paused;		/* space */
	bool help;		/* ?: the keys instead of the table */
	char filter[64];	/* /: a name or user that lines hold */
	bool tree;		/* V: each process under its parent */
	bool cmdline;		/* c: the command lines, not the names */
	bool cgroup_column;	/* C: each process's cgroup */
	bool by_cgroup;		/* g: a line per cgroup */
	bool fold_ended;	/* -b: past a screenful, ended processes of one
				   command as one line */
	bool output_hidden;	/* o: no pane of the command's output */
	bool metrics_only;	/* T: -M's metrics alone, not the counts */
	unsigned long shown;	/* t: the process whose threads show, or 0 */
	unsigned long selected; /* the selected process's key, or 0 */
	unsigned interval_ms;	/* the refresh's */
	char said[96];		/* the answer to the last key, or "" */
};

/* What the header says of the run. */
struct top_about {
	const char *engine;
	const char *watching; /* the targets, in words */
	unsigned tick_ms;     /* the counting interval (-T) */
	const char *note;     /* a line to show, or NULL */
	const char *modes;    /* events counting user mode only, or NULL */
	const char *message;  /* the latest message of the run, or NULL */
	/* The last lines of the command's output (its pane), or NULL */
	const struct top_tail *output;
	const char *quitting; /* what q sent the command, or NULL */
	bool typing;	      /* the keyboard is the command's */
	bool waits;	      /* the command waits for a line it reads */
};

struct top_view;

struct top_view *top_view_new(const struct out_run *run);
void top_view_free(struct top_view *v);
/* The columns, and a column's name (to say what is sorted by). */
int top_view_ncolumns(const struct top_view *v);
const char *top_view_column(const struct top_view *v, int col);
/* The column of the first clock (task-clock: CPUs), or -1: none. */
int top_view_cpu_column(const struct top_view *v);
/* The column of the first event: the default sort. */
int top_view_default_sort(const struct top_view *v);
/*
 * All the lines of the view, width columns wide (0: as wide as they come),
 * from the model as the last refresh left it.
 */
void top_view_render(struct top_view *v, struct top_model *m,
    const struct top_choice *c, const struct top_about *a, int width,
    struct top_lines *out);
/* The process key of a process line, or 0. */
unsigned long top_view_line_proc(const struct top_view *v, int line);
void top_lines_free(struct top_lines *l);
static inline const char *
top_line(const struct top_lines *l, int i)
{
	return l->text.data + l->at[i];
}

#endif /* TOP_VIEW_H */
