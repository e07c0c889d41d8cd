/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Event specifications (-c): parsing, and the libcpc sets they make.
 */
#ifndef SPEC_H
#define SPEC_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libcpc.h"

/* One counter of a parsed spec, in ascending counter order. */
struct spec_req {
	char *event;
	/*
	 * What the counter is called in rows, unique in its set: the event;
	 * or, where the set counts that event more than once, the event
	 * with the modes it counts (page-faults:u, page-faults:k), and its
	 * counter (page-faults:u#pic1) when even the modes are the same.
	 */
	char *name;
	uint_t flags;
	uint_t nattrs;
	cpc_attr_t *attrs; /* ends with picnum, below cpc_npic */
	int picnum;	   /* its counter: in a set of groups, its place */
	int group;	   /* its perf group (cpc_set_group): 0, or {...}'s */
	bool parted;	   /* counted on each core PMU: it has parts */
	/*
	 * It counts user mode only by Solaris's rule (no nouser, sys or
	 * modifier said otherwise), and its event counts less so than
	 * counting both modes, as perf stat does (a page fault taken in the
	 * kernel, a cycle spent there).
	 */
	bool user_by_rule;
	/* Summed over the boxes of a PMU (cpc_event_box): each box's part. */
	int nboxes;
	int box_first; /* the first box's index in a set's values */
	const char **box_names;
	cpu_set_t *box_cpus; /* each box's: those its cpumask names */
};

/*
 * A set's counts are one value per request; where the kernel has several
 * core PMUs (a hybrid CPU) and the set counts on them, then each
 * request's part counted on each core PMU (nparts per request, named as
 * the PMUs are), zero for a request that is not parted; then, for each
 * request summed over the boxes of a PMU (uncore_imc_0 .. uncore_imc_N),
 * each box's part, from its box_first on (nboxes in all).
 */
struct spec {
	char *text; /* the -c argument, unchanged */
	struct spec_req *reqs;
	int nreqs;
	bool system_only; /* no request counts user mode */
	/*
	 * Its perf groups: 1, or several ({...} of -c), each counting part
	 * of the time where they need more counters than the PMU has, and
	 * the counts scaled (cpc_set_scale).
	 */
	int ngroups;
	int nparts; /* 0, or the core PMUs */
	const char **part_names;
	cpu_set_t *part_cpus; /* each core PMU's */
	int nboxes;	      /* box parts, all requests' */
};

/* How many counts a set of the spec has: its values, then its parts. */
static inline int
spec_nvalues(const struct spec *spec)
{
	return spec->nreqs * (1 + spec->nparts) + spec->nboxes;
}

/*
 * Request i's parts in a set's values, and their names: each core PMU's
 * for a parted request, each box's for one summed over boxes; 0 for a
 * request with none.
 */
static inline int
spec_req_parts(const struct spec *spec, int i, const uint64_t *values,
    const char *const **names, const uint64_t **parts)
{
	const struct spec_req *r = &spec->reqs[i];

	if (r->nboxes > 0) {
		*names = r->box_names;
		*parts = &values[r->box_first];
		return r->nboxes;
	}
	if (spec->nparts == 0 || !r->parted)
		return 0;
	*names = spec->part_names;
	*parts = &values[spec->nreqs + i * spec->nparts];
	return spec->nparts;
}

/*
 * Whether part k of request i is counted in a row of the CPUs cpus (NULL:
 * of every CPU, as a thread's row): whether the CPUs its PMU counts on
 * (a core PMU's, a box's cpumask) hold one of them. A CPU's row holds
 * its own core PMU's part and its socket's boxes, and no other's.
 */
static inline bool
spec_part_counted(const struct spec *spec, int i, int k, const cpu_set_t *cpus)
{
	const struct spec_req *r = &spec->reqs[i];
	const cpu_set_t *its = r->nboxes > 0 ? r->box_cpus : spec->part_cpus;
	cpu_set_t both;

	if (cpus == NULL || its == NULL)
		return true;
	CPU_AND(&both, &its[k], cpus);
	return CPU_COUNT(&both) > 0;
}

/*
 * Request i's perf group, numbered from 0 in the order the set's groups
 * first come: what an engine that opens each group itself calls it.
 */
int spec_group_index(const struct spec *spec, int i);
/* The request whose count, or part of it, is value v (spec_nvalues). */
int spec_value_request(const struct spec *spec, int v);

enum spec_error {
	SPEC_OK = 0,
	SPEC_SYNTAX,	  /* a usage error: message printed */
	SPEC_UNCOUNTABLE, /* known events this machine cannot count */
	SPEC_NOMEM
};

struct spec *spec_parse(cpc_t *cpc, const char *text, enum spec_error *err);
void spec_free(struct spec *spec);
cpc_set_t *spec_build_set(cpc_t *cpc, const struct spec *spec);
/*
 * Whether every request can count as it asks, per LWP (cpuid -1), on CPU
 * cpuid, or on every CPU (SPEC_CHECK_CPUS: cpc_set_check_cpus, on the
 * handle's probe CPU and a CPU of each core PMU), before anything starts:
 * one line per refused request (event, cause, fix) through the handle's
 * error handler. Returns how many were refused, or -1 when the set could
 * not be built.
 */
#define SPEC_CHECK_CPUS (-2)
int spec_check(cpc_t *cpc, const struct spec *spec, int cpuid);
void spec_header(const struct spec *spec, FILE *out);

#endif /* SPEC_H */
