/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * metric_event.c: the events a plan counts for the names of formulas, as
 * perf reads them. Modifiers follow an @...@ name's closing @ as they
 * follow perf's closing slash: cpu_atom@CPU_CLK_UNHALTED.CORE@k counts
 * the kernel's cycles alone, an event apart from
 * cpu_atom@CPU_CLK_UNHALTED.CORE@, and each metric reads its own. A PMU
 * named as perf names it (cha for the data's uncore_cha, pcu_0 a box of
 * uncore_pcu) has the data's events: their encodings are counted.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "metric_model.h"
#include "metric_plan.h"

#define MAX_READ 16

/* Whether shown metric key reads an event called name. */
static bool
reads(const struct metric_plan *p, const char *key, const char *name)
{
	const char *names[MAX_READ];
	int i, k, n;

	for (i = 0; i < metric_plan_nmetrics(p); i++) {
		if (strcmp(metric_plan_metric(p, i)->key, key) != 0)
			continue;
		n = metric_plan_metric_events(p, i, names, MAX_READ);
		for (k = 0; k < n && k < MAX_READ; k++)
			if (strcmp(names[k], name) == 0)
				return true;
	}
	return false;
}

/* The spec of a plan of names on model tag, system-wide. */
static void
check_spec(const char *tag, const char *names, const char *want)
{
	const struct metric_model *model = metric_model_named(tag);
	struct metric_env env = { .num_packages = 2, .num_dies = 2 };
	struct metric_ask ask = { .names = names, .core_pmu = "cpu" };
	struct metric_plan *p;
	char err[512] = "";

	env.system_wide = true;
	p = model != NULL ?
	    metric_plan_new(model, &env, &ask, err, sizeof(err), NULL, 0) :
	    NULL;
	check_count++;
	if (p == NULL || strstr(metric_plan_spec(p), want) == NULL) {
		check_failures++;
		fprintf(stderr, "%s -M %s: spec %s, expected %s in it (%s)\n",
		    tag, names, p != NULL ? metric_plan_spec(p) : "none", want,
		    err);
	}
	metric_plan_free(p);
}

int
main(void)
{
	const struct metric_model *model = metric_model_named("alderlake");
	struct metric_env env = { .cpuid = "GenuineIntel-6-97-2",
		.smt_on = 1,
		.num_packages = 1,
		.num_dies = 1 };
	struct metric_ask ask = { .names = "Kernel_Utilization,tma_retiring",
		.per_thread = true,
		.core_pmu = "cpu_core",
		.modes = "" };
	struct metric_plan *p;
	char err[512] = "";

	CHECK(model != NULL);
	p = metric_plan_new(model, &env, &ask, err, sizeof(err), NULL, 0);
	if (p == NULL) {
		fprintf(stderr, "plan: %s\n", err);
		return check_report("test_metric_event");
	}
	/* perf 6.1's: cpu_atom@CPU_CLK_UNHALTED.CORE@k / CPU_CLK_UNHALTED.CORE
	 */
	CHECK(reads(p, "cpu_atom/Kernel_Utilization",
	    "cpu_atom/CPU_CLK_UNHALTED.CORE/k"));
	CHECK(reads(p, "cpu_atom/Kernel_Utilization", "CPU_CLK_UNHALTED.CORE"));
	/* cpu_atom@TOPDOWN_RETIRING.ALL@ / (5 *
	 * cpu_atom@CPU_CLK_UNHALTED.CORE@) */
	CHECK(reads(
	    p, "cpu_atom/tma_retiring", "cpu_atom/CPU_CLK_UNHALTED.CORE/"));
	CHECK(!reads(
	    p, "cpu_atom/tma_retiring", "cpu_atom/CPU_CLK_UNHALTED.CORE/k"));
	/* Counted so: the modifier is in the spec, after the PMU's terms. */
	CHECK(strstr(metric_plan_spec(p), "cpu_atom/event=0x3c/k,") != NULL);
	metric_plan_free(p);
	/* cha@UNC_CHA_TOR_INSERTS.IA_MISS\,config1\=0x12cc0233@: uncore_cha's
	 */
	check_spec("skylakex", "llc_code_read_mpi_demand_plus_prefetch",
	    "cha/event=0x35,umask=0x21,config1=0x12cc0233/");
	/* pcu_0@UNC_P_CLOCKTICKS@: the box uncore_pcu_0's */
	check_spec("graniterapids", "cpu_cstate_c0", "pcu_0/event=1/");
	return check_report("test_metric_event");
}
