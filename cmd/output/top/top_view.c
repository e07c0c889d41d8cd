/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live view's lines. The columns are data (the table below, then one
 * per event of the run's sets, and one per ratio that the sets give); a
 * line is worked out once per entity into cells, which sort and print.
 *
 * An event's value is a rate per second over the refresh, clocks (their
 * ns) as CPUs; with the totals (a), a count since the start, clocks as
 * seconds. "-" is a value that was not counted (the header says why), an
 * empty cell one not counted yet; "*" marks a set that ran part of its
 * time (multiplexed), whose counts are not scaled (but those of a set of
 * {...} groups, scaled by each group's share of the time).
 *
 * With -M, a column per metric of its plan (TopDown's shares, in %), from
 * the same counts of each line's thread or process; T shows them alone.
 *
 * The processes show as a list, sorted; as a tree (V), each under its
 * parent; or as one line per cgroup (g), their values summed.
 */
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "top_view.h"
#include "safename.h"

enum col_kind {
	COL_PID,
	COL_USER,
	COL_THR,
	COL_EVENT,
	COL_METRIC,
	COL_PLAN,
	COL_CGROUP,
	COL_COMM
};

struct column {
	enum col_kind kind;
	int index; /* of the run's events or metric keys */
	char title[24];
	int width;   /* the last column (COMM) takes what is left */
	bool left;   /* text, aligned left */
	bool hidden; /* not shown now (CGROUP, until C) */
};

static const struct column fixed_before[] = {
	{ COL_PID, 0, "PID", 7, false, false },
	{ COL_USER, 0, "USER", 8, true, false },
	{ COL_THR, 0, "THR", 5, false, false },
};
static const struct column fixed_after[] = {
	{ COL_CGROUP, 0, "CGROUP", 24, true, true },
	{ COL_COMM, 0, "COMMAND", 0, true, false },
};

#define VALUE_WIDTH 10
/* COMMAND keeps this many columns at least, for a name to read. */
#define COMMAND_MIN 8
#define CELL_MAX    64
#define MAX_USERS   64

struct user_name {
	uid_t uid;
	char name[16];
};

/*
 * Batch mode's screens list every process; past the first FOLD_AFTER, the
 * ended processes of one command are one line, as a churning machine
 * ends thousands a second.
 */
#define FOLD_AFTER     20
/* The tree's indent stops deepening here. */
#define TREE_DEPTH_MAX 16

/*
 * An entity's line before it is printed: its cells and its sort key. A
 * group's line (e NULL) sums the values of several.
 */
struct line_cells {
	const struct top_entity *e;
	int index;	  /* a process's, in the model */
	const char *comm; /* a process's name, or a thread's */
	bool thread;
	double key;
	double *num;		   /* per column: its value, or -1 */
	char *mark;		   /* per column: '*', '-' or 0 */
	unsigned long nprocs;	   /* a group's processes */
	unsigned long nended;	   /* ...of which ended */
	unsigned long nidle;	   /* ...of which run no thread, yet or now */
	struct line_cells *member; /* a group's first */
	char *command;		   /* a group's COMMAND longer than a cell */
	int depth;		   /* in the tree (V) */
	char cell[][CELL_MAX];
};

struct top_view {
	const struct out_run *run;
	struct column *cols;
	int ncols;
	int first_event;
	struct user_name users[MAX_USERS];
	int nusers;
	unsigned long *line_procs; /* per line of the last render */
	int nline_procs;
	/*
	 * Per event of the run, per set: the request that counts it, or -1;
	 * and whether it is a clock. Found once, not at each cell.
	 */
	int *event_req;
	bool *event_clock;
	/*
	 * The metrics of the set and entity last worked out (they come all
	 * at once; their columns read them one by one).
	 */
	struct metric_value *set_values;
	const struct top_entity *values_entity;
	bool values_totals;
	int values_set;
	int nplan;
	int narrowed; /* value columns hidden for the window's width */
};

/* Only ratios: the rates of the events are columns of their own. */
static bool
ratio_metric(const char *key)
{
	size_t n = strlen(key);

	return strncmp(key, "cpus_utilized", 13) != 0 &&
	    (n < 10 || strcmp(key + n - 10, "_k_per_sec") != 0) &&
	    strstr(key, "_k_per_sec:") == NULL;
}

/*
 * An event's name in its column: a system call tracepoint's without its
 * system (sys_enter_write); the header's sets name it whole.
 */
static void
event_title(char *title, size_t size, const char *name)
{
	if (strncmp(name, "syscalls:", 9) == 0 && name[9] != '\0')
		name += 9;
	snprintf(title, size, "%.*s", VALUE_WIDTH, name);
}

/* A metric's name in its column: TopDown's without its "tma_". */
static void
plan_title(char *title, size_t size, const struct metric_shown *m)
{
	const char *name = m->key;

	if (strncmp(name, "tma_", 4) == 0 && name[4] != '\0')
		name += 4;
	snprintf(title, size, "%.*s", VALUE_WIDTH, name);
}

static int
add_column(struct top_view *v, const struct column *c)
{
	struct column *grown =
	    reallocarray(v->cols, (size_t)v->ncols + 1, sizeof(*grown));

	if (grown == NULL)
		return -1;
	v->cols = grown;
	v->cols[v->ncols++] = *c;
	return 0;
}

static int
add_columns(struct top_view *v)
{
	const struct out_run *run = v->run;
	struct column c;
	size_t i;
	int k;

	for (i = 0; i < sizeof(fixed_before) / sizeof(fixed_before[0]); i++)
		if (add_column(v, &fixed_before[i]) != 0)
			return -1;
	v->first_event = v->ncols;
	for (k = 0; k < run->nevents; k++) {
		c = (struct column) { COL_EVENT, k, "", VALUE_WIDTH, false,
			false };
		event_title(c.title, sizeof(c.title), run->events[k].name);
		if (add_column(v, &c) != 0)
			return -1;
	}
	for (k = 0; k < run->nmetric_keys; k++) {
		if (!ratio_metric(run->metric_keys[k]))
			continue;
		c = (struct column) { COL_METRIC, k, "", 8, false, false };
		snprintf(c.title, sizeof(c.title), "%.8s", run->metric_keys[k]);
		if (add_column(v, &c) != 0)
			return -1;
	}
	for (k = 0; k < run->nplan; k++) {
		c = (struct column) { COL_PLAN, k, "", VALUE_WIDTH, false,
			false };
		plan_title(
		    c.title, sizeof(c.title), out_run_plan_metric(run, k));
		if (add_column(v, &c) != 0)
			return -1;
		v->nplan++;
	}
	for (i = 0; i < sizeof(fixed_after) / sizeof(fixed_after[0]); i++)
		if (add_column(v, &fixed_after[i]) != 0)
			return -1;
	return 0;
}

/* Where each event is counted: its request in each set, or -1. */
static int
map_events(struct top_view *v)
{
	const struct out_run *run = v->run;
	size_t n = (size_t)run->nevents * (size_t)run->nsets;
	int k, s, r;

	v->event_req = calloc(n + 1, sizeof(*v->event_req));
	v->event_clock = calloc((size_t)run->nevents + 1, sizeof(bool));
	if (v->event_req == NULL || v->event_clock == NULL)
		return -1;
	for (k = 0; k < run->nevents; k++) {
		v->event_clock[k] = out_run_is_clock(run, run->events[k].name);
		for (s = 0; s < run->nsets; s++) {
			v->event_req[k * run->nsets + s] = -1;
			for (r = 0; r < run->specs[s]->nreqs; r++)
				if (strcmp(run->specs[s]->reqs[r].name,
					run->events[k].name) == 0)
					v->event_req[k * run->nsets + s] = r;
		}
	}
	return 0;
}

struct top_view *
top_view_new(const struct out_run *run)
{
	struct top_view *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	v->run = run;
	if (run->nmetrics > 0 &&
	    (v->set_values = calloc(
		 (size_t)run->nmetrics, sizeof(*v->set_values))) == NULL) {
		free(v);
		return NULL;
	}
	if (add_columns(v) != 0 || map_events(v) != 0) {
		top_view_free(v);
		return NULL;
	}
	return v;
}

void
top_view_free(struct top_view *v)
{
	if (v == NULL)
		return;
	free(v->cols);
	free(v->line_procs);
	free(v->event_req);
	free(v->event_clock);
	free(v->set_values);
	free(v);
}

int
top_view_ncolumns(const struct top_view *v)
{
	return v->ncols;
}

int
top_view_cpu_column(const struct top_view *v)
{
	int i;

	for (i = 0; i < v->ncols; i++)
		if (v->cols[i].kind == COL_EVENT &&
		    v->event_clock[v->cols[i].index])
			return i;
	return -1;
}

const char *
top_view_column(const struct top_view *v, int col)
{
	return v->cols[col].title;
}

int
top_view_default_sort(const struct top_view *v)
{
	enum col_kind k = v->cols[v->first_event].kind;

	return k == COL_EVENT || k == COL_METRIC ? v->first_event : 0;
}

/* The name in a /proc comm file into comm; false where there is none. */
static bool
read_comm(const char *path, char *comm, size_t size)
{
	char name[64];
	FILE *f;
	size_t n;

	if ((f = fopen(path, "re")) == NULL)
		return false;
	n = fread(name, 1, sizeof(name) - 1, f);
	fclose(f);
	if (n > 0 && name[n - 1] == '\n')
		n--;
	if (n == 0)
		return false;
	name[n] = '\0';
	strlcpy(comm, name, size);
	return true;
}

/* A process's name where its rows had none: /proc's, once. */
static void
learn_comm(struct top_entity *e)
{
	char path[40];

	if (e->comm[0] != '\0')
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)e->pid);
	(void)read_comm(path, e->comm, sizeof(e->comm));
}

/*
 * A thread's own name, read again at each refresh it is shown at, as a
 * thread may name itself after it starts. One that is gone keeps the
 * last name read, and one never read has its process's.
 */
static const char *
thread_name(struct top_model *m, struct top_entity *t, const char *comm)
{
	char path[64];
	uint64_t now = top_model_refreshes(m);

	if (t->comm_refresh != now && !t->ended) {
		t->comm_refresh = now;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm",
		    (int)t->pid, (int)t->tid);
		(void)read_comm(path, t->comm, sizeof(t->comm));
	}
	return t->comm[0] != '\0' ? t->comm : comm;
}

static const char *
user_name(struct top_view *v, const struct top_entity *e)
{
	struct passwd pw, *found;
	char buf[1024];
	int i;

	if (!e->uid_known)
		return "?";
	for (i = 0; i < v->nusers; i++)
		if (v->users[i].uid == e->uid)
			return v->users[i].name;
	i = v->nusers < MAX_USERS ? v->nusers++ : MAX_USERS - 1;
	v->users[i].uid = e->uid;
	if (getpwuid_r(e->uid, &pw, buf, sizeof(buf), &found) == 0 &&
	    found != NULL)
		snprintf(v->users[i].name, sizeof(v->users[i].name), "%s",
		    pw.pw_name);
	else
		snprintf(v->users[i].name, sizeof(v->users[i].name), "%u",
		    (unsigned)e->uid);
	return v->users[i].name;
}

/*
 * n in at most 6 characters and a unit prefix: 999.9, 12.3K, 4.56G; a
 * whole number (a count) as it is, below a billion (9 digits, which leave
 * room in the column for the scaled mark).
 */
static void
scaled(char *buf, size_t size, double n, bool whole, const char *unit)
{
	static const char prefix[] = " KMGTP";
	int p = 0;

	/*
	 * A count since the start is exact while it fits its column; one
	 * past it is scaled as a rate is, not to 7 digits and a prefix that
	 * fill the column and push the mark out of it.
	 */
	if (!whole || n >= 1e9)
		while (n >= 999.95 && p < (int)sizeof(prefix) - 2) {
			n /= 1000;
			p++;
		}
	if (p == 0 && whole)
		snprintf(buf, size, "%.0f%s", n, unit);
	else if (p == 0)
		snprintf(buf, size, "%.*f%s", n < 99.95 ? 1 : 0, n, unit);
	else
		snprintf(buf, size, "%.*f%c%s", n < 99.95 ? 2 : 1, n, prefix[p],
		    unit);
}

/*
 * Where the run counts an event for an entity: the first set that counts
 * it and was counted in the span; -1 with none.
 */
static int
event_set(const struct top_view *v, const struct top_model *m,
    const struct top_entity *e, enum top_span span, int event,
    struct top_counts *c, int *req)
{
	int nsets = v->run->nsets, s, fallback = -1;
	const int *reqs = v->event_req + event * nsets;

	for (s = 0; s < nsets; s++) {
		if (reqs[s] < 0)
			continue;
		*c = top_model_counts(m, e, span, s);
		if (c->counted) {
			*req = reqs[s];
			return s;
		}
		if (fallback < 0 && c->reason >= 0)
			fallback = s;
	}
	if (fallback >= 0) {
		*c = top_model_counts(m, e, span, fallback);
		*req = reqs[fallback];
	}
	return fallback;
}

/* An event's value n (a rate, or a count with the totals) as its cell. */
static void
event_text(const struct top_view *v, int event, double n, bool totals,
    bool multiplexed, char *cell)
{
	if (v->event_clock[event])
		snprintf(cell, CELL_MAX, "%.2f%s", n / 1e9, totals ? "s" : "");
	else
		scaled(cell, CELL_MAX, n, totals, totals ? "" : "/s");
	if (multiplexed)
		strcat(cell, "*");
}

static double
event_cell(const struct top_view *v, const struct top_model *m,
    const struct top_entity *e, bool totals, int event, char *cell)
{
	struct top_counts c;
	double n;
	int req;

	cell[0] = '\0';
	if (event_set(
		v, m, e, totals ? TOP_TOTAL : TOP_SHOWN, event, &c, &req) < 0)
		return -1;
	if (!c.counted) {
		strcpy(cell, "-");
		return -1;
	}
	n = (double)c.values[req];
	if (!totals && c.elapsed_ns == 0)
		return -1;
	if (!totals)
		n = n * 1e9 / (double)c.elapsed_ns;
	event_text(v, event, n, totals, c.multiplexed, cell);
	return n;
}

/*
 * The metrics of set s of an entity, from its counts over the refresh (or
 * since the start), worked out once for all its columns: NULL when the
 * entity's set was not counted.
 */
static const struct metric_value *
set_values(struct top_view *v, const struct top_model *m,
    const struct top_entity *e, bool totals, int s)
{
	const struct out_run *run = v->run;
	struct metric_counts in;
	struct top_counts c;

	if (s < 0)
		return NULL;
	if (v->values_entity == e && v->values_totals == totals &&
	    v->values_set == s)
		return v->set_values;
	c = top_model_counts(m, e, totals ? TOP_TOTAL : TOP_SHOWN, s);
	if (!c.counted)
		return NULL;
	in = (struct metric_counts) {
		.values = c.values,
		.nvalues = run->specs[s]->nreqs,
		.cpus = 1,
		.elapsed_s = (double)c.elapsed_ns / 1e9,
		.counted = true,
	};
	out_run_eval(run, s, &in, v->set_values);
	v->values_entity = e;
	v->values_totals = totals;
	v->values_set = s;
	return v->set_values;
}

/* --metrics's key of an entity: from the first set that gives it a value. */
static double
metric_cell(struct top_view *v, const struct top_model *m,
    const struct top_entity *e, bool totals, int key, char *cell)
{
	const struct out_run *run = v->run;
	const struct metric_value *values;
	const struct out_metric *first;
	double value;
	int s, i, n;

	cell[0] = '\0';
	for (s = 0; s < run->nsets; s++) {
		n = out_run_set_metrics(run, s, &first);
		for (i = 0; i < n; i++) {
			if (!first[i].by_key ||
			    strcmp(first[i].key, run->metric_keys[key]) != 0)
				continue;
			values = set_values(v, m, e, totals, s);
			if (values == NULL || isnan(values[i].value) ||
			    isinf(values[i].value))
				continue;
			value = values[i].value;
			snprintf(cell, CELL_MAX, "%.2f", value);
			return value;
		}
	}
	return -1;
}

/* -M's metric i of an entity, from its counts of the plan's set. */
static double
plan_cell(struct top_view *v, const struct top_model *m,
    const struct top_entity *e, bool totals, int i, char *cell)
{
	const struct out_run *run = v->run;
	const struct metric_shown *shown = out_run_plan_metric(run, i);
	const struct metric_value *values;
	double value;

	cell[0] = '\0';
	values = set_values(v, m, e, totals, run->metric_set);
	if (values == NULL) {
		strcpy(cell, "-");
		return -1;
	}
	value = values[run->plan_at + i].value;
	if (isnan(value) || isinf(value))
		return -1;
	snprintf(
	    cell, CELL_MAX, shown->unit[0] == '%' ? "%.1f%%" : "%.3g", value);
	return value;
}

/*
 * A cgroup's path in width columns, by the rule of safename.h: its end,
 * the most particular part.
 */
static void
cgroup_cell(const char *path, int width, char *cell)
{
	char safe[CELL_MAX * 4];
	size_t n;

	if (path == NULL) {
		cell[0] = '\0';
		return;
	}
	n = safename(safe, sizeof(safe), path);
	if (n >= sizeof(safe)) /* cut at its start: keep its end */
		n = safename(safe, sizeof(safe),
		    path + strlen(path) - sizeof(safe) / 4 + 1);
	n = strlen(safe);
	if (n <= (size_t)width || width < 4)
		snprintf(cell, CELL_MAX, "%s", safe);
	else
		snprintf(cell, CELL_MAX, "...%s", safe + n - (size_t)width + 3);
}

/* The cells of an entity's line, and the key it sorts by. */
static void
fill_cells(struct top_view *v, struct top_model *m, struct line_cells *l,
    const struct top_choice *ch, const char *user)
{
	const struct top_entity *e = l->e;
	const struct column *col;
	char comm[CELL_MAX];
	double key;
	int i;

	l->key = 0;
	for (i = 0; i < v->ncols; i++) {
		col = &v->cols[i];
		key = 0;
		switch (col->kind) {
		case COL_PID:
			snprintf(l->cell[i], CELL_MAX, "%d",
			    (int)(l->thread ? e->tid : e->pid));
			key = l->thread ? e->tid : e->pid;
			break;
		case COL_USER:
			snprintf(l->cell[i], CELL_MAX, "%s", user);
			break;
		case COL_THR: /* a thread's line leaves it empty */
			if (!l->thread)
				snprintf(
				    l->cell[i], CELL_MAX, "%d", e->nthreads);
			key = l->thread ? 0 : e->nthreads;
			break;
		case COL_EVENT:
			key = event_cell(
			    v, m, e, ch->totals, col->index, l->cell[i]);
			break;
		case COL_METRIC:
			key = metric_cell(
			    v, m, e, ch->totals, col->index, l->cell[i]);
			break;
		case COL_PLAN:
			key = plan_cell(
			    v, m, e, ch->totals, col->index, l->cell[i]);
			break;
		case COL_CGROUP:
			cgroup_cell(l->thread ? NULL : e->cgroup, col->width,
			    l->cell[i]);
			break;
		case COL_COMM:
			(void)safename(comm, sizeof(comm), l->comm);
			if (e->nfolded > 0)
				snprintf(l->cell[i], CELL_MAX,
				    "%s x%lu <ended>", comm, e->nfolded);
			else
				snprintf(l->cell[i], CELL_MAX, "%s%s%s",
				    l->thread ? "  " : "", comm,
				    e->ended ? " <ended>" : "");
			break;
		}
		l->num[i] = key;
		l->mark[i] = l->cell[i][0] == '-' ?
		    '-' :
		    (char)(strchr(l->cell[i], '*') != NULL ? '*' : 0);
		if (i == ch->sort)
			l->key = key;
	}
	/* A summed line, or a cgroup's (--for-each-cgroup): no one pid. */
	if (e->nfolded > 0 || (e->pid == 0 && !l->thread))
		for (i = 0; i < v->ncols; i++)
			if (v->cols[i].kind == COL_PID ||
			    (e->pid == 0 &&
				(v->cols[i].kind == COL_USER ||
				    v->cols[i].kind == COL_THR)))
				l->cell[i][0] = '\0';
}

/*
 * How a process counts, in the header and in a cgroup's line alike:
 * ended, running (a thread of it runs), or neither (none of its threads
 * runs, yet or any more).
 */
enum proc_phase { PHASE_RUNNING, PHASE_ENDED, PHASE_THREADLESS };

static enum proc_phase
proc_phase(const struct top_entity *e)
{
	if (e->ended)
		return PHASE_ENDED;
	return e->nthreads > 0 ? PHASE_RUNNING : PHASE_THREADLESS;
}

/* The processes an entity stands for: ended ones of one name are folded. */
static unsigned long
procs_in(const struct top_entity *e)
{
	return e->nfolded > 0 ? e->nfolded : 1;
}

/* A group's line: l's values added to its own. */
static void
group_add(
    const struct top_view *v, struct line_cells *g, const struct line_cells *l)
{
	unsigned long n;
	int i;

	for (i = 0; i < v->ncols; i++) {
		if (v->cols[i].kind == COL_USER) {
			/* One user's, or several's: '*'. */
			if (g->nprocs == 0)
				strlcpy(g->cell[i], l->cell[i], CELL_MAX);
			else if (strcmp(g->cell[i], l->cell[i]) != 0)
				strlcpy(g->cell[i], "*", CELL_MAX);
		}
		if (v->cols[i].kind != COL_EVENT && v->cols[i].kind != COL_THR)
			continue;
		if (l->num[i] >= 0)
			g->num[i] = (g->num[i] < 0 ? 0 : g->num[i]) + l->num[i];
		if (l->mark[i] == '*' || (l->mark[i] == '-' && !g->mark[i]))
			g->mark[i] = l->mark[i];
	}
	n = l->e != NULL ? procs_in(l->e) : 1;
	g->nprocs += n;
	if (l->e == NULL)
		return;
	switch (proc_phase(l->e)) {
	case PHASE_ENDED:
		g->nended += n;
		break;
	case PHASE_THREADLESS:
		g->nidle += n;
		break;
	case PHASE_RUNNING:
		break;
	}
}

/* A group's cells from its sums; name is its COMMAND. */
static void
group_cells(const struct top_view *v, const struct top_choice *ch,
    struct line_cells *g, const char *name)
{
	const struct column *col;
	int i;

	g->key = 0;
	for (i = 0; i < v->ncols; i++) {
		col = &v->cols[i];
		if (col->kind == COL_EVENT && g->num[i] >= 0)
			event_text(v, col->index, g->num[i], ch->totals,
			    g->mark[i] == '*', g->cell[i]);
		else if (col->kind == COL_EVENT && g->mark[i] == '-')
			strcpy(g->cell[i], "-");
		else if (col->kind == COL_THR)
			snprintf(g->cell[i], CELL_MAX, "%.0f",
			    g->num[i] < 0 ? 0 : g->num[i]);
		else if (col->kind == COL_COMM &&
		    snprintf(g->cell[i], CELL_MAX, "%s", name) >= CELL_MAX)
			g->command = strdup(name);
		if (i == ch->sort)
			g->key = g->num[i];
	}
}

/*
 * Text of width columns at most, as the terminal shows it: each
 * character safename.h escapes, or that the locale cannot show, as \xNN
 * a byte.
 */
static void
add_fitted(struct out_buf *b, const char *s, int width)
{
	mbstate_t st;
	wchar_t wc;
	uint32_t cp;
	size_t n, i;
	int w, used = 0;
	bool shown;

	while (*s != '\0' && (width <= 0 || used < width)) {
		n = safename_char(s, &cp, &shown);
		memset(&st, 0, sizeof(st));
		if (shown &&
		    (mbrtowc(&wc, s, n, &st) != n || (w = wcwidth(wc)) < 0))
			shown = false;
		if (!shown)
			w = 4 * (int)n;
		if (width > 0 && used + w > width)
			break;
		if (shown)
			out_buf_add(b, s, n);
		else
			for (i = 0; i < n; i++)
				out_buf_printf(
				    b, "\\x%02x", (unsigned char)s[i]);
		used += w;
		s += n;
	}
}

static int
line_add(struct top_lines *l, enum top_line_kind kind)
{
	size_t *at;
	unsigned char *k;

	if (l->n == l->cap) {
		at = reallocarray(
		    l->at, l->cap ? (size_t)l->cap * 2 : 64, sizeof(*at));
		if (at == NULL)
			return -1;
		l->at = at;
		k = reallocarray(
		    l->kind, l->cap ? (size_t)l->cap * 2 : 64, sizeof(*k));
		if (k == NULL)
			return -1;
		l->kind = k;
		l->cap = l->cap ? l->cap * 2 : 64;
	}
	l->at[l->n] = l->text.len;
	l->kind[l->n++] = (unsigned char)kind;
	return 0;
}

static void
line_end(struct top_lines *l)
{
	out_buf_add(&l->text, "", 1);
}

/* A whole line of text, cut to width. */
static void text_line(struct top_lines *l, enum top_line_kind kind, int width,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
text_line(struct top_lines *l, enum top_line_kind kind, int width,
    const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (line_add(l, kind) != 0) {
		l->failed = true;
		return;
	}
	add_fitted(&l->text, buf, width);
	line_end(l);
}

/* A line of cells; command, unless NULL, instead of the last one's. */
static void
cells_line(const struct top_view *v, struct top_lines *l,
    enum top_line_kind kind, int width, const char (*cells)[CELL_MAX],
    const char *command)
{
	struct out_buf row = { 0 };
	const struct column *c;
	int i;

	for (i = 0; i < v->ncols; i++) {
		c = &v->cols[i];
		if (c->hidden)
			continue;
		if (c->width == 0)
			out_buf_str(&row, command != NULL ? command : cells[i]);
		else if (c->left)
			out_buf_printf(
			    &row, "%-*.*s ", c->width, c->width, cells[i]);
		else
			out_buf_printf(
			    &row, "%*.*s ", c->width, c->width, cells[i]);
	}
	out_buf_add(&row, "", 1);
	if (line_add(l, kind) != 0 || row.failed) {
		l->failed = true;
	} else {
		add_fitted(&l->text, row.data, width);
		line_end(l);
	}
	out_buf_free(&row);
}

static void
cells_free(struct line_cells *l)
{
	if (l == NULL)
		return;
	free(l->command);
	free(l);
}

/* A line's cells, zeroed, its values none; NULL: no memory. */
static struct line_cells *
cells_new(const struct top_view *v)
{
	size_t n = (size_t)v->ncols, i;
	/* The values after the cells, aligned; the marks after the values. */
	size_t num_at = offsetof(struct line_cells, cell) + n * CELL_MAX;
	struct line_cells *l;

	num_at = (num_at + _Alignof(double) - 1) & ~(_Alignof(double) - 1);
	if ((l = calloc(1, num_at + n * sizeof(double) + n)) == NULL)
		return NULL;
	l->num = (double *)(void *)((char *)l + num_at);
	l->mark = (char *)(l->num + n);
	for (i = 0; i < n; i++)
		l->num[i] = -1;
	return l;
}

static bool
passes_filter(const char *filter, const char *comm, const char *user)
{
	return filter[0] == '\0' || strstr(comm, filter) != NULL ||
	    strcmp(user, filter) == 0;
}

struct sort_by {
	int col;
	bool text;
	bool ascending;
};

static int
compare_lines(const void *a, const void *b, void *arg)
{
	const struct line_cells *x = *(struct line_cells *const *)a;
	const struct line_cells *y = *(struct line_cells *const *)b;
	const struct sort_by *by = arg;
	int d;

	if (by->text)
		d = strcmp(x->cell[by->col], y->cell[by->col]);
	else
		d = x->key < y->key ? -1 : x->key > y->key;
	if (!by->ascending)
		d = -d;
	if (d == 0 && x->e != NULL && y->e != NULL)
		d = x->e->tid < y->e->tid ? -1 : x->e->tid > y->e->tid;
	return d;
}

static void
sort_lines(const struct top_view *v, const struct top_choice *c,
    struct line_cells **lines, int n)
{
	struct sort_by by = { c->sort, false, c->ascending };
	enum col_kind k = v->cols[c->sort].kind;

	/* Numbers biggest first, text from A, unless turned round. */
	by.text = k == COL_USER || k == COL_CGROUP || k == COL_COMM;
	if (by.text)
		by.ascending = !c->ascending;
	qsort_r(lines, (size_t)n, sizeof(*lines), compare_lines, &by);
}

static void
title_line(const struct top_view *v, const struct top_choice *c,
    struct top_lines *l, int width)
{
	char(*cells)[CELL_MAX] = calloc((size_t)v->ncols, CELL_MAX);
	int i;

	if (cells == NULL) {
		l->failed = true;
		return;
	}
	for (i = 0; i < v->ncols; i++)
		snprintf(cells[i], CELL_MAX, "%s%s", v->cols[i].title,
		    i == c->sort ? (c->ascending ? "^" : "v") : "");
	cells_line(v, l, TOP_LINE_TITLE, width, cells, NULL);
	free(cells);
}

/*
 * Whether an entity came after the last refresh: it has nothing to show
 * yet (no threads counted, no rate), and shows from the next one, which
 * the screen may be drawn before, at a key or the command's output.
 */
static bool
not_refreshed(const struct top_model *m, const struct top_entity *e)
{
	return e->first_refresh == top_model_refreshes(m);
}

/* A process's threads, sorted as the processes are, under it. */
static void
thread_lines(struct top_view *v, struct top_model *m, int proc,
    const struct top_choice *c, struct top_lines *l, int width,
    const char *user, const char *comm)
{
	int i, k, n = top_model_nthreads(m, proc);
	struct line_cells **t = calloc((size_t)n + 1, sizeof(*t));
	struct top_entity *e;

	if (t == NULL) {
		l->failed = true;
		return;
	}
	for (i = 0, k = 0; i < n; i++) {
		e = top_model_thread(m, proc, i);
		if (not_refreshed(m, e))
			continue;
		if ((t[k] = cells_new(v)) == NULL) {
			l->failed = true;
			break;
		}
		t[k]->e = e;
		t[k]->comm = thread_name(m, e, comm);
		t[k]->thread = true;
		fill_cells(v, m, t[k], c, user);
		k++;
	}
	n = k;
	sort_lines(v, c, t, n);
	for (i = 0; i < n; i++)
		cells_line(v, l,
		    t[i]->e->ended ? TOP_LINE_ENDED : TOP_LINE_THREAD, width,
		    t[i]->cell, NULL);
	for (i = 0; i < n; i++)
		cells_free(t[i]);
	free(t);
}

static int
note_line_proc(struct top_view *v, struct top_lines *l, unsigned long key)
{
	unsigned long *grown;

	if (l->n > v->nline_procs) {
		grown = reallocarray(
		    v->line_procs, (size_t)l->n + 64, sizeof(*grown));
		if (grown == NULL)
			return -1;
		memset(grown + v->nline_procs, 0,
		    ((size_t)l->n + 64 - (size_t)v->nline_procs) *
			sizeof(*grown));
		v->line_procs = grown;
		v->nline_procs = l->n + 64;
	}
	v->line_procs[l->n - 1] = key;
	return 0;
}

/* The processes that pass the filter, each with its cells. */
static int
proc_lines(struct top_view *v, struct top_model *m, const struct top_choice *c,
    struct line_cells **p)
{
	struct top_entity *e;
	const char *user;
	int i, n = 0;

	for (i = 0; i < top_model_nprocs(m); i++) {
		e = top_model_proc(m, i);
		if (not_refreshed(m, e))
			continue;
		learn_comm(e);
		user = user_name(v, e);
		if (!passes_filter(c->filter, e->comm, user))
			continue;
		if ((p[n] = cells_new(v)) == NULL)
			break;
		p[n]->e = e;
		p[n]->comm = e->comm;
		p[n]->index = i;
		fill_cells(v, m, p[n], c, user);
		n++;
	}
	return n;
}

/* The group of lines whose COMMAND is comm, made when there is none. */
static struct line_cells *
group_of(const struct top_view *v, struct line_cells **groups, int *ngroups,
    const char *comm)
{
	int i;

	for (i = 0; i < *ngroups; i++)
		if (strcmp(groups[i]->comm, comm) == 0)
			return groups[i];
	if ((groups[*ngroups] = cells_new(v)) == NULL)
		return NULL;
	groups[*ngroups]->comm = comm;
	return groups[(*ngroups)++];
}

/*
 * Past the first FOLD_AFTER lines, the ended processes of one command
 * (two or more) are one line, their values summed; the lines after the
 * first FOLD_AFTER sorted again. The lines left, and in *folded the
 * processes folded.
 */
static int
fold_ended(const struct top_view *v, const struct top_choice *c,
    struct line_cells **p, int n, unsigned long *folded)
{
	struct line_cells **groups = calloc((size_t)n, sizeof(*groups)), *g;
	char name[CELL_MAX], comm[CELL_MAX];
	int i, kept = FOLD_AFTER, ngroups = 0;

	if (groups == NULL)
		return n;
	for (i = FOLD_AFTER; i < n; i++) {
		if (!p[i]->e->ended ||
		    (g = group_of(v, groups, &ngroups, p[i]->comm)) == NULL) {
			p[kept++] = p[i];
			continue;
		}
		group_add(v, g, p[i]);
		if (g->member == NULL)
			g->member = p[i];
		else
			cells_free(p[i]);
	}
	for (i = 0; i < ngroups; i++) {
		g = groups[i];
		if (g->nprocs == 1 || g->member->e->nfolded == g->nprocs) {
			p[kept++] = g->member; /* alone: as it was */
			cells_free(g);
			continue;
		}
		*folded += g->nprocs;
		(void)safename(comm, sizeof(comm), g->comm);
		snprintf(
		    name, sizeof(name), "%s x%lu <ended>", comm, g->nprocs);
		group_cells(v, c, g, name);
		cells_free(g->member);
		p[kept++] = g;
	}
	free(groups);
	sort_lines(v, c, p + FOLD_AFTER, kept - FOLD_AFTER);
	return kept;
}

/*
 * A group's COMMAND: its cgroup and its processes, those that run now
 * apart from those ended, as the header counts them (proc_phase).
 */
static void
cgroup_group_name(const struct line_cells *g, char *name, size_t size)
{
	char safe[CELL_MAX * 3];
	unsigned long running = g->nprocs - g->nended - g->nidle;

	(void)safename(safe, sizeof(safe), g->comm);
	if (g->nended > 0)
		snprintf(name, size, "%s (%lu process%s, %lu ended)", safe,
		    running, running == 1 ? "" : "es", g->nended);
	else
		snprintf(name, size, "%s (%lu process%s)", safe, running,
		    running == 1 ? "" : "es");
}

/*
 * One line per cgroup (g): the processes' lines summed into their
 * cgroup's, in place of them. A cgroup's own line (pid 0: --cgroup's,
 * the whole machine's, --for-each-cgroup's) is already the sum of all
 * below it: it stays as it is, beside the groups, and is in none, or a
 * machine would be counted twice. The lines left.
 */
static int
cgroup_groups(const struct top_view *v, const struct top_choice *c,
    struct line_cells **p, int n)
{
	struct line_cells **groups = calloc((size_t)n + 1, sizeof(*groups)), *g;
	char name[CELL_MAX * 4];
	const char *cgroup;
	int i, k, ngroups = 0, kept = 0;

	if (groups == NULL)
		return n;
	for (i = 0; i < n; i++) {
		if (p[i]->e->pid == 0) {
			p[kept++] = p[i];
			continue;
		}
		cgroup = p[i]->e->cgroup != NULL ? p[i]->e->cgroup : "?";
		if ((g = group_of(v, groups, &ngroups, cgroup)) != NULL)
			group_add(v, g, p[i]);
		cells_free(p[i]);
	}
	for (i = 0; i < ngroups; i++) {
		g = groups[i];
		cgroup_group_name(g, name, sizeof(name));
		group_cells(v, c, g, name);
		for (k = 0; k < v->ncols; k++)
			if (v->cols[k].kind == COL_CGROUP)
				cgroup_cell(
				    g->comm, v->cols[k].width, g->cell[k]);
		p[kept++] = g;
	}
	free(groups);
	return kept;
}

/* The shown line of a process's pid: by a search of pids, sorted. */
static int
compare_pid_index(const void *a, const void *b, void *arg)
{
	struct line_cells **p = arg;
	pid_t x = p[*(const int *)a]->e->pid, y = p[*(const int *)b]->e->pid;

	return x < y ? -1 : x > y;
}

static int
line_of_pid(struct line_cells **p, const int *by_pid, int n, pid_t pid)
{
	int lo = 0, hi = n - 1, mid;

	while (lo <= hi) {
		mid = (lo + hi) / 2;
		if (p[by_pid[mid]]->e->pid == pid)
			return by_pid[mid];
		if (p[by_pid[mid]]->e->pid < pid)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/*
 * The tree (V): each process under its parent, brothers in the order of
 * the sort; a process whose parent is not shown is a root. The lines in
 * that order, each with its depth.
 */
static void
tree_order(struct line_cells **p, int n)
{
	int *by_pid = calloc((size_t)n + 1, sizeof(int) * 5);
	struct line_cells **out = calloc((size_t)n + 1, sizeof(*out));
	int *first, *last, *next, *stack, i, par, cur, depth = 0, k = 0, sp = 0;

	if (by_pid == NULL || out == NULL) {
		free(by_pid);
		free(out);
		return;
	}
	first = by_pid + n + 1; /* n + 1 each: index n is the roots' */
	last = first + n + 1;
	next = last + n + 1;
	stack = next + n + 1;
	for (i = 0; i < n; i++)
		by_pid[i] = i;
	qsort_r(by_pid, (size_t)n, sizeof(int), compare_pid_index, p);
	for (i = 0; i <= n; i++)
		first[i] = last[i] = next[i] = -1;
	for (i = 0; i < n; i++) {
		p[i]->depth = -1; /* not reached yet */
		par = p[i]->e->ppid > 0 && p[i]->e->ppid != p[i]->e->pid ?
		    line_of_pid(p, by_pid, n, p[i]->e->ppid) :
		    -1;
		if (par < 0)
			par = n;
		if (last[par] < 0)
			first[par] = i;
		else
			next[last[par]] = i;
		last[par] = i;
	}
	for (cur = first[n]; cur >= 0;) {
		p[cur]->depth = depth;
		out[k++] = p[cur];
		if (first[cur] >= 0) {
			stack[sp++] = cur;
			cur = first[cur];
			depth++;
			continue;
		}
		while (cur >= 0 && next[cur] < 0) {
			cur = sp > 0 ? stack[--sp] : -1;
			depth--;
		}
		if (cur >= 0)
			cur = next[cur];
	}
	/* A loop of parents (pids reused) has no root: each at the top. */
	for (i = 0; i < n && k < n; i++)
		if (p[i]->depth < 0) {
			p[i]->depth = 0;
			out[k++] = p[i];
		}
	memcpy(p, out, (size_t)n * sizeof(*p));
	free(out);
	free(by_pid);
}

/*
 * A process's COMMAND: indented in the tree, its arguments with c, marked
 * once it has ended.
 */
static void
proc_line(const struct top_view *v, struct top_lines *l,
    const struct line_cells *lc, const struct top_choice *c, int width)
{
	const struct top_entity *e = lc->e;
	struct out_buf command = { 0 };
	int d, depth = lc->depth < TREE_DEPTH_MAX ? lc->depth : TREE_DEPTH_MAX;

	for (d = 1; d <= depth; d++)
		out_buf_str(&command, d == depth ? "`- " : "   ");
	if (e->pid == 0 && e->cgroup != NULL) {
		out_buf_str(&command, e->cgroup); /* a cgroup's whole name */
		if (e->ended)
			out_buf_str(&command, " <ended>");
	} else if (c->cmdline && e->cmdline != NULL && e->nfolded == 0) {
		out_buf_str(&command, e->cmdline);
		if (e->ended)
			out_buf_str(&command, " <ended>");
	} else {
		out_buf_str(&command, lc->cell[v->ncols - 1]);
	}
	out_buf_add(&command, "", 1);
	cells_line(v, l, e->ended ? TOP_LINE_ENDED : TOP_LINE_PROC, width,
	    lc->cell, command.failed ? NULL : command.data);
	out_buf_free(&command);
}

static void
body_lines(struct top_view *v, struct top_model *m, const struct top_choice *c,
    struct top_lines *l, int width)
{
	int i, n, np = top_model_nprocs(m);
	struct line_cells **p = calloc((size_t)np + 1, sizeof(*p));
	const struct top_entity *e;
	unsigned long folded = 0;

	if (p == NULL) {
		l->failed = true;
		return;
	}
	n = proc_lines(v, m, c, p);
	if (c->by_cgroup)
		n = cgroup_groups(v, c, p, n);
	sort_lines(v, c, p, n);
	if (c->tree && !c->by_cgroup)
		tree_order(p, n);
	else if (c->fold_ended && n > FOLD_AFTER)
		n = fold_ended(v, c, p, n, &folded);
	l->body = l->n;
	for (i = 0; i < n; i++) {
		if (i == FOLD_AFTER && folded > 0)
			text_line(l, TOP_LINE_HEADER, width,
			    "(below: %lu ended processes, one line per "
			    "command: NAME xN, their counts summed)",
			    folded);
		e = p[i]->e;
		if (e == NULL) {
			cells_line(v, l,
			    c->by_cgroup ? TOP_LINE_PROC : TOP_LINE_ENDED,
			    width, p[i]->cell, p[i]->command);
			continue;
		}
		proc_line(v, l, p[i], c, width);
		if (note_line_proc(v, l, e->proc) != 0)
			l->failed = true;
		if (e->proc == c->selected || (l->selected < 0 && i == 0))
			l->selected = l->n - 1;
		if ((!c->all_threads && e->proc != c->shown) || e->pid == 0)
			continue;
		thread_lines(
		    v, m, p[i]->index, c, l, width, user_name(v, e), e->comm);
	}
	for (i = 0; i < n; i++)
		cells_free(p[i]);
	free(p);
}

/*
 * The header's figures, as ps(1) counts them: the processes that run now
 * (with a thread that runs), their threads, and apart those shown ended;
 * a cgroup's line (--cgroup's sum, --for-each-cgroup's) is no process.
 */
struct head_count {
	int procs, threads, ended, cgroups;
};

static struct head_count
head_count(struct top_model *m)
{
	struct head_count n = { 0, 0, 0, 0 };
	const struct top_entity *e;
	int i;

	for (i = 0; i < top_model_nprocs(m); i++) {
		e = top_model_proc(m, i);
		if (e->pid == 0) {
			n.cgroups += !e->ended;
			continue;
		}
		switch (proc_phase(e)) {
		case PHASE_ENDED:
			n.ended += (int)procs_in(e);
			break;
		case PHASE_RUNNING:
			n.procs += (int)procs_in(e);
			n.threads += e->nthreads;
			break;
		case PHASE_THREADLESS:
			break;
		}
	}
	return n;
}

/*
 * What is watched, in room columns at most: whole, or without its reason
 * in parentheses, or cut with "...", so that the counts after it show.
 */
static void
fit_watching(const char *watching, int room, char *out, size_t size)
{
	const char *paren;
	int n;

	/* A view made without a target's words (the model's tests). */
	if (watching == NULL)
		watching = "";
	paren = strstr(watching, " (");
	n = (int)strlen(watching);

	if (room <= 0 || n <= room) {
		snprintf(out, size, "%s", watching);
		return;
	}
	if (paren != NULL && paren - watching <= room) {
		snprintf(out, size, "%.*s", (int)(paren - watching), watching);
		return;
	}
	snprintf(out, size, "%.*s...", room > 3 ? room - 3 : 0, watching);
}

static void
watching_line(struct top_model *m, const struct top_about *a,
    struct top_lines *l, int width)
{
	struct head_count n = head_count(m);
	char counts[128], what[256];
	int room;

	if (n.procs == 0 && n.cgroups > 1)
		snprintf(counts, sizeof(counts), "%d cgroups", n.cgroups);
	else
		snprintf(counts, sizeof(counts), "%d process%s, %d thread%s",
		    n.procs, n.procs == 1 ? "" : "es", n.threads,
		    n.threads == 1 ? "" : "s");
	if (n.ended > 0 && !(n.procs == 0 && n.cgroups > 1))
		snprintf(counts + strlen(counts),
		    sizeof(counts) - strlen(counts), "; %d ended", n.ended);
	/* "watching " and ": " around what is watched. */
	room = width > 0 ? width - 11 - (int)strlen(counts) : 0;
	fit_watching(
	    a->watching, width > 0 && room < 1 ? 1 : room, what, sizeof(what));
	text_line(l, TOP_LINE_HEADER, width, "watching %s: %s", what, counts);
}

/* The processes some of whose threads are not counted, named. */
#define PARTIAL_NAMED 3

static void
partial_line(struct top_model *m, struct top_lines *l, int width)
{
	struct out_buf b = { 0 };
	const struct top_entity *e;
	int i, n = 0;

	for (i = 0; i < top_model_nprocs(m); i++) {
		e = top_model_proc(m, i);
		if (e->ended || e->uncounted == 0)
			continue;
		if (n++ < PARTIAL_NAMED)
			out_buf_printf(&b, "%s%d of %d threads of %s (%d)",
			    n > 1 ? ", " : "", e->uncounted, e->nthreads,
			    e->comm, (int)e->pid);
	}
	if (n > PARTIAL_NAMED)
		out_buf_printf(&b, " and %d more processes", n - PARTIAL_NAMED);
	out_buf_add(&b, "", 1);
	if (n > 0 && !b.failed)
		text_line(l, TOP_LINE_HEADER, width,
		    "- not counted in part: %s", b.data);
	out_buf_free(&b);
}

static void
header_lines(struct top_view *v, struct top_model *m,
    const struct top_choice *c, const struct top_about *a, struct top_lines *l,
    int width)
{
	const struct out_run *run = v->run;
	struct out_buf sets = { 0 };
	char clock[16], narrowed[32] = "";
	time_t now = time(NULL);
	struct tm tm;
	int s;

	localtime_r(&now, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	text_line(l, TOP_LINE_HEADER, width,
	    "cputop  %s  %s  engine %s  refresh %.3g s (counted every %.3g s)",
	    clock, run->host, a->engine, c->interval_ms / 1000.0,
	    a->tick_ms / 1000.0);
	watching_line(m, a, l, width);
	for (s = 0; s < run->nsets; s++)
		out_buf_printf(
		    &sets, "%s-c %s", s ? "  " : "", run->specs[s]->text);
	out_buf_add(&sets, "", 1);
	text_line(l, TOP_LINE_HEADER, width, "%s; %s",
	    sets.failed ? "" : sets.data,
	    c->totals ? "totals since the start, clocks in seconds" :
			"per second, clocks in CPUs");
	out_buf_free(&sets);
	if (a->modes != NULL)
		text_line(l, TOP_LINE_HEADER, width, "%s", a->modes);
	for (s = 0; s < top_model_nreasons(m); s++)
		text_line(l, TOP_LINE_HEADER, width, "- not counted: %s",
		    top_model_reason(m, s));
	partial_line(m, l, width);
	if (a->note != NULL)
		text_line(l, TOP_LINE_HEADER, width, "%s", a->note);
	if (a->message != NULL)
		text_line(l, TOP_LINE_HEADER, width, "%s", a->message);
	if (c->said[0] != '\0')
		text_line(l, TOP_LINE_HEADER, width, "%s", c->said);
	if (a->quitting != NULL)
		text_line(l, TOP_LINE_HEADER, width, "%s", a->quitting);
	if (v->narrowed > 0)
		snprintf(narrowed, sizeof(narrowed), "; %d column%s hidden",
		    v->narrowed, v->narrowed == 1 ? "" : "s");
	text_line(l, TOP_LINE_HEADER, width, "sorted by %s%s%s%s%s%s%s%s",
	    v->cols[c->sort].title, c->ascending ? ", lowest first" : "",
	    c->by_cgroup ? "; by cgroup" :
		c->tree	 ? "; tree" :
			   "",
	    c->filter[0] ? "; showing '" : "", c->filter,
	    c->filter[0] ? "'" : "", c->paused ? "; PAUSED" : "", narrowed);
}

/*
 * The pane of the command's output, under the processes: its last lines,
 * as the terminal would have shown them, under a bar that says how many
 * it wrote and that all of them come when the view closes.
 */
static void
pane_lines(const struct top_about *a, const struct top_choice *c,
    struct top_lines *l, int width)
{
	const struct top_tail *t = a->output;
	int i;

	if (t == NULL || c->output_hidden)
		return;
	if (t->n == 0 && !a->typing && !a->waits)
		return;
	l->pane = l->n;
	if (a->typing)
		text_line(l, TOP_LINE_PANE, width,
		    "typing to %s: every key is its, Ctrl-] gives them back "
		    "to the view (%lu line%s)",
		    a->watching, t->lines, t->lines == 1 ? "" : "s");
	else if (a->waits)
		text_line(l, TOP_LINE_PANE, width,
		    "%s waits for input: i types to it (%lu line%s, all "
		    "printed when the view closes)",
		    a->watching, t->lines, t->lines == 1 ? "" : "s");
	else
		text_line(l, TOP_LINE_PANE, width,
		    "output of %s: %lu line%s, the last below; all of it is "
		    "printed when the view closes (i types to it, o hides "
		    "this)",
		    a->watching, t->lines, t->lines == 1 ? "" : "s");
	for (i = 0; i < t->n; i++)
		text_line(l, TOP_LINE_OUTPUT, width, "%s", t->line[i]);
}

static const char *const help_text[] = {
	"Keys",
	"  q, Ctrl-C  quit (-p, --tid targets run on, untraced); a command",
	"             started gets SIGINT, then SIGTERM, then SIGKILL",
	"  i          type to the command started; Ctrl-] gives keys back",
	"  ?          this help; any key goes back",
	"  < >        sort by the column to the left or right",
	"  r          reverse the order",
	"  up, down   select a process",
	"  t          show or hide the selected process's threads",
	"  H          show every process's threads",
	"  a          totals since the start, or rates per second",
	"  P          sort by CPU (the first clock's column), as in top",
	"  M          top's sort by memory: says what to press here",
	"  V          a tree: each process under its parent",
	"  c          each process's command line, or its name",
	"  C          a CGROUP column: each process's cgroup",
	"  g          one line per cgroup, its processes' values summed",
	"  /          show only processes whose name holds a text, or",
	"             whose user is it (Escape shows all)",
	"  o          show or hide the pane of the command's output",
	"  T          the metrics of -M alone (cputop -M TopdownL1:",
	"             TopDown's level 1 of each line), or the counts too",
	"  space      pause the display (counting goes on)",
	"  + -        refresh less or more often (a multiple of -T)",
	"",
	"Values: per second over the refresh; clocks (task-clock, cpu-clock)",
	"as CPUs. '-': not counted (the header says why); '*': the set ran",
	"part of its time (multiplexed), counts not scaled (but {...}",
	"groups'); <ended>: ended since the last refresh.",
};

/* The columns a line takes before COMMAND. */
static int
cells_width(const struct top_view *v)
{
	int i, w = 0;

	for (i = 0; i < v->ncols; i++)
		if (!v->cols[i].hidden && v->cols[i].width > 0)
			w += v->cols[i].width + 1;
	return w;
}

/*
 * In a narrow window, COMMAND stays: the value columns go from the right,
 * the one sorted by last, until it has COMMAND_MIN columns.
 */
static void
fit_columns(struct top_view *v, const struct top_choice *c, int width)
{
	enum col_kind k;
	int i;

	v->narrowed = 0;
	for (i = v->ncols - 1;
	     width > 0 && i >= 0 && cells_width(v) + COMMAND_MIN > width; i--) {
		k = v->cols[i].kind;
		if (v->cols[i].hidden || i == c->sort ||
		    (k != COL_EVENT && k != COL_METRIC && k != COL_PLAN &&
			k != COL_CGROUP))
			continue;
		v->cols[i].hidden = true;
		v->narrowed++;
	}
}

void
top_view_render(struct top_view *v, struct top_model *m,
    const struct top_choice *c, const struct top_about *a, int width,
    struct top_lines *l)
{
	size_t i;

	out_buf_reset(&l->text);
	l->n = 0;
	l->body = 0;
	l->pane = -1;
	l->selected = -1;
	l->failed = false;
	if (v->line_procs != NULL)
		memset(v->line_procs, 0,
		    (size_t)v->nline_procs * sizeof(*v->line_procs));
	for (i = 0; i < (size_t)v->ncols; i++)
		v->cols[i].hidden =
		    (v->cols[i].kind == COL_CGROUP && !c->cgroup_column) ||
		    (c->metrics_only && v->nplan > 0 &&
			(v->cols[i].kind == COL_EVENT ||
			    v->cols[i].kind == COL_METRIC));
	fit_columns(v, c, width);
	v->values_entity = NULL;
	if (c->help) {
		for (i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i++)
			text_line(l, TOP_LINE_HELP, width, "%s", help_text[i]);
		/* From its first line, wherever the table was scrolled. */
		l->selected = 0;
		return;
	}
	header_lines(v, m, c, a, l, width);
	title_line(v, c, l, width);
	body_lines(v, m, c, l, width);
	pane_lines(a, c, l, width);
	text_line(l, TOP_LINE_FOOTER, width,
	    "q quit  %s? help  <> sort  t threads  H all threads  a totals  "
	    "V tree  c command  g cgroups  / filter  space pause  "
	    "+- refresh%s",
	    a->output != NULL ? "i type  " : "",
	    v->nplan > 0 ? "  T metrics" : "");
}

unsigned long
top_view_line_proc(const struct top_view *v, int line)
{
	return line >= 0 && line < v->nline_procs ? v->line_procs[line] : 0;
}

void
top_lines_free(struct top_lines *l)
{
	out_buf_free(&l->text);
	free(l->at);
	free(l->kind);
	memset(l, 0, sizeof(*l));
}
