/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf's event grammar, less what the kernel describes itself (sysfs
 * PMUs, tracepoints, probes: their own files): modifiers, perf's generic
 * and cache names, breakpoints, raw codes, and libpfm4's names.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "evname.h"

/* The modifiers that mean something when counting. */
#define COUNTING_MODIFIERS "ukhHGp"
#define MAX_PRECISE	   3

void
ev_result_init(struct ev_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = CPC_EVENT_UNKNOWN;
	r->pin_fd = -1;
}

void
ev_fail(struct ev_result *r, cpc_event_status_t st, const char *fmt, ...)
{
	va_list ap;

	r->status = st;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

void
ev_desc(struct ev_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->desc, sizeof(r->desc), fmt, ap);
	va_end(ap);
}

/* A new term; NULL (and the result failed) when there are too many. */
struct cpc_event_term *
ev_add_term(struct ev_result *r, uint32_t type, uint64_t config, int sign)
{
	struct cpc_event_term *t;

	if (r->nterms >= CPC_MAX_TERMS) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "more than %d events in one "
		    "name",
		    CPC_MAX_TERMS);
		return NULL;
	}
	t = &r->term[r->nterms++];
	memset(t, 0, sizeof(*t));
	t->attr.size = sizeof(t->attr);
	t->attr.type = type;
	t->attr.config = config;
	t->sign = sign;
	return t;
}

/* A whole unsigned number, decimal, 0x hex or 0 octal. */
bool
cpclib_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] == '\0' || s[0] == '-' || s[0] == '+' ||
	    isspace((unsigned char)s[0]))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno == 0 && *end == '\0';
}

/*
 * "event:uk" -> "event" and "uk": a last ':' component made only of
 * counting modifiers. False, with base the whole name, when there is none.
 */
bool
cpclib_split_modifiers(
    const char *name, char *base, size_t len, const char **mods)
{
	const char *colon = strrchr(name, ':');
	size_t n;
	int p = 0;

	*mods = NULL;
	strlcpy(base, name, len);
	if (colon == NULL || colon == name || colon[-1] == ':' ||
	    colon[1] == '\0')
		return false;
	for (n = 1; colon[n] != '\0'; n++) {
		if (strchr(COUNTING_MODIFIERS, colon[n]) == NULL)
			return false;
		if (colon[n] == 'p' && ++p > MAX_PRECISE)
			return false;
	}
	if ((size_t)(colon - name) >= len)
		return false;
	base[colon - name] = '\0';
	*mods = colon + 1;
	return true;
}

/* Fold modifier letters into the result's terms and modes. */
int
cpclib_apply_modifiers(const char *mods, struct ev_result *r)
{
	bool host = false, guest = false;
	unsigned precise = 0;
	uint_t modes = 0;
	const char *m;
	int t;

	for (m = mods; *m != '\0'; m++) {
		switch (*m) {
		case 'u':
			modes |= CPC_COUNT_USER;
			break;
		case 'k':
			modes |= CPC_COUNT_SYSTEM;
			break;
		case 'h':
			modes |= CPC_COUNT_HV;
			break;
		case 'H':
			host = true;
			break;
		case 'G':
			guest = true;
			break;
		case 'p':
			precise++;
			break;
		default:
			ev_fail(r, CPC_EVENT_UNSUPPORTED,
			    "modifier '%c' is "
			    "not one of %s",
			    *m, COUNTING_MODIFIERS);
			return -1;
		}
	}
	if (modes != 0)
		r->modes = modes;
	for (t = 0; t < r->nterms; t++) {
		struct perf_event_attr *a = &r->term[t].attr;

		if (host != guest) {
			a->exclude_guest = host;
			a->exclude_host = guest;
		}
		if (precise > 0)
			a->precise_ip = precise;
	}
	return 0;
}

static const struct ev_legacy *
legacy_find(const char *name)
{
	size_t i;

	for (i = 0; i < cpclib_nperf_names; i++)
		if (strcmp(cpclib_perf_names[i].name, name) == 0)
			return &cpclib_perf_names[i];
	return NULL;
}

const char *
cpclib_legacy_alias_of(const char *name)
{
	const struct ev_legacy *l = legacy_find(name);

	return l != NULL ? l->alias_of : NULL;
}

/* Whether perf's generic software events say this one counts in kernel. */
bool
cpclib_sw_kernel_context(uint64_t config)
{
	size_t i;

	for (i = 0; i < cpclib_nperf_names; i++)
		if (cpclib_perf_names[i].type == PERF_TYPE_SOFTWARE &&
		    cpclib_perf_names[i].config == config)
			return cpclib_perf_names[i].kernel_context;
	return false;
}

/*
 * The word of table w that s starts with, followed by the end or '-';
 * the longest when several do. Its length goes to *len.
 */
static const struct ev_cache_word *
cache_word(const struct ev_cache_word *w, size_t n, const char *s, size_t *len)
{
	const struct ev_cache_word *best = NULL;
	size_t i, l;

	*len = 0;
	for (i = 0; i < n; i++) {
		l = strlen(w[i].name);
		if (strncasecmp(s, w[i].name, l) == 0 &&
		    (s[l] == '\0' || s[l] == '-') && l > *len) {
			best = &w[i];
			*len = l;
		}
	}
	return best;
}

/* The described word: the first of its id in the table. */
static const char *
cache_desc(const struct ev_cache_word *w, size_t n, int id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i].id == id && w[i].desc != NULL)
			return w[i].desc;
	return "";
}

/* unit[-op][-result], as perf reads its cache events. */
static bool
resolve_cache(cpc_t *cpc, const char *name, struct ev_result *r)
{
	const struct ev_cache_word *unit, *op = NULL, *res = NULL, *w;
	const char *p;
	size_t len;
	int opid, resid;

	(void)cpc;
	if ((unit = cache_word(cpclib_cache_units, cpclib_ncache_units, name,
		 &len)) == NULL ||
	    name[len] == '\0')
		return false;
	for (p = name + len; *p == '-'; p += len) {
		p++;
		if (op == NULL &&
		    (w = cache_word(
			 cpclib_cache_ops, cpclib_ncache_ops, p, &len)) != NULL)
			op = w;
		else if (res == NULL &&
		    (w = cache_word(cpclib_cache_results, cpclib_ncache_results,
			 p, &len)) != NULL)
			res = w;
		else
			return false;
	}
	if (*p != '\0')
		return false;
	opid = op != NULL ? op->id : PERF_COUNT_HW_CACHE_OP_READ;
	resid = res != NULL ? res->id : PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	r->kind = "cache";
	ev_desc(r, "%s %s %s",
	    cache_desc(cpclib_cache_units, cpclib_ncache_units, unit->id),
	    cache_desc(cpclib_cache_ops, cpclib_ncache_ops, opid),
	    cache_desc(cpclib_cache_results, cpclib_ncache_results, resid));
	if (!(cpclib_cache_valid_ops[unit->id] & (1u << opid))) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "the kernel's generic cache "
		    "events have no %s operation for the %s",
		    cache_desc(cpclib_cache_ops, cpclib_ncache_ops, opid),
		    cache_desc(
			cpclib_cache_units, cpclib_ncache_units, unit->id));
		return true;
	}
	if (ev_add_term(r, PERF_TYPE_HW_CACHE,
		(uint64_t)unit->id | (uint64_t)opid << 8 |
		    (uint64_t)resid << 16,
		1) == NULL)
		return true;
	r->hardware = true;
	r->status = CPC_EVENT_COUNTABLE;
	return true;
}

/* perf's generic names, cache events and tool events. */
bool
cpclib_resolve_legacy(cpc_t *cpc, const char *name, struct ev_result *r)
{
	const struct ev_legacy *l = legacy_find(name);
	size_t i;

	for (i = 0; l == NULL && i < cpclib_nperf_tools; i++) {
		if (strcmp(name, cpclib_perf_tools[i].name) != 0)
			continue;
		r->kind = "tool";
		ev_desc(r, "computed by perf, not counted by the kernel");
		ev_fail(
		    r, CPC_EVENT_UNSUPPORTED, "%s", cpclib_perf_tools[i].why);
		return true;
	}
	if (l == NULL)
		return resolve_cache(cpc, name, r);
	r->kind = l->type == PERF_TYPE_SOFTWARE ? "software" : "hardware";
	if (l->alias_of != NULL)
		ev_desc(r, "%s (same as %s)", l->desc, l->alias_of);
	else
		ev_desc(r, "%s", l->desc);
	if (ev_add_term(r, l->type, l->config, 1) == NULL)
		return true;
	r->hardware = l->type == PERF_TYPE_HARDWARE;
	r->kernel_context = l->kernel_context;
	r->status = CPC_EVENT_COUNTABLE;
	return true;
}

/* The perf type of raw codes: the kernel's core PMU, or PERF_TYPE_RAW. */
static uint32_t
raw_type(const cpc_t *cpc)
{
	return cpc->pmu_type >= 0 ? (uint32_t)cpc->pmu_type : PERF_TYPE_RAW;
}

/*
 * Put a value into a field's bits, lowest bits of the value into the
 * lowest bits of the field. False when the value does not fit.
 */
bool
cpclib_deposit(
    int word, uint64_t mask, uint64_t val, struct perf_event_attr *attr)
{
	uint64_t *w = word == 0 ? &attr->config :
	    word == 1		? &attr->config1 :
				  &attr->config2;
	uint64_t bits = 0;
	int b;

	for (b = 0; b < 64; b++) {
		if (!(mask & (1ULL << b)))
			continue;
		if (val & 1)
			bits |= 1ULL << b;
		val >>= 1;
	}
	if (val != 0)
		return false;
	*w = (*w & ~mask) | bits;
	return true;
}

/* Whether events of this perf type need the core PMU's counters. */
bool
cpclib_type_is_core(const cpc_t *cpc, uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ||
	    type == PERF_TYPE_RAW || cpclib_core_of_type(cpc, type) >= 0;
}

/* perf's rNNNN: a raw hexadecimal code for the core PMU. */
bool
cpclib_resolve_raw_r(cpc_t *cpc, const char *name, struct ev_result *r)
{
	uint64_t code;
	char *end;

	if (name[0] != 'r' || !isxdigit((unsigned char)name[1]))
		return false;
	errno = 0;
	code = strtoull(name + 1, &end, 16);
	if (*end != '\0' || errno != 0)
		return false;
	r->kind = "raw";
	ev_desc(r, "raw code 0x%" PRIx64 " of the core PMU", code);
	if (ev_add_term(r, raw_type(cpc), code, 1) == NULL)
		return true;
	r->hardware = true;
	r->status = CPC_EVENT_COUNTABLE;
	return true;
}

/* Solaris's raw codes: a number strtol reads whole (0xc0, 192). */
bool
cpclib_resolve_raw_code(cpc_t *cpc, const char *name, struct ev_result *r)
{
	uint64_t code;

	if (!cpclib_parse_u64(name, &code))
		return false;
	r->kind = "raw";
	ev_desc(r, "raw code 0x%" PRIx64 " of the core PMU", code);
	if (ev_add_term(r, raw_type(cpc), code, 1) == NULL)
		return true;
	r->hardware = true;
	r->status = CPC_EVENT_COUNTABLE;
	return true;
}

/* "r", "w", "x", "rw": the breakpoint's access type. */
static bool
parse_access(const char *s, uint32_t *type)
{
	*type = 0;
	for (; *s != '\0'; s++) {
		switch (*s) {
		case 'r':
			*type |= HW_BREAKPOINT_R;
			break;
		case 'w':
			*type |= HW_BREAKPOINT_W;
			break;
		case 'x':
			*type |= HW_BREAKPOINT_X;
			break;
		default:
			return false;
		}
	}
	return *type != 0;
}

static const char *
access_words(uint32_t type)
{
	switch (type) {
	case HW_BREAKPOINT_X:
		return "executions of";
	case HW_BREAKPOINT_R:
		return "reads of";
	case HW_BREAKPOINT_W:
		return "writes to";
	default:
		return "accesses to";
	}
}

/*
 * mem:ADDR[/LEN][:ACCESS], a hardware breakpoint counted as an event.
 * perf's defaults: read-write, 4 bytes for data, a word for execution.
 */
bool
cpclib_resolve_breakpoint(const char *name, struct ev_result *r)
{
	char addr[64], *slash, *colon;
	uint64_t a, len = 0;
	uint32_t type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	struct cpc_event_term *t;

	if (strncmp(name, "mem:", 4) != 0)
		return false;
	r->kind = "breakpoint";
	strlcpy(addr, name + 4, sizeof(addr));
	if ((colon = strchr(addr, ':')) != NULL) {
		*colon++ = '\0';
		if (!parse_access(colon, &type)) {
			ev_fail(r, CPC_EVENT_UNSUPPORTED,
			    "'%s' is not a "
			    "breakpoint access (r, w, rw or x)",
			    colon);
			return true;
		}
	}
	if ((slash = strchr(addr, '/')) != NULL) {
		*slash++ = '\0';
		if (!cpclib_parse_u64(slash, &len) ||
		    (len != 1 && len != 2 && len != 4 && len != 8)) {
			ev_fail(r, CPC_EVENT_UNSUPPORTED,
			    "'%s' is not a "
			    "breakpoint length (1, 2, 4 or 8 bytes)",
			    slash);
			return true;
		}
	}
	if (!cpclib_parse_u64(addr, &a)) {
		ev_fail(
		    r, CPC_EVENT_UNSUPPORTED, "'%s' is not an address", addr);
		return true;
	}
	if (len == 0)
		len = type == HW_BREAKPOINT_X ? sizeof(long) :
						HW_BREAKPOINT_LEN_4;
	if ((t = ev_add_term(r, PERF_TYPE_BREAKPOINT, 0, 1)) == NULL)
		return true;
	t->attr.bp_type = type;
	t->attr.bp_addr = a;
	t->attr.bp_len = len;
	ev_desc(r,
	    "%s address 0x%" PRIx64 " (%" PRIu64 " bytes, a debug "
	    "register)",
	    access_words(type), a, len);
	r->status = CPC_EVENT_COUNTABLE;
	return true;
}

/* libpfm4's own name for an event, and what it says it counts. */
static void
describe_pfm(int idx, struct ev_result *r)
{
	pfm_event_info_t einfo;
	pfm_pmu_info_t pinfo;

	memset(&einfo, 0, sizeof(einfo));
	einfo.size = sizeof(einfo);
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) !=
		PFM_SUCCESS ||
	    pfm_get_pmu_info(einfo.pmu, &pinfo) != PFM_SUCCESS)
		return;
	if (einfo.desc != NULL && strcmp(einfo.desc, einfo.name) != 0)
		ev_desc(r, "%s::%s: %s", pinfo.name, einfo.name, einfo.desc);
	else
		ev_desc(r, "%s::%s", pinfo.name, einfo.name);
}

static const struct ev_cache_word *
kname_word(const struct ev_cache_word *w, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(w[i].name) == len &&
		    strncasecmp(w[i].name, s, len) == 0)
			return &w[i];
	return NULL;
}

/* PERF_COUNT_HW_CACHE_<unit>[:<op>][:<result>], libpfm4's spelling. */
static bool
resolve_cache_kname(const char *s, struct ev_result *r)
{
	const struct ev_cache_word *unit, *w;
	int op = PERF_COUNT_HW_CACHE_OP_READ;
	int res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	size_t len = strcspn(s, ":");

	if ((unit = kname_word(
		 cpclib_cache_knames, cpclib_ncache_knames, s, len)) == NULL)
		return false;
	for (s += len; *s == ':'; s += len) {
		len = strcspn(++s, ":");
		if ((w = kname_word(cpclib_cache_op_knames,
			 cpclib_ncache_op_knames, s, len)) == NULL)
			return false;
		if (w->id >= 16)
			res = w->id - 16;
		else
			op = w->id;
	}
	r->kind = "libpfm4";
	ev_desc(r, "perf::PERF_COUNT_HW_CACHE_%s", unit->name);
	if (ev_add_term(r, PERF_TYPE_HW_CACHE,
		(uint64_t)unit->id | (uint64_t)op << 8 | (uint64_t)res << 16,
		1) != NULL) {
		r->hardware = true;
		r->status = CPC_EVENT_COUNTABLE;
	}
	return true;
}

/*
 * libpfm4's perf:: names, known here where its perf PMU is not active (a
 * PMU forced with LIBPFM_FORCE_PMU): the kernel's enum names, perf's
 * names in capitals, and cache events.
 */
static bool
resolve_perf_prefixed(const char *name, struct ev_result *r)
{
	const struct ev_legacy *l;
	size_t i;

	if (strncasecmp(name, "perf::", 6) != 0)
		return false;
	name += 6;
	if (strncasecmp(name, "PERF_COUNT_HW_CACHE_", 20) == 0)
		return resolve_cache_kname(name + 20, r);
	for (i = 0; i < cpclib_nperf_names; i++) {
		l = &cpclib_perf_names[i];
		if (strcasecmp(l->kname, name) != 0 &&
		    strcasecmp(l->name, name) != 0)
			continue;
		r->kind = "libpfm4";
		ev_desc(r, "perf::%s: %s", l->kname, l->desc);
		if (ev_add_term(r, l->type, l->config, 1) == NULL)
			return true;
		r->hardware = l->type == PERF_TYPE_HARDWARE;
		r->kernel_context = l->kernel_context;
		r->status = CPC_EVENT_COUNTABLE;
		return true;
	}
	return false;
}

/*
 * libpfm4's perf_event encoding of name, user and kernel mode, into attr;
 * its event index, or -1 when libpfm4 does not know the name.
 */
int
cpclib_pfm_encode(const char *name, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;

	memset(attr, 0, sizeof(*attr));
	if (cpclib_pfm_init() != PFM_SUCCESS)
		return -1;
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	arg.fstr = &fstr;
	if (pfm_get_os_event_encoding(
		name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return -1;
	free(fstr);
	return arg.idx;
}

/* Any name libpfm4 knows, with its umasks and its own modifiers. */
bool
cpclib_resolve_pfm(cpc_t *cpc, const char *name, struct ev_result *r)
{
	struct perf_event_attr attr;
	struct cpc_event_term *t;
	int idx;

	/* A name only libpfm4's perf PMUs know needs them initialized. */
	if ((idx = cpclib_pfm_encode(name, &attr)) < 0 &&
	    (!cpclib_pfm_init_all() ||
		(idx = cpclib_pfm_encode(name, &attr)) < 0))
		return resolve_perf_prefixed(name, r);
	r->kind = "libpfm4";
	describe_pfm(idx, r);
	if (attr.type == PERF_TYPE_RAW)
		attr.type = raw_type(cpc);
	if ((t = ev_add_term(r, attr.type, attr.config, 1)) == NULL)
		return true;
	t->attr.config1 = attr.config1;
	t->attr.config2 = attr.config2;
	r->hardware = cpclib_type_is_core(cpc, attr.type);
	r->kernel_context = attr.type == PERF_TYPE_SOFTWARE &&
	    cpclib_sw_kernel_context(attr.config);
	r->status = CPC_EVENT_COUNTABLE;
	return true;
}
