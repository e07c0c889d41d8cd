/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live view's terminal. One thread owns curses: it sleeps in poll(2)
 * on the keyboard and on a pipe that says "draw again", reads the keys,
 * and redraws. It takes no signal (the run's signals are the engine's):
 * SIGWINCH's handler, which whatever thread takes it runs, only writes to
 * that pipe (installed before curses, so that curses installs none of its
 * own). The thread then asks the terminal its size, as it does at each
 * wake-up, at most a quarter of a second apart.
 *
 * curses only redraws the cells that changed, so a refresh never flickers.
 * After a resize, and on Ctrl-L, every cell is drawn again: a terminal
 * that reflowed or scrolled its lines as the window changed no longer
 * shows what curses last drew. Colour is used only where the terminal has
 * it and NO_COLOR is unset.
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
#include <termios.h>
#include <unistd.h>

#include <ncurses.h>

#include "diag.h"
#include "top_screen.h"

#define POLL_MS	   250
#define KEY_ESCAPE 27
#define KEY_CTRL_L 12
#define KEY_CTRL_C 3

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
	int top;      /* the first body line on screen */
	bool repaint; /* every cell again: the terminal's may be stale */
	struct sigaction old_winch;
	bool winch_set;
	bool colour;
	bool editing; /* '/': a filter being typed */
	bool handed;  /* the keys are the command's */
	char typed[64];
	size_t ntyped;
};

/* SIGWINCH's: the screen's wake-up pipe (one screen per process). */
static volatile int winch_fd = -1;

static void
on_winch(int sig)
{
	int saved = errno;
	ssize_t n;

	(void)sig;
	n = write(winch_fd, "", 1); /* a full pipe is a wake-up already */
	(void)n;
	errno = saved;
}

static void
catch_winch(struct top_screen *s)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_winch;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	winch_fd = s->wake[1];
	s->winch_set = sigaction(SIGWINCH, &sa, &s->old_winch) == 0;
}

static void
release_winch(struct top_screen *s)
{
	if (!s->winch_set)
		return;
	(void)sigaction(SIGWINCH, &s->old_winch, NULL);
	winch_fd = -1;
	s->winch_set = false;
}

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

/*
 * Ctrl-C is a key of the view, q's twin: the terminal makes no SIGINT
 * of it, so that each press escalates and is said in the header as q's
 * (a SIGINT from elsewhere still ends the run as it ends cputrack). The
 * mode is curses' own from here on, kept across its mode changes.
 */
static void
ctrl_c_as_key(const struct top_screen *s)
{
	struct termios tio;

	if (tcgetattr(s->in_fd, &tio) != 0)
		return;
	tio.c_cc[VINTR] = _POSIX_VDISABLE;
	if (tcsetattr(s->in_fd, TCSANOW, &tio) == 0)
		def_prog_mode();
}

static void
start_curses(struct top_screen *s)
{
	set_escdelay(25);
	set_term(s->term);
	cbreak();
	ctrl_c_as_key(s);
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
	case TOP_LINE_PANE:
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

/*
 * The pane of the command's output (lines pane to end): its title and its
 * last lines, a third of the rows below the header at most, on the rows
 * above the footer; how many rows it takes.
 */
static int
draw_pane(struct top_screen *s, int pane, int end, int room, int bottom)
{
	int n = end - pane, rows = room / 3, i;

	if (n <= 0 || rows < 2)
		return 0;
	if (n > rows)
		n = rows;
	put_line(s, bottom - n, pane, false);
	for (i = 1; i < n; i++)
		put_line(s, bottom - n + i, end - (n - i), false);
	return n;
}

static void
draw(struct top_screen *s)
{
	const struct top_lines *l = &s->lines;
	int y = 0, i, footer, rows, end, bottom;

	s->owner.render(s->owner.arg, COLS, &s->lines);
	if (s->repaint)
		clearok(curscr, TRUE);
	s->repaint = false;
	erase();
	if (l->n == 0) {
		refresh();
		return;
	}
	footer = l->kind[l->n - 1] == TOP_LINE_FOOTER ? l->n - 1 : -1;
	end = footer >= 0 ? footer : l->n; /* the body's, or the pane's */
	bottom = LINES - (footer >= 0);
	for (i = 0; i < l->body && y < bottom; i++)
		put_line(s, y++, i, false);
	if (l->pane >= 0) {
		bottom -= draw_pane(s, l->pane, end, bottom - y, bottom);
		end = l->pane;
	}
	rows = bottom - y;
	scroll_body(s, end, rows);
	for (i = s->top; i < end && y < bottom; i++)
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

/* The window's size, asked of the terminal itself; a new one repaints. */
static void
follow_size(struct top_screen *s)
{
	struct winsize ws;

	if (ioctl(fileno(s->out), TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 ||
	    ws.ws_col == 0 || (ws.ws_row == LINES && ws.ws_col == COLS))
		return;
	resize_term(ws.ws_row, ws.ws_col);
	s->repaint = true;
	s->owner.resized(s->owner.arg, LINES, COLS);
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

/*
 * The keyboard to the command (raw: Ctrl-C and Ctrl-Z are bytes for its
 * terminal to make signals of, escape sequences go whole), or back to
 * the view.
 */
static void
hand_over(struct top_screen *s, bool on)
{
	if (s->owner.hand_over == NULL || !s->owner.hand_over(s->owner.arg, on))
		return;
	s->handed = on;
	keypad(stdscr, on ? FALSE : TRUE);
	if (on)
		raw();
	else
		cbreak();
}

/* A key while the keyboard is the command's. */
static void
handed_key(struct top_screen *s, int ch)
{
	char c = (char)ch;

	if (ch == TOP_KEY_GIVE_BACK)
		hand_over(s, false);
	else if (ch >= 0 && ch < 256)
		s->owner.typed(s->owner.arg, &c, 1);
}

/* q: false when the view ends. */
static bool
quit(struct top_screen *s)
{
	switch (s->owner.quit(s->owner.arg)) {
	case TOP_QUIT_END:
		interrupt(s);
		return false;
	case TOP_QUIT_INTERRUPT:
		interrupt(s);
		return true;
	default:
		return true;
	}
}

/* The keys waiting; false when one ends the view. */
static bool
read_keys(struct top_screen *s)
{
	int ch;

	while ((ch = getch()) != ERR) {
		if (ch == KEY_RESIZE)
			continue;
		if (s->handed) {
			handed_key(s, ch);
			continue;
		}
		if (ch == KEY_CTRL_L) {
			s->repaint = true;
			continue;
		}
		if (ch == KEY_CTRL_C ||
		    (!s->editing && (ch == 'q' || ch == 'Q'))) {
			if (!quit(s))
				return false;
		} else if (s->editing) {
			edit_key(s, ch);
		} else if (ch == TOP_KEY_HAND_OVER) {
			hand_over(s, true);
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

	s->owner.resized(s->owner.arg, LINES, COLS);
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
	catch_winch(s);
	if ((s->term = newterm(NULL, s->out, s->in)) == NULL) {
		release_winch(s);
		return ENOTTY;
	}
	start_curses(s);
	/* The thread takes no signal: they are the engine's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&s->thread, NULL, screen_thread, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		endwin();
		release_winch(s);
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
	release_winch(s);
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
