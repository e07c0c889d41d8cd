/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live view's command, on a terminal of its own. A command that
 * cputop starts on a screen never writes on the view: before the engine
 * forks it, cputrack's standard output, and its error and input where
 * they are a terminal (the keys are the view's), become the slave of a
 * pseudo-terminal as large as the window, which the command inherits;
 * the terminal's own descriptors are kept for the view. The view reads
 * the master (top_output.c) and, once it is gone, writes all of it on
 * the terminal. At the end cputrack's descriptors are the terminal's
 * again, and what the command's processes wrote after the view read its
 * last goes there too.
 */
#ifndef CPUTRACK_TTY_H
#define CPUTRACK_TTY_H

struct cputrack_tty {
	int master;   /* -1: none */
	int saved[3]; /* what descriptors 0, 1 and 2 were; -1: unchanged */
};

/* None yet. */
void cputrack_tty_init(struct cputrack_tty *t);
/* The terminal made and handed to the command to come: 0, or -1 said. */
int cputrack_tty_open(struct cputrack_tty *t);
/* The descriptor of the view's terminal, for its stream. */
int cputrack_tty_view(const struct cputrack_tty *t);
/* cputrack's descriptors are the terminal's again. */
void cputrack_tty_restore(struct cputrack_tty *t);
/* What is left to read, onto the terminal; everything closed. */
void cputrack_tty_close(struct cputrack_tty *t);

#endif /* CPUTRACK_TTY_H */
