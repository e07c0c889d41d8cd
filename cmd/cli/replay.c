/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --input (see replay.h). The head's sets become specs of the record's
 * counter names (no libcpc set: nothing is counted), its "machine" the
 * facts -M's formulas read; -M is planned on what the record holds, and
 * reads the recorded set that holds most of its events. Each row goes to
 * the output as the run gave it, at its recorded time, with the record's
 * host, start and version, and at the reader's pace: nothing is dropped.
 *
 * A record is input like any other: each field is checked for its type
 * and range before it is used, a line is read only up to REPLAY_LINE_MAX
 * bytes, and what is kept from line to line (box names) is bounded, so
 * that no record, however made, shows a number it does not hold or takes
 * more memory than its sets need.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "diag.h"
#include "metrics_option.h"
#include "replay.h"
#include "setgrp.h"
#include "spec.h"
#include "topology.h"

#define MAX_SETS    1024 /* sets in a record's head */
#define MAX_EVENTS  4096 /* counters in a set */
#define MAX_BOXES   1024 /* boxes a counter sums */
#define MAX_KEPT    4096 /* distinct box names in a record */
/* A time in ns beyond 2^62 (146 years) is no run's: it would overflow. */
#define MAX_TIME_NS (1LL << 62)

struct replay {
	struct cmdline *cl;
	const char *path;
	FILE *in;
	char *line; /* REPLAY_LINE_MAX bytes and a NUL */
	size_t len;
	unsigned long lineno;
	setgrp_t *specs;
	struct metric_env env;
	bool has_env;
	struct out_origin origin;
	/* Box names that rows point at past their line. */
	char *kept[MAX_KEPT];
	int nkept;
	uint64_t *values;
	int nvalues;
};

/* The labels a run writes; a row's points at one of these. */
static const char *const labels[] = { "tick", "gap", "exit", "fini_lwp",
	"init_lwp", "lwp_create", "lwp_exit", "fork", "exec", "total", "cgroup",
	"rmdir", "leave" };

/*
 * The one line that says what is wrong, and 2. The record's names it
 * quotes are made inert by diag, as in every message.
 */
static int __attribute__((format(printf, 2, 3)))
bad(const struct replay *r, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r->lineno > 0)
		diag(NULL, "--input %s: line %lu: %s\n", r->path, r->lineno,
		    what);
	else
		diag(NULL, "--input %s: %s\n", r->path, what);
	return 2;
}

/*
 * The next line into r->line: 1, 0 at the end, or the status of a line
 * too long or a read that failed (said). A NUL byte is kept, for the
 * parser to refuse.
 */
static int
read_line(struct replay *r)
{
	int c;

	r->len = 0;
	while ((c = getc_unlocked(r->in)) != EOF && c != '\n') {
		if (r->len == REPLAY_LINE_MAX) {
			r->lineno++;
			return bad(r,
			    "longer than %d bytes: not a record's line",
			    REPLAY_LINE_MAX);
		}
		r->line[r->len++] = (char)c;
	}
	if (ferror(r->in))
		return bad(r, "%s", strerror(errno));
	if (c == EOF && r->len == 0)
		return 0;
	r->lineno++;
	r->line[r->len] = '\0';
	return 1;
}

/* The next line as JSON: an object, or NULL at the end (*err: why). */
static json_t *
next_object(struct replay *r, int *err)
{
	json_error_t je;
	json_t *o;
	int got;

	*err = 0;
	if ((got = read_line(r)) != 1) {
		*err = got;
		return NULL;
	}
	o = json_loadb(r->line, r->len, JSON_REJECT_DUPLICATES, &je);
	if (o == NULL || !json_is_object(o)) {
		json_decref(o);
		*err = bad(r, "not a JSON object: %s",
		    o == NULL ? je.text : "another value");
		return NULL;
	}
	return o;
}

/*
 * Field key of o in *j: 1 when it has a value, 0 when it is null or
 * absent and none_ok, else bad()'s status, the error said.
 */
static int
field_of(struct replay *r, const json_t *o, const char *key, bool none_ok,
    const json_t **j)
{
	*j = json_object_get(o, key);
	if (*j != NULL && !json_is_null(*j))
		return 1;
	if (none_ok)
		return 0;
	return bad(r, "\"%s\": %s", key, *j == NULL ? "missing" : "null");
}

/*
 * An integer field in [lo, hi], or null or absent (*v = none) where
 * none_ok: 0, or the status of a bad one (said, naming the field).
 */
static int
int_field(struct replay *r, const json_t *o, const char *key, long long lo,
    long long hi, bool none_ok, long long none, long long *v)
{
	const json_t *j;
	int has;

	*v = none;
	if ((has = field_of(r, o, key, none_ok, &j)) != 1)
		return has;
	if (!json_is_integer(j))
		return bad(r, "\"%s\": not an integer", key);
	*v = json_integer_value(j);
	if (*v < lo || *v > hi)
		return bad(r, "\"%s\": %lld is out of range (%lld to %lld)",
		    key, *v, lo, hi);
	return 0;
}

/* A string field, or NULL for null or absent where none_ok. */
static int
text_field(struct replay *r, const json_t *o, const char *key, bool none_ok,
    const char **s)
{
	const json_t *j;
	int has;

	*s = NULL;
	if ((has = field_of(r, o, key, none_ok, &j)) != 1)
		return has;
	if (!json_is_string(j))
		return bad(r, "\"%s\": not a string", key);
	*s = json_string_value(j);
	if (strlen(*s) != json_string_length(j))
		return bad(r, "\"%s\": holds a NUL character", key);
	return 0;
}

/* A boolean field; false where absent and none_ok. */
static int
bool_field(struct replay *r, const json_t *o, const char *key, bool none_ok,
    bool none, bool *v)
{
	const json_t *j = json_object_get(o, key);

	*v = none;
	if (j == NULL && none_ok)
		return 0;
	if (!json_is_boolean(j))
		return bad(r, "\"%s\": %s", key,
		    j == NULL ? "missing" : "not true or false");
	*v = json_is_true(j);
	return 0;
}

/* A string kept for the run: a counter's box names point at it. */
static int
keep(struct replay *r, const char *s, const char **kept)
{
	int i;

	for (i = 0; i < r->nkept; i++)
		if (strcmp(r->kept[i], s) == 0) {
			*kept = r->kept[i];
			return 0;
		}
	if (r->nkept == MAX_KEPT)
		return bad(r, "more than %d box names", MAX_KEPT);
	if ((r->kept[r->nkept] = strdup(s)) == NULL)
		return bad(r, "out of memory");
	*kept = r->kept[r->nkept++];
	return 0;
}

/* A counter's boxes: their names, each a part of its values. */
static int
add_boxes(struct replay *r, struct spec *spec, struct spec_req *q,
    const json_t *boxes, int *next_box)
{
	const char *name;
	size_t i;
	int err;

	if (!json_is_array(boxes) || json_array_size(boxes) > MAX_BOXES)
		return bad(r,
		    "\"boxes\" of %s: not an array of %d names at most",
		    q->name, MAX_BOXES);
	if (json_array_size(boxes) == 0)
		return 0;
	q->nboxes = (int)json_array_size(boxes);
	if ((q->box_names = calloc((size_t)q->nboxes, sizeof(char *))) == NULL)
		return bad(r, "out of memory");
	for (i = 0; i < json_array_size(boxes); i++) {
		if ((name = json_string_value(json_array_get(boxes, i))) ==
		    NULL)
			return bad(r, "\"boxes\" of %s: not a name", q->name);
		if ((err = keep(r, name, &q->box_names[i])) != 0)
			return err;
	}
	q->box_first = *next_box;
	*next_box += q->nboxes;
	spec->nboxes += q->nboxes;
	return 0;
}

/* A counter of a recorded set: its name, unit, and the boxes it sums. */
static int
add_counter(
    struct replay *r, struct spec *spec, int k, const json_t *ev, int *next_box)
{
	struct spec_req *q = &spec->reqs[k];
	const json_t *boxes = json_object_get(ev, "boxes");
	const char *name, *unit;
	int err, i;

	if (!json_is_object(ev))
		return bad(r, "\"events\": not an object");
	if ((err = text_field(r, ev, "name", false, &name)) != 0 ||
	    (err = text_field(r, ev, "unit", false, &unit)) != 0)
		return err;
	if (name[0] == '\0')
		return bad(r, "\"name\": empty");
	if (strcmp(unit, "ns") != 0 && strcmp(unit, "count") != 0)
		return bad(r, "\"unit\" of %s: \"ns\" or \"count\"", name);
	for (i = 0; i < k; i++)
		if (strcmp(spec->reqs[i].name, name) == 0)
			return bad(r, "\"name\": %s twice in a set", name);
	q->picnum = k;
	if ((q->event = strdup(name)) == NULL ||
	    (q->name = strdup(name)) == NULL)
		return bad(r, "out of memory");
	return boxes != NULL ? add_boxes(r, spec, q, boxes, next_box) : 0;
}

/* Recorded set s of the head, checked, into *made. */
static int
spec_of(struct replay *r, const json_t *set, size_t s, struct spec **made)
{
	const json_t *events = json_object_get(set, "events");
	struct spec *spec;
	const char *text;
	long long n;
	int next_box, err;
	size_t k;

	if (!json_is_object(set))
		return bad(r, "\"sets\": set %zu is not an object", s);
	if ((err = int_field(r, set, "set", (long long)s, (long long)s, false,
		 -1, &n)) != 0 ||
	    (err = text_field(r, set, "spec", false, &text)) != 0)
		return err;
	if (!json_is_array(events) || json_array_size(events) == 0 ||
	    json_array_size(events) > MAX_EVENTS)
		return bad(r, "\"events\" of set %zu: not 1 to %d counters", s,
		    MAX_EVENTS);
	if ((*made = spec = calloc(1, sizeof(*spec))) == NULL ||
	    (spec->text = strdup(text)) == NULL ||
	    (spec->reqs = calloc(
		 json_array_size(events) + 1, sizeof(*spec->reqs))) == NULL)
		return bad(r, "out of memory");
	spec->nreqs = (int)json_array_size(events);
	next_box = spec->nreqs;
	for (k = 0; k < json_array_size(events); k++)
		if ((err = add_counter(r, spec, (int)k,
			 json_array_get(events, k), &next_box)) != 0)
			return err;
	if (spec_nvalues(spec) > r->nvalues)
		r->nvalues = spec_nvalues(spec);
	return 0;
}

/* A fact of the recorded machine, a number not below 0 (null: none). */
static int
fact(
    struct replay *r, const json_t *m, const char *key, bool null_ok, double *v)
{
	const json_t *j = json_object_get(m, key);

	*v = NAN;
	if (j == NULL)
		return bad(
		    r, "\"machine.%s\": missing (the formulas need it)", key);
	if (json_is_null(j) && null_ok)
		return 0;
	if (!json_is_number(j) || !isfinite(json_number_value(j)) ||
	    json_number_value(j) < 0 || json_number_value(j) > 1e15)
		return bad(
		    r, "\"machine.%s\": not a number from 0 to 1e15", key);
	*v = json_number_value(j);
	return 0;
}

/* A fact that is 0 or 1 (smt_on, has_pmem), as the record writes it. */
static int
flag_fact(struct replay *r, const json_t *m, const char *key, double *v)
{
	const json_t *j = json_object_get(m, key);

	if (json_is_boolean(j)) {
		*v = json_is_true(j);
		return 0;
	}
	if (!json_is_integer(j) ||
	    (json_integer_value(j) != 0 && json_integer_value(j) != 1))
		return bad(r, "\"machine.%s\": %s", key,
		    j == NULL ? "missing (the formulas need it)" :
				"not 0 or 1, false or true");
	*v = (double)json_integer_value(j);
	return 0;
}

/* The recorded machine's facts, each checked, for -M's formulas. */
static int
env_of(struct replay *r, const json_t *m)
{
	static const char *const counts[] = { "num_cpus", "num_cpus_online",
		"num_packages", "num_dies", "num_cores" };
	struct metric_env *e = &r->env;
	double *count_of[] = { &e->num_cpus, &e->num_cpus_online,
		&e->num_packages, &e->num_dies, &e->num_cores };
	const char *cpuid;
	size_t i;
	int err;

	if (m == NULL)
		return 0;
	if (!json_is_object(m))
		return bad(r, "\"machine\": not an object");
	if ((err = text_field(r, m, "cpuid", false, &cpuid)) != 0)
		return err;
	if (strlen(cpuid) >= sizeof(e->cpuid))
		return bad(r, "\"machine.cpuid\": longer than %zu bytes",
		    sizeof(e->cpuid) - 1);
	snprintf(e->cpuid, sizeof(e->cpuid), "%s", cpuid);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if ((err = fact(r, m, counts[i], false, count_of[i])) != 0)
			return err;
	if ((err = flag_fact(r, m, "smt_on", &e->smt_on)) != 0 ||
	    (err = flag_fact(r, m, "has_pmem", &e->has_pmem)) != 0 ||
	    (err = fact(r, m, "system_tsc_freq", true, &e->system_tsc_freq)) !=
		0 ||
	    (err = fact(r, m, "slots", true, &e->slots)) != 0 ||
	    (err = bool_field(
		 r, m, "system_wide", false, false, &e->system_wide)) != 0 ||
	    (err = bool_field(r, m, "siblings_counted", false, false,
		 &e->siblings_counted)) != 0)
		return err;
	r->has_env = true;
	return 0;
}

/* A start as RFC 3339 writes it (digits and -:.TZ+ alone), or none. */
static bool
is_timestamp(const char *s)
{
	return strspn(s, "0123456789-:.TZ+") == strlen(s) &&
	    strlen(s) < sizeof(((struct out_origin *)0)->start);
}

/*
 * Where, when and by which version the record was made: empty where the
 * head does not say (a record made by hand), never the reader's own.
 */
static int
origin_of(struct replay *r, const json_t *head)
{
	struct out_origin *o = &r->origin;
	const char *host, *start, *version;
	long long epoch;
	int err;

	if ((err = text_field(r, head, "tool_version", true, &version)) != 0 ||
	    (err = text_field(r, head, "host", true, &host)) != 0 ||
	    (err = text_field(r, head, "start", true, &start)) != 0 ||
	    (err = int_field(r, head, "start_epoch_ns", 0, LLONG_MAX, true, 0,
		 &epoch)) != 0)
		return err;
	version = version != NULL ? version : "";
	host = host != NULL ? host : "";
	start = start != NULL ? start : "";
	if (strlen(version) >= sizeof(o->tool_version))
		return bad(r, "\"tool_version\": longer than %zu bytes",
		    sizeof(o->tool_version) - 1);
	if (strlen(host) >= sizeof(o->host))
		return bad(
		    r, "\"host\": longer than %zu bytes", sizeof(o->host) - 1);
	if (!is_timestamp(start))
		return bad(r, "\"start\": not an RFC 3339 time");
	snprintf(o->tool_version, sizeof(o->tool_version), "%s", version);
	snprintf(o->host, sizeof(o->host), "%s", host);
	snprintf(o->start, sizeof(o->start), "%s", start);
	o->start_epoch_ns = (unsigned long long)epoch;
	r->cl->out.origin = o;
	return 0;
}

/* cpustat --per-*'s kind of unit, as the head names it (or none). */
static int
per_unit_of(struct replay *r, const json_t *head)
{
	const char *key;
	int err, k;

	if ((err = text_field(r, head, "per_unit", true, &key)) != 0 ||
	    key == NULL)
		return err;
	for (k = 1; k < TOPO_NUNITS; k++)
		if (strcmp(key, topology_unit_keys[k]) == 0) {
			r->cl->out.per_unit = k;
			return 0;
		}
	return bad(r, "\"per_unit\": not a kind of unit");
}

/* The head's columns: the table the run printed. */
static int
columns_of(struct replay *r, const json_t *head)
{
	struct out_config *out = &r->cl->out;
	int err;

	if (out->tool != OUT_CPUTRACK)
		return per_unit_of(r, head);
	if ((err = bool_field(r, head, "pid_column", true, false, &out->pid)) !=
	    0)
		return err;
	return bool_field(r, head, "cgroups", true, false, &out->cgroup_names);
}

/* The head's schema and tool: this command's record, or 2 (said). */
static int
tool_of(struct replay *r, const json_t *head)
{
	const char *tool = r->cl->tool == OUT_CPUTRACK ? "cputrack" : "cpustat";
	const char *schema, *made_by;
	long long version;
	int err;

	schema = json_string_value(json_object_get(head, "schema"));
	if (schema == NULL || strcmp(schema, "cpctools") != 0)
		return bad(r,
		    "not a cpctools record (no \"schema\":\"cpctools\" "
		    "head; write one with -j)");
	if ((err = int_field(r, head, "version", 1, OUTPUT_SCHEMA_VERSION,
		 false, 0, &version)) != 0 ||
	    (err = text_field(r, head, "tool", false, &made_by)) != 0)
		return err;
	if (strcmp(made_by, tool) != 0)
		return bad(r, "a record of %s: read it with %s --input",
		    strcmp(made_by, "cputrack") == 0 ? "cputrack" :
						       "another tool",
		    strcmp(made_by, "cputrack") == 0 ? "cputrack" : "cpustat");
	return 0;
}

/* The head's sets, each checked, as specs. */
static int
sets_of(struct replay *r, const json_t *head)
{
	const json_t *sets = json_object_get(head, "sets");
	struct spec *spec;
	size_t s;
	int err;

	if (!json_is_array(sets) || json_array_size(sets) == 0 ||
	    json_array_size(sets) > MAX_SETS)
		return bad(r, "\"sets\": not 1 to %d recorded sets", MAX_SETS);
	for (s = 0; s < json_array_size(sets); s++) {
		spec = NULL;
		err = spec_of(r, json_array_get(sets, s), s, &spec);
		if (err == 0 && setgrp_add_spec(r->specs, spec) != 0)
			err = bad(r, "set %zu: not a set", s);
		if (err != 0) {
			spec_free(spec);
			return err;
		}
	}
	return 0;
}

/* The head: its tool, origin, columns, sets and machine. */
static int
read_head(struct replay *r)
{
	json_t *head;
	int err;

	if ((head = next_object(r, &err)) == NULL)
		return err != 0 ? err : bad(r, "empty: no record's head");
	if ((err = tool_of(r, head)) == 0 && (err = origin_of(r, head)) == 0 &&
	    (err = columns_of(r, head)) == 0 && (err = sets_of(r, head)) == 0)
		err = env_of(r, json_object_get(head, "machine"));
	json_decref(head);
	return err;
}

/* The recorded set that has counter name, or -1. */
static int
set_with(const struct replay *r, const char *name, int *req)
{
	const struct spec *spec;
	int s, k;

	for (s = 0; s < setgrp_nsets(r->specs); s++) {
		spec = setgrp_spec(r->specs, s);
		for (k = 0; k < spec->nreqs; k++)
			if (metric_counter_is(spec->reqs[k].name, name)) {
				*req = k;
				return s;
			}
	}
	return -1;
}

/* -M's question about an event, answered by the record. */
static enum metric_event_kind
recorded_kind(
    void *arg, const char *event, const char *name, char *why, size_t len)
{
	const struct replay *r = arg;
	int s, k;

	(void)event;
	if ((s = set_with(r, name, &k)) < 0) {
		snprintf(why, len, "the record has no counter %s", name);
		return METRIC_EVENT_UNKNOWN;
	}
	return setgrp_spec(r->specs, s)->reqs[k].nboxes > 0 ?
	    METRIC_EVENT_SOCKET :
	    METRIC_EVENT_CORE;
}

/* -M's plan on the record, and the set that holds most of its events. */
static int
plan_metrics(struct replay *r)
{
	struct cmdline *cl = r->cl;
	const char *names[256];
	int *hits, i, k, n, s, req, best = 0, status;

	if (cl->metrics.nargs == 0)
		return metrics_option_plan(
		    &cl->metrics, NULL, cl->tool, NULL, NULL, &cl->out);
	if (!r->has_env)
		return bad(r,
		    "-M needs the recorded machine's facts, and the "
		    "head has no \"machine\"");
	cl->metrics.kind = recorded_kind;
	cl->metrics.kind_arg = r;
	if ((status = metrics_option_plan(
		 &cl->metrics, NULL, cl->tool, &r->env, NULL, &cl->out)) != 0)
		return status;
	if ((hits = calloc((size_t)setgrp_nsets(r->specs), sizeof(int))) ==
	    NULL)
		return bad(r, "out of memory");
	for (i = 0; i < metric_plan_nmetrics(cl->out.metric_plan); i++) {
		n = metric_plan_metric_events(
		    cl->out.metric_plan, i, names, 256);
		for (k = 0; k < n && k < 256; k++)
			if ((s = set_with(r, names[k], &req)) >= 0)
				hits[s]++;
	}
	for (s = 1; s < setgrp_nsets(r->specs); s++)
		if (hits[s] > hits[best])
			best = s;
	free(hits);
	cl->out.metric_set_given = true;
	cl->out.metric_set = best;
	return 0;
}

/*
 * A count of a row: an integer from 0, or null where the row was not
 * counted. *v: the count, or 0 for null.
 */
static int
count_of(struct replay *r, const json_t *j, const char *what, const char *name,
    bool counted, uint64_t *v)
{
	*v = 0;
	if (j == NULL && counted)
		return bad(r, "\"%s.%s\": missing", what, name);
	if (j == NULL || (json_is_null(j) && !counted))
		return 0;
	if (json_is_null(j))
		return bad(r, "\"%s.%s\": null in a row counted", what, name);
	if (!json_is_integer(j) || json_integer_value(j) < 0)
		return bad(r, "\"%s.%s\": not a count (an integer from 0)",
		    what, name);
	*v = (uint64_t)json_integer_value(j);
	return 0;
}

/* A counter's boxes' counts, "parts":{NAME:{BOX:v}}. */
static int
box_values(struct replay *r, const struct spec_req *q, const json_t *parts)
{
	const json_t *p = json_object_get(parts, q->name);
	char what[64];
	int b, err;

	if (p == NULL)
		return 0;
	snprintf(what, sizeof(what), "parts.%.50s", q->name);
	if (!json_is_object(p))
		return bad(r, "\"%s\": not an object", what);
	for (b = 0; b < q->nboxes; b++)
		if ((err = count_of(r, json_object_get(p, q->box_names[b]),
			 what, q->box_names[b], false,
			 &r->values[q->box_first + b])) != 0)
			return err;
	return 0;
}

/* A row's counts and their boxes into r->values, each checked. */
static int
row_values(
    struct replay *r, const struct spec *spec, const json_t *o, bool counted)
{
	const json_t *counters = json_object_get(o, "counters");
	const json_t *parts = json_object_get(o, "parts");
	const char *key;
	json_t *v;
	int k, err;

	if (!json_is_object(counters))
		return bad(r, "\"counters\": %s",
		    counters == NULL ? "missing" : "not an object");
	if (parts != NULL && !json_is_object(parts))
		return bad(r, "\"parts\": not an object");
	json_object_foreach((json_t *)counters, key, v)
	{
		for (k = 0; k < spec->nreqs; k++)
			if (strcmp(spec->reqs[k].name, key) == 0)
				break;
		if (k == spec->nreqs)
			return bad(r,
			    "\"counters.%.64s\": not a counter of its set",
			    key);
	}
	memset(r->values, 0, (size_t)r->nvalues * sizeof(uint64_t));
	for (k = 0; k < spec->nreqs; k++)
		if ((err = count_of(r,
			 json_object_get(counters, spec->reqs[k].name),
			 "counters", spec->reqs[k].name, counted,
			 &r->values[k])) != 0 ||
		    (err = box_values(r, &spec->reqs[k], parts)) != 0)
			return err;
	return 0;
}

/* A time of a row in ns: from 0 to MAX_TIME_NS, null where not counted. */
static int
time_of(struct replay *r, const json_t *o, const char *key, bool counted,
    bool required, uint64_t *ns)
{
	long long v;
	int err;

	if (counted && required && json_is_null(json_object_get(o, key)))
		return bad(r, "\"%s\": null in a row counted", key);
	err =
	    int_field(r, o, key, 0, MAX_TIME_NS, !(counted && required), 0, &v);
	*ns = (uint64_t)v;
	return err;
}

/* The counts of a row of set s, and their times. */
static int
row_counts(struct replay *r, struct out_row *row, const json_t *o)
{
	const struct spec *spec = setgrp_spec(r->specs, row->setno);
	bool counted = row->not_counted == NULL;
	const char *text;
	long long tsc;
	int err;

	if ((err = text_field(r, o, "spec", true, &text)) != 0)
		return err;
	if (text != NULL && strcmp(text, spec->text) != 0)
		return bad(r, "\"spec\": not set %d's", row->setno);
	if ((err = row_values(r, spec, o, counted)) != 0 ||
	    (err = time_of(
		 r, o, "enabled_ns", counted, true, &row->enabled_ns)) != 0 ||
	    (err = time_of(
		 r, o, "running_ns", counted, true, &row->running_ns)) != 0 ||
	    (err = time_of(
		 r, o, "elapsed_ns", counted, false, &row->elapsed_ns)) != 0 ||
	    (err = int_field(r, o, "tsc", 0, LLONG_MAX, true, -1, &tsc)) != 0)
		return err;
	if (row->running_ns > row->enabled_ns)
		return bad(r, "\"running_ns\": more than \"enabled_ns\"");
	if (counted && r->cl->out.tsc && tsc < 0)
		return bad(r,
		    "\"tsc\": none in the record (made without -t): -t "
		    "cannot show it");
	row->tick = tsc > 0 ? (uint64_t)tsc : 0;
	row->values = r->values;
	return 0;
}

/* The label of a row: one a run writes, as its literal. */
static int
label_of(struct replay *r, const json_t *o, const char **label)
{
	const char *text;
	size_t i;
	int err;

	if ((err = text_field(r, o, "label", false, &text)) != 0)
		return err;
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (strcmp(text, labels[i]) == 0) {
			*label = labels[i];
			return 0;
		}
	return bad(r, "\"label\": not a row's label");
}

/* Who and where a row is: its ids and its time. */
static int
row_place(
    struct replay *r, struct out_row *row, const json_t *o, hrtime_t start)
{
	const json_t *time = json_object_get(o, "time");
	long long pid, proc, lwp, tid, cpu, ncpus, child;
	double t;
	int err;

	if (!json_is_number(time) || !isfinite(json_number_value(time)) ||
	    json_number_value(time) < 0 ||
	    json_number_value(time) > (double)MAX_TIME_NS / 1e9)
		return bad(r, "\"time\": %s",
		    time == NULL ? "missing" : "not seconds from 0");
	t = json_number_value(time);
	if ((err = int_field(r, o, "pid", 0, INT_MAX, true, -1, &pid)) != 0 ||
	    (err = int_field(r, o, "proc", 1, LLONG_MAX, true, 0, &proc)) !=
		0 ||
	    (err = int_field(r, o, "lwp", 0, INT_MAX, true, -1, &lwp)) != 0 ||
	    (err = int_field(r, o, "tid", 0, INT_MAX, true, -1, &tid)) != 0 ||
	    (err = int_field(r, o, "cpu", 0, INT_MAX, true, -1, &cpu)) != 0 ||
	    (err = int_field(r, o, "ncpus", 0, INT_MAX, true, -1, &ncpus)) !=
		0 ||
	    (err = int_field(r, o, "child", 1, INT_MAX, true, 0, &child)) != 0)
		return err;
	row->when = start + (hrtime_t)llround(t * 1e9);
	row->pid = (pid_t)pid;
	row->proc = (unsigned long)proc;
	row->lwp = (int)lwp;
	row->tid = (pid_t)tid;
	row->cpu = (int)cpu;
	row->ncpus = (int)ncpus;
	row->child = (pid_t)child;
	return 0;
}

/* A topology unit's name, as perf writes it: S0-D0-C1, S0-D0-L3-ID2. */
static bool
is_unit_name(const char *s)
{
	return s[0] != '\0' && strlen(s) < 32 &&
	    strspn(s, "SDCNLID0123456789-") == strlen(s);
}

/* A row's texts: why not counted, its arguments, its unit, its cgroup. */
static int
row_texts(struct replay *r, struct out_row *row, const json_t *o)
{
	int err;

	if ((err = text_field(r, o, "not_counted", true, &row->not_counted)) !=
		0 ||
	    (err = text_field(r, o, "partial", true, &row->partial)) != 0 ||
	    (err = text_field(r, o, "args", true, &row->args)) != 0 ||
	    (err = text_field(r, o, "unit", true, &row->unit)) != 0 ||
	    (err = text_field(r, o, "cgroup", true, &row->comm)) != 0)
		return err;
	if (row->unit != NULL && !is_unit_name(row->unit))
		return bad(r, "\"unit\": not a topology unit's name");
	if (row->comm != NULL && row->pid != 0)
		return bad(r, "\"cgroup\": in a row of a process");
	return 0;
}

/* A row of the record, checked whole, into *row. */
static int
read_row(struct replay *r, struct out_row *row, const json_t *o, hrtime_t start)
{
	long long set;
	int err;

	*row = (struct out_row) { .intervals = 1, .setno = -1 };
	if (json_object_get(o, "schema") != NULL)
		return bad(r,
		    "a second record's head: records of two runs are "
		    "joined; read each alone");
	if ((err = label_of(r, o, &row->label)) != 0 ||
	    (err = row_place(r, row, o, start)) != 0 ||
	    (err = row_texts(r, row, o)) != 0 ||
	    (err = int_field(r, o, "set", 0, setgrp_nsets(r->specs) - 1, true,
		 -1, &set)) != 0)
		return err;
	if (json_object_get(o, "set") == NULL)
		return bad(r, "\"set\": missing");
	row->setno = (int)set;
	return row->setno >= 0 ? row_counts(r, row, o) : 0;
}

/* cputrack -r's summary: the run's, not a row; its shape is checked. */
static bool
is_summary(const json_t *o)
{
	return json_is_string(json_object_get(o, "label")) &&
	    strcmp(json_string_value(json_object_get(o, "label")), "runs") == 0;
}

/* Every row after the head, each checked before it is written. */
static int
write_rows(struct replay *r)
{
	struct out_row row;
	struct output *out;
	hrtime_t start;
	json_t *o;
	int err = 0, status;

	r->cl->out.specs = r->specs;
	r->cl->out.paced = true;
	if (r->has_env)
		r->cl->out.env = &r->env;
	if ((r->values = calloc((size_t)r->nvalues + 1, sizeof(uint64_t))) ==
		NULL ||
	    (out = output_open(r->cl->cpc, &r->cl->out)) == NULL)
		return 1;
	start = output_start_clock(out);
	output_title(out);
	while (err == 0 && (o = next_object(r, &err)) != NULL) {
		if (!is_summary(o) && (err = read_row(r, &row, o, start)) == 0)
			output_row(out, &row);
		json_decref(o);
	}
	status = output_close(out);
	return err != 0 ? err : status;
}

int
replay_stream(struct cmdline *cl, FILE *in, const char *name)
{
	struct replay r = { .cl = cl, .path = name, .in = in };
	int status, i;

	if (setgrp_nsets(cl->specs) > 0)
		return bad(&r,
		    "-c cannot be given: the record's own sets are "
		    "written again");
	if ((r.line = malloc(REPLAY_LINE_MAX + 1)) == NULL ||
	    (r.specs = setgrp_new(NULL)) == NULL)
		status = bad(&r, "out of memory");
	else if ((status = read_head(&r)) == 0 &&
	    (status = plan_metrics(&r)) == 0)
		status = write_rows(&r);
	metrics_option_free(&cl->out);
	/* What the output was lent ends here. */
	cl->out.origin = NULL;
	cl->out.env = NULL;
	cl->out.specs = NULL;
	setgrp_free(r.specs);
	free(r.line);
	free(r.values);
	for (i = 0; i < r.nkept; i++)
		free(r.kept[i]);
	return status;
}

int
replay_record(struct cmdline *cl, const char *path)
{
	FILE *in;
	int status;

	if (strcmp(path, "-") == 0)
		return replay_stream(cl, stdin, path);
	if ((in = fopen(path, "re")) == NULL) {
		diag(NULL, "--input %s: %s\n", path, strerror(errno));
		return 2;
	}
	status = replay_stream(cl, in, path);
	fclose(in);
	return status;
}
