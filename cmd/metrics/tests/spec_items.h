/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tests' reading of a plan's spec (metric_plan_spec): its events and
 * their groups, cut as perf's syntax cuts them (commas inside pmu/terms/
 * are the event's own; each {...} a group), and the name rows give each.
 */
#ifndef SPEC_ITEMS_H
#define SPEC_ITEMS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define SPEC_ITEMS_MAX 512

struct spec_items {
	char text[SPEC_ITEMS_MAX][512];
	int group[SPEC_ITEMS_MAX]; /* 1..ngroups, or 0 outside braces */
	int n, ngroups;
	bool outside; /* an event outside braces */
};

static inline void
spec_items_end(struct spec_items *it, char *buf, size_t *len, int depth)
{
	if (*len == 0 || it->n == SPEC_ITEMS_MAX)
		return;
	buf[*len] = '\0';
	snprintf(it->text[it->n], sizeof(it->text[0]), "%s", buf);
	it->group[it->n++] = depth > 0 ? it->ngroups : 0;
	it->outside |= depth == 0;
	*len = 0;
}

static inline void
spec_items_split(const char *spec, struct spec_items *it)
{
	char buf[512];
	size_t len = 0;
	bool terms = false;
	int depth = 0;

	memset(it, 0, sizeof(*it));
	for (; *spec != '\0'; spec++) {
		if (!terms && *spec == '{') {
			it->ngroups++;
			depth++;
		} else if (!terms && *spec == '}') {
			spec_items_end(it, buf, &len, depth--);
		} else if (!terms && *spec == ',') {
			spec_items_end(it, buf, &len, depth);
		} else if (len + 1 < sizeof(buf)) {
			terms ^= *spec == '/';
			buf[len++] = *spec;
		}
	}
	spec_items_end(it, buf, &len, depth);
}

/*
 * What rows call an event of a spec: its name= term; else the event
 * without its modes ("slots:uk" is slots, "cpu_atom/event=0x74/uk" is
 * cpu_atom/event=0x74/).
 */
static inline void
spec_item_name(const char *item, char *out, size_t len)
{
	const char *at = strstr(item, "name="), *slash = strrchr(item, '/');

	if (at != NULL)
		snprintf(out, len, "%.*s", (int)strcspn(at + 5, ",/"), at + 5);
	else if (slash != NULL)
		snprintf(out, len, "%.*s", (int)(slash - item + 1), item);
	else
		snprintf(out, len, "%.*s", (int)strcspn(item, ":"), item);
}

/* The first event of the spec that rows call name, or -1. */
static inline int
spec_item_find(const struct spec_items *it, const char *name)
{
	char row[256];
	int i;

	for (i = 0; i < it->n; i++) {
		spec_item_name(it->text[i], row, sizeof(row));
		if (strcmp(row, name) == 0)
			return i;
	}
	return -1;
}

#endif /* SPEC_ITEMS_H */
