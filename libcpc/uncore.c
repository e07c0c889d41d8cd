/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the commands need to know of the PMUs that count for a whole
 * socket (uncore, RAPL's power, cstate_pkg): the CPUs their cpumask names,
 * and what sysfs says one count of their events is worth. Both are read
 * from the PMUs that an event resolves to (sysfs_pmu.c), so that a PMU of
 * boxes (uncore_imc_0 .. uncore_imc_N) answers box by box.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evname.h"

/* The PMU of an event's term t, where sysfs describes it. */
static const struct sysfs_pmu *
term_pmu(cpc_t *cpc, const struct ev_entry_view *v, int t)
{
	if (t < 0 || t >= v->enc.nterms)
		return NULL;
	return cpclib_sysfs_pmu_of_type(cpc, v->enc.term[t].attr.type);
}

const char *
cpc_event_cpumask(cpc_t *cpc, const char *event, int i)
{
	const struct sysfs_pmu *pmu;
	struct ev_entry_view v;

	if (cpc == NULL || event == NULL || i < 0 ||
	    !cpclib_event_view(cpc, event, &v) ||
	    v.status != CPC_EVENT_COUNTABLE ||
	    (pmu = term_pmu(cpc, &v, i)) == NULL)
		return NULL;
	return pmu->cpumask;
}

const char *
cpc_event_box(cpc_t *cpc, const char *event, int i)
{
	const struct sysfs_pmu *pmu;
	struct ev_entry_view v;

	if (cpc == NULL || event == NULL || i < 0 ||
	    !cpclib_event_view(cpc, event, &v) ||
	    v.status != CPC_EVENT_COUNTABLE || !v.enc.boxes ||
	    (pmu = term_pmu(cpc, &v, i)) == NULL)
		return NULL;
	return pmu->name;
}

/*
 * The name a PMU gives the event: "energy-pkg" of "power/energy-pkg/"
 * and of "energy-pkg:u"; false for terms ("event=0x04,umask=0x0f").
 */
static bool
alias_of(const char *event, char *alias, size_t size)
{
	const char *open = strchr(event, '/'), *close;
	size_t n;

	if (open == NULL) {
		n = strcspn(event, ":");
		open = event - 1;
	} else if ((close = strchr(open + 1, '/')) == NULL) {
		return false;
	} else {
		n = (size_t)(close - open - 1);
	}
	if (n == 0 || n >= size)
		return false;
	memcpy(alias, open + 1, n);
	alias[n] = '\0';
	return strpbrk(alias, "=,") == NULL;
}

/* The first line of PMU's events/ALIAS.SUFFIX, not empty, or false. */
static bool
read_event_file(const struct sysfs_pmu *pmu, const char *alias,
    const char *suffix, char *buf, size_t size)
{
	char path[1024];
	FILE *f;
	bool ok;

	if (!cpclib_pmu_path(path, sizeof(path), "/%s/events/%s.%s", pmu->name,
		alias, suffix) ||
	    (f = fopen(path, "re")) == NULL)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] != '\0';
}

int
cpc_event_scale(
    cpc_t *cpc, const char *event, double *scale, char *unit, size_t len)
{
	const struct sysfs_pmu *pmu;
	struct ev_entry_view v;
	char alias[256], text[64], *end;
	bool scaled = false, named = false;
	double x;

	if (cpc == NULL || event == NULL || scale == NULL ||
	    (unit == NULL && len > 0)) {
		errno = EINVAL;
		return -1;
	}
	*scale = 1;
	if (len > 0)
		unit[0] = '\0';
	/* Boxes share their events: the first box's files are theirs. */
	if (!alias_of(event, alias, sizeof(alias)) ||
	    !cpclib_event_view(cpc, event, &v) ||
	    v.status != CPC_EVENT_COUNTABLE ||
	    (pmu = term_pmu(cpc, &v, 0)) == NULL ||
	    cpclib_sysfs_alias(pmu, alias) == NULL)
		return 0;
	if (read_event_file(pmu, alias, "scale", text, sizeof(text))) {
		x = strtod(text, &end);
		/* A scale that is no positive number is not applied. */
		if (*end == '\0' && isfinite(x) && x > 0) {
			*scale = x;
			scaled = true;
		}
	}
	if (len > 0)
		named = read_event_file(pmu, alias, "unit", unit, len);
	return scaled || named ? 1 : 0;
}
