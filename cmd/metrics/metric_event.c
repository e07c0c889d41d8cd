/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The events a formula's names stand for (see metric_plan.h), in the forms
 * perf's metric files write them:
 *
 *   UOPS_ISSUED.ANY            an event of the model's own table: its
 *                              PMU's format terms (cpu/event=0xe,umask=0x1/)
 *   INST_RETIRED.ANY_P:k       the same, with modifiers
 *   cpu@EVENT\,cmask\=1@       PMU cpu: the event's terms, then these
 *   EVENT@thresh\=1@           the model's event, with more terms
 *   cha@event\=0x0@            terms of a PMU of boxes (uncore_cha_N)
 *   cstate_core@c6\-residency@ a PMU's own sysfs event
 *   topdown\-retiring, TSC     a name the kernel's PMUs or perf give
 *   duration_time              the row's elapsed time, in seconds
 *
 * A later term replaces an earlier one of the same name, as in perf.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metric_plan_impl.h"

#define MAX_TERMS 16
#define TERM_LEN  96
#define EVENT_LEN 512

/* An event's PMU, name and terms, before it is written for -c. */
struct event_text {
	char pmu[64];	/* "" for a bare name */
	char name[160]; /* the row's name for it, or "" */
	char terms[MAX_TERMS][TERM_LEN];
	int nterms;
	char bare[160]; /* a bare name, where there is no PMU */
	char mods[16];	/* its modifiers, or "" */
	bool software;	/* perf's software PMU named it: not the core's */
};

/* text without perf's escapes (\- \, \=). */
static void
unescape(const char *text, char *out, size_t len)
{
	size_t n = 0;

	for (; *text != '\0' && n + 1 < len; text++) {
		if (*text == '\\' && text[1] != '\0')
			text++;
		out[n++] = *text;
	}
	out[n] = '\0';
}

/* The model's event called name on the data's PMU pmu, any case. */
static const struct metric_event *
table_event(const struct metric_model *m, const char *pmu, const char *name)
{
	const struct metric_event *e;
	int i;

	for (i = 0; m != NULL && i < m->nevents; i++) {
		e = &metric_events[m->event0 + i];
		if (strcasecmp(metric_str(e->name), name) == 0 &&
		    (pmu == NULL || strcmp(metric_str(e->pmu), pmu) == 0))
			return e;
	}
	return NULL;
}

/*
 * The model's event called name of PMU pmu as perf names PMUs in a formula:
 * cha is the data's uncore_cha, pcu_0 a box of uncore_pcu.
 */
static const struct metric_event *
pmu_event(const struct metric_model *m, const char *pmu, const char *name)
{
	const struct metric_event *e;
	char stem[64], full[80];
	size_t n = strlen(pmu);

	while (n > 0 && isdigit((unsigned char)pmu[n - 1]))
		n--;
	if (n == strlen(pmu) || n < 2 || pmu[n - 1] != '_')
		n = strlen(pmu);
	else
		n--;
	snprintf(stem, sizeof(stem), "%.*s", (int)n, pmu);
	if ((e = table_event(m, pmu, name)) != NULL ||
	    (e = table_event(m, stem, name)) != NULL)
		return e;
	snprintf(full, sizeof(full), "uncore_%s", stem);
	return strncmp(stem, "uncore_", 7) != 0 ? table_event(m, full, name) :
						  NULL;
}

/* Add one term, replacing a term of the same name. */
static void
add_term(struct event_text *t, const char *term, size_t len)
{
	size_t key = strcspn(term, "=");
	int i;

	if (key > len)
		key = len;
	for (i = 0; i < t->nterms; i++)
		if (strncmp(t->terms[i], term, key) == 0 &&
		    (t->terms[i][key] == '=' || t->terms[i][key] == '\0'))
			break;
	if (i == t->nterms) {
		if (t->nterms == MAX_TERMS)
			return;
		t->nterms++;
	}
	snprintf(t->terms[i], sizeof(t->terms[i]), "%.*s", (int)len, term);
}

/* Add a list of terms "a=1,b,c=0x3". */
static void
add_terms(struct event_text *t, const char *list)
{
	size_t n;

	for (; *list != '\0'; list += n + (list[n] == ',')) {
		n = strcspn(list, ",");
		if (n > 0)
			add_term(t, list, n);
	}
}

/* The data's name for the machine's PMU p: "core" is the core PMU. */
static const char *
data_pmu(const struct metric_plan *p, const char *pmu)
{
	return strcmp(pmu, "core") == 0 ? p->ask.core_pmu : pmu;
}

/*
 * pmu@list@: a PMU and terms, the first of which may be one of the
 * model's events; or an event of the model and more terms.
 */
static void
at_form(struct metric_plan *p, const struct metric_model *m, const char *head,
    const char *list, struct event_text *t)
{
	const struct metric_event *e;
	char first[TERM_LEN];
	size_t n = strcspn(list, ",");

	/* perf's software events in PMU form: software@task-clock,name=...@. */
	if (strcmp(head, "software") == 0) {
		snprintf(t->bare, sizeof(t->bare), "%.*s", (int)n, list);
		t->software = true;
		return;
	}
	if ((e = table_event(m, NULL, head)) != NULL) {
		snprintf(t->pmu, sizeof(t->pmu), "%s",
		    data_pmu(p, metric_str(e->pmu)));
		add_terms(t, metric_str(e->terms));
		add_terms(t, list);
		return;
	}
	snprintf(t->pmu, sizeof(t->pmu), "%s", head);
	snprintf(first, sizeof(first), "%.*s", (int)n, list);
	if (strchr(first, '=') == NULL &&
	    ((e = pmu_event(m, head, first)) != NULL ||
		(strcmp(head, p->ask.core_pmu) == 0 &&
		    (e = table_event(m, "core", first)) != NULL))) {
		add_terms(t, metric_str(e->terms));
		list += n;
	}
	add_terms(t, list);
}

/* An identifier of node n's formula (escapes removed) as an event. */
static void
parse_event(struct metric_plan *p, const struct plan_node *n, const char *id,
    struct event_text *t)
{
	const struct metric_model *m = p->layers[n->layer];
	const struct metric_event *e;
	const char *at = strchr(id, '@'), *colon;
	char head[160], list[EVENT_LEN];

	memset(t, 0, sizeof(*t));
	if (at != NULL) {
		snprintf(head, sizeof(head), "%.*s", (int)(at - id), id);
		snprintf(list, sizeof(list), "%.*s", (int)strcspn(at + 1, "@"),
		    at + 1);
		at_form(p, m, head, list, t);
		/* Modifiers follow the closing @ as they follow perf's
		 * closing slash (cpu_core@X@k is cpu_core/X/k), or its ':'. */
		if ((colon = strrchr(id, '@')) != at && colon[1] != '\0')
			snprintf(t->mods, sizeof(t->mods), "%s",
			    colon + 1 + (colon[1] == ':'));
		return;
	}
	snprintf(head, sizeof(head), "%.*s", (int)strcspn(id, ":"), id);
	if ((colon = strchr(id, ':')) != NULL)
		snprintf(t->mods, sizeof(t->mods), "%s", colon + 1);
	if ((e = table_event(m, metric_str(n->def->pmu), head)) != NULL ||
	    (e = table_event(m, NULL, head)) != NULL) {
		snprintf(t->pmu, sizeof(t->pmu), "%s",
		    data_pmu(p, metric_str(e->pmu)));
		snprintf(t->name, sizeof(t->name), "%s", metric_str(e->name));
		add_terms(t, metric_str(e->terms));
		return;
	}
	snprintf(t->bare, sizeof(t->bare), "%s", head);
}

/* The -c text of t, with mods (t's own, or the run's for a core PMU's). */
static void
write_event(const struct event_text *t, const char *mods, bool named, char *out,
    size_t len)
{
	size_t n;
	int i;

	if (t->bare[0] != '\0') {
		snprintf(out, len, "%s%s%s", t->bare, mods[0] ? ":" : "", mods);
		return;
	}
	n = (size_t)snprintf(out, len, "%s/", t->pmu);
	for (i = 0; i < t->nterms && n < len; i++)
		n += (size_t)snprintf(
		    out + n, len - n, "%s%s", i > 0 ? "," : "", t->terms[i]);
	if (named && t->name[0] != '\0' && n < len)
		n += (size_t)snprintf(out + n, len - n, "%sname=%s%s%s",
		    t->nterms > 0 ? "," : "", t->name, t->mods[0] ? ":" : "",
		    t->mods);
	if (n < len)
		snprintf(out + n, len - n, "/%s", mods);
}

/* What rows call t: perf's name of it. */
static void
row_name(const struct event_text *t, const char *id, char *out, size_t len)
{
	char *c;

	if (t->name[0] != '\0')
		snprintf(out, len, "%s%s%s", t->name, t->mods[0] ? ":" : "",
		    t->mods);
	else if (t->bare[0] != '\0')
		snprintf(out, len, "%s%s%s", t->bare, t->mods[0] ? ":" : "",
		    t->mods);
	else
		snprintf(out, len, "%s", id);
	for (c = out; *c != '\0'; c++)
		if (*c == '@')
			*c = '/';
}

static enum metric_event_kind
kind_of(struct metric_plan *p, const char *spec, const char *name)
{
	p->kind_why[0] = '\0';
	return p->ask.event_kind != NULL ?
	    p->ask.event_kind(
		p->ask.arg, spec, name, p->kind_why, sizeof(p->kind_why)) :
	    METRIC_EVENT_CORE;
}

/*
 * Where a PMU is named by its boxes' stem ("cha" for uncore_cha_N),
 * perf's uncore_ prefix.
 */
static bool
try_uncore(struct event_text *t)
{
	char pmu[sizeof(t->pmu)];

	if (t->pmu[0] == '\0' || strncmp(t->pmu, "uncore_", 7) == 0)
		return false;
	snprintf(pmu, sizeof(pmu), "uncore_%s", t->pmu);
	memcpy(t->pmu, pmu, sizeof(pmu));
	return true;
}

/* A term's value (event=0x3c: 0x3c), or -1 where t has no such term. */
static long
term_value(const struct event_text *t, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < t->nterms; i++)
		if (strncmp(t->terms[i], name, n) == 0 && t->terms[i][n] == '=')
			return strtol(t->terms[i] + n + 1, NULL, 0);
	return -1;
}

static const char *
first_word(const struct event_text *t)
{
	return t->bare[0] != '\0' ? t->bare : t->nterms > 0 ? t->terms[0] : "";
}

/* slots, or TOPDOWN.SLOTS (event 0, umask 4: fixed counter 3). */
static bool
is_slots(const struct event_text *t)
{
	return strcasecmp(first_word(t), "slots") == 0 ||
	    (term_value(t, "event") == 0 && term_value(t, "umask") == 4);
}

/* slots and the kernel's topdown-* events: one group, slots first. */
static bool
is_topdown(const struct event_text *t)
{
	return is_slots(t) || strncasecmp(first_word(t), "topdown-", 8) == 0;
}

/*
 * A bare name no table knows (topdown-be-bound) may be one of the core
 * PMU's sysfs events, as perf looks it up: the core PMU's answer, even a
 * refusal, says more than "unknown event" (no PMU at all, say).
 */
static enum metric_event_kind
try_core_pmu(struct metric_plan *p, struct event_text *t, const char *rname,
    char *spec, size_t len)
{
	struct event_text core = *t;

	if (p->ask.core_pmu == NULL || p->ask.core_pmu[0] == '\0')
		return METRIC_EVENT_UNKNOWN;
	snprintf(core.pmu, sizeof(core.pmu), "%s", p->ask.core_pmu);
	snprintf(core.terms[0], sizeof(core.terms[0]), "%s", t->bare);
	core.nterms = 1;
	core.bare[0] = '\0';
	write_event(&core, core.mods, false, spec, len);
	*t = core;
	return kind_of(p, spec, rname);
}

/*
 * The run's modes on spec, where its PMU takes them: a PMU that counts
 * every mode together (msr) refuses to count only some, and its events
 * are opened as it counts them. Only a PMU other than the core's is
 * asked again; the core PMU and the kernel's software events take modes.
 */
static void
with_modes(struct metric_plan *p, const struct event_text *t, const char *rname,
    char *spec, size_t len)
{
	char plain[EVENT_LEN];

	snprintf(plain, sizeof(plain), "%s", spec);
	write_event(t, p->ask.modes, true, spec, len);
	if (t->pmu[0] != '\0' && strcmp(t->pmu, p->ask.core_pmu) != 0 &&
	    kind_of(p, spec, rname) == METRIC_EVENT_UNKNOWN)
		snprintf(spec, len, "%s", plain);
}

/* The -c text and kind of name (as the formula writes it) in node n. */
static enum metric_event_kind
resolve(struct metric_plan *p, const struct plan_node *n, const char *name,
    struct event_text *t, char *spec, size_t len)
{
	enum metric_event_kind kind;
	char id[EVENT_LEN], rname[EVENT_LEN];

	unescape(name, id, sizeof(id));
	parse_event(p, n, id, t);
	row_name(t, id, rname, sizeof(rname));
	write_event(t, t->mods, true, spec, len);
	kind = kind_of(p, spec, rname);
	if (kind == METRIC_EVENT_UNKNOWN && try_uncore(t)) {
		char first_why[sizeof(p->kind_why)], first[EVENT_LEN];

		memcpy(first_why, p->kind_why, sizeof(first_why));
		snprintf(first, sizeof(first), "%s", spec);
		write_event(t, t->mods, true, spec, len);
		if ((kind = kind_of(p, spec, rname)) == METRIC_EVENT_UNKNOWN) {
			memcpy(p->kind_why, first_why, sizeof(first_why));
			snprintf(spec, len, "%s", first);
		}
	}
	if (kind == METRIC_EVENT_UNKNOWN && t->bare[0] != '\0' && !t->software)
		kind = try_core_pmu(p, t, rname, spec, len);
	if (kind == METRIC_EVENT_CORE && t->mods[0] == '\0' &&
	    p->ask.modes != NULL && p->ask.modes[0] != '\0')
		with_modes(p, t, rname, spec, len);
	return kind;
}

bool
plan_has_event(
    struct metric_plan *p, const struct plan_node *n, const char *name)
{
	struct event_text t;
	char spec[EVENT_LEN];

	return resolve(p, n, name, &t, spec, sizeof(spec)) !=
	    METRIC_EVENT_UNKNOWN;
}

static int
add_event(struct metric_plan *p, const char *spec, const char *name,
    enum metric_event_kind kind, const struct event_text *t, bool tool)
{
	struct plan_event *grown, *e;

	grown = reallocarray(p->events, (size_t)p->nevents + 1, sizeof(*grown));
	if (grown == NULL)
		return -1;
	p->events = grown;
	e = &grown[p->nevents];
	memset(e, 0, sizeof(*e));
	e->spec = strdup(spec);
	e->name = strdup(name);
	if (e->spec == NULL || e->name == NULL) {
		free(e->spec);
		free(e->name);
		return -1;
	}
	e->kind = kind;
	e->topdown = t != NULL && is_topdown(t);
	e->slots = t != NULL && is_slots(t);
	e->tool = tool;
	return p->nevents++;
}

int
plan_event_of(
    struct metric_plan *p, const struct plan_node *n, const char *name)
{
	struct event_text t;
	char spec[EVENT_LEN], rname[EVENT_LEN], id[EVENT_LEN];
	enum metric_event_kind kind;
	int i;

	unescape(name, id, sizeof(id));
	if (strcasecmp(id, "duration_time") == 0) {
		for (i = 0; i < p->nevents; i++)
			if (p->events[i].tool)
				return i;
		return add_event(p, "duration_time", "duration_time",
		    METRIC_EVENT_CORE, NULL, true);
	}
	kind = resolve(p, n, name, &t, spec, sizeof(spec));
	if (kind == METRIC_EVENT_UNKNOWN) {
		snprintf(p->why, sizeof(p->why), "%s (%s): %s", id, spec,
		    p->kind_why[0] != '\0' ? p->kind_why :
					     "this machine has no such event");
		return -1;
	}
	for (i = 0; i < p->nevents; i++)
		if (strcmp(p->events[i].spec, spec) == 0)
			return i;
	row_name(&t, id, rname, sizeof(rname));
	return add_event(p, spec, rname, kind, &t, false);
}

int
plan_add_event(struct metric_plan *p, const char *spec, const char *name,
    enum metric_event_kind kind, bool slots)
{
	struct event_text t = { .bare = "slots" };
	int e = add_event(p, spec, name, kind, slots ? &t : NULL, false);

	return e;
}

void
plan_events_free(struct metric_plan *p)
{
	int i;

	for (i = 0; i < p->nevents; i++) {
		free(p->events[i].spec);
		free(p->events[i].name);
	}
	free(p->events);
	p->events = NULL;
	p->nevents = 0;
}

int
plan_find_metric(
    const struct metric_model *m, const char *name, const char *pmu)
{
	const struct metric_def *d;
	int i, any = -1;

	for (i = 0; m != NULL && i < m->nmetrics; i++) {
		d = &metric_defs[m->metric0 + i];
		if (strcasecmp(metric_str(d->name), name) != 0)
			continue;
		if (pmu == NULL || strcmp(metric_str(d->pmu), pmu) == 0)
			return i;
		if (any < 0)
			any = i;
	}
	return any;
}
