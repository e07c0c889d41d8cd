/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live view's refreshes and choices. The engine's thread gives the
 * rows and, after each burst of them, the chance to refresh; the screen's
 * thread renders and gives the keys. One lock keeps the model, the view
 * and the choices whole between them.
 *
 * A refresh comes at the first burst after a refresh interval's worth of
 * ticks (the tick rows' own time, not the clock's), so that each shows
 * whole ticks; the interval is a multiple of the counting interval (-T),
 * which + and - change. A pause holds the refreshes back, while counting
 * goes on into the next one.
 *
 * A command that the view started writes to a terminal of its own, whose
 * output the view keeps (top_output.c): its last lines in a pane, and all
 * of it on the terminal once the view is gone, before the totals.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "top.h"
#include "top_model.h"
#include "top_output.h"
#include "top_screen.h"
#include "top_view.h"

#define PAGE_LINES   10
/* What is kept of the messages said while the screen is up. */
#define MESSAGES_MAX (64 * 1024)

struct top {
	pthread_mutex_t lock;
	const struct out_run *run;
	struct top_model *model;
	struct top_view *view;
	struct top_choice choice;
	struct top_about about;
	struct top_screen *screen; /* NULL in batch mode */
	int fd;			   /* the stream: the terminal */
	struct top_output *output; /* the command's, or NULL */
	struct top_tail tail;	   /* its last lines, as rendered */
	struct top_lines text;	   /* batch mode's, and the end's */
	int64_t refreshed_at;	   /* the tick time of the last refresh */
	bool started;
	/* q's: how many, and what the last sent the command, said. */
	int quits;
	char quitting[160];
	bool typing;	    /* the keyboard is the command's */
	char watching[160]; /* the header's, where the view words it */
	/*
	 * The messages said while the screen is up: the latest on it, all
	 * on stderr once it is gone.
	 */
	pthread_mutex_t message_lock;
	struct out_buf messages;
	char message[256];
	unsigned long messages_lost;
};

static void
top_free(struct top *t)
{
	/* The output's thread wakes the screen: it stops first. */
	top_output_free(t->output);
	top_screen_close(t->screen);
	top_view_free(t->view);
	top_model_free(t->model);
	top_lines_free(&t->text);
	out_buf_free(&t->messages);
	pthread_mutex_destroy(&t->message_lock);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

enum { OPT_TOP, OPT_BATCH };

static const struct out_sink_option options[] = {
	[OPT_TOP] = { .name = "top",
	    .help = { "\t--top\t  a live view, redrawn at each interval, "
		      "instead of\n"
		      "\t\t  rows (as cputop: with no target, the whole "
		      "machine)\n" },
	    .part = OUT_USAGE_RUN },
	[OPT_BATCH] = { .letter = 'b',
	    .help = { "\t-b\t  with --top: the view as text, once per "
		      "interval\n" },
	    .part = OUT_USAGE_RUN },
	{ 0 }
};

static void
top_config_init(void *cfg)
{
	struct top_config *c = cfg;

	c->command_fd = -1;
}

static int
top_option(void *cfg, int i, const char *arg, char quote)
{
	struct top_config *c = cfg;

	(void)arg;
	(void)quote;
	if (i == OPT_TOP)
		c->on = true;
	else
		c->batch = true;
	return 0;
}

/* Whether a sink other than the view is wanted (--listen's). */
static bool
other_sink_wanted(const struct out_config *out, const void *own)
{
	int s;

	for (s = 0; s < out->nsinks; s++)
		if (out->sinks[s].cfg != own &&
		    out->sinks[s].ops->wanted(out, out->sinks[s].cfg))
			return true;
	return false;
}

const char *
top_refusal(const struct out_config *out, const struct top_config *c)
{
	if (!c->on)
		return c->batch ? "-b prints the live view: it needs --top (or "
				  "cputop)" :
				  NULL;
	if (out->format != OUT_TABLE || out->path != NULL || out->fd >= 0 ||
	    other_sink_wanted(out, c))
		return "--top shows the counts itself: not with --format, -o, "
		       "--output-fd or --listen";
	if (c->repeat)
		return "--top and -r cannot be given together";
	if (c->tick_ms == 0)
		return "--top refreshes at each interval: -T 0 gives none";
	if (!c->batch && !isatty(STDOUT_FILENO))
		return "--top draws on a terminal and standard output is not "
		       "one: -b prints the view as text";
	return NULL;
}

static bool
top_wanted(const struct out_config *cfg, const void *own)
{
	const struct top_config *c = own;

	(void)cfg;
	return c->on;
}

/*
 * What the header says is watched: cputrack's words, or the processes
 * counted from outside, as that engine counts them (root's every one,
 * a user's own) and why.
 */
static const char *
watching(struct top *t, const struct top_config *cfg)
{
	if (cfg->outside == NULL)
		return cfg->watching != NULL ? cfg->watching : "";
	if (geteuid() == 0)
		snprintf(t->watching, sizeof(t->watching), "every process (%s)",
		    cfg->outside);
	else
		snprintf(t->watching, sizeof(t->watching),
		    "your processes (for every user's, %s)", cfg->outside);
	return t->watching;
}

static void *
top_open(const struct out_run *run, const void *own, int fd,
    const struct out_sink_host *host)
{
	const struct top_config *cfg = own;
	struct top *t = calloc(1, sizeof(*t));

	(void)host;
	if (t == NULL) {
		diag(NULL, "no memory available\n");
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	pthread_mutex_init(&t->message_lock, NULL);
	t->run = run;
	t->fd = fd;
	if (!cfg->batch && (t->screen = top_screen_open(fd)) == NULL) {
		top_free(t);
		return NULL;
	}
	if (t->screen != NULL && cfg->command_fd >= 0 &&
	    (t->output = top_output_open(cfg->command_fd)) == NULL) {
		top_free(t);
		return NULL;
	}
	if ((t->model = top_model_new(run)) == NULL ||
	    (t->view = top_view_new(run)) == NULL) {
		diag(NULL, "no memory available\n");
		top_free(t);
		return NULL;
	}
	t->choice.sort = top_view_default_sort(t->view);
	t->choice.interval_ms = cfg->refresh_ms;
	t->choice.fold_ended = cfg->batch;
	t->about = (struct top_about) {
		.engine = run->cfg.engine != NULL ? run->cfg.engine : "",
		.watching = watching(t, cfg),
		.tick_ms = cfg->tick_ms,
		.note = cfg->note,
		.modes = cfg->modes_note,
	};
	t->refreshed_at = run->start;
	return t;
}

static void
render(void *arg, int width, struct top_lines *lines)
{
	struct top *t = arg;
	struct top_about about = t->about;
	char message[sizeof(t->message)];

	pthread_mutex_lock(&t->message_lock);
	memcpy(message, t->message, sizeof(message));
	pthread_mutex_unlock(&t->message_lock);
	if (message[0] != '\0')
		about.message = message;
	if (t->output != NULL) {
		top_output_tail(t->output, &t->tail);
		about.output = &t->tail;
		about.typing = t->typing;
		about.waits = !t->typing && top_output_waits(t->output);
	}
	pthread_mutex_lock(&t->lock);
	if (t->quitting[0] != '\0')
		about.quitting = t->quitting;
	top_view_render(t->view, t->model, &t->choice, &about, width, lines);
	pthread_mutex_unlock(&t->lock);
}

/* A message of the run while the screen is up (diag's sink). */
static void
keep_message(void *arg, const char *text)
{
	struct top *t = arg;
	size_t n;

	pthread_mutex_lock(&t->message_lock);
	if (t->messages.len + strlen(text) < MESSAGES_MAX)
		out_buf_str(&t->messages, text);
	else
		t->messages_lost++;
	strlcpy(t->message, text, sizeof(t->message));
	n = strlen(t->message);
	if (n > 0 && t->message[n - 1] == '\n')
		t->message[n - 1] = '\0';
	pthread_mutex_unlock(&t->message_lock);
	top_screen_wake(t->screen);
}

/* The screen is gone: what was said while it was up, on stderr. */
static void
say_messages(struct top *t)
{
	diag_set_sink(NULL, NULL);
	if (t->messages.len > 0)
		(void)fwrite(t->messages.data, 1, t->messages.len, stderr);
	if (t->messages_lost > 0)
		diag(NULL, "(and %lu more messages)\n", t->messages_lost);
	out_buf_reset(&t->messages);
}

/*
 * The screen is gone: all that the command wrote, on the terminal, as it
 * would have been without the view.
 */
static void
say_output(struct top *t)
{
	int err;

	if (t->output == NULL)
		return;
	if ((err = top_output_replay(t->output, t->fd)) != 0)
		diag(NULL, "cannot write the command's output: %s\n",
		    strerror(err));
}

/* The process line n lines after (or before) the selected one. */
static void
move_selection(struct top *t, const struct top_lines *shown, int n)
{
	int line = shown->selected, step = n > 0 ? 1 : -1, moved = 0;
	unsigned long key, found = 0;

	if (line < 0)
		return;
	for (line += step; line >= shown->body && line < shown->n;
	     line += step) {
		if ((key = top_view_line_proc(t->view, line)) == 0)
			continue;
		found = key;
		if (++moved == abs(n))
			break;
	}
	if (found != 0)
		t->choice.selected = found;
}

/*
 * top's sort keys: P by CPU, the first clock's column (task-clock); M by
 * memory, which is no column here: what to press instead is said.
 */
static void
sort_as_top(struct top *t, int key)
{
	struct top_choice *c = &t->choice;
	int cpu = top_view_cpu_column(t->view);

	if (key == 'P' && cpu >= 0) {
		c->sort = cpu;
		c->ascending = false;
	} else if (key == 'P') {
		snprintf(c->said, sizeof(c->said),
		    "P: no clock is counted (-c task-clock shows CPUs); "
		    "< and > choose the column");
	} else {
		snprintf(c->said, sizeof(c->said),
		    "M: memory is not a column (cputop counts events); "
		    "< and > choose the column");
	}
}

/* The keys that change what is shown; others do nothing. */
static void
choose(struct top *t, int key, const struct top_lines *shown)
{
	struct top_choice *c = &t->choice;
	int last = top_view_ncolumns(t->view) - 1;
	unsigned tick = t->about.tick_ms;

	c->said[0] = '\0';
	switch (key) {
	case 'P':
	case 'M':
		sort_as_top(t, key);
		break;
	case '<':
	case ',':
		c->sort = c->sort > 0 ? c->sort - 1 : 0;
		break;
	case '>':
	case '.':
		c->sort = c->sort < last ? c->sort + 1 : last;
		break;
	case 'r':
		c->ascending = !c->ascending;
		break;
	case 't':
		if (c->selected == 0 && shown->selected >= 0)
			c->selected =
			    top_view_line_proc(t->view, shown->selected);
		c->shown = c->shown == c->selected ? 0 : c->selected;
		break;
	case 'H':
		c->all_threads = !c->all_threads;
		break;
	case 'V':
		c->tree = !c->tree;
		break;
	case 'c':
		c->cmdline = !c->cmdline;
		break;
	case 'C':
		c->cgroup_column = !c->cgroup_column;
		break;
	case 'g':
		c->by_cgroup = !c->by_cgroup;
		break;
	case 'a':
		c->totals = !c->totals;
		break;
	case 'o':
		c->output_hidden = !c->output_hidden;
		break;
	case 'T':
		c->metrics_only = !c->metrics_only;
		break;
	case ' ':
		c->paused = !c->paused;
		break;
	case '?':
	case 'h':
		c->help = true;
		break;
	case '+':
	case '=':
		c->interval_ms += tick;
		break;
	case '-':
		if (c->interval_ms > tick)
			c->interval_ms -= tick;
		break;
	case TOP_KEY_UP:
	case TOP_KEY_DOWN:
	case TOP_KEY_PAGE_UP:
	case TOP_KEY_PAGE_DOWN:
		move_selection(t, shown,
		    key == TOP_KEY_UP	       ? -1 :
			key == TOP_KEY_DOWN    ? 1 :
			key == TOP_KEY_PAGE_UP ? -PAGE_LINES :
						 PAGE_LINES);
		break;
	case TOP_KEY_HOME:
	case TOP_KEY_END:
		move_selection(
		    t, shown, key == TOP_KEY_HOME ? -shown->n : shown->n);
		break;
	default:
		break;
	}
}

static void
key(void *arg, int k, const struct top_lines *shown)
{
	struct top *t = arg;

	pthread_mutex_lock(&t->lock);
	if (t->choice.help)
		t->choice.help = false; /* any key leaves the help */
	else
		choose(t, k, shown);
	pthread_mutex_unlock(&t->lock);
}

static void
filter(void *arg, const char *text)
{
	struct top *t = arg;

	pthread_mutex_lock(&t->lock);
	strlcpy(t->choice.filter, text, sizeof(t->choice.filter));
	pthread_mutex_unlock(&t->lock);
}

/* The window's size is the command's terminal's too. */
static void
resized(void *arg, int rows, int cols)
{
	struct top *t = arg;

	if (t->output != NULL)
		top_output_size(t->output, rows, cols);
}

/*
 * q: with a command started, as Ctrl-C on its own terminal: SIGINT to
 * its terminal's foreground group, then SIGTERM, then SIGKILL, one more
 * at each q, each said; the view stays until the command ends, and
 * cputop's status is the command's. With none, the view ends as on
 * Ctrl-C.
 */
static enum top_quit
quit(void *arg)
{
	static const int escalation[] = { SIGINT, SIGTERM, SIGKILL };
	struct top *t = arg;
	int n, sig, err = 0;

	if (t->output == NULL)
		return TOP_QUIT_END;
	pthread_mutex_lock(&t->lock);
	n = t->quits < 2 ? t->quits++ : 2;
	sig = escalation[n];
	err = top_output_signal(t->output, sig);
	if (err != 0)
		snprintf(t->quitting, sizeof(t->quitting),
		    "q: cannot send SIG%s to %s: %s", sigabbrev_np(sig),
		    t->about.watching, strerror(err));
	else
		snprintf(t->quitting, sizeof(t->quitting),
		    "q: SIG%s sent to %s%s; the view ends with it",
		    sigabbrev_np(sig), t->about.watching,
		    n == 0     ? " (q again: SIGTERM)" :
			n == 1 ? " (q again: SIGKILL)" :
				 "");
	pthread_mutex_unlock(&t->lock);
	return TOP_QUIT_SENT;
}

/* The keyboard to the command, or back; false: no command to take it. */
static bool
hand_over(void *arg, bool on)
{
	struct top *t = arg;

	if (t->output == NULL)
		return false;
	pthread_mutex_lock(&t->lock);
	t->typing = on;
	pthread_mutex_unlock(&t->lock);
	return true;
}

static void
typed(void *arg, const char *b, size_t n)
{
	struct top *t = arg;

	(void)top_output_type(t->output, b, n);
}

/* The command's output changed: the pane is drawn again. */
static void
output_came(void *arg)
{
	struct top *t = arg;

	top_screen_wake(t->screen);
}

/* The screen's thread starts with the run, and the output's. */
static void
top_start(void *state)
{
	struct top *t = state;
	struct top_screen_owner owner = { render, key, filter, resized, quit,
		hand_over, typed, t };
	int err;

	if (t->started || t->screen == NULL)
		return;
	t->started = true;
	if (t->output != NULL &&
	    (err = top_output_start(t->output, output_came, t)) != 0)
		diag(NULL, "cannot read the command's output: %s\n",
		    strerror(err));
	if ((err = top_screen_start(t->screen, &owner)) != 0) {
		diag(NULL, "cannot start the screen: %s\n", strerror(err));
		return;
	}
	diag_set_sink(keep_message, t);
}

/* A row, timed as the output has it. */
static void
top_row(void *state, const struct out_row *row, hrtime_t when)
{
	struct top *t = state;
	struct out_row r = *row;

	r.when = when;
	pthread_mutex_lock(&t->lock);
	top_model_row(t->model, &r);
	pthread_mutex_unlock(&t->lock);
}

/* A process counted from now, while it is there (output_process). */
static void
top_process(void *state, pid_t pid, const char *comm, const char *cgroup)
{
	struct top *t = state;

	(void)comm;
	(void)cgroup;
	pthread_mutex_lock(&t->lock);
	top_model_process(t->model, pid);
	pthread_mutex_unlock(&t->lock);
}

/* Whether a refresh interval's worth of ticks came since the last. */
static bool
refresh_due(const struct top *t)
{
	int64_t interval = (int64_t)t->choice.interval_ms * 1000000;
	int64_t half_tick = (int64_t)t->about.tick_ms * 500000;

	return !t->choice.paused && top_model_ticked(t->model) &&
	    top_model_tick_time(t->model) - t->refreshed_at >=
	    interval - half_tick;
}

/* All the lines of t->text into b, each ended by a newline. */
static void
lines_out(const struct top_lines *l, struct out_buf *b, bool footer)
{
	int i;

	for (i = 0; i < l->n; i++) {
		if (!footer && l->kind[i] == TOP_LINE_FOOTER)
			continue;
		out_buf_str(b, top_line(l, i));
		out_buf_add(b, "\n", 1);
	}
}

/*
 * After a burst of rows: a refresh when one is due. In batch mode its
 * text goes into text (true), for the output to write.
 */
static bool
top_flush(void *state, struct out_buf *text)
{
	struct top *t = state;
	bool batch = false;

	pthread_mutex_lock(&t->lock);
	if (refresh_due(t)) {
		top_model_refresh(t->model);
		t->refreshed_at = top_model_tick_time(t->model);
		if (t->screen != NULL) {
			top_screen_wake(t->screen);
		} else {
			top_view_render(t->view, t->model, &t->choice,
			    &t->about, 0, &t->text);
			lines_out(&t->text, text, false);
			out_buf_add(text, "\n", 1);
			batch = true;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return batch;
}

/*
 * The end: the terminal as it was, and the last totals into text (unless
 * it is NULL), for the output to write.
 */
static void
top_close(void *state, struct out_buf *text)
{
	struct top *t = state;

	if (t->screen != NULL) {
		if (t->output != NULL)
			top_output_stop(t->output);
		top_screen_close(t->screen);
		t->screen = NULL;
		say_output(t);
		say_messages(t);
	}
	/* What came since the last refresh, then the totals of all. */
	top_model_last_refresh(t->model);
	t->choice = (struct top_choice) {
		.sort = top_view_default_sort(t->view),
		.totals = true,
		.fold_ended = true,
		.interval_ms = t->choice.interval_ms,
	};
	if (text != NULL) {
		top_view_render(
		    t->view, t->model, &t->choice, &t->about, 0, &t->text);
		lines_out(&t->text, text, false);
	}
	top_free(t);
}

const struct out_sink_ops top_sink = {
	.name = "top",
	.options = options,
	.config_size = sizeof(struct top_config),
	.config_init = top_config_init,
	.option = top_option,
	.takes_stream = true,
	.wanted = top_wanted,
	.open = top_open,
	.start = top_start,
	.row = top_row,
	.process = top_process,
	.flush = top_flush,
	.close = top_close,
};
