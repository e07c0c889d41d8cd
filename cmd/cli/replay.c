/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --input (see replay.h). The head's sets become specs of the record's
 * counter names (no libcpc set: nothing is counted), its "machine" the
 * facts -M's formulas read; -M is planned on what the record holds, and
 * reads the recorded set that holds most of its events. Each row goes to
 * the output as the run gave it, at its recorded time.
 */
#include <errno.h>
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

#define MAX_LABELS 64

struct replay {
	struct cmdline *cl;
	const char *path;
	FILE *in;
	char *line;
	size_t cap;
	unsigned long lineno;
	setgrp_t *specs;
	struct metric_env env;
	bool has_env;
	/* Strings rows point at past their line: labels and box names. */
	char *kept[MAX_LABELS * 4];
	int nkept;
	uint64_t *values;
	int nvalues;
};

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

/* The next line as JSON: an object, or NULL at the end (*err: why). */
static json_t *
next_object(struct replay *r, int *err)
{
	json_error_t je;
	json_t *o;

	*err = 0;
	if (getline(&r->line, &r->cap, r->in) < 0) {
		if (ferror(r->in))
			*err = bad(r, "%s", strerror(errno));
		return NULL;
	}
	r->lineno++;
	if ((o = json_loads(r->line, 0, &je)) == NULL || !json_is_object(o)) {
		json_decref(o);
		*err = bad(r, "not a JSON object: %s", je.text);
		return NULL;
	}
	return o;
}

/* A string kept for the run: a row's label points at it. */
static const char *
keep(struct replay *r, const char *s)
{
	int i;

	for (i = 0; i < r->nkept; i++)
		if (strcmp(r->kept[i], s) == 0)
			return r->kept[i];
	if (r->nkept == (int)(sizeof(r->kept) / sizeof(r->kept[0])) ||
	    (r->kept[r->nkept] = strdup(s)) == NULL)
		return "?";
	return r->kept[r->nkept++];
}

static double
number_of(const json_t *o, const char *key, double none)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : none;
}

/* A counter of a recorded set: its name, and the boxes it sums. */
static int
add_counter(
    struct replay *r, struct spec *spec, int k, const json_t *ev, int *next_box)
{
	struct spec_req *q = &spec->reqs[k];
	const json_t *boxes = json_object_get(ev, "boxes"), *b;
	size_t i;

	q->picnum = k;
	q->event = strdup(json_string_value(json_object_get(ev, "name")));
	q->name = q->event != NULL ? strdup(q->event) : NULL;
	if (q->name == NULL)
		return -1;
	if (!json_is_array(boxes) || json_array_size(boxes) == 0)
		return 0;
	q->nboxes = (int)json_array_size(boxes);
	if ((q->box_names = calloc((size_t)q->nboxes, sizeof(char *))) == NULL)
		return -1;
	for (i = 0; i < json_array_size(boxes); i++) {
		b = json_array_get(boxes, i);
		q->box_names[i] =
		    keep(r, json_is_string(b) ? json_string_value(b) : "?");
	}
	q->box_first = *next_box;
	*next_box += q->nboxes;
	spec->nboxes += q->nboxes;
	return 0;
}

static struct spec *
spec_of(struct replay *r, const json_t *set)
{
	const json_t *events = json_object_get(set, "events"), *ev;
	const char *text = json_string_value(json_object_get(set, "spec"));
	struct spec *spec = calloc(1, sizeof(*spec));
	int next_box;
	size_t k;

	if (spec == NULL || !json_is_array(events) || text == NULL) {
		free(spec);
		return NULL;
	}
	spec->nreqs = (int)json_array_size(events);
	spec->text = strdup(text);
	spec->reqs = calloc((size_t)spec->nreqs + 1, sizeof(*spec->reqs));
	next_box = spec->nreqs;
	for (k = 0; k < json_array_size(events); k++) {
		ev = json_array_get(events, k);
		if (spec->text == NULL || spec->reqs == NULL ||
		    !json_is_string(json_object_get(ev, "name")) ||
		    add_counter(r, spec, (int)k, ev, &next_box) != 0) {
			spec_free(spec);
			return NULL;
		}
	}
	if (spec_nvalues(spec) > r->nvalues)
		r->nvalues = spec_nvalues(spec);
	return spec;
}

static void
env_of(struct replay *r, const json_t *m)
{
	const char *cpuid = json_string_value(json_object_get(m, "cpuid"));

	if (!json_is_object(m) || cpuid == NULL)
		return;
	snprintf(r->env.cpuid, sizeof(r->env.cpuid), "%s", cpuid);
	r->env.smt_on = number_of(m, "smt_on", 0);
	r->env.num_cpus = number_of(m, "num_cpus", NAN);
	r->env.num_cpus_online = number_of(m, "num_cpus_online", NAN);
	r->env.num_packages = number_of(m, "num_packages", NAN);
	r->env.num_dies = number_of(m, "num_dies", NAN);
	r->env.num_cores = number_of(m, "num_cores", NAN);
	r->env.system_tsc_freq = number_of(m, "system_tsc_freq", NAN);
	r->env.slots = number_of(m, "slots", NAN);
	r->env.has_pmem = number_of(m, "has_pmem", 0);
	r->env.system_wide = json_is_true(json_object_get(m, "system_wide"));
	r->env.siblings_counted =
	    json_is_true(json_object_get(m, "siblings_counted"));
	r->has_env = true;
}

/* The head: its tool, its sets, its machine. */
static int
read_head(struct replay *r)
{
	const char *tool = r->cl->tool == OUT_CPUTRACK ? "cputrack" : "cpustat";
	const json_t *sets, *set;
	struct spec *spec;
	json_t *head;
	size_t s;
	int err;

	if ((head = next_object(r, &err)) == NULL)
		return err != 0 ? err : bad(r, "empty: no record's head");
	if (strcmp(json_string_value(json_object_get(head, "schema")) ?: "",
		"cpctools") != 0) {
		json_decref(head);
		return bad(r,
		    "not a cpctools record (no \"schema\":\"cpctools\" "
		    "head; write one with -j)");
	}
	if (strcmp(json_string_value(json_object_get(head, "tool")) ?: "",
		tool) != 0) {
		err = bad(r, "a record of %s: read it with %s --input",
		    json_string_value(json_object_get(head, "tool")) ?: "?",
		    json_string_value(json_object_get(head, "tool")) ?: "it");
		json_decref(head);
		return err;
	}
	sets = json_object_get(head, "sets");
	for (s = 0; s < json_array_size(sets); s++) {
		set = json_array_get(sets, s);
		if ((spec = spec_of(r, set)) == NULL ||
		    setgrp_add_spec(r->specs, spec) != 0) {
			spec_free(spec);
			json_decref(head);
			return bad(r, "set %zu: not a recorded set", s);
		}
	}
	env_of(r, json_object_get(head, "machine"));
	json_decref(head);
	if (setgrp_nsets(r->specs) == 0)
		return bad(r, "the head names no set");
	return 0;
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

static const char *
text_of(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static long long
int_of(const json_t *o, const char *key, long long none)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : none;
}

/* A row's counts and boxes into values; false where one was not counted. */
static bool
row_values(struct replay *r, const struct spec *spec, const json_t *o)
{
	const json_t *counters = json_object_get(o, "counters");
	const json_t *parts = json_object_get(o, "parts"), *v, *p;
	bool all = json_is_object(counters);
	int k, b;

	memset(r->values, 0, (size_t)r->nvalues * sizeof(uint64_t));
	for (k = 0; all && k < spec->nreqs; k++) {
		v = json_object_get(counters, spec->reqs[k].name);
		if (!json_is_integer(v)) {
			all = false;
			break;
		}
		r->values[k] = (uint64_t)json_integer_value(v);
		p = json_object_get(parts, spec->reqs[k].name);
		for (b = 0; b < spec->reqs[k].nboxes; b++) {
			v = json_object_get(p, spec->reqs[k].box_names[b]);
			if (json_is_integer(v))
				r->values[spec->reqs[k].box_first + b] =
				    (uint64_t)json_integer_value(v);
		}
	}
	return all;
}

static void
write_row(struct replay *r, struct output *out, hrtime_t start, json_t *o)
{
	struct out_row row = { 0 };
	const struct spec *spec = NULL;
	int set = (int)int_of(o, "set", -1);

	row.label = keep(r, text_of(o, "label") ?: "?");
	row.when = start + (hrtime_t)llround(number_of(o, "time", 0) * 1e9);
	row.pid = (pid_t)int_of(o, "pid", -1);
	row.proc = (unsigned long)int_of(o, "proc", 0);
	row.lwp = (int)int_of(o, "lwp", -1);
	row.tid = (pid_t)int_of(o, "tid", -1);
	row.cpu = (int)int_of(o, "cpu", -1);
	row.ncpus = (int)int_of(o, "ncpus", -1);
	row.unit = text_of(o, "unit");
	row.intervals = (unsigned long)int_of(o, "intervals", 1);
	row.child = (pid_t)int_of(o, "child", 0);
	row.args = text_of(o, "args");
	row.not_counted = text_of(o, "not_counted");
	row.partial = text_of(o, "partial");
	row.setno = set >= 0 && set < setgrp_nsets(r->specs) ? set : -1;
	if (row.setno >= 0) {
		spec = setgrp_spec(r->specs, row.setno);
		if (!row_values(r, spec, o) && row.not_counted == NULL)
			row.not_counted = "the record has no count";
		row.values = r->values;
		row.enabled_ns = (uint64_t)int_of(o, "enabled_ns", 0);
		row.running_ns = (uint64_t)int_of(o, "running_ns", 0);
		row.elapsed_ns = (uint64_t)int_of(o, "elapsed_ns", 0);
		row.tick = (uint64_t)int_of(o, "tsc", 0);
	}
	output_row(out, &row);
}

/* Every row after the head; -r's summaries are the run's, not rows. */
static int
write_rows(struct replay *r)
{
	struct output *out;
	hrtime_t start;
	json_t *o;
	int err = 0, status;

	r->cl->out.specs = r->specs;
	if (r->has_env)
		r->cl->out.env = &r->env;
	if ((r->values = calloc((size_t)r->nvalues + 1, sizeof(uint64_t))) ==
		NULL ||
	    (out = output_open(r->cl->cpc, &r->cl->out)) == NULL)
		return 1;
	start = output_start_clock(out);
	output_title(out);
	while ((o = next_object(r, &err)) != NULL) {
		if (strcmp(text_of(o, "label") ?: "", "runs") != 0)
			write_row(r, out, start, o);
		json_decref(o);
	}
	status = output_close(out);
	return err != 0 ? err : status;
}

int
replay_record(struct cmdline *cl, const char *path)
{
	struct replay r = { .cl = cl, .path = path };
	int status, i;

	if (setgrp_nsets(cl->specs) > 0)
		return bad(&r,
		    "-c cannot be given: the record's own sets are "
		    "written again");
	r.in = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	if (r.in == NULL)
		return bad(&r, "%s", strerror(errno));
	if ((r.specs = setgrp_new(NULL)) == NULL)
		status = bad(&r, "out of memory");
	else if ((status = read_head(&r)) == 0 &&
	    (status = plan_metrics(&r)) == 0)
		status = write_rows(&r);
	metrics_option_free(&cl->out);
	setgrp_free(r.specs);
	if (r.in != stdin)
		fclose(r.in);
	free(r.line);
	free(r.values);
	for (i = 0; i < r.nkept; i++)
		free(r.kept[i]);
	return status;
}
