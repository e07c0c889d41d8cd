/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf's expression language (see formula.h): a lexer that takes perf's
 * tokens by the longest match, a recursive-descent parser that writes
 * postfix steps, and a stack machine that runs them.
 *
 * The parser builds in growing arrays; the program it hands out is one
 * block of exactly the size it needs (steps, constants, the bindings,
 * the names and literals and their text), freed at once.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formula.h"

/* The longest token an error message quotes whole. */
#define QUOTE_MAX 40

/* Tokens: the one-character ones are the character itself. */
enum token_kind {
	TOK_END = 0,
	TOK_NUMBER = 256,
	TOK_NAME,
	TOK_LITERAL,
	TOK_IF,
	TOK_ELSE,
	TOK_OF_NAME, /* source_count aggr_nr has_event strcmp_cpuid_str */
	TOK_OF_TWO   /* min max d_ratio */
};

/* The program's steps. */
enum op {
	OP_NUMBER,  /* push consts[arg] */
	OP_NAME,    /* push what binds[arg] stands for */
	OP_LITERAL, /* push literals[arg] */
	OP_NEG,
	OP_OR,
	OP_XOR,
	OP_AND,
	OP_LT,
	OP_GT,
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_DIV,
	OP_MOD,
	OP_MIN,
	OP_MAX,
	OP_D_RATIO,
	OP_SELECT /* A C B: B where C is 0, else A */
};

struct step {
	int op;
	int arg;
};

/* What one use of a name stands for (formula_bind). */
struct binding {
	enum formula_bind kind;
	int index; /* SLOT, METRIC; -1: none */
	double value;
};

struct formula {
	int nsteps, nconsts, nnames, nliterals;
	int depth;	  /* the deepest stack the steps reach */
	int nan_literals; /* literals with no value */
	const struct step *steps;
	const double *consts;
	struct binding *binds; /* name * FORMULA_NUSES + use */
	double *literals;
	const char **names, **literal_names;
	const unsigned *uses;
};

struct token {
	int kind;
	const char *at;
	size_t len;
	double number;	      /* TOK_NUMBER */
	enum formula_use use; /* TOK_OF_NAME */
	enum op op;	      /* TOK_OF_TWO */
};

/* A name or a literal met: its text, in the formula's. */
struct entry {
	const char *at;
	size_t len;
	unsigned uses;
};

struct parser {
	const char *text;
	const char *at; /* where the next token starts */
	struct token tok;
	char *err;
	size_t errlen;
	bool bad;
	int nest; /* the parser's own recursion */
	int sp;	  /* the stack's depth where the steps have got to */
	int depth;
	struct step *steps;
	double *consts;
	struct entry *names, *literals;
	int nsteps, nconsts, nnames, nliterals;
	int stepcap, constcap, namecap, literalcap;
};

static const struct keyword {
	const char *word;
	int kind;
	enum formula_use use;
	enum op op;
} keywords[] = {
	{ "if", TOK_IF, FORMULA_VALUE, OP_NUMBER },
	{ "else", TOK_ELSE, FORMULA_VALUE, OP_NUMBER },
	{ "min", TOK_OF_TWO, FORMULA_VALUE, OP_MIN },
	{ "max", TOK_OF_TWO, FORMULA_VALUE, OP_MAX },
	{ "d_ratio", TOK_OF_TWO, FORMULA_VALUE, OP_D_RATIO },
	{ "source_count", TOK_OF_NAME, FORMULA_SOURCE_COUNT, OP_NUMBER },
	{ "aggr_nr", TOK_OF_NAME, FORMULA_AGGR_NR, OP_NUMBER },
	{ "has_event", TOK_OF_NAME, FORMULA_HAS_EVENT, OP_NUMBER },
	{ "strcmp_cpuid_str", TOK_OF_NAME, FORMULA_CPUID, OP_NUMBER },
	{ "NaN", TOK_NUMBER, FORMULA_VALUE, OP_NUMBER },
};

static void __attribute__((format(printf, 2, 3)))
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->bad)
		return;
	p->bad = true;
	if (p->err == NULL || p->errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
}

/* Where s is, counted from 1, as an editor counts columns. */
static int
column(const struct parser *p, const char *s)
{
	return (int)(s - p->text) + 1;
}

/* The lexer: ASCII classes, whatever the locale. */

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
is_alnum(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	    c == '\v';
}

/* perf's number, [0-9]+.?[0-9]* or [0-9]*.?[0-9]+, e-?[0-9]+ after. */
static size_t
number_len(const char *s)
{
	const char *t = s, *e;
	size_t digits = 0;

	for (; is_digit(*t); t++)
		digits++;
	if (*t == '.')
		for (t++; is_digit(*t); t++)
			digits++;
	if (digits == 0)
		return 0;
	if (*t == 'e') {
		e = t + 1;
		if (*e == '-')
			e++;
		if (is_digit(*e)) {
			while (is_digit(*e))
				e++;
			t = e;
		}
	}
	return (size_t)(t - s);
}

/* An @...@ part: where it ends, past its closing @; NULL if it has none. */
static const char *
at_part_end(const char *s)
{
	const char *t;

	for (t = s + 1; *t != '@'; t++)
		if (*t <= ' ' || *t == 0x7f)
			return NULL;
	return t + 1;
}

/*
 * perf's name: letters, digits, _ . : ? and the escapes \- \, \=, with
 * @...@ parts taken whole. Its length; 0 with *open set where an @ has
 * no closing one.
 */
static size_t
name_len(const char *s, const char **open)
{
	const char *t = s, *end;

	for (;;) {
		if (is_alnum(*t) || *t == '_' || *t == '.' || *t == ':' ||
		    *t == '?') {
			t++;
		} else if (*t == '\\' && t[1] != '\0' &&
		    strchr("-,=", t[1]) != NULL) {
			t += 2;
		} else if (*t == '@') {
			if ((end = at_part_end(t)) == NULL) {
				*open = t;
				return 0;
			}
			t = end;
		} else {
			return (size_t)(t - s);
		}
	}
}

static size_t
literal_len(const char *s)
{
	const char *t = s + 1;

	while (is_alnum(*t) || *t == '_' || *t == '.' || *t == '-')
		t++;
	return t == s + 1 ? 0 : (size_t)(t - s);
}

static void
quote(const struct token *t, char *buf, size_t len)
{
	if (t->kind == TOK_END)
		snprintf(buf, len, "end");
	else if (t->len > QUOTE_MAX)
		snprintf(buf, len, "'%.*s...'", QUOTE_MAX, t->at);
	else
		snprintf(buf, len, "'%.*s'", (int)t->len, t->at);
}

static void
unknown_char(struct parser *p, const char *s)
{
	unsigned char c = (unsigned char)*s;

	if (c == '\\')
		fail(p,
		    "unknown character '\\' at %d: the escapes are \\- \\, \\=",
		    column(p, s));
	else if (c == '#')
		fail(p, "'#' without a literal's name at %d", column(p, s));
	else if (c > ' ' && c < 0x7f)
		fail(p, "unknown character '%c' at %d", c, column(p, s));
	else
		fail(p, "unknown character '\\x%02x' at %d", c, column(p, s));
}

static void
lex_number(struct parser *p, size_t len)
{
	struct token *t = &p->tok;
	char *end;

	t->kind = TOK_NUMBER;
	t->len = len;
	errno = 0;
	t->number = strtod(t->at, &end);
	if (errno != 0 || end != t->at + len)
		fail(p, "number '%.*s' out of range at %d", (int)len, t->at,
		    column(p, t->at));
}

/* A name, or the keyword it spells. */
static void
lex_name(struct parser *p, size_t len)
{
	struct token *t = &p->tok;
	size_t i;

	t->kind = TOK_NAME;
	t->len = len;
	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		if (strlen(keywords[i].word) != len ||
		    memcmp(keywords[i].word, t->at, len) != 0)
			continue;
		t->kind = keywords[i].kind;
		t->use = keywords[i].use;
		t->op = keywords[i].op;
		t->number = NAN;
		return;
	}
}

/* A word: a number, a name or a keyword, the longest token winning. */
static bool
lex_word(struct parser *p)
{
	const char *s = p->tok.at, *open = NULL;
	size_t nlen = number_len(s), slen = name_len(s, &open);

	if (open != NULL) {
		fail(p, "'@' at %d without a closing '@'", column(p, open));
		return true;
	}
	if (nlen == 0 && slen == 0)
		return false;
	if (nlen >= slen)
		lex_number(p, nlen);
	else
		lex_name(p, slen);
	return true;
}

/* The next token into p->tok. */
static void
advance(struct parser *p)
{
	struct token *t = &p->tok;
	const char *s;

	while (is_space(*p->at))
		p->at++;
	s = t->at = p->at;
	t->len = 1;
	if (*s == '\0') {
		t->kind = TOK_END;
		t->len = 0;
	} else if (*s == '#') {
		t->kind = TOK_LITERAL;
		if ((t->len = literal_len(s)) == 0)
			unknown_char(p, s);
	} else if (strchr("|^&<>-+*/%(),", *s) != NULL) {
		t->kind = (unsigned char)*s;
	} else if (!lex_word(p)) {
		unknown_char(p, s);
	}
	if (p->bad)
		t->kind = TOK_END;
	p->at = s + t->len;
}

/* The program as it grows. */

/*
 * An array of cap elements with room for element n: itself, or a bigger
 * one (cap updated); NULL when there is no memory, the old one kept.
 */
static void *
grow(struct parser *p, void *array, int *cap, int n, size_t size)
{
	void *bigger;
	int want;

	if (n < *cap)
		return array;
	want = *cap == 0 ? 16 : 2 * *cap;
	if ((bigger = realloc(array, (size_t)want * size)) == NULL) {
		fail(p, "no memory for the formula");
		return NULL;
	}
	*cap = want;
	return bigger;
}

/* How many values a step leaves on the stack, less how many it takes. */
static int
stack_effect(enum op op)
{
	switch (op) {
	case OP_NUMBER:
	case OP_NAME:
	case OP_LITERAL:
		return 1;
	case OP_NEG:
		return 0;
	case OP_SELECT:
		return -2;
	default:
		return -1;
	}
}

static void
emit(struct parser *p, enum op op, int arg)
{
	struct step *steps;

	if (p->bad)
		return;
	steps = grow(p, p->steps, &p->stepcap, p->nsteps, sizeof(*steps));
	if (steps == NULL)
		return;
	p->steps = steps;
	p->steps[p->nsteps].op = op;
	p->steps[p->nsteps++].arg = arg;
	p->sp += stack_effect(op);
	if (p->sp > FORMULA_MAX_DEPTH)
		fail(p, "too deep at %d: more than %d values pending",
		    column(p, p->tok.at), FORMULA_MAX_DEPTH);
	if (p->sp > p->depth)
		p->depth = p->sp;
}

static void
emit_number(struct parser *p, double v)
{
	double *consts;

	if (p->bad)
		return;
	consts = grow(p, p->consts, &p->constcap, p->nconsts, sizeof(*consts));
	if (consts == NULL)
		return;
	p->consts = consts;
	p->consts[p->nconsts] = v;
	emit(p, OP_NUMBER, p->nconsts++);
}

/* The entry of the current token's text: found, or added. */
static int
intern(struct parser *p, struct entry **v, int *n, int *cap)
{
	const struct token *t = &p->tok;
	struct entry *bigger;
	int i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].len == t->len &&
		    memcmp((*v)[i].at, t->at, t->len) == 0)
			return i;
	if ((bigger = grow(p, *v, cap, *n, sizeof(**v))) == NULL)
		return -1;
	*v = bigger;
	(*v)[*n].at = t->at;
	(*v)[*n].len = t->len;
	(*v)[*n].uses = 0;
	return (*n)++;
}

static void
emit_name(struct parser *p, enum formula_use use)
{
	int i = intern(p, &p->names, &p->nnames, &p->namecap);

	if (i < 0)
		return;
	p->names[i].uses |= 1u << use;
	emit(p, OP_NAME, i * FORMULA_NUSES + (int)use);
}

static void
emit_literal(struct parser *p)
{
	int i = intern(p, &p->literals, &p->nliterals, &p->literalcap);

	if (i >= 0)
		emit(p, OP_LITERAL, i);
}

/* The grammar: perf's expr.y, as recursive descent. */

static void
unexpected(struct parser *p, const char *wanted)
{
	char what[QUOTE_MAX + 8];

	quote(&p->tok, what, sizeof(what));
	if (wanted != NULL)
		fail(p, "unexpected %s at %d, expected %s", what,
		    column(p, p->tok.at), wanted);
	else
		fail(p, "unexpected %s at %d", what, column(p, p->tok.at));
}

/*
 * A conditional where perf's grammar has a plain expression (a
 * function's argument, a condition): it must be parenthesised.
 */
static void
misplaced_if(struct parser *p)
{
	fail(p, "unexpected 'if' at %d: a conditional here goes in parentheses",
	    column(p, p->tok.at));
}

/* The token kind, then the next token; or the reason it is not there. */
static bool
expect(struct parser *p, int kind, const char *wanted)
{
	if (p->bad)
		return false;
	if (p->tok.kind != kind)
		unexpected(p, wanted);
	else
		advance(p);
	return !p->bad;
}

/* The same after a function's argument, where a conditional may not be. */
static bool
expect_after_argument(struct parser *p, int kind, const char *wanted)
{
	if (!p->bad && p->tok.kind == TOK_IF)
		misplaced_if(p);
	return expect(p, kind, wanted);
}

/*
 * One level deeper into the parser's recursion, if it may: the top is
 * level 0, each parenthesis, unary minus or else branch one more.
 */
static bool
enter(struct parser *p)
{
	if (p->nest++ <= FORMULA_MAX_DEPTH)
		return true;
	fail(p, "too deep at %d: nested more than %d levels",
	    column(p, p->tok.at), FORMULA_MAX_DEPTH);
	return false;
}

static void conditional(struct parser *p);
static void expression(struct parser *p, int floor);

/* source_count(N), aggr_nr(N), has_event(N), strcmp_cpuid_str(N) */
static void
of_name(struct parser *p)
{
	enum formula_use use = p->tok.use;

	advance(p);
	if (!expect(p, '(', "'('"))
		return;
	if (p->tok.kind != TOK_NAME) {
		unexpected(p, "a name");
		return;
	}
	emit_name(p, use);
	advance(p);
	expect(p, ')', "')'");
}

/* min(A, B), max(A, B), d_ratio(A, B) */
static void
of_two(struct parser *p)
{
	enum op op = p->tok.op;

	advance(p);
	if (!expect(p, '(', "'('"))
		return;
	expression(p, 1);
	if (!expect_after_argument(p, ',', "','"))
		return;
	expression(p, 1);
	if (expect_after_argument(p, ')', "')'"))
		emit(p, op, 0);
}

static void
parenthesised(struct parser *p)
{
	const char *open = p->tok.at;

	advance(p);
	conditional(p);
	if (!p->bad && p->tok.kind == TOK_END)
		fail(p, "'(' at %d without ')'", column(p, open));
	expect(p, ')', "')'");
}

static void
primary(struct parser *p)
{
	switch (p->tok.kind) {
	case TOK_NUMBER:
		emit_number(p, p->tok.number);
		advance(p);
		break;
	case TOK_NAME:
		emit_name(p, FORMULA_VALUE);
		advance(p);
		break;
	case TOK_LITERAL:
		emit_literal(p);
		advance(p);
		break;
	case TOK_OF_NAME:
		of_name(p);
		break;
	case TOK_OF_TWO:
		of_two(p);
		break;
	case '(':
		parenthesised(p);
		break;
	default:
		unexpected(p, "a value");
	}
}

/* Unary minus binds tighter than any operator (perf's NEG). */
static void
unary(struct parser *p)
{
	if (!enter(p))
		return;
	if (p->tok.kind == '-') {
		advance(p);
		unary(p);
		emit(p, OP_NEG, 0);
	} else {
		primary(p);
	}
	p->nest--;
}

/* perf's %left lines, loosest first; 0: not a binary operator. */
static int
precedence(int kind, enum op *op)
{
	static const struct {
		int kind, level;
		enum op op;
	} ops[] = {
		{ '|', 1, OP_OR },
		{ '^', 2, OP_XOR },
		{ '&', 3, OP_AND },
		{ '<', 4, OP_LT },
		{ '>', 4, OP_GT },
		{ '-', 5, OP_SUB },
		{ '+', 5, OP_ADD },
		{ '*', 6, OP_MUL },
		{ '/', 6, OP_DIV },
		{ '%', 6, OP_MOD },
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].kind == kind) {
			*op = ops[i].op;
			return ops[i].level;
		}
	return 0;
}

/*
 * Operators of level floor and tighter, each left-associative: the
 * right operand takes only tighter ones.
 */
static void
expression(struct parser *p, int floor)
{
	enum op op = OP_NUMBER;
	int level;

	unary(p);
	while (!p->bad && (level = precedence(p->tok.kind, &op)) >= floor) {
		advance(p);
		expression(p, level + 1);
		emit(p, op, 0);
	}
}

/* After C of A if C: else, or why not. */
static bool
expect_else(struct parser *p, const char *if_at)
{
	if (p->bad)
		return false;
	if (p->tok.kind == TOK_IF)
		misplaced_if(p);
	else if (p->tok.kind == TOK_END || p->tok.kind == ')')
		fail(p, "'if' without 'else' at %d", column(p, if_at));
	return expect(p, TOK_ELSE, "'else'");
}

/*
 * A if C else B, B perhaps another conditional; or a plain expression.
 * A and C are plain: a conditional inside them needs parentheses.
 */
static void
conditional(struct parser *p)
{
	const char *if_at;

	expression(p, 1);
	if (p->bad || p->tok.kind != TOK_IF)
		return;
	if_at = p->tok.at;
	advance(p);
	expression(p, 1);
	if (!expect_else(p, if_at) || !enter(p))
		return;
	conditional(p);
	p->nest--;
	emit(p, OP_SELECT, 0);
}

/* The block handed out. */

static size_t
align_to(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

struct layout {
	size_t consts, binds, literals, names, steps, uses, text, size;
};

static size_t
text_size(const struct entry *v, int n)
{
	size_t size = 0;
	int i;

	for (i = 0; i < n; i++)
		size += v[i].len + 1;
	return size;
}

static void
lay_out(const struct parser *p, struct layout *l)
{
	size_t nbinds = (size_t)p->nnames * FORMULA_NUSES;
	size_t nstrings = (size_t)p->nnames + (size_t)p->nliterals;

	l->consts = align_to(sizeof(struct formula), _Alignof(double));
	l->binds = align_to(l->consts + (size_t)p->nconsts * sizeof(double),
	    _Alignof(struct binding));
	l->literals = align_to(
	    l->binds + nbinds * sizeof(struct binding), _Alignof(double));
	l->names = align_to(l->literals + (size_t)p->nliterals * sizeof(double),
	    _Alignof(const char *));
	l->steps = align_to(
	    l->names + nstrings * sizeof(const char *), _Alignof(struct step));
	l->uses = align_to(l->steps + (size_t)p->nsteps * sizeof(struct step),
	    _Alignof(unsigned));
	l->text = l->uses + (size_t)p->nnames * sizeof(unsigned);
	l->size = l->text + text_size(p->names, p->nnames) +
	    text_size(p->literals, p->nliterals);
}

/* The entries' text, copied to at; each pointer into ptrs. */
static char *
copy_text(const struct entry *v, int n, const char **ptrs, char *at)
{
	int i;

	for (i = 0; i < n; i++) {
		memcpy(at, v[i].at, v[i].len);
		at[v[i].len] = '\0';
		ptrs[i] = at;
		at += v[i].len + 1;
	}
	return at;
}

static void
fill_bindings(struct formula *f, const struct parser *p, unsigned *uses)
{
	int i;

	for (i = 0; i < f->nnames * FORMULA_NUSES; i++) {
		f->binds[i].kind = FORMULA_UNBOUND;
		f->binds[i].index = -1;
		f->binds[i].value = NAN;
	}
	for (i = 0; i < f->nnames; i++)
		uses[i] = p->names[i].uses;
	for (i = 0; i < f->nliterals; i++)
		f->literals[i] = NAN;
	f->nan_literals = f->nliterals;
}

/* memcpy, where src may be NULL when there is nothing to copy. */
static void *
copy(void *dst, const void *src, size_t n)
{
	return n == 0 ? dst : memcpy(dst, src, n);
}

static struct formula *
pack(struct parser *p)
{
	struct formula *f;
	struct layout l;
	char *base, *text;

	lay_out(p, &l);
	if ((base = calloc(1, l.size)) == NULL) {
		fail(p, "no memory for the formula");
		return NULL;
	}
	f = (struct formula *)(void *)base;
	f->nsteps = p->nsteps;
	f->nconsts = p->nconsts;
	f->nnames = p->nnames;
	f->nliterals = p->nliterals;
	f->depth = p->depth;
	f->consts = copy(
	    base + l.consts, p->consts, (size_t)p->nconsts * sizeof(double));
	f->steps = copy(
	    base + l.steps, p->steps, (size_t)p->nsteps * sizeof(struct step));
	f->binds = (struct binding *)(void *)(base + l.binds);
	f->literals = (double *)(void *)(base + l.literals);
	f->names = (const char **)(void *)(base + l.names);
	f->literal_names = f->names + p->nnames;
	f->uses = (const unsigned *)(void *)(base + l.uses);
	fill_bindings(f, p, (unsigned *)(void *)(base + l.uses));
	text = copy_text(p->names, p->nnames, f->names, base + l.text);
	copy_text(p->literals, p->nliterals, f->literal_names, text);
	return f;
}

static void
parser_free(struct parser *p)
{
	free(p->steps);
	free(p->consts);
	free(p->names);
	free(p->literals);
}

struct formula *
formula_parse(const char *text, char *err, size_t len)
{
	struct parser p = {
		.text = text, .at = text, .err = err, .errlen = len
	};
	struct formula *f = NULL;

	if (err != NULL && len > 0)
		err[0] = '\0';
	if (text == NULL) {
		fail(&p, "no formula");
		return NULL;
	}
	if (strnlen(text, FORMULA_MAX_TEXT) == FORMULA_MAX_TEXT) {
		fail(&p, "formula too long: %d characters at most",
		    FORMULA_MAX_TEXT - 1);
		return NULL;
	}
	advance(&p);
	conditional(&p);
	if (!p.bad && p.tok.kind != TOK_END)
		unexpected(&p, NULL);
	if (!p.bad)
		f = pack(&p);
	parser_free(&p);
	return f;
}

void
formula_free(struct formula *f)
{
	free(f);
}

int
formula_nnames(const struct formula *f)
{
	return f->nnames;
}

const char *
formula_name(const struct formula *f, int i)
{
	return i >= 0 && i < f->nnames ? f->names[i] : NULL;
}

unsigned
formula_name_uses(const struct formula *f, int i)
{
	return i >= 0 && i < f->nnames ? f->uses[i] : 0;
}

int
formula_nliterals(const struct formula *f)
{
	return f->nliterals;
}

const char *
formula_literal(const struct formula *f, int i)
{
	return i >= 0 && i < f->nliterals ? f->literal_names[i] : NULL;
}

int
formula_depth(const struct formula *f)
{
	return f->depth;
}

/* A slot or a metric's index: a whole number an int holds; else -1. */
static int
index_of(double value)
{
	if (!(value >= 0 && value <= INT_MAX) || value != trunc(value))
		return -1;
	return (int)value;
}

void
formula_bind(struct formula *f, int i, enum formula_use use,
    enum formula_bind kind, double value)
{
	struct binding *b;

	if (i < 0 || i >= f->nnames || (unsigned)use >= FORMULA_NUSES)
		return;
	b = &f->binds[i * FORMULA_NUSES + (int)use];
	b->kind = kind;
	b->value = value;
	b->index = index_of(value);
}

void
formula_bind_literal(struct formula *f, int i, double value)
{
	if (i < 0 || i >= f->nliterals)
		return;
	if (isnan(f->literals[i]))
		f->nan_literals--;
	if (isnan(value))
		f->nan_literals++;
	f->literals[i] = value;
}

/* The machine. */

static double
bound_value(const struct binding *b, const struct formula_frame *fr)
{
	switch (b->kind) {
	case FORMULA_SLOT:
		return b->index >= 0 && b->index < fr->nslots ?
		    fr->slots[b->index] :
		    NAN;
	case FORMULA_METRIC:
		return b->index >= 0 && fr->metric != NULL ?
		    fr->metric(fr->ctx, b->index) :
		    NAN;
	case FORMULA_CONST:
		return b->value;
	default:
		return NAN;
	}
}

/*
 * perf's |: with both sides finite, whether either is true; with one
 * finite, the other where the finite one is 0, else 1.
 */
static double
logical_or(double a, double b)
{
	if (isfinite(a) && isfinite(b))
		return a != 0 || b != 0;
	if (isfinite(a))
		return a == 0 ? b : 1;
	if (isfinite(b))
		return b == 0 ? a : 1;
	return NAN;
}

/* perf's &, likewise: the other side where the finite one is true. */
static double
logical_and(double a, double b)
{
	if (isfinite(a) && isfinite(b))
		return a != 0 && b != 0;
	if (isfinite(a))
		return a != 0 ? b : 0;
	if (isfinite(b))
		return b != 0 ? a : 0;
	return NAN;
}

static double
logical_xor(double a, double b)
{
	if (isfinite(a) && isfinite(b))
		return (a == 0) != (b == 0);
	return NAN;
}

/*
 * perf's (long)a % (long)b: the remainder of the integer parts, which
 * fmod gives exactly, without long's overflow. A b that is 0 (or, in
 * long, becomes 0) leaves the whole formula without a value: perf
 * abandons the evaluation there.
 */
static double
remainder_of(double a, double b, bool *abandon)
{
	if (trunc(b) == 0) {
		*abandon = true;
		return NAN;
	}
	if (!isfinite(a) || !isfinite(b))
		return NAN;
	return fmod(trunc(a), trunc(b)) + 0.0;
}

static double
compare(double a, double b, bool less)
{
	if (isnan(a) || isnan(b))
		return NAN;
	return less ? a < b : a > b;
}

static double
binary(enum op op, double a, double b, bool *abandon)
{
	switch (op) {
	case OP_OR:
		return logical_or(a, b);
	case OP_XOR:
		return logical_xor(a, b);
	case OP_AND:
		return logical_and(a, b);
	case OP_LT:
		return compare(a, b, true);
	case OP_GT:
		return compare(a, b, false);
	case OP_ADD:
		return a + b;
	case OP_SUB:
		return a - b;
	case OP_MUL:
		return a * b;
	case OP_DIV:
		return b == 0 ? NAN : a / b;
	case OP_MOD:
		return remainder_of(a, b, abandon);
	case OP_MIN:
		return a < b ? a : b;
	case OP_MAX:
		return a > b ? a : b;
	case OP_D_RATIO:
		return b == 0 ? 0 : a / b;
	default:
		return NAN;
	}
}

double
formula_eval(const struct formula *f, const struct formula_frame *fr)
{
	double stack[FORMULA_MAX_DEPTH];
	const struct step *s, *end = f->steps + f->nsteps;
	bool abandon = false;
	int sp = 0;

	if (f->nan_literals > 0)
		return NAN;
	for (s = f->steps; s < end; s++) {
		switch (s->op) {
		case OP_NUMBER:
			stack[sp++] = f->consts[s->arg];
			break;
		case OP_NAME:
			stack[sp++] = bound_value(&f->binds[s->arg], fr);
			break;
		case OP_LITERAL:
			stack[sp++] = f->literals[s->arg];
			break;
		case OP_NEG:
			stack[sp - 1] = -stack[sp - 1];
			break;
		case OP_SELECT:
			sp -= 2;
			if (stack[sp] == 0)
				stack[sp - 1] = stack[sp + 1];
			break;
		default:
			sp--;
			stack[sp - 1] =
			    binary(s->op, stack[sp - 1], stack[sp], &abandon);
		}
	}
	return abandon || sp != 1 ? NAN : stack[0];
}

int
formula_walk(const char *text, void *arg,
    void (*fn)(void *arg, const char *name, enum formula_use use), char *err,
    size_t len)
{
	struct formula *f;
	int i, use;

	if ((f = formula_parse(text, err, len)) == NULL)
		return -1;
	for (i = 0; i < f->nnames; i++)
		for (use = 0; use < FORMULA_NUSES; use++)
			if (f->uses[i] & (1u << use))
				fn(arg, f->names[i], (enum formula_use)use);
	formula_free(f);
	return 0;
}

/*
 * formula_needed: the steps run on what is known before a row, perf's
 * "compute ids" pass. Each value on the stack is a constant, or the set
 * of names it may read (a bit each); constants decide branches.
 */
struct known {
	bool constant;
	double value;
	uint64_t *names; /* nwords words */
};

struct needs {
	struct known *stack;
	int nwords;
};

static void
set_none(const struct needs *n, struct known *k)
{
	memset(k->names, 0, (size_t)n->nwords * sizeof(uint64_t));
}

static void
set_constant(const struct needs *n, struct known *k, double v)
{
	set_none(n, k);
	k->constant = isfinite(v);
	k->value = v;
}

/* a reads a's names and b's; its value any. */
static void
join(const struct needs *n, struct known *a, const struct known *b)
{
	int w;

	for (w = 0; w < n->nwords; w++)
		a->names[w] |= b->names[w];
	a->constant = false;
	a->value = NAN;
}

/* a becomes b (its value and names). */
static void
take(const struct needs *n, struct known *a, const struct known *b)
{
	a->constant = b->constant;
	a->value = b->value;
	memcpy(a->names, b->names, (size_t)n->nwords * sizeof(uint64_t));
}

static void
name_step(
    const struct formula *f, const struct needs *n, struct known *k, int bind)
{
	const struct binding *b = &f->binds[bind];
	int name = bind / FORMULA_NUSES;

	if (b->kind == FORMULA_CONST) {
		set_constant(n, k, b->value);
		return;
	}
	set_none(n, k);
	k->constant = false;
	k->value = NAN;
	k->names[name / 64] |= (uint64_t)1 << (name % 64);
}

/* | and &: a constant side that decides drops the other. */
static void
logical_step(
    const struct needs *n, struct known *a, const struct known *b, bool or)
{
	const struct known *c = a->constant ? a : b, *other = c == a ? b : a;

	if (a->constant && b->constant) {
		set_constant(n, a,
		    or ? logical_or(a->value, b->value) : logical_and(a->value, b->value));
	} else if (!a->constant && !b->constant) {
		join(n, a, b);
	} else if ((c->value == 0) == or) {
		take(n, a, other); /* 0 | x, 1 & x: x */
	} else {
		set_constant(n, a, or ? 1 : 0);
	}
}

/* A binary step: perf's constant cases, else both sides' names. */
static void
binary_step(
    const struct needs *n, enum op op, struct known *a, const struct known *b)
{
	bool abandon = false;

	if (op == OP_OR || op == OP_AND) {
		logical_step(n, a, b, op == OP_OR);
		return;
	}
	if ((op == OP_DIV || op == OP_D_RATIO) && b->constant &&
	    b->value == 0) {
		set_constant(n, a, op == OP_DIV ? NAN : 0);
		a->constant = op == OP_D_RATIO;
		return;
	}
	if (a->constant && b->constant && op != OP_MIN && op != OP_MAX) {
		set_constant(n, a, binary(op, a->value, b->value, &abandon));
		return;
	}
	join(n, a, b);
}

/* A if C else B, on the stack as A C B. */
static void
select_step(const struct needs *n, struct known *a, const struct known *c,
    const struct known *b)
{
	if (c->constant && c->value == 0)
		take(n, a, b);
	else if (c->constant)
		; /* A */
	else if (a->constant && b->constant && a->value == b->value)
		set_constant(n, a, a->value);
	else {
		join(n, a, c);
		join(n, a, b);
	}
}

static void
run_known(const struct formula *f, struct needs *n)
{
	const struct step *s;
	struct known *st = n->stack;
	int sp = 0;

	for (s = f->steps; s < f->steps + f->nsteps; s++) {
		switch (s->op) {
		case OP_NUMBER:
			set_constant(n, &st[sp++], f->consts[s->arg]);
			break;
		case OP_NAME:
			name_step(f, n, &st[sp++], s->arg);
			break;
		case OP_LITERAL:
			set_constant(n, &st[sp++], f->literals[s->arg]);
			break;
		case OP_NEG:
			st[sp - 1].value = -st[sp - 1].value;
			break;
		case OP_SELECT:
			sp -= 2;
			select_step(n, &st[sp - 1], &st[sp], &st[sp + 1]);
			break;
		default:
			sp--;
			binary_step(n, s->op, &st[sp - 1], &st[sp]);
		}
	}
}

void
formula_needed(const struct formula *f, bool *needed)
{
	struct needs n = { NULL, (f->nnames + 63) / 64 + 1 };
	uint64_t *bits;
	int i, depth = f->depth > 0 ? f->depth : 1;

	for (i = 0; i < f->nnames; i++)
		needed[i] = true; /* where memory runs out: everything */
	n.stack = calloc((size_t)depth, sizeof(*n.stack));
	bits = calloc((size_t)depth * (size_t)n.nwords, sizeof(uint64_t));
	if (n.stack != NULL && bits != NULL) {
		for (i = 0; i < depth; i++)
			n.stack[i].names = bits + (size_t)i * (size_t)n.nwords;
		run_known(f, &n);
		for (i = 0; i < f->nnames && f->nsteps > 0; i++)
			needed[i] = (n.stack[0].names[i / 64] >> (i % 64)) & 1;
	}
	free(bits);
	free(n.stack);
}
