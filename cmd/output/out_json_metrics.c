/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON's metric parts (see out_json.h): the head's "machine", the facts
 * a formula reads (--input reads them back), and "metrics", what -M
 * gives: each metric's key, name, unit, scale, parent and level in the
 * tree, the name -M asked for, and whether it has a threshold. A row of
 * -M's set adds its values to "metrics" (null where none), and
 * "metrics_crossed", "metrics_hidden" (keys) and "bottleneck" (a key, or
 * null).
 */
#include <math.h>

#include "out_json.h"

static json_t *
number(double v)
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
	out_json_put(&m, "system_tsc_freq", number(e->system_tsc_freq));
	out_json_put(&m, "slots", number(e->slots));
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

	for (i = 0; list != NULL && i < run->nmetrics; i++) {
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
	const struct metric_shown *m;
	const char *bottleneck = NULL;
	json_t *crossed = json_array(), *hidden = json_array();
	int i;

	for (i = 0; i < run->nmetrics; i++) {
		m = out_run_plan_metric(run, i);
		out_json_put(metrics, m->key, number(r->metrics[i].value));
		if (r->metrics[i].crossed == 1)
			json_array_append_new(crossed, json_string(m->key));
		if (r->metrics[i].hidden)
			json_array_append_new(hidden, json_string(m->key));
		if (r->metrics[i].bottleneck)
			bottleneck = m->key;
	}
	out_json_put(row, "metrics_crossed", crossed);
	out_json_put(row, "metrics_hidden", hidden);
	out_json_put(row, "bottleneck",
	    bottleneck != NULL ? json_string(bottleneck) : json_null());
}
