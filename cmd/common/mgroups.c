/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which variant of a metric group this machine counts (see mgroups.h):
 * libcpc's answer for each of its events, and its counters' number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mgroups.h"

const struct mgroup *
mgroup_default(void)
{
	return &mgroup_table[0];
}

bool
mgroup_known(const char *name)
{
	int i;

	for (i = 0; i < mgroup_ntable; i++)
		if (strcasecmp(mgroup_table[i].name, name) == 0)
			return true;
	return false;
}

bool
mgroup_next_event(
    const struct mgroup *g, const char **pos, char *ev, size_t len)
{
	const char *s = *pos != NULL ? *pos : g->events;
	bool slash = false;
	size_t n = 0;

	if (s == NULL)
		return false;
	while (*s == ',' || *s == '{' || *s == '}')
		s++;
	if (*s == '\0')
		return false;
	/* A term list's commas are the event's: amd_df/event=1,umask=2/. */
	for (; *s != '\0' && (slash || (*s != ',' && *s != '}')); s++) {
		if (*s == '/')
			slash = !slash && strchr(s + 1, '/') != NULL;
		if (n + 1 < len)
			ev[n++] = *s;
	}
	ev[n] = '\0';
	*pos = s;
	return true;
}

/* The reason an event of a status is not counted here, in words. */
static void
reason(cpc_t *cpc, const char *ev, cpc_event_status_t st, const char *why,
    char *out, size_t len)
{
	bool no_pmu =
	    cpc_event_status(cpc, "cycles", NULL, 0) == CPC_EVENT_NO_PMU;

	if (st == CPC_EVENT_UNKNOWN && strchr(ev, '/') != NULL)
		snprintf(out, len, "no such PMU or event in this kernel");
	else if (st == CPC_EVENT_UNKNOWN && no_pmu)
		snprintf(out, len,
		    "this kernel has no hardware PMU (a VM without a virtual "
		    "PMU?)");
	else if (st == CPC_EVENT_UNKNOWN)
		snprintf(out, len, "this CPU has no such event");
	else if (st == CPC_EVENT_NO_PMU)
		snprintf(out, len,
		    "a hardware event, and this kernel has no hardware PMU");
	else if (strncmp(why, ev, strlen(ev)) == 0 &&
	    strncmp(why + strlen(ev), ": ", 2) == 0)
		snprintf(out, len, "%s", why + strlen(ev) + 2);
	else
		snprintf(
		    out, len, "%s", why[0] != '\0' ? why : "not countable");
}

/*
 * Whether g's first event counts here; the first that does not and why
 * in missing (len bytes; "" when all do).
 */
static bool
first_counts(cpc_t *cpc, const struct mgroup *g, char *missing, size_t len)
{
	char ev[128], why[512], words[512];
	const char *pos = NULL;
	cpc_event_status_t st;
	bool first = true, first_ok = false;

	missing[0] = '\0';
	while (mgroup_next_event(g, &pos, ev, sizeof(ev))) {
		why[0] = '\0';
		st = cpc_event_status(cpc, ev, why, sizeof(why));
		if (first)
			first_ok = st == CPC_EVENT_COUNTABLE;
		first = false;
		if (st == CPC_EVENT_COUNTABLE || missing[0] != '\0')
			continue;
		reason(cpc, ev, st, why, words, sizeof(words));
		snprintf(missing, len, "%s: %s", ev, words);
	}
	return first_ok;
}

/*
 * Whether g's events fit at once: a counter (pic) each, as a set gives
 * them; else why. A socket PMU's events are groups of their own, with
 * which the kernel takes turns when they outnumber its counters: they
 * count, multiplexed, and the rows say so.
 */
static bool
fits(cpc_t *cpc, const struct mgroup *g, char *why, size_t len)
{
	const char *pos = NULL;
	char ev[128];
	uint_t need = 0, have = cpc_npic(cpc);

	while (mgroup_next_event(g, &pos, ev, sizeof(ev)))
		need++;
	if (g->pmu_counters > 0 || need <= have)
		return true;
	snprintf(why, len,
	    "%u events to count together, and this CPU has %u counters", need,
	    have);
	return false;
}

double
mgroup_core_slots(cpc_t *cpc)
{
	const char *pmu = cpc != NULL ? cpc_core_pmu(cpc, 0, NULL) : NULL;
	char path[256], line[64];
	unsigned long slots = 0;
	FILE *f;

	if (pmu == NULL)
		return 0;
	snprintf(path, sizeof(path),
	    "/sys/bus/event_source/devices/%s/caps/slots", pmu);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	if (fgets(line, sizeof(line), f) != NULL)
		slots = strtoul(line, NULL, 0);
	fclose(f);
	return (double)slots;
}

/*
 * Whether this CPU's core model is one of g's (any, where g names
 * none); else why.
 */
static bool
model_fits(cpc_t *cpc, const struct mgroup *g, char *why, size_t len)
{
	const char *name = cpc_cciname(cpc), *m = g->models;
	size_t n, own;

	if (m == NULL)
		return true;
	own = strcspn(name, "(:");
	while (own > 0 && name[own - 1] == ' ')
		own--;
	for (; *m != '\0'; m += n + (m[n] == '|')) {
		n = strcspn(m, "|");
		if (n == own && strncmp(m, name, n) == 0)
			return true;
	}
	snprintf(why, len,
	    "this CPU is %.*s, whose event numbers mean other events", (int)own,
	    name);
	return false;
}

/* Whether g is for the models it names, and this CPU is one of them. */
static bool
names_model(cpc_t *cpc, const struct mgroup *g)
{
	char why[256];

	return g->models != NULL && model_fits(cpc, g, why, sizeof(why));
}

/* Whether a formula of g reads the PMU's slots per cycle. */
static bool
reads_slots(const struct mgroup *g)
{
	int m;

	for (m = 0; m < g->nmetrics; m++)
		if (strstr(g->metrics[m].formula, "#slots") != NULL)
			return true;
	return false;
}

/*
 * The first variant of name whose events all count and fit; else NULL,
 * and why speaks of the first variant whose first event counts (the
 * CPU's own), or of the first that names no PMU, or of the first.
 */
const struct mgroup *
mgroup_resolve(cpc_t *cpc, const char *name, char *why, size_t len)
{
	const struct mgroup *g, *told = NULL;
	char missing[768];
	bool own;
	int rank, told_rank = -1;
	int i;

	for (i = 0; i < mgroup_ntable; i++) {
		g = &mgroup_table[i];
		if (strcasecmp(g->name, name) != 0)
			continue;
		if (g->events == NULL)
			return g;
		own = first_counts(cpc, g, missing, sizeof(missing));
		if (missing[0] == '\0' && reads_slots(g) &&
		    mgroup_core_slots(cpc) <= 0)
			snprintf(missing, sizeof(missing),
			    "#slots: the core PMU gives no slots per cycle "
			    "(caps/slots)");
		if (missing[0] == '\0' &&
		    model_fits(cpc, g, missing, sizeof(missing)) &&
		    fits(cpc, g, missing, sizeof(missing)))
			return g;
		/*
		 * Else of one of a PMU of its own (cpu_core/) last; first of
		 * one that names this CPU's model, whose events are numbers
		 * meant for it.
		 */
		if (names_model(cpc, g))
			rank = 3;
		else if (own)
			rank = 2;
		else
			rank = strchr(g->events, '/') == NULL ? 1 : 0;
		if (told == NULL || rank > told_rank) {
			told = g;
			told_rank = rank;
			snprintf(why, len, "%s; that variant is for %s",
			    missing, g->applies);
		}
	}
	if (told == NULL)
		snprintf(why, len, "no such metric group (--list names them)");
	return NULL;
}
