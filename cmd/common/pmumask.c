/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which events count per socket: their PMU's cpumask in
 * bus/event_source/devices (see pmumask.h).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "diag.h"
#include "pmumask.h"
#include "spec.h"

#define DEVICES "bus/event_source/devices"

bool
pmumask_pmu(const char *event, char *pmu, size_t size)
{
	const char *slash = strchr(event, '/');
	size_t n;

	if (slash == NULL || slash == event ||
	    (n = (size_t)(slash - event)) >= size)
		return false;
	memcpy(pmu, event, n);
	pmu[n] = '\0';
	return true;
}

/* One PMU directory's cpumask, added to cpus: 0, or -1 without one. */
static int
add_cpumask(const char *root, const char *dir, cpu_set_t *cpus)
{
	char path[512], list[4096];
	cpu_set_t one;
	FILE *f;
	int r = -1;

	snprintf(path, sizeof(path), "%s/" DEVICES "/%s/cpumask", root, dir);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(list, sizeof(list), f) != NULL) {
		list[strcspn(list, "\n")] = '\0';
		if (list[0] != '\0' && cpus_parse_list(list, &one) == 0) {
			CPU_OR(cpus, cpus, &one);
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/* Whether dir is a box of pmu: pmu, "_", and a number. */
static bool
is_box(const char *dir, const char *pmu)
{
	size_t n = strlen(pmu);
	const char *d;

	if (strncmp(dir, pmu, n) != 0 || dir[n] != '_' || dir[n + 1] == '\0')
		return false;
	for (d = dir + n + 1; *d != '\0'; d++)
		if (*d < '0' || *d > '9')
			return false;
	return true;
}

int
pmumask_cpus(const char *root, const char *event, cpu_set_t *cpus)
{
	char pmu[256], path[512];
	struct dirent *e;
	int r = -1;
	DIR *d;

	CPU_ZERO(cpus);
	if (!pmumask_pmu(event, pmu, sizeof(pmu)))
		return -1;
	snprintf(path, sizeof(path), "%s/" DEVICES "/%s", root, pmu);
	if ((d = opendir(path)) != NULL) {
		closedir(d);
		return add_cpumask(root, pmu, cpus);
	}
	snprintf(path, sizeof(path), "%s/" DEVICES, root);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (is_box(e->d_name, pmu) &&
		    add_cpumask(root, e->d_name, cpus) == 0)
			r = 0;
	closedir(d);
	return r;
}

void
pmumask_scan(const char *root, const setgrp_t *g, struct pmumask_use *u)
{
	const struct spec *spec;
	cpu_set_t one;
	int s, r;

	memset(u, 0, sizeof(*u));
	CPU_ZERO(&u->cpus);
	for (s = 0; s < setgrp_nsets(g); s++) {
		spec = setgrp_spec(g, s);
		for (r = 0; r < spec->nreqs; r++) {
			if (pmumask_cpus(root, spec->reqs[r].event, &one) ==
			    0) {
				CPU_OR(&u->cpus, &u->cpus, &one);
				if (u->socket_reqs++ == 0)
					u->socket_event = spec->reqs[r].event;
			} else if (u->cpu_reqs++ == 0) {
				u->cpu_event = spec->reqs[r].event;
			}
		}
	}
}

bool
pmumask_refuse_threads(const char *root, const setgrp_t *g)
{
	struct pmumask_use u;
	char pmu[256];

	pmumask_scan(root, g, &u);
	if (u.socket_reqs == 0)
		return false;
	(void)pmumask_pmu(u.socket_event, pmu, sizeof(pmu));
	diag(NULL,
	    "%s: PMU '%s' counts a whole socket, on the CPU its cpumask "
	    "names, never a thread; count it with cpustat\n",
	    u.socket_event, pmu);
	return true;
}

bool
pmumask_refuse_mixed(const struct pmumask_use *u)
{
	char pmu[256];

	if (u->socket_reqs == 0 || u->cpu_reqs == 0)
		return false;
	(void)pmumask_pmu(u->socket_event, pmu, sizeof(pmu));
	diag(NULL,
	    "%s: PMU '%s' counts once per socket, on the CPUs its cpumask "
	    "names, and %s on every CPU: count them with two cpustats\n",
	    u->socket_event, pmu, u->cpu_event);
	return true;
}
