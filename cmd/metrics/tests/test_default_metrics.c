/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * default_metrics.c: which metrics of --metrics a set gives, and their
 * values through the metric plan, against values worked out by hand. The
 * specs are made here, as spec.c leaves them: what default_metrics.c
 * reads of a set is its counters' names.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "default_metrics.h"

#define MAX_REQS 8

struct fake {
	struct spec spec;
	struct spec_req reqs[MAX_REQS];
	struct default_metrics ds;
};

/* A set of the counters named in names[], planned. */
static void
plan(struct fake *f, const char *const *names)
{
	int n;

	memset(f, 0, sizeof(*f));
	for (n = 0; n < MAX_REQS && names[n] != NULL; n++)
		f->reqs[n].name = (char *)names[n];
	f->spec.reqs = f->reqs;
	f->spec.nreqs = n;
	CHECK(default_metrics_plan(&f->spec, &f->ds) == 0);
}

static const struct default_metric *
use(const struct fake *f, const char *key)
{
	int i;

	for (i = 0; i < f->ds.nuses; i++)
		if (strcmp(f->ds.uses[i].key, key) == 0)
			return &f->ds.uses[i];
	return NULL;
}

/* The metric key of f for values and elapsed s is want (to 1e-12). */
#define CHECK_METRIC(f, key, values, elapsed, want)                    \
	do {                                                           \
		const struct default_metric *u_ = use((f), (key));     \
		double v_ = -1;                                        \
		CHECK(u_ != NULL);                                     \
		if (u_ != NULL) {                                      \
			CHECK(default_metric_value(                    \
			    u_, (values), (elapsed), &v_));            \
			CHECK(fabs(v_ - (want)) < 1e-12 * fabs(want)); \
		}                                                      \
	} while (0)

static void
hardware(void)
{
	static const char *const names[] = { "instructions", "cpu-cycles",
		"branch-instructions", "branch-misses", "cache-references",
		"cache-misses", "task-clock", NULL };
	/* 3e9 instructions in 1.5e9 cycles over 0.5 s of CPU time. */
	static const uint64_t v[] = { 3000000000, 1500000000, 1000, 25, 400,
		100, 500000000 };
	struct fake f;

	plan(&f, names);
	CHECK_METRIC(&f, "ipc", v, NAN, 2.0);
	CHECK_METRIC(&f, "cpi", v, NAN, 0.5);
	CHECK_METRIC(&f, "branch_miss_pct", v, NAN, 2.5);
	CHECK_METRIC(&f, "cache_miss_pct", v, NAN, 25.0);
	CHECK_METRIC(&f, "ghz", v, NAN, 3.0);
	/* Over 0.25 s of wall-clock time: two CPUs' worth. */
	CHECK_METRIC(&f, "cpus_utilized", v, 0.25, 2.0);
	CHECK(use(&f, "l1d_miss_pct") == NULL);
	CHECK(use(&f, "page_faults_k_per_sec") == NULL);
	/* The table's order: ipc first, CPUs utilized before GHz. */
	CHECK(f.ds.nuses == 6);
	CHECK(f.ds.nuses > 0 && strcmp(f.ds.uses[0].key, "ipc") == 0);
	CHECK(f.ds.nuses > 0 &&
	    strcmp(f.ds.uses[0].label, "insn per cycle") == 0);
	default_metrics_free(&f.ds);
}

static void
software(void)
{
	static const char *const names[] = { "page-faults", "task-clock",
		"context-switches", "cpu-migrations", NULL };
	/* 0.5 s of CPU time: 1000 faults are 2000/s, 2 K/sec. */
	static const uint64_t v[] = { 1000, 500000000, 5, 0 };
	struct fake f;
	const struct default_metric *u;
	double got;

	plan(&f, names);
	CHECK_METRIC(&f, "page_faults_k_per_sec", v, NAN, 2.0);
	CHECK_METRIC(&f, "context_switches_k_per_sec", v, NAN, 0.01);
	/* 0 is a value, from a denominator that is not 0. */
	CHECK((u = use(&f, "cpu_migrations_k_per_sec")) != NULL);
	CHECK(u != NULL && default_metric_value(u, v, NAN, &got) && got == 0);
	/* Elapsed time not known: no CPUs utilized. */
	CHECK((u = use(&f, "cpus_utilized")) != NULL);
	CHECK(u != NULL && !default_metric_value(u, v, NAN, &got));
	CHECK_METRIC(&f, "cpus_utilized", v, 1.0, 0.5);
	default_metrics_free(&f.ds);
}

static void
zero_denominator(void)
{
	static const char *const names[] = { "instructions", "cpu-cycles",
		NULL };
	static const uint64_t v[] = { 10, 0 };
	struct fake f;
	double got = -1;

	plan(&f, names);
	CHECK(use(&f, "ipc") != NULL &&
	    !default_metric_value(use(&f, "ipc"), v, NAN, &got));
	CHECK(got == -1);
	CHECK(use(&f, "cpi") != NULL &&
	    default_metric_value(use(&f, "cpi"), v, NAN, &got));
	CHECK(got == 0);
	default_metrics_free(&f.ds);
}

static void
modes(void)
{
	static const char *const same[] = { "instructions:u", "cpu-cycles:u",
		NULL };
	static const char *const mixed[] = { "instructions:u", "cpu-cycles",
		NULL };
	static const char *const twice[] = { "page-faults:u", "page-faults:k",
		"task-clock", NULL };
	static const char *const lookalike[] = { "instructions-x", "cpu-cycles",
		NULL };
	static const uint64_t v[] = { 300, 100 };
	struct fake f;

	plan(&f, same);
	CHECK_METRIC(&f, "ipc:u", v, NAN, 3.0);
	CHECK(use(&f, "ipc") == NULL);
	CHECK(use(&f, "ipc:u") != NULL &&
	    strcmp(use(&f, "ipc:u")->label, "insn per cycle (u)") == 0);
	default_metrics_free(&f.ds);
	plan(&f, mixed);
	CHECK(f.ds.nuses == 0);
	default_metrics_free(&f.ds);
	/* Faults by mode, a clock of both: no rate of either. */
	plan(&f, twice);
	CHECK(use(&f, "page_faults_k_per_sec:u") == NULL);
	CHECK(use(&f, "page_faults_k_per_sec:k") == NULL);
	CHECK(use(&f, "cpus_utilized") != NULL);
	default_metrics_free(&f.ds);
	plan(&f, lookalike);
	CHECK(f.ds.nuses == 0);
	default_metrics_free(&f.ds);
}

int
main(void)
{
	hardware();
	software();
	zero_denominator();
	modes();
	return check_report("test_default_metrics");
}
