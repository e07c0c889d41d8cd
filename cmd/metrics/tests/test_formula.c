/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * formula.c: perf's expression language. Every rule of formula.h's
 * semantics against values worked out by hand, the names and literals as
 * perf's lexer cuts them, bad formulas refused with the token and its
 * column named, and every formula of the vendors' data parsed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "formula.h"

/*
 * The row every check_value formula reads: each name below is a slot,
 * m_seven is metric 7, the literals have their value; any other name is
 * left unbound. source_count(N) is 2, aggr_nr(N) 4, has_event(N) 1 where
 * N starts with "cpu", strcmp_cpuid_str(N) 1 for 0x410fd493.
 */
static const struct {
	const char *name;
	double value;
} slots[] = {
	{ "a", 2 },
	{ "b", 3 },
	{ "c", 5 },
	{ "z", 0 },
	{ "nz", -0.0 },
	{ "n", NAN },
	{ "inf", INFINITY },
	{ "ninf", -INFINITY },
	{ "h", 0.5 },
	{ "topdown\\-retiring", 6 },
	{ "cpu@EVENT\\,cmask\\=1@", 7 },
	{ "msr@tsc\\,cpu=cpu_atom@", 8 },
	{ "INT_MISC.RECOVERY_CYCLES:c1:e", 9 },
};
#define NSLOTS ((int)(sizeof(slots) / sizeof(slots[0])))

static const struct {
	const char *name;
	double value;
} literals[] = {
	{ "#smt_on", 1 },
	{ "#num_cpus_online", 8 },
	{ "#slots", 4 },
};

/* The metrics' side: each call counted, its index and context seen. */
struct metrics {
	int calls, last_index;
	void *last_ctx;
};

static double
metric_value(void *ctx, int index)
{
	struct metrics *m = ctx;

	m->calls++;
	m->last_index = index;
	m->last_ctx = ctx;
	return 1.5 * index;
}

static double slot_values[NSLOTS];
static struct metrics metrics;
static const struct formula_frame frame = { slot_values, NSLOTS, metric_value,
	&metrics };

static int
slot_of(const char *name)
{
	int i;

	for (i = 0; i < NSLOTS; i++)
		if (strcmp(slots[i].name, name) == 0)
			return i;
	return -1;
}

static void
bind_use(struct formula *f, int i, enum formula_use use)
{
	const char *name = formula_name(f, i);

	switch (use) {
	case FORMULA_VALUE:
		if (strcmp(name, "m_seven") == 0)
			formula_bind(f, i, use, FORMULA_METRIC, 7);
		else if (slot_of(name) >= 0)
			formula_bind(f, i, use, FORMULA_SLOT, slot_of(name));
		break;
	case FORMULA_SOURCE_COUNT:
		formula_bind(f, i, use, FORMULA_CONST, 2);
		break;
	case FORMULA_AGGR_NR:
		formula_bind(f, i, use, FORMULA_CONST, 4);
		break;
	case FORMULA_HAS_EVENT:
		formula_bind(
		    f, i, use, FORMULA_CONST, strncmp(name, "cpu", 3) == 0);
		break;
	default:
		formula_bind(
		    f, i, use, FORMULA_CONST, strcmp(name, "0x410fd493") == 0);
	}
}

static void
bind_row(struct formula *f)
{
	size_t k;
	int i, use;

	for (i = 0; i < formula_nnames(f); i++)
		for (use = 0; use < FORMULA_NUSES; use++)
			if (formula_name_uses(f, i) & (1u << use))
				bind_use(f, i, (enum formula_use)use);
	for (i = 0; i < formula_nliterals(f); i++)
		for (k = 0; k < sizeof(literals) / sizeof(literals[0]); k++)
			if (strcmp(literals[k].name, formula_literal(f, i)) ==
			    0)
				formula_bind_literal(f, i, literals[k].value);
}

/* got is want: both no value, or the same number (to 1e-12). */
static bool
same(double got, double want)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	if (isinf(want) || isinf(got))
		return got == want;
	return fabs(got - want) <= 1e-12 * (fabs(want) > 1 ? fabs(want) : 1);
}

/* text, on the row above, is want. */
static void
check_value_at(int line, const char *text, double want)
{
	struct formula *f;
	char err[256];
	double got;

	check_count++;
	if ((f = formula_parse(text, err, sizeof(err))) == NULL) {
		check_failures++;
		fprintf(stderr, "line %d: '%s': %s\n", line, text, err);
		return;
	}
	bind_row(f);
	got = formula_eval(f, &frame);
	if (!same(got, want)) {
		check_failures++;
		fprintf(stderr, "line %d: '%s' is %g, expected %g\n", line,
		    text, got, want);
	}
	formula_free(f);
}

#define check_value(text, want) check_value_at(__LINE__, text, want)

/*
 * text is want, and its operators taken the other way (other, the same
 * operands grouped so) would give another value: the check tells.
 */
static void
check_grouping_at(int line, const char *text, double want, const char *other,
    double other_want)
{
	check_value_at(line, text, want);
	check_value_at(line, other, other_want);
	check_count++;
	if (same(want, other_want)) {
		check_failures++;
		fprintf(stderr, "line %d: '%s' and '%s' do not differ\n", line,
		    text, other);
	}
}

#define check_grouping(text, want, other, other_want) \
	check_grouping_at(__LINE__, text, want, other, other_want)

/* text is refused with one line that holds says. */
static void
check_bad_at(int line, const char *text, const char *says)
{
	struct formula *f;
	char err[256] = "x";

	check_count++;
	f = formula_parse(text, err, sizeof(err));
	if (f != NULL || strstr(err, says) == NULL ||
	    strchr(err, '\n') != NULL) {
		check_failures++;
		fprintf(stderr, "line %d: '%s': '%s', expected '%s'\n", line,
		    text, f != NULL ? "(parsed)" : err, says);
	}
	formula_free(f);
}

#define check_bad(text, says) check_bad_at(__LINE__, text, says)

static void
numbers(void)
{
	check_value("2", 2);
	check_value("2.5", 2.5);
	check_value(".5", 0.5);
	check_value("5.", 5);
	check_value("2.5e2", 250);
	check_value("1e-3", 0.001);
	check_value("5.e1", 50);
	check_value("1e9", 1e9);
	check_value("1e308", 1e308);
	check_value("NaN", NAN);
	check_value("NaN + 1", NAN);
	/* perf's numbers have no sign: -1e-3 is a minus and a number. */
	check_value("-1e-3", -0.001);
}

/* Each pair of operator levels, either side, with the other grouping. */
static void
precedence(void)
{
	/* | below ^ & < > + - * / % and unary minus */
	check_grouping("a | a ^ a", 1, "(a | a) ^ a", 0);
	check_grouping("a | z & z", 1, "(a | z) & z", 0);
	check_grouping("z | c < a", 0, "(z | c) < a", 1);
	check_grouping("a > b | z", 0, "a > (b | z)", 1);
	check_grouping("a | z - a", 1, "(a | z) - a", -1);
	check_grouping("z | a * b", 1, "(z | a) * b", 3);
	check_grouping("-a | z", 1, "-(a | z)", -1);
	/* ^ below & < > + - * / % and unary minus */
	check_grouping("a ^ a & z", 1, "(a ^ a) & z", 0);
	check_grouping("a ^ a < c", 0, "(a ^ a) < c", 1);
	check_grouping("a ^ a - a", 1, "(a ^ a) - a", -2);
	check_grouping("a ^ z * a", 1, "(a ^ z) * a", 2);
	check_grouping("-a ^ z", 1, "-(a ^ z)", -1);
	/* & below < > + - * / % and unary minus */
	check_grouping("b > a & z", 0, "b > (a & z)", 1);
	check_grouping("a & a - a", 0, "(a & a) - a", -1);
	check_grouping("a & b * c", 1, "(a & b) * c", 5);
	check_grouping("-a & b", 1, "-(a & b)", -1);
	/* < > below + - * / % and unary minus */
	check_grouping("c < a + b", 0, "(c < a) + b", 3);
	check_grouping("a + b > c", 0, "a + (b > c)", 2);
	check_grouping("c > a * b", 0, "(c > a) * b", 3);
	check_grouping("a / a < b", 1, "a / (a < b)", 2);
	check_grouping("-a < z", 1, "-(a < z)", 0);
	/* + - below * / % and unary minus */
	check_grouping("a + b * c", 17, "(a + b) * c", 25);
	check_grouping("c - a / a", 4, "(c - a) / a", 1.5);
	check_grouping("c + c % b", 7, "(c + c) % b", 1);
	check_grouping("a * b - c", 1, "a * (b - c)", -4);
	check_grouping("-a + b", 1, "-(a + b)", -5);
	/* Unary minus over * / %: the same either way, as arithmetic has it. */
	check_value("-a * b", -6);
	check_value("-c % b", -2);
	check_value("-c / a", -2.5);
	check_value("a * -b", -6);
	check_value("a - -b", 5);
	check_value("--a", 2);
	check_value("---a", -2);
	check_value("-(a + b)", -5);
	check_value("-min(a, b)", -2);
	/* The conditional is loosest of all. */
	check_grouping("a + b if z else c", 5, "a + (b if z else c)", 7);
	check_grouping("a | b if z else c", 5, "a | (b if z else c)", 1);
	check_grouping("-a if z else c", 5, "-(a if z else c)", -5);
}

/* Left-associative within a level. */
static void
associativity(void)
{
	check_grouping("c - b - a", 0, "c - (b - a)", 4);
	check_grouping("c - b + a", 4, "c - (b + a)", 0);
	check_grouping("c / a / a", 1.25, "c / (a / a)", 5);
	check_grouping("c / a * a", 5, "c / (a * a)", 1.25);
	check_grouping("c * b % a", 1, "c * (b % a)", 5);
	check_grouping("c % b * a", 4, "c % (b * a)", 5);
	check_grouping("c > b > a", 0, "c > (b > a)", 1);
	check_grouping("a < b > z", 1, "a < (b > z)", 0);
}

static void
arithmetic_nan(void)
{
	check_value("n + a", NAN);
	check_value("a - n", NAN);
	check_value("n * z", NAN);
	check_value("n / a", NAN);
	check_value("a / n", NAN);
	check_value("n < a", NAN);
	check_value("a > n", NAN);
	check_value("-n", NAN);
	check_value("inf - inf", NAN);
	check_value("inf > a", 1);
	check_value("ninf < inf", 1);
	check_value("inf * a", INFINITY);
	check_value("a < b", 1);
	check_value("b < a", 0);
	check_value("a < a", 0);
}

static void
division(void)
{
	check_value("c / a", 2.5);
	check_value("a / z", NAN);
	check_value("a / nz", NAN);
	check_value("z / z", NAN);
	check_value("n / z", NAN);
	check_value("inf / z", NAN);
	check_value("a / inf", 0);
	check_value("d_ratio(c, a)", 2.5);
	check_value("d_ratio(a, z)", 0);
	check_value("d_ratio(a, nz)", 0);
	check_value("d_ratio(n, z)", 0);
	check_value("d_ratio(inf, z)", 0);
	check_value("d_ratio(a, n)", NAN);
	check_value("d_ratio(n, a)", NAN);
	check_value("d_ratio(a + b, c - a)", 5.0 / 3);
}

/* (long)a % (long)b; a b of 0 leaves the whole formula without a value. */
static void
remainders(void)
{
	struct formula *f;

	check_value("c % b", 2);
	check_value("-c % b", -2);
	check_value("c % -b", 2);
	check_value("7.9 % 2.5", 1);
	check_value("-7.9 % 2.5", -1);
	check_value("n % b", NAN);
	check_value("c % n", NAN);
	check_value("inf % b", NAN);
	check_value("c % inf", NAN);
	check_value("n | a", 1);
	/* A NaN part would be swallowed; a % by 0 is not. */
	check_value("(c % z) | a", NAN);
	check_value("(c % nz) | a", NAN);
	check_value("(c % h) | a", NAN);
	check_value("a if a else c % z", NAN);
	check_value("d_ratio(c % z, z)", NAN);
	check_value("min(a, c % z)", NAN);
	/* -5 % 5 is 0, not -0. */
	f = formula_parse("-c % c", NULL, 0);
	CHECK(f != NULL);
	if (f != NULL) {
		bind_row(f);
		CHECK(formula_eval(f, &frame) == 0);
		CHECK(!signbit(formula_eval(f, &frame)));
	}
	formula_free(f);
}

/* | & ^: logical, with perf's rules for sides that are not finite. */
static void
logic(void)
{
	/* Both sides finite: 1 or 0. */
	check_value("a | z", 1);
	check_value("z | z", 0);
	check_value("z | nz", 0);
	check_value("a & b", 1);
	check_value("a & z", 0);
	check_value("nz & a", 0);
	check_value("a ^ b", 0);
	check_value("a ^ z", 1);
	check_value("z ^ z", 0);
	check_value("h ^ z", 1);
	/* One side finite: | gives the other where it is 0, else 1. */
	check_value("z | n", NAN);
	check_value("z | inf", INFINITY);
	check_value("ninf | z", -INFINITY);
	check_value("a | n", 1);
	check_value("n | z", NAN);
	check_value("n | a", 1);
	check_value("inf | a", 1);
	/* & gives the other where the finite one is not 0, else 0. */
	check_value("a & n", NAN);
	check_value("a & inf", INFINITY);
	check_value("z & n", 0);
	check_value("n & a", NAN);
	check_value("n & z", 0);
	check_value("ninf & h", -INFINITY);
	/* ^ gives NaN; so do all three with neither side finite. */
	check_value("a ^ n", NAN);
	check_value("n ^ z", NAN);
	check_value("z ^ inf", NAN);
	check_value("n | n", NAN);
	check_value("inf | inf", NAN);
	check_value("inf | n", NAN);
	check_value("inf & inf", NAN);
	check_value("n & inf", NAN);
	check_value("inf ^ inf", NAN);
}

static void
min_max(void)
{
	check_value("min(a, b)", 2);
	check_value("min(b, a)", 2);
	check_value("max(a, b)", 3);
	check_value("max(b, a)", 3);
	check_value("min(-a, z)", -2);
	check_value("max(inf, a)", INFINITY);
	check_value("min(ninf, a)", -INFINITY);
	/* a < b ? a : b: a NaN first argument gives the second. */
	check_value("min(n, a)", 2);
	check_value("min(a, n)", NAN);
	check_value("max(n, a)", 2);
	check_value("max(a, n)", NAN);
	check_value("max(a, max(b, c))", 5);
	check_value("min(a + b, c * z)", 0);
}

static void
conditionals(void)
{
	check_value("a if b else c", 2);
	check_value("a if z else c", 5);
	check_value("a if nz else c", 5);
	check_value("a if n else c", 2);
	check_value("a if inf else c", 2);
	check_value("a if h else c", 2);
	check_value("n if z else c", 5);
	check_value("a if b < c else c", 2);
	check_value("a if z | z else c", 5);
	/* Nested in the else branch: A if C else (B if D else E). */
	check_value("a if z else b if z else c", 5);
	check_value("a if z else b if a else c", 3);
	check_value("a if a else b if z else c", 2);
	check_value("a if z else b if z else c if z else h", 0.5);
	/* In parentheses, anywhere a value goes. */
	check_value("(a if z else b) + c", 8);
	check_value("c * (a if a else b)", 10);
	check_value("a if (b if z else z) else c", 5);
	check_value(
	    "(a if (b if z else a) else c) if (z if z else b) else n", 2);
	check_value("min((a if z else c), b)", 3);
	check_value("d_ratio(a, (b if z else z))", 0);
	check_value("-(a if z else b)", -3);
	check_value("((a if z else b))", 3);
}

static void
literal_values(void)
{
	struct formula *f;

	check_value("#smt_on * a", 2);
	check_value("#num_cpus_online / a", 4);
	check_value("#smt_on + #smt_on + #slots", 6);
	check_value("#smt_on - 1", 0);
	check_value("a if #smt_on else b", 2);
	/* A literal with no value leaves the formula none, not a NaN part. */
	check_value("a if #unknown else b", NAN);
	check_value("#unknown | 1", NAN);
	check_value("b if z else a * #unknown", NAN);

	f = formula_parse("#smt_on + #slots + #smt_on", NULL, 0);
	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK(formula_nliterals(f) == 2);
	CHECK(strcmp(formula_literal(f, 0), "#smt_on") == 0);
	CHECK(strcmp(formula_literal(f, 1), "#slots") == 0);
	CHECK(formula_literal(f, 2) == NULL);
	CHECK(formula_nnames(f) == 0);
	CHECK(isnan(formula_eval(f, &frame)));
	formula_bind_literal(f, 0, 1);
	CHECK(isnan(formula_eval(f, &frame)));
	formula_bind_literal(f, 1, 4);
	CHECK(formula_eval(f, &frame) == 6);
	/* Binding again replaces, NaN included. */
	formula_bind_literal(f, 0, 0);
	CHECK(formula_eval(f, &frame) == 4);
	formula_bind_literal(f, 0, NAN);
	CHECK(isnan(formula_eval(f, &frame)));
	formula_bind_literal(f, 0, NAN);
	formula_bind_literal(f, 0, 2);
	CHECK(formula_eval(f, &frame) == 8);
	formula_bind_literal(f, 5, 1);
	formula_bind_literal(f, -1, 1);
	CHECK(formula_eval(f, &frame) == 8);
	formula_free(f);
}

/* The bit of a way of reading a name. */
#define USE(way) (1u << FORMULA_##way)

/* text's names, in order, each read as uses says (NULL: as itself). */
static void
check_names_at(
    int line, const char *text, const char *const *names, const unsigned *uses)
{
	struct formula *f;
	char err[256];
	bool right;
	int i, n = 0;

	while (names[n] != NULL)
		n++;
	check_count++;
	if ((f = formula_parse(text, err, sizeof(err))) == NULL) {
		check_failures++;
		fprintf(stderr, "line %d: '%s': %s\n", line, text, err);
		return;
	}
	right = formula_nnames(f) == n && formula_name(f, n) == NULL;
	for (i = 0; right && i < n; i++)
		right = strcmp(formula_name(f, i), names[i]) == 0 &&
		    formula_name_uses(f, i) ==
			(uses != NULL ? uses[i] : USE(VALUE));
	if (!right) {
		check_failures++;
		fprintf(stderr, "line %d: '%s' reads", line, text);
		for (i = 0; i < formula_nnames(f); i++)
			fprintf(stderr, " '%s' (%#x)", formula_name(f, i),
			    formula_name_uses(f, i));
		fprintf(stderr, "\n");
	}
	formula_free(f);
}

#define check_names(text, ...) \
	check_names_at(        \
	    __LINE__, text, (const char *const[]) { __VA_ARGS__, NULL }, NULL)

/* The names as perf's lexer cuts them, escapes kept, each once. */
static void
names(void)
{
	check_names("b + a * b + c + a", "b", "a", "c");
	check_names(
	    "topdown\\-retiring / slots", "topdown\\-retiring", "slots");
	check_names("cpu@EVENT\\,cmask\\=1@ * 2", "cpu@EVENT\\,cmask\\=1@");
	check_names("msr@tsc\\,cpu=cpu_atom@ / 2", "msr@tsc\\,cpu=cpu_atom@");
	check_names("cpu_core@TOPDOWN.SLOTS@ + cpu_core@TOPDOWN.SLOTS@",
	    "cpu_core@TOPDOWN.SLOTS@");
	check_names("cpu@a+b@:u@(c)@ + x", "cpu@a+b@:u@(c)@", "x");
	check_names("INT_MISC.RECOVERY_CYCLES:c1:e + x",
	    "INT_MISC.RECOVERY_CYCLES:c1:e", "x");
	check_names("a\\,b\\-c\\=d", "a\\,b\\-c\\=d");
	/* Hex, and what looks like a number but is longer as a name. */
	check_names("0x410fd493 + 0x10", "0x410fd493", "0x10");
	check_names("1e9x + 2.5.3 + 12ab + .", "1e9x", "2.5.3", "12ab", ".");
	check_names("1.5e+3", "1.5e");
	check_names("1E5", "1E5");
	check_names("a?b + _x.y:z", "a?b", "_x.y:z");
	/* Keywords are case-sensitive, and whole tokens only. */
	check_names("If + IF + nan + NaNx + ifx + mins + d_ratio2", "If", "IF",
	    "nan", "NaNx", "ifx", "mins", "d_ratio2");
	check_names("a\t+\nb\r-\fc", "a", "b", "c");
	check_value("topdown\\-retiring + cpu@EVENT\\,cmask\\=1@", 13);
	check_value(
	    "msr@tsc\\,cpu=cpu_atom@ - INT_MISC.RECOVERY_CYCLES:c1:e", -1);
	check_value("1.5e+3", NAN);
	check_value("a\t+\nb\r-\fc", 0);
}

/* A literal is # and [0-9a-zA-Z_.-]+, the longest: #smt_on-1 is one. */
static void
literal_names(void)
{
	struct formula *f = formula_parse("#smt_on-1 + #a.b_c-9", NULL, 0);

	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK(formula_nliterals(f) == 2);
	CHECK(strcmp(formula_literal(f, 0), "#smt_on-1") == 0);
	CHECK(strcmp(formula_literal(f, 1), "#a.b_c-9") == 0);
	formula_free(f);
	check_value("#smt_on-1", NAN);
}

/* A name read as itself and as functions' arguments: one name, its uses. */
static void
uses(void)
{
	static const unsigned ways[] = {
		USE(VALUE) | USE(SOURCE_COUNT) | USE(AGGR_NR) | USE(HAS_EVENT),
		USE(CPUID),
		USE(HAS_EVENT),
	};

	check_names_at(__LINE__,
	    "source_count(x) * x + aggr_nr(x) + has_event(x) + "
	    "strcmp_cpuid_str(0x410fd493) + has_event(cpu@e\\,x=1@) + "
	    "has_event(x)",
	    (const char *const[]) { "x", "0x410fd493", "cpu@e\\,x=1@", NULL },
	    ways);
	/* source_count 2, aggr_nr 4, has_event 1 for cpu*, cpuid 1. */
	check_value("source_count(a) * a + aggr_nr(a)", 8);
	check_value("has_event(a) + has_event(cpu@x@)", 1);
	check_value("strcmp_cpuid_str(0x410fd493) - strcmp_cpuid_str(0x1)", 1);
	/* Each use bound on its own: zz as itself is not. */
	check_value("source_count(m_seven)", 2);
	check_value("aggr_nr(zz)", 4);
	check_value("aggr_nr(zz) + zz", NAN);
}

static struct formula *
parsed(const char *text)
{
	char err[256];
	struct formula *f = formula_parse(text, err, sizeof(err));

	if (f == NULL)
		fprintf(stderr, "'%s': %s\n", text, err);
	return f;
}

/* Each way of binding: a slot, a metric, a constant; again; none. */
static void
binding(void)
{
	double values[2] = { 10, 20 };
	struct formula_frame fr = { values, 2, metric_value, &metrics };
	struct formula *f;

	CHECK((f = parsed("x + source_count(x)")) != NULL);
	if (f == NULL)
		return;
	CHECK(isnan(formula_eval(f, &fr)));
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_SLOT, 1);
	formula_bind(f, 0, FORMULA_SOURCE_COUNT, FORMULA_CONST, 0.5);
	CHECK(formula_eval(f, &fr) == 20.5);
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_SLOT, 0);
	CHECK(formula_eval(f, &fr) == 10.5);
	/* A slot past the row's, or one that is no slot: NaN. */
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_SLOT, 2);
	CHECK(isnan(formula_eval(f, &fr)));
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_SLOT, -1);
	CHECK(isnan(formula_eval(f, &fr)));
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_SLOT, 0.5);
	CHECK(isnan(formula_eval(f, &fr)));
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_SLOT, NAN);
	CHECK(isnan(formula_eval(f, &fr)));
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_SLOT, 1e12);
	CHECK(isnan(formula_eval(f, &fr)));
	/* A metric: the callback, with its context and the index. */
	metrics.calls = 0;
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_METRIC, 3);
	CHECK(formula_eval(f, &fr) == 5);
	CHECK(metrics.calls == 1);
	CHECK(metrics.last_index == 3);
	CHECK(metrics.last_ctx == &metrics);
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_METRIC, -2);
	CHECK(isnan(formula_eval(f, &fr)));
	CHECK(metrics.calls == 1);
	fr.metric = NULL;
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_METRIC, 3);
	CHECK(isnan(formula_eval(f, &fr)));
	/* A constant; then nothing again. */
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_CONST, -4);
	CHECK(formula_eval(f, &fr) == -3.5);
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_UNBOUND, 0);
	CHECK(isnan(formula_eval(f, &fr)));
	/* Out of range: ignored. */
	formula_bind(f, 1, FORMULA_VALUE, FORMULA_CONST, 1);
	formula_bind(f, -1, FORMULA_VALUE, FORMULA_CONST, 1);
	formula_bind(f, 0, FORMULA_NUSES, FORMULA_CONST, 1);
	CHECK(isnan(formula_eval(f, &fr)));
	/* No slots at all. */
	formula_bind(f, 0, FORMULA_VALUE, FORMULA_SLOT, 0);
	fr.slots = NULL;
	fr.nslots = 0;
	CHECK(isnan(formula_eval(f, &fr)));
	formula_free(f);
}

static void
metric_references(void)
{
	metrics.calls = 0;
	check_value("m_seven", 10.5);
	CHECK(metrics.calls == 1 && metrics.last_index == 7);
	check_value("m_seven * 2 + m_seven", 31.5);
	CHECK(metrics.calls == 3);
	/* Both branches are computed: the one not taken calls too. */
	metrics.calls = 0;
	check_value("b if a else m_seven", 3);
	CHECK(metrics.calls == 1);
}

/* A name bound to nothing is NaN, and goes as NaN goes. */
static void
unbound(void)
{
	check_value("u", NAN);
	check_value("u + a", NAN);
	check_value("min(u, a)", 2);
	check_value("max(a, u)", NAN);
	check_value("u if z else a", 2);
	check_value("a if u else b", 2);
	check_value("d_ratio(u, z)", 0);
	check_value("z | u", NAN);
	check_value("a | u", 1);
	check_value("z & u", 0);
	check_value("has_event(u)", 0);
	check_value("strcmp_cpuid_str(u)", 0);
}

/* A vendor's formula: | below ^ picks the cores' variant. */
static void
vendor_formula(void)
{
	static const char text[] =
	    "(100 * ((((STALL_SLOT_FRONTEND) if (strcmp_cpuid_str(0x410fd493)"
	    " | strcmp_cpuid_str(0x410fd490) ^ 1) else (STALL_SLOT_FRONTEND -"
	    " CPU_CYCLES)) / (CPU_CYCLES * #slots)) - (BR_MIS_PRED / "
	    "CPU_CYCLES)))";
	double values[] = { 400, 100, 5 };
	struct formula_frame fr = { values, 3, NULL, NULL };
	struct formula *f;
	int i;

	CHECK((f = parsed(text)) != NULL);
	if (f == NULL)
		return;
	CHECK(formula_nnames(f) == 5 && formula_nliterals(f) == 1);
	for (i = 0; i < formula_nnames(f); i++) {
		const char *name = formula_name(f, i);

		if (strcmp(name, "STALL_SLOT_FRONTEND") == 0)
			formula_bind(f, i, FORMULA_VALUE, FORMULA_SLOT, 0);
		else if (strcmp(name, "CPU_CYCLES") == 0)
			formula_bind(f, i, FORMULA_VALUE, FORMULA_SLOT, 1);
		else if (strcmp(name, "BR_MIS_PRED") == 0)
			formula_bind(f, i, FORMULA_VALUE, FORMULA_SLOT, 2);
		else
			formula_bind(f, i, FORMULA_CPUID, FORMULA_CONST,
			    strcmp(name, "0x410fd490") == 0);
	}
	formula_bind_literal(f, 0, 8);
	/* 0 | (1 ^ 1): 100 * ((400 - 100) / 800 - 5 / 100) */
	CHECK(same(formula_eval(f, &fr), 32.5));
	for (i = 0; i < formula_nnames(f); i++)
		if (formula_name_uses(f, i) == USE(CPUID))
			formula_bind(f, i, FORMULA_CPUID, FORMULA_CONST,
			    strcmp(formula_name(f, i), "0x410fd493") == 0);
	/* 1 | (0 ^ 1): 100 * (400 / 800 - 5 / 100) */
	CHECK(same(formula_eval(f, &fr), 45));
	formula_free(f);
}

struct walked {
	char seen[512];
};

static void
note(void *arg, const char *name, enum formula_use use)
{
	struct walked *w = arg;
	size_t n = strlen(w->seen);

	snprintf(w->seen + n, sizeof(w->seen) - n, "%s/%d ", name, (int)use);
}

static void
walk(void)
{
	static const char text[] =
	    "has_event(x) + x + source_count(y) + "
	    "strcmp_cpuid_str(0x1) + aggr_nr(x) + #smt_on";
	struct walked w = { "" };
	char err[128];

	CHECK(formula_walk(text, &w, note, err, sizeof(err)) == 0);
	CHECK(strcmp(w.seen, "x/0 x/2 x/3 y/1 0x1/4 ") == 0);
	w.seen[0] = '\0';
	CHECK(formula_walk("x +", &w, note, err, sizeof(err)) == -1);
	CHECK(strcmp(err, "unexpected end at 4, expected a value") == 0);
	CHECK(w.seen[0] == '\0');
}

/* Bad formulas: each refused in one line naming the token and its column. */
static void
bad_tokens(void)
{
	check_bad("", "unexpected end at 1, expected a value");
	check_bad("   ", "unexpected end at 4, expected a value");
	check_bad("1 +", "unexpected end at 4, expected a value");
	check_bad("-", "unexpected end at 2, expected a value");
	check_bad("a)", "unexpected ')' at 2");
	check_bad("a b", "unexpected 'b' at 3");
	check_bad("NaN NaN", "unexpected 'NaN' at 5");
	check_bad("a , b", "unexpected ',' at 3");
	check_bad("a * * b", "unexpected '*' at 5, expected a value");
	check_bad("()", "unexpected ')' at 2, expected a value");
	check_bad("(a", "'(' at 1 without ')'");
	check_bad("((a) + b", "'(' at 1 without ')'");
	check_bad("1e999", "number '1e999' out of range at 1");
	check_bad("1 + 1e-999", "number '1e-999' out of range at 5");
	check_bad("a 01234567890123456789012345678901234567890123456789",
	    "unexpected '0123456789012345678901234567890123456789...' at 3");
}

/* What perf's lexer skips without a word is refused here. */
static void
bad_characters(void)
{
	check_bad("a $ b", "unknown character '$' at 3");
	check_bad("a = b", "unknown character '=' at 3");
	check_bad("!a", "unknown character '!' at 1");
	check_bad("a ~b", "unknown character '~' at 3");
	check_bad("x[1]", "unknown character '[' at 2");
	check_bad("\"a\"", "unknown character '\"' at 1");
	check_bad("a\x01", "unknown character '\\x01' at 2");
	check_bad("a \xc3\xa9", "unknown character '\\xc3' at 3");
	check_bad("a \\x", "unknown character '\\' at 3");
	check_bad("a\\", "unknown character '\\' at 2");
	check_bad("a # b", "'#' without a literal's name at 3");
	check_bad("cpu@abc + 1", "'@' at 4 without a closing '@'");
	check_bad("cpu@a b@", "'@' at 4 without a closing '@'");
	check_bad("x + a@", "'@' at 6 without a closing '@'");
}

static void
bad_grammar(void)
{
	check_bad("a if b", "'if' without 'else' at 3");
	check_bad("(a if b) + c", "'if' without 'else' at 4");
	check_bad("a if b c", "unexpected 'c' at 8, expected 'else'");
	check_bad("a else b", "unexpected 'else' at 3");
	check_bad("if a else b", "unexpected 'if' at 1, expected a value");
	check_bad("a if else b", "unexpected 'else' at 6, expected a value");
	/* perf's grammar: no conditional as an argument or a condition. */
	check_bad("min(a if b else c, d)",
	    "unexpected 'if' at 7: a conditional here goes in parentheses");
	check_bad("d_ratio(a, b if c else z)", "unexpected 'if' at 14");
	check_bad("a if b if c else d else e", "unexpected 'if' at 8");
	check_bad("min(a)", "unexpected ')' at 6, expected ','");
	check_bad("min(a, b, c)", "unexpected ',' at 9, expected ')'");
	check_bad("min a, b", "unexpected 'a' at 5, expected '('");
	check_bad("min + 1", "unexpected '+' at 5, expected '('");
	check_bad("source_count(1)", "unexpected '1' at 14, expected a name");
	check_bad("has_event(a + b)", "unexpected '+' at 13, expected ')'");
	check_bad("has_event(min)", "unexpected 'min' at 11, expected a name");
	check_bad(
	    "aggr_nr(#smt_on)", "unexpected '#smt_on' at 9, expected a name");
	check_bad(
	    "strcmp_cpuid_str()", "unexpected ')' at 18, expected a name");
	check_bad("has_event((a))", "unexpected '(' at 11, expected a name");
}

/* A formula made of pre, n times, then mid, then post n times. */
static char *
repeated(const char *pre, const char *mid, const char *post, int n)
{
	size_t lp = strlen(pre), lm = strlen(mid), lq = strlen(post);
	char *s = malloc((lp + lq) * (size_t)n + lm + 1), *at = s;
	int i;

	if (s == NULL)
		abort();
	for (i = 0; i < n; i++, at += lp)
		memcpy(at, pre, lp);
	memcpy(at, mid, lm);
	at += lm;
	for (i = 0; i < n; i++, at += lq)
		memcpy(at, post, lq);
	*at = '\0';
	return s;
}

/* text parses, needs depth values, and is want. */
static void
check_deep(const char *text, int depth, double want)
{
	struct formula *f = parsed(text);

	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK(formula_depth(f) == depth);
	bind_row(f);
	CHECK(same(formula_eval(f, &frame), want));
	formula_free(f);
}

static void
check_too_deep(char *text, const char *says)
{
	check_bad(text, says);
	free(text);
}

static void
depth(void)
{
	char *s;

	/* Nesting: up to FORMULA_MAX_DEPTH levels. */
	check_deep(s = repeated("(", "a", ")", FORMULA_MAX_DEPTH), 1, 2);
	free(s);
	check_too_deep(repeated("(", "a", ")", FORMULA_MAX_DEPTH + 1),
	    "too deep at 66: nested more than 64 levels");
	check_deep(s = repeated("-", "a", "", FORMULA_MAX_DEPTH), 1, 2);
	free(s);
	check_too_deep(repeated("-", "a", "", FORMULA_MAX_DEPTH + 1),
	    "too deep at 66: nested more than 64 levels");
	check_too_deep(repeated("(", "a", ")", 100000),
	    "too deep at 66: nested more than 64 levels");
	/* Each else branch holds two values more: A and C. */
	check_deep(s = repeated("z if z else ", "a", "", 31), 63, 2);
	free(s);
	check_too_deep(repeated("z if z else ", "a", "", 10000),
	    "too deep at 385: more than 64 values pending");
	/* Values held at once: a + (a + (...)) holds one more a level. */
	check_deep(s = repeated("a + (", "a", ")", FORMULA_MAX_DEPTH - 1),
	    FORMULA_MAX_DEPTH, 2 * FORMULA_MAX_DEPTH);
	free(s);
	check_too_deep(repeated("a + (", "a", ")", FORMULA_MAX_DEPTH),
	    "too deep at 321: more than 64 values pending");
	/* A long flat sum is not deep. */
	check_deep(s = repeated("a + ", "a", "", 100000), 2, 200002);
	free(s);
	check_deep("a | b ^ c & a < b + c * -a", 7, 1);
}

/* The longest text taken, and the error buffer's edges. */
static void
limits(void)
{
	char *s = repeated(" ", "a", "", FORMULA_MAX_TEXT - 2);
	char small[8], err[64] = "left";
	struct formula *f;

	check_deep(s, 1, 2);
	free(s);
	check_too_deep(repeated(" ", "a", "", FORMULA_MAX_TEXT - 1),
	    "formula too long: 1048575 characters at most");
	CHECK(formula_parse(NULL, err, sizeof(err)) == NULL);
	CHECK(strcmp(err, "no formula") == 0);
	CHECK(formula_parse("a $", NULL, 0) == NULL);
	CHECK(formula_parse("a $", small, sizeof(small)) == NULL);
	CHECK(strcmp(small, "unknown") == 0);
	f = formula_parse("a", err, sizeof(err));
	CHECK(f != NULL && err[0] == '\0');
	formula_free(f);
	formula_free(NULL);
}

/* The fields of a line of the data file, split at its tabs in place. */
static int
split(char *line, char **fields, int max)
{
	int n = 0;

	fields[n++] = line;
	for (; *line != '\0' && n < max; line++)
		if (*line == '\t') {
			*line = '\0';
			fields[n++] = line + 1;
		}
	return n;
}

/* One of the data's formulas: parsed, and with nothing bound, no value. */
static bool
data_formula(const char *text, const char *model, const char *metric)
{
	struct formula_frame none = { NULL, 0, NULL, NULL };
	struct formula *f;
	char err[256];
	bool parsed;

	if ((f = formula_parse(text, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s %s: '%s': %s\n", model, metric, text, err);
		return false;
	}
	parsed = formula_depth(f) >= 1 && formula_depth(f) <= FORMULA_MAX_DEPTH;
	if (formula_nliterals(f) > 0)
		parsed = parsed && isnan(formula_eval(f, &none));
	else
		(void)formula_eval(f, &none);
	formula_free(f);
	return parsed;
}

/*
 * Every EXPR and THRESHOLD of every metric line of the vendors' data
 * (metric TAG NAME PMU GROUPS NOGROUP DEFAULT CONSTRAINT SCALEUNIT EXPR
 * THRESHOLD) parses.
 */
static void
vendor_data(void)
{
	static const char path[] = SOURCE_DIR "/cmd/metrics/metrics.tsv";
	int metrics_seen = 0, formulas = 0, parsed = 0, nf;
	char *line = NULL, *fields[12];
	size_t cap = 0;
	ssize_t len;
	FILE *fp;

	CHECK((fp = fopen(path, "r")) != NULL);
	if (fp == NULL)
		return;
	while ((len = getline(&line, &cap, fp)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (strncmp(line, "metric\t", 7) != 0)
			continue;
		metrics_seen++;
		if ((nf = split(line, fields, 12)) != 11) {
			fprintf(stderr, "%s: %d fields, not 11\n", line, nf);
			continue;
		}
		formulas += 1 + (fields[10][0] != '\0');
		parsed += data_formula(fields[9], fields[1], fields[2]);
		if (fields[10][0] != '\0')
			parsed +=
			    data_formula(fields[10], fields[1], fields[2]);
	}
	free(line);
	fclose(fp);
	printf("metrics.tsv: %d metrics, %d of %d formulas parsed\n",
	    metrics_seen, parsed, formulas);
	CHECK(metrics_seen > 0);
	CHECK(formulas >= metrics_seen);
	CHECK(parsed == formulas);
}

int
main(void)
{
	int i;

	for (i = 0; i < NSLOTS; i++)
		slot_values[i] = slots[i].value;
	numbers();
	precedence();
	associativity();
	arithmetic_nan();
	division();
	remainders();
	logic();
	min_max();
	conditionals();
	literal_values();
	names();
	literal_names();
	uses();
	binding();
	metric_references();
	unbound();
	vendor_formula();
	walk();
	bad_tokens();
	bad_characters();
	bad_grammar();
	depth();
	limits();
	vendor_data();
	return check_report("test_formula");
}
