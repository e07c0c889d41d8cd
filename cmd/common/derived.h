/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Derived metrics: the metrics of the run's metric groups (mgroups.h;
 * --metrics is the group Default, perf stat's ratios) that a set's
 * events give, planned once, and their values computed from a row.
 */
#ifndef DERIVED_H
#define DERIVED_H

#include <stdbool.h>
#include <stdint.h>

#include "mexpr.h"
#include "mgroups.h"
#include "spec.h"

/* A formula's input that is not an event of the set. */
#define DERIVED_ELAPSED (-1) /* #elapsed: the row's wall-clock ns */
#define DERIVED_SLOTS	(-2) /* #slots: the core PMU's slots per cycle */

/*
 * A metric a set gives: the table's entry, its formula and its inputs'
 * places in the set. Counters with modes (instructions:u, cpu-cycles:u)
 * make it when all its events have the same ones; the modes then end
 * its key (ipc:u).
 */
struct derived_use {
	const struct mgroup_metric *def;
	struct mexpr expr;
	int input[MEXPR_MAX_NAMES]; /* a request, or DERIVED_* */
	char key[80];		    /* def->key and the modes */
	char label[96];		    /* def->name and the modes, for the table */
};

struct derived_set {
	struct derived_use *uses;
	int nuses;
	double slots; /* #slots, or 0: not known */
};

/*
 * The metrics spec gives of groups (ngroups of them; none: Default), in
 * table order: 0, or -1 (no memory, or a formula of the table that does
 * not compile, said on stderr).
 */
int derived_plan(const struct spec *spec, const struct mgroup *const *groups,
    int ngroups, struct derived_set *ds);
void derived_free(struct derived_set *ds);

/*
 * The value of a metric from a row's counted values and its elapsed
 * wall-clock ns (0: not known): false when it has none, as when a
 * divisor is 0 or an input was not counted.
 */
bool derived_value(const struct derived_set *ds, const struct derived_use *u,
    const uint64_t *values, uint64_t elapsed_ns, double *value);

#endif /* DERIVED_H */
