/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Five server CPUs as libpfm4 describes them and Debian 12's kernel
 * (linux-source-6.1 6.1.192-2) counts them: Skylake-X, Ice Lake-X,
 * Sapphire Rapids, Zen 3 and Zen 4, each forced with LIBPFM_FORCE_PMU in
 * a process of its own (libpfm4 reads it once), with that CPU's kernel
 * PMUs read from a recorded /sys of such a machine (tests/unit/
 * sysfs-trees, through libcpc's test-only sysfs root). On each:
 *
 *  - perf's generic hardware names encode as the kernel's generic events,
 *    and the native event the kernel counts for each on that model is one
 *    libpfm4's model names and encodes to the very same config;
 *  - every generic PAPI_* name of generic_events(3CPC) counts or says in
 *    one line why it cannot, never unknown; PAPI_tot_cyc and PAPI_tot_ins
 *    count what cycles and instructions count;
 *  - the catalog, which cputrack -h and --list print, walks a native name
 *    exactly when it is countable, and the model's well-known events all;
 *  - libpfm4's counter counts against the vendors' documents, and what
 *    libcpc keeps of them (what cpustat's refusals name): where libpfm4
 *    differs from the vendor, the difference is pinned and printed, and
 *    libcpc keeps the vendor's count.
 *
 * test_cpc_presets checks the PAPI names against PAPI's own tables on
 * every PMU; this test does not repeat that.
 */
#include <limits.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/wait.h>

#include "recorded.h"
#include "test_cpc.h"
#include "../../libcpc/evname.h"

/*
 * The privilege bits of the x86 event select (ARCH_PERFMON_EVENTSEL_USR
 * and _OS, arch/x86/include/asm/perf_event.h). libpfm4's perf_event
 * encoding carries the privilege levels in exclude_user/exclude_kernel,
 * and libcpc keeps only config: neither may be in it.
 */
#define EVSEL_PLM ((1ULL << 16) | (1ULL << 17))

/* perf's generic hardware names and the kernel's number for each. */
static const struct {
	const char *name;
	uint64_t hw;
} perf_hw[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
};

/*
 * What the kernel counts for a perf name on a model (0: nothing, the
 * event map's entry is 0 and x86_setup_perfctr answers -ENOENT), and
 * libpfm4's name of that native event (NULL: the model has none).
 */
struct native {
	const char *perf;
	uint64_t kernel;
	const char *pfm;
};

/*
 * Intel: arch/x86/events/intel/core.c, intel_perfmon_event_map, Linux
 * 6.1. intel_pmu_init's cases for SKYLAKE_X, ICELAKE_X and
 * SAPPHIRERAPIDS_X leave the map as it is, so stalled-cycles-* are 0 on
 * all three. ref-cycles' 0x0300 is the kernel's pseudo-encoding of fixed
 * counter 2, and libpfm4's encoding of UNHALTED_REFERENCE_CYCLES too.
 * libpfm4 4.13 has no LLC_REFERENCES or LLC_MISSES on these models:
 * LONGEST_LAT_CACHE's umasks are those events (REFERENCES on icx).
 */
static const struct native skx_map[] = {
	{ "cycles", 0x003c, "UNHALTED_CORE_CYCLES" },
	{ "instructions", 0x00c0, "INSTRUCTION_RETIRED" },
	{ "branches", 0x00c4, "BRANCH_INSTRUCTIONS_RETIRED" },
	{ "branch-misses", 0x00c5, "MISPREDICTED_BRANCH_RETIRED" },
	{ "cache-references", 0x4f2e, "LONGEST_LAT_CACHE:REFERENCE" },
	{ "cache-misses", 0x412e, "LONGEST_LAT_CACHE:MISS" },
	{ "ref-cycles", 0x0300, "UNHALTED_REFERENCE_CYCLES" },
	{ "bus-cycles", 0x013c, "CPU_CLK_UNHALTED:REF_XCLK" },
	{ "stalled-cycles-frontend", 0, NULL },
	{ "stalled-cycles-backend", 0, NULL },
	{ NULL, 0, NULL },
};

/* Ice Lake and Sapphire Rapids name no architectural branch events. */
static const struct native icx_map[] = {
	{ "cycles", 0x003c, "UNHALTED_CORE_CYCLES" },
	{ "instructions", 0x00c0, "INSTRUCTION_RETIRED" },
	{ "branches", 0x00c4, "BR_INST_RETIRED:ALL_BRANCHES" },
	{ "branch-misses", 0x00c5, "BR_MISP_RETIRED:ALL_BRANCHES" },
	{ "cache-references", 0x4f2e, "LONGEST_LAT_CACHE:REFERENCES" },
	{ "cache-misses", 0x412e, "LONGEST_LAT_CACHE:MISS" },
	{ "ref-cycles", 0x0300, "UNHALTED_REFERENCE_CYCLES" },
	{ "bus-cycles", 0x013c, "CPU_CLK_UNHALTED:REF_XCLK" },
	{ "stalled-cycles-frontend", 0, NULL },
	{ "stalled-cycles-backend", 0, NULL },
	{ NULL, 0, NULL },
};

/* Sapphire Rapids calls 0x013c REF_TSC_P (icx: REF_XCLK). */
static const struct native spr_map[] = {
	{ "cycles", 0x003c, "UNHALTED_CORE_CYCLES" },
	{ "instructions", 0x00c0, "INSTRUCTION_RETIRED" },
	{ "branches", 0x00c4, "BR_INST_RETIRED:ALL_BRANCHES" },
	{ "branch-misses", 0x00c5, "BR_MISP_RETIRED:ALL_BRANCHES" },
	{ "cache-references", 0x4f2e, "LONGEST_LAT_CACHE:REFERENCE" },
	{ "cache-misses", 0x412e, "LONGEST_LAT_CACHE:MISS" },
	{ "ref-cycles", 0x0300, "UNHALTED_REFERENCE_CYCLES" },
	{ "bus-cycles", 0x013c, "CPU_CLK_UNHALTED:REF_TSC_P" },
	{ "stalled-cycles-frontend", 0, NULL },
	{ "stalled-cycles-backend", 0, NULL },
	{ NULL, 0, NULL },
};

/*
 * AMD: arch/x86/events/amd/core.c, amd_f17h_perfmon_event_map, Linux
 * 6.1: amd_pmu_event_map takes it for boot_cpu_data.x86 >= 0x17, and
 * Zen 3 and Zen 4 are family 0x19 (6.1 has no amd_zen2/zen4 maps; later
 * kernels count stalled-cycles-frontend as 0x00a9 and drop -backend).
 * ref-cycles and bus-cycles have no entry. The stalled-cycles events
 * (event 0x87) are not in libpfm4's Zen 3 or Zen 4 tables at all.
 * cache-references' umask 0xff sets bit 0, which libpfm4's Zen 4 table
 * calls MISC and its Zen 3 table does not name: there it is a raw umask.
 */
static const struct native zen3_map[] = {
	{ "cycles", 0x0076, "CYCLES_NOT_IN_HALT" },
	{ "instructions", 0x00c0, "RETIRED_INSTRUCTIONS" },
	{ "branches", 0x00c2, "RETIRED_BRANCH_INSTRUCTIONS" },
	{ "branch-misses", 0x00c3, "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" },
	{ "cache-references", 0xff60, "REQUESTS_TO_L2_GROUP1:0xff" },
	{ "cache-misses", 0x0964,
	    "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:"
	    "IC_FILL_MISS" },
	{ "ref-cycles", 0, NULL },
	{ "bus-cycles", 0, NULL },
	{ "stalled-cycles-frontend", 0x0287, NULL },
	{ "stalled-cycles-backend", 0x0187, NULL },
	{ NULL, 0, NULL },
};

static const struct native zen4_map[] = {
	{ "cycles", 0x0076, "CYCLES_NOT_IN_HALT" },
	{ "instructions", 0x00c0, "RETIRED_INSTRUCTIONS" },
	{ "branches", 0x00c2, "RETIRED_BRANCH_INSTRUCTIONS" },
	{ "branch-misses", 0x00c3, "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" },
	{ "cache-references", 0xff60,
	    "REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S:"
	    "CACHEABLE_IC_READ:CHANGE_TO_X:PREFETCH_L2_CMD:L2_HW_PF:MISC" },
	{ "cache-misses", 0x0964,
	    "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:"
	    "IC_FILL_MISS" },
	{ "ref-cycles", 0, NULL },
	{ "bus-cycles", 0, NULL },
	{ "stalled-cycles-frontend", 0x0287, NULL },
	{ "stalled-cycles-backend", 0x0187, NULL },
	{ NULL, 0, NULL },
};

/*
 * The models, and their counters as the vendors document them:
 * general-purpose counters per logical processor with SMT on and off,
 * and fixed-function ones.
 *
 * Intel: the core events of Intel's event lists as the same kernel tree
 * carries them (tools/perf/pmu-events/arch/x86/<model>/pipeline.json,
 * Linux 6.1): skylakex's run on "Counter": "0,1,2,3" and "CounterHTOff":
 * "0,1,2,3,4,5,6,7" (4 with HT on, 8 with it off); icelakex's and
 * sapphirerapids' on "0,1,2,3,4,5,6,7" with no HT-off list (8 either
 * way). The fixed counters: "Fixed counter 0".."2" on skylakex, and
 * "Fixed counter 3" (TOPDOWN.SLOTS) too on the other two. The kernel
 * (arch/x86/events/intel/core.c, 6.1) agrees: intel_skl_event_constraints
 * has fixed counters 0-2 only; intel_icl_event_constraints and
 * intel_spr_event_constraints put SLOTS (0x0400) on fixed counter 3 and
 * some events on counter mask 0xff, 8 general counters, with no HT case.
 *
 * AMD: AMD64 APM Vol. 2, "Core Performance Monitor Counters": six
 * counters (PerfCtr0-5) where CPUID Fn8000_0001_ECX[PerfCtrExtCore] is
 * set, as on every Zen. Linux 6.1 amd_core_pmu_init (amd/core.c) takes
 * AMD64_NUM_COUNTERS_CORE, 6 (arch/x86/include/asm/perf_event.h), or
 * with PerfMonV2 (Zen 4) CPUID 0x80000022 EBX NumPerfCtrCore. No fixed
 * counters.
 *
 * pfm_general: libpfm4 4.13's num_cntrs where it differs from the
 * vendor's largest count (libpfm4's man pages: it is "the maximum number
 * of generic counters"), 0 where it agrees. libpfm4 says 16 for icx and
 * spr; its pfmlib_intel_icl.c gives the reason, "consider with HT off by
 * default": an HT-off doubling that Ice Lake and later cores do not have.
 */
struct model {
	const char *pmu;
	const char *tree; /* tests/unit/sysfs-trees/ */
	const struct native *map;
	uint_t general_smt, general, fixed;
	uint_t pfm_general;
	const char *vendor;
};

static const struct model models[] = {
	{ "skx", "intel-skylakex", skx_map, 4, 8, 3, 0, "Intel" },
	{ "icx", "intel-icelakex", icx_map, 8, 8, 4, 16, "Intel" },
	{ "spr", "intel-sapphirerapids", spr_map, 8, 8, 4, 16, "Intel" },
	{ "amd64_fam19h_zen3", "amd-zen3", zen3_map, 6, 6, 0, 0, "AMD" },
	{ "amd64_fam19h_zen4", "amd-zen4", zen4_map, 6, 6, 0, 0, "AMD" },
};

#define NMODELS (sizeof(models) / sizeof(models[0]))

static const struct model *
model_of(const char *pmu)
{
	size_t i;

	for (i = 0; i < NMODELS; i++)
		if (strcmp(models[i].pmu, pmu) == 0)
			return &models[i];
	return NULL;
}

/* libpfm4's description of a core PMU by name; false if it has none. */
static bool
pfm_pmu_by_name(const char *name, pfm_pmu_info_t *info)
{
	pfm_pmu_t p;

	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(info, 0, sizeof(*info));
		info->size = sizeof(*info);
		if (pfm_get_pmu_info(p, info) == PFM_SUCCESS &&
		    info->type == PFM_PMU_TYPE_CORE &&
		    strcmp(info->name, name) == 0)
			return true;
	}
	return false;
}

/* The perf type of the core PMU's raw codes, as libcpc gives them. */
static bool
raw_type(const cpc_t *cpc, uint32_t type)
{
	return type == PERF_TYPE_RAW ||
	    (cpc->pmu_type >= 0 && type == (uint32_t)cpc->pmu_type);
}

/* Hardware names: NO_PMU on a kernel without a PMU, else not unknown. */
static void
check_hw_status(cpc_t *cpc, const struct ev_entry_view *v)
{
	if (cpc_pmu_name(cpc) == NULL) {
		CHECK(v->status == CPC_EVENT_NO_PMU);
		CHECK(strstr(v->why, "no hardware counters") != NULL);
	} else {
		CHECK(v->status != CPC_EVENT_UNKNOWN);
	}
}

/* perf's generic names: one PERF_TYPE_HARDWARE term of the right config. */
static void
check_perf_names(cpc_t *cpc)
{
	struct ev_entry_view v;
	size_t i;

	for (i = 0; i < sizeof(perf_hw) / sizeof(perf_hw[0]); i++) {
		CHECK(cpclib_event_view(cpc, perf_hw[i].name, &v));
		CHECK(v.kind != NULL && strcmp(v.kind, "hardware") == 0);
		CHECK(v.enc.nterms == 1);
		if (v.enc.nterms != 1)
			continue;
		CHECK(v.enc.term[0].attr.type == PERF_TYPE_HARDWARE);
		CHECK_EQ_U64(v.enc.term[0].attr.config, perf_hw[i].hw);
		CHECK(v.enc.term[0].sign == 1);
		check_hw_status(cpc, &v);
	}
}

/* libpfm4's code for the kernel's x86 config: event bits 0-7, 32-35. */
static uint64_t
event_code(uint64_t config)
{
	return (config & 0xff) | ((config >> 24) & 0xf00);
}

/* Whether the model has an event of this code under any name. */
static bool
model_has_code(const pfm_pmu_info_t *pinfo, uint64_t code)
{
	pfm_event_info_t e;
	int idx;

	for (idx = pinfo->first_event; idx != -1;
	     idx = pfm_get_event_next(idx)) {
		memset(&e, 0, sizeof(e));
		e.size = sizeof(e);
		if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &e) ==
			PFM_SUCCESS &&
		    e.code == code)
			return true;
	}
	return false;
}

/* The native event the kernel maps a perf name to, through libcpc. */
static void
check_native(cpc_t *cpc, const pfm_pmu_info_t *pinfo, const struct native *n)
{
	char name[CPC_MAX_EVENT_LEN], head[CPC_MAX_EVENT_LEN];
	struct ev_entry_view v;
	const struct perf_event_attr *a;

	if (n->pfm == NULL) {
		/* Then libpfm4's model must not know it by any name. */
		CHECK(!model_has_code(pinfo, event_code(n->kernel)));
		printf("%s: %s is 0x%04llx in Linux 6.1, an event (0x%llx) "
		       "libpfm4's model does not know\n",
		    pinfo->name, n->perf, (unsigned long long)n->kernel,
		    (unsigned long long)event_code(n->kernel));
		return;
	}
	snprintf(name, sizeof(name), "%s::%s", pinfo->name, n->pfm);
	CHECK(cpclib_event_view(cpc, name, &v));
	if (v.enc.nterms != 1 || v.kind == NULL ||
	    strcmp(v.kind, "libpfm4") != 0) {
		fprintf(stderr, "%s: %d terms, kind %s: %s\n", name,
		    v.enc.nterms, v.kind != NULL ? v.kind : "none", v.why);
		CHECK(!"libpfm4's model encodes the kernel's native event");
		return;
	}
	a = &v.enc.term[0].attr;
	CHECK(raw_type(cpc, a->type));
	CHECK((a->config & EVSEL_PLM) == 0);
	if (a->config != n->kernel)
		fprintf(stderr, "%s: 0x%llx, the kernel's %s is 0x%llx\n", name,
		    (unsigned long long)a->config, n->perf,
		    (unsigned long long)n->kernel);
	CHECK_EQ_U64(a->config, n->kernel);
	CHECK_EQ_U64(a->config1, 0);
	/*
	 * Described by an event of the model's own table: libpfm4 describes
	 * an alias (skx's BRANCH_INSTRUCTIONS_RETIRED) as the event it
	 * stands for (BR_INST_RETIRED).
	 */
	snprintf(head, sizeof(head), "%s::", pinfo->name);
	if (v.desc == NULL || strncmp(v.desc, head, strlen(head)) != 0)
		fprintf(stderr, "%s: described as %s\n", name, v.desc);
	CHECK(v.desc != NULL && strncmp(v.desc, head, strlen(head)) == 0);
	check_hw_status(cpc, &v);
}

/* Every perf name the kernel maps on the model, natively. */
static void
check_kernel_map(cpc_t *cpc, const struct model *m, const pfm_pmu_info_t *pinfo)
{
	const struct native *n;
	int mapped = 0, named = 0;
	size_t i;
	bool listed;

	/* The table covers exactly the perf names above, each once. */
	for (n = m->map; n->perf != NULL; n++) {
		for (i = 0, listed = false;
		     i < sizeof(perf_hw) / sizeof(perf_hw[0]); i++)
			listed |= strcmp(perf_hw[i].name, n->perf) == 0;
		CHECK(listed);
		if (n->kernel == 0)
			continue;
		mapped++;
		named += n->pfm != NULL;
		check_native(cpc, pinfo, n);
	}
	CHECK(n - m->map == 10);
	printf("%s: Linux 6.1 maps %d of perf's 10 generic hardware events "
	       "here; libpfm4 names and encodes %d of them identically\n",
	    m->pmu, mapped, named);
}

/*
 * Zen's REQUESTS_TO_L2_GROUP1: the umask bits libpfm4's model names,
 * against the 0xff the kernel's cache-references sets.
 */
static void
check_l2_umasks(const pfm_pmu_info_t *pinfo)
{
	pfm_event_attr_info_t ai;
	char name[128];
	uint64_t bits = 0;
	int idx, a;

	snprintf(name, sizeof(name), "%s::REQUESTS_TO_L2_GROUP1", pinfo->name);
	idx = pfm_find_event(name);
	CHECK(idx >= 0);
	for (a = 0; idx >= 0; a++) {
		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(
			idx, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS)
			break;
		if (ai.type == PFM_ATTR_UMASK)
			bits |= ai.code;
	}
	/* Zen 3's table leaves bit 0 unnamed; Zen 4's calls it MISC. */
	CHECK_EQ_U64(
	    bits, strcmp(pinfo->name, "amd64_fam19h_zen3") == 0 ? 0xfe : 0xff);
	if (bits != 0xff)
		printf(
		    "%s: REQUESTS_TO_L2_GROUP1's named umasks make 0x%02llx, "
		    "not the kernel's 0xff: cache-references needs the raw "
		    "umask\n",
		    pinfo->name, (unsigned long long)bits);
}

/*
 * The generic names generic_events(3CPC) documents: its table's rows,
 * "PAPI_name<TAB>meaning". The page is found beside this source.
 */
static int
documented_names(char names[][32], int max)
{
	char path[PATH_MAX], line[256];
	const char *slash = strrchr(__FILE__, '/');
	FILE *f;
	int n = 0, i;

	if (slash == NULL)
		return -1;
	snprintf(path, sizeof(path), "%.*s/../../man3/generic_events.3cpc",
	    (int)(slash - __FILE__), __FILE__);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (n < max && fgets(line, sizeof(line), f) != NULL) {
		size_t len = strcspn(line, "\t");

		if (strncmp(line, "PAPI_", 5) != 0 || line[len] != '\t' ||
		    len >= sizeof(names[0]))
			continue;
		line[len] = '\0';
		/* The second table repeats some names of the first. */
		for (i = 0; i < n && strcmp(names[i], line) != 0; i++)
			;
		if (i == n)
			memcpy(names[n++], line, len + 1);
	}
	fclose(f);
	return n;
}

static bool
in_library(const char *name)
{
	size_t i;

	for (i = 0; i < cpclib_generic_count(); i++)
		if (strcasecmp(cpclib_generic_name(i), name) == 0)
			return true;
	return false;
}

struct papi_tally {
	int maps, derived, none, lacking;
	char lacking_names[256];
};

/* One generic name: counts, or one line saying why not. */
static void
check_papi(cpc_t *cpc, const char *name, struct papi_tally *t)
{
	struct ev_entry_view v;

	CHECK(cpclib_event_view(cpc, name, &v));
	CHECK(v.status != CPC_EVENT_UNKNOWN);
	CHECK(v.kind != NULL && strcmp(v.kind, "generic") == 0);
	if (v.status == CPC_EVENT_NO_EQUIVALENT) {
		CHECK(strncmp(v.why, "no equivalent on this CPU", 25) == 0);
		CHECK(strchr(v.why, '\n') == NULL);
		t->none++;
	} else if (v.status == CPC_EVENT_UNSUPPORTED) {
		/* PAPI's table names an event this libpfm4 cannot encode. */
		CHECK(strstr(v.why, "libpfm4 cannot encode") != NULL);
		CHECK(strchr(v.why, '\n') == NULL);
		t->lacking++;
		strlcat(t->lacking_names, " ", sizeof(t->lacking_names));
		strlcat(t->lacking_names, name, sizeof(t->lacking_names));
	} else {
		CHECK(v.status == CPC_EVENT_COUNTABLE ||
		    v.status == CPC_EVENT_NO_PMU ||
		    v.status == CPC_EVENT_NO_PERMISSION);
		CHECK(v.enc.nterms >= 1);
		t->maps++;
		t->derived += v.enc.nterms > 1;
	}
}

/*
 * PAPI_tot_cyc and PAPI_tot_ins: perf's own cycles and instructions, or
 * the one native event the kernel counts for them on this model. What
 * they count goes to what, for the summary.
 */
static void
check_papi_total(cpc_t *cpc, const struct model *m, const char *papi,
    const char *perf, uint64_t hw, char *what, size_t len)
{
	struct ev_entry_view v;
	const struct native *n;
	uint64_t native = 0;

	snprintf(what, len, "?");
	for (n = m->map; n->perf != NULL; n++)
		if (strcmp(n->perf, perf) == 0)
			native = n->kernel;
	CHECK(native != 0);
	CHECK(cpclib_event_view(cpc, papi, &v));
	CHECK(v.enc.nterms == 1);
	if (v.enc.nterms != 1)
		return;
	if (v.enc.term[0].attr.type == PERF_TYPE_HARDWARE) {
		CHECK_EQ_U64(v.enc.term[0].attr.config, hw);
		snprintf(what, len, "%s", perf);
	} else {
		CHECK(raw_type(cpc, v.enc.term[0].attr.type));
		CHECK_EQ_U64(v.enc.term[0].attr.config, native);
		snprintf(what, len, "0x%04llx",
		    (unsigned long long)v.enc.term[0].attr.config);
	}
	CHECK(v.enc.term[0].sign == 1);
}

static void
check_generic_names(cpc_t *cpc, const struct model *m)
{
	char doc[160][32], cyc[32], ins[32];
	struct papi_tally t = { 0 };
	int ndoc, i, extra = 0;
	size_t g;

	ndoc = documented_names(doc, 160);
	CHECK(ndoc > 100);
	for (i = 0; i < ndoc; i++) {
		CHECK(in_library(doc[i]));
		check_papi(cpc, doc[i], &t);
	}
	/* The library's names that the page does not list, if any. */
	for (g = 0; g < cpclib_generic_count(); g++) {
		for (i = 0; i < ndoc; i++)
			if (strcasecmp(doc[i], cpclib_generic_name(g)) == 0)
				break;
		if (i < ndoc)
			continue;
		check_papi(cpc, cpclib_generic_name(g), &t);
		extra++;
	}
	CHECK(extra == 0);
	check_papi_total(cpc, m, "PAPI_tot_cyc", "cycles",
	    PERF_COUNT_HW_CPU_CYCLES, cyc, sizeof(cyc));
	check_papi_total(cpc, m, "PAPI_tot_ins", "instructions",
	    PERF_COUNT_HW_INSTRUCTIONS, ins, sizeof(ins));
	printf("%s: %d generic names: %d map (%d derived), %d have no "
	       "equivalent, %d name events libpfm4 cannot encode%s%s; "
	       "PAPI_tot_cyc %s, PAPI_tot_ins %s, as cycles and "
	       "instructions\n",
	    m->pmu, ndoc + extra, t.maps, t.derived, t.none, t.lacking,
	    t.lacking > 0 ? ":" : "", t.lacking_names, cyc, ins);
}

/* The names a walker gives, sorted, to look up. */
struct walked {
	const char **name;
	int n, alloc;
};

static void
collect(struct walked *w, const char *event)
{
	const char **grown;

	if (w->n == w->alloc) {
		w->alloc = w->alloc > 0 ? 2 * w->alloc : 1024;
		grown = reallocarray(w->name, (size_t)w->alloc, sizeof(*grown));
		CHECK(grown != NULL);
		if (grown == NULL)
			exit(1);
		w->name = grown;
	}
	w->name[w->n++] = event;
}

static void
collect_described(
    void *arg, const char *event, const char *kind, const char *desc)
{
	(void)kind;
	(void)desc;
	collect(arg, event);
}

static void
collect_all(void *arg, const char *event)
{
	collect(arg, event);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool
was_walked(const struct walked *w, const char *name)
{
	return bsearch(&name, w->name, (size_t)w->n, sizeof(*w->name),
		   by_name) != NULL;
}

struct listing {
	struct walked described, all;
	int names, known, countable, listed, bare_listed;
};

/* A native name is walked, by both walkers, exactly when it counts. */
static void
check_listed(cpc_t *cpc, struct listing *l, const char *name, bool bare)
{
	cpc_event_status_t st = cpc_event_status(cpc, name, NULL, 0);
	bool walked = was_walked(&l->described, name);

	l->names++;
	l->known += st != CPC_EVENT_UNKNOWN;
	l->countable += st == CPC_EVENT_COUNTABLE;
	l->listed += walked;
	l->bare_listed += walked && bare;
	if (walked != (st == CPC_EVENT_COUNTABLE))
		fprintf(stderr, "%s: status %d, %s\n", name, st,
		    walked ? "walked" : "not walked");
	CHECK(walked == (st == CPC_EVENT_COUNTABLE));
	CHECK(was_walked(&l->all, name) == walked);
	if (cpc_pmu_name(cpc) == NULL)
		CHECK(st != CPC_EVENT_COUNTABLE);
}

/* Each event of the model: pmu::EVENT, EVENT, and pmu::EVENT:UMASK. */
static void
list_event(cpc_t *cpc, struct listing *l, const pfm_pmu_info_t *pinfo, int idx)
{
	char name[CPC_MAX_EVENT_LEN];
	pfm_event_attr_info_t ai;
	pfm_event_info_t e;
	int a;

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &e) != PFM_SUCCESS)
		return;
	snprintf(name, sizeof(name), "%s::%s", pinfo->name, e.name);
	check_listed(cpc, l, name, false);
	check_listed(cpc, l, e.name, true);
	for (a = 0; a < e.nattrs; a++) {
		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(
			idx, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
		    ai.type != PFM_ATTR_UMASK)
			continue;
		snprintf(name, sizeof(name), "%s::%s:%s", pinfo->name, e.name,
		    ai.name);
		check_listed(cpc, l, name, false);
	}
}

/*
 * What cputrack -h and --list print (cmd/common/caps.c) is the described
 * walk of the catalog: -h its names without "::", --list all of them.
 */
static void
check_listing(cpc_t *cpc, const struct model *m, const pfm_pmu_info_t *pinfo)
{
	struct listing l = { 0 };
	const struct native *n;
	char name[CPC_MAX_EVENT_LEN];
	int idx, wellknown = 0, wellknown_listed = 0;

	cpc_walk_events_described(cpc, &l.described, collect_described);
	cpc_walk_events_all(cpc, &l.all, collect_all);
	CHECK(l.described.n > 0 && l.all.n > 0);
	qsort(l.described.name, (size_t)l.described.n, sizeof(char *), by_name);
	qsort(l.all.name, (size_t)l.all.n, sizeof(char *), by_name);
	for (idx = pinfo->first_event; idx != -1; idx = pfm_get_event_next(idx))
		list_event(cpc, &l, pinfo, idx);
	CHECK(l.names > 2 * pinfo->nevents);
	/* The native events of the kernel's map, the best known. */
	for (n = m->map; n->perf != NULL; n++) {
		if (n->pfm == NULL)
			continue;
		snprintf(name, sizeof(name), "%s::%s", pinfo->name, n->pfm);
		wellknown++;
		wellknown_listed += was_walked(&l.described, name);
	}
	printf("%s: %d native names (%d events), %d known to libcpc, %d "
	       "countable here, %d listed (%d bare, as -h prints them); "
	       "%d of %d well-known listed%s\n",
	    m->pmu, l.names, pinfo->nevents, l.known, l.countable, l.listed,
	    l.bare_listed, wellknown_listed, wellknown,
	    cpc_pmu_name(cpc) == NULL ?
		": this kernel has no core PMU, and the catalog lists only "
		"countable names" :
		"");
	/*
	 * With the machine's core PMU, each counts, and the catalog lists
	 * each one named without a umask (it lists umasks one by one, by
	 * their names, not raw umasks or the combinations some of these
	 * are).
	 */
	for (n = m->map; cpc_pmu_name(cpc) != NULL && n->perf != NULL; n++) {
		if (n->pfm == NULL)
			continue;
		snprintf(name, sizeof(name), "%s::%s", pinfo->name, n->pfm);
		CHECK(cpc_event_status(cpc, name, NULL, 0) ==
		    CPC_EVENT_COUNTABLE);
		if (strchr(n->pfm, ':') == NULL)
			CHECK(was_walked(&l.described, name));
	}
	if (cpc_pmu_name(cpc) != NULL)
		CHECK(l.bare_listed > 0);
	free(l.described.name);
	free(l.all.name);
}

/*
 * libpfm4's counts against the vendor's, and what libcpc makes of them:
 * its core PMU's counters are the vendor's (libpfm4's where they agree;
 * on a live machine, CPUID's), and cpc_npic(3CPC) is those, general and
 * fixed, at least 8, where the kernel has a core PMU; 8 where it has none.
 */
static void
check_counters(cpc_t *cpc, const struct model *m, const pfm_pmu_info_t *pinfo)
{
	uint_t want = m->pfm_general != 0 ? m->pfm_general : m->general;
	uint_t sum = (uint_t)(pinfo->num_cntrs + pinfo->num_fixed_cntrs);

	CHECK_EQ_U64(pinfo->num_cntrs, want);
	CHECK_EQ_U64(pinfo->num_fixed_cntrs, m->fixed);
	if (m->pfm_general != 0)
		printf("%s: libpfm4 says %d general-purpose counters; %s "
		       "documents %u per logical processor, SMT on or off\n",
		    m->pmu, pinfo->num_cntrs, m->vendor, m->general);
	if (cpc_pmu_name(cpc) == NULL) {
		CHECK_EQ_U64(cpc_npic(cpc), 8);
		printf("%s: libpfm4 %d+%d counters (vendor: %u, %u with SMT "
		       "off, +%u fixed); cpc_npic 8: no kernel PMU, so libcpc "
		       "keeps no counts\n",
		    m->pmu, pinfo->num_cntrs, pinfo->num_fixed_cntrs,
		    m->general_smt, m->general, m->fixed);
		return;
	}
	sum = m->general + m->fixed;
	/* First: a recorded machine's counts are its model's, asked here. */
	CHECK_EQ_U64(cpc_npic(cpc), sum > 8 ? sum : 8);
	CHECK_EQ_U64(cpc->ncore, 1);
	CHECK_EQ_U64(cpc->core[0].general, m->general);
	CHECK_EQ_U64(cpc->core[0].fixed, m->fixed);
	printf("%s: libcpc keeps %u general + %u fixed counters, cpc_npic "
	       "%u\n",
	    m->pmu, cpc->core[0].general, cpc->core[0].fixed, cpc_npic(cpc));
}

/* In a process where libpfm4 takes this CPU to be pmu. */
static int
child_model(const char *pmu)
{
	const struct model *m = model_of(pmu);
	char root[512];
	cpc_t *cpc;
	pfm_pmu_info_t pinfo;
	const char *name;

	if (m != NULL) {
		snprintf(root, sizeof(root), "%s/tests/unit/sysfs-trees/%s",
		    SOURCE_DIR, m->tree);
		cpclib_set_sysfs_root(root, 1);
	}
	cpc = cpc_open(CPC_VER_CURRENT);

	CHECK(m != NULL && cpc != NULL);
	if (m == NULL || cpc == NULL)
		return check_report(pmu);
	name = cpclib_pfm_pmu_name(cpc);
	CHECK(name != NULL && strcmp(name, pmu) == 0);
	CHECK(pfm_pmu_by_name(pmu, &pinfo) && pinfo.is_present);
	check_perf_names(cpc);
	check_kernel_map(cpc, m, &pinfo);
	if (strncmp(pmu, "amd64", 5) == 0)
		check_l2_umasks(&pinfo);
	check_generic_names(cpc, m);
	check_listing(cpc, m, &pinfo);
	check_counters(cpc, m, &pinfo);
	cpc_close(cpc);
	return check_report(pmu);
}

/* Each model in a child of its own, this program run again. */
static void
run_model(const char *self, const char *pmu)
{
	char *argv[4];
	int status;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		argv[0] = (char *)self;
		argv[1] = "--pmu";
		argv[2] = (char *)pmu;
		argv[3] = NULL;
		execv(self, argv);
		_exit(127);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (pid <= 0)
		return;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fprintf(stderr, "%s: failed\n", pmu);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int
main(int argc, char **argv)
{
	pfm_pmu_info_t info;
	char self[4096];
	ssize_t len;
	size_t i;

	if (argc == 3 && strcmp(argv[1], "--pmu") == 0)
		return child_model(argv[2]);
	/*
	 * Whether libpfm4 has each model, whatever the host's: with a model
	 * forced, libpfm4 maps no PMU after it.
	 */
	recorded_no_model();
	if (pfm_initialize() != PFM_SUCCESS)
		SKIP("libpfm4 does not initialize");
	if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		SKIP("cannot find this program: %s", strerror(errno));
	self[len] = '\0';
	for (i = 0; i < NMODELS; i++) {
		if (!pfm_pmu_by_name(models[i].pmu, &info)) {
			/* One of the five: this libpfm4 is too old for it. */
			printf("%s: not a core PMU of this libpfm4\n",
			    models[i].pmu);
			CHECK(!"every model is in libpfm4");
			continue;
		}
		run_model(self, models[i].pmu);
	}
	return check_report("test_pfm_models");
}
