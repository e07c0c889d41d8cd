/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The formulas of the metric tables (see mexpr.h): a recursive-descent
 * parser that writes postfix steps, and a stack machine that runs them.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mexpr.h"

/* The deepest nesting of parentheses and unary minus taken. */
#define MAX_DEPTH 32

struct parser {
	const char *text, *at;
	struct mexpr *e;
	char *err;
	size_t len;
	bool bad;
	int depth;
};

static void __attribute__((format(printf, 2, 3)))
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->bad)
		return;
	p->bad = true;
	va_start(ap, fmt);
	vsnprintf(p->err, p->len, fmt, ap);
	va_end(ap);
}

static void
skip_space(struct parser *p)
{
	while (*p->at == ' ' || *p->at == '\t')
		p->at++;
}

static bool
emit(struct parser *p, enum mexpr_op op, double num, int name)
{
	struct mexpr_step *s;

	if (p->e->nsteps == MEXPR_MAX_OPS) {
		fail(p, "'%s': more than %d steps\n", p->text, MEXPR_MAX_OPS);
		return false;
	}
	s = &p->e->steps[p->e->nsteps++];
	s->op = op;
	s->num = num;
	s->name = name;
	return true;
}

static bool
name_char(char c)
{
	return c != '\0' &&
	    (isalnum((unsigned char)c) || strchr("_.:@#", c) != NULL);
}

/* The name of n bytes at s: its index, added when new, or -1. */
static int
intern(struct parser *p, const char *s, size_t n)
{
	struct mexpr *e = p->e;
	int i;

	if (n == 0 || n >= MEXPR_MAX_NAME) {
		fail(p, "'%.*s': a name of 1 to %d characters\n", (int)n, s,
		    MEXPR_MAX_NAME - 1);
		return -1;
	}
	for (i = 0; i < e->nnames; i++)
		if (strncmp(e->names[i], s, n) == 0 && e->names[i][n] == '\0')
			return i;
	if (e->nnames == MEXPR_MAX_NAMES) {
		fail(p, "'%.*s': more than %d names\n", (int)n, s,
		    MEXPR_MAX_NAMES);
		return -1;
	}
	memcpy(e->names[e->nnames], s, n);
	e->names[e->nnames][n] = '\0';
	return e->nnames++;
}

static void
number(struct parser *p)
{
	const char *s = p->at;
	char *end;
	double v;

	/* Decimal only: strtod would take hex, inf and nan too. */
	while (isdigit((unsigned char)*p->at) || *p->at == '.')
		p->at++;
	if ((*p->at == 'e' || *p->at == 'E') &&
	    (isdigit((unsigned char)p->at[1]) ||
		((p->at[1] == '-' || p->at[1] == '+') &&
		    isdigit((unsigned char)p->at[2])))) {
		p->at += 2;
		while (isdigit((unsigned char)*p->at))
			p->at++;
	}
	v = strtod(s, &end);
	if (end != p->at || name_char(*p->at)) {
		while (name_char(*p->at))
			p->at++;
		fail(p, "'%.*s': not a number\n", (int)(p->at - s), s);
		return;
	}
	emit(p, MEXPR_NUM, v, -1);
}

static void
bare_name(struct parser *p)
{
	const char *s = p->at;
	int i;

	while (name_char(*p->at) ||
	    (*p->at == '-' && p->at > s && name_char(p->at[-1]) &&
		name_char(p->at[1])))
		p->at++;
	if ((i = intern(p, s, (size_t)(p->at - s))) >= 0)
		emit(p, MEXPR_NAME, 0, i);
}

static void
braced_name(struct parser *p)
{
	const char *s = ++p->at, *close = strchr(s, '}');
	int i;

	if (close == NULL) {
		fail(p, "'{%s': no closing brace\n", s);
		return;
	}
	p->at = close + 1;
	if ((i = intern(p, s, (size_t)(close - s))) >= 0)
		emit(p, MEXPR_NAME, 0, i);
}

static void sum(struct parser *p);

static void
primary(struct parser *p)
{
	skip_space(p);
	if (isdigit((unsigned char)*p->at) ||
	    (*p->at == '.' && isdigit((unsigned char)p->at[1]))) {
		number(p);
	} else if (*p->at == '{') {
		braced_name(p);
	} else if (name_char(*p->at)) {
		bare_name(p);
	} else if (*p->at == '(') {
		p->at++;
		sum(p);
		skip_space(p);
		if (*p->at != ')')
			fail(p, "'%s': '(' without ')'\n", p->text);
		else
			p->at++;
	} else if (*p->at == '\0') {
		fail(p, "'%s': ends where a value is wanted\n", p->text);
	} else {
		fail(p, "'%c' in '%s': a value is wanted there\n", *p->at,
		    p->text);
	}
}

static void
unary(struct parser *p)
{
	skip_space(p);
	if (++p->depth > MAX_DEPTH) {
		fail(p, "'%s': nested more than %d deep\n", p->text, MAX_DEPTH);
		return;
	}
	if (*p->at == '-') {
		p->at++;
		unary(p);
		if (!p->bad)
			emit(p, MEXPR_NEG, 0, -1);
	} else {
		primary(p);
	}
	p->depth--;
}

static void
product(struct parser *p)
{
	char op;

	unary(p);
	for (;;) {
		skip_space(p);
		if (p->bad || (*p->at != '*' && *p->at != '/'))
			return;
		op = *p->at++;
		unary(p);
		if (!p->bad)
			emit(p, op == '*' ? MEXPR_MUL : MEXPR_DIV, 0, -1);
	}
}

static void
sum(struct parser *p)
{
	char op;

	product(p);
	for (;;) {
		skip_space(p);
		if (p->bad || (*p->at != '+' && *p->at != '-'))
			return;
		op = *p->at++;
		product(p);
		if (!p->bad)
			emit(p, op == '+' ? MEXPR_ADD : MEXPR_SUB, 0, -1);
	}
}

int
mexpr_compile(const char *text, struct mexpr *e, char *err, size_t len)
{
	struct parser p = { text, text, e, err, len, false, 0 };

	memset(e, 0, sizeof(*e));
	sum(&p);
	skip_space(&p);
	if (!p.bad && *p.at != '\0')
		fail(&p, "'%s' in '%s': an operator is wanted there\n", p.at,
		    text);
	return p.bad ? -1 : 0;
}

int
mexpr_name(const struct mexpr *e, const char *name)
{
	int i;

	for (i = 0; i < e->nnames; i++)
		if (strcmp(e->names[i], name) == 0)
			return i;
	return -1;
}

bool
mexpr_eval(const struct mexpr *e, const double *values, double *out)
{
	double stack[MEXPR_MAX_OPS], a, b;
	const struct mexpr_step *s;
	int n = 0, i;

	for (i = 0; i < e->nsteps; i++) {
		s = &e->steps[i];
		switch (s->op) {
		case MEXPR_NUM:
			stack[n++] = s->num;
			continue;
		case MEXPR_NAME:
			if (isnan(values[s->name]))
				return false;
			stack[n++] = values[s->name];
			continue;
		case MEXPR_NEG:
			stack[n - 1] = -stack[n - 1];
			continue;
		default:
			break;
		}
		b = stack[--n];
		a = stack[n - 1];
		if (s->op == MEXPR_DIV && b == 0)
			return false;
		stack[n - 1] = s->op == MEXPR_ADD ? a + b :
		    s->op == MEXPR_SUB		  ? a - b :
		    s->op == MEXPR_MUL		  ? a * b :
						    a / b;
	}
	if (n != 1 || !isfinite(stack[0]))
		return false;
	*out = stack[0];
	return true;
}
