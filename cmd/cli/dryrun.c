/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --dry-run (see dryrun.h): libcpc builds each set as a run would, and
 * says what each request would count; nothing is bound.
 */
#include <errno.h>
#include <string.h>

#include <linux/perf_event.h>

#include "default_metrics.h"
#include "metric_plan.h"
#include "dryrun.h"

static void
attr_line(FILE *f, const char *pmu, const struct perf_event_attr *a)
{
	fprintf(f, "  %s%stype %u config %#llx%s%s\n", pmu != NULL ? pmu : "",
	    pmu != NULL ? ": " : "", a->type, (unsigned long long)a->config,
	    a->exclude_user ? " (no user)" : "",
	    a->exclude_kernel ? " (no kernel)" : "");
}

/* Request r of set: one attr, or one per core PMU; else why not. */
static void
request_lines(
    cpc_t *cpc, cpc_set_t *set, const struct spec *spec, int r, FILE *f)
{
	struct perf_event_attr a;
	const char *pmu;
	int core;

	fprintf(f, " pic%d %s (%s)", spec->reqs[r].picnum, spec->reqs[r].name,
	    spec->reqs[r].event);
	/* In a set of several groups ({...}), which one it counts in. */
	if (spec->ngroups > 1)
		fprintf(f, " group %d", spec->reqs[r].group);
	fputc('\n', f);
	if (cpc_set_request_attr(cpc, set, r, &a) == 0) {
		attr_line(f, NULL, &a);
		return;
	}
	if (errno != ENOTSUP) {
		fprintf(f, "  not one event: %s\n", strerror(errno));
		return;
	}
	for (core = 0; (pmu = cpc_core_pmu(cpc, core, NULL)) != NULL; core++)
		if (cpc_set_request_attr_core(cpc, set, r, core, &a) == 0)
			attr_line(f, pmu, &a);
		else
			fprintf(f, "  %s: no such event\n", pmu);
}

static void
metric_line(const struct spec *spec, const struct out_config *out, FILE *f)
{
	struct default_metrics ds;
	int u;

	if (!out->metrics || default_metrics_plan(spec, &ds) != 0)
		return;
	fputs(" metrics:", f);
	for (u = 0; u < ds.nuses; u++)
		fprintf(f, "%s %s", u > 0 ? "," : "", ds.uses[u].key);
	fputs(ds.nuses == 0 ? " none\n" : "\n", f);
	default_metrics_free(&ds);
}

/* -M's set: the metrics it gives, each under its parent. */
static void
plan_line(int s, const struct out_config *out, FILE *f)
{
	const struct metric_plan *p = out->metric_plan;
	const struct metric_shown *m;
	int i;

	if (p == NULL || !out->metric_set_given || out->metric_set != s)
		return;
	fputs(" -M metrics:", f);
	for (i = 0; i < metric_plan_nmetrics(p); i++) {
		m = metric_plan_metric(p, i);
		fprintf(f, "%s %s", i > 0 ? "," : "", m->key);
		if (m->parent >= 0)
			fprintf(f, " (under %s)",
			    metric_plan_metric(p, m->parent)->key);
	}
	fputs("\n", f);
}

int
dryrun_print(
    cpc_t *cpc, const setgrp_t *specs, const struct out_config *out, FILE *f)
{
	const struct spec *spec;
	cpc_set_t *set;
	int s, r, status = 0;

	for (s = 0; s < setgrp_nsets(specs); s++) {
		spec = setgrp_spec(specs, s);
		fprintf(f, "set %d: %s\n", s, spec->text);
		if ((set = spec_build_set(cpc, spec)) == NULL) {
			fprintf(f, " not built: %s\n", strerror(errno));
			status = 1;
			continue;
		}
		for (r = 0; r < spec->nreqs; r++)
			request_lines(cpc, set, spec, r, f);
		metric_line(spec, out, f);
		plan_line(s, out, f);
		cpc_set_destroy(cpc, set);
	}
	return status;
}
