/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A metric's formula: the small language the metric tables are written
 * in. Numbers (4, 1e9, 0.5), names of counted events, + - * /, unary
 * minus and parentheses, with the usual precedence. A name holds
 * letters, digits and _ . : @ #, and a '-' between two of them
 * (topdown-retiring): a subtraction is written with spaces around its
 * '-'. Any other name is written in braces: {uncore_imc/cas_count_read/}.
 * The names #elapsed (the row's wall-clock ns) and #slots (the core
 * PMU's issue slots per cycle) are the row's and the PMU's, not events.
 *
 * A formula is compiled once, into a program of fixed size, and
 * evaluated per row with no allocation.
 */
#ifndef MEXPR_H
#define MEXPR_H

#include <stdbool.h>
#include <stddef.h>

#define MEXPR_MAX_NAMES 12
#define MEXPR_MAX_NAME	64
#define MEXPR_MAX_OPS	64

enum mexpr_op {
	MEXPR_NUM,
	MEXPR_NAME,
	MEXPR_ADD,
	MEXPR_SUB,
	MEXPR_MUL,
	MEXPR_DIV,
	MEXPR_NEG
};

struct mexpr_step {
	enum mexpr_op op;
	double num; /* MEXPR_NUM */
	int name;   /* MEXPR_NAME: the index in names */
};

/* The formula in postfix order, and the distinct names it reads. */
struct mexpr {
	struct mexpr_step steps[MEXPR_MAX_OPS];
	int nsteps;
	char names[MEXPR_MAX_NAMES][MEXPR_MAX_NAME];
	int nnames;
};

/*
 * Compile text into e: 0, or -1 with a line in err (len bytes) that
 * names the bad token and why.
 */
int mexpr_compile(const char *text, struct mexpr *e, char *err, size_t len);

/*
 * The value of e for values[i], name i's value: false when it has none,
 * as when a divisor is 0 or an input is not a number (NaN: not counted).
 */
bool mexpr_eval(const struct mexpr *e, const double *values, double *out);

/* The index of name in e, or -1. */
int mexpr_name(const struct mexpr *e, const char *name);

#endif /* MEXPR_H */
