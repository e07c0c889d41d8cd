/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A metric's formula: perf's expression language, as the vendors' metric
 * files write it and as perf evaluates it (its tools/perf/util/expr.y and
 * expr.l; the facts, not the code).
 *
 * A formula is parsed once, into a program of fixed size, and evaluated
 * per row with no allocation. What its names stand for is not the
 * parser's business: the caller binds each one, once, to a slot of the
 * values a row gives, to another metric, or to a constant.
 *
 * The language:
 * - numbers: [0-9]+.?[0-9]* or [0-9]*.?[0-9]+, with an optional e-?[0-9]+;
 *   and NaN. A hex number is a name, as in perf (strcmp_cpuid_str's
 *   argument: 0x410fd493). A number past a double's range, too big or
 *   too small, is refused, as perf refuses it.
 * - names: letters, digits and _ . : ?, and the escapes \- \, \=; a name
 *   may hold @...@ parts (cpu@EVENT\,cmask\=1@, msr@tsc@), whose text is
 *   taken whole up to the closing @ (perf takes only name characters
 *   there, but the vendors write msr@tsc\,cpu=cpu_atom@); an @ with no
 *   closing one before white space or the end is refused. The longest
 *   token wins, a keyword or a number over a name of the same length
 *   (1e9 is a number, 0x10 and 1.5e a name: 1.5e+3 is 1.5e + 3).
 * - literals: # and [0-9a-zA-Z_.-]+ (#smt_on, #num_cpus_online): the
 *   caller gives their values.
 * - white space separates tokens. Any other character (= $ ! ~ ", a \
 *   that starts no escape, a # that starts no literal) is refused; perf
 *   skips it without a word.
 * - functions of a name: source_count(N), aggr_nr(N), has_event(N),
 *   strcmp_cpuid_str(N); of two expressions: min, max, d_ratio.
 * - operators, loosest first, all left-associative: |, ^, &, < >, + -,
 *   * / %, unary -; parentheses. A conditional, A if C else B (B may be
 *   another conditional), is a whole formula or a parenthesised one: A,
 *   C and a function's arguments are plain expressions, where a
 *   conditional needs its own parentheses.
 * - keywords (if else min max d_ratio source_count aggr_nr has_event
 *   strcmp_cpuid_str NaN) are case-sensitive, as in perf.
 *
 * Values, as perf gives them when it evaluates (NaN: no value):
 * - a name bound to nothing is NaN;
 * - + - * < > are NaN when either side is NaN; < and > give 1 or 0;
 * - a / b is NaN when b is 0; d_ratio(a, b) is 0 when b is 0, else a / b;
 * - a % b is (long)a % (long)b: NaN when a side is NaN or infinite. Where
 *   b is 0 (or (long)b is), the whole formula has no value, wherever the
 *   % is, a branch not taken included: perf abandons the evaluation;
 * - |, & and ^ are logical: with both sides finite, 1 or 0 (a side is
 *   true when not 0); with one side finite, | gives the other side where
 *   the finite one is 0 and 1 otherwise, & gives the other side where the
 *   finite one is not 0 and 0 otherwise, ^ gives NaN; with neither
 *   finite, NaN;
 * - min(a, b) is a < b ? a : b, max(a, b) is a > b ? a : b (so a NaN
 *   first argument gives the second);
 * - A if C else B is B when C is 0, and A otherwise (NaN included); both
 *   are computed, as perf does;
 * - a literal with no value (not bound, or bound to NaN) leaves the whole
 *   formula without one: perf refuses a literal it cannot read.
 *
 * A place in an error is a column, counting the formula's first
 * character as 1. A formula nested deeper than FORMULA_MAX_DEPTH
 * (parentheses, unary minus, else branches) or whose evaluation would
 * hold more values at once than that is refused: too deep (the vendors'
 * deepest hold 9 values and nest 10 parentheses).
 */
#ifndef FORMULA_H
#define FORMULA_H

#include <stdbool.h>
#include <stddef.h>

/* The deepest formula taken (see above); the longest, in bytes, is one less. */
#define FORMULA_MAX_DEPTH 64
#define FORMULA_MAX_TEXT  (1 << 20)

struct formula;

/* How a name is read: as itself, or as a function's argument. */
enum formula_use {
	FORMULA_VALUE,	      /* N */
	FORMULA_SOURCE_COUNT, /* source_count(N) */
	FORMULA_AGGR_NR,      /* aggr_nr(N) */
	FORMULA_HAS_EVENT,    /* has_event(N) */
	FORMULA_CPUID,	      /* strcmp_cpuid_str(N) */
	FORMULA_NUSES
};

/*
 * What a name, read one way, stands for. Unbound: NaN.
 */
enum formula_bind {
	FORMULA_UNBOUND,
	FORMULA_SLOT,	/* values[slot] of the frame: an event's count,
			   source count, aggregated CPUs */
	FORMULA_METRIC, /* frame->metric(ctx, index) */
	FORMULA_CONST	/* a number known once: a literal, has_event */
};

/*
 * Parse text: the program, or NULL with one line in err (len bytes, no
 * newline) that names the bad token and its place, or says why (no
 * memory, too long, too deep): "unexpected ')' at 12".
 */
struct formula *formula_parse(const char *text, char *err, size_t len);
void formula_free(struct formula *f);

/*
 * The distinct names the formula reads (each as perf's lexer gives it,
 * escapes kept: "topdown\-retiring", "cpu@X\,cmask\=1@"), in order of
 * first appearance, and the ways each is read (a bit per enum
 * formula_use).
 */
int formula_nnames(const struct formula *f);
const char *formula_name(const struct formula *f, int i);
unsigned formula_name_uses(const struct formula *f, int i);

/* The distinct literals it reads ("#smt_on", as written), likewise. */
int formula_nliterals(const struct formula *f);
const char *formula_literal(const struct formula *f, int i);

/* The most values its evaluation holds at once (FORMULA_MAX_DEPTH at most). */
int formula_depth(const struct formula *f);

/*
 * Bind name i read as use to a slot, a metric index, or a constant
 * (value: the slot or index as a number, or the constant); literal i to
 * a constant. Binding again replaces. A slot or index that is not a whole
 * number from 0 stands for NaN; an i or use out of range is ignored.
 */
void formula_bind(struct formula *f, int i, enum formula_use use,
    enum formula_bind kind, double value);
void formula_bind_literal(struct formula *f, int i, double value);

/*
 * What a row gives: per slot, a number (an event's count, or its source
 * count, or how many CPUs it sums, as the caller laid them out); a
 * metric's value on demand (the callee may compute and keep it).
 */
struct formula_frame {
	const double *slots;
	int nslots; /* a slot past them is NaN */
	double (*metric)(void *ctx, int index);
	void *ctx;
};

/*
 * Which names the formula reads once its constants are bound (its
 * literals, has_event, strcmp_cpuid_str): perf's rule for the events a
 * metric opens. A conditional whose condition is a constant reads the
 * branch it takes alone (both, where both are the same constant, none);
 * | and & whose constant side decides read nothing of the other; a / b
 * and d_ratio(a, b) with b a constant 0 read nothing of a. needed[i] is
 * set for each name i read in some use (formula_nnames of them).
 */
void formula_needed(const struct formula *f, bool *needed);

/* The formula's value for a row (NaN: none). No allocation. */
double formula_eval(const struct formula *f, const struct formula_frame *fr);

/*
 * The names a formula reads, without keeping a program: each name and
 * way it is read passed to fn once, in formula_name's order; for the
 * listings and the tests. 0, or -1 with err as formula_parse's.
 */
int formula_walk(const char *text, void *arg,
    void (*fn)(void *arg, const char *name, enum formula_use use), char *err,
    size_t len);

#endif /* FORMULA_H */
