/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CSV (RFC 4180, UTF-8), schema 2. The first line is the header, so that
 * any CSV reader takes it as one:
 *
 *   time,pid,lwp,tid,cpu,ncpus,label,set,enabled_ns,running_ns,tsc,
 *   <event>...,proc,child,args,not_counted,partial,key,value
 *
 * with one column per distinct event of all sets, in set order. The rows
 * that follow first are the run's facts, label "meta", one key and value
 * each (schema, version, tool, tool_version, host, start, start_epoch_ns,
 * set.N, unit.EVENT); then the rows, each filling the columns of its own
 * set's events and leaving the others empty. A field that does not apply,
 * or a value that was not counted, is empty, never 0.
 *
 * With cputrack's --for-each-cgroup, after those columns: cgroup, the
 * name of a cgroup's row (empty in a process's).
 *
 * With cpustat's --per-*, after those columns: socket, die, core and node,
 * the unit's (those its kind names; the others empty, as all four are in
 * the total's rows).
 *
 * With --metrics, after those columns: elapsed_ns (the wall-clock time
 * the row's values were counted over, where known), then one column per
 * distinct derived metric of all sets, metric.KEY (metric.ipc,
 * metric.cpus_utilized), empty where the row has no such metric.
 *
 * With -M, after those: elapsed_ns (where --metrics did not give it),
 * then per metric of -M metric.KEY (its value) and crossed.KEY (1 where
 * its threshold is crossed, 0 where not, empty without one), then
 * bottleneck (the key of the bottleneck); filled in the rows of -M's set.
 * The meta rows add metric_parent.KEY, metric_level.KEY, metric_unit.KEY
 * and metric_group.KEY: the tree, the unit and the name -M asked for.
 *
 * After cputrack -r's runs, four rows per set, labelled mean, rse_pct
 * (the mean's relative standard error in percent, empty for one run), min
 * and max, hold per event the tree's total over the runs; their key is
 * "runs" and their value how many.
 *
 * With -x SEP, SEP separates the fields instead of the comma, and a field
 * that holds SEP is quoted as one that holds a comma is.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "out_format.h"
#include "topology.h"

static const char *const fixed_columns =
    "time,pid,lwp,tid,cpu,ncpus,label,set,enabled_ns,running_ns,tsc";
static const char *const closing_columns =
    "proc,child,args,not_counted,partial,key,value";

/* Where -x asks for another separator: the line's commas become it. */
static void
separate(const struct out_run *run, struct out_buf *b, size_t from)
{
	char sep = run->cfg.csv_separator;
	bool quoted = false;
	size_t i;

	if (sep == '\0' || sep == ',')
		return;
	for (i = from; i < b->len; i++)
		if (b->data[i] == '"')
			quoted = !quoted;
		else if (!quoted && b->data[i] == ',')
			b->data[i] = sep;
}

/* One field: quoted when it holds the separator or a quote. */
static void
field(const struct out_run *run, struct out_buf *b, const char *s)
{
	out_buf_csv_sep(b, s,
	    run->cfg.csv_separator != '\0' ? run->cfg.csv_separator : ',');
}

/* -M's columns: elapsed_ns (where --metrics has none), two a metric, one. */
static int
plan_columns(const struct out_run *run)
{
	if (run->metric_set < 0)
		return 0;
	return !run->cfg.metrics + 2 * run->nplan + 1;
}

static void
empty_plan_columns(const struct out_run *run, struct out_buf *b)
{
	int i;

	for (i = 0; i < plan_columns(run); i++)
		out_buf_str(b, ",");
}

static void
plan_titles(const struct out_run *run, struct out_buf *b)
{
	const struct metric_shown *m;
	int i;

	if (run->metric_set < 0)
		return;
	if (!run->cfg.metrics)
		out_buf_str(b, ",elapsed_ns");
	for (i = 0; i < run->nplan; i++) {
		m = out_run_plan_metric(run, i);
		out_buf_str(b, ",metric.");
		field(run, b, m->key);
		out_buf_str(b, ",crossed.");
		field(run, b, m->key);
	}
	out_buf_str(b, ",bottleneck");
}

static void
meta(const struct out_run *run, struct out_buf *b, const char *key,
    const char *key_tail, const char *value)
{
	int i;

	/* time 0, pid to ncpus, the label, set to tsc, the events... */
	out_buf_str(b, "0.000000,,,,,,meta,,,,,");
	for (i = 0; i < run->nevents; i++)
		out_buf_str(b, ",");
	/* ...proc to partial, then the key and the value. */
	out_buf_str(b, ",,,,,");
	out_buf_str(b, key);
	if (key_tail != NULL) {
		out_buf_str(b, ".");
		field(run, b, key_tail);
	}
	out_buf_str(b, ",");
	field(run, b, value);
	/* ...and --for-each-cgroup's, --per-*'s and --metrics's, empty. */
	if (run->cfg.cgroup_names)
		out_buf_str(b, ",");
	for (i = 0; run->cfg.per_unit != 0 && i < TOPO_NFIELDS; i++)
		out_buf_str(b, ",");
	if (run->cfg.metrics)
		for (i = 0; i <= run->nmetric_keys; i++)
			out_buf_str(b, ",");
	empty_plan_columns(run, b);
	out_buf_str(b, "\n");
}

/* -M's tree, unit and asked name, a meta row each per metric. */
static void
plan_meta(const struct out_run *run, struct out_buf *b)
{
	const struct metric_shown *m;
	char level[16];
	int i;

	for (i = 0; run->metric_set >= 0 && i < run->nplan; i++) {
		m = out_run_plan_metric(run, i);
		meta(run, b, "metric_parent", m->key,
		    m->parent >= 0 ? out_run_plan_metric(run, m->parent)->key :
				     "");
		snprintf(level, sizeof(level), "%d", m->level);
		meta(run, b, "metric_level", m->key, level);
		meta(run, b, "metric_unit", m->key, m->unit);
		meta(run, b, "metric_group", m->key, m->group);
	}
}

static void
csv_head(void *state, const struct out_run *run, struct out_buf *b)
{
	size_t from = b->len;
	char text[32];
	int i;

	(void)state;
	out_buf_str(b, fixed_columns);
	for (i = 0; i < run->nevents; i++) {
		out_buf_str(b, ",");
		field(run, b, run->events[i].name);
	}
	out_buf_printf(b, ",%s", closing_columns);
	if (run->cfg.cgroup_names)
		out_buf_str(b, ",cgroup");
	for (i = 0; run->cfg.per_unit != 0 && i < TOPO_NFIELDS; i++)
		out_buf_printf(b, ",%s", topology_field_keys[i]);
	if (run->cfg.metrics) {
		out_buf_str(b, ",elapsed_ns");
		for (i = 0; i < run->nmetric_keys; i++) {
			out_buf_str(b, ",metric.");
			field(run, b, run->metric_keys[i]);
		}
	}
	plan_titles(run, b);
	out_buf_str(b, "\n");
	meta(run, b, "schema", NULL, "cpctools");
	snprintf(text, sizeof(text), "%d", OUTPUT_SCHEMA_VERSION);
	meta(run, b, "version", NULL, text);
	meta(run, b, "tool", NULL, run->tool);
	meta(run, b, "tool_version", NULL, run->tool_version);
	meta(run, b, "host", NULL, run->host);
	meta(run, b, "start", NULL, run->start_text);
	snprintf(text, sizeof(text), "%llu", out_run_start_ns(run));
	meta(run, b, "start_epoch_ns", NULL, text);
	for (i = 0; i < run->nsets; i++) {
		snprintf(text, sizeof(text), "%d", i);
		meta(run, b, "set", text, run->specs[i]->text);
	}
	for (i = 0; i < run->nevents; i++)
		meta(run, b, "unit", run->events[i].name, run->events[i].unit);
	plan_meta(run, b);
	separate(run, b, from);
}

static void
number(struct out_buf *b, long long v)
{
	if (v >= 0)
		out_buf_printf(b, "%lld", v);
	out_buf_str(b, ",");
}

/* The event columns: this row's set's values, the others empty. */
static void
values(const struct out_run *run, struct out_buf *b, const struct out_row *row,
    const struct spec *spec)
{
	int i, r;

	for (i = 0; i < run->nevents; i++) {
		for (r = 0; spec != NULL && row->not_counted == NULL &&
		     r < spec->nreqs;
		     r++) {
			if (strcmp(spec->reqs[r].name, run->events[i].name) !=
			    0)
				continue;
			out_buf_printf(
			    b, "%llu", (unsigned long long)row->values[r]);
			break;
		}
		out_buf_str(b, ",");
	}
}

/* --per-*: the unit's place (socket, die, ...), each after a comma. */
static void
unit_fields(struct out_buf *b, const char *unit)
{
	int f, v;

	for (f = 0; f < TOPO_NFIELDS; f++) {
		out_buf_str(b, ",");
		if ((v = topology_name_field(unit, (enum topo_field)f)) >= 0)
			out_buf_printf(b, "%d", v);
	}
}

/* --metrics: the row's elapsed time, then its keys in their columns. */
static void
metrics(const struct out_run *run, struct out_buf *b, const struct out_row *row)
{
	const struct out_metric *m;
	int n = out_run_set_metrics(run, row->setno, &m);
	double v;
	int k, i;

	out_buf_str(b, ",");
	if (row->setno >= 0 && row->not_counted == NULL && row->elapsed_ns > 0)
		out_buf_printf(b, "%llu", (unsigned long long)row->elapsed_ns);
	for (k = 0; k < run->nmetric_keys; k++) {
		out_buf_str(b, ",");
		for (i = 0; i < n; i++)
			if (m[i].by_key &&
			    strcmp(m[i].key, run->metric_keys[k]) == 0 &&
			    out_row_metric(row, i, &v)) {
				out_buf_printf(b, "%.15g", v);
				break;
			}
	}
}

/* -M: the row's elapsed time (where --metrics has none) and metrics. */
static void
plan_values(
    const struct out_run *run, struct out_buf *b, const struct out_row *row)
{
	const struct metric_value *plan = out_row_plan(run, row), *v;
	const char *bottleneck = NULL;
	int i;

	if (run->metric_set < 0)
		return;
	if (!run->cfg.metrics) {
		out_buf_str(b, ",");
		if (plan != NULL && row->not_counted == NULL &&
		    row->elapsed_ns > 0)
			out_buf_printf(
			    b, "%llu", (unsigned long long)row->elapsed_ns);
	}
	for (i = 0; i < run->nplan; i++) {
		v = plan != NULL ? &plan[i] : NULL;
		out_buf_str(b, ",");
		if (v != NULL && !isnan(v->value) && !isinf(v->value))
			out_buf_printf(b, "%.15g", v->value);
		out_buf_str(b, ",");
		if (v != NULL && v->crossed >= 0)
			out_buf_printf(b, "%d", v->crossed);
		if (v != NULL && v->bottleneck)
			bottleneck = out_run_plan_metric(run, i)->key;
	}
	out_buf_str(b, ",");
	if (bottleneck != NULL)
		field(run, b, bottleneck);
}

static void
csv_row(void *state, const struct out_run *run, struct out_buf *b,
    const struct out_row *row, hrtime_t t)
{
	const struct spec *spec =
	    row->setno >= 0 ? run->specs[row->setno] : NULL;
	bool counted = spec != NULL && row->not_counted == NULL;
	size_t from = b->len;

	(void)state;
	out_buf_printf(b, "%.6f,", (double)t / 1e9);
	number(b, row->pid);
	number(b, row->lwp);
	number(b, row->tid);
	number(b, row->cpu);
	number(b, row->ncpus);
	field(run, b, row->label);
	out_buf_str(b, ",");
	number(b, row->setno);
	if (counted)
		out_buf_printf(b, "%llu,%llu,",
		    (unsigned long long)row->enabled_ns,
		    (unsigned long long)row->running_ns);
	else
		out_buf_str(b, ",,");
	if (counted && run->cfg.tsc)
		out_buf_printf(b, "%llu", (unsigned long long)row->tick);
	out_buf_str(b, ",");
	values(run, b, row, spec);
	number(b, row->proc > 0 ? (long long)row->proc : -1);
	number(b, row->child > 0 ? row->child : -1);
	if (row->args != NULL)
		field(run, b, row->args);
	out_buf_str(b, ",");
	if (row->not_counted != NULL)
		field(run, b, row->not_counted);
	out_buf_str(b, ",");
	if (row->partial != NULL)
		field(run, b, row->partial);
	out_buf_str(b, ",,");
	if (run->cfg.cgroup_names) {
		out_buf_str(b, ",");
		if (row->pid == 0 && row->comm != NULL)
			field(run, b, row->comm);
	}
	if (run->cfg.per_unit != 0)
		unit_fields(b, row->unit);
	if (run->cfg.metrics)
		metrics(run, b, row);
	plan_values(run, b, row);
	out_buf_str(b, "\n");
	separate(run, b, from);
}

/* One summary row: the set's event columns from value(stat). */
static void
summary_row(const struct out_run *run, struct out_buf *b,
    const struct out_summary *sum, const char *label, int what)
{
	const struct spec *spec = run->specs[sum->setno];
	const struct out_runs_stat *st;
	size_t from = b->len;
	int i, r;

	out_buf_printf(b, ",,,,,,%s,%d,,,,", label, sum->setno);
	for (i = 0; i < run->nevents; i++) {
		for (r = 0; r < spec->nreqs; r++) {
			if (strcmp(spec->reqs[r].name, run->events[i].name) !=
			    0)
				continue;
			st = &sum->stats[r];
			if (what == 0)
				out_buf_printf(b, "%.15g", st->mean);
			else if (what == 1 && st->rse_pct >= 0)
				out_buf_printf(b, "%.4f", st->rse_pct);
			else if (what == 2)
				out_buf_printf(
				    b, "%llu", (unsigned long long)st->min);
			else if (what == 3)
				out_buf_printf(
				    b, "%llu", (unsigned long long)st->max);
			break;
		}
		out_buf_str(b, ",");
	}
	out_buf_printf(b, ",,,,,runs,%u", sum->runs);
	if (run->cfg.cgroup_names)
		out_buf_str(b, ",");
	if (run->cfg.metrics)
		for (i = 0; i <= run->nmetric_keys; i++)
			out_buf_str(b, ",");
	empty_plan_columns(run, b);
	out_buf_str(b, "\n");
	separate(run, b, from);
}

static void
csv_summary(
    const struct out_run *run, struct out_buf *b, const struct out_summary *sum)
{
	static const char *const labels[] = { "mean", "rse_pct", "min", "max" };
	int i;

	for (i = 0; i < 4; i++)
		summary_row(run, b, sum, labels[i], i);
}

const struct out_format_ops out_csv_format = {
	.head = csv_head,
	.row = csv_row,
	.summary = csv_summary,
};
