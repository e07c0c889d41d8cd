/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The plan's insides, shared by its files: metric_plan.c chooses the
 * metrics and groups their events, metric_event.c turns a formula's names
 * into events to count, metric_eval.c gives a row's values.
 */
#ifndef METRIC_PLAN_IMPL_H
#define METRIC_PLAN_IMPL_H

#include "formula.h"
#include "metric_plan.h"

/* The data a metric is looked up in: the model, its legacy, common. */
#define PLAN_MAX_LAYERS 8

/* An event a metric reads: counted, or the row's time. */
struct plan_event {
	char *spec; /* as -c takes it: cpu/event=0xe,umask=0x1/uk */
	char *name; /* as rows name it: UOPS_ISSUED.ANY */
	enum metric_event_kind kind;
	bool tool;    /* duration_time: the row's elapsed seconds */
	bool topdown; /* slots or topdown-*: in slots' group */
	bool slots;   /* slots itself, which leads that group */
};

/*
 * An event counted in a perf group: a counter of the plan's set. An
 * event may be counted in several groups, each metric reading the
 * counts of its own group, as perf counts it.
 */
struct plan_instance {
	int event;
	int group;
	int request; /* its counter in the bound set, or -1 */
};

/* A metric the plan evaluates: shown, or read by one that is. */
struct plan_node {
	const struct metric_def *def;
	int layer;
	struct formula *expr;
	struct formula *threshold; /* NULL: none, or not counted */
	int *events;		   /* the events it and what it reads read */
	int nevents;
	int nexpr;	    /* events[0..nexpr): its formula's; the rest
			       its threshold's, which no reader counts */
	bool group_events;  /* its events are one perf group */
	int group;	    /* shown: the group it reads, or 0: each
			       event's first counter */
	bool resolving;	    /* on the stack of references */
	const char *failed; /* why it cannot be counted, or NULL */
	int shown;	    /* its index among the shown, or -1 */
};

struct metric_plan {
	struct metric_env env_copy;
	const struct metric_env *env; /* &env_copy */
	struct metric_ask ask;
	const struct metric_model *layers[PLAN_MAX_LAYERS];
	int nlayers;
	struct plan_node *nodes;
	int nnodes;
	struct plan_event *events;
	int nevents;
	struct plan_instance *inst; /* in the set's order, group by group */
	int ninst;
	int ngroups;
	struct metric_shown *shown;
	int *shown_node; /* each shown metric's node */
	int nshown;
	char *spec;
	char *names_copy;	 /* the -M names the shown metrics point into */
	char why[512];		 /* the last resolution's failure */
	char kind_why[256];	 /* event_kind's why */
	char first_refusal[600]; /* the first metric of a group refused */
	/* metric_plan_eval's scratch: one row at a time */
	double *slots; /* per event: value, source count, CPUs */
	int *req_of;   /* per group and event: the counter it reads */
	double *memo;  /* per node: its value this row */
	bool *known;   /* per node: memo holds it */
	int *order;    /* the shown metrics by group */
};

/* Slots of an event in a row's frame: value, source count, CPUs summed. */
#define PLAN_SLOTS_PER_EVENT 3

/*
 * metric_event.c: the event a formula's name stands for in node n's
 * metric (escapes as the formula keeps them), added once: its index, or
 * -1 with p->why saying why it cannot be counted here.
 */
int plan_event_of(
    struct metric_plan *p, const struct plan_node *n, const char *name);
/* Whether has_event(name) holds: an event this machine has. */
bool plan_has_event(
    struct metric_plan *p, const struct plan_node *n, const char *name);
/* An event by its -c text and row name (slots, where topdown needs it). */
int plan_add_event(struct metric_plan *p, const char *spec, const char *name,
    enum metric_event_kind kind, bool slots);
void plan_events_free(struct metric_plan *p);

/* A metric of a layer by name (any case), preferring pmu's; or -1. */
int plan_find_metric(
    const struct metric_model *m, const char *name, const char *pmu);

/* metric_eval.c: the scratch of metric_plan_eval; 0, or -1 (memory). */
int plan_eval_init(struct metric_plan *p);
void plan_eval_fini(struct metric_plan *p);

#endif /* METRIC_PLAN_IMPL_H */
