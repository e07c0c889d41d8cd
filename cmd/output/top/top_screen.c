/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live view's terminal. One thread owns curses: it sleeps in poll(2)
 * on the keyboard and on a pipe that says "draw again", reads the keys,
 * and redraws. It takes no signal (the run's signals are the engine's):
 * so a window's resize is found by asking the terminal its size at each
 * wake-up, at most a quarter of a second apart, not by SIGWINCH.
 *
 * curses only redraws the cells that changed, so a refresh never flickers.
 * Colour is used only where the terminal has it and NO_COLOR is unset.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <ncurses.h>

#include "diag.h"
#include "top_screen.h"

#define POLL_MS	   250
#define KEY_ESCAPE 27

enum colour_pair { PAIR_HEADER = 1, PAIR_ENDED, PAIR_HELP };

struct top_screen {
	SCREEN *term;
	FILE *out, *in;
	int in_fd;
	int wake[2]; /* a pipe: a byte says draw again */
	pthread_t thread;
	bool running;
	atomic_bool stop;
	struct top_screen_owner owner;
	struct top_lines lines;
	int top; /* the first body line on screen */
	bool colour;
	bool editing; /* '/': a filter being typed */
	char typed[64];
	size_t ntyped;
};

struct top_screen *
top_screen_open(int fd)
{
	struct top_screen *s;

	if (!isatty(fd)) {
		diag(NULL,
		    "--top draws on a terminal: standard output is not one "
		    "(-b prints the view as text)\n");
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		diag(NULL, "no memory available\n");
		return NULL;
	}
	s->wake[0] = s->wake[1] = -1;
	s->in_fd = open("/dev/tty", O_RDONLY | O_CLOEXEC);
	if (s->in_fd < 0)
		s->in_fd = dup(fd);
	if (s->in_fd < 0 || pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0 ||
	    (s->in = fdopen(s->in_fd, "r")) == NULL ||
	    (s->out = fdopen(dup(fd), "w")) == NULL) {
		diag(NULL, "cannot open the terminal: %s\n", strerror(errno));
		top_screen_close(s);
		return NULL;
	}
	(void)fcntl(fileno(s->out), F_SETFD, FD_CLOEXEC);
	return s;
}

static void
start_curses(struct top_screen *s)
{
	set_escdelay(25);
	set_term(s->term);
	cbreak();
	noecho();
	nonl();
	curs_set(0);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	s->colour = has_colors() && getenv("NO_COLOR") == NULL;
	if (s->colour && start_color() == OK) {
		use_default_colors();
		init_pair(PAIR_HEADER, COLOR_CYAN, -1);
		init_pair(PAIR_ENDED, COLOR_RED, -1);
		init_pair(PAIR_HELP, COLOR_GREEN, -1);
	} else {
		s->colour = false;
	}
}

static attr_t
line_attr(const struct top_screen *s, int kind)
{
	switch (kind) {
	case TOP_LINE_TITLE:
	case TOP_LINE_FOOTER:
		return A_REVERSE;
	case TOP_LINE_HEADER:
		return s->colour ? COLOR_PAIR(PAIR_HEADER) : A_NORMAL;
	case TOP_LINE_ENDED:
		return s->colour ? COLOR_PAIR(PAIR_ENDED) : A_DIM;
	case TOP_LINE_HELP:
		return s->colour ? COLOR_PAIR(PAIR_HELP) : A_NORMAL;
	default:
		return A_NORMAL;
	}
}

static void
put_line(struct top_screen *s, int y, int i, bool selected)
{
	attr_t a = line_attr(s, s->lines.kind[i]);

	if (selected)
		a |= A_BOLD | A_UNDERLINE;
	attrset(a);
	mvaddstr(y, 0, top_line(&s->lines, i));
	if (a & A_REVERSE) /* the bar goes across the screen */
		hline(' ', COLS);
	attrset(A_NORMAL);
}

/*
 * The body (lines body to end) scrolls so that the selected line is on
 * screen, and no further than its last line allows.
 */
static void
scroll_body(struct top_screen *s, int end, int rows)
{
	const struct top_lines *l = &s->lines;
	int sel = l->selected, last = end - rows;

	if (sel >= 0 && sel < s->top)
		s->top = sel;
	if (sel >= 0 && sel >= s->top + rows)
		s->top = sel - rows + 1;
	if (s->top > last)
		s->top = last;
	if (s->top < l->body)
		s->top = l->body;
}

static void
draw(struct top_screen *s)
{
	const struct top_lines *l = &s->lines;
	int y = 0, i, footer, rows;

	s->owner.render(s->owner.arg, COLS, &s->lines);
	erase();
	if (l->n == 0) {
		refresh();
		return;
	}
	footer = l->n - 1;
	for (i = 0; i < l->body && y < LINES - 1; i++)
		put_line(s, y++, i, false);
	rows = LINES - 1 - y;
	if (l->kind[footer] != TOP_LINE_FOOTER) {
		footer = -1;
		rows++;
	}
	scroll_body(s, footer >= 0 ? footer : l->n, rows);
	for (i = s->top; i < l->n && i != footer && y < LINES - (footer >= 0);
	     i++)
		put_line(s, y++, i, i == l->selected);
	if (s->editing) {
		attrset(A_REVERSE);
		mvprintw(
		    LINES - 1, 0, "filter: %.*s", (int)s->ntyped, s->typed);
		hline(' ', COLS);
		attrset(A_NORMAL);
	} else if (footer >= 0) {
		put_line(s, LINES - 1, footer, false);
	}
	refresh();
}

/* The window's size, asked of the terminal itself. */
static void
follow_size(struct top_screen *s)
{
	struct winsize ws;

	if (ioctl(fileno(s->out), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0 && (ws.ws_row != LINES || ws.ws_col != COLS))
		resize_term(ws.ws_row, ws.ws_col);
}

static int
key_of(int ch)
{
	switch (ch) {
	case KEY_UP:
		return TOP_KEY_UP;
	case KEY_DOWN:
		return TOP_KEY_DOWN;
	case KEY_PPAGE:
		return TOP_KEY_PAGE_UP;
	case KEY_NPAGE:
		return TOP_KEY_PAGE_DOWN;
	case KEY_HOME:
		return TOP_KEY_HOME;
	case KEY_END:
		return TOP_KEY_END;
	default:
		return ch;
	}
}

/*
 * A key while a filter is typed: Enter takes it; Escape clears the filter,
 * the one in use too, as htop's does.
 */
static void
edit_key(struct top_screen *s, int ch)
{
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		s->typed[s->ntyped] = '\0';
		s->owner.filter(s->owner.arg, s->typed);
		s->editing = false;
	} else if (ch == KEY_ESCAPE) {
		s->owner.filter(s->owner.arg, "");
		s->editing = false;
	} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) &&
	    s->ntyped > 0) {
		s->ntyped--;
	} else if (ch >= ' ' && ch < 256 && ch != 127 &&
	    s->ntyped < sizeof(s->typed) - 1) {
		s->typed[s->ntyped++] = (char)ch;
	}
}

/*
 * q does what Ctrl-C does: SIGINT to the terminal's foreground process
 * group (this run, and a command it started with what that started), so
 * that the run ends the one way it ends on Ctrl-C, letting -p targets go.
 */
static void
interrupt(const struct top_screen *s)
{
	pid_t group = tcgetpgrp(s->in_fd);

	if (group > 0 && group == getpgrp())
		(void)kill(-group, SIGINT);
	else
		(void)kill(getpid(), SIGINT);
}

/* The keys waiting; false when one ends the view. */
static bool
read_keys(struct top_screen *s)
{
	int ch;

	while ((ch = getch()) != ERR) {
		if (ch == KEY_RESIZE)
			continue;
		if (!s->editing && (ch == 'q' || ch == 'Q')) {
			interrupt(s);
			return false;
		}
		if (s->editing) {
			edit_key(s, ch);
		} else if (ch == KEY_ESCAPE) {
			s->owner.filter(s->owner.arg, "");
		} else if (ch == '/') {
			s->editing = true;
			s->ntyped = 0;
		} else {
			s->owner.key(s->owner.arg, key_of(ch), &s->lines);
		}
	}
	return true;
}

static void *
screen_thread(void *arg)
{
	struct top_screen *s = arg;
	struct pollfd fds[2] = {
		{ .fd = s->in_fd, .events = POLLIN },
		{ .fd = s->wake[0], .events = POLLIN },
	};
	char drain[64];

	draw(s);
	while (!s->stop) {
		if (poll(fds, 2, POLL_MS) < 0 && errno != EINTR)
			break;
		while (read(s->wake[0], drain, sizeof(drain)) > 0)
			continue;
		if (s->stop)
			break;
		follow_size(s);
		if (!read_keys(s))
			break;
		draw(s);
	}
	return NULL;
}

int
top_screen_start(struct top_screen *s, const struct top_screen_owner *o)
{
	sigset_t all, old;
	int err;

	s->owner = *o;
	if ((s->term = newterm(NULL, s->out, s->in)) == NULL)
		return ENOTTY;
	start_curses(s);
	/* The thread takes no signal: they are the engine's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&s->thread, NULL, screen_thread, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		endwin();
		return err;
	}
	s->running = true;
	return 0;
}

void
top_screen_wake(struct top_screen *s)
{
	/* A full pipe has a wake-up in it already: nothing is lost. */
	if (write(s->wake[1], "", 1) < 0)
		return;
}

void
top_screen_close(struct top_screen *s)
{
	if (s == NULL)
		return;
	if (s->running) {
		s->stop = true;
		top_screen_wake(s);
		pthread_join(s->thread, NULL);
	}
	if (s->term != NULL) {
		endwin();
		delscreen(s->term);
	}
	if (s->out != NULL)
		fclose(s->out);
	if (s->in != NULL)
		fclose(s->in);
	else if (s->in_fd >= 0)
		close(s->in_fd);
	if (s->wake[0] >= 0)
		close(s->wake[0]);
	if (s->wake[1] >= 0)
		close(s->wake[1]);
	top_lines_free(&s->lines);
	free(s);
}
