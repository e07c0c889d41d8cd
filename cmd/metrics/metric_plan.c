/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The plan of -M (see metric_plan.h): which metrics, read from which
 * data, and which events in which groups.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metric_model.h"
#include "nearest.h"
#include "metric_plan_impl.h"

#define MAX_NAMES    4096
#define SPEC_GROWTH  4096
#define NEAREST_DIST 3
#define NODE_LOOP    (-2)

/* Whether the ';' list holds name (any case). */
static bool
in_list(const char *list, const char *name)
{
	size_t n, len = strlen(name);

	for (; *list != '\0'; list += n + (list[n] == ';')) {
		n = strcspn(list, ";");
		if (n == len && strncasecmp(list, name, n) == 0)
			return true;
	}
	return false;
}

/* perf's match of a -M name: the metric's name, a group of its, all. */
static bool
matches(const struct metric_def *d, const char *name)
{
	if (strcasecmp(name, "all") == 0)
		return true;
	if (metric_str(d->groups)[0] == '\0' &&
	    strcasecmp(name, "No_group") == 0)
		return true;
	return strcasecmp(metric_str(d->name), name) == 0 ||
	    in_list(metric_str(d->groups), name);
}

static const struct metric_def *
def_of(const struct metric_plan *p, int layer, int i)
{
	return &metric_defs[p->layers[layer]->metric0 + i];
}

/* An escaped name of a formula without its escapes. */
static void
plain(const char *name, char *out, size_t len)
{
	size_t n = 0;

	for (; *name != '\0' && n + 1 < len; name++) {
		if (*name == '\\' && name[1] != '\0')
			name++;
		out[n++] = *name;
	}
	out[n] = '\0';
}

static int node_for(struct metric_plan *p, int layer, int i);

static int
add_node_event(struct plan_node *n, int e)
{
	int *grown, i;

	for (i = 0; i < n->nevents; i++)
		if (n->events[i] == e)
			return 0;
	grown = reallocarray(n->events, (size_t)n->nevents + 1, sizeof(int));
	if (grown == NULL)
		return -1;
	n->events = grown;
	grown[n->nevents++] = e;
	return 0;
}

/* The machine's facts in formula f: literals, CPU ids. */
static void
bind_facts(struct metric_plan *p, struct formula *f)
{
	char name[256];
	int i;

	for (i = 0; i < formula_nliterals(f); i++)
		formula_bind_literal(
		    f, i, metric_env_literal(p->env, formula_literal(f, i)));
	for (i = 0; i < formula_nnames(f); i++) {
		plain(formula_name(f, i), name, sizeof(name));
		if (formula_name_uses(f, i) & (1u << FORMULA_CPUID))
			formula_bind(f, i, FORMULA_CPUID, FORMULA_CONST,
			    metric_cpuid_matches(name, p->env->cpuid));
	}
}

/* has_event's answers in node k's formula f: every event's, or here. */
static void
bind_has_event(struct metric_plan *p, int k, struct formula *f, bool every)
{
	int i;

	for (i = 0; i < formula_nnames(f); i++)
		if (formula_name_uses(f, i) & (1u << FORMULA_HAS_EVENT))
			formula_bind(f, i, FORMULA_HAS_EVENT, FORMULA_CONST,
			    every ||
				plan_has_event(
				    p, &p->nodes[k], formula_name(f, i)));
}

/* Node k fails, for why; false. */
static bool
fail(struct metric_plan *p, int k, const char *why)
{
	if (p->nodes[k].failed == NULL)
		p->nodes[k].failed = strdup(why);
	return false;
}

/* Name i of node k's formula f, read as a metric or as an event. */
static bool
bind_name(struct metric_plan *p, int k, struct formula *f, int i)
{
	unsigned uses = formula_name_uses(f, i);
	const char *pmu = metric_str(p->nodes[k].def->pmu);
	char name[256], why[600];
	int layer = p->nodes[k].layer, idx, child, e, j;

	plain(formula_name(f, i), name, sizeof(name));
	if ((uses & (1u << FORMULA_VALUE)) &&
	    (idx = plan_find_metric(p->layers[layer], name, pmu)) >= 0) {
		if ((child = node_for(p, layer, idx)) == NODE_LOOP) {
			snprintf(why, sizeof(why),
			    "it reads %s, which reads it", name);
			return fail(p, k, why);
		}
		if (child < 0)
			return fail(p, k, "out of memory");
		if (p->nodes[child].failed != NULL)
			return fail(p, k, p->nodes[child].failed);
		formula_bind(f, i, FORMULA_VALUE, FORMULA_METRIC, child);
		for (j = 0; j < p->nodes[child].nexpr; j++)
			if (add_node_event(
				&p->nodes[k], p->nodes[child].events[j]) != 0)
				return fail(p, k, "out of memory");
		return true;
	}
	if ((e = plan_event_of(p, &p->nodes[k], formula_name(f, i))) < 0) {
		snprintf(why, sizeof(why), "%s", p->why);
		return fail(p, k, why);
	}
	formula_bind(
	    f, i, FORMULA_VALUE, FORMULA_SLOT, e * PLAN_SLOTS_PER_EVENT);
	formula_bind(f, i, FORMULA_SOURCE_COUNT, FORMULA_SLOT,
	    e * PLAN_SLOTS_PER_EVENT + 1);
	formula_bind(
	    f, i, FORMULA_AGGR_NR, FORMULA_SLOT, e * PLAN_SLOTS_PER_EVENT + 2);
	return add_node_event(&p->nodes[k], e) == 0 ||
	    fail(p, k, "out of memory");
}

/* Whether f, which names counts, reads none of them as needed says. */
static bool
reads_nothing(const struct formula *f, const bool *needed, unsigned read)
{
	bool names_counts = false;
	int i;

	for (i = 0; i < formula_nnames(f); i++) {
		if ((formula_name_uses(f, i) & read) == 0)
			continue;
		if (needed[i])
			return false;
		names_counts = true;
	}
	return names_counts;
}

/*
 * Every name node k's formula f still reads, once its constants are. A
 * formula that would read counts were every event there, and reads none
 * once has_event has pruned it, is refused: its value would be its else
 * branch's constant, for counts never made. One that the machine's facts
 * alone leave a constant (SMT_2T_Utilization's 0 with SMT off, a PMEM
 * metric's without PMEM) is that constant, as perf gives it.
 */
static bool
bind_formula(struct metric_plan *p, int k, struct formula *f)
{
	bool *needed, guarded;
	unsigned read = (1u << FORMULA_VALUE) | (1u << FORMULA_SOURCE_COUNT) |
	    (1u << FORMULA_AGGR_NR);
	bool ok = true;
	int i, n = formula_nnames(f);

	if ((needed = calloc((size_t)n + 1, sizeof(bool))) == NULL)
		return fail(p, k, "out of memory");
	bind_facts(p, f);
	bind_has_event(p, k, f, true);
	formula_needed(f, needed);
	guarded = !reads_nothing(f, needed, read);
	bind_has_event(p, k, f, false);
	formula_needed(f, needed);
	for (i = 0; ok && i < n; i++)
		if (needed[i] && (formula_name_uses(f, i) & read) != 0)
			ok = bind_name(p, k, f, i);
	if (ok && guarded && reads_nothing(f, needed, read))
		ok = fail(p, k, "none of its events exists here (has_event)");
	free(needed);
	return ok;
}

static struct formula *
parse(struct metric_plan *p, int k, unsigned text)
{
	struct formula *f;
	char err[256], why[400];

	if ((f = formula_parse(metric_str(text), err, sizeof(err))) == NULL) {
		snprintf(why, sizeof(why), "its formula: %s", err);
		fail(p, k, why);
	}
	return f;
}

/* Node k's formula, parsed and bound. */
static void
resolve_node(struct metric_plan *p, int k)
{
	struct formula *f;

	p->nodes[k].resolving = true;
	if ((f = parse(p, k, p->nodes[k].def->expr)) != NULL) {
		p->nodes[k].expr = f;
		(void)bind_formula(p, k, f);
	}
	p->nodes[k].resolving = false;
	p->nodes[k].nexpr = p->nodes[k].nevents;
}

/*
 * Shown node k's threshold, parsed and bound once every formula it may
 * read is ("tma_ports_utilized_0 > 0.2 & tma_ports_utilization > 0.15",
 * where tma_ports_utilization reads tma_ports_utilized_0). Only a shown
 * metric's threshold is counted and evaluated, as in perf.
 */
static void
resolve_threshold(struct metric_plan *p, int k)
{
	const struct metric_def *d = p->nodes[k].def;
	int nevents = p->nodes[k].nevents;
	struct formula *f;

	if (p->ask.no_threshold || metric_str(d->threshold)[0] == '\0')
		return;
	if ((f = parse(p, k, d->threshold)) != NULL) {
		p->nodes[k].threshold = f;
		if (bind_formula(p, k, f))
			return;
		formula_free(f);
		p->nodes[k].threshold = NULL;
	}
	/*
	 * A threshold that cannot count: the metric without it, and without
	 * the events only it would read.
	 */
	p->nodes[k].nevents = nevents;
	free((char *)p->nodes[k].failed);
	p->nodes[k].failed = NULL;
}

/*
 * The node of metric i of layer, resolved: its index; -1 (memory), or
 * NODE_LOOP where its formula is being resolved (it reads itself).
 */
static int
node_for(struct metric_plan *p, int layer, int i)
{
	const struct metric_def *d = def_of(p, layer, i);
	struct plan_node *grown;
	int k;

	for (k = 0; k < p->nnodes; k++)
		if (p->nodes[k].def == d)
			return p->nodes[k].resolving ? NODE_LOOP : k;
	grown = reallocarray(p->nodes, (size_t)p->nnodes + 1, sizeof(*grown));
	if (grown == NULL)
		return -1;
	p->nodes = grown;
	k = p->nnodes++;
	memset(&p->nodes[k], 0, sizeof(p->nodes[k]));
	p->nodes[k].def = d;
	p->nodes[k].layer = layer;
	p->nodes[k].shown = -1;
	resolve_node(p, k);
	return k;
}

/* Whether node k counts an event of a whole socket's PMU; its name. */
static const char *
socket_event(const struct metric_plan *p, int k)
{
	const struct plan_node *n = &p->nodes[k];
	int i;

	for (i = 0; i < n->nevents; i++)
		if (p->events[n->events[i]].kind == METRIC_EVENT_SOCKET)
			return p->events[n->events[i]].name;
	return NULL;
}

/* perf's grouping of a metric's events: the data's and -M's say. */
static bool
groups_events(
    const struct metric_plan *p, const struct metric_def *d, const char *asked)
{
	const char *c = metric_str(d->constraint);

	if (p->ask.no_group || in_list(metric_str(d->nogroup), asked))
		return false;
	if (strcmp(c, "NO_GROUP_EVENTS") == 0)
		return false;
	if (strcmp(c, "NO_GROUP_EVENTS_NMI") == 0 ||
	    strcmp(c, "NO_NMI_WATCHDOG") == 0)
		return !p->ask.nmi_watchdog;
	if (strcmp(c, "NO_GROUP_EVENTS_SMT") == 0)
		return p->env->smt_on == 0;
	return true;
}

/* ScaleUnit "100%": a factor, then a unit (perf's strtod and the rest). */
static void
scale_unit(const char *text, double *scale, const char **unit)
{
	char *end;

	*scale = strtod(text, &end);
	if (end == text)
		*scale = 1;
	while (*end == ' ')
		end++;
	*unit = end;
}

static char *
key_of(const struct metric_def *d)
{
	const char *pmu = metric_str(d->pmu), *name = metric_str(d->name);
	char *key;

	if (strcmp(pmu, "core") == 0)
		return strdup(name);
	if (asprintf(&key, "%s/%s", pmu, name) < 0)
		return NULL;
	return key;
}

/* Show node k, asked for by -M's name asked. */
static int
show(struct metric_plan *p, int k, const char *asked)
{
	const struct metric_def *d = p->nodes[k].def;
	struct metric_shown *grown, *s;
	int *nodes;

	if (p->nodes[k].shown >= 0)
		return 0;
	grown = reallocarray(p->shown, (size_t)p->nshown + 1, sizeof(*grown));
	if (grown != NULL)
		p->shown = grown;
	nodes =
	    reallocarray(p->shown_node, (size_t)p->nshown + 1, sizeof(*nodes));
	if (nodes != NULL)
		p->shown_node = nodes;
	if (grown == NULL || nodes == NULL)
		return -1;
	s = &p->shown[p->nshown];
	memset(s, 0, sizeof(*s));
	s->name = metric_str(d->name);
	s->pmu = metric_str(d->pmu);
	if ((s->key = key_of(d)) == NULL)
		return -1;
	scale_unit(metric_str(d->scale_unit), &s->scale, &s->unit);
	s->parent = -1;
	resolve_threshold(p, k);
	s->threshold = p->nodes[k].threshold != NULL;
	s->group = asked;
	p->nodes[k].group_events = groups_events(p, d, asked);
	p->shown_node[p->nshown] = k;
	p->nodes[k].shown = p->nshown++;
	return 0;
}

/*
 * A metric -M's name brought: shown, or, where it cannot be counted (or
 * not per thread), refused: an error when it was named itself, a note
 * for one of a group. 0, 1 (left out), or -1 with err set.
 */
static int
take(struct metric_plan *p, int layer, int i, const char *asked, char *err,
    size_t len, char *notes, size_t notes_len)
{
	const struct metric_def *d = def_of(p, layer, i);
	const char *why, *sock;
	char line[800];
	bool named = strcasecmp(metric_str(d->name), asked) == 0;
	int k = node_for(p, layer, i);

	if (k < 0) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	why = p->nodes[k].failed;
	if (why == NULL && p->ask.per_thread && (sock = socket_event(p, k))) {
		snprintf(line, sizeof(line),
		    "it counts %s, a whole socket's, which a thread's rows "
		    "cannot hold (cpustat counts it)",
		    sock);
		why = line;
	}
	if (why == NULL)
		return show(p, k, asked) == 0 ? 0 : -1;
	if (named) {
		snprintf(err, len, "%s: %s", metric_str(d->name), why);
		return -1;
	}
	if (p->first_refusal[0] == '\0')
		snprintf(p->first_refusal, sizeof(p->first_refusal), "%s: %s",
		    metric_str(d->name), why);
	if (notes != NULL) {
		size_t at = strlen(notes);

		snprintf(notes + at, notes_len > at ? notes_len - at : 0,
		    "%s (of %s): %s\n", metric_str(d->name), asked, why);
	}
	return 1;
}

/*
 * The metrics of one -M name in layer: how many matched; -1 with err set
 * (a named metric refused); *shown those shown.
 */
static int
take_layer(struct metric_plan *p, int layer, const char *name, int *shown,
    char *err, size_t len, char *notes, size_t notes_len)
{
	const struct metric_model *m = p->layers[layer];
	int i, found = 0, r;

	for (i = 0; m != NULL && i < m->nmetrics; i++) {
		if (!matches(def_of(p, layer, i), name))
			continue;
		found++;
		if ((r = take(p, layer, i, name, err, len, notes, notes_len)) <
		    0)
			return -1;
		*shown += r == 0;
	}
	return found;
}

/* A candidate at distance d: kept if among the 3 nearest. */
static void
consider_at(const char *cand, int d, const char **best, int *dist)
{
	int j, i;

	for (i = 0; i < 3 && best[i] != NULL; i++)
		if (strcasecmp(best[i], cand) == 0)
			return;
	for (j = 0; j < 3 && best[j] != NULL && dist[j] <= d; j++)
		;
	if (j == 3)
		return;
	for (i = 2; i > j; i--) {
		best[i] = best[i - 1];
		dist[i] = dist[i - 1];
	}
	best[j] = cand;
	dist[j] = d;
}

/* A candidate for the nearest names: kept if among the 3 nearest. */
static void
consider(const char *name, const char *cand, const char **best, int *dist)
{
	int d = nearest_distance(name, cand);

	if (d <= NEAREST_DIST)
		consider_at(cand, d, best, dist);
}

/* The ';' list's items as candidates. */
static void
consider_groups(const char *name, const char *list, char (*items)[64],
    int *nitems, const char **best, int *dist)
{
	size_t n;

	for (; *list != '\0'; list += n + (list[n] == ';')) {
		n = strcspn(list, ";");
		if (n == 0 || n >= 64 || *nitems >= 64)
			continue;
		snprintf(items[*nitems], 64, "%.*s", (int)n, list);
		consider(name, items[*nitems], best, dist);
		if (best[0] == items[*nitems] || best[1] == items[*nitems] ||
		    best[2] == items[*nitems])
			(*nitems)++;
	}
}

/*
 * Groups of another vendor's name for the same level: a name that ends
 * in L1..L6 (TopdownL1, PipelineL1) is near the data's groups of that
 * level, whatever their vendor calls them.
 */
static void
same_level(const char *name, const char *list, char (*items)[64], int *nitems,
    const char **best, int *dist)
{
	size_t len = strlen(name), n;

	if (len < 2 || name[len - 2] != 'L' ||
	    !isdigit((unsigned char)name[len - 1]))
		return;
	for (; *list != '\0'; list += n + (list[n] == ';')) {
		n = strcspn(list, ";");
		if (n < 2 || n >= 64 || *nitems >= 64 ||
		    strncmp(list + n - 2, name + len - 2, 2) != 0 ||
		    !isupper((unsigned char)list[0]))
			continue;
		snprintf(items[*nitems], 64, "%.*s", (int)n, list);
		consider_at(items[*nitems], 1, best, dist);
		if (best[0] == items[*nitems] || best[1] == items[*nitems] ||
		    best[2] == items[*nitems])
			(*nitems)++;
	}
}

/* The metric and group names of the data nearest name, for a refusal. */
static void
nearest(const struct metric_plan *p, const char *name, char *buf, size_t len)
{
	static char items[64][64];
	const char *best[3] = { NULL, NULL, NULL };
	const struct metric_def *d;
	int dist[3] = { 0, 0, 0 }, nitems = 0, l, i;
	size_t n = 0;

	for (l = 0; l < p->nlayers; l++)
		for (i = 0; p->layers[l] != NULL && i < p->layers[l]->nmetrics;
		     i++) {
			d = def_of(p, l, i);
			consider(name, metric_str(d->name), best, dist);
			consider_groups(name, metric_str(d->groups), items,
			    &nitems, best, dist);
			same_level(name, metric_str(d->groups), items, &nitems,
			    best, dist);
		}
	buf[0] = '\0';
	for (i = 0; i < 3 && best[i] != NULL && n < len; i++)
		n += (size_t)snprintf(
		    buf + n, len - n, "%s%s", i > 0 ? ", " : "", best[i]);
}

/*
 * One -M name: its metrics from the model's own data and perf's common
 * metrics, or else from the first legacy data that has it.
 */
static int
take_name(struct metric_plan *p, const char *name, char *err, size_t len,
    char *notes, size_t notes_len)
{
	int shown = 0, found = 0, common = p->nlayers - 1, l, r;
	char near[256], what[256];

	for (l = 0; l < p->nlayers; l++) {
		if (l > 0 && l < common)
			continue;
		if ((r = take_layer(
			 p, l, name, &shown, err, len, notes, notes_len)) < 0)
			return -1;
		found += r;
	}
	for (l = 1; found == 0 && l < common; l++)
		if ((found = take_layer(
			 p, l, name, &shown, err, len, notes, notes_len)) < 0)
			return -1;
	if (found > 0 && shown == 0) {
		snprintf(err, len,
		    "%s: none of its %d metrics can be counted here (%s)", name,
		    found, p->first_refusal[0] ? p->first_refusal : "");
		return -1;
	}
	if (found > 0)
		return 0;
	nearest(p, name, near, sizeof(near));
	metric_model_describe(p->layers[0], p->env->cpuid, what, sizeof(what));
	snprintf(err, len, "%s: no such metric or metric group for %s%s%s",
	    name, what, near[0] ? "; nearest: " : " (--list names them)", near);
	return -1;
}

static int
add_instance(struct metric_plan *p, int e, int group)
{
	struct plan_instance *grown;

	grown = reallocarray(p->inst, (size_t)p->ninst + 1, sizeof(*grown));
	if (grown == NULL)
		return -1;
	p->inst = grown;
	grown[p->ninst].event = e;
	grown[p->ninst].group = group;
	grown[p->ninst].request = -1;
	return p->ninst++;
}

/* The event slots leading a group of topdown events of spec's PMU. */
static int
slots_event(struct metric_plan *p, const char *like)
{
	const char *slash = strchr(like, '/');
	char spec[128];
	int e;

	if (slash != NULL && strncmp(like, "topdown", 7) != 0)
		snprintf(spec, sizeof(spec), "%.*s/slots/%s",
		    (int)(slash - like), like,
		    p->ask.modes ? p->ask.modes : "");
	else if (p->ask.modes != NULL && p->ask.modes[0] != '\0')
		snprintf(spec, sizeof(spec), "slots:%s", p->ask.modes);
	else
		snprintf(spec, sizeof(spec), "slots");
	for (e = 0; e < p->nevents; e++)
		if (strcmp(p->events[e].spec, spec) == 0)
			return e;
	p->why[0] = '\0';
	return plan_add_event(p, spec, "slots", METRIC_EVENT_CORE, true);
}

/*
 * A group of events (n of them, no row's time): slots first and the
 * topdown events next, as the kernel wants them; slots added where
 * topdown events have none. Its number, or -1 (memory).
 */
static int
add_group(struct metric_plan *p, const int *events, int n)
{
	int g = ++p->ngroups, pass, i, slots = -1, topdown = -1;

	for (i = 0; i < n; i++) {
		if (!p->events[events[i]].topdown)
			continue;
		if (p->events[events[i]].slots)
			slots = events[i];
		else
			topdown = events[i];
	}
	if (topdown >= 0 && slots < 0) {
		if ((slots = slots_event(p, p->events[topdown].spec)) < 0)
			return -1;
		if (add_instance(p, slots, g) < 0)
			return -1;
	}
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < n; i++) {
			const struct plan_event *e = &p->events[events[i]];
			int rank = events[i] == slots ? 0 : e->topdown ? 1 : 2;

			if (rank == pass && !e->tool &&
			    add_instance(p, events[i], g) < 0)
				return -1;
		}
	return g;
}

/* Whether node a's counted events are all node b's. */
static bool
subset(const struct metric_plan *p, const struct plan_node *a,
    const struct plan_node *b)
{
	int i, j;

	for (i = 0; i < a->nevents; i++) {
		if (p->events[a->events[i]].tool)
			continue;
		for (j = 0; j < b->nevents && b->events[j] != a->events[i]; j++)
			;
		if (j == b->nevents)
			return false;
	}
	return true;
}

static int
counted_events(const struct metric_plan *p, const struct plan_node *n)
{
	int i, c = 0;

	for (i = 0; i < n->nevents; i++)
		c += !p->events[n->events[i]].tool;
	return c;
}

/* The shown nodes, the most events first (perf's order for sharing). */
static int *
by_size(const struct metric_plan *p)
{
	int *order = malloc(((size_t)p->nshown + 1) * sizeof(int)), i, j, t;

	if (order == NULL)
		return NULL;
	for (i = 0; i < p->nshown; i++)
		order[i] = p->shown_node[i];
	for (i = 1; i < p->nshown; i++)
		for (j = i; j > 0 &&
		     counted_events(p, &p->nodes[order[j]]) >
			 counted_events(p, &p->nodes[order[j - 1]]);
		     j--) {
			t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return order;
}

/* The events a group of node n's holds: slots too, where topdown needs it. */
static int
group_size(const struct metric_plan *p, const struct plan_node *n)
{
	bool topdown = false, slots = false;
	int i;

	for (i = 0; i < n->nevents; i++) {
		topdown |= p->events[n->events[i]].topdown;
		slots |= p->events[n->events[i]].slots;
	}
	return counted_events(p, n) + (topdown && !slots);
}

/*
 * A grouped metric: a group of its own, or one that holds its events; or
 * none where the counters cannot hold them together, as perf breaks up a
 * metric's weak group that the kernel refuses.
 */
static int
group_node(struct metric_plan *p, const int *order, int at)
{
	struct plan_node *n = &p->nodes[order[at]];
	int i;

	if (p->ask.counters > 0 && group_size(p, n) > p->ask.counters) {
		n->group_events = false;
		return 0;
	}
	for (i = 0; i < at; i++) {
		const struct plan_node *m = &p->nodes[order[i]];

		if (m->group_events && m->group > 0 && subset(p, n, m)) {
			n->group = m->group;
			return 0;
		}
	}
	if (counted_events(p, n) == 0)
		return 0;
	return (n->group = add_group(p, n->events, n->nevents)) < 0 ? -1 : 0;
}

/*
 * The events of metrics not grouped: each a group of its own (the kernel
 * multiplexes them one by one), once; topdown events together, with
 * slots, as they must be.
 */
static int
group_loose(struct metric_plan *p)
{
	int *loose, nloose = 0, *td, ntd = 0, k, i, j, r = 0;

	loose = calloc((size_t)p->nevents + 1, sizeof(int));
	td = calloc((size_t)p->nevents + 1, sizeof(int));
	for (k = 0; loose != NULL && td != NULL && k < p->nshown; k++) {
		const struct plan_node *n = &p->nodes[p->shown_node[k]];

		if (n->group_events)
			continue;
		for (i = 0; i < n->nevents; i++) {
			int e = n->events[i],
			    *list = p->events[e].topdown ? td : loose,
			    *count = p->events[e].topdown ? &ntd : &nloose;

			if (p->events[e].tool)
				continue;
			for (j = 0; j < *count && list[j] != e; j++)
				;
			if (j == *count)
				list[(*count)++] = e;
		}
	}
	if (loose == NULL || td == NULL)
		r = -1;
	for (i = 0; r == 0 && i < nloose; i++)
		r = add_group(p, &loose[i], 1) < 0 ? -1 : 0;
	if (r == 0 && ntd > 0)
		r = add_group(p, td, ntd) < 0 ? -1 : 0;
	free(loose);
	free(td);
	return r;
}

static int
group_events(struct metric_plan *p)
{
	int *order = by_size(p), i, r = 0;

	if (order == NULL)
		return -1;
	for (i = 0; r == 0 && i < p->nshown; i++)
		if (p->nodes[order[i]].group_events)
			r = group_node(p, order, i);
	free(order);
	return r == 0 ? group_loose(p) : -1;
}

/* The -c spec of the instances, group by group. */
static int
write_spec(struct metric_plan *p)
{
	size_t len = 0, cap = 0, need;
	char *grown;
	int i;

	for (i = 0; i < p->ninst; i++) {
		const struct plan_instance *in = &p->inst[i];
		bool first = i == 0 || p->inst[i - 1].group != in->group;
		bool last =
		    i + 1 == p->ninst || p->inst[i + 1].group != in->group;

		need = len + strlen(p->events[in->event].spec) + 4;
		if (need >= cap) {
			cap = need + SPEC_GROWTH;
			if ((grown = realloc(p->spec, cap)) == NULL)
				return -1;
			p->spec = grown;
		}
		len += (size_t)snprintf(p->spec + len, cap - len, "%s%s%s%s",
		    first && i > 0 ? "," : (first ? "" : ","), first ? "{" : "",
		    p->events[in->event].spec, last ? "}" : "");
	}
	if (p->spec == NULL && (p->spec = strdup("")) == NULL)
		return -1;
	return 0;
}

/* Whether metric d's groups name parent (a shown metric's name)_group. */
static bool
child_of(const struct metric_def *d, const struct metric_def *parent)
{
	char g[256];

	if (strcmp(metric_str(d->pmu), metric_str(parent->pmu)) != 0)
		return false;
	snprintf(g, sizeof(g), "%s_group", metric_str(parent->name));
	return in_list(metric_str(d->groups), g);
}

/* TopDown's level of d: its TopdownL<n> group's n, or 0. */
static int
level_of(const struct metric_def *d)
{
	const char *g = metric_str(d->groups), *at;
	int level = 0;

	for (at = strcasestr(g, "TopdownL"); at != NULL;
	     at = strcasestr(at + 1, "TopdownL"))
		if ((at == g || at[-1] == ';') && isdigit((unsigned char)at[8]))
			level = at[8] - '0';
	return level;
}

/* Append shown metric i and its descendants to order (tree order). */
static void
descend(const struct metric_plan *p, int i, const int *parent, int *order,
    int *n, bool *placed)
{
	int c;

	if (placed[i])
		return;
	placed[i] = true;
	order[(*n)++] = i;
	for (c = 0; c < p->nshown; c++)
		if (parent[c] == i)
			descend(p, c, parent, order, n, placed);
}

/*
 * The shown metrics as a tree: each under the shown metric whose group it
 * is in (tma_memory_bound under tma_backend_bound), parents first, each
 * level in the data's order; then renumbered in that order.
 */
static int
make_tree(struct metric_plan *p)
{
	int *parent, *order, *at, n = 0, i, j, r = -1;
	struct metric_shown *shown;
	int *shown_node;
	bool *placed;

	parent = calloc((size_t)p->nshown + 1, sizeof(int));
	order = calloc((size_t)p->nshown + 1, sizeof(int));
	at = calloc((size_t)p->nshown + 1, sizeof(int));
	placed = calloc((size_t)p->nshown + 1, sizeof(bool));
	shown = calloc((size_t)p->nshown + 1, sizeof(*shown));
	shown_node = calloc((size_t)p->nshown + 1, sizeof(int));
	if (parent && order && at && placed && shown && shown_node) {
		for (i = 0; i < p->nshown; i++) {
			parent[i] = -1;
			for (j = 0; j < p->nshown && parent[i] < 0; j++)
				if (j != i &&
				    child_of(p->nodes[p->shown_node[i]].def,
					p->nodes[p->shown_node[j]].def))
					parent[i] = j;
		}
		for (i = 0; i < p->nshown; i++)
			if (parent[i] < 0 || parent[parent[i]] == i)
				descend(p, i, parent, order, &n, placed);
		for (i = 0; i < p->nshown; i++)
			descend(p, i, parent, order, &n, placed);
		for (i = 0; i < n; i++)
			at[order[i]] = i;
		for (i = 0; i < n; i++) {
			shown[i] = p->shown[order[i]];
			shown_node[i] = p->shown_node[order[i]];
			p->nodes[shown_node[i]].shown = i;
			shown[i].parent =
			    parent[order[i]] >= 0 ? at[parent[order[i]]] : -1;
			shown[i].level = level_of(p->nodes[shown_node[i]].def);
			if (shown[i].level == 0 && shown[i].parent >= 0)
				shown[i].level =
				    shown[shown[i].parent].level + 1;
		}
		free(p->shown);
		free(p->shown_node);
		p->shown = shown;
		p->shown_node = shown_node;
		shown = NULL;
		shown_node = NULL;
		r = 0;
	}
	free(parent);
	free(order);
	free(at);
	free(placed);
	free(shown);
	free(shown_node);
	return r;
}

/* The layers a name is looked up in: model, its legacy, common. */
static void
set_layers(struct metric_plan *p, const struct metric_model *model)
{
	const struct metric_model *l;
	int i;

	p->layers[p->nlayers++] = model;
	for (i = 0; (l = metric_model_legacy(model, i)) != NULL &&
	     p->nlayers < PLAN_MAX_LAYERS - 1;
	     i++)
		p->layers[p->nlayers++] = l;
	p->layers[p->nlayers++] = metric_model_common();
}

/* Each name of ask->names. */
static int
take_names(
    struct metric_plan *p, char *err, size_t len, char *notes, size_t notes_len)
{
	char *copy, *name, *save = NULL;
	int r = 0, n = 0;

	if ((copy = strdup(p->ask.names)) == NULL) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (name = strtok_r(copy, ",", &save); r == 0 && name != NULL;
	     name = strtok_r(NULL, ",", &save)) {
		if (++n > MAX_NAMES) {
			snprintf(err, len, "more than %d names", MAX_NAMES);
			r = -1;
		} else {
			r = take_name(p, name, err, len, notes, notes_len);
		}
	}
	if (r == 0 && n == 0) {
		snprintf(err, len, "%s: no metric named", p->ask.names);
		r = -1;
	}
	/* The names asked point into the copy: it lives with the plan. */
	p->names_copy = copy;
	return r;
}

struct metric_plan *
metric_plan_new(const struct metric_model *model, const struct metric_env *env,
    const struct metric_ask *ask, char *err, size_t len, char *notes,
    size_t notes_len)
{
	struct metric_plan *p = calloc(1, sizeof(*p));

	if (notes != NULL && notes_len > 0)
		notes[0] = '\0';
	if (p == NULL) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	p->env_copy = *env;
	p->env = &p->env_copy;
	p->ask = *ask;
	if (p->ask.core_pmu == NULL)
		p->ask.core_pmu = "cpu";
	set_layers(p, model);
	if (take_names(p, err, len, notes, notes_len) != 0 ||
	    group_events(p) != 0 || write_spec(p) != 0 || make_tree(p) != 0 ||
	    plan_eval_init(p) != 0) {
		if (err[0] == '\0')
			snprintf(err, len, "out of memory");
		metric_plan_free(p);
		return NULL;
	}
	return p;
}

void
metric_plan_free(struct metric_plan *p)
{
	int i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nnodes; i++) {
		formula_free(p->nodes[i].expr);
		formula_free(p->nodes[i].threshold);
		free(p->nodes[i].events);
		free((char *)p->nodes[i].failed);
	}
	for (i = 0; i < p->nshown; i++)
		free((char *)p->shown[i].key);
	free(p->nodes);
	free(p->shown);
	free(p->shown_node);
	free(p->inst);
	free(p->spec);
	free(p->names_copy);
	plan_events_free(p);
	plan_eval_fini(p);
	free(p);
}

const char *
metric_plan_spec(const struct metric_plan *p)
{
	return p->spec;
}

const struct metric_env *
metric_plan_env(const struct metric_plan *p)
{
	return p->env;
}

int
metric_plan_nmetrics(const struct metric_plan *p)
{
	return p->nshown;
}

const struct metric_shown *
metric_plan_metric(const struct metric_plan *p, int i)
{
	return i >= 0 && i < p->nshown ? &p->shown[i] : NULL;
}

int
metric_plan_metric_events(
    const struct metric_plan *p, int i, const char **names, int max)
{
	const struct plan_node *n;
	int k, count = 0;

	if (i < 0 || i >= p->nshown)
		return 0;
	n = &p->nodes[p->shown_node[i]];
	for (k = 0; k < n->nevents; k++) {
		if (p->events[n->events[k]].tool)
			continue;
		if (count < max)
			names[count] = p->events[n->events[k]].name;
		count++;
	}
	return count;
}
