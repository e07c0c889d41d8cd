/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The event names nearest a misspelled one (see nearest.h).
 *
 * The distance is the optimal string alignment distance: the fewest
 * letters added, dropped or changed, or neighbours swapped, to make one
 * name the other. A name is near when it is at most a third of its
 * length away, and never more than NEAR_EDITS: "clok" is near "clock",
 * but "foo" is near nothing. It runs only when a name is refused, over
 * every event and tracepoint once.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nearest.h"

#define NEAR_EDITS 3

struct candidate {
	char name[CPC_MAX_EVENT_LEN];
	int distance;
};

struct search {
	const char *name;
	size_t len;
	struct candidate best[NEAREST_MAX];
	int nbest;
};

static bool
same(char a, char b)
{
	return tolower((unsigned char)a) == tolower((unsigned char)b);
}

static int
min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

int
nearest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int *block, *prev2, *prev, *row, *spare, d;

	/* Three rows: the one before the last, the last, and this one. */
	if ((block = calloc(3 * (lb + 1), sizeof(int))) == NULL)
		return (int)(la > lb ? la : lb);
	prev2 = block;
	prev = block + lb + 1;
	row = prev + lb + 1;
	for (j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (i = 1; i <= la; i++) {
		row[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			d = !same(a[i - 1], b[j - 1]);
			row[j] =
			    min3(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + d);
			if (i > 1 && j > 1 && d && same(a[i - 1], b[j - 2]) &&
			    same(a[i - 2], b[j - 1]) &&
			    prev2[j - 2] + 1 < row[j])
				row[j] = prev2[j - 2] + 1;
		}
		spare = prev2;
		prev2 = prev;
		prev = row;
		row = spare;
	}
	d = prev[lb];
	free(block);
	return d;
}

/* Keep the nearest, closest first; equals in the order they came. */
static void
consider(struct search *s, const char *event, int distance)
{
	int at, i;

	for (i = 0; i < s->nbest; i++)
		if (strcmp(s->best[i].name, event) == 0)
			return;
	for (at = s->nbest; at > 0 && s->best[at - 1].distance > distance; at--)
		;
	if (at >= NEAREST_MAX)
		return;
	if (s->nbest < NEAREST_MAX)
		s->nbest++;
	for (i = s->nbest - 1; i > at; i--)
		s->best[i] = s->best[i - 1];
	strlcpy(s->best[at].name, event, sizeof(s->best[at].name));
	s->best[at].distance = distance;
}

static void
visit(void *arg, const char *event, const char *kind, const char *desc)
{
	struct search *s = arg;
	size_t len = strlen(event);
	int limit, distance;

	(void)kind;
	(void)desc;
	limit = (int)(s->len < len ? s->len : len) / 3;
	if (limit > NEAR_EDITS)
		limit = NEAR_EDITS;
	/* Lengths alone put it too far: no need to compare. */
	if (limit == 0 ||
	    (len > s->len ? len - s->len : s->len - len) > (size_t)limit ||
	    len >= CPC_MAX_EVENT_LEN)
		return;
	if ((distance = nearest_distance(s->name, event)) <= limit &&
	    strcmp(s->name, event) != 0)
		consider(s, event, distance);
}

void
nearest_events(cpc_t *cpc, const char *name, char *buf, size_t len)
{
	struct search s = { .name = name, .len = strlen(name) };
	int i;

	if (len > 0)
		buf[0] = '\0';
	cpc_walk_events_described(cpc, &s, visit);
	for (i = 0; i < s.nbest; i++) {
		if (i > 0)
			strlcat(buf, ", ", len);
		strlcat(buf, s.best[i].name, len);
	}
}
