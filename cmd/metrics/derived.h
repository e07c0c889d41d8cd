/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --metrics: the metrics perf stat prints beside its counts (insn per
 * cycle, CPUs utilized, K/sec page-faults, ...), for the events a set
 * counts itself, matched by their canonical names. Each is a formula of
 * perf's language (formula.h), planned once per set, and a row's value
 * computed from its counts.
 */
#ifndef DERIVED_H
#define DERIVED_H

#include <stdbool.h>
#include <stdint.h>

#include "formula.h"
#include "spec.h"

/* The most inputs a derived metric reads. */
#define DERIVED_MAX_INPUTS 4

/* A derived metric's definition: perf stat's, in perf's language. */
struct derived_def {
	const char *key;     /* the machine name: CSV, JSON, series */
	const char *name;    /* as the table says it after the value */
	const char *formula; /* duration_time: the row's elapsed seconds */
	const char *unit;    /* "", "%", "K/sec", ... */
};

/* The row's elapsed time, as an input. */
#define DERIVED_ELAPSED (-1)

/*
 * A metric a set gives: its definition, its formula and its inputs'
 * places in the set. Counters with modes (instructions:u, cpu-cycles:u)
 * make it when all its events have the same ones; the modes then end
 * its key (ipc:u).
 */
struct derived_use {
	const struct derived_def *def;
	struct formula *formula;
	int input[DERIVED_MAX_INPUTS]; /* a request, or DERIVED_ELAPSED */
	int ninputs;
	char key[80];	/* def->key and the modes */
	char label[96]; /* def->name and the modes, for the table */
};

struct derived_set {
	struct derived_use *uses;
	int nuses;
};

/*
 * The metrics spec's own counters give, in the table's order: 0, or -1
 * (no memory, or a formula of the table that does not parse, said on
 * stderr).
 */
int derived_plan(const struct spec *spec, struct derived_set *ds);
void derived_free(struct derived_set *ds);

/*
 * The value of a metric from a row's counted values and its elapsed
 * wall-clock ns (0: not known): false when it has none, as when a
 * divisor is 0 or an input was not counted.
 */
bool derived_value(const struct derived_set *ds, const struct derived_use *u,
    const uint64_t *values, uint64_t elapsed_ns, double *value);

#endif /* DERIVED_H */
