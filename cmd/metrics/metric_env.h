/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a metric's formula reads besides counts: the literals of perf's
 * language (#smt_on, #num_packages, #core_wide, ...), the facts of the
 * machine and of the run that perf's tool events give. They are read
 * once, from the machine (metric_env_host), or from a record of a run on
 * another (--input), and travel with the records (cpctools-output(5)).
 */
#ifndef METRIC_ENV_H
#define METRIC_ENV_H

#include <sched.h>
#include <stdbool.h>

struct metric_env {
	char cpuid[64];	 /* metric_model.h's */
	double smt_on;	 /* #smt_on */
	double num_cpus; /* #num_cpus: the highest present CPU + 1 */
	double num_cpus_online;
	double num_packages;
	double num_dies;
	double num_cores;
	double system_tsc_freq; /* Hz; 0 where not known (non-Intel) */
	double slots;		/* #slots: the core PMU's issue slots a
				   cycle (arm64's caps/slots), or 0 */
	double has_pmem;
	/*
	 * The run: counting CPUs (cpustat) or threads (cputrack), and for
	 * CPUs, whether each counted CPU's SMT siblings are counted too.
	 */
	bool system_wide;
	bool siblings_counted;
};

/*
 * The machine's facts under root ("/sys", or a recorded tree), for a run
 * of system_wide counting; cpus: the CPUs counted (NULL: all online).
 * pmu: the core PMU's name, for #slots, or NULL. 0, or -1 when the CPUs
 * cannot be read.
 */
int metric_env_host(struct metric_env *env, const char *root, const char *pmu,
    bool system_wide, const cpu_set_t *cpus);

/*
 * A literal's value ("#smt_on", "#SMT_on": perf reads them in any case),
 * or NaN for one perf does not know.
 */
double metric_env_literal(const struct metric_env *env, const char *literal);

#endif /* METRIC_ENV_H */
