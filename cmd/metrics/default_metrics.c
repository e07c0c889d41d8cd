/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --metrics (see default_metrics.h): each key is a metric of the data,
 * planned alone and bound to the counters of one mode of the set. The
 * data's clocks follow #target_cpu (cpu-clock per CPU, task-clock per
 * thread); here the set's own clock decides, task-clock first, so a
 * set's metrics never depend on which tool counts it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "default_metrics.h"
#include "metric_model.h"

/*
 * The keys, in the order rows give them. factor turns the data's unit
 * into the one these keys have always had (per second to K/sec).
 */
static const struct key_def {
	const char *key;
	const char *model; /* "common": perf's Default; "cpctools": ours */
	const char *metric;
	const char *label;
	const char *unit;
	double factor;
} keys[] = {
	{ "ipc", "common", "insn_per_cycle", "insn per cycle", "", 1 },
	{ "cpi", "cpctools", "cycles_per_instruction", "cycles per insn", "",
	    1 },
	{ "branch_miss_pct", "common", "branch_miss_rate", "of all branches",
	    "%", 1 },
	{ "cache_miss_pct", "cpctools", "cache_miss_rate", "of all cache refs",
	    "%", 1 },
	{ "l1d_miss_pct", "common", "l1d_miss_rate",
	    "of all L1-dcache accesses", "%", 1 },
	{ "cpus_utilized", "common", "CPUs_utilized", "CPUs utilized", "", 1 },
	{ "ghz", "common", "cycles_frequency", "GHz", "", 1 },
	{ "page_faults_k_per_sec", "common", "page_faults_per_second",
	    "page-faults", "K/sec", 1e-3 },
	{ "minor_faults_k_per_sec", "cpctools", "minor_faults_per_second",
	    "minor-faults", "K/sec", 1e-3 },
	{ "major_faults_k_per_sec", "cpctools", "major_faults_per_second",
	    "major-faults", "K/sec", 1e-3 },
	{ "context_switches_k_per_sec", "common", "cs_per_second",
	    "context-switches", "K/sec", 1e-3 },
	{ "cpu_migrations_k_per_sec", "common", "migrations_per_second",
	    "cpu-migrations", "K/sec", 1e-3 },
};

#define NKEYS ((int)(sizeof(keys) / sizeof(keys[0])))

/* Rows name an event as the kernel's generic names; the data as perf's. */
static const char *
data_name(const char *name)
{
	return strcmp(name, "branch-instructions") == 0 ? "branches" : name;
}

/*
 * The modes that end a counter's name (":u", ":u#pic1", "#pic1"), or ""
 * for none: a set names its counters so only where it counts an event
 * more than once (spec.h).
 */
static const char *
modes_of(const char *name)
{
	const char *end = name + strlen(name), *pic = strrchr(name, '#');
	const char *p;

	if (pic != NULL && strncmp(pic, "#pic", 4) == 0 && pic[4] != '\0' &&
	    strspn(pic + 4, "0123456789") == strlen(pic + 4))
		end = pic;
	for (p = end; p > name && strchr("ukhHGI", p[-1]) != NULL; p--)
		;
	if (p < end && p > name && p[-1] == ':')
		return p - 1;
	return end;
}

/* The counters of one mode of a set, named as the data names them. */
struct mode_view {
	const char *modes;
	struct spec spec;
	int *counter; /* its counter i is the set's counter[i] */
	bool task_clock;
};

static void
view_free(struct mode_view *v)
{
	int i;

	for (i = 0; v->spec.reqs != NULL && i < v->spec.nreqs; i++)
		free(v->spec.reqs[i].name);
	free(v->spec.reqs);
	free(v->counter);
}

static int
view_make(const struct spec *spec, const char *modes, struct mode_view *v)
{
	const char *m;
	char *name;
	int r, n = 0;

	memset(v, 0, sizeof(*v));
	v->modes = modes;
	v->spec.reqs = calloc((size_t)spec->nreqs + 1, sizeof(*v->spec.reqs));
	v->counter = calloc((size_t)spec->nreqs + 1, sizeof(*v->counter));
	if (v->spec.reqs == NULL || v->counter == NULL)
		return -1;
	for (r = 0; r < spec->nreqs; r++) {
		m = modes_of(spec->reqs[r].name);
		if (strcmp(m, modes) != 0)
			continue;
		name = strndup(
		    spec->reqs[r].name, (size_t)(m - spec->reqs[r].name));
		if (name == NULL)
			return -1;
		v->task_clock |= strcmp(name, "task-clock") == 0;
		v->spec.reqs[n].name = name;
		v->spec.reqs[n].event = (char *)data_name(name);
		v->counter[n++] = r;
		v->spec.nreqs = n;
	}
	return 0;
}

/* The distinct modes of spec's counters, in order: how many, or -1. */
static int
views_make(const struct spec *spec, struct mode_view *views)
{
	const char *m;
	int r, i, n = 0;

	for (r = 0; r < spec->nreqs; r++) {
		m = modes_of(spec->reqs[r].name);
		for (i = 0; i < n && strcmp(views[i].modes, m) != 0; i++)
			;
		if (i < n)
			continue;
		if (view_make(spec, m, &views[n++]) != 0)
			return -n;
	}
	return n;
}

static int
add_use(struct default_metrics *dm, const struct default_metric *u)
{
	struct default_metric *grown;

	grown = reallocarray(dm->uses, (size_t)dm->nuses + 1, sizeof(*grown));
	if (grown == NULL)
		return -1;
	dm->uses = grown;
	grown[dm->nuses++] = *u;
	return 0;
}

/* The plan of k alone, for counters of v: NULL where v lacks an event. */
static struct metric_plan *
plan_key(const struct key_def *k, const struct mode_view *v, int *failed)
{
	struct metric_env env = { .system_wide = !v->task_clock };
	struct metric_ask ask = { .names = k->metric,
		.no_threshold = true,
		.core_pmu = "cpu",
		.modes = "" };
	const struct metric_model *model = metric_model_named(k->model);
	struct metric_plan *p;
	char err[512];

	*failed = 0;
	if (model == NULL ||
	    (p = metric_plan_new(
		 model, &env, &ask, err, sizeof(err), NULL, 0)) == NULL) {
		fprintf(stderr, "--metrics: %s: %s\n", k->metric,
		    model == NULL ? "no such data" : err);
		*failed = 1;
		return NULL;
	}
	if (metric_plan_nmetrics(p) != 1 ||
	    metric_plan_bind(p, &v->spec, err, sizeof(err)) != 0) {
		metric_plan_free(p);
		return NULL;
	}
	return p;
}

/* Key k of counters of v, added to dm where v has its events. */
static int
plan_use(const struct key_def *k, const struct mode_view *v,
    struct default_metrics *dm)
{
	struct default_metric u = { .unit = k->unit, .factor = k->factor };
	int i, failed;

	snprintf(u.key, sizeof(u.key), "%s%s", k->key, v->modes);
	for (i = 0; i < dm->nuses; i++)
		if (strcmp(dm->uses[i].key, u.key) == 0)
			return 0;
	if ((u.plan = plan_key(k, v, &failed)) == NULL)
		return failed ? -1 : 0;
	if (*v->modes != '\0')
		snprintf(u.label, sizeof(u.label), "%s (%s)", k->label,
		    v->modes + 1);
	else
		snprintf(u.label, sizeof(u.label), "%s", k->label);
	u.ncounters = v->spec.nreqs;
	u.counter = calloc((size_t)u.ncounters + 1, sizeof(*u.counter));
	u.counts = calloc((size_t)u.ncounters + 1, sizeof(*u.counts));
	if (u.counter != NULL)
		memcpy(u.counter, v->counter,
		    (size_t)u.ncounters * sizeof(*u.counter));
	if (u.counter == NULL || u.counts == NULL || add_use(dm, &u) != 0) {
		metric_plan_free(u.plan);
		free(u.counter);
		free(u.counts);
		return -1;
	}
	return 0;
}

int
default_metrics_plan(const struct spec *spec, struct default_metrics *dm)
{
	struct mode_view *views;
	int i, k, n, rc = 0;

	dm->uses = NULL;
	dm->nuses = 0;
	views = calloc((size_t)spec->nreqs + 1, sizeof(*views));
	if (views == NULL)
		return -1;
	if ((n = views_make(spec, views)) < 0) {
		n = -n;
		rc = -1;
	}
	for (k = 0; rc == 0 && k < NKEYS; k++)
		for (i = 0; rc == 0 && i < n; i++)
			rc = plan_use(&keys[k], &views[i], dm);
	for (i = 0; i < n; i++)
		view_free(&views[i]);
	free(views);
	/* Once the array has stopped moving. */
	for (i = 0; i < dm->nuses; i++)
		pthread_mutex_init(&dm->uses[i].lock, NULL);
	if (rc != 0)
		default_metrics_free(dm);
	return rc;
}

void
default_metrics_free(struct default_metrics *dm)
{
	int i;

	for (i = 0; i < dm->nuses; i++) {
		pthread_mutex_destroy(&dm->uses[i].lock);
		metric_plan_free(dm->uses[i].plan);
		free(dm->uses[i].counter);
		free(dm->uses[i].counts);
	}
	free(dm->uses);
	dm->uses = NULL;
	dm->nuses = 0;
}

bool
default_metric_value(const struct default_metric *u, const uint64_t *values,
    double elapsed_s, double *value)
{
	struct metric_value out;
	struct metric_counts in = {
		.values = u->counts,
		.nvalues = u->ncounters,
		.cpus = 1,
		.elapsed_s = elapsed_s,
		.counted = true,
	};
	struct default_metric *w = (struct default_metric *)u;
	int i;

	pthread_mutex_lock(&w->lock);
	for (i = 0; i < u->ncounters; i++)
		u->counts[i] = values[u->counter[i]];
	metric_plan_eval(u->plan, &in, true, &out);
	pthread_mutex_unlock(&w->lock);
	if (isnan(out.value) || isinf(out.value))
		return false;
	*value = out.value * u->factor;
	return true;
}
