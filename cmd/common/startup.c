/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The phases of a start, timed. Marking costs one clock read (the vDSO's
 * CLOCK_MONOTONIC) and nothing else, so every run marks; only -D reads
 * the process's own accounting and says what the phases took.
 *
 * Before main the process ran the shell's fork, its exec and the dynamic
 * linker: the CPU time it had used at main is that cost, as the kernel
 * counts it (a start that waits for no disk spends it all on a CPU). The
 * kernel's start time of the process (/proc/self/stat, in clock ticks
 * since boot) gives the wall time of the whole run, to a tick.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "startup.h"

#define MAX_MARKS 16

static struct {
	const char *phase;
	struct timespec at;
} marks[MAX_MARKS];
static int nmarks;
static struct timespec main_at, before_main;
static bool started;

static double
ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

void
startup_begin(void)
{
	(void)clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &before_main);
	(void)clock_gettime(CLOCK_MONOTONIC, &main_at);
	nmarks = 0;
	started = false;
}

void
startup_mark(const char *phase)
{
	if (nmarks >= MAX_MARKS)
		return;
	marks[nmarks].phase = phase;
	(void)clock_gettime(CLOCK_MONOTONIC, &marks[nmarks].at);
	nmarks++;
}

void
startup_started(const char *phase)
{
	startup_mark(phase);
	started = true;
}

/* Milliseconds since the kernel started this process, or -1. */
static double
since_process_start(void)
{
	char buf[1024], *p;
	unsigned long long start;
	struct timespec now;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int field;

	if (hz <= 0 || (f = fopen("/proc/self/stat", "re")) == NULL)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* The name, in parentheses, may hold spaces: fields follow its ')'. */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL)
		return -1;
	/* starttime is field 22: p ends at the space before it. */
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p, " %llu", &start) != 1 ||
	    clock_gettime(CLOCK_BOOTTIME, &now) != 0)
		return -1;
	return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6 -
	    (double)start * 1e3 / (double)hz;
}

void
startup_report(void)
{
	char line[900];
	const struct timespec *prev = &main_at;
	struct timespec now;
	size_t n;
	double wall;
	int i;

	if (!started)
		return;
	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	n = (size_t)snprintf(line, sizeof(line),
	    "start: before main (fork, exec, dynamic linking; CPU time) "
	    "%.1f ms",
	    (double)before_main.tv_sec * 1e3 +
		(double)before_main.tv_nsec / 1e6);
	for (i = 0; i < nmarks && n < sizeof(line); i++) {
		n +=
		    (size_t)snprintf(line + n, sizeof(line) - n, ", %s %.1f ms",
			marks[i].phase, ms_between(prev, &marks[i].at));
		prev = &marks[i].at;
	}
	if (n < sizeof(line))
		n += (size_t)snprintf(line + n, sizeof(line) - n,
		    ", end %.1f ms; from main %.1f ms", ms_between(prev, &now),
		    ms_between(&main_at, &now));
	if (n < sizeof(line) && (wall = since_process_start()) >= 0)
		(void)snprintf(line + n, sizeof(line) - n,
		    "; from the process's start %.0f ms (to 1/%ld s)", wall,
		    sysconf(_SC_CLK_TCK));
	diag_debug("%s\n", line);
}
