/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The catalog: every name cpc_set_add_request accepts that this kernel
 * can count, built when first asked, so that a client which accepts only
 * walked names (as illumos's set parser does) accepts all of them:
 *
 *	generic	PAPI_* names that map on this CPU
 *	perf's software, hardware and cache names, with perf's aliases
 *	pmu/event/ for every event a sysfs PMU names
 *	pmu::EVENT and pmu::EVENT:UMASK of libpfm4, and the core PMU's
 *	    EVENT as Solaris platform names
 *	UltraSPARC names that map here
 *	subsystem:event for every tracepoint
 *
 * Each name but tracepoints is asked of the kernel (opened once). For
 * tracepoints, one is asked for all: each open and close of one costs
 * the kernel a grace period. Nothing is asked whose opening changes the
 * kernel's state: ftrace's own events (ftrace:function turns the
 * function tracer on), by tracefs's names or libpfm4's, are not listed.
 * Forms with a parameter (rNNNN, pmu/term=N/, mem:ADDR,
 * uprobe:PATH:SYMBOL) are listed by the described walk only.
 */
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evname.h"

static int
cat_add(struct cpc_catalog *cat, const char *name, const char *kind,
    const char *desc, bool generic, bool form)
{
	struct cpc_catalog_entry *e;

	if (cat->n == cat->nalloc) {
		int n = cat->nalloc > 0 ? cat->nalloc * 2 : 256;

		if ((e = reallocarray(cat->entry, (size_t)n, sizeof(*e))) ==
		    NULL)
			return -1;
		cat->entry = e;
		cat->nalloc = n;
	}
	e = &cat->entry[cat->n];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->generic = generic;
	e->form = form;
	if ((e->name = strdup(name)) == NULL ||
	    (e->desc = strdup(desc != NULL ? desc : "")) == NULL) {
		free(e->name);
		return -1;
	}
	cat->n++;
	return 0;
}

/* A name, if this kernel can count it. */
static int
add_countable(cpc_t *cpc, const char *name, bool generic)
{
	const char *kind, *desc;

	if (cpc_event_status(cpc, name, NULL, 0) != CPC_EVENT_COUNTABLE)
		return 0;
	kind = cpc_event_kind(cpc, name);
	desc = cpclib_event_desc(cpc, name);
	return cat_add(&cpc->catalog, name, kind != NULL ? kind : "", desc,
	    generic, false);
}

static int
add_solaris(cpc_t *cpc)
{
	size_t i;

	for (i = 0; i < cpclib_generic_count(); i++)
		if (add_countable(cpc, cpclib_generic_name(i), true) != 0)
			return -1;
	for (i = 0; i < cpclib_sparc_count(); i++)
		if (add_countable(cpc, cpclib_sparc_name(i), false) != 0)
			return -1;
	return 0;
}

static int
add_perf_names(cpc_t *cpc)
{
	const int access = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	const struct ev_cache_word *u, *o, *res;
	char name[128];
	size_t i, j, k;

	for (i = 0; i < cpclib_nperf_names; i++)
		if (add_countable(cpc, cpclib_perf_names[i].name, false) != 0)
			return -1;
	/* Cache events in perf's own spelling: unit-op(s), unit-op-misses. */
	for (i = 0; i < cpclib_ncache_units; i++) {
		u = &cpclib_cache_units[i];
		if (u->desc == NULL)
			continue;
		for (j = 0; j + 1 < cpclib_ncache_ops; j++) {
			o = &cpclib_cache_ops[j];
			if (o->desc == NULL ||
			    !(cpclib_cache_valid_ops[u->id] & (1u << o->id)))
				continue;
			for (k = 0; k < cpclib_ncache_results; k++) {
				res = &cpclib_cache_results[k];
				if (res->desc == NULL)
					continue;
				/* Accesses: perf's plural, loads. */
				if (res->id == access)
					snprintf(name, sizeof(name), "%s-%s",
					    u->name,
					    cpclib_cache_ops[j + 1].name);
				else
					snprintf(name, sizeof(name), "%s-%s-%s",
					    u->name, o->name, res->name);
				if (add_countable(cpc, name, false) != 0)
					return -1;
			}
		}
	}
	return 0;
}

static int
add_sysfs(cpc_t *cpc)
{
	const struct sysfs_pmus *pmus = cpclib_sysfs_pmus(cpc);
	char name[CPC_MAX_EVENT_LEN];
	int i, j;

	for (i = 0; pmus != NULL && i < pmus->npmu; i++) {
		for (j = 0; j < pmus->pmu[i].nalias; j++) {
			snprintf(name, sizeof(name), "%s/%s/",
			    pmus->pmu[i].name, pmus->pmu[i].alias[j].name);
			if (add_countable(cpc, name, false) != 0)
				return -1;
		}
	}
	return 0;
}

/*
 * Whether libpfm4 encodes a name as a tracepoint: where debugfs is
 * mounted, its perf PMU names tracefs's tracepoints again (perf::sub and
 * perf::sub:event), ftrace's own events among them. Asking the kernel
 * about each would open each, one grace period apiece, and opening
 * ftrace:function switches the function tracer on and off across the
 * whole kernel: listing must change nothing. Those are tracefs's
 * tracepoints, listed once by their own names and asked once for all.
 */
static bool
pfm_tracepoint(const char *name)
{
	struct perf_event_attr attr;

	return cpclib_pfm_encode(name, &attr) >= 0 &&
	    attr.type == PERF_TYPE_TRACEPOINT;
}

/* A libpfm4 name, if it is not a tracepoint and this kernel counts it. */
static int
add_pfm_name(cpc_t *cpc, const char *name)
{
	if (pfm_tracepoint(name))
		return 0;
	return add_countable(cpc, name, false);
}

/* One libpfm4 event, prefixed by its PMU, and each of its umasks. */
static int
add_pfm_event(cpc_t *cpc, const pfm_pmu_info_t *pinfo, int idx, bool bare)
{
	pfm_event_attr_info_t ainfo;
	pfm_event_info_t einfo;
	char name[CPC_MAX_EVENT_LEN];
	int a;

	memset(&einfo, 0, sizeof(einfo));
	einfo.size = sizeof(einfo);
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) !=
	    PFM_SUCCESS)
		return 0;
	if (bare && add_pfm_name(cpc, einfo.name) != 0)
		return -1;
	snprintf(name, sizeof(name), "%s::%s", pinfo->name, einfo.name);
	if (add_pfm_name(cpc, name) != 0)
		return -1;
	for (a = 0; a < einfo.nattrs; a++) {
		memset(&ainfo, 0, sizeof(ainfo));
		ainfo.size = sizeof(ainfo);
		if (pfm_get_event_attr_info(
			idx, a, PFM_OS_PERF_EVENT_EXT, &ainfo) != PFM_SUCCESS ||
		    ainfo.type != PFM_ATTR_UMASK)
			continue;
		snprintf(name, sizeof(name), "%s::%s:%s", pinfo->name,
		    einfo.name, ainfo.name);
		if (add_pfm_name(cpc, name) != 0)
			return -1;
	}
	return 0;
}

/* Every event of every PMU libpfm4 finds here, but its raw-code PMU. */
static int
add_pfm(cpc_t *cpc)
{
	pfm_pmu_info_t pinfo;
	pfm_pmu_t p;
	int idx;

	cpclib_pmu_models(cpc);
	(void)cpclib_pfm_init_all();
	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(p, &pinfo) != PFM_SUCCESS ||
		    !pinfo.is_present || strcmp(pinfo.name, "perf_raw") == 0)
			continue;
		for (idx = pinfo.first_event; idx != -1;
		     idx = pfm_get_event_next(idx))
			if (add_pfm_event(
				cpc, &pinfo, idx, (int)p == cpc->pfm_pmu) != 0)
				return -1;
	}
	return 0;
}

struct tp_walk {
	cpc_t *cpc;
	int asked; /* 0 not yet, 1 countable, -1 not */
};

static int
add_tracepoint(void *arg, const char *sub, const char *event)
{
	struct tp_walk *w = arg;
	char name[CPC_MAX_EVENT_LEN], desc[320];

	/*
	 * ftrace's own events are not tracepoints: the kernel decides on
	 * each when it is opened, and opening ftrace:function switches the
	 * function tracer on across the whole kernel. Never asked here, so
	 * not listed.
	 */
	if (strcmp(sub, "ftrace") == 0)
		return 0;
	snprintf(name, sizeof(name), "%s:%s", sub, event);
	if (w->asked == 0)
		w->asked = cpc_event_status(w->cpc, name, NULL, 0) ==
			CPC_EVENT_COUNTABLE ?
		    1 :
		    -1;
	if (w->asked < 0)
		return 1; /* none of them, then */
	snprintf(desc, sizeof(desc), "tracepoint of the %s subsystem", sub);
	return cat_add(
	    &w->cpc->catalog, name, "tracepoint", desc, false, false);
}

static int
add_tracepoints(cpc_t *cpc)
{
	struct tp_walk w = { cpc, 0 };

	return cpclib_tracefs_walk(cpc, &w, add_tracepoint) < 0 ? -1 : 0;
}

/* Forms with a parameter, for the described walk. */
static int
add_forms(cpc_t *cpc)
{
	const struct sysfs_pmus *pmus = cpclib_sysfs_pmus(cpc);
	struct cpc_catalog *cat = &cpc->catalog;
	char name[128], desc[400];
	int i, j, rc = 0;

	if (cpc->pmu_type >= 0)
		rc |= cat_add(cat, "rNNNN", "raw",
		    "raw hexadecimal code of "
		    "the core PMU's event select (perf's rNNNN)",
		    false, true);
	for (i = 0; pmus != NULL && i < pmus->npmu; i++) {
		const struct sysfs_pmu *p = &pmus->pmu[i];

		if (p->nfmt == 0 || strcmp(p->name, "uprobe") == 0 ||
		    strcmp(p->name, "kprobe") == 0)
			continue;
		snprintf(name, sizeof(name), "%s/TERM=VALUE,.../", p->name);
		snprintf(desc, sizeof(desc),
		    "an event of the %s PMU by its "
		    "fields:",
		    p->name);
		for (j = 0; j < p->nfmt; j++) {
			strlcat(desc, " ", sizeof(desc));
			strlcat(desc, p->fmt[j].name, sizeof(desc));
		}
		rc |= cat_add(cat, name, "pmu", desc, false, true);
	}
	if (cpclib_sysfs_pmu(cpc, "breakpoint") != NULL)
		rc |= cat_add(cat, "mem:ADDR[/LEN][:r|w|rw|x]", "breakpoint",
		    "accesses to (or executions of) an address, counted by a "
		    "debug register",
		    false, true);
	if (cpclib_sysfs_pmu(cpc, "uprobe") != NULL) {
		rc |= cat_add(cat, "uprobe:PATH:SYMBOL[+OFFSET]", "uprobe",
		    "executions of an instruction of a program or library",
		    false, true);
		rc |= cat_add(cat, "uretprobe:PATH:SYMBOL", "uprobe",
		    "returns from a function of a program or library", false,
		    true);
	}
	if (cpclib_sysfs_pmu(cpc, "kprobe") != NULL) {
		rc |= cat_add(cat, "kprobe:FUNCTION[+OFFSET]", "kprobe",
		    "executions of a kernel function for the thread", false,
		    true);
		rc |= cat_add(cat, "kretprobe:FUNCTION", "kprobe",
		    "returns from a kernel function for the thread", false,
		    true);
	}
	return rc != 0 ? -1 : 0;
}

static int
by_name(const void *a, const void *b)
{
	const struct cpc_catalog_entry *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	return c != 0 ? c : (*x < *y ? -1 : *x > *y);
}

/* Drop the later of names listed twice, keeping the order. */
static int
dedup(struct cpc_catalog *cat)
{
	struct cpc_catalog_entry **sorted;
	const char *prev;
	int i, n = 0;

	if (cat->n < 2)
		return 0;
	if ((sorted = calloc((size_t)cat->n, sizeof(*sorted))) == NULL)
		return -1;
	for (i = 0; i < cat->n; i++)
		sorted[i] = &cat->entry[i];
	qsort(sorted, (size_t)cat->n, sizeof(*sorted), by_name);
	for (i = 1, prev = sorted[0]->name; i < cat->n; i++) {
		if (strcmp(sorted[i]->name, prev) != 0) {
			prev = sorted[i]->name;
			continue;
		}
		free(sorted[i]->name);
		sorted[i]->name = NULL;
	}
	free(sorted);
	for (i = 0; i < cat->n; i++) {
		if (cat->entry[i].name == NULL) {
			free(cat->entry[i].desc);
			continue;
		}
		cat->entry[n++] = cat->entry[i];
	}
	cat->n = n;
	return 0;
}

int
cpclib_catalog_build(cpc_t *cpc)
{
	int rc = 0;

	cpclib_catalog_lock(cpc, true);
	if (!cpc->catalog_ready) {
		if (add_solaris(cpc) != 0 || add_perf_names(cpc) != 0 ||
		    add_sysfs(cpc) != 0 || add_pfm(cpc) != 0 ||
		    add_tracepoints(cpc) != 0 || add_forms(cpc) != 0 ||
		    dedup(&cpc->catalog) != 0) {
			cpclib_catalog_free(cpc);
			rc = -1;
		} else {
			cpc->catalog_ready = true;
		}
	}
	cpclib_catalog_lock(cpc, false);
	if (rc != 0)
		errno = ENOMEM;
	return rc;
}

void
cpclib_catalog_free(cpc_t *cpc)
{
	struct cpc_catalog *cat = &cpc->catalog;
	int i;

	for (i = 0; i < cat->n; i++) {
		free(cat->entry[i].name);
		free(cat->entry[i].desc);
	}
	free(cat->entry);
	memset(cat, 0, sizeof(*cat));
	cpc->catalog_ready = false;
}
