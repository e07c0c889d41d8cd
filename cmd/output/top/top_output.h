/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The output of the command that the live view runs. The command writes
 * to a pseudo-terminal of its own, never to the view's (cputrack's
 * command_tty.c makes it); here a thread reads its master as the command
 * writes, keeps its first bytes in an anonymous memory file and its
 * last in a ring, bounded (a long build's output whole, an endless
 * writer's first and last parts), and the last lines as a terminal
 * would show them, for the view's pane. When the view has closed, it is
 * written on the terminal, in order, as if the view had not been there,
 * with the count of lines left out, if any, where they were. The keys
 * the view hands the command go in through the same terminal.
 */
#ifndef TOP_OUTPUT_H
#define TOP_OUTPUT_H

#include <stdbool.h>

/* The pane's lines at most, and the bytes of each kept. */
#define TOP_TAIL_LINES 16
#define TOP_TAIL_WIDTH 256

/* The last lines, oldest first, each as the terminal showed it. */
struct top_tail {
	char line[TOP_TAIL_LINES][TOP_TAIL_WIDTH];
	int n;
	unsigned long lines; /* lines written so far, the one begun too */
};

struct top_output;

/*
 * The output that comes through master (a pseudo-terminal's, which the
 * caller keeps and closes after top_output_free): NULL, said, when it
 * cannot be kept.
 */
struct top_output *top_output_open(int master);
/*
 * The thread starts; wake(arg) when the last lines changed, at most
 * every tenth of a second. 0, or an errno.
 */
int top_output_start(struct top_output *o, void (*wake)(void *), void *arg);
/* The last lines now, into tail. */
void top_output_tail(struct top_output *o, struct top_tail *tail);
/* The command's terminal is as large as the view's window. */
void top_output_size(struct top_output *o, int rows, int cols);
/* The thread stops, once it has read what the command wrote. */
void top_output_stop(struct top_output *o);
/*
 * All of it onto fd, with a line that says what could not be kept, if
 * anything: 0, or an errno.
 */
int top_output_replay(struct top_output *o, int fd);
void top_output_free(struct top_output *o);
/* sig to the command's terminal's foreground process group: 0, or errno. */
int top_output_signal(struct top_output *o, int sig);
/* n bytes typed to the command, through its terminal: 0, or an errno. */
int top_output_type(struct top_output *o, const char *b, size_t n);
/* Whether the command waits for a line on its terminal now. */
bool top_output_waits(struct top_output *o);

#endif /* TOP_OUTPUT_H */
