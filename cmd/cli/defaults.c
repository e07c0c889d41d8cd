/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The default events (see defaults.h). Which events are perf stat's is a
 * table; whether this machine counts one is libcpc's answer.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"

/* Capability bits, as /proc/self/status's CapEff numbers them. */
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT	  38

/* What an event needs besides perf_event_open itself. */
enum needs {
	NEEDS_NOTHING,
	NEEDS_KERNEL, /* the kernel counts it in its own context only */
	NEEDS_PMU     /* a hardware event */
};

struct default_event {
	const char *cputrack; /* per process */
	const char *cpustat;  /* per CPU */
	enum needs needs;
};

static const struct default_event defaults[] = {
	{ "task-clock", "cpu-clock", NEEDS_NOTHING },
	{ "context-switches", "context-switches", NEEDS_KERNEL },
	{ "cpu-migrations", "cpu-migrations", NEEDS_KERNEL },
	{ "page-faults", "page-faults", NEEDS_NOTHING },
	{ "cycles", "cycles", NEEDS_PMU },
	{ "instructions", "instructions", NEEDS_PMU },
	{ "branches", "branches", NEEDS_PMU },
	{ "branch-misses", "branch-misses", NEEDS_PMU },
};

#define NDEFAULTS (sizeof(defaults) / sizeof(defaults[0]))

/* Why the events left out were, for the line that names the columns. */
static char left_out_note[256];

static int
paranoid_level(void)
{
	FILE *f;
	int level = 2;

	if ((f = fopen("/proc/sys/kernel/perf_event_paranoid", "re")) != NULL) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level;
}

/* CAP_PERFMON or CAP_SYS_ADMIN in the effective set. */
static bool
may_monitor(void)
{
	unsigned long long eff = 0;
	char line[128];
	FILE *f;

	if ((f = fopen("/proc/self/status", "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "CapEff:", 7) == 0) {
			eff = strtoull(line + 7, NULL, 16);
			break;
		}
	fclose(f);
	return (eff & (1ULL << CAP_PERFMON_BIT)) != 0 ||
	    (eff & (1ULL << CAP_SYS_ADMIN_BIT)) != 0;
}

bool
defaults_kernel_countable(void)
{
	return paranoid_level() <= 1 || may_monitor();
}

/* Append to text (of len, used n) with sep before all but the first. */
static size_t
append(char *text, size_t len, size_t n, const char *sep, const char *s)
{
	int w = snprintf(
	    text + n, n < len ? len - n : 0, "%s%s", n > 0 ? sep : "", s);

	return w > 0 ? n + (size_t)w : n;
}

/* "no PMU here counts cycles, ..." or the kernel's rule, for those left out. */
static void
note_left_out(const char *no_pmu, const char *no_kernel)
{
	size_t n = 0;

	left_out_note[0] = '\0';
	if (no_pmu[0] != '\0')
		n = append(left_out_note, sizeof(left_out_note), n, "",
		    "no PMU here counts ");
	n = append(left_out_note, sizeof(left_out_note), n, "", no_pmu);
	if (no_kernel[0] != '\0') {
		n = append(
		    left_out_note, sizeof(left_out_note), n, "; ", no_kernel);
		(void)append(left_out_note, sizeof(left_out_note), n, "",
		    ": the kernel counts them in its own context, which "
		    "kernel.perf_event_paranoid allows only up to 1 or with "
		    "CAP_PERFMON");
	}
}

int
defaults_spec(cpc_t *cpc, enum out_tool tool, char *text, size_t len)
{
	char no_pmu[128] = "", no_kernel[128] = "";
	bool kernel = defaults_kernel_countable();
	const struct default_event *d;
	const char *name;
	size_t i, n = 0, np = 0, nk = 0;
	int left = 0;

	text[0] = '\0';
	for (i = 0; i < NDEFAULTS; i++) {
		d = &defaults[i];
		name = tool == OUT_CPUSTAT ? d->cpustat : d->cputrack;
		if (d->needs == NEEDS_PMU &&
		    cpc_event_status(cpc, name, NULL, 0) !=
			CPC_EVENT_COUNTABLE) {
			np = append(no_pmu, sizeof(no_pmu), np, ", ", name);
			left++;
		} else if (d->needs == NEEDS_KERNEL && !kernel) {
			nk = append(
			    no_kernel, sizeof(no_kernel), nk, ", ", name);
			left++;
		} else {
			n = append(text, len, n, ",", name);
		}
	}
	if (kernel)
		(void)append(text, len, n, ",", "sys");
	note_left_out(no_pmu, no_kernel);
	return left;
}

int
defaults_add(setgrp_t *specs, cpc_t *cpc, enum out_tool tool, const char **note)
{
	char text[256];

	*note = defaults_spec(cpc, tool, text, sizeof(text)) > 0 ?
	    left_out_note :
	    NULL;
	return setgrp_add(specs, text);
}

void
defaults_print(cpc_t *cpc, enum out_tool tool, FILE *out)
{
	char text[256];

	fprintf(out, "\n\tdefault events (without -c): ");
	if (defaults_spec(cpc, tool, text, sizeof(text)) > 0)
		fprintf(out, "%s\n\t(%s)\n", text, left_out_note);
	else
		fprintf(out, "%s\n", text);
}
