/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -M's plan: the metrics a run gives and the events it counts for them,
 * worked out once, as perf works them out (its metricgroup.c; the facts,
 * not the code):
 *
 * - each name of -M is a metric or a group of the CPU's model (any case;
 *   "all" for every metric), else of the names older perf releases gave
 *   it (the model's legacy data), else of perf's metrics of every CPU;
 * - a metric reads events, the model's own named by the vendor
 *   (UOPS_ISSUED.ANY, opened by their encoding through the PMU's sysfs
 *   format), the kernel's (topdown-retiring, msr/tsc/, cycles), and
 *   other metrics, whose events are its own too; constants (#smt_on,
 *   has_event) decide which branch of a conditional is read, and the
 *   events of the other are not counted;
 * - a metric's events, and its threshold's, are one perf group, unless
 *   the data, the name asked for or --metric-no-group says otherwise; a
 *   metric whose events another's group holds shares it; events of the
 *   kernel's TopDown (topdown-*) go in one group led by slots, as the
 *   kernel requires; duration_time is the row's elapsed time, no event.
 *
 * The events go to the run as one -c spec (metric_plan_spec), each named
 * as perf names it. Once the run's sets are made, metric_plan_bind finds
 * each event's counter, and metric_plan_eval gives a row's metrics.
 */
#ifndef METRIC_PLAN_H
#define METRIC_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metric_env.h"
#include "metric_table.h"

struct spec;

/* What a plan may ask of the machine about an event it would count. */
enum metric_event_kind {
	METRIC_EVENT_UNKNOWN = 0, /* no such event here */
	METRIC_EVENT_CORE,	  /* counts per thread or CPU, with modes */
	METRIC_EVENT_SOCKET	  /* a PMU with a cpumask: a socket's */
};

/* What -M asks, and of which run. */
struct metric_ask {
	const char *names;    /* "TopdownL1,MemoryBW": metrics and groups */
	bool no_group;	      /* --metric-no-group: no event grouping */
	bool no_threshold;    /* --metric-no-threshold: show every metric,
				 count no threshold's events */
	bool per_thread;      /* cputrack: rows of threads and processes */
	bool nmi_watchdog;    /* the kernel's NMI watchdog holds a counter */
	int counters;	      /* the events a group can hold here, or 0:
				 any; a metric's that do not fit are not
				 grouped */
	const char *core_pmu; /* the machine's: cpu, cpu_core, armv8_pmuv3_0 */
	/*
	 * The modifier of events of a core PMU ("uk": every mode this user
	 * may count; "u"), or "".
	 */
	const char *modes;
	/*
	 * The kind of an event, as -c would take it (event) and as rows
	 * name it (name), and where unknown why (len bytes); NULL: every
	 * event is a core PMU's.
	 */
	enum metric_event_kind (*event_kind)(void *arg, const char *event,
	    const char *name, char *why, size_t len);
	void *arg;
};

/* A metric the rows give, in the order they show them. */
struct metric_shown {
	const char *name;  /* tma_frontend_bound */
	const char *key;   /* name, or PMU/name where not the core PMU's */
	const char *pmu;   /* "core", "cpu_atom" */
	const char *unit;  /* "%", "MB/s", "" */
	double scale;	   /* the displayed value is the formula's times it */
	int parent;	   /* index of its parent in the tree, or -1 */
	int level;	   /* TopDown's level (1..6), or 0 */
	bool threshold;	   /* it has a threshold */
	const char *group; /* the -M name that brought it */
};

/* A row's value of a metric. */
struct metric_value {
	double value;	 /* scaled; NaN: none */
	int crossed;	 /* its threshold: 1 crossed, 0 not, -1 none/unknown */
	bool hidden;	 /* a parent's threshold is not crossed */
	bool bottleneck; /* the deepest crossed node of the largest branch */
};

/* A row's counts, as metric_plan_eval reads them. */
struct metric_counts {
	const uint64_t *values; /* per request of the plan's set */
	int nvalues;
	const double *sources; /* per request: boxes summed, or NULL: 1 */
	double cpus;	       /* CPUs the row sums (aggr_nr), or 1 */
	double elapsed_s;      /* duration_time; NaN: not known */
	bool counted;	       /* false: not counted; every metric is NaN */
};

struct metric_plan;

/*
 * The plan of ask for model (and its legacy data, and perf's common
 * metrics) on env's machine: NULL with one line in err (len bytes) for
 * a name nothing knows (with the nearest names), a metric that cannot be
 * counted here (the event and why), or one that cannot be right per
 * thread where ask->per_thread is set (naming its socket-wide event).
 * Metrics of a group that cannot be counted are left out, each said in
 * notes (a newline after each), where notes is not NULL.
 */
struct metric_plan *metric_plan_new(const struct metric_model *model,
    const struct metric_env *env, const struct metric_ask *ask, char *err,
    size_t len, char *notes, size_t notes_len);
void metric_plan_free(struct metric_plan *p);

/*
 * The events, as one -c spec: each group in braces, each event named as
 * perf names it (UOPS_ISSUED.ANY); "" when the metrics read none.
 */
const char *metric_plan_spec(const struct metric_plan *p);

/* The machine's facts the plan was made for. */
const struct metric_env *metric_plan_env(const struct metric_plan *p);

/* The metrics the rows give, in the order the tree shows them. */
int metric_plan_nmetrics(const struct metric_plan *p);
const struct metric_shown *metric_plan_metric(
    const struct metric_plan *p, int i);

/*
 * The events shown metric i reads (the row's time apart), as the rows
 * name them, up to max into names: how many it reads.
 */
int metric_plan_metric_events(
    const struct metric_plan *p, int i, const char **names, int max);

/*
 * Whether a record's counter (task-clock:uk) is the event a formula names
 * (task-clock): the same name, or the name with a run's mode letters.
 */
bool metric_counter_is(const char *counter, const char *name);

/*
 * Find each event's counter in spec, the set the run made of
 * metric_plan_spec: 0, or -1 with err naming an event it has not.
 */
int metric_plan_bind(
    struct metric_plan *p, const struct spec *spec, char *err, size_t len);

/*
 * A row's metrics (metric_plan_nmetrics of them) into out, with their
 * thresholds and the tree's marks. show_all: --metric-no-threshold, no
 * node is hidden. No allocation.
 */
void metric_plan_eval(const struct metric_plan *p,
    const struct metric_counts *in, bool show_all, struct metric_value *out);

#endif /* METRIC_PLAN_H */
