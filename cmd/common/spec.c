/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The event specification grammar of -c, as the Solaris tools parse it:
 *
 *	[picN=]event[,attr[N][=value]][,nouser[N]][,sys[N]],...
 *
 * Items are comma separated. Bare event names fill counters left to
 * right, each above the highest counter assigned so far. Unsuffixed
 * attributes and flags apply to every counter.
 *
 * Events are any name libcpc accepts, perf's included, and perf's set
 * syntax is read too: commas inside pmu/term=v,.../ do not separate
 * items; {a,b}:mods is a perf group of its own, its modifiers given to
 * each member without its own; a tracepoint glob
 * (syscalls:sys_enter_w*) stands for every tracepoint it matches, as
 * many as the set has counters left.
 *
 * A set is one group of at most cpc_npic events. A spec with braces is a
 * set of several groups (cpc_set_group): the events outside braces are
 * group 0, each {...} the next group; each group holds at most cpc_npic
 * events, the set CPC_SET_MAX_REQS, and its counts are scaled as perf
 * stat scales them (cpc_set_scale). Its counters are numbered across the
 * set, group after group as they come.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "diag.h"
#include "nearest.h"
#include "spec.h"

#define MAX_ATTRS      50
#define MODE_MODIFIERS "ukhHGp"

struct counter {
	char *event;
	int group; /* 0: outside braces; n: the nth {...} */
	uint_t flags;
	cpc_attr_t attrs[MAX_ATTRS];
	uint_t nattrs;
	bool nouser, sys;
};

struct parse {
	cpc_t *cpc;
	uint_t npic;
	int nctr;	     /* counters a set has: npic, or with braces more */
	struct counter *ctr; /* nctr of them */
	struct counter all;  /* unsuffixed attributes and flags */
	int highest;	     /* highest counter assigned so far */
	int group;	     /* the group items go to now */
	int ngroups;	     /* the braces seen */
	int *group_size;     /* nctr of them: events per group */
	char **attr_names;
	int nattr_names;
	bool syntax_error;
	bool uncountable;
	bool nomem;
};

static void
collect_attr(void *arg, const char *attr)
{
	struct parse *p = arg;
	char **grown;

	if (strcmp(attr, "picnum") == 0 || p->nomem)
		return;
	grown = reallocarray(
	    p->attr_names, (size_t)p->nattr_names + 1, sizeof(char *));
	if (grown == NULL || (grown[p->nattr_names] = strdup(attr)) == NULL) {
		p->attr_names = grown != NULL ? grown : p->attr_names;
		p->nomem = true;
		return;
	}
	p->attr_names = grown;
	p->nattr_names++;
}

static void syntax(struct parse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
syntax(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_errhndlr("cpc_strtoset", -1, fmt, ap);
	va_end(ap);
	p->syntax_error = true;
}

/* "pic12" -> 12 when name is prefix followed by a counter number. */
static int
counter_suffix(const char *name, const char *prefix, uint_t npic)
{
	size_t len = strlen(prefix);
	const char *errstr;
	long long n;

	if (strncmp(name, prefix, len) != 0 || name[len] == '\0' ||
	    name[len] == '+' || name[len] == '-' ||
	    (name[len] == '0' && name[len + 1] != '\0'))
		return -1;
	n = strtonum(name + len, 0, (long long)npic - 1, &errstr);
	return errstr == NULL ? (int)n : -1;
}

/* Names that parse completely as a zero raw code are not events here. */
static bool
is_zero_code(const char *name)
{
	char *end;

	errno = 0;
	return name[0] != '\0' && strtoull(name, &end, 0) == 0 &&
	    *end == '\0' && errno == 0;
}

/*
 * The counting modifiers ending a name, after its last ':' (perf's
 * grammar, as libcpc reads it), or NULL.
 */
static const char *
mode_modifiers(const char *event)
{
	const char *colon = strrchr(event, ':');

	if (colon == NULL || colon == event || colon[-1] == ':' ||
	    colon[1] == '\0' ||
	    strspn(colon + 1, MODE_MODIFIERS) != strlen(colon + 1))
		return NULL;
	return colon + 1;
}

/* The modes a name's modifiers ask for; 0 when it names none. */
static uint_t
modifier_modes(const char *event)
{
	const char *m = mode_modifiers(event);
	uint_t modes = 0;

	for (; m != NULL && *m != '\0'; m++)
		modes |= *m == 'u' ? CPC_COUNT_USER :
		    *m == 'k'	   ? CPC_COUNT_SYSTEM :
		    *m == 'h'	   ? CPC_COUNT_HV :
				     0;
	return modes;
}

struct hint {
	char buf[256];
	int n;
	bool tracepoints; /* listed: this user may count them */
};

static void
hint_add(void *arg, const char *event)
{
	struct hint *h = arg;
	const char *colon = strchr(event, ':');

	/* subsystem:event; libpfm4's are pmu::event. */
	if (colon != NULL && colon[1] != ':')
		h->tracepoints = true;
	else if (h->n++ < 6) {
		strlcat(h->buf, event, sizeof(h->buf));
		strlcat(h->buf, ", ", sizeof(h->buf));
	}
}

/* A short list of what can be counted, for "cannot count" messages. */
static const char *
countable_hint(cpc_t *cpc)
{
	static struct hint h;

	if (h.buf[0] != '\0')
		return h.buf;
	strlcpy(h.buf, "countable here: ", sizeof(h.buf));
	cpc_walk_events_all(cpc, &h, hint_add);
	strlcat(h.buf,
	    h.tracepoints ? "... and tracepoints (-h lists them)" :
			    "... (-h lists them)",
	    sizeof(h.buf));
	return h.buf;
}

/*
 * What is wrong with a name, then the names nearest it, on one line; or,
 * with none near, where to find the names (when what does not say).
 */
static void
said_with_nearest(
    struct parse *p, const char *what, const char *event, bool say_list)
{
	char near[NEAREST_MAX * (CPC_MAX_EVENT_LEN + 2)];

	nearest_events(p->cpc, event, near, sizeof(near));
	if (near[0] != '\0')
		diag("cpc_strtoset", "%s; did you mean %s?\n", what, near);
	else if (say_list)
		diag("cpc_strtoset",
		    "%s: no event has that name (--list "
		    "lists them)\n",
		    what);
	else
		diag("cpc_strtoset", "%s\n", what);
}

/*
 * perf list's name for a statically defined probe (SDT) that several
 * cached binaries have: sdt_PROVIDER:NAME@PATH(BUILD-ID).
 */
static bool
is_sdt_listing(const char *event)
{
	const char *colon = strchr(event, ':');

	return strncmp(event, "sdt_", 4) == 0 && colon != NULL &&
	    strchr(colon, '@') != NULL;
}

/*
 * A name of no event: Solaris's words, then the names nearest it. Not a
 * usage error: the line says all there is to say.
 */
static void
unknown_event(struct parse *p, int pic, const char *event)
{
	char what[CPC_MAX_EVENT_LEN + 64];

	if (is_sdt_listing(event)) {
		diag("cpc_strtoset",
		    "%.*s: a statically defined probe (SDT) of %s, which "
		    "counts once `perf probe` has made it a tracepoint: then "
		    "name that tracepoint\n",
		    (int)strcspn(event, "@"), event,
		    event + strcspn(event, "@") + 1);
		p->uncountable = true;
		return;
	}
	if (pic >= 0)
		snprintf(what, sizeof(what),
		    "pic%d cannot measure event '%s' "
		    "on this cpu",
		    pic, event);
	else
		snprintf(what, sizeof(what), "bad token '%s'", event);
	said_with_nearest(p, what, event, true);
	p->uncountable = true;
}

/*
 * Check that an event can go on a counter. Names of no form, and names
 * of a known form this machine cannot count, are reported, each on its
 * own line with the reason (or the names nearest it), and parsing goes
 * on so that all of them are named. Names counted by their nearest
 * equivalent get a note saying what is counted.
 */
static bool
event_ok(struct parse *p, const char *event, int pic)
{
	char why[600];
	cpc_event_status_t st;

	if (strlen(event) >= CPC_MAX_EVENT_LEN || is_zero_code(event))
		goto unknown;
	switch ((st = cpc_event_status(p->cpc, event, why, sizeof(why)))) {
	case CPC_EVENT_COUNTABLE:
		if (cpc_event_note(p->cpc, event, why, sizeof(why)))
			diag("cpc_strtoset", "note: %s\n", why);
		return true;
	case CPC_EVENT_NO_PERMISSION:
		return true;
	case CPC_EVENT_UNKNOWN:
		if (cpc_event_kind(p->cpc, event) == NULL)
			goto unknown;
		/* FALLTHROUGH */
	default:
		/* What this machine lacks: say what it can count. */
		if (st == CPC_EVENT_NO_PMU || st == CPC_EVENT_NO_EQUIVALENT ||
		    st == CPC_EVENT_NO_TRACEFS)
			diag("cpc_strtoset", "%s; %s\n", why,
			    countable_hint(p->cpc));
		else if (st == CPC_EVENT_UNKNOWN)
			said_with_nearest(p, why, event, false);
		else
			diag("cpc_strtoset", "%s\n", why);
		p->uncountable = true;
		return true;
	}
unknown:
	unknown_event(p, pic, event);
	return false;
}

static void
assign(struct parse *p, int pic, const char *event)
{
	if ((p->ctr[pic].event = strdup(event)) == NULL)
		p->nomem = true;
	p->ctr[pic].group = p->group;
	p->group_size[p->group]++;
	if (pic > p->highest)
		p->highest = pic;
}

/* Whether the group items go to now is full, said if so. */
static bool
group_full(struct parse *p, const char *event)
{
	if (p->group_size[p->group] < (int)p->npic)
		return false;
	if (p->group > 0)
		syntax(p,
		    "'%s': group %d ({...}) holds at most %u events; split "
		    "it into more groups\n",
		    event, p->group, p->npic);
	else
		syntax(p,
		    "'%s': the events outside braces are one group, of at "
		    "most %u events; put some in a {...} group\n",
		    event, p->npic);
	return true;
}

static void
explicit_event(struct parse *p, int pic, const char *value)
{
	if (value == NULL || value[0] == '\0') {
		syntax(p, "missing 'pic%d' value\n", pic);
		return;
	}
	if (p->ctr[pic].event != NULL) {
		syntax(p, "repeated 'pic%d' token\n", pic);
		return;
	}
	if (group_full(p, value))
		return;
	if (event_ok(p, value, pic))
		assign(p, pic, value);
}

static void
bare_event(struct parse *p, const char *event)
{
	int pic = p->highest + 1;

	if (pic >= p->nctr && p->nctr > (int)p->npic) {
		syntax(p,
		    "'%s': a set of groups counts at most %d events; "
		    "spread them over more -c sets\n",
		    event, p->nctr);
		return;
	}
	if (pic >= p->nctr) {
		syntax(p, "bad token '%s'\n", event);
		return;
	}
	if (group_full(p, event))
		return;
	if (event_ok(p, event, -1))
		assign(p, pic, event);
}

struct glob {
	const char *pattern;
	char **match;
	int n;
	bool nomem;
};

static void
glob_match(void *arg, const char *event, const char *kind, const char *desc)
{
	struct glob *g = arg;
	char **grown;

	(void)desc;
	if (g->nomem || strcmp(kind, "tracepoint") != 0 ||
	    fnmatch(g->pattern, event, 0) != 0)
		return;
	if ((grown = reallocarray(
		 g->match, (size_t)g->n + 1, sizeof(char *))) == NULL ||
	    (grown[g->n] = strdup(event)) == NULL) {
		g->match = grown != NULL ? grown : g->match;
		g->nomem = true;
		return;
	}
	g->match = grown;
	g->n++;
}

static bool
is_glob(const char *item)
{
	return strpbrk(item, "*?[") != NULL && strchr(item, ':') != NULL &&
	    strchr(item, '/') == NULL;
}

/*
 * A tracepoint glob, "subsystem:pat*[:mods]": each tracepoint it matches
 * fills a counter, in tracefs's order. More matches than counters left
 * in the set is an error: one set counts at most npic events.
 */
static void
glob_events(struct parse *p, char *item)
{
	char pattern[CPC_MAX_EVENT_LEN], event[CPC_MAX_EVENT_LEN];
	const char *mods = mode_modifiers(item);
	struct glob g = { .pattern = pattern };
	int left = p->nctr - (p->highest + 1), i;

	/* In a set of groups, what its group has left. */
	if ((int)p->npic - p->group_size[p->group] < left)
		left = (int)p->npic - p->group_size[p->group];

	/* Longer than any event name, it matches none. */
	if (strlcpy(pattern, item, sizeof(pattern)) < sizeof(pattern)) {
		if (mods != NULL)
			pattern[mods - item - 1] = '\0';
		cpc_walk_events_described(p->cpc, &g, glob_match);
	}
	if (g.nomem) {
		p->nomem = true;
	} else if (g.n == 0) {
		diag("cpc_strtoset",
		    "%s: no tracepoint of this kernel matches "
		    "it\n",
		    item);
		p->uncountable = true;
	} else if (g.n > left) {
		diag("cpc_strtoset",
		    "%s: matches %d tracepoints, more than "
		    "the %d counters left in this %s (a %s counts at most "
		    "%u events); narrow the pattern, or spread it over more "
		    "%s\n",
		    item, g.n, left, p->ngroups > 0 ? "group" : "set",
		    p->ngroups > 0 ? "group" : "set", p->npic,
		    p->ngroups > 0 ? "{...} groups" : "-c sets");
		p->uncountable = true;
	} else {
		for (i = 0; i < g.n; i++) {
			snprintf(event, sizeof(event), "%s%s%s", g.match[i],
			    mods != NULL ? ":" : "", mods != NULL ? mods : "");
			bare_event(p, event);
		}
	}
	for (i = 0; i < g.n; i++)
		free(g.match[i]);
	free(g.match);
}

static void
add_attr(
    struct parse *p, struct counter *c, const char *name, const char *value)
{
	long long v = 1;
	char *end;

	if (value != NULL) {
		errno = 0;
		v = strtoll(value, &end, 0);
		if (value[0] == '\0' || *end != '\0' || errno != 0) {
			syntax(p, "invalid value '%s' for attribute '%s'\n",
			    value, name);
			return;
		}
	}
	if (c->nattrs >= MAX_ATTRS - 1) {
		syntax(p, "bad token '%s'\n", name);
		return;
	}
	if ((c->attrs[c->nattrs].ca_name = strdup(name)) == NULL) {
		p->nomem = true;
		return;
	}
	c->attrs[c->nattrs++].ca_val = (uint64_t)v;
}

/* An attribute item, "umask=3" or "umask0=3"; false if not one. */
static bool
attribute_item(struct parse *p, const char *name, const char *value)
{
	char base[CPC_MAX_ATTR_LEN + 8];
	size_t len;
	int i, pic;

	for (i = 0; i < p->nattr_names; i++) {
		if (strcmp(name, p->attr_names[i]) == 0) {
			add_attr(p, &p->all, name, value);
			return true;
		}
		len = strlen(p->attr_names[i]);
		if (strncmp(name, p->attr_names[i], len) != 0)
			continue;
		strlcpy(base, p->attr_names[i], sizeof(base));
		if ((pic = counter_suffix(name, base, p->npic)) >= 0) {
			add_attr(p, &p->ctr[pic], base, value);
			return true;
		}
	}
	return false;
}

/* Where a pmu/term=v,.../ item's term list begins, or NULL. */
static const char *
terms_start(const char *s)
{
	size_t n = strspn(s,
	    "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");

	return n > 0 && s[n] == '/' ? s + n : NULL;
}

/*
 * The end of the item that starts at s: the next comma outside a term
 * list (pmu/a=1,b=2/) and outside braces ({a,b}).
 */
static char *
item_end(char *s)
{
	char *q = s, *eq;
	const char *slash;
	int depth = 0;

	for (;;) {
		if (*q == '\0' || (*q == ',' && depth == 0))
			return q;
		if (*q == '{' || *q == '}') {
			depth += *q == '{' ? 1 : -1;
			q++;
			continue;
		}
		/* A term list opens right after the item, '=' or '{'. */
		if ((q == s || q[-1] == '=' || q[-1] == '{' || q[-1] == ',') &&
		    (slash = terms_start(q)) != NULL) {
			eq = strchr(slash + 1, '/');
			q = eq != NULL ? eq + 1 : (char *)slash + strlen(slash);
			continue;
		}
		q++;
	}
}

static void parse_item(struct parse *p, char *item);

/* {a,b,...}[:mods]: the members, each with the group's modifiers. */
static void
group_item(struct parse *p, char *item)
{
	char *close = strrchr(item, '}'), *inner = item + 1, *end, *mods;
	char member[CPC_MAX_EVENT_LEN];
	bool more;

	if (close == NULL || strchr(inner, '{') != NULL ||
	    (close[1] != '\0' &&
		(close[1] != ':' ||
		    strspn(close + 2, MODE_MODIFIERS) != strlen(close + 2)))) {
		syntax(p, "bad token '%s'\n", item);
		return;
	}
	if (p->ngroups + 1 >= p->nctr) {
		syntax(p, "'%s': more groups than a set holds\n", item);
		return;
	}
	mods = close[1] == ':' ? close + 2 : NULL;
	*close = '\0';
	p->group = ++p->ngroups;
	for (more = true; more && !p->nomem; inner = end + 1) {
		end = item_end(inner);
		more = *end != '\0';
		*end = '\0';
		if (*inner == '\0')
			continue;
		if (mods != NULL && *mods != '\0' &&
		    mode_modifiers(inner) == NULL && strchr(inner, '=') == NULL)
			snprintf(member, sizeof(member), "%s:%s", inner, mods);
		else
			strlcpy(member, inner, sizeof(member));
		parse_item(p, member);
	}
	p->group = 0;
}

static void
parse_item(struct parse *p, char *item)
{
	char *value;
	int pic;

	if (item[0] == '{') {
		group_item(p, item);
		return;
	}
	value = strchr(item, '=');
	/* '=' inside a term list belongs to the event: pmu/event=1/. */
	if (value != NULL && terms_start(item) != NULL &&
	    value > terms_start(item))
		value = NULL;
	if (value != NULL)
		*value++ = '\0';
	if ((pic = counter_suffix(item, "pic", p->npic)) >= 0) {
		explicit_event(p, pic, value);
	} else if (strcmp(item, "nouser") == 0) {
		p->all.nouser = true;
	} else if (strcmp(item, "sys") == 0) {
		p->all.sys = true;
	} else if ((pic = counter_suffix(item, "nouser", p->npic)) >= 0) {
		p->ctr[pic].nouser = true;
	} else if ((pic = counter_suffix(item, "sys", p->npic)) >= 0) {
		p->ctr[pic].sys = true;
	} else if (attribute_item(p, item, value)) {
		return;
	} else if (value != NULL) {
		value[-1] = '=';
		syntax(p, "bad token '%s'\n", item);
	} else if (is_glob(item)) {
		glob_events(p, item);
	} else {
		bare_event(p, item);
	}
}

/*
 * Whether an event counts less in user mode alone than in both: those the
 * CPU counts (hardware, cache, raw, a core PMU's) and the software fault
 * events, whose faults may be taken in the kernel. Tracepoints and the
 * kernel's other software events count in its context whatever the modes
 * (libcpc counts both for them), and the clocks count time.
 */
static bool
counts_by_mode(cpc_t *cpc, const char *event)
{
	static const char *const cpu_kinds[] = { "hardware", "cache", "raw",
		"libpfm4", "generic", "ultrasparc", "breakpoint" };
	static const char *const faults[] = { "page-faults", "minor-faults",
		"major-faults", "alignment-faults", "emulation-faults" };
	const char *kind = cpc_event_kind(cpc, event);
	char name[CPC_MAX_EVENT_LEN];
	size_t i;

	if (kind == NULL)
		return false;
	for (i = 0; i < sizeof(cpu_kinds) / sizeof(cpu_kinds[0]); i++)
		if (strcmp(kind, cpu_kinds[i]) == 0)
			return true;
	if (strcmp(kind, "pmu") == 0)
		return cpc_event_cpumask(cpc, event, 0) == NULL;
	if (strcmp(kind, "software") != 0 ||
	    cpc_event_canonical(cpc, event, name, sizeof(name)) != 0)
		return false;
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		if (strcmp(name, faults[i]) == 0)
			return true;
	return false;
}

static int
make_request(struct parse *p, int pic, struct spec_req *req)
{
	struct counter *c = &p->ctr[pic], *all = &p->all;
	uint_t i, n = 0;

	req->event = c->event;
	c->event = NULL;
	req->picnum = pic;
	req->group = c->group;
	req->flags = 0;
	if (!c->nouser && !all->nouser)
		req->flags |= CPC_COUNT_USER;
	if (c->sys || all->sys)
		req->flags |= CPC_COUNT_SYSTEM;
	/* A name's :u :k :h are more precise: libcpc counts what they say. */
	if (modifier_modes(req->event) != 0)
		req->flags = modifier_modes(req->event);
	req->user_by_rule = !c->nouser && !all->nouser && !c->sys &&
	    !all->sys && modifier_modes(req->event) == 0 &&
	    counts_by_mode(p->cpc, req->event);
	req->attrs = calloc(all->nattrs + c->nattrs + 1, sizeof(cpc_attr_t));
	if (req->attrs == NULL)
		return -1;
	for (i = 0; i < all->nattrs; i++) {
		req->attrs[n] = all->attrs[i];
		if ((req->attrs[n++].ca_name = strdup(all->attrs[i].ca_name)) ==
		    NULL)
			return -1;
	}
	for (i = 0; i < c->nattrs; i++) {
		req->attrs[n] = c->attrs[i];
		c->attrs[i].ca_name = NULL;
		n++;
	}
	c->nattrs = 0;
	req->nattrs = n;
	/* A counter past the PMU's is a place in a set of groups. */
	if (pic >= (int)p->npic)
		return 0;
	req->attrs[n].ca_val = (uint64_t)pic;
	if ((req->attrs[n++].ca_name = strdup("picnum")) == NULL)
		return -1;
	req->nattrs = n;
	return 0;
}

/* How many of the set's requests are called name. */
static int
count_named(const struct spec *spec, const char *name)
{
	int i, n = 0;

	for (i = 0; i < spec->nreqs; i++)
		n += strcmp(spec->reqs[i].name, name) == 0;
	return n;
}

/* Whether another of the set's requests is called what request i is. */
static bool
name_clashes(const struct spec *spec, int i)
{
	return count_named(spec, spec->reqs[i].name) > 1;
}

/* The request's name with the modes it counts, unless the name says them. */
static char *
name_with_modes(const struct spec_req *req)
{
	char modes[4], *name;
	size_t n = 0;

	if (mode_modifiers(req->event) != NULL || req->flags == 0)
		return strdup(req->name);
	if (req->flags & CPC_COUNT_USER)
		modes[n++] = 'u';
	if (req->flags & CPC_COUNT_SYSTEM)
		modes[n++] = 'k';
	if (req->flags & CPC_COUNT_HV)
		modes[n++] = 'h';
	modes[n] = '\0';
	if (asprintf(&name, "%s:%s", req->name, modes) < 0)
		return NULL;
	return name;
}

/*
 * Every request is first called by its event's canonical name, so that
 * one event spelled two ways (cs, context-switches) has one name in
 * every format and series.
 */
static int
name_canonically(cpc_t *cpc, struct spec *spec)
{
	char canonical[CPC_MAX_EVENT_LEN];
	struct spec_req *req;
	int i;

	for (i = 0; i < spec->nreqs; i++) {
		req = &spec->reqs[i];
		if (cpc_event_canonical(
			cpc, req->event, canonical, sizeof(canonical)) != 0)
			strlcpy(canonical, req->event, sizeof(canonical));
		if ((req->name = strdup(canonical)) == NULL)
			return -1;
	}
	return 0;
}

/* Names that clash, each replaced by what make_name makes of it. */
static int
rename_clashes(struct spec *spec, char *(*make_name)(const struct spec_req *))
{
	bool *clash;
	char *renamed;
	int i, rc = -1;

	if ((clash = calloc((size_t)spec->nreqs, sizeof(*clash))) == NULL)
		return -1;
	/* All found first, so that every one of them is renamed. */
	for (i = 0; i < spec->nreqs; i++)
		clash[i] = name_clashes(spec, i);
	for (i = 0; i < spec->nreqs; i++) {
		if (!clash[i])
			continue;
		if ((renamed = make_name(&spec->reqs[i])) == NULL)
			goto out;
		free(spec->reqs[i].name);
		spec->reqs[i].name = renamed;
	}
	rc = 0;
out:
	free(clash);
	return rc;
}

static char *
name_with_counter(const struct spec_req *req)
{
	char *name;

	if (asprintf(&name, "%s#pic%d", req->name, req->picnum) < 0)
		return NULL;
	return name;
}

/*
 * The rows' names: the event's canonical name, made unique in the set by
 * its modes, then by its counter.
 */
static int
name_requests(cpc_t *cpc, struct spec *spec)
{
	if (spec->nreqs <= 0)
		return 0;
	if (name_canonically(cpc, spec) != 0 ||
	    rename_clashes(spec, name_with_modes) != 0 ||
	    rename_clashes(spec, name_with_counter) != 0)
		return -1;
	return 0;
}

/* How many groups the requests are in. */
static int
count_groups(const struct spec *spec)
{
	int i, j, n = 0;

	for (i = 0; i < spec->nreqs; i++) {
		for (j = 0; j < i; j++)
			if (spec->reqs[j].group == spec->reqs[i].group)
				break;
		n += j == i;
	}
	return n;
}

int
spec_group_index(const struct spec *spec, int i)
{
	int j, k, n = 0;

	for (j = 0; j < i; j++) {
		for (k = 0; k < j; k++)
			if (spec->reqs[k].group == spec->reqs[j].group)
				break;
		if (k == j && spec->reqs[j].group == spec->reqs[i].group)
			return n;
		n += k == j;
	}
	return n;
}

int
spec_value_request(const struct spec *spec, int v)
{
	int i, parted = spec->nreqs * (1 + spec->nparts);

	if (v < spec->nreqs)
		return v;
	if (v < parted)
		return (v - spec->nreqs) / spec->nparts;
	for (i = 0; i < spec->nreqs; i++)
		if (v >= spec->reqs[i].box_first &&
		    v < spec->reqs[i].box_first + spec->reqs[i].nboxes)
			return i;
	return 0;
}

static int
build_requests(struct parse *p, struct spec *spec)
{
	int pic;

	spec->system_only = true;
	for (pic = 0; pic < p->nctr; pic++) {
		struct spec_req *req;

		if (p->ctr[pic].event == NULL)
			continue;
		req = &spec->reqs[spec->nreqs++];
		if (make_request(p, pic, req) != 0)
			return -1;
		if (req->flags & CPC_COUNT_USER)
			spec->system_only = false;
	}
	spec->ngroups = count_groups(spec);
	return name_requests(p->cpc, spec);
}

static void
counter_clear(struct counter *c)
{
	uint_t i;

	for (i = 0; i < c->nattrs; i++)
		free(c->attrs[i].ca_name);
	free(c->event);
}

static void
parse_free(struct parse *p)
{
	int i, j;

	for (i = 0; i < p->nctr && p->ctr != NULL; i++)
		counter_clear(&p->ctr[i]);
	counter_clear(&p->all);
	free(p->ctr);
	free(p->group_size);
	for (j = 0; j < p->nattr_names; j++)
		free(p->attr_names[j]);
	free(p->attr_names);
}

static int find_parts(cpc_t *cpc, struct spec *spec);
static int find_boxes(cpc_t *cpc, struct spec *spec);

/* Whether an item of text is a {...} group: the set has more counters. */
static bool
has_braces(char *copy)
{
	char *item, *end;
	bool braces = false;

	for (item = copy; !braces; item = end + 1) {
		end = item_end(item);
		braces = item[0] == '{';
		if (*end == '\0')
			break;
	}
	return braces;
}

struct spec *
spec_parse(cpc_t *cpc, const char *text, enum spec_error *err)
{
	struct parse p = { .cpc = cpc, .npic = cpc_npic(cpc), .highest = -1 };
	struct spec *spec = NULL;
	char *copy, *item, *end;

	*err = SPEC_NOMEM;
	if ((copy = strdup(text)) == NULL)
		goto out;
	p.nctr = has_braces(copy) && CPC_SET_MAX_REQS > (int)p.npic ?
	    CPC_SET_MAX_REQS :
	    (int)p.npic;
	p.ctr = calloc((size_t)p.nctr, sizeof(struct counter));
	p.group_size = calloc((size_t)p.nctr + 1, sizeof(int));
	if (p.ctr == NULL || p.group_size == NULL)
		goto out;
	cpc_walk_attrs(cpc, &p, collect_attr);
	for (item = copy; !p.nomem; item = end + 1) {
		end = item_end(item);
		if (*end == '\0') {
			if (item[0] != '\0')
				parse_item(&p, item);
			break;
		}
		*end = '\0';
		if (item[0] != '\0')
			parse_item(&p, item);
	}
	if (p.nomem)
		goto out;
	*err = p.syntax_error ? SPEC_SYNTAX :
	    p.uncountable     ? SPEC_UNCOUNTABLE :
				SPEC_OK;
	if (*err == SPEC_OK && p.highest < 0) {
		syntax(&p, "bad token '%s'\n", text);
		*err = SPEC_SYNTAX;
	}
	if (*err != SPEC_OK)
		goto out;
	if ((spec = calloc(1, sizeof(*spec))) == NULL ||
	    (spec->text = strdup(text)) == NULL ||
	    (spec->reqs = calloc((size_t)p.nctr, sizeof(struct spec_req))) ==
		NULL ||
	    build_requests(&p, spec) != 0 || find_parts(cpc, spec) != 0 ||
	    find_boxes(cpc, spec) != 0) {
		spec_free(spec);
		spec = NULL;
		*err = SPEC_NOMEM;
	}
out:
	free(copy);
	parse_free(&p);
	return spec;
}

void
spec_free(struct spec *spec)
{
	int i;
	uint_t j;

	if (spec == NULL)
		return;
	for (i = 0; i < spec->nreqs; i++) {
		for (j = 0; j < spec->reqs[i].nattrs; j++)
			free(spec->reqs[i].attrs[j].ca_name);
		free(spec->reqs[i].attrs);
		free(spec->reqs[i].event);
		free(spec->reqs[i].name);
		free(spec->reqs[i].box_names);
		free(spec->reqs[i].box_cpus);
	}
	free(spec->reqs);
	free(spec->text);
	free(spec->part_names);
	free(spec->part_cpus);
	free(spec);
}

cpc_set_t *
spec_build_set(cpc_t *cpc, const struct spec *spec)
{
	cpc_set_t *set;
	int i;

	if ((set = cpc_set_create(cpc)) == NULL)
		return NULL;
	for (i = 0; i < spec->nreqs; i++) {
		const struct spec_req *r = &spec->reqs[i];

		if (cpc_set_add_request(cpc, set, r->event, 0, r->flags,
			r->nattrs, r->attrs) < 0 ||
		    (r->group != 0 &&
			cpc_set_group(cpc, set, i, r->group) != 0)) {
			diag("cpc_strtoset",
			    "cpc_set_add_request() failed: "
			    "%s\n",
			    strerror(errno));
			(void)cpc_set_destroy(cpc, set);
			return NULL;
		}
	}
	/* A set of several groups counts each part of the time: scaled. */
	if (spec->ngroups > 1)
		(void)cpc_set_scale(cpc, set, 1);
	return set;
}

/*
 * The CPUs of a list that sysfs gives a PMU (a core PMU's cpus, a socket
 * PMU's cpumask): the CPUs that count its part; all where it gives none.
 */
static void
cpus_of_list(const char *list, cpu_set_t *cpus)
{
	int cpu;

	if (list != NULL && cpus_parse_list(list, cpus) == 0)
		return;
	CPU_ZERO(cpus);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, cpus);
}

/*
 * Where the kernel has several core PMUs: which requests count on them,
 * each with a part per core PMU (cpc_buf_get_part), and the PMUs' names
 * and CPUs.
 */
static int
find_parts(cpc_t *cpc, struct spec *spec)
{
	const char *list;
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint64_t v;
	int i, n = 0;

	while (cpc_core_pmu(cpc, n, NULL) != NULL)
		n++;
	if (n < 2)
		return 0;
	if ((set = spec_build_set(cpc, spec)) == NULL)
		return -1;
	if ((buf = cpc_buf_create(cpc, set)) == NULL) {
		(void)cpc_set_destroy(cpc, set);
		return -1;
	}
	for (i = 0; i < spec->nreqs; i++)
		if ((spec->reqs[i].parted =
			    cpc_buf_get_part(cpc, buf, i, 0, &v) == 0))
			spec->nparts = n;
	(void)cpc_buf_destroy(cpc, buf);
	(void)cpc_set_destroy(cpc, set);
	if (spec->nparts == 0)
		return 0;
	if ((spec->part_names = calloc((size_t)n, sizeof(char *))) == NULL ||
	    (spec->part_cpus = calloc((size_t)n, sizeof(cpu_set_t))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		spec->part_names[i] = cpc_core_pmu(cpc, i, &list);
		cpus_of_list(list, &spec->part_cpus[i]);
	}
	return 0;
}

/* How many boxes event is summed over (cpc_event_box): 0 for none. */
static int
count_boxes(cpc_t *cpc, const char *event)
{
	int n = 0;

	while (cpc_event_box(cpc, event, n) != NULL)
		n++;
	return n;
}

/*
 * Which requests are summed over the boxes of a PMU, each box's part
 * after the values and the core PMUs' parts, as cpc_buf_get_box gives
 * them; the boxes' names are the handle's.
 */
static int
find_boxes(cpc_t *cpc, struct spec *spec)
{
	struct spec_req *r;
	int i, k, next = spec->nreqs * (1 + spec->nparts);

	for (i = 0; i < spec->nreqs; i++) {
		r = &spec->reqs[i];
		if ((r->nboxes = count_boxes(cpc, r->event)) == 0)
			continue;
		if ((r->box_names = calloc(
			 (size_t)r->nboxes, sizeof(*r->box_names))) == NULL)
			return -1;
		if ((r->box_cpus = calloc(
			 (size_t)r->nboxes, sizeof(*r->box_cpus))) == NULL)
			return -1;
		for (k = 0; k < r->nboxes; k++) {
			r->box_names[k] = cpc_event_box(cpc, r->event, k);
			cpus_of_list(cpc_event_cpumask(cpc, r->event, k),
			    &r->box_cpus[k]);
		}
		r->box_first = next;
		next += r->nboxes;
		spec->nboxes += r->nboxes;
	}
	return 0;
}

/*
 * Before a command starts or a process is captured: whether every
 * request of a spec can count as it asks (attributes against the event,
 * this user's permission for each mode), per LWP (cpuid -1) or on a CPU.
 * Each refusal is one line through the handle's error handler: the
 * event, the cause and the fix. Returns the number of requests refused,
 * or -1 if the set could not be built (reported).
 */
int
spec_check(cpc_t *cpc, const struct spec *spec, int cpuid)
{
	cpc_set_t *set;
	int bad;

	if ((set = spec_build_set(cpc, spec)) == NULL)
		return -1;
	bad = cpuid == SPEC_CHECK_CPUS ? cpc_set_check_cpus(cpc, set) :
					 cpc_set_check(cpc, set, cpuid);
	(void)cpc_set_destroy(cpc, set);
	return bad;
}

/* Column headers: "     picN " per request, cut to 10 characters. */
void
spec_header(const struct spec *spec, FILE *out)
{
	char h[11];
	int i;

	for (i = 0; i < spec->nreqs; i++) {
		snprintf(h, sizeof(h), "%8s%-2d ", "pic", spec->reqs[i].picnum);
		fputs(h, out);
	}
}
