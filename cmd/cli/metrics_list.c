/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --list's metrics (see metrics_list.h). Each name once, from the first
 * data that has it (the model's, then the names older perf releases gave
 * it, then perf's metrics of every CPU), as -M looks names up. Whether
 * this machine counts one is its plan's answer, each event asked of libcpc
 * once; a metric's events are those a plan of the data alone names, as
 * --input's records must hold them.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "metric_model.h"
#include "metric_plan.h"
#include "metrics_list.h"
#include "out_json.h"

#define MAX_LAYERS 8
#define MAX_EVENTS 256
#define MAX_CACHED 2048

/* libcpc's answers about events, asked once each. */
struct kind_cache {
	cpc_t *cpc;
	int n;
	struct {
		char *event;
		enum metric_event_kind kind;
		char *why;
	} e[MAX_CACHED];
};

static enum metric_event_kind
cached_kind(
    void *arg, const char *event, const char *name, char *why, size_t len)
{
	struct kind_cache *c = arg;
	char line[512] = "";
	const char *at;
	enum metric_event_kind kind;
	int i;

	(void)name;
	for (i = 0; i < c->n; i++)
		if (strcmp(c->e[i].event, event) == 0) {
			snprintf(why, len, "%s", c->e[i].why);
			return c->e[i].kind;
		}
	if (cpc_event_status(c->cpc, event, line, sizeof(line)) !=
	    CPC_EVENT_COUNTABLE) {
		kind = METRIC_EVENT_UNKNOWN;
		at = strstr(line, ": ");
		snprintf(why, len, "%s", at != NULL ? at + 2 : line);
		why[strcspn(why, "\n")] = '\0';
	} else {
		kind = cpc_event_cpumask(c->cpc, event, 0) != NULL ?
		    METRIC_EVENT_SOCKET :
		    METRIC_EVENT_CORE;
		why[0] = '\0';
	}
	if (c->n < MAX_CACHED && (c->e[c->n].event = strdup(event)) != NULL) {
		c->e[c->n].kind = kind;
		if ((c->e[c->n].why = strdup(why)) != NULL)
			c->n++;
		else
			free(c->e[c->n].event);
	}
	return kind;
}

static void
cache_free(struct kind_cache *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		free(c->e[i].event);
		free(c->e[i].why);
	}
	c->n = 0;
}

/* What the listing needs of the machine and the data. */
struct listing {
	cpc_t *cpc;
	enum out_tool tool;
	struct metric_env env;
	const struct metric_model *layers[MAX_LAYERS];
	int nlayers;
	struct kind_cache *cache;
	struct list_style *style;
	bool json;
	FILE *out;
	int printed;
};

static void
set_layers(struct listing *l)
{
	const struct metric_model *m = metric_model_of(l->env.cpuid), *leg;
	int i;

	l->nlayers = 0;
	if (m != NULL)
		l->layers[l->nlayers++] = m;
	for (i = 0; (leg = metric_model_legacy(m, i)) != NULL &&
	     l->nlayers < MAX_LAYERS - 1;
	     i++)
		l->layers[l->nlayers++] = leg;
	if (metric_model_common() != NULL)
		l->layers[l->nlayers++] = metric_model_common();
}

static const struct metric_def *
def_at(const struct metric_model *m, int i)
{
	return &metric_defs[m->metric0 + i];
}

/* Whether a metric of an earlier layer, or earlier in this, has name. */
static bool
named_before(const struct listing *l, int layer, int i, const char *name)
{
	int k, j, end;

	for (k = 0; k <= layer; k++) {
		end = k == layer ? i : l->layers[k]->nmetrics;
		for (j = 0; j < end; j++)
			if (strcasecmp(
				metric_str(def_at(l->layers[k], j)->name),
				name) == 0)
				return true;
	}
	return false;
}

/* Whether group g (len bytes at g) is a group of a metric before. */
static bool
group_before(
    const struct listing *l, int layer, int i, const char *g, size_t len)
{
	const char *list;
	size_t n;
	int k, j, end;

	for (k = 0; k <= layer; k++) {
		end = k == layer ? i + 1 : l->layers[k]->nmetrics;
		for (j = 0; j < end; j++) {
			list = metric_str(def_at(l->layers[k], j)->groups);
			if (k == layer && j == i)
				list = ""; /* its own: only earlier ones */
			for (; *list != '\0'; list += n + (list[n] == ';')) {
				n = strcspn(list, ";");
				if (n == len && strncasecmp(list, g, n) == 0)
					return true;
			}
		}
	}
	return false;
}

/*
 * The plan of name on this machine (countable: NULL why) and, where
 * events is not NULL, a plan of the data alone, for its events.
 */
static struct metric_plan *
plan_of(struct listing *l, const char *name, bool probe, char *why, size_t len)
{
	struct metric_ask ask = {
		.names = name,
		.per_thread = l->tool == OUT_CPUTRACK,
		.core_pmu =
		    l->cpc != NULL ? cpc_core_pmu(l->cpc, 0, NULL) : NULL,
		.event_kind = probe && l->cpc != NULL ? cached_kind : NULL,
		.arg = l->cache,
	};

	why[0] = '\0';
	return metric_plan_new(
	    l->layers[0] == metric_model_common() ? NULL : l->layers[0],
	    &l->env, &ask, why, len, NULL, 0);
}

/* "counted here", or "not here: why". */
static void
here_text(struct listing *l, const char *name, char *buf, size_t len)
{
	struct metric_plan *p;
	char why[1024];
	const char *at;

	if ((p = plan_of(l, name, true, why, sizeof(why))) != NULL) {
		snprintf(buf, len, "counted here");
		metric_plan_free(p);
		return;
	}
	/* The plan's line starts with the name: the reason alone. */
	at = strncasecmp(why, name, strlen(name)) == 0 &&
		why[strlen(name)] == ':' ?
	    why + strlen(name) + 2 :
	    why;
	snprintf(buf, len, "not here: %s", at);
}

static json_t *
events_json(struct listing *l, const char *name)
{
	const char *names[MAX_EVENTS];
	struct metric_plan *p;
	json_t *a = json_array();
	char why[512];
	int i, n, k;

	if ((p = plan_of(l, name, false, why, sizeof(why))) == NULL)
		return a;
	for (i = 0; a != NULL && i < metric_plan_nmetrics(p); i++) {
		if (strcasecmp(metric_plan_metric(p, i)->name, name) != 0)
			continue;
		n = metric_plan_metric_events(p, i, names, MAX_EVENTS);
		for (k = 0; k < n && k < MAX_EVENTS; k++)
			json_array_append_new(a, json_string(names[k]));
	}
	metric_plan_free(p);
	return a;
}

static void
emit(struct listing *l, struct out_json_obj *o)
{
	char *text = o->ok ? json_dumps(o->json, JSON_COMPACT) : NULL;

	json_decref(o->json);
	if (text != NULL)
		fprintf(l->out, "%s\n", text);
	free(text);
	l->printed++;
}

static json_t *
list_json(const char *list)
{
	json_t *a = json_array();
	size_t n;

	for (; a != NULL && *list != '\0'; list += n + (list[n] == ';')) {
		n = strcspn(list, ";");
		if (n > 0)
			json_array_append_new(a, json_stringn(list, n));
	}
	return a;
}

static void
list_metric(
    struct listing *l, const struct metric_model *m, const struct metric_def *d)
{
	const char *name = metric_str(d->name);
	struct out_json_obj o;
	char here[1200], desc[2048];

	here_text(l, name, here, sizeof(here));
	if (!l->json) {
		snprintf(desc, sizeof(desc), "%s%s%s; %s",
		    metric_str(d->groups),
		    metric_str(d->scale_unit)[0] ? "; " : "",
		    metric_str(d->scale_unit), here);
		list_line(l->out, l->style, name, "metric", desc);
		l->printed++;
		return;
	}
	o = (struct out_json_obj) { json_object(), true };
	out_json_put(&o, "name", json_string(name));
	out_json_put(&o, "kind", json_string("metric"));
	out_json_put(&o, "model", json_string(metric_str(m->tag)));
	out_json_put(&o, "source", json_string(metric_str(m->source)));
	out_json_put(&o, "pmu", json_string(metric_str(d->pmu)));
	out_json_put(&o, "groups", list_json(metric_str(d->groups)));
	out_json_put(&o, "scale_unit", json_string(metric_str(d->scale_unit)));
	out_json_put(&o, "formula", json_string(metric_str(d->expr)));
	out_json_put(&o, "threshold",
	    metric_str(d->threshold)[0] ?
		json_string(metric_str(d->threshold)) :
		json_null());
	out_json_put(&o, "events", events_json(l, name));
	out_json_put(
	    &o, "countable", json_boolean(strcmp(here, "counted here") == 0));
	out_json_put(&o, "why_not",
	    strncmp(here, "not here: ", 10) == 0 ? json_string(here + 10) :
						   json_null());
	emit(l, &o);
}

/* The names of the metrics -M takes for a group, as the data has them. */
static json_t *
members_json(struct listing *l, const char *group)
{
	struct metric_plan *p;
	json_t *a = json_array();
	char why[512];
	int i;

	if ((p = plan_of(l, group, false, why, sizeof(why))) == NULL)
		return a;
	for (i = 0; a != NULL && i < metric_plan_nmetrics(p); i++)
		json_array_append_new(
		    a, json_string(metric_plan_metric(p, i)->key));
	metric_plan_free(p);
	return a;
}

static void
list_group(
    struct listing *l, const struct metric_model *m, const char *g, size_t len)
{
	char name[256], here[1200], desc[8192], *text;
	struct out_json_obj o;
	json_t *members;

	snprintf(name, sizeof(name), "%.*s", (int)len, g);
	here_text(l, name, here, sizeof(here));
	members = members_json(l, name);
	if (!l->json) {
		text = json_dumps(members, JSON_COMPACT);
		snprintf(desc, sizeof(desc), "%zu metrics of %s: %s; %s",
		    json_array_size(members), metric_str(m->tag),
		    text != NULL ? text : "", here);
		list_line(l->out, l->style, name, "metric group", desc);
		free(text);
		json_decref(members);
		l->printed++;
		return;
	}
	o = (struct out_json_obj) { json_object(), true };
	out_json_put(&o, "name", json_string(name));
	out_json_put(&o, "kind", json_string("metric group"));
	out_json_put(&o, "model", json_string(metric_str(m->tag)));
	out_json_put(&o, "source", json_string(metric_str(m->source)));
	out_json_put(&o, "metrics", members);
	out_json_put(
	    &o, "countable", json_boolean(strcmp(here, "counted here") == 0));
	out_json_put(&o, "why_not",
	    strncmp(here, "not here: ", 10) == 0 ? json_string(here + 10) :
						   json_null());
	emit(l, &o);
}

/* Each group of metric i of layer k not listed before, matching glob. */
static void
list_groups_of(struct listing *l, int k, int i, const char *glob)
{
	const char *list = metric_str(def_at(l->layers[k], i)->groups);
	char g[256];
	size_t n;

	for (; *list != '\0'; list += n + (list[n] == ';')) {
		n = strcspn(list, ";");
		if (n == 0 || n >= sizeof(g) || group_before(l, k, i, list, n))
			continue;
		snprintf(g, sizeof(g), "%.*s", (int)n, list);
		if (glob == NULL || fnmatch(glob, g, 0) == 0)
			list_group(l, l->layers[k], list, n);
	}
}

int
metrics_list(cpc_t *cpc, enum out_tool tool, const char *glob,
    struct list_style *style, FILE *out)
{
	struct kind_cache *cache = calloc(1, sizeof(*cache));
	struct listing l = { .cpc = cpc,
		.tool = tool,
		.style = style,
		.json = style->format == LIST_JSON,
		.out = out,
		.cache = cache };
	const char *name;
	int k, i;

	if (cache == NULL)
		return 0;
	cache->cpc = cpc;
	if (metric_env_host(&l.env, "/sys",
		cpc != NULL ? cpc_core_pmu(cpc, 0, NULL) : NULL,
		tool == OUT_CPUSTAT, NULL) != 0 ||
	    metric_cpuid("/sys", l.env.cpuid, sizeof(l.env.cpuid)) != 0)
		l.env.cpuid[0] = '\0';
	set_layers(&l);
	for (k = 0; k < l.nlayers; k++)
		for (i = 0; i < l.layers[k]->nmetrics; i++) {
			list_groups_of(&l, k, i, glob);
			name = metric_str(def_at(l.layers[k], i)->name);
			if (!named_before(&l, k, i, name) &&
			    (glob == NULL || fnmatch(glob, name, 0) == 0))
				list_metric(
				    &l, l.layers[k], def_at(l.layers[k], i));
		}
	cache_free(cache);
	free(cache);
	return l.printed;
}
