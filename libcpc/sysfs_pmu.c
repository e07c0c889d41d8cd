/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The PMUs the kernel describes in /sys/bus/event_source/devices: each
 * one's perf type, the fields of its encoding (format/) and its named
 * events (events/). perf's pmu/term=value,.../ and pmu/event/ forms are
 * read from there, for every PMU present, and from nothing else.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evname.h"

#define PMU_SYSFS      "/sys/bus/event_source/devices"
#define MAX_TERMS_TEXT 512

/* Terms every PMU takes: the config words, and perf's sampling terms. */
static const char *const generic_terms[] = {
	"config",
	"config1",
	"config2",
	"period",
	"freq",
	"name",
};

static char *
read_line(const char *path, char *buf, size_t len)
{
	FILE *f;
	char *nl;

	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	if (fgets(buf, (int)len, f) == NULL) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	return buf;
}

/*
 * A sysfs format, "config1:0-15" or "config:0-7,32-35": which word of the
 * attr (0: config, 1: config1, 2: config2), and its bits. A trailing
 * newline, as read from the file, is allowed.
 */
bool
cpclib_sysfs_format(const char *text, int *word, uint64_t *mask)
{
	const char *p = text;
	unsigned long lo, hi, b;
	char *end;

	if (strncmp(p, "config", 6) != 0)
		return false;
	p += 6;
	*word = 0;
	if (*p == '1' || *p == '2')
		*word = *p++ - '0';
	if (*p++ != ':')
		return false;
	*mask = 0;
	for (;;) {
		lo = strtoul(p, &end, 10);
		if (end == p || lo > 63)
			return false;
		hi = lo;
		if (*(p = end) == '-') {
			hi = strtoul(++p, &end, 10);
			if (end == p || hi > 63 || hi < lo)
				return false;
			p = end;
		}
		for (b = lo; b <= hi; b++)
			*mask |= 1ULL << b;
		if (*p != ',')
			break;
		p++;
	}
	return *p == '\0' || *p == '\n';
}

static void
read_formats(const char *dir, struct sysfs_pmu *pmu)
{
	char path[600], text[128];
	struct sysfs_format f, *grown;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/format", dir);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= sizeof(f.name))
			continue;
		snprintf(path, sizeof(path), "%s/format/%s", dir, de->d_name);
		memset(&f, 0, sizeof(f));
		if (read_line(path, text, sizeof(text)) == NULL ||
		    !cpclib_sysfs_format(text, &f.word, &f.mask))
			continue;
		strlcpy(f.name, de->d_name, sizeof(f.name));
		grown = reallocarray(
		    pmu->fmt, (size_t)pmu->nfmt + 1, sizeof(*grown));
		if (grown == NULL)
			break;
		pmu->fmt = grown;
		pmu->fmt[pmu->nfmt++] = f;
	}
	closedir(d);
}

/* events/NAME holds terms; NAME.unit, NAME.scale and the like do not. */
static bool
is_event_file(const char *name)
{
	return name[0] != '.' && strchr(name, '.') == NULL;
}

static void
read_aliases(const char *dir, struct sysfs_pmu *pmu)
{
	char path[600], text[MAX_TERMS_TEXT];
	struct sysfs_alias *grown, *a;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/events", dir);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!is_event_file(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, de->d_name);
		if (read_line(path, text, sizeof(text)) == NULL)
			continue;
		grown = reallocarray(
		    pmu->alias, (size_t)pmu->nalias + 1, sizeof(*grown));
		if (grown == NULL)
			break;
		pmu->alias = grown;
		a = &pmu->alias[pmu->nalias];
		memset(a, 0, sizeof(*a));
		if ((a->name = strdup(de->d_name)) == NULL ||
		    (a->terms = strdup(text)) == NULL) {
			free(a->name);
			free(a->terms);
			break;
		}
		pmu->nalias++;
	}
	closedir(d);
}

static int
alias_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sysfs_alias *)a)->name,
	    ((const struct sysfs_alias *)b)->name);
}

/* Boxes in their numbers' order: uncore_imc_2 before uncore_imc_10. */
static int
pmu_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct sysfs_pmu *)a)->name,
	    ((const struct sysfs_pmu *)b)->name);
}

static struct sysfs_pmus *
read_pmus(void)
{
	struct sysfs_pmus *pmus;
	struct sysfs_pmu *grown, *p;
	char dir[512], path[600], text[4096];
	struct dirent *de;
	DIR *d;

	if ((pmus = calloc(1, sizeof(*pmus))) == NULL)
		return NULL;
	if (!cpclib_pmu_path(dir, sizeof(dir), "%s", "") ||
	    (d = opendir(dir)) == NULL)
		return pmus;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= sizeof(p->name) ||
		    !cpclib_pmu_path(dir, sizeof(dir), "/%s", de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/type", dir);
		if (read_line(path, text, sizeof(text)) == NULL)
			continue;
		grown = reallocarray(
		    pmus->pmu, (size_t)pmus->npmu + 1, sizeof(*grown));
		if (grown == NULL)
			break;
		pmus->pmu = grown;
		p = &pmus->pmu[pmus->npmu++];
		memset(p, 0, sizeof(*p));
		strlcpy(p->name, de->d_name, sizeof(p->name));
		p->type = atoi(text);
		read_formats(dir, p);
		read_aliases(dir, p);
		snprintf(path, sizeof(path), "%s/cpumask", dir);
		if (read_line(path, text, sizeof(text)) != NULL &&
		    text[0] != '\0' && cpclib_parse_cpus(text, &p->cpus))
			p->cpumask = strdup(text);
		if (p->nalias > 1)
			qsort(p->alias, (size_t)p->nalias, sizeof(*p->alias),
			    alias_cmp);
	}
	closedir(d);
	if (pmus->npmu > 1)
		qsort(
		    pmus->pmu, (size_t)pmus->npmu, sizeof(*pmus->pmu), pmu_cmp);
	return pmus;
}

const struct sysfs_pmus *
cpclib_sysfs_pmus(cpc_t *cpc)
{
	struct ev_state *st = cpclib_ev_state(cpc);

	struct sysfs_pmus *pmus;

	if (st == NULL)
		return NULL;
	cpclib_ev_state_lock(cpc, true);
	if (!st->pmus_read) {
		st->pmus = read_pmus();
		st->pmus_read = true;
	}
	pmus = st->pmus;
	cpclib_ev_state_lock(cpc, false);
	return pmus;
}

void
cpclib_sysfs_free(struct sysfs_pmus *pmus)
{
	int i, j;

	if (pmus == NULL)
		return;
	for (i = 0; i < pmus->npmu; i++) {
		for (j = 0; j < pmus->pmu[i].nalias; j++) {
			free(pmus->pmu[i].alias[j].name);
			free(pmus->pmu[i].alias[j].terms);
			free(pmus->pmu[i].alias[j].desc);
		}
		free(pmus->pmu[i].alias);
		free(pmus->pmu[i].cpumask);
		free(pmus->pmu[i].fmt);
	}
	free(pmus->pmu);
	free(pmus);
}

const struct sysfs_pmu *
cpclib_sysfs_pmu(cpc_t *cpc, const char *name)
{
	const struct sysfs_pmus *pmus = cpclib_sysfs_pmus(cpc);
	int i;

	for (i = 0; pmus != NULL && i < pmus->npmu; i++)
		if (strcmp(pmus->pmu[i].name, name) == 0)
			return &pmus->pmu[i];
	return NULL;
}

const struct sysfs_pmu *
cpclib_sysfs_pmu_of_type(cpc_t *cpc, uint32_t type)
{
	const struct sysfs_pmus *pmus = cpclib_sysfs_pmus(cpc);
	int i;

	for (i = 0; pmus != NULL && i < pmus->npmu; i++)
		if ((uint32_t)pmus->pmu[i].type == type)
			return &pmus->pmu[i];
	return NULL;
}

/*
 * The PMU with a cpumask that counts attr's event, or NULL for a core
 * PMU's, a software event, a tracepoint and the rest, which count on
 * every CPU. Only dynamic PMU types are looked up, so that a run of
 * software events never reads the PMUs in sysfs for this.
 */
const struct sysfs_pmu *
cpclib_socket_pmu(cpc_t *cpc, const struct perf_event_attr *attr)
{
	const struct sysfs_pmu *pmu;

	if (attr->type < PERF_TYPE_MAX || cpclib_type_is_core(cpc, attr->type))
		return NULL;
	pmu = cpclib_sysfs_pmu_of_type(cpc, attr->type);
	return pmu != NULL && pmu->cpumask != NULL ? pmu : NULL;
}

/*
 * Whether req, bound to a thread, is refused for an event of a PMU with a
 * cpumask: such a PMU counts a whole socket on the CPUs it names, and
 * the kernel refuses it for a thread (EINVAL, which would say nothing of
 * why). Said in one line through fn, errno EINVAL.
 */
bool
cpclib_socket_refused_on_thread(
    cpc_t *cpc, const struct cpc_request *req, const char *fn)
{
	const struct sysfs_pmu *pmu;
	int t;

	for (t = 0; t < req->enc.nterms; t++) {
		if ((pmu = cpclib_socket_pmu(cpc, &req->enc.term[t].attr)) ==
		    NULL)
			continue;
		cpclib_err(cpc, fn, CPC_INVALID_EVENT,
		    "%s: PMU '%s' counts a whole socket, on the CPUs its "
		    "cpumask names (%s), never a thread: bind it to one of "
		    "those CPUs\n",
		    req->event, pmu->name, pmu->cpumask);
		errno = EINVAL;
		return true;
	}
	return false;
}

static const struct sysfs_format *
find_format(const struct sysfs_pmu *pmu, const char *name)
{
	int i;

	for (i = 0; i < pmu->nfmt; i++)
		if (strcmp(pmu->fmt[i].name, name) == 0)
			return &pmu->fmt[i];
	return NULL;
}

bool
cpclib_sysfs_format_bit(
    const struct sysfs_pmu *pmu, const char *fmt, int *word, uint64_t *mask)
{
	const struct sysfs_format *f = find_format(pmu, fmt);

	if (f == NULL)
		return false;
	*word = f->word;
	*mask = f->mask;
	return true;
}

static const struct sysfs_alias *
find_alias(const struct sysfs_pmu *pmu, const char *name)
{
	struct sysfs_alias key = { .name = (char *)name };

	if (pmu->nalias == 0)
		return NULL;
	return bsearch(&key, pmu->alias, (size_t)pmu->nalias,
	    sizeof(*pmu->alias), alias_cmp);
}

const struct sysfs_alias *
cpclib_sysfs_alias(const struct sysfs_pmu *pmu, const char *name)
{
	return find_alias(pmu, name);
}

static bool
is_generic_term(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(generic_terms) / sizeof(generic_terms[0]); i++)
		if (strcmp(generic_terms[i], name) == 0)
			return true;
	return false;
}

/* What a PMU's terms are, for the message about an unknown one. */
static void
list_terms(const struct sysfs_pmu *pmu, char *buf, size_t len)
{
	size_t i;
	int j;

	buf[0] = '\0';
	for (j = 0; j < pmu->nfmt; j++) {
		strlcat(buf, pmu->fmt[j].name, len);
		strlcat(buf, ", ", len);
	}
	for (i = 0; i < sizeof(generic_terms) / sizeof(generic_terms[0]); i++) {
		strlcat(buf, generic_terms[i], len);
		strlcat(buf,
		    i + 1 < sizeof(generic_terms) / sizeof(generic_terms[0]) ?
			", " :
			"",
		    len);
	}
	if (pmu->nalias > 0) {
		strlcat(buf, "; its events: ", len);
		for (j = 0; j < pmu->nalias && j < 8; j++) {
			strlcat(buf, pmu->alias[j].name, len);
			strlcat(buf, j + 1 < pmu->nalias ? ", " : "", len);
		}
		if (pmu->nalias > 8)
			strlcat(buf, "...", len);
	}
}

static int apply_terms(const struct sysfs_pmu *pmu, const char *terms,
    struct perf_event_attr *attr, int depth, struct ev_result *r);

/* One term "name=value", "name" (1, or an event of the PMU). */
static int
apply_term(const struct sysfs_pmu *pmu, char *term,
    struct perf_event_attr *attr, int depth, struct ev_result *r)
{
	const struct sysfs_format *f;
	const struct sysfs_alias *a;
	char *value = strchr(term, '='), known[400];
	uint64_t v = 1;

	if (value != NULL)
		*value++ = '\0';
	if (value == NULL && (a = find_alias(pmu, term)) != NULL)
		return apply_terms(pmu, a->terms, attr, depth + 1, r);
	if (value != NULL && strcmp(value, "?") == 0) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "term '%s' of PMU %s needs "
		    "a value (%s=N)",
		    term, pmu->name, term);
		return -1;
	}
	if (value != NULL && !cpclib_parse_u64(value, &v) &&
	    strcmp(term, "name") != 0) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "'%s' is not a number for "
		    "term '%s'",
		    value, term);
		return -1;
	}
	if ((f = find_format(pmu, term)) != NULL) {
		if (!cpclib_deposit(f->word, f->mask, v, attr)) {
			ev_fail(r, CPC_EVENT_UNSUPPORTED,
			    "%s=%s does not fit "
			    "the bits of term '%s' of PMU %s",
			    term, value != NULL ? value : "1", term, pmu->name);
			return -1;
		}
		return 0;
	}
	if (strcmp(term, "config") == 0)
		attr->config = v;
	else if (strcmp(term, "config1") == 0)
		attr->config1 = v;
	else if (strcmp(term, "config2") == 0)
		attr->config2 = v;
	else if (!is_generic_term(term)) {
		/* period, freq and name change nothing that is counted. */
		list_terms(pmu, known, sizeof(known));
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "unknown term '%s' for PMU "
		    "%s (its terms: %s)",
		    term, pmu->name, known);
		return -1;
	}
	return 0;
}

static int
apply_terms(const struct sysfs_pmu *pmu, const char *terms,
    struct perf_event_attr *attr, int depth, struct ev_result *r)
{
	char copy[MAX_TERMS_TEXT], *term, *rest;

	if (depth > 2 || strlcpy(copy, terms, sizeof(copy)) >= sizeof(copy)) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED, "terms too long or nested");
		return -1;
	}
	for (rest = copy; (term = strsep(&rest, ",")) != NULL;) {
		if (term[0] == '\0')
			continue;
		if (apply_term(pmu, term, attr, depth, r) != 0)
			return -1;
	}
	return 0;
}

/* Fill in what a sysfs PMU event is: its type, kinds and description. */
static void
pmu_event(cpc_t *cpc, const struct sysfs_pmu *pmu, struct ev_result *r)
{
	struct cpc_event_term *t = &r->term[0];

	r->kind = "pmu";
	r->hardware = cpclib_type_is_core(cpc, (uint32_t)pmu->type);
	r->kernel_context = t->attr.type == PERF_TYPE_TRACEPOINT ||
	    (t->attr.type == PERF_TYPE_SOFTWARE &&
		cpclib_sw_kernel_context(t->attr.config));
	r->status = CPC_EVENT_COUNTABLE;
}

/* A legacy name with perf's per-event terms: cpu-clock/period=1000/. */
static bool
legacy_terms(
    cpc_t *cpc, const char *pmu, const char *terms, struct ev_result *r)
{
	char copy[MAX_TERMS_TEXT], *term, *rest, *eq;

	if (!cpclib_resolve_legacy(cpc, pmu, r))
		return false;
	if (r->status != CPC_EVENT_COUNTABLE)
		return true;
	strlcpy(copy, terms, sizeof(copy));
	for (rest = copy; (term = strsep(&rest, ",")) != NULL;) {
		if ((eq = strchr(term, '=')) != NULL)
			*eq = '\0';
		if (term[0] != '\0' && strcmp(term, "period") != 0 &&
		    strcmp(term, "freq") != 0 && strcmp(term, "name") != 0) {
			ev_fail(r, CPC_EVENT_UNSUPPORTED,
			    "unknown term '%s' "
			    "for %s (its terms: period, freq, name)",
			    term, pmu);
			return true;
		}
	}
	return true;
}

/* No such PMU: a hardware one missing, or a name the kernel lacks. */
static void
missing_pmu(cpc_t *cpc, const char *pmu, struct ev_result *r)
{
	r->kind = "pmu";
	if (cpc->pmu_name[0] == '\0' &&
	    (strcmp(pmu, "cpu") == 0 || strncmp(pmu, "cpu_", 4) == 0 ||
		strncmp(pmu, "armv", 4) == 0)) {
		r->hardware = true;
		ev_fail(r, CPC_EVENT_NO_PMU,
		    "a hardware event, and this "
		    "kernel has no hardware counters (no PMU '%s' in " PMU_SYSFS
		    "; a VM without a virtual PMU?)",
		    pmu);
		return;
	}
	ev_fail(r, CPC_EVENT_UNSUPPORTED,
	    "no PMU '%s' in this kernel (see " PMU_SYSFS ")", pmu);
}

/* Whether name is a box of pmu: pmu, "_", and a number (uncore_imc_3). */
static bool
is_box_of(const char *name, const char *pmu)
{
	size_t n = strlen(pmu);

	return strncmp(name, pmu, n) == 0 && name[n] == '_' &&
	    name[n + 1] != '\0' &&
	    strspn(name + n + 1, "0123456789") == strlen(name + n + 1);
}

/*
 * A PMU named without its box number, where the kernel has only boxes
 * (uncore_imc_0 .. uncore_imc_N, one memory controller each): the event
 * on every box, one term each, their counts summed. False when pmu has
 * no boxes.
 */
static bool
box_terms(cpc_t *cpc, const char *pmu, const char *terms, struct ev_result *r)
{
	const struct sysfs_pmus *pmus = cpclib_sysfs_pmus(cpc);
	const struct sysfs_pmu *first = NULL;
	struct cpc_event_term *t;
	int i, n = 0;

	for (i = 0; pmus != NULL && i < pmus->npmu; i++) {
		if (!is_box_of(pmus->pmu[i].name, pmu))
			continue;
		if ((t = ev_add_term(r, (uint32_t)pmus->pmu[i].type, 0, 1)) ==
			NULL ||
		    apply_terms(&pmus->pmu[i], terms, &t->attr, 0, r) != 0)
			return true;
		if (first == NULL)
			first = &pmus->pmu[i];
		n++;
	}
	if (first == NULL)
		return false;
	r->boxes = true;
	pmu_event(cpc, first, r);
	ev_desc(r, "event of the %d boxes of the %s PMU (%s), summed", n, pmu,
	    terms);
	return true;
}

/* Whether s is only counting modifiers, perhaps after a ':'. */
static const char *
trailing_modifiers(const char *s)
{
	if (*s == ':')
		s++;
	return strspn(s, "ukhHGp") == strlen(s) ? s : NULL;
}

/* pmu/term=value,.../ and pmu/event/, with modifiers after the slash. */
bool
cpclib_resolve_pmu_terms(cpc_t *cpc, const char *name, struct ev_result *r)
{
	char pmuname[64], terms[MAX_TERMS_TEXT];
	const char *open = strchr(name, '/'), *close = strrchr(name, '/');
	const char *mods;
	const struct sysfs_pmu *pmu;
	struct cpc_event_term *t;
	size_t n;

	if (open == NULL || open == close || open == name ||
	    (size_t)(open - name) >= sizeof(pmuname) ||
	    (size_t)(close - open) > sizeof(terms))
		return false;
	n = (size_t)(open - name);
	if (strspn(name,
		"abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
		return false;
	if ((mods = trailing_modifiers(close + 1)) == NULL)
		return false;
	memcpy(pmuname, name, n);
	pmuname[n] = '\0';
	memcpy(terms, open + 1, (size_t)(close - open - 1));
	terms[close - open - 1] = '\0';
	r->kind = "pmu";
	if ((pmu = cpclib_sysfs_pmu(cpc, pmuname)) == NULL) {
		if (!legacy_terms(cpc, pmuname, terms, r) &&
		    !box_terms(cpc, pmuname, terms, r))
			missing_pmu(cpc, pmuname, r);
	} else if (strcmp(pmuname, "uprobe") == 0 ||
	    strcmp(pmuname, "kprobe") == 0) {
		r->kind = pmuname[0] == 'u' ? "uprobe" : "kprobe";
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "the %s PMU needs a %s and "
		    "an offset that its terms cannot give: write %s",
		    pmuname, pmuname[0] == 'u' ? "file" : "kernel function",
		    pmuname[0] == 'u' ? "uprobe:PATH:SYMBOL[+OFFSET]" :
					"kprobe:FUNCTION[+OFFSET]");
	} else if ((t = ev_add_term(r, (uint32_t)pmu->type, 0, 1)) != NULL &&
	    apply_terms(pmu, terms, &t->attr, 0, r) == 0) {
		pmu_event(cpc, pmu, r);
		ev_desc(r, "event of the %s PMU (%s)", pmu->name, terms);
	}
	if (r->status == CPC_EVENT_COUNTABLE && *mods != '\0')
		(void)cpclib_apply_modifiers(mods, r);
	return true;
}

/* The attributes of a PMU's event named alias; false if it has none. */
bool
cpclib_sysfs_alias_attr(const struct sysfs_pmu *pmu, const char *alias,
    struct perf_event_attr *attr)
{
	const struct sysfs_alias *a = find_alias(pmu, alias);
	struct ev_result scratch;

	if (a == NULL)
		return false;
	ev_result_init(&scratch);
	return apply_terms(pmu, a->terms, attr, 0, &scratch) == 0;
}

/*
 * An event that core PMUs name alike (inst_retired on each core type of
 * an Arm big.LITTLE): one per core PMU that has it, summed.
 */
static void
core_alias(cpc_t *cpc, const char *name, struct ev_result *r)
{
	const struct sysfs_pmu *pmu, *first = NULL;
	struct cpc_event_term *t;
	bool has[CPC_MAX_CORE_PMUS] = { false };
	int i;

	for (i = 0; i < cpc->ncore; i++) {
		if ((pmu = cpclib_sysfs_pmu(cpc, cpc->core[i].name)) == NULL ||
		    find_alias(pmu, name) == NULL)
			continue;
		if ((t = ev_add_term(r, (uint32_t)pmu->type, 0, 1)) == NULL ||
		    !cpclib_sysfs_alias_attr(pmu, name, &t->attr))
			return;
		has[i] = true;
		if (first == NULL)
			first = pmu;
	}
	if (first == NULL)
		return;
	pmu_event(cpc, first, r);
	ev_desc(r, "event of each core PMU that names it, summed");
	cpclib_note_missing_cores(cpc, has, r);
}

/* Whether every PMU that names alias is a core PMU. */
static bool
only_cores_name(cpc_t *cpc, const struct sysfs_pmus *pmus, const char *name)
{
	int i;

	for (i = 0; i < pmus->npmu; i++)
		if (find_alias(&pmus->pmu[i], name) != NULL &&
		    cpclib_core_of_type(cpc, (uint32_t)pmus->pmu[i].type) < 0)
			return false;
	return true;
}

/* An event a PMU names in sysfs, without the PMU: tsc for msr/tsc/. */
bool
cpclib_resolve_pmu_alias(cpc_t *cpc, const char *name, struct ev_result *r)
{
	const struct sysfs_pmus *pmus = cpclib_sysfs_pmus(cpc);
	const struct sysfs_pmu *found = NULL;
	const struct sysfs_alias *a = NULL, *x;
	struct cpc_event_term *t;
	int i, matches = 0;

	for (i = 0; pmus != NULL && i < pmus->npmu; i++) {
		if ((x = find_alias(&pmus->pmu[i], name)) == NULL)
			continue;
		if (matches++ == 0) {
			found = &pmus->pmu[i];
			a = x;
		}
	}
	if (matches == 0)
		return false;
	if (cpc->ncore > 1 && only_cores_name(cpc, pmus, name)) {
		core_alias(cpc, name, r);
		return true;
	}
	if (matches > 1) {
		r->kind = "pmu";
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "%d PMUs have an event "
		    "named %s: name the PMU, as in %s/%s/",
		    matches, name, found->name, name);
		return true;
	}
	if ((t = ev_add_term(r, (uint32_t)found->type, 0, 1)) != NULL &&
	    apply_terms(found, a->terms, &t->attr, 0, r) == 0) {
		pmu_event(cpc, found, r);
		ev_desc(r, "event of the %s PMU, %s/%s/ (%s)", found->name,
		    found->name, name, a->terms);
	}
	return true;
}
