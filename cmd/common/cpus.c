/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which CPUs to measure: online ones the caller may run on, the Linux
 * counterpart of a Solaris processor set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"

int
cpus_parse_list(const char *list, cpu_set_t *out)
{
	char *copy, *item, *rest, *dash;
	const char *e1, *e2;
	long long lo, hi, c;

	CPU_ZERO(out);
	if ((copy = strdup(list)) == NULL)
		return -1;
	for (rest = copy; (item = strsep(&rest, ",")) != NULL;) {
		if ((dash = strchr(item, '-')) != NULL)
			*dash = '\0';
		lo = strtonum(item, 0, CPU_SETSIZE - 1, &e1);
		hi = dash != NULL ?
		    strtonum(dash + 1, 0, CPU_SETSIZE - 1, &e2) :
		    lo;
		if (e1 != NULL || (dash != NULL && e2 != NULL) || hi < lo) {
			free(copy);
			return -1;
		}
		for (c = lo; c <= hi; c++)
			CPU_SET((int)c, out);
	}
	free(copy);
	return 0;
}

bool
cpu_is_online(int cpu)
{
	char path[80];
	FILE *f;
	int online = 1;

	snprintf(
	    path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	/* CPUs without the file cannot be taken offline. */
	if ((f = fopen(path, "r")) == NULL)
		return true;
	if (fscanf(f, "%d", &online) != 1)
		online = 0;
	fclose(f);
	return online == 1;
}

int
cpus_measurable(cpu_set_t *out, const cpu_set_t *want)
{
	cpu_set_t allowed, online;
	char buf[4096];
	FILE *f;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return -1;
	CPU_ZERO(&online);
	if ((f = fopen("/sys/devices/system/cpu/online", "r")) != NULL) {
		if (fgets(buf, sizeof(buf), f) != NULL) {
			buf[strcspn(buf, "\n")] = '\0';
			(void)cpus_parse_list(buf, &online);
		}
		fclose(f);
	}
	if (CPU_COUNT(&online) == 0)
		online = allowed;
	CPU_AND(out, &allowed, &online);
	if (want != NULL)
		CPU_AND(out, out, want);
	return 0;
}
