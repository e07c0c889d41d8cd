/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The names Solaris users remember: the generic PAPI_* events of
 * generic_events(3CPC), counted as PAPI's own preset tables count them
 * on this CPU (papi_presets.c), and the UltraSPARC names of old scripts,
 * counted by their nearest Linux event with a note saying so.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "evname.h"

struct generic_name {
	const char *name; /* illumos spelling */
	const char *meaning;
};

/*
 * generic_events(3CPC), the names its platform tables add, and PAPI's
 * later presets.
 */
static const struct generic_name generic_names[] = {
	{ "PAPI_br_cn", "conditional branch instructions" },
	{ "PAPI_br_ins", "branch instructions" },
	{ "PAPI_br_msp", "conditional branches mispredicted" },
	{ "PAPI_br_ntk", "conditional branches not taken" },
	{ "PAPI_br_prc", "conditional branches correctly predicted" },
	{ "PAPI_br_ucn", "unconditional branch instructions" },
	{ "PAPI_bru_idl", "cycles the branch units are idle" },
	{ "PAPI_btac_m", "branch target address cache misses" },
	{ "PAPI_ca_cln",
	    "requests for exclusive access to a clean cache line" },
	{ "PAPI_ca_inv", "requests for cache line invalidation" },
	{ "PAPI_ca_itv", "requests for cache line intervention" },
	{ "PAPI_ca_shr",
	    "requests for exclusive access to a shared cache line" },
	{ "PAPI_ca_snp", "requests for a snoop" },
	{ "PAPI_csr_fal", "failed store conditional instructions" },
	{ "PAPI_csr_suc", "successful store conditional instructions" },
	{ "PAPI_csr_tot", "store conditional instructions" },
	{ "PAPI_fad_ins", "floating point add instructions" },
	{ "PAPI_fdv_ins", "floating point divide instructions" },
	{ "PAPI_fma_ins", "fused multiply-add instructions" },
	{ "PAPI_fml_ins", "floating point multiply instructions" },
	{ "PAPI_fnv_ins", "floating point inverse instructions" },
	{ "PAPI_fp_ops", "floating point operations" },
	{ "PAPI_fp_stal", "cycles the floating point units stall" },
	{ "PAPI_fpu_idl", "cycles the floating point units are idle" },
	{ "PAPI_fsq_ins", "floating point square root instructions" },
	{ "PAPI_ful_ccy", "cycles with the most instructions completed" },
	{ "PAPI_ful_icy", "cycles with the most instructions issued" },
	{ "PAPI_fxu_idl", "cycles the integer units are idle" },
	{ "PAPI_hw_int", "hardware interrupts" },
	{ "PAPI_int_ins", "integer instructions" },
	{ "PAPI_tot_cyc", "total cycles" },
	{ "PAPI_tot_iis", "instructions issued" },
	{ "PAPI_tot_ins", "instructions completed" },
	{ "PAPI_vec_ins", "vector (SIMD) instructions" },
	{ "PAPI_l1_dca", "L1 data cache accesses" },
	{ "PAPI_l1_dch", "L1 data cache hits" },
	{ "PAPI_l1_dcm", "L1 data cache misses" },
	{ "PAPI_l1_dcr", "L1 data cache reads" },
	{ "PAPI_l1_dcw", "L1 data cache writes" },
	{ "PAPI_l1_ica", "L1 instruction cache accesses" },
	{ "PAPI_l1_ich", "L1 instruction cache hits" },
	{ "PAPI_l1_icm", "L1 instruction cache misses" },
	{ "PAPI_l1_icr", "L1 instruction cache reads" },
	{ "PAPI_l1_icw", "L1 instruction cache writes" },
	{ "PAPI_l1_ldm", "L1 load misses" },
	{ "PAPI_l1_stm", "L1 store misses" },
	{ "PAPI_l1_tca", "L1 cache accesses" },
	{ "PAPI_l1_tch", "L1 cache hits" },
	{ "PAPI_l1_tcm", "L1 cache misses" },
	{ "PAPI_l1_tcr", "L1 cache reads" },
	{ "PAPI_l1_tcw", "L1 cache writes" },
	{ "PAPI_l2_dca", "L2 data cache accesses" },
	{ "PAPI_l2_dch", "L2 data cache hits" },
	{ "PAPI_l2_dcm", "L2 data cache misses" },
	{ "PAPI_l2_dcr", "L2 data cache reads" },
	{ "PAPI_l2_dcw", "L2 data cache writes" },
	{ "PAPI_l2_ica", "L2 instruction cache accesses" },
	{ "PAPI_l2_ich", "L2 instruction cache hits" },
	{ "PAPI_l2_icm", "L2 instruction cache misses" },
	{ "PAPI_l2_icr", "L2 instruction cache reads" },
	{ "PAPI_l2_icw", "L2 instruction cache writes" },
	{ "PAPI_l2_ldm", "L2 load misses" },
	{ "PAPI_l2_stm", "L2 store misses" },
	{ "PAPI_l2_tca", "L2 cache accesses" },
	{ "PAPI_l2_tch", "L2 cache hits" },
	{ "PAPI_l2_tcm", "L2 cache misses" },
	{ "PAPI_l2_tcr", "L2 cache reads" },
	{ "PAPI_l2_tcw", "L2 cache writes" },
	{ "PAPI_l3_dca", "L3 data cache accesses" },
	{ "PAPI_l3_dch", "L3 data cache hits" },
	{ "PAPI_l3_dcm", "L3 data cache misses" },
	{ "PAPI_l3_dcr", "L3 data cache reads" },
	{ "PAPI_l3_dcw", "L3 data cache writes" },
	{ "PAPI_l3_ica", "L3 instruction cache accesses" },
	{ "PAPI_l3_ich", "L3 instruction cache hits" },
	{ "PAPI_l3_icm", "L3 instruction cache misses" },
	{ "PAPI_l3_icr", "L3 instruction cache reads" },
	{ "PAPI_l3_icw", "L3 instruction cache writes" },
	{ "PAPI_l3_ldm", "L3 load misses" },
	{ "PAPI_l3_stm", "L3 store misses" },
	{ "PAPI_l3_tca", "L3 cache accesses" },
	{ "PAPI_l3_tch", "L3 cache hits" },
	{ "PAPI_l3_tcm", "L3 cache misses" },
	{ "PAPI_l3_tcr", "L3 cache reads" },
	{ "PAPI_l3_tcw", "L3 cache writes" },
	{ "PAPI_ld_ins", "load instructions" },
	{ "PAPI_lst_ins", "load and store instructions" },
	{ "PAPI_lsu_idl", "cycles the load/store units are idle" },
	{ "PAPI_mem_rcy", "cycles stalled on memory reads" },
	{ "PAPI_mem_scy", "cycles stalled on memory accesses" },
	{ "PAPI_mem_wcy", "cycles stalled on memory writes" },
	{ "PAPI_prf_dm", "data prefetch cache misses" },
	{ "PAPI_res_stl", "cycles stalled on any resource" },
	{ "PAPI_sr_ins", "store instructions" },
	{ "PAPI_stl_ccy", "cycles no instruction completed" },
	{ "PAPI_syc_ins", "synchronization instructions" },
	{ "PAPI_tlb_dm", "data TLB misses" },
	{ "PAPI_tlb_im", "instruction TLB misses" },
	{ "PAPI_tlb_sd", "TLB shootdowns" },
	{ "PAPI_tlb_tl", "TLB misses, data and instruction" },
	{ "PAPI_br_tkn", "conditional branches taken" },
	{ "PAPI_tlb_tm", "TLB misses, data and instruction" },
	{ "PAPI_stl_icy", "cycles no instruction issued" },
	{ "PAPI_fp_ins", "floating point instructions" },
	/* PAPI's presets that generic_events(3CPC) predates. */
	{ "PAPI_ref_cyc", "reference clock cycles" },
	{ "PAPI_sp_ops", "single precision floating point operations" },
	{ "PAPI_dp_ops", "double precision floating point operations" },
	{ "PAPI_hp_ops", "half precision floating point operations" },
	{ "PAPI_vec_sp", "single precision vector (SIMD) instructions" },
	{ "PAPI_vec_dp", "double precision vector (SIMD) instructions" },
	{ "PAPI_vec_hp", "half precision vector (SIMD) instructions" },
};

/*
 * Where PAPI's tables have no section for the CPU (libpfm4 does not know
 * it, or PAPI does not), the generic events that count the same.
 */
struct fallback {
	const char *preset;
	const char *expr;
};
static const struct fallback generic_fallback[] = {
	{ "PAPI_TOT_CYC", "cycles" },
	{ "PAPI_TOT_INS", "instructions" },
	{ "PAPI_BR_INS", "branch-instructions" },
	{ "PAPI_BR_MSP", "branch-misses" },
	{ "PAPI_L1_DCR", "L1-dcache-loads" },
	{ "PAPI_L1_DCW", "L1-dcache-stores" },
	{ "PAPI_L1_LDM", "L1-dcache-load-misses" },
	{ "PAPI_L1_STM", "L1-dcache-store-misses" },
	{ "PAPI_L1_ICA", "L1-icache-loads" },
	{ "PAPI_L1_ICM", "L1-icache-load-misses" },
	{ "PAPI_L3_TCA", "cache-references" },
	{ "PAPI_L3_TCM", "cache-misses" },
	{ "PAPI_L3_DCR", "LLC-loads" },
	{ "PAPI_L3_LDM", "LLC-load-misses" },
	{ "PAPI_TLB_DM", "dTLB-load-misses" },
	{ "PAPI_TLB_IM", "iTLB-load-misses" },
};

/*
 * UltraSPARC names (UltraSPARC I-IV, T1, T2). expr is what counts it
 * here, in our own names; NULL when nothing does, and note says why.
 * exact: the same quantity, so no note is needed.
 */
struct sparc_name {
	const char *name;
	const char *meaning;
	const char *expr;
	bool exact;
	const char *note;
};
static const struct sparc_name sparc_names[] = {
	{ "Cycle_cnt", "cycles", "cycles", true, NULL },
	{ "Instr_cnt", "instructions completed", "instructions", true, NULL },
	{ "EC_ref", "E-cache references", "cache-references", false,
	    "LLC references (cache-references)" },
	{ "EC_hit", "E-cache hits", "cache-references - cache-misses", false,
	    "LLC hits (cache-references - cache-misses)" },
	{ "EC_misses", "E-cache misses", "cache-misses", false,
	    "LLC misses (cache-misses)" },
	{ "EC_rd_hit", "E-cache read hits", "LLC-loads - LLC-load-misses",
	    false, "LLC load hits (LLC-loads - LLC-load-misses)" },
	{ "EC_rd_miss", "E-cache read misses", "LLC-load-misses", false,
	    "LLC load misses (LLC-load-misses)" },
	{ "EC_ic_hit", "E-cache hits on instruction fetches", "PAPI_l3_ich",
	    false, "L3 instruction cache hits (PAPI_l3_ich)" },
	{ "EC_ic_miss", "E-cache misses on instruction fetches", "PAPI_l3_icm",
	    false, "L3 instruction cache misses (PAPI_l3_icm)" },
	{ "EC_snoop_inv", "E-cache invalidations by snoops", "PAPI_ca_inv",
	    false, "requests for cache line invalidation (PAPI_ca_inv)" },
	{ "EC_snoop_cb", "E-cache copybacks for snoops", "PAPI_ca_itv", false,
	    "requests for cache line intervention (PAPI_ca_itv)" },
	{ "EC_write_hit_RDO", "E-cache hits on read-to-own requests", NULL,
	    false,
	    "no Linux event counts read-to-own hits; the CPU's own "
	    "coherence events (-h) may" },
	{ "EC_wb", "E-cache writebacks", NULL, false,
	    "no generic Linux event counts cache writebacks; the CPU's own "
	    "events (-h) may" },
	{ "IC_ref", "I-cache references", "L1-icache-loads", false,
	    "L1 instruction cache loads (L1-icache-loads)" },
	{ "IC_hit", "I-cache hits", "L1-icache-loads - L1-icache-load-misses",
	    false,
	    "L1 instruction cache hits (L1-icache-loads - "
	    "L1-icache-load-misses)" },
	{ "IC_miss", "I-cache misses", "L1-icache-load-misses", false,
	    "L1 instruction cache misses (L1-icache-load-misses)" },
	{ "DC_rd", "D-cache reads", "L1-dcache-loads", false,
	    "L1 data cache loads (L1-dcache-loads)" },
	{ "DC_wr", "D-cache writes", "L1-dcache-stores", false,
	    "L1 data cache stores (L1-dcache-stores)" },
	{ "DC_rd_hit", "D-cache read hits",
	    "L1-dcache-loads - L1-dcache-load-misses", false,
	    "L1 data cache load hits (L1-dcache-loads - "
	    "L1-dcache-load-misses)" },
	{ "DC_wr_hit", "D-cache write hits",
	    "L1-dcache-stores - L1-dcache-store-misses", false,
	    "L1 data cache store hits (L1-dcache-stores - "
	    "L1-dcache-store-misses)" },
	{ "DC_rd_miss", "D-cache read misses", "L1-dcache-load-misses", false,
	    "L1 data cache load misses (L1-dcache-load-misses)" },
	{ "DC_wr_miss", "D-cache write misses", "L1-dcache-store-misses", false,
	    "L1 data cache store misses (L1-dcache-store-misses)" },
	{ "DC_miss", "D-cache misses", "PAPI_l1_dcm", false,
	    "L1 data cache misses (PAPI_l1_dcm)" },
	{ "ITLB_miss", "instruction TLB misses", "iTLB-load-misses", false,
	    "instruction TLB misses (iTLB-load-misses)" },
	{ "DTLB_miss", "data TLB misses", "dTLB-load-misses", false,
	    "data TLB load misses (dTLB-load-misses)" },
	{ "TLB_miss", "TLB misses", "PAPI_tlb_tl", false,
	    "TLB misses, data and instruction (PAPI_tlb_tl)" },
	{ "Dispatch0_IC_miss", "stall cycles on I-cache misses",
	    "stalled-cycles-frontend", false,
	    "front-end stall cycles (stalled-cycles-frontend)" },
	{ "Load_use", "stall cycles on load use", "stalled-cycles-backend",
	    false, "back-end stall cycles (stalled-cycles-backend)" },
	{ "Dispatch0_mispred", "stall cycles on branch mispredictions", NULL,
	    false,
	    "Linux counts mispredicted branches (branch-misses), not "
	    "the cycles they cost" },
	{ "Dispatch0_storeBuf", "stall cycles on a full store buffer", NULL,
	    false,
	    "no generic Linux event counts store-buffer stalls; the "
	    "CPU's own resource-stall events (-h) may" },
	{ "Dispatch0_FP_use", "stall cycles on floating point results", NULL,
	    false, "no generic Linux event counts them" },
	{ "Dispatch0_br_target", "stall cycles on branch targets", NULL, false,
	    "no generic Linux event counts them" },
	{ "Dispatch0_2nd_br", "stall cycles on a second branch", NULL, false,
	    "no generic Linux event counts them" },
	{ "Load_use_RAW", "stall cycles on read-after-write hazards", NULL,
	    false, "no generic Linux event counts them" },
	{ "Rstall_storeQ", "stall cycles on a full store queue", NULL, false,
	    "no generic Linux event counts them" },
	{ "Rstall_IU_use", "stall cycles on integer results", NULL, false,
	    "no generic Linux event counts them" },
	{ "SB_full", "stall cycles on a full store buffer", NULL, false,
	    "no generic Linux event counts them" },
	{ "FP_instr_cnt", "floating point instructions", "PAPI_fp_ins", false,
	    "floating point instructions (PAPI_fp_ins)" },
	{ "Instr_FGU_arithmetic", "floating point and graphics instructions",
	    "PAPI_fp_ins", false, "floating point instructions (PAPI_fp_ins)" },
	{ "Instr_ld", "load instructions", "PAPI_ld_ins", false,
	    "load instructions (PAPI_ld_ins)" },
	{ "Instr_st", "store instructions", "PAPI_sr_ins", false,
	    "store instructions (PAPI_sr_ins)" },
	{ "Br_completed", "branches completed", "branch-instructions", false,
	    "branch instructions retired (branch-instructions)" },
	{ "Br_taken", "branches taken", "PAPI_br_tkn", false,
	    "conditional branches taken (PAPI_br_tkn)" },
	{ "L2_imiss", "L2 misses on instruction fetches", "PAPI_l2_icm", false,
	    "L2 instruction cache misses (PAPI_l2_icm)" },
	{ "L2_dmiss_ld", "L2 misses on loads", "PAPI_l2_ldm", false,
	    "L2 load misses (PAPI_l2_ldm)" },
	{ "Atomics", "atomic instructions", NULL, false,
	    "no generic Linux event counts atomic instructions" },
	{ "Instr_sw", "software-count instructions", NULL, false,
	    "x86 and other Linux CPUs have no software-count instruction" },
	{ "Instr_other", "other instructions", NULL, false,
	    "no generic Linux event counts them" },
	{ "Idle_strands", "idle hardware threads", NULL, false,
	    "no generic Linux event counts them" },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

size_t
cpclib_generic_count(void)
{
	return NELEM(generic_names);
}

const char *
cpclib_generic_name(size_t i)
{
	return generic_names[i].name;
}

size_t
cpclib_sparc_count(void)
{
	return NELEM(sparc_names);
}

const char *
cpclib_sparc_name(size_t i)
{
	return sparc_names[i].name;
}

/* Whether word appears in a space-separated list. */
static bool
in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

/* PAPI's expression for a preset on a libpfm4 PMU; *covered: any at all. */
static const char *
papi_expr(const char *preset, const char *pmu, bool *covered)
{
	size_t i;

	*covered = false;
	if (pmu == NULL)
		return NULL;
	for (i = 0; i < cpclib_npapi_presets; i++) {
		if (!in_list(cpclib_papi_presets[i].pmus, pmu))
			continue;
		*covered = true;
		if (strcasecmp(cpclib_papi_presets[i].preset, preset) == 0)
			return cpclib_papi_presets[i].expr;
	}
	return NULL;
}

static const char *
fallback_expr(const char *preset)
{
	size_t i;

	for (i = 0; i < NELEM(generic_fallback); i++)
		if (strcasecmp(generic_fallback[i].preset, preset) == 0)
			return generic_fallback[i].expr;
	return NULL;
}

/*
 * Fold one named event, weighed by coef, into the result's terms. Events
 * that need hardware counters this kernel lacks are folded in too, so
 * that the name still says exactly what it would count.
 */
static int
add_named(cpc_t *cpc, ev_view_fn *view, const char *name, int coef,
    struct ev_result *r)
{
	struct ev_entry_view v;
	int t;

	if (!view(cpc, name, &v)) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED, "%s: out of memory", name);
		return -1;
	}
	if (v.status != CPC_EVENT_COUNTABLE &&
	    v.status != CPC_EVENT_NO_PERMISSION &&
	    v.status != CPC_EVENT_NO_PMU) {
		if (v.status == CPC_EVENT_UNKNOWN)
			ev_fail(r, CPC_EVENT_UNSUPPORTED,
			    "libpfm4 cannot "
			    "encode %s on this CPU (PAPI cannot count it here "
			    "either)",
			    name);
		else
			ev_fail(r, v.status, "%s", v.why);
		return -1;
	}
	for (t = 0; t < v.enc.nterms; t++) {
		struct cpc_event_term *term = ev_add_term(
		    r, v.enc.term[t].attr.type, 0, coef * v.enc.term[t].sign);

		if (term == NULL)
			return -1;
		term->attr = v.enc.term[t].attr;
	}
	r->hardware |= v.enc.hardware;
	r->kernel_context |= v.enc.kernel_context;
	/* The worst status of the parts is the whole's. */
	if (v.status == CPC_EVENT_NO_PMU ||
	    (v.status == CPC_EVENT_NO_PERMISSION &&
		r->status == CPC_EVENT_COUNTABLE))
		ev_fail(r, v.status, "%s", v.why);
	return 0;
}

/*
 * An expression: terms joined by " + " or " - ", each "NAME" or
 * "N*NAME". Names are prefixed with pmu:: when pmu is given (PAPI's
 * native events), and are our own names otherwise.
 */
static int
resolve_expr(cpc_t *cpc, ev_view_fn *view, const char *expr, const char *pmu,
    struct ev_result *r)
{
	char copy[1024], *tok, *rest, name[CPC_MAX_EVENT_LEN], *star;
	int sign = 1, coef;

	r->status = CPC_EVENT_COUNTABLE;
	strlcpy(copy, expr, sizeof(copy));
	for (rest = copy; (tok = strsep(&rest, " ")) != NULL;) {
		if (strcmp(tok, "+") == 0 || strcmp(tok, "-") == 0) {
			sign = tok[0] == '-' ? -1 : 1;
			continue;
		}
		coef = 1;
		if ((star = strchr(tok, '*')) != NULL &&
		    isdigit((unsigned char)tok[0])) {
			coef = atoi(tok);
			tok = star + 1;
		}
		if (pmu != NULL && strstr(tok, "::") == NULL)
			snprintf(name, sizeof(name), "%s::%s", pmu, tok);
		else
			strlcpy(name, tok, sizeof(name));
		if (add_named(cpc, view, name, sign * coef, r) != 0)
			return -1;
		sign = 1;
	}
	return r->status == CPC_EVENT_COUNTABLE ? 0 : -1;
}

static const struct generic_name *
generic_find(const char *name)
{
	size_t i;

	for (i = 0; i < NELEM(generic_names); i++)
		if (strcasecmp(generic_names[i].name, name) == 0)
			return &generic_names[i];
	return NULL;
}

/* Rewrite a failure of the events a name is counted with, for that name. */
static void
explain_via(struct ev_result *r, const char *via)
{
	char why[EV_WHY_LEN];

	if (r->status == CPC_EVENT_NO_PMU)
		snprintf(why, sizeof(why),
		    "a hardware event (counted as %s), "
		    "and this kernel has no hardware counters (no PMU; a VM "
		    "without a virtual PMU?)",
		    via);
	else
		snprintf(why, sizeof(why), "counted as %s: %s", via, r->why);
	strlcpy(r->why, why, sizeof(r->why));
}

static bool
resolve_papi(
    cpc_t *cpc, ev_view_fn *view, const char *name, struct ev_result *r)
{
	const struct generic_name *g = generic_find(name);
	const char *pmu, *expr, *native;
	char preset[32], via[600];
	bool covered;
	size_t i;

	if (g == NULL)
		return false;
	native = pmu = cpclib_pfm_pmu_name(cpc);
	r->kind = "generic";
	for (i = 0; i + 1 < sizeof(preset) && name[i] != '\0'; i++)
		preset[i] = (char)toupper((unsigned char)name[i]);
	preset[i] = '\0';
	if ((expr = papi_expr(preset, pmu, &covered)) == NULL) {
		/* PAPI gives every CPU these two; others only where known. */
		native = NULL;
		if (strcmp(preset, "PAPI_TOT_CYC") == 0)
			expr = "cycles";
		else if (strcmp(preset, "PAPI_TOT_INS") == 0)
			expr = "instructions";
		else if (!covered)
			expr = fallback_expr(preset);
	}
	if (expr == NULL) {
		ev_desc(r, "%s", g->meaning);
		if (pmu != NULL && covered)
			ev_fail(r, CPC_EVENT_NO_EQUIVALENT,
			    "no equivalent on "
			    "this CPU: PAPI's preset tables count no event as "
			    "%s (%s) on %s",
			    preset, g->meaning, pmu);
		else
			ev_fail(r, CPC_EVENT_NO_EQUIVALENT,
			    "no equivalent on "
			    "this CPU: %s, and no generic Linux event counts "
			    "%s",
			    pmu != NULL ? "PAPI's preset tables do not "
					  "cover it" :
					  "libpfm4 does not know it",
			    g->meaning);
		return true;
	}
	if (native != NULL)
		snprintf(via, sizeof(via), "%s, as PAPI counts it on %s", expr,
		    native);
	else
		snprintf(via, sizeof(via), "%s", expr);
	ev_desc(r, "%s (%s)", g->meaning, via);
	if (resolve_expr(cpc, view, expr, native, r) != 0) {
		/* The description says what it is counted as. */
		if (r->status != CPC_EVENT_NO_PMU)
			explain_via(r, via);
		return true;
	}
	return true;
}

static const struct sparc_name *
sparc_find(const char *name)
{
	size_t i;

	for (i = 0; i < NELEM(sparc_names); i++)
		if (strcmp(sparc_names[i].name, name) == 0)
			return &sparc_names[i];
	return NULL;
}

static bool
resolve_sparc(
    cpc_t *cpc, ev_view_fn *view, const char *name, struct ev_result *r)
{
	const struct sparc_name *s = sparc_find(name);

	if (s == NULL)
		return false;
	r->kind = "ultrasparc";
	ev_desc(r, "UltraSPARC %s", s->meaning);
	if (s->expr == NULL) {
		ev_fail(r, CPC_EVENT_NO_EQUIVALENT,
		    "no equivalent on this "
		    "CPU: %s",
		    s->note);
		return true;
	}
	if (!s->exact)
		snprintf(r->note, sizeof(r->note),
		    "counted as %s, the nearest "
		    "Linux event to UltraSPARC %s",
		    s->note, s->meaning);
	ev_desc(r, "UltraSPARC %s, %s %s", s->meaning,
	    s->exact ? "exactly" : "nearest:", s->expr);
	if (resolve_expr(cpc, view, s->expr, NULL, r) != 0)
		explain_via(r, s->exact ? s->expr : s->note);
	return true;
}

bool
cpclib_resolve_solaris(
    cpc_t *cpc, const char *name, struct ev_result *r, ev_view_fn *view)
{
	if (strncasecmp(name, "PAPI_", 5) == 0)
		return resolve_papi(cpc, view, name, r);
	return resolve_sparc(cpc, view, name, r);
}
