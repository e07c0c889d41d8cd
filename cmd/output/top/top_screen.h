/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The terminal of the live view: curses on its own thread, which reads
 * the keys, follows the window's size (SIGWINCH), and draws the lines it
 * is given whenever they may have changed, all of them again after a
 * resize and on Ctrl-L. It knows nothing of what the lines say:
 * its owner renders them and takes the keys (struct top_screen_owner).
 */
#ifndef TOP_SCREEN_H
#define TOP_SCREEN_H

#include <stdbool.h>

#include "top_view.h"

/* Keys that are not characters. */
enum {
	TOP_KEY_UP = 0x100,
	TOP_KEY_DOWN,
	TOP_KEY_PAGE_UP,
	TOP_KEY_PAGE_DOWN,
	TOP_KEY_HOME,
	TOP_KEY_END
};

/* What q does, as the owner answers it. */
enum top_quit {
	TOP_QUIT_END,	    /* Ctrl-C's signal, and the screen ends */
	TOP_QUIT_INTERRUPT, /* Ctrl-C's signal; the screen goes on */
	TOP_QUIT_SENT	    /* the owner sent its own; the screen goes on */
};

/* The key that hands the keyboard to the command, and gives it back. */
#define TOP_KEY_HAND_OVER 'i'
#define TOP_KEY_GIVE_BACK 0x1d /* Ctrl-] */

struct top_screen_owner {
	/* The lines, width columns wide. */
	void (*render)(void *arg, int width, struct top_lines *lines);
	/*
	 * A key (a character, or TOP_KEY_*), with the lines on screen (to
	 * move the selection). q is quit's.
	 */
	void (*key)(void *arg, int key, const struct top_lines *shown);
	/* A filter typed after '/', whole. */
	void (*filter)(void *arg, const char *text);
	/* The window's size, at the start and at each change. */
	void (*resized)(void *arg, int rows, int cols);
	/* q (or Q) was pressed: what it does. */
	enum top_quit (*quit)(void *arg);
	/*
	 * The keyboard is the command's (on), or the view's again; NULL:
	 * there is no command to hand it to. While it is the command's,
	 * every byte typed but TOP_KEY_GIVE_BACK goes to typed().
	 */
	bool (*hand_over)(void *arg, bool on);
	void (*typed)(void *arg, const char *b, size_t n);
	void *arg;
};

struct top_screen;

/*
 * The terminal at fd, and the keyboard: NULL, said on stderr, when fd
 * is not a terminal or curses cannot take it.
 */
struct top_screen *top_screen_open(int fd);
/* The thread starts: 0, or an errno. */
int top_screen_start(struct top_screen *s, const struct top_screen_owner *o);
/* The lines may have changed: draw them again. */
void top_screen_wake(struct top_screen *s);
/* The thread stops, and the terminal is left as it was found. */
void top_screen_close(struct top_screen *s);

#endif /* TOP_SCREEN_H */
