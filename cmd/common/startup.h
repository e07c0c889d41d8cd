/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The phases of a command's start and their times, which -D shows: what
 * came before main (the exec and the dynamic linking), then each phase
 * from main to the end, as the command marks them.
 */
#ifndef STARTUP_H
#define STARTUP_H

/* At main's first line: the time the process took to get there. */
void startup_begin(void);
/* The phase that ends now; after the first few, marks are dropped. */
void startup_mark(const char *phase);
/* The phase that ends as the target starts to be counted. */
void startup_started(const char *phase);
/*
 * With -D, once a target started (a run refused before has no start to
 * tell), one line: every phase marked, with its time, and the total.
 */
void startup_report(void);

#endif /* STARTUP_H */
