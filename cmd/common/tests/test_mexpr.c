/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mexpr.c: the metric tables' formulas, parsed and evaluated against
 * values worked out by hand; bad formulas refused with the token named.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "mexpr.h"

/* text, with names[i] = values[i], gives want (to 1e-12). */
static void
check_value(const char *text, const char *const *names, const double *values,
    double want)
{
	double in[MEXPR_MAX_NAMES], got = NAN;
	struct mexpr e;
	char err[256] = "";
	int i, k;

	check_count++;
	if (mexpr_compile(text, &e, err, sizeof(err)) != 0) {
		check_failures++;
		fprintf(stderr, "'%s': %s", text, err);
		return;
	}
	for (i = 0; i < e.nnames; i++) {
		in[i] = NAN;
		for (k = 0; names != NULL && names[k] != NULL; k++)
			if (strcmp(names[k], e.names[i]) == 0)
				in[i] = values[k];
	}
	if (!mexpr_eval(&e, in, &got) ||
	    fabs(got - want) > 1e-12 * (fabs(want) > 1 ? fabs(want) : 1)) {
		check_failures++;
		fprintf(stderr, "'%s': %g, expected %g\n", text, got, want);
	}
}

/* text compiles, and has no value for these inputs. */
static void
check_none(const char *text, const char *const *names, const double *values)
{
	double in[MEXPR_MAX_NAMES], got;
	struct mexpr e;
	char err[256];
	int i, k;

	CHECK(mexpr_compile(text, &e, err, sizeof(err)) == 0);
	for (i = 0; i < e.nnames; i++) {
		in[i] = NAN;
		for (k = 0; names[k] != NULL; k++)
			if (strcmp(names[k], e.names[i]) == 0)
				in[i] = values[k];
	}
	CHECK(!mexpr_eval(&e, in, &got));
}

/* text is refused, with a line that holds says. */
static void
check_bad(const char *text, const char *says)
{
	struct mexpr e;
	char err[256] = "";

	check_count++;
	if (mexpr_compile(text, &e, err, sizeof(err)) == 0 ||
	    strstr(err, says) == NULL ||
	    strchr(err, '\n') != strrchr(err, '\n')) {
		check_failures++;
		fprintf(stderr, "'%s': '%s', expected '%s'\n", text, err, says);
	}
}

static void
arithmetic(void)
{
	check_value("1 + 2 * 3", NULL, NULL, 7);
	check_value("(1 + 2) * 3", NULL, NULL, 9);
	check_value("10 - 4 - 3", NULL, NULL, 3); /* left to right */
	check_value("64 / 4 / 2", NULL, NULL, 8); /* left to right */
	check_value("-2 * -3", NULL, NULL, 6);
	check_value("- (1 + 1)", NULL, NULL, -2);
	check_value("1 - -1", NULL, NULL, 2);
	check_value("2.5e3 + .5", NULL, NULL, 2500.5);
	check_value("1e-3 * 4E+2", NULL, NULL, 0.4);
	check_value("((((7))))", NULL, NULL, 7);
}

static void
names(void)
{
	static const char *const n[] = { "instructions", "cpu-cycles",
		"topdown-retiring", "UOPS_ISSUED:ANY",
		"uncore_imc/cas_count_read/", "#elapsed", "x", NULL };
	static const double v[] = { 3e9, 1.5e9, 40, 120, 1e6, 2e9, 5 };

	check_value("instructions / cpu-cycles", n, v, 2);
	check_value("instructions/cpu-cycles", n, v, 2);
	check_value("topdown-retiring * 2", n, v, 80);
	check_value("UOPS_ISSUED:ANY / 4", n, v, 30);
	/* 1e6 lines of 64 bytes in 2 s: 0.032 GB/s, bytes per ns. */
	check_value(
	    "{uncore_imc/cas_count_read/} * 64 / #elapsed", n, v, 0.032);
	/* A name used twice is one input. */
	check_value("x * x - x", n, v, 20);
	check_value("x - 1", n, v, 4);
}

static void
no_value(void)
{
	static const char *const n[] = { "a", "b", "zero", NULL };
	static const double v[] = { 1, NAN, 0 };

	check_none("a / zero", n, v);
	check_none("a + b", n, v); /* b was not counted */
	check_none("b * zero", n, v);
	check_none("a / (zero * 5)", n, v);
}

static void
refused(void)
{
	check_bad("1 +", "ends where a value is wanted");
	check_bad("(1 + 2", "'(' without ')'");
	check_bad("1 2", "an operator is wanted");
	check_bad("a b", "'b' in 'a b': an operator is wanted");
	check_bad("* 3", "'*' in '* 3'");
	check_bad("0x10", "'0x10': not a number");
	check_bad("1.2.3", "'1.2.3': not a number");
	check_bad("{abc", "no closing brace");
	check_bad("{}", "a name of 1 to");
	check_bad("", "ends where a value is wanted");
	check_bad("a+b+c+d+e+f+g+h+i+j+k+l+m", "more than 12 names");
	check_bad("--------------------------------------1", "nested");
	check_bad("1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+"
		  "1+1+1+1",
	    "more than 64 steps");
}

int
main(void)
{
	arithmetic();
	names();
	no_value();
	refused();
	return check_report("test_mexpr");
}
