/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The command's output, kept (see top_output.h). The last lines are what
 * a terminal would show of the bytes: a carriage return goes back to the
 * line's start (a progress meter's line shows its latest state), a
 * backspace one column back, a tab to the next multiple of 8; escape
 * sequences (colours, cursor moves) and other control characters are
 * dropped, so that the pane shows text alone. The bytes kept are the
 * command's own, sequences and all, for the terminal at the end: the
 * first KEEP_HEAD of them in a memory file, and past that the last
 * KEEP_TAIL in a ring, so that a command that writes without end (yes)
 * takes no more memory than that; the lines between the two are counted
 * and said where they were.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "top_output.h"

#define CHUNK	    65536
#define KEEP_HEAD   (4 * 1024 * 1024)
#define KEEP_TAIL   (4 * 1024 * 1024)
#define WAKE_NS	    100000000 /* a tenth of a second */
#define TAB_STOP    8
#define KEY_ESCAPE  27
#define CSI_END_MIN 0x40
#define CSI_END_MAX 0x7e

/* Where the reading of the bytes is: in text, or in an escape sequence. */
enum esc_state { TEXT, ESCAPE, CSI, OSC, OSC_ESCAPE };

struct top_output {
	int master;
	int kept;    /* the memory file every byte goes to */
	int stop[2]; /* a pipe: a byte says stop */
	pthread_t thread;
	bool running;
	void (*wake)(void *);
	void *wake_arg;
	int64_t woken_at;
	unsigned long long lost;      /* bytes the memory file could not take */
	size_t head;		      /* bytes in the memory file */
	char *tail;		      /* the ring past KEEP_HEAD, or NULL */
	size_t tail_at;		      /* where the ring's next byte goes */
	size_t tail_len;	      /* bytes in the ring */
	unsigned long long gap_lines; /* lines gone from the ring */
	bool gap;		      /* bytes went from the ring */
	pthread_mutex_t lock;	      /* the lines below */
	enum esc_state esc;
	char ring[TOP_TAIL_LINES][TOP_TAIL_WIDTH];
	int at;	  /* the line being written */
	int col;  /* its column */
	int used; /* lines of the ring written (the one begun too) */
	unsigned long lines;
};

struct top_output *
top_output_open(int master)
{
	struct top_output *o = calloc(1, sizeof(*o));

	if (o == NULL) {
		diag(NULL, "no memory available\n");
		return NULL;
	}
	o->master = master;
	o->stop[0] = o->stop[1] = -1;
	pthread_mutex_init(&o->lock, NULL);
	o->kept = memfd_create("cputop-output", MFD_CLOEXEC);
	if (o->kept < 0 || pipe2(o->stop, O_CLOEXEC | O_NONBLOCK) != 0 ||
	    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK) != 0) {
		diag(NULL, "cannot keep the command's output: %s\n",
		    strerror(errno));
		top_output_free(o);
		return NULL;
	}
	return o;
}

/* The first byte begins the first line. */
static void
begin(struct top_output *o)
{
	if (o->used > 0)
		return;
	o->used = 1;
	o->lines = 1;
}

/* The line being written ends: the next one begins, empty. */
static void
new_line(struct top_output *o)
{
	begin(o);
	o->at = (o->at + 1) % TOP_TAIL_LINES;
	memset(o->ring[o->at], 0, TOP_TAIL_WIDTH);
	o->col = 0;
	o->lines++;
	if (o->used < TOP_TAIL_LINES)
		o->used++;
}

/* A byte of text at the column, over what was there. */
static void
put(struct top_output *o, char c)
{
	char *line = o->ring[o->at];

	begin(o);
	if (o->col >= TOP_TAIL_WIDTH - 1)
		return;
	line[o->col++] = c;
}

/* A byte in text: what it does to the line. */
static void
text_byte(struct top_output *o, unsigned char c)
{
	switch (c) {
	case '\n':
		new_line(o);
		break;
	case '\r':
		o->col = 0;
		break;
	case '\b':
		if (o->col > 0)
			o->col--;
		break;
	case '\t':
		do
			put(o, ' ');
		while (o->col % TAB_STOP != 0 && o->col < TOP_TAIL_WIDTH - 1);
		break;
	case KEY_ESCAPE:
		o->esc = ESCAPE;
		break;
	default:
		if (c >= ' ' && c != 0x7f)
			put(o, (char)c);
		break;
	}
}

/* A byte of an escape sequence: whether the sequence goes on. */
static enum esc_state
escape_byte(enum esc_state esc, unsigned char c)
{
	switch (esc) {
	case ESCAPE:
		return c == '[' ? CSI : c == ']' ? OSC : TEXT;
	case CSI:
		return c >= CSI_END_MIN && c <= CSI_END_MAX ? TEXT : CSI;
	case OSC:
		return c == '\a' ? TEXT : c == KEY_ESCAPE ? OSC_ESCAPE : OSC;
	case OSC_ESCAPE:
		return c == '\\' ? TEXT : OSC;
	default:
		return TEXT;
	}
}

/* The bytes read, into the last lines. */
static void
follow(struct top_output *o, const unsigned char *b, size_t n)
{
	size_t i;

	pthread_mutex_lock(&o->lock);
	for (i = 0; i < n; i++) {
		if (o->esc == TEXT)
			text_byte(o, b[i]);
		else
			o->esc = escape_byte(o->esc, b[i]);
	}
	pthread_mutex_unlock(&o->lock);
}

/* n bytes into the memory file: how many it took. */
static size_t
keep_head(struct top_output *o, const char *b, size_t n)
{
	size_t room = KEEP_HEAD - o->head, done = 0;
	ssize_t w;

	if (n > room)
		n = room;
	while (done < n) {
		if ((w = write(o->kept, b + done, n - done)) < 0 &&
		    errno == EINTR)
			continue;
		if (w <= 0) {
			o->lost += n - done;
			break;
		}
		done += (size_t)w;
	}
	o->head += n;
	return n;
}

/* A byte into the ring; the one it takes the place of is counted gone. */
static void
keep_tail_byte(struct top_output *o, char c)
{
	if (o->tail_len == KEEP_TAIL) {
		o->gap = true;
		o->gap_lines += o->tail[o->tail_at] == '\n';
	} else {
		o->tail_len++;
	}
	o->tail[o->tail_at] = c;
	o->tail_at = (o->tail_at + 1) % KEEP_TAIL;
}

/* The bytes read: the first in the memory file, the last in the ring. */
static void
keep(struct top_output *o, const char *b, size_t n)
{
	size_t i, took = keep_head(o, b, n);

	if (took == n)
		return;
	if (o->tail == NULL && (o->tail = malloc(KEEP_TAIL)) == NULL) {
		o->lost += n - took;
		return;
	}
	for (i = took; i < n; i++)
		keep_tail_byte(o, b[i]);
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * What the command wrote so far: -1 when it can write no more (every
 * descriptor of its terminal closed), 0 when there is nothing now.
 */
static int
read_some(struct top_output *o, char *buf)
{
	ssize_t n;
	int64_t now;

	while ((n = read(o->master, buf, CHUNK)) > 0) {
		keep(o, buf, (size_t)n);
		follow(o, (const unsigned char *)buf, (size_t)n);
		now = now_ns();
		if (o->wake != NULL && now - o->woken_at >= WAKE_NS) {
			o->woken_at = now;
			o->wake(o->wake_arg);
		}
	}
	return n < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
}

static void *
reader(void *arg)
{
	struct top_output *o = arg;
	struct pollfd fds[2] = {
		{ .fd = o->master, .events = POLLIN },
		{ .fd = o->stop[0], .events = POLLIN },
	};
	char *buf = malloc(CHUNK);

	while (buf != NULL && read_some(o, buf) == 0) {
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		if (fds[1].revents & POLLIN) {
			(void)read_some(o, buf); /* what came before the stop */
			break;
		}
	}
	if (o->wake != NULL)
		o->wake(o->wake_arg);
	free(buf);
	return NULL;
}

int
top_output_start(struct top_output *o, void (*wake)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	o->wake = wake;
	o->wake_arg = arg;
	/* The thread takes no signal: they are the engine's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&o->thread, NULL, reader, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	o->running = err == 0;
	return err;
}

void
top_output_tail(struct top_output *o, struct top_tail *tail)
{
	int i, first;

	pthread_mutex_lock(&o->lock);
	/* The line begun counts once it holds something. */
	tail->n = o->used - (o->used > 0 && o->ring[o->at][0] == '\0');
	first = (o->at - (o->used - 1) + TOP_TAIL_LINES) % TOP_TAIL_LINES;
	for (i = 0; i < tail->n; i++)
		memcpy(tail->line[i], o->ring[(first + i) % TOP_TAIL_LINES],
		    TOP_TAIL_WIDTH);
	tail->lines = o->lines - (o->used > 0 && o->ring[o->at][0] == '\0');
	pthread_mutex_unlock(&o->lock);
}

void
top_output_size(struct top_output *o, int rows, int cols)
{
	struct winsize ws = { .ws_row = (unsigned short)rows,
		.ws_col = (unsigned short)cols };

	(void)ioctl(o->master, TIOCSWINSZ, &ws);
}

void
top_output_stop(struct top_output *o)
{
	char *buf;

	if (o->running) {
		if (write(o->stop[1], "", 1) < 0)
			diag_debug("cannot stop the output's thread: %s\n",
			    strerror(errno));
		pthread_join(o->thread, NULL);
		o->running = false;
		return;
	}
	/* No thread ever read it: what is there now. */
	if ((buf = malloc(CHUNK)) != NULL)
		(void)read_some(o, buf);
	free(buf);
}

/* n bytes onto fd, whole: 0, or an errno. */
static int
write_all(int fd, const char *b, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, b, n)) < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * The ring onto fd from its first whole line, once bytes went from it,
 * after a line that says how many lines went: 0, or an errno.
 */
static int
replay_tail(struct top_output *o, int fd)
{
	size_t first = (o->tail_at + KEEP_TAIL - o->tail_len) % KEEP_TAIL;
	size_t n = o->tail_len, skip = 0;
	unsigned long long gone = o->gap_lines;
	char said[128];
	int err, len;

	if (o->gap) {
		while (skip < n && o->tail[(first + skip) % KEEP_TAIL] != '\n')
			skip++;
		if (skip < n) {
			skip++;
			gone++;
		}
		len = snprintf(said, sizeof(said),
		    "\r\n[cputop: %llu line%s of the command's output left "
		    "out here]\r\n",
		    gone, gone == 1 ? "" : "s");
		if ((err = write_all(fd, said, (size_t)len)) != 0)
			return err;
	}
	first = (first + skip) % KEEP_TAIL;
	n -= skip;
	if (first + n > KEEP_TAIL) {
		if ((err = write_all(fd, o->tail + first, KEEP_TAIL - first)) !=
		    0)
			return err;
		n -= KEEP_TAIL - first;
		first = 0;
	}
	return write_all(fd, o->tail + first, n);
}

int
top_output_replay(struct top_output *o, int fd)
{
	char *buf = malloc(CHUNK);
	off_t at = 0;
	ssize_t n;
	int err = 0;

	if (buf == NULL)
		return ENOMEM;
	while (err == 0 && (n = pread(o->kept, buf, CHUNK, at)) > 0) {
		err = write_all(fd, buf, (size_t)n);
		at += n;
	}
	free(buf);
	if (err == 0 && o->tail != NULL)
		err = replay_tail(o, fd);
	if (err == 0 && o->lost > 0)
		diag(NULL,
		    "%llu bytes of the command's output could not be kept "
		    "(out of memory)\n",
		    o->lost);
	return err;
}

/* The foreground process group of the command's terminal, or -1. */
static pid_t
foreground(const struct top_output *o)
{
	return tcgetpgrp(o->master);
}

int
top_output_signal(struct top_output *o, int sig)
{
	pid_t group = foreground(o);

	if (group <= 0)
		return ESRCH;
	return kill(-group, sig) == 0 ? 0 : errno;
}

int
top_output_type(struct top_output *o, const char *b, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(o->master, b, n)) < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Whether pid sleeps in a read of its standard input, or in a select of
 * it alone (an interactive interpreter's), and that input is the
 * command's terminal.
 */
static bool
reads_input(pid_t pid, const char *tty)
{
	char path[64], line[256], link[64];
	unsigned long arg0;
	long nr;
	FILE *f;
	ssize_t n;
	bool reading;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	reading = fgets(line, sizeof(line), f) != NULL &&
	    sscanf(line, "%ld %lx", &nr, &arg0) == 2 &&
	    ((nr == SYS_read && arg0 == 0) ||
		(nr == SYS_pselect6 && arg0 == 1));
	fclose(f);
	if (!reading)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fd/0", (int)pid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return strcmp(link, tty) == 0 || strcmp(link, "/dev/tty") == 0;
}

/*
 * Whether pid, or a process below it in the group (a shell's command),
 * waits for input on the terminal tty: at most WAIT_DEPTH down, reading
 * WAIT_CHILDREN children of each.
 */
#define WAIT_DEPTH    4
#define WAIT_CHILDREN 16

static bool
group_reads_input(pid_t pid, pid_t group, const char *tty, int depth)
{
	char path[64], list[256], *at, *end;
	long child;
	FILE *f;
	int n = 0;
	bool found = false;

	if (reads_input(pid, tty))
		return true;
	if (depth >= WAIT_DEPTH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
	    (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	if (fgets(list, sizeof(list), f) == NULL)
		list[0] = '\0';
	fclose(f);
	for (at = list; !found && n++ < WAIT_CHILDREN; at = end) {
		child = strtol(at, &end, 10);
		if (end == at || child <= 0)
			break;
		found = getpgid((pid_t)child) == group &&
		    group_reads_input((pid_t)child, group, tty, depth + 1);
	}
	return found;
}

bool
top_output_waits(struct top_output *o)
{
	char tty[64];
	pid_t group = foreground(o);

	return group > 0 && ptsname_r(o->master, tty, sizeof(tty)) == 0 &&
	    group_reads_input(group, group, tty, 0);
}

void
top_output_free(struct top_output *o)
{
	if (o == NULL)
		return;
	if (o->running)
		top_output_stop(o);
	if (o->kept >= 0)
		close(o->kept);
	free(o->tail);
	if (o->stop[0] >= 0)
		close(o->stop[0]);
	if (o->stop[1] >= 0)
		close(o->stop[1]);
	pthread_mutex_destroy(&o->lock);
	free(o);
}
