/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Derived metrics: the ratios perf stat prints beside its counts (insn
 * per cycle, the miss ratios, CPUs utilized, GHz, events per second),
 * for the events a set holds. They are data, one table in derived.c;
 * this says which of them a set can give and computes them from a row.
 */
#ifndef DERIVED_H
#define DERIVED_H

#include <stdbool.h>
#include <stdint.h>

#include "spec.h"

/* One metric of the table: numerator / denominator * scale, in unit. */
struct derived_def {
	const char *name; /* as perf says it after the value */
	const char *key;  /* the machine name: CSV, JSON */
	const char *num;  /* the numerator's canonical event */
	const char *den;  /* the denominator's, or NULL: the row's elapsed
			     wall-clock ns */
	double scale;
	const char *unit; /* printed between the value and the name */
};

/*
 * A metric a set gives: the table's entry and its events' places in the
 * set. Counters with modes (instructions:u, cpu-cycles:u) make it when
 * all its events have the same ones; the modes then end its key
 * (ipc:u).
 */
struct derived_use {
	const struct derived_def *def;
	int num;	/* the request of the numerator */
	int den;	/* of the denominator, or -1: the elapsed time */
	char key[80];	/* def->key and the modes */
	char label[96]; /* def->name and the modes, for the table */
};

struct derived_set {
	struct derived_use *uses;
	int nuses;
};

/* The table, and its length. */
extern const struct derived_def derived_table[];
extern const int derived_ndefs;

/* The metrics spec gives, in table order: 0, or -1 (no memory). */
int derived_plan(const struct spec *spec, struct derived_set *ds);
void derived_free(struct derived_set *ds);

/*
 * The value of a metric from a row's counted values and its elapsed
 * wall-clock ns (0: not known): false when it has none, as when a
 * denominator is 0.
 */
bool derived_value(const struct derived_use *u, const uint64_t *values,
    uint64_t elapsed_ns, double *value);

#endif /* DERIVED_H */
