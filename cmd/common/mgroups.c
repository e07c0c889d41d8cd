/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which variant of a metric group this machine counts (see mgroups.h):
 * libcpc's answer for each of its events, and its counters' number.
 */
#include <limits.h>
#include <stdio.h>
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
	size_t n = 0;

	if (s == NULL)
		return false;
	while (*s == ',' || *s == '{' || *s == '}')
		s++;
	if (*s == '\0')
		return false;
	for (; *s != '\0' && *s != ',' && *s != '}'; s++)
		if (n + 1 < len)
			ev[n++] = *s;
	ev[n] = '\0';
	*pos = s;
	return true;
}

/*
 * Whether a counter of the core PMU counts it: not a software event or
 * tracepoint, not an event of a PMU of its own (uncore_imc/../, power/),
 * and not one of the TopDown metrics that the kernel reads beside slots
 * (topdown-*), which take no counter.
 */
static bool
takes_counter(cpc_t *cpc, const char *ev)
{
	const char *kind = cpc_event_kind(cpc, ev);

	if (kind == NULL || strchr(ev, '/') != NULL ||
	    strncmp(ev, "topdown-", 8) == 0)
		return false;
	return strcmp(kind, "hardware") == 0 || strcmp(kind, "cache") == 0 ||
	    strcmp(kind, "pmu") == 0 || strcmp(kind, "raw") == 0 ||
	    strcmp(kind, "libpfm4") == 0;
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
 * How many of g's events count here, with the first that does not and
 * why in missing (len bytes; "" when all do).
 */
static int
countable_events(cpc_t *cpc, const struct mgroup *g, char *missing, size_t len)
{
	char ev[128], why[512], words[512];
	const char *pos = NULL;
	cpc_event_status_t st;
	int n = 0;

	missing[0] = '\0';
	while (mgroup_next_event(g, &pos, ev, sizeof(ev))) {
		why[0] = '\0';
		st = cpc_event_status(cpc, ev, why, sizeof(why));
		if (st == CPC_EVENT_COUNTABLE) {
			n++;
			continue;
		}
		if (missing[0] == '\0') {
			reason(cpc, ev, st, why, words, sizeof(words));
			snprintf(missing, len, "%s: %s", ev, words);
		}
	}
	return n;
}

/* Whether g's counter events fit the core PMU at once; else why. */
static bool
fits(cpc_t *cpc, const struct mgroup *g, char *why, size_t len)
{
	const char *pos = NULL;
	char ev[128];
	uint_t need = 0, have = cpc_npic(cpc);

	while (mgroup_next_event(g, &pos, ev, sizeof(ev)))
		if (takes_counter(cpc, ev))
			need++;
	if (need <= have)
		return true;
	snprintf(why, len,
	    "%u events that must be counted together, and this CPU has %u "
	    "counters",
	    need, have);
	return false;
}

const struct mgroup *
mgroup_resolve(cpc_t *cpc, const char *name, char *why, size_t len)
{
	const struct mgroup *g, *best = NULL;
	char missing[768];
	int i, n, best_n = -1;

	for (i = 0; i < mgroup_ntable; i++) {
		g = &mgroup_table[i];
		if (strcasecmp(g->name, name) != 0)
			continue;
		if (g->events == NULL)
			return g;
		n = countable_events(cpc, g, missing, sizeof(missing));
		if (missing[0] == '\0' &&
		    !fits(cpc, g, missing, sizeof(missing)))
			n = INT_MAX; /* all there, too many: the reason to say
				      */
		else if (missing[0] == '\0')
			return g;
		if (best == NULL || n > best_n) {
			best = g;
			best_n = n;
			snprintf(why, len, "%s; that variant is for %s",
			    missing, g->applies);
		}
	}
	if (best == NULL)
		snprintf(why, len, "no such metric group (--list names them)");
	return NULL;
}
