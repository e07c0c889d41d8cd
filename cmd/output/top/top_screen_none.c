/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The terminal of a build without curses (a static cross build, for
 * one): --top draws nothing, and says why; -b, which needs no terminal,
 * works as in any build.
 */
#include <stddef.h>

#include "diag.h"
#include "top_screen.h"

struct top_screen *
top_screen_open(int fd)
{
	(void)fd;
	diag(NULL,
	    "this build has no curses (libncursesw): --top draws nothing "
	    "here; -b prints the view as text\n");
	return NULL;
}

int
top_screen_start(struct top_screen *s, const struct top_screen_owner *o)
{
	(void)s;
	(void)o;
	return 0;
}

void
top_screen_wake(struct top_screen *s)
{
	(void)s;
}

void
top_screen_close(struct top_screen *s)
{
	(void)s;
}
