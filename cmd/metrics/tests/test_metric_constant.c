/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * metric_plan.c: a metric that the machine's facts leave a constant is
 * that constant, as perf gives it (perf 6.1's SMT_2T_Utilization is 0 with
 * SMT off, Ice Lake-X's tma_pmm_bound 0 without PMEM), and so is one that
 * reads it; a metric whose counts has_event prunes, every one, is refused,
 * as no count of it was made (the Default metrics of stalled cycles where
 * the CPU has no such event).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "metric_model.h"
#include "metric_plan.h"

/* This machine has every event but perf's stalled-cycles-*. */
static enum metric_event_kind
kind(void *arg, const char *event, const char *name, char *why, size_t len)
{
	(void)arg;
	(void)event;
	if (strncmp(name, "stalled-cycles", 14) == 0) {
		snprintf(why, len, "no such event");
		return METRIC_EVENT_UNKNOWN;
	}
	return METRIC_EVENT_CORE;
}

/*
 * -M names on model tag's machine (smt_on, has_pmem): the value of shown
 * metric key on a row of no count, or -1 where the plan is refused (its
 * line in err).
 */
static double
value_of(const char *tag, double smt_on, double has_pmem, const char *names,
    const char *key, char *err, size_t len)
{
	struct metric_env env = { .smt_on = smt_on,
		.has_pmem = has_pmem,
		.num_packages = 2,
		.num_dies = 2,
		.num_cpus_online = 16,
		.num_cores = 8,
		.system_wide = true,
		.siblings_counted = true };
	struct metric_ask ask = {
		.names = names, .core_pmu = "cpu", .event_kind = kind
	};
	struct metric_counts in = {
		.values = NULL, .cpus = 1, .elapsed_s = 1, .counted = true
	};
	struct metric_value out[64];
	struct metric_plan *p;
	double v = NAN;
	int i;

	p = metric_plan_new(
	    metric_model_named(tag), &env, &ask, err, len, NULL, 0);
	if (p == NULL)
		return -1;
	if (metric_plan_nmetrics(p) <= 64) {
		metric_plan_eval(p, &in, true, out);
		for (i = 0; i < metric_plan_nmetrics(p); i++)
			if (strcmp(metric_plan_metric(p, i)->key, key) == 0)
				v = out[i].value;
	}
	metric_plan_free(p);
	return v;
}

int
main(void)
{
	char err[512] = "";

	/* (1 - ONE_THREAD_ACTIVE / (REF_XCLK_ANY / 2)) if #SMT_on else 0 */
	CHECK(value_of("skylakex", 0, 0, "SMT_2T_Utilization",
		  "SMT_2T_Utilization", err, sizeof(err)) == 0);
	/* ... if #has_pmem > 0 else 0 */
	CHECK(value_of("icelakex", 1, 0, "tma_pmm_bound", "tma_pmm_bound", err,
		  sizeof(err)) == 0);
	/* Granite Rapids' tma_bottleneck_memory_data_tlbs reads
	 * tma_cxl_mem_bound, 0 without PMEM: it is counted. */
	CHECK(value_of("graniterapids", 1, 0, "tma_bottleneck_memory_data_tlbs",
		  "tma_bottleneck_memory_data_tlbs", err, sizeof(err)) != -1);
	/* (stalled-cycles-frontend / cpu-cycles) if has_event(...) else 0 */
	err[0] = '\0';
	CHECK(value_of("skylakex", 1, 0, "frontend_cycles_idle",
		  "frontend_cycles_idle", err, sizeof(err)) == -1);
	CHECK(strstr(err, "none of its events exists here") != NULL);
	return check_report("test_metric_constant");
}
