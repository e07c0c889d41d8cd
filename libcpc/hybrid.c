/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An event named without a PMU, on a machine with several core PMUs
 * (hybrid x86, Arm big.LITTLE): a thread counts on the PMU of the core it
 * runs on, and an event opened on one core PMU counts nothing while the
 * thread runs on another. So each of the name's hardware events becomes
 * one per core PMU, with the same weight, and the request's value is
 * their sum: no core type is silently missed. A core PMU that has no
 * such event is left out, and the name's note says so.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "evname.h"

/*
 * Generic events as Arm's kernel maps them (armv8_pmuv3_perf_map, Linux
 * 6.1 and 6.12), by the names its PMUs give them in sysfs: the way to
 * open one on a given core PMU where the kernel takes no extended type
 * (Linux 6.1 on arm64). Branch instructions are left out: the kernels map
 * them to different events.
 */
static const struct {
	uint64_t config;
	const char *alias;
} arm_generic[] = {
	{ PERF_COUNT_HW_CPU_CYCLES, "cpu_cycles" },
	{ PERF_COUNT_HW_INSTRUCTIONS, "inst_retired" },
	{ PERF_COUNT_HW_CACHE_REFERENCES, "l1d_cache" },
	{ PERF_COUNT_HW_CACHE_MISSES, "l1d_cache_refill" },
	{ PERF_COUNT_HW_BRANCH_MISSES, "br_mis_pred" },
	{ PERF_COUNT_HW_BUS_CYCLES, "bus_cycles" },
	{ PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "stall_frontend" },
	{ PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "stall_backend" },
};

/*
 * Whether the kernel opens a generic hardware event on the core PMU named
 * in the config's upper half (PERF_PMU_TYPE_SHIFT): x86 since hybrid CPUs
 * came (5.13), arm64 since 6.6. Asked once per handle, of the first core
 * PMU, on the calling thread.
 */
static bool
extended_type_ok(cpc_t *cpc)
{
	struct perf_event_attr attr;
	int fd, known = cpc->extended_type;

	if (known < 0 && (known = cpclib_recorded_extended_type()) < 0) {
		cpclib_dummy_attr(&attr);
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_INSTRUCTIONS |
		    (uint64_t)cpc->core[0].type << 32;
		fd = cpclib_probe_open(cpc, &attr);
		known = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	cpc->extended_type = known;
	return known == 1;
}

static const char *
arm_alias_of(uint64_t config)
{
	size_t i;

	for (i = 0; i < sizeof(arm_generic) / sizeof(arm_generic[0]); i++)
		if (arm_generic[i].config == config)
			return arm_generic[i].alias;
	return NULL;
}

/* A generic hardware or cache event on core PMU p; false if it has none. */
static bool
generic_on(cpc_t *cpc, const struct cpc_core_pmu *p,
    const struct cpc_event_term *from, struct cpc_event_term *to)
{
	const struct sysfs_pmu *pmu;
	const char *alias;

	*to = *from;
	if (extended_type_ok(cpc)) {
		to->attr.config |= (uint64_t)p->type << 32;
		return true;
	}
	if (from->attr.type != PERF_TYPE_HARDWARE ||
	    strncmp(p->name, "armv", 4) != 0 ||
	    (alias = arm_alias_of(from->attr.config)) == NULL ||
	    (pmu = cpclib_sysfs_pmu(cpc, p->name)) == NULL)
		return false;
	memset(&to->attr, 0, sizeof(to->attr));
	to->attr.size = sizeof(to->attr);
	to->attr.type = (uint32_t)p->type;
	return cpclib_sysfs_alias_attr(pmu, alias, &to->attr);
}

/*
 * A raw or libpfm4 event of the core PMU on core PMU p: its libpfm4
 * model's own encoding of the name where libpfm4 knows the model, the
 * same encoding otherwise (as perf opens a raw code on each).
 */
static bool
native_on(const char *name, const char *kind, const struct cpc_core_pmu *p,
    const struct cpc_event_term *from, struct cpc_event_term *to)
{
	struct perf_event_attr attr;
	pfm_pmu_info_t info;
	char qualified[CPC_MAX_EVENT_LEN + 64];

	*to = *from;
	to->attr.type = (uint32_t)p->type;
	if (strcmp(kind, "libpfm4") != 0 || p->pfm_pmu < 0 ||
	    strstr(name, "::") != NULL)
		return true;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	/* libpfm4 encodes for the models it found here only. */
	if (pfm_get_pmu_info((pfm_pmu_t)p->pfm_pmu, &info) != PFM_SUCCESS ||
	    !info.is_present)
		return true;
	snprintf(qualified, sizeof(qualified), "%s::%s", info.name, name);
	if (cpclib_pfm_encode(qualified, &attr) < 0)
		return false;
	to->attr.config = attr.config;
	to->attr.config1 = attr.config1;
	to->attr.config2 = attr.config2;
	return true;
}

/* Term t on core PMU p: false when p has no such event. */
static bool
term_on(cpc_t *cpc, const char *name, const struct ev_result *r,
    const struct cpc_event_term *t, const struct cpc_core_pmu *p,
    struct cpc_event_term *to)
{
	if ((t->attr.type == PERF_TYPE_HARDWARE ||
		t->attr.type == PERF_TYPE_HW_CACHE) &&
	    (t->attr.config >> 32) == 0)
		return generic_on(cpc, p, t, to);
	return native_on(name, r->kind, p, t, to);
}

/* Whether the hardware terms are all generic events. */
static bool
generic_only(const struct cpc_event_term *terms, int n)
{
	int t;

	for (t = 0; t < n; t++)
		if (terms[t].attr.type != PERF_TYPE_HARDWARE &&
		    terms[t].attr.type != PERF_TYPE_HW_CACHE)
			return false;
	return true;
}

/* Whether term t is one to spread: an event of the core PMU, unnamed. */
static bool
spreads(const cpc_t *cpc, const struct cpc_event_term *t)
{
	if (t->attr.type == PERF_TYPE_HARDWARE ||
	    t->attr.type == PERF_TYPE_HW_CACHE)
		return (t->attr.config >> 32) == 0;
	return t->attr.type == PERF_TYPE_RAW ||
	    cpclib_core_of_type(cpc, t->attr.type) >= 0;
}

/*
 * Make each hardware event of a name one per core PMU. Composites (a
 * Solaris name built of others) are made of names already spread, and a
 * PMU named in the event (cpu_core/cycles/, adl_glc::...) is not spread.
 */
void
cpclib_spread_over_cores(cpc_t *cpc, const char *name, struct ev_result *r)
{
	struct cpc_event_term from[CPC_MAX_TERMS];
	bool has[CPC_MAX_CORE_PMUS] = { false };
	int n = r->nterms, t, i, kept = 0;

	if (cpc->ncore < 2 || r->status != CPC_EVENT_COUNTABLE ||
	    !r->hardware || strcmp(r->kind, "pmu") == 0)
		return;
	cpclib_pmu_models(cpc); /* each core PMU's libpfm4 model */
	memcpy(from, r->term, (size_t)n * sizeof(from[0]));
	r->nterms = 0;
	for (t = 0; t < n; t++) {
		if (!spreads(cpc, &from[t])) {
			if (ev_add_term(r, 0, 0, 0) == NULL)
				return;
			r->term[r->nterms - 1] = from[t];
			continue;
		}
		for (i = 0; i < cpc->ncore; i++) {
			if (r->nterms >= CPC_MAX_TERMS) {
				(void)ev_add_term(r, 0, 0, 0); /* says so */
				return;
			}
			if (!term_on(cpc, name, r, &from[t], &cpc->core[i],
				&r->term[r->nterms]))
				continue;
			r->nterms++;
			has[i] = true;
			kept++;
		}
	}
	if (kept == 0 && generic_only(from, n) && !extended_type_ok(cpc))
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "this kernel cannot open a generic event on each of the "
		    "%d core PMUs (newer kernels can): name the event of each "
		    "(%s/EVENT/)",
		    cpc->ncore, cpc->core[0].name);
	else if (kept == 0)
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "none of the %d core PMUs has such an event", cpc->ncore);
	else
		cpclib_note_missing_cores(cpc, has, r);
}

/*
 * perf's name of a generic event given to a core PMU, cpu_core/cycles/,
 * with modifiers after the slash: that event on that PMU alone. False for
 * a name of another form.
 */
bool
cpclib_resolve_core_generic(cpc_t *cpc, const char *name, struct ev_result *r)
{
	char pmu[64], word[64];
	const char *slash = strchr(name, '/'), *close, *mods;
	const struct sysfs_pmu *sp;
	struct perf_event_attr alias;
	struct ev_result legacy;
	int core;

	if (slash == NULL || (close = strchr(slash + 1, '/')) == NULL ||
	    (size_t)(slash - name) >= sizeof(pmu) ||
	    (size_t)(close - slash) > sizeof(word))
		return false;
	memcpy(pmu, name, (size_t)(slash - name));
	pmu[slash - name] = '\0';
	memcpy(word, slash + 1, (size_t)(close - slash - 1));
	word[close - slash - 1] = '\0';
	mods = close[1] == ':' ? close + 2 : close + 1;
	if ((sp = cpclib_sysfs_pmu(cpc, pmu)) == NULL ||
	    (core = cpclib_core_of_type(cpc, (uint32_t)sp->type)) < 0 ||
	    strpbrk(word, "=,") != NULL ||
	    cpclib_sysfs_alias_attr(sp, word, &alias))
		return false;
	ev_result_init(&legacy);
	if (!cpclib_resolve_legacy(cpc, word, &legacy) ||
	    legacy.status != CPC_EVENT_COUNTABLE || !legacy.hardware)
		return false;
	*r = legacy;
	r->kind = "pmu";
	if (cpc->ncore > 1)
		ev_desc(r, "%s, on the %s PMU's CPUs only", legacy.desc, pmu);
	if (cpc->ncore > 1 &&
	    !generic_on(cpc, &cpc->core[core], &legacy.term[0], &r->term[0]))
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "this kernel cannot open %s on %s alone: name the PMU's "
		    "own event (%s/EVENT/)",
		    word, pmu, pmu);
	else if (*mods != '\0')
		(void)cpclib_apply_modifiers(mods, r);
	return true;
}
