/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -M NAME[,NAME]: the vendors' metrics for this CPU (cmd/metrics), planned
 * for the run (metric_plan.h), their events added to it as one set.
 */
#ifndef METRICS_OPTION_H
#define METRICS_OPTION_H

#include <sched.h>
#include <stdbool.h>

#include "libcpc.h"
#include "metric_env.h"
#include "metric_plan.h"
#include "output.h"
#include "setgrp.h"

/* What -M and its options said, until the plan is made. */
struct metrics_option {
#define METRICS_MAX_ARGS 16
	const char *args[METRICS_MAX_ARGS];
	int nargs;
	bool no_group;	   /* --metric-no-group */
	bool no_threshold; /* --metric-no-threshold */
	bool only;	   /* --metric-only */
	/* cpustat's -C, for #core_wide; NULL: every online CPU. */
	const cpu_set_t *cpus;
	/*
	 * --input: what the record holds, in place of what this machine
	 * counts (metric_ask's event_kind); NULL: the machine's.
	 */
	enum metric_event_kind (*kind)(void *arg, const char *event,
	    const char *name, char *why, size_t len);
	void *kind_arg;
};

/*
 * What -c would make of event on the machine of cpc (arg), for a plan's
 * metric_ask: a core or a socket PMU's, or unknown with the reason in why.
 */
enum metric_event_kind metrics_option_event_kind(
    void *arg, const char *event, const char *name, char *why, size_t len);

/* Keep one -M argument: 0, or -1 when there are too many (said). */
int metrics_option_add(struct metrics_option *mo, const char *arg);

/*
 * The plan of what -M named, for a run of tool on this machine (or on
 * the machine env describes, for --input: NULL reads this one): its
 * events added to specs as one set (unless specs is NULL), its plan in
 * out. 0 (nothing asked, or planned), or 2 with one line said: a name
 * nothing knows, a metric that cannot be counted here, the run's --metric
 * options without -M.
 */
int metrics_option_plan(struct metrics_option *mo, cpc_t *cpc,
    enum out_tool tool, const struct metric_env *env, setgrp_t *specs,
    struct out_config *out);

/* Let the plan go, at the end of the run. */
void metrics_option_free(struct out_config *out);

#endif /* METRICS_OPTION_H */
