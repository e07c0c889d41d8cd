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

struct default_event {
	const char *cputrack; /* per process */
	const char *cpustat;  /* per CPU */
	bool hardware;	      /* counted only where a PMU counts it */
};

static const struct default_event defaults[] = {
	{ "task-clock", "cpu-clock", false },
	{ "context-switches", "context-switches", false },
	{ "cpu-migrations", "cpu-migrations", false },
	{ "page-faults", "page-faults", false },
	{ "cycles", "cycles", true },
	{ "instructions", "instructions", true },
	{ "branches", "branches", true },
	{ "branch-misses", "branch-misses", true },
};

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

/* Whether the kernel lets this user count what runs in the kernel. */
static bool
kernel_countable(void)
{
	return paranoid_level() <= 1 || may_monitor();
}

int
defaults_spec(cpc_t *cpc, enum out_tool tool, char *text, size_t len)
{
	const char *name;
	int left_out = 0;
	size_t i, n = 0;

	text[0] = '\0';
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		name = tool == OUT_CPUSTAT ? defaults[i].cpustat :
					     defaults[i].cputrack;
		if (defaults[i].hardware &&
		    cpc_event_status(cpc, name, NULL, 0) !=
			CPC_EVENT_COUNTABLE) {
			left_out++;
			continue;
		}
		n += (size_t)snprintf(text + n, n < len ? len - n : 0, "%s%s",
		    n > 0 ? "," : "", name);
	}
	if (kernel_countable())
		n += (size_t)snprintf(text + n, n < len ? len - n : 0, ",sys");
	return left_out;
}

int
defaults_add(setgrp_t *specs, cpc_t *cpc, enum out_tool tool, bool *no_pmu)
{
	char text[256];

	*no_pmu = defaults_spec(cpc, tool, text, sizeof(text)) > 0;
	return setgrp_add(specs, text);
}
