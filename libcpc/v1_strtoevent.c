/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The obsolete CPCv1 event syntax: cpc_strtoevent, cpc_eventtostr,
 * cpc_walk_names, on the table of codes (v1_codes.c). The grammar and the
 * messages are those of the Solaris P6 parser (reference 3.9); the events
 * are this kernel's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_impl.h"

#define PES_DEFAULT (CPC_PES_USR | CPC_PES_EDGE)

static const char usage[] =
    "pic0=<event0>,pic1=<event1>[,sys[0|1]][,nouser[0|1]][,noedge[0|1]]"
    "[,pc[0|1]][,int[0|1]][,inv[0|1]][,umask[0|1]=<mask>]"
    "[,cmask[0|1]=<mask>]";

const char *
cpc_getusage(int cpuver)
{
	return cpuver == CPC_LINUX_PERF ? usage : NULL;
}

void
cpc_walk_names(int cpuver, int regno, void *arg,
    void (*action)(void *arg, int regno, const char *name, uint8_t bits))
{
	cpc_t *cpc;
	int i, n;

	if (cpuver != CPC_LINUX_PERF || regno < 0 || regno > 1 ||
	    (cpc = cpclib_v1_handle()) == NULL)
		return;
	/* Codes are never taken back: those counted now stay named. */
	n = cpclib_v1_ncodes(cpc);
	for (i = 0; i < n; i++)
		action(
		    arg, regno, cpclib_v1_name(cpc, (unsigned)i), (uint8_t)i);
}

/* A flag token: its name, and the control-word bit it sets or clears. */
struct flag_token {
	const char *name;
	uint32_t bit;
	bool sets; /* the token sets the bit (else clears it) */
};

static const struct flag_token flag_tokens[] = {
	{ "nouser", CPC_PES_USR, false },
	{ "sys", CPC_PES_OS, true },
	{ "noedge", CPC_PES_EDGE, false },
	{ "int", CPC_PES_INT, true },
	{ "inv", CPC_PES_INV, true },
	{ "pc", CPC_PES_PC, true },
};

struct parse {
	cpc_t *cpc;
	cpc_event_t *ev;
	int errors;
	bool have_pic[2];
	char seen[32][16]; /* tokens met, for "repeated" */
	int nseen;
};

static void parse_error(struct parse *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
parse_error(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cpclib_v1_verror("strtoevent", fmt, ap);
	va_end(ap);
	ps->errors++;
}

static bool
repeated(struct parse *ps, const char *tok)
{
	int i;

	for (i = 0; i < ps->nseen; i++)
		if (strcmp(ps->seen[i], tok) == 0)
			return true;
	if (ps->nseen < 32)
		strlcpy(ps->seen[ps->nseen++], tok, sizeof(ps->seen[0]));
	return false;
}

/* "" for both counters, "0" or "1" for one: which ones it names. */
static int
counters_of(const char *suffix, bool *which)
{
	if (suffix[0] == '\0') {
		which[0] = which[1] = true;
		return 0;
	}
	if ((suffix[0] == '0' || suffix[0] == '1') && suffix[1] == '\0') {
		which[0] = suffix[0] == '0';
		which[1] = suffix[0] == '1';
		return 0;
	}
	return -1;
}

static void
set_event(struct parse *ps, int pic, const char *value)
{
	char *end;
	long code;
	int c;

	errno = 0;
	code = strtol(value, &end, 0);
	if (*value != '\0' && *end == '\0' && errno == 0) {
		c = code >= 0 && code <= CPC_PES_EVENT_MASK &&
			cpclib_v1_name(ps->cpc, (unsigned)code) != NULL ?
		    (int)code :
		    -1;
	} else {
		c = cpclib_v1_code(ps->cpc, value);
	}
	if (c < 0) {
		parse_error(ps, "PerfCtr%d cannot measure '%s' on this cpu\n",
		    pic, value);
		return;
	}
	ps->ev->ce_pes[pic] =
	    (ps->ev->ce_pes[pic] & ~CPC_PES_EVENT_MASK) | (uint32_t)c;
	ps->have_pic[pic] = true;
}

/* umask0=, umask1=, cmask0=, cmask1=: 0..255. */
static void
set_mask(struct parse *ps, const char *tok, int pic, unsigned shift,
    const char *value)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 0);
	if (*value == '\0' || *end != '\0' || errno != 0 || v < 0 || v > 255) {
		parse_error(ps, "bad '%s' value\n", tok);
		return;
	}
	ps->ev->ce_pes[pic] =
	    (ps->ev->ce_pes[pic] & ~(0xffu << shift)) | ((uint32_t)v << shift);
}

static bool
flag_token(struct parse *ps, const char *tok, const char *value)
{
	const struct flag_token *f;
	bool which[2];
	size_t i, len;
	int pic;

	for (i = 0; i < sizeof(flag_tokens) / sizeof(flag_tokens[0]); i++) {
		f = &flag_tokens[i];
		len = strlen(f->name);
		if (strncmp(tok, f->name, len) != 0 ||
		    counters_of(tok + len, which) != 0)
			continue;
		if (value != NULL) {
			parse_error(ps, "bad arg to '%s'\n", tok);
			return true;
		}
		for (pic = 0; pic < 2; pic++) {
			if (!which[pic])
				continue;
			if (f->sets)
				ps->ev->ce_pes[pic] |= f->bit;
			else
				ps->ev->ce_pes[pic] &= ~f->bit;
		}
		return true;
	}
	return false;
}

static bool
mask_token(struct parse *ps, const char *tok, const char *value)
{
	unsigned shift;

	if (strcmp(tok, "umask0") == 0 || strcmp(tok, "umask1") == 0)
		shift = CPC_PES_UMASK_SHIFT;
	else if (strcmp(tok, "cmask0") == 0 || strcmp(tok, "cmask1") == 0)
		shift = CPC_PES_CMASK_SHIFT;
	else
		return false;
	if (value == NULL)
		parse_error(ps, "missing '%s' value\n", tok);
	else
		set_mask(ps, tok, tok[5] - '0', shift, value);
	return true;
}

static void
one_token(struct parse *ps, char *tok)
{
	char *value = strchr(tok, '=');

	if (value != NULL)
		*value++ = '\0';
	if (repeated(ps, tok)) {
		parse_error(ps, "repeated '%s' token\n", tok);
		return;
	}
	if (strcmp(tok, "pic0") == 0 || strcmp(tok, "pic1") == 0) {
		if (value == NULL)
			parse_error(ps, "missing '%s' value\n", tok);
		else
			set_event(ps, tok[3] - '0', value);
		return;
	}
	if (flag_token(ps, tok, value) || mask_token(ps, tok, value))
		return;
	/* A bare event name fills pic0, then pic1. */
	if (value == NULL && (!ps->have_pic[0] || !ps->have_pic[1]) &&
	    cpclib_v1_code(ps->cpc, tok) >= 0) {
		set_event(ps, ps->have_pic[0] ? 1 : 0, tok);
		return;
	}
	parse_error(ps, "bad token '%s'\n", tok);
}

int
cpc_strtoevent(int cpuver, const char *spec, cpc_event_t *event)
{
	struct parse ps;
	char *copy, *rest, *tok;

	if (spec == NULL || event == NULL)
		return 1;
	memset(&ps, 0, sizeof(ps));
	if (cpuver != CPC_LINUX_PERF || (ps.cpc = cpclib_v1_handle()) == NULL)
		return 1;
	ps.ev = event;
	memset(event, 0, sizeof(*event));
	event->ce_cpuver = cpuver;
	event->ce_pes[0] = event->ce_pes[1] = PES_DEFAULT;
	if ((copy = strdup(spec)) == NULL)
		return 1;
	for (rest = copy; (tok = strsep(&rest, ", \t")) != NULL;)
		if (*tok != '\0')
			one_token(&ps, tok);
	free(copy);
	if (ps.errors == 0 && (!ps.have_pic[0] || !ps.have_pic[1]))
		parse_error(&ps, "two events must be specified\n");
	return ps.errors;
}

static void append(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static void
append_event(cpc_t *cpc, char *buf, size_t len, int pic, uint32_t pes)
{
	const char *name = cpclib_v1_name(cpc, pes & CPC_PES_EVENT_MASK);

	if (name != NULL)
		append(buf, len, "%spic%d=%s", pic ? "," : "", pic, name);
	else
		append(buf, len, "%spic%d=0x%x", pic ? "," : "", pic,
		    pes & CPC_PES_EVENT_MASK);
}

static void
append_masks(char *buf, size_t len, const uint32_t *pes)
{
	static const struct {
		const char *name;
		unsigned shift;
	} m[] = {
		{ "cmask", CPC_PES_CMASK_SHIFT },
		{ "umask", CPC_PES_UMASK_SHIFT },
	};
	uint32_t v;
	size_t i;
	int pic;

	for (i = 0; i < 2; i++)
		for (pic = 0; pic < 2; pic++)
			if ((v = (pes[pic] >> m[i].shift) & 0xff) != 0)
				append(
				    buf, len, ",%s%d=0x%x", m[i].name, pic, v);
}

/* Flags that differ from the defaults, unsuffixed when on both. */
static void
append_flags(char *buf, size_t len, const uint32_t *pes)
{
	const struct flag_token *f;
	bool differs[2];
	size_t i;
	int pic;

	for (i = 0; i < sizeof(flag_tokens) / sizeof(flag_tokens[0]); i++) {
		f = &flag_tokens[i];
		for (pic = 0; pic < 2; pic++)
			differs[pic] = ((pes[pic] & f->bit) != 0) !=
			    ((PES_DEFAULT & f->bit) != 0);
		if (differs[0] && differs[1])
			append(buf, len, ",%s", f->name);
		else if (differs[0] || differs[1])
			append(buf, len, ",%s%d", f->name, differs[0] ? 0 : 1);
	}
}

char *
cpc_eventtostr(cpc_event_t *event)
{
	char buf[2 * CPC_MAX_EVENT_LEN + 256] = "";
	cpc_t *cpc;

	if (event == NULL || event->ce_cpuver != CPC_LINUX_PERF ||
	    (cpc = cpclib_v1_handle()) == NULL)
		return NULL;
	append_event(cpc, buf, sizeof(buf), 0, event->ce_pes[0]);
	append_event(cpc, buf, sizeof(buf), 1, event->ce_pes[1]);
	append_masks(buf, sizeof(buf), event->ce_pes);
	append_flags(buf, sizeof(buf), event->ce_pes);
	return strdup(buf);
}
