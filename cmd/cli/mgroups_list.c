/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --list's metric groups (see mgroups_list.h): each group once, after the
 * events, as a kind of its own: its description and whether this
 * machine counts it, with the variant it takes or why not; in JSON, one
 * object per group with its variants, events and metrics.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "mgroups.h"
#include "mgroups_list.h"
#include "out_json.h"

/* The first entry of the table with g's name: a group is listed once. */
static bool
first_of_name(int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (strcmp(mgroup_table[j].name, mgroup_table[i].name) == 0)
			return false;
	return true;
}

static json_t *
metrics_json(const struct mgroup *g)
{
	json_t *a = json_array();
	struct out_json_obj m;
	int i;

	for (i = 0; a != NULL && i < g->nmetrics; i++) {
		m = (struct out_json_obj) { json_object(), true };
		out_json_put(&m, "key", json_string(g->metrics[i].key));
		out_json_put(&m, "name", json_string(g->metrics[i].name));
		out_json_put(&m, "unit", json_string(g->metrics[i].unit));
		out_json_put(&m, "formula", json_string(g->metrics[i].formula));
		out_json_put(&m, "means", json_string(g->metrics[i].means));
		json_array_append_new(a, m.ok ? m.json : json_null());
		if (!m.ok)
			json_decref(m.json);
	}
	return a;
}

static json_t *
events_json(const struct mgroup *g)
{
	json_t *a = json_array();
	const char *pos = NULL;
	char ev[128];

	while (a != NULL && mgroup_next_event(g, &pos, ev, sizeof(ev)))
		json_array_append_new(a, json_string(ev));
	return a;
}

static json_t *
variants_json(const char *name)
{
	const struct mgroup *g;
	struct out_json_obj v;
	json_t *a = json_array();
	int i;

	for (i = 0; a != NULL && i < mgroup_ntable; i++) {
		g = &mgroup_table[i];
		if (strcmp(g->name, name) != 0)
			continue;
		v = (struct out_json_obj) { json_object(), true };
		out_json_put(&v, "for", json_string(g->applies));
		out_json_put(&v, "events",
		    g->events != NULL ? events_json(g) : json_null());
		out_json_put(&v, "metrics", metrics_json(g));
		out_json_put(&v, "source", json_string(g->source));
		json_array_append_new(a, v.ok ? v.json : json_null());
		if (!v.ok)
			json_decref(v.json);
	}
	return a;
}

static void
json_group(FILE *out, const struct mgroup *g, const struct mgroup *here,
    const char *why)
{
	struct out_json_obj o = { json_object(), true };
	char *text;

	out_json_put(&o, "name", json_string(g->name));
	out_json_put(&o, "kind", json_string("metric group"));
	out_json_put(&o, "description", json_string(g->desc));
	out_json_put(&o, "countable", json_boolean(here != NULL));
	out_json_put(&o, "variant",
	    here != NULL ? json_string(here->applies) : json_null());
	out_json_put(
	    &o, "why_not", here == NULL ? json_string(why) : json_null());
	out_json_put(&o, "variants", variants_json(g->name));
	text = o.ok ? json_dumps(o.json, JSON_COMPACT) : NULL;
	json_decref(o.json);
	if (text != NULL)
		fprintf(out, "%s\n", text);
	free(text);
}

int
mgroups_list(cpc_t *cpc, const char *glob, struct list_style *style, FILE *out)
{
	const struct mgroup *g, *here;
	char why[1024], desc[1536];
	int i, n = 0;

	for (i = 0; i < mgroup_ntable; i++) {
		g = &mgroup_table[i];
		if (!first_of_name(i) ||
		    (glob != NULL && fnmatch(glob, g->name, 0) != 0))
			continue;
		why[0] = '\0';
		here = mgroup_resolve(cpc, g->name, why, sizeof(why));
		if (style->format == LIST_JSON) {
			json_group(out, g, here, why);
			n++;
			continue;
		}
		if (here != NULL)
			snprintf(desc, sizeof(desc), "%s; counted here (%s)",
			    g->desc, here->applies);
		else
			snprintf(desc, sizeof(desc), "%s; not here: %s",
			    g->desc, why);
		list_line(out, style, g->name, "metric group", desc);
		n++;
	}
	return n;
}
