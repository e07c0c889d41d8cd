/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON Lines, schema 2, one object a line, built and written by jansson,
 * so the text is always valid JSON in UTF-8: strings from outside (exec
 * arguments, the host name) are made valid UTF-8 first, each bad byte
 * becoming U+FFFD, and a control character or bidirectional control in
 * them is written \uXXXX (jansson's own for C0, out_buf_json_inert's for
 * the rest), so that no name reaches a terminal raw.
 *
 * The head:
 *   {"schema":"cpctools","version":2,"tool":T,"tool_version":V,
 *    "host":H,"start":RFC3339,"start_epoch_ns":N,
 *    "sets":[{"set":0,"spec":S,"events":[{"name":E,"unit":"ns"},...]}]}
 * and cputrack's adds "pid_column" (the table's pid column: -f) and
 * "cgroups" (--for-each-cgroup: rows of cgroups, each with "cgroup":NAME),
 * so that --input prints the table the run printed; cpustat's adds
 * "per_unit", the kind of unit of --per-* ("socket", ...) or null.
 * A row:
 *   {"time":s,"pid":..,"proc":..,"lwp":..,"tid":..,"cpu":..,"ncpus":..,"label":L,
 *    "set":n,"spec":S,"counters":{E:v,...},"enabled_ns":..,
 *    "running_ns":..,["tsc":..,]["child":..,]["args":..,]
 *    "not_counted":R,"partial":R}
 * On a hybrid CPU, rows of a set that counts on its core PMUs add
 * "parts":{E:{PMU:v,...},...}: each core PMU's part of each counter
 * counted on them (their sum is its value); a counter of an event summed
 * over the boxes of a PMU (uncore_imc_0 .. uncore_imc_N) has each box's
 * part there, under the box's name.
 * Counters whose event sysfs gives a scale (events/NAME.scale, .unit:
 * MiB, Joules) have "scale" and "scaled_unit" in the head's events, and
 * rows add "scaled":{E:v,...}, the count times the scale, and
 * "scaled_per_s":{E:v,...}, that per second of the row's elapsed time,
 * and "scaled_parts":{E:{PMU:v,...}} for its parts; "counters" keeps
 * the raw counts.
 * With cpustat's --per-*, rows add "unit":U (perf's name, S0-D0-C1; null
 * in a total) and "socket", "die", "core", "node": the unit's, null
 * where its kind does not name them.
 * Fields that do not apply are null; a value that was not counted is
 * null, never 0, with the reason in not_counted. Rows without counts
 * (fork, the exec marker) have no spec, counters or times. With
 * --metrics, rows of counts add "elapsed_ns" (null: not known) and
 * "metrics":{KEY:v,...}, the derived metrics the row has, and
 * "metrics_multiplexed":true when its counts were multiplexed.
 */
#include <math.h>
#include <stdint.h>

#include <jansson.h>

#include "out_format.h"
#include "out_json.h"
#include "topology.h"

void
out_json_put(struct out_json_obj *o, const char *key, json_t *value)
{
	if (o->json == NULL) {
		json_decref(value);
		o->ok = false;
	} else if (json_object_set_new(o->json, key, value) != 0) {
		o->ok = false;
	}
}

json_t *
out_json_text(const char *s)
{
	struct out_buf clean = { 0 };
	json_t *j;

	out_buf_utf8(&clean, s);
	j = clean.failed ? NULL : json_stringn(clean.data, clean.len);
	out_buf_free(&clean);
	return j;
}

void
out_json_put_clean(struct out_json_obj *o, const char *key, json_t *value)
{
	struct out_buf clean = { 0 };

	out_buf_utf8(&clean, key);
	if (clean.failed) {
		json_decref(value);
		o->ok = false;
	} else {
		out_json_put(o, clean.data, value);
	}
	out_buf_free(&clean);
}

static json_t *
number_or_null(long long v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

/* A count; one beyond what JSON readers take as an integer is null. */
static json_t *
count(uint64_t v)
{
	return v <= INT64_MAX ? json_integer((json_int_t)v) : json_null();
}

static json_t *
text_or_null(const char *s)
{
	return s != NULL ? out_json_text(s) : json_null();
}

static int
append(const char *data, size_t size, void *arg)
{
	struct out_buf *b = arg;

	out_buf_add(b, data, size);
	return b->failed ? -1 : 0;
}

void
out_json_emit(struct out_json_obj *o, struct out_buf *b)
{
	size_t from = b->len;

	if (!o->ok ||
	    json_dump_callback(o->json, append, b,
		JSON_COMPACT | JSON_REAL_PRECISION(15)) != 0)
		b->failed = true;
	json_decref(o->json);
	/* jansson escapes C0 only: names are made inert (safename.h). */
	out_buf_json_inert(b, from);
}

/*
 * The head's "machine", the facts a formula reads (--input reads them
 * back), and "metrics", what -M gives: each metric's key, name, unit,
 * scale, parent and level in the tree, the name -M asked for, and
 * whether it has a threshold. A row of -M's set adds its values to
 * "metrics" (null where none), and "metrics_crossed", "metrics_hidden"
 * (keys) and "bottleneck" (a key, or null).
 */
static json_t *
real_or_null(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

json_t *
out_json_machine(const struct out_run *run)
{
	const struct metric_env *e = &run->env;
	struct out_json_obj m = { json_object(), true };

	if (!run->has_env) {
		json_decref(m.json);
		return NULL;
	}
	out_json_put(&m, "cpuid", json_string(e->cpuid));
	out_json_put(&m, "smt_on", json_integer((json_int_t)e->smt_on));
	out_json_put(&m, "num_cpus", json_integer((json_int_t)e->num_cpus));
	out_json_put(&m, "num_cpus_online",
	    json_integer((json_int_t)e->num_cpus_online));
	out_json_put(
	    &m, "num_packages", json_integer((json_int_t)e->num_packages));
	out_json_put(&m, "num_dies", json_integer((json_int_t)e->num_dies));
	out_json_put(&m, "num_cores", json_integer((json_int_t)e->num_cores));
	out_json_put(&m, "system_tsc_freq", real_or_null(e->system_tsc_freq));
	out_json_put(&m, "slots", real_or_null(e->slots));
	out_json_put(&m, "has_pmem", json_integer((json_int_t)e->has_pmem));
	out_json_put(&m, "system_wide", json_boolean(e->system_wide));
	out_json_put(&m, "siblings_counted", json_boolean(e->siblings_counted));
	if (!m.ok) {
		json_decref(m.json);
		return NULL;
	}
	return m.json;
}

json_t *
out_json_metric_list(const struct out_run *run)
{
	const struct metric_shown *m, *parent;
	struct out_json_obj one;
	json_t *list = json_array();
	int i;

	for (i = 0; list != NULL && i < run->nplan; i++) {
		m = out_run_plan_metric(run, i);
		parent =
		    m->parent >= 0 ? out_run_plan_metric(run, m->parent) : NULL;
		one = (struct out_json_obj) { json_object(), true };
		out_json_put(&one, "key", json_string(m->key));
		out_json_put(&one, "name", json_string(m->name));
		out_json_put(&one, "pmu", json_string(m->pmu));
		out_json_put(&one, "unit", json_string(m->unit));
		out_json_put(&one, "scale", json_real(m->scale));
		out_json_put(&one, "parent",
		    parent != NULL ? json_string(parent->key) : json_null());
		out_json_put(&one, "level", json_integer(m->level));
		out_json_put(&one, "group", out_json_text(m->group));
		out_json_put(&one, "threshold", json_boolean(m->threshold));
		if (json_array_append_new(list, one.json) != 0 || !one.ok) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

void
out_json_plan_values(const struct out_run *run, struct out_json_obj *metrics,
    struct out_json_obj *row, const struct out_row *r)
{
	const struct metric_value *plan = out_row_plan(run, r);
	const struct metric_shown *m;
	const char *bottleneck = NULL;
	json_t *crossed = json_array(), *hidden = json_array();
	int i;

	for (i = 0; i < run->nplan; i++) {
		m = out_run_plan_metric(run, i);
		out_json_put(metrics, m->key, real_or_null(plan[i].value));
		if (plan[i].crossed == 1)
			json_array_append_new(crossed, json_string(m->key));
		if (plan[i].hidden)
			json_array_append_new(hidden, json_string(m->key));
		if (plan[i].bottleneck)
			bottleneck = m->key;
	}
	out_json_put(row, "metrics_crossed", crossed);
	out_json_put(row, "metrics_hidden", hidden);
	out_json_put(row, "bottleneck",
	    bottleneck != NULL ? json_string(bottleneck) : json_null());
}

/* A line of JSON Lines. */
static void
dump(struct out_json_obj *o, struct out_buf *b)
{
	out_json_emit(o, b);
	out_buf_str(b, "\n");
}

/* The boxes an event sums: their PMUs' names, as "parts" gives them. */
static json_t *
boxes(const struct spec_req *r)
{
	json_t *a = json_array();
	int k;

	for (k = 0; a != NULL && k < r->nboxes; k++)
		json_array_append_new(a, json_string(r->box_names[k]));
	return a;
}

static json_t *
set_object(const struct out_run *run, int s)
{
	const struct spec *spec = run->specs[s];
	struct out_json_obj set = { json_object(), true };
	struct out_json_obj event;
	json_t *events = json_array();
	int r, e;

	out_json_put(&set, "set", json_integer(s));
	out_json_put(&set, "spec", out_json_text(spec->text));
	for (r = 0; r < spec->nreqs; r++) {
		e = out_run_event(run, spec->reqs[r].name);
		event = (struct out_json_obj) { json_object(), true };
		out_json_put(
		    &event, "name", out_json_text(run->events[e].name));
		out_json_put(&event, "unit", json_string(run->events[e].unit));
		if (run->events[e].scaled) {
			out_json_put(&event, "scale",
			    json_real(run->events[e].scale.scale));
			out_json_put(&event, "scaled_unit",
			    json_string(run->events[e].scale.unit));
		}
		if (spec->reqs[r].nboxes > 0)
			out_json_put(&event, "boxes", boxes(&spec->reqs[r]));
		/* jansson takes the reference, appended or not. */
		if (json_array_append_new(events, event.json) != 0 || !event.ok)
			set.ok = false;
	}
	out_json_put(&set, "events", events);
	if (!set.ok) {
		json_decref(set.json);
		return NULL;
	}
	return set.json;
}

json_t *
out_json_sets(const struct out_run *run)
{
	json_t *sets = json_array();
	int s;

	for (s = 0; s < run->nsets; s++)
		if (json_array_append_new(sets, set_object(run, s)) != 0) {
			json_decref(sets);
			return NULL;
		}
	return sets;
}

static void
json_head(void *state, const struct out_run *run, struct out_buf *b)
{
	struct out_json_obj head = { json_object(), true };
	json_t *sets = out_json_sets(run), *machine;

	(void)state;
	out_json_put(&head, "schema", json_string("cpctools"));
	out_json_put(&head, "version", json_integer(OUTPUT_SCHEMA_VERSION));
	out_json_put(&head, "tool", json_string(run->tool));
	out_json_put(&head, "tool_version", out_json_text(run->tool_version));
	out_json_put(&head, "host", out_json_text(run->host));
	out_json_put(&head, "start", json_string(run->start_text));
	out_json_put(&head, "start_epoch_ns", count(out_run_start_ns(run)));
	if (run->cfg.tool == OUT_CPUTRACK) {
		out_json_put(&head, "pid_column", json_boolean(run->cfg.pid));
		out_json_put(
		    &head, "cgroups", json_boolean(run->cfg.cgroup_names));
	} else {
		out_json_put(&head, "per_unit",
		    text_or_null(run->cfg.per_unit > 0 &&
				run->cfg.per_unit < TOPO_NUNITS ?
			    topology_unit_keys[run->cfg.per_unit] :
			    NULL));
	}
	if (sets == NULL)
		head.ok = false;
	out_json_put(&head, "sets", sets);
	if ((machine = out_json_machine(run)) != NULL)
		out_json_put(&head, "machine", machine);
	if (run->metric_set >= 0) {
		out_json_put(
		    &head, "metrics_set", json_integer(run->metric_set));
		out_json_put(&head, "metrics", out_json_metric_list(run));
	}
	dump(&head, b);
}

/*
 * The row's elapsed time, and its metrics: --metrics's keys, and -M's in
 * a row of its set.
 */
static void
metrics(const struct out_run *run, struct out_json_obj *row,
    const struct out_row *r)
{
	const struct out_metric *keys;
	struct out_json_obj m = { json_object(), true };
	int i, n = out_run_set_metrics(run, r->setno, &keys);
	double v;

	out_json_put(row, "elapsed_ns",
	    r->not_counted == NULL && r->elapsed_ns > 0 ? count(r->elapsed_ns) :
							  json_null());
	if (!run->cfg.metrics && out_row_plan(run, r) == NULL) {
		json_decref(m.json);
		return;
	}
	for (i = 0; i < n; i++)
		if (keys[i].by_key && out_row_metric(r, i, &v))
			out_json_put_clean(&m, keys[i].key, json_real(v));
	if (out_row_plan(run, r) != NULL)
		out_json_plan_values(run, &m, row, r);
	if (!m.ok)
		row->ok = false;
	out_json_put(row, "metrics", m.json);
	if (json_object_size(m.json) > 0 && out_run_multiplexed(r))
		out_json_put(row, "metrics_multiplexed", json_true());
}

/*
 * Counters sysfs gives a scale: each one's value in its unit, and per
 * second of the row's elapsed time; null where not known.
 */
static void
scaled(const struct out_run *run, struct out_json_obj *row,
    const struct out_row *r)
{
	const struct spec *spec = run->specs[r->setno];
	struct out_json_obj v = { NULL, true }, rate = { NULL, true };
	const struct out_event *e;
	double x;
	int i;

	for (i = 0; run->any_scaled && i < spec->nreqs; i++) {
		if ((e = out_run_req_event(run, r->setno, i)) == NULL ||
		    !e->scaled)
			continue;
		if (v.json == NULL) {
			v.json = json_object();
			rate.json = json_object();
		}
		out_json_put_clean(&v, spec->reqs[i].name,
		    out_run_scaled(run, r, i, &x) ? json_real(x) : json_null());
		out_json_put_clean(&rate, spec->reqs[i].name,
		    out_run_scaled_rate(run, r, i, &x) ? json_real(x) :
							 json_null());
	}
	if (v.json == NULL)
		return;
	if (!v.ok || !rate.ok)
		row->ok = false;
	out_json_put(row, "scaled", v.json);
	out_json_put(row, "scaled_per_s", rate.json);
}

static bool
some_part_counted(
    const struct spec *spec, int i, int n, const struct out_row *r)
{
	int k;

	for (k = 0; k < n; k++)
		if (spec_part_counted(spec, i, k, r->cpus))
			return true;
	return false;
}

/*
 * Each parted counter's parts: on a hybrid CPU, its part counted on each
 * core PMU, {"instructions":{"cpu_core":v,"cpu_atom":v},...}; for an
 * event summed over the boxes of a PMU, each box's count,
 * {"uncore_imc/cas_count_read/":{"uncore_imc_0":v,...}}: the parts
 * the row's CPUs count (a CPU's own core PMU's, its socket's boxes),
 * never one of a PMU that counted none of them. With a sysfs scale,
 * "scaled_parts" has the same in the event's unit. Parts of what was
 * not counted are null.
 */
static void
parts(const struct out_run *run, struct out_json_obj *row,
    const struct out_row *r)
{
	const struct spec *spec = run->specs[r->setno];
	struct out_json_obj all = { NULL, true }, scaled = { NULL, true };
	struct out_json_obj one, one_scaled;
	bool counted = r->not_counted == NULL;
	const struct out_event *e;
	const char *const *names;
	const uint64_t *p;
	int i, k, n;

	for (i = 0; i < spec->nreqs; i++) {
		if ((n = spec_req_parts(spec, i, r->values, &names, &p)) == 0 ||
		    !some_part_counted(spec, i, n, r))
			continue;
		if (all.json == NULL)
			all.json = json_object();
		e = out_run_req_event(run, r->setno, i);
		if (e != NULL && e->scaled && scaled.json == NULL)
			scaled.json = json_object();
		one = (struct out_json_obj) { json_object(), true };
		one_scaled = (struct out_json_obj) {
			e != NULL && e->scaled ? json_object() : NULL, true
		};
		for (k = 0; k < n; k++) {
			if (!spec_part_counted(spec, i, k, r->cpus))
				continue;
			out_json_put_clean(&one, names[k],
			    counted ? count(p[k]) : json_null());
			if (one_scaled.json != NULL)
				out_json_put_clean(&one_scaled, names[k],
				    counted ? json_real(evscale_value(
						  &e->scale, p[k])) :
					      json_null());
		}
		if (!one.ok || !one_scaled.ok)
			all.ok = false;
		out_json_put_clean(&all, spec->reqs[i].name, one.json);
		if (one_scaled.json != NULL)
			out_json_put_clean(
			    &scaled, spec->reqs[i].name, one_scaled.json);
	}
	if (all.json == NULL)
		return;
	if (!all.ok || !scaled.ok)
		row->ok = false;
	out_json_put(row, "parts", all.json);
	if (scaled.json != NULL)
		out_json_put(row, "scaled_parts", scaled.json);
}

static void
counts(const struct out_run *run, struct out_json_obj *row,
    const struct out_row *r)
{
	const struct spec *spec = run->specs[r->setno];
	struct out_json_obj counters = { json_object(), true };
	bool counted = r->not_counted == NULL;
	int i;

	out_json_put(row, "spec", out_json_text(spec->text));
	for (i = 0; i < spec->nreqs; i++)
		out_json_put_clean(&counters, spec->reqs[i].name,
		    counted ? count(r->values[i]) : json_null());
	if (!counters.ok)
		row->ok = false;
	out_json_put(row, "counters", counters.json);
	scaled(run, row, r);
	parts(run, row, r);
	out_json_put(
	    row, "enabled_ns", counted ? count(r->enabled_ns) : json_null());
	out_json_put(
	    row, "running_ns", counted ? count(r->running_ns) : json_null());
	if (run->cfg.tsc)
		out_json_put(
		    row, "tsc", counted ? count(r->tick) : json_null());
	metrics(run, row, r);
}

/* --per-*: the row's unit and its place. */
static void
unit_fields(struct out_json_obj *row, const char *unit)
{
	int f;

	out_json_put(row, "unit", text_or_null(unit));
	for (f = 0; f < TOPO_NFIELDS; f++)
		out_json_put(row, topology_field_keys[f],
		    number_or_null(
			topology_name_field(unit, (enum topo_field)f)));
}

static void
json_row(void *state, const struct out_run *run, struct out_buf *b,
    const struct out_row *r, hrtime_t t)
{
	struct out_json_obj row = { json_object(), true };

	(void)state;
	out_json_put(&row, "time", json_real((double)(t / 1000) / 1e6));
	out_json_put(&row, "pid", number_or_null(r->pid));
	out_json_put(&row, "proc",
	    r->proc > 0 ? json_integer((json_int_t)r->proc) : json_null());
	out_json_put(&row, "lwp", number_or_null(r->lwp));
	out_json_put(&row, "tid", number_or_null(r->tid));
	out_json_put(&row, "cpu", number_or_null(r->cpu));
	out_json_put(&row, "ncpus", number_or_null(r->ncpus));
	out_json_put(&row, "label", out_json_text(r->label));
	if (run->cfg.cgroup_names && r->pid == 0 && r->comm != NULL)
		out_json_put(&row, "cgroup", out_json_text(r->comm));
	if (run->cfg.per_unit != 0)
		unit_fields(&row, r->unit);
	out_json_put(&row, "set", number_or_null(r->setno));
	if (r->setno >= 0)
		counts(run, &row, r);
	if (r->child > 0)
		out_json_put(&row, "child", json_integer(r->child));
	if (r->args != NULL)
		out_json_put(&row, "args", out_json_text(r->args));
	out_json_put(&row, "not_counted", text_or_null(r->not_counted));
	out_json_put(&row, "partial", text_or_null(r->partial));
	dump(&row, b);
}

/*
 * {"label":"runs","runs":N,"set":S,"spec":...,"counters":{EVENT:{"mean":,
 * "rse_pct":,"min":,"max":}}}: per event, the tree's total over the runs.
 */
static void
json_summary(
    const struct out_run *run, struct out_buf *b, const struct out_summary *sum)
{
	const struct spec *spec = run->specs[sum->setno];
	struct out_json_obj row = { json_object(), true };
	struct out_json_obj counters = { json_object(), true }, ev;
	const struct out_runs_stat *st;
	int r;

	out_json_put(&row, "label", json_string("runs"));
	out_json_put(&row, "runs", json_integer(sum->runs));
	out_json_put(&row, "set", json_integer(sum->setno));
	out_json_put(&row, "spec", out_json_text(spec->text));
	for (r = 0; r < spec->nreqs; r++) {
		st = &sum->stats[r];
		ev = (struct out_json_obj) { json_object(), true };
		out_json_put(&ev, "mean", json_real(st->mean));
		out_json_put(&ev, "rse_pct",
		    st->rse_pct >= 0 ? json_real(st->rse_pct) : json_null());
		out_json_put(&ev, "min", count(st->min));
		out_json_put(&ev, "max", count(st->max));
		if (!ev.ok)
			counters.ok = false;
		out_json_put_clean(&counters, spec->reqs[r].name, ev.json);
	}
	if (!counters.ok)
		row.ok = false;
	out_json_put(&row, "counters", counters.json);
	dump(&row, b);
}

const struct out_format_ops out_json_format = {
	.head = json_head,
	.row = json_row,
	.summary = json_summary,
};
