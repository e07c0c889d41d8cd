/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The metric groups on the recorded machines (tests/unit/sysfs-trees,
 * read through libcpc's test-only sysfs root), each in a process of its
 * own with libpfm4 forced to its model (LIBPFM_FORCE_PMU) where this
 * libpfm4 has it: Skylake-X, Ice Lake-X, Sapphire Rapids, Zen 3, Zen 4,
 * Alder Lake (its P-core model) and the RK3588 (no Arm model in an x86
 * libpfm4: its kernel's sysfs events alone). For each group -M takes:
 *
 *  - the variant this machine counts, or the one line that refuses it
 *    (the event missing and why, or too few counters);
 *  - for a variant taken, the events its set opens, in order (slots
 *    leading TopDown's group on Intel), each with the PMU type and config
 *    the kernel would be given, against the vendors' encodings: Intel's
 *    SDM event and umask numbers (UOPS_ISSUED.ANY 0EH/01H, ...), AMD's
 *    PPR (ex_ret_ops 0xC1, de_no_dispatch_per_slot 0x1A0, ...), and the
 *    kernel's own sysfs strings for slots and topdown-*;
 *  - that every metric of it finds its inputs among the set's counters,
 *    and TopDown level 1's values for counts worked out by hand.
 */
#include <math.h>
#include <perfmon/pfmlib.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "test_cpc.h"
#include "../../cmd/common/derived.h"
#include "../../cmd/common/mgroups.h"
#include "../../cmd/common/pmumask.h"
#include "../../cmd/common/spec.h"
#include "../../libcpc/evname.h"

/* One event of a set: its counter's name, PMU type and config. */
struct enc {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* A group on a model: the variant (applies' start) or the refusal. */
struct expect {
	const char *group;
	const char *variant; /* NULL: refused */
	const char *refusal; /* the start of the line */
	const struct enc *encs;
	int nencs;
	/* TopDown level 1: counts in the set's order, and L1's shares */
	const double *counts;
};

#define NE(a) a, (int)(sizeof(a) / sizeof((a)[0]))

/* perf's generic events, PERF_TYPE_HARDWARE. */
static const struct enc ipc[] = { { "cpu-cycles", 0, 0 },
	{ "instructions", 0, 1 } };

/* The kernel's cpu/events/slots and topdown-*: event=0x00,umask=0x4, 0x80.. */
static const struct enc icl_l1[] = { { "slots", 4, 0x0400 },
	{ "topdown-retiring", 4, 0x8000 }, { "topdown-bad-spec", 4, 0x8100 },
	{ "topdown-fe-bound", 4, 0x8200 }, { "topdown-be-bound", 4, 0x8300 } };
static const struct enc glc_l2[] = { { "slots", 4, 0x0400 },
	{ "topdown-retiring", 4, 0x8000 }, { "topdown-bad-spec", 4, 0x8100 },
	{ "topdown-fe-bound", 4, 0x8200 }, { "topdown-be-bound", 4, 0x8300 },
	{ "topdown-heavy-ops", 4, 0x8400 },
	{ "topdown-br-mispredict", 4, 0x8500 },
	{ "topdown-fetch-lat", 4, 0x8600 },
	{ "topdown-mem-bound", 4, 0x8700 } };
/* Alder Lake: cpu_core is type 4 in its tree, cpu_atom 8. */
static const struct enc adl_l1[] = { { "cpu_core/slots/", 4, 0x0400 },
	{ "cpu_core/topdown-retiring/", 4, 0x8000 },
	{ "cpu_core/topdown-bad-spec/", 4, 0x8100 },
	{ "cpu_core/topdown-fe-bound/", 4, 0x8200 },
	{ "cpu_core/topdown-be-bound/", 4, 0x8300 } };

/*
 * Skylake-X, SDM event/umask (config umask << 8 | event, cmask << 24,
 * edge bit 18): UOPS_RETIRED.RETIRE_SLOTS C2H/02H, UOPS_ISSUED.ANY
 * 0EH/01H, IDQ_UOPS_NOT_DELIVERED.CORE 9CH/01H, INT_MISC.RECOVERY_CYCLES
 * 0DH/01H; .CYCLES_0_UOPS_DELIV.CORE 9CH/01H cmask 4;
 * BR_MISP_RETIRED.ALL_BRANCHES C5H/00H; MACHINE_CLEARS.COUNT C3H/01H
 * cmask 1, edge. cycles is the generic event (fixed counter 1).
 */
static const struct enc skl_l1[] = { { "UOPS_RETIRED:RETIRE_SLOTS", 4, 0x02c2 },
	{ "cpu-cycles", 0, 0 }, { "UOPS_ISSUED:ANY", 4, 0x010e },
	{ "IDQ_UOPS_NOT_DELIVERED:CORE", 4, 0x019c },
	{ "INT_MISC:RECOVERY_CYCLES", 4, 0x010d } };
static const struct enc skl_l2[] = { { "UOPS_RETIRED:RETIRE_SLOTS", 4, 0x02c2 },
	{ "cpu-cycles", 0, 0 }, { "UOPS_ISSUED:ANY", 4, 0x010e },
	{ "IDQ_UOPS_NOT_DELIVERED:CORE", 4, 0x019c },
	{ "INT_MISC:RECOVERY_CYCLES", 4, 0x010d },
	{ "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 4, 0x0400019c },
	{ "BR_MISP_RETIRED:ALL_BRANCHES", 4, 0x00c5 },
	{ "MACHINE_CLEARS:COUNT", 4, 0x010401c3 } };

/*
 * Zen 4, PPR: ls_not_halted_cyc 0x76, ex_ret_ops 0xC1,
 * de_src_op_disp.all 0xAA umask 0x07, de_no_dispatch_per_slot 0x1A0
 * (event bits 11:8 go to config bits 35:32) umask 0x01 (from the front
 * end) and 0x1E (back-end stalls).
 */
static const struct enc zen4_l1[] = { { "CYCLES_NOT_IN_HALT", 4, 0x76 },
	{ "RETIRED_OPS", 4, 0xc1 },
	{ "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", 4,
	    0x07aa },
	{ "DISPATCH_STALLS_1:FE_NO_OPS", 4, 0x1000001a0ULL },
	{ "DISPATCH_STALLS_1:BE_STALLS", 4, 0x100001ea0ULL } };

/*
 * Counts in each variant's order, for 40% retiring, 10% (Skylake: 15%)
 * bad speculation, 20% frontend and 30% (Skylake: 25%) backend bound:
 * 1000 slots; Skylake 1000 cycles of 4 slots (see test_mgroups); Zen 4
 * 1000 cycles of 6.
 */
static const double icl_counts[] = { 1000, 400, 100, 200, 300 };
static const double skl_counts[] = { 1600, 1000, 2000, 800, 50 };
static const double zen4_counts[] = { 1000, 2400, 3000, 1200, 1800 };

/* Boxes whose events/ was not recorded: the alias is not theirs. */
#define IMC_UNRECORDED                                                       \
	"uncore_imc/cas_count_read/: unknown term 'cas_count_read' for PMU " \
	"uncore_imc_0"
#define RAPL_UNRECORDED \
	"power/energy-pkg/: unknown term 'energy-pkg' for PMU power"

static const struct expect skx[] = { { "IPC", "every CPU with a PMU", NULL,
					 NE(ipc), NULL },
	{ "Branch", "every CPU with a PMU", NULL, NULL, 0, NULL },
	{ "Cache", "every CPU with a PMU", NULL, NULL, 0, NULL },
	{ "TopdownL1", "Intel Skylake", NULL, NE(skl_l1), skl_counts },
	{ "TopdownL2", "Intel Skylake", NULL, NE(skl_l2), NULL },
	{ "MemBW", NULL, IMC_UNRECORDED, NULL, 0, NULL },
	{ "Energy", NULL, RAPL_UNRECORDED, NULL, 0, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL } };

/*
 * The kernel's uncore_imc events of Ice Lake-X, event=0x04 with umask
 * 0x0f (reads) and 0x30 (writes), on the first box (type 19; every box
 * is a term of its own, see test_uncore); RAPL's energy-pkg event=0x02
 * and energy-ram event=0x03 on the power PMU (type 11).
 */
static const struct enc icx_imc[] = { { "uncore_imc/cas_count_read/", 19,
					  0x0f04 },
	{ "uncore_imc/cas_count_write/", 19, 0x3004 } };
static const struct enc icx_rapl[] = { { "power/energy-pkg/", 11, 0x02 },
	{ "power/energy-ram/", 11, 0x03 } };

/* Ice Lake's PERF_METRICS has level 1 only. */
static const struct expect icx[] = { { "IPC", "every CPU with a PMU", NULL,
					 NE(ipc), NULL },
	{ "TopdownL1", "Intel Ice Lake", NULL, NE(icl_l1), icl_counts },
	{ "TopdownL2", NULL,
	    "topdown-heavy-ops: this CPU has no such event; that variant is "
	    "for Intel Sapphire Rapids",
	    NULL, 0, NULL },
	{ "MemBW", "Intel servers (uncore_imc)", NULL, NE(icx_imc), NULL },
	{ "Energy", "Intel (package and DRAM", NULL, NE(icx_rapl), NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL } };

static const struct expect spr[] = { { "TopdownL1", "Intel Ice Lake", NULL,
					 NE(icl_l1), icl_counts },
	{ "TopdownL2", "Intel Sapphire Rapids", NULL, NE(glc_l2), NULL },
	{ "Energy", NULL, RAPL_UNRECORDED, NULL, 0, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL } };

/* Zen 3 has none of Zen 4's pipeline utilization events. */
/*
 * Zen 2 and Zen 3's Data Fabric, amd_df (type 10), as the kernel encodes
 * its format/ (event config:0-7,32-35,59-60, umask config:8-15): the
 * DRAM channels' requests with data, event 0x07 + 0x40 a channel
 * (bits 11:8 go to config bits 35:32), umask 0x38. Its 4 counters take
 * 8 events in no group of the kernel's, and -M says so.
 */
static const struct enc df_zen3[] = { { "amd_df/event=0x07,umask=0x38/", 10,
					  0x3807 },
	{ "amd_df/event=0x47,umask=0x38/", 10, 0x3847 },
	{ "amd_df/event=0x87,umask=0x38/", 10, 0x3887 },
	{ "amd_df/event=0xc7,umask=0x38/", 10, 0x38c7 },
	{ "amd_df/event=0x107,umask=0x38/", 10, 0x100003807ULL },
	{ "amd_df/event=0x147,umask=0x38/", 10, 0x100003847ULL },
	{ "amd_df/event=0x187,umask=0x38/", 10, 0x100003887ULL },
	{ "amd_df/event=0x1c7,umask=0x38/", 10, 0x1000038c7ULL } };
#define DF_VARIANT  "AMD Zen 2 and Zen 3"
#define UMC_VARIANT "AMD Zen 4 and Zen 5"

static const struct expect zen3[] = { { "IPC", "every CPU with a PMU", NULL,
					  NE(ipc), NULL },
	{ "Branch", "every CPU with a PMU", NULL, NULL, 0, NULL },
	{ "TopdownL1", NULL,
	    "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER: "
	    "this CPU has no such event; that variant is for AMD Zen 4",
	    NULL, 0, NULL },
	{ "TopdownL2", NULL, "slots: this CPU has no such event", NULL, 0,
	    NULL },
	/* 8 channels on 4 counters: by turns, each a group of its own. */
	{ "MemBW", DF_VARIANT, NULL, NULL, 0, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL } };

static const struct expect zen4[] = { { "Cache", "every CPU with a PMU", NULL,
					  NULL, 0, NULL },
	{ "TopdownL1", "AMD Zen 4", NULL, NE(zen4_l1), zen4_counts },
	{ "TopdownL2", NULL, "slots: this CPU has no such event", NULL, 0,
	    NULL },
	/* Linux 6.1 has no amd_umc, and the DF variant is Zen 3's. */
	{ "MemBW", NULL,
	    "amd_umc/event=0x0a,rdwrmask=0x1/: no PMU 'amd_umc' in this "
	    "kernel (see /sys/bus/event_source/devices); that variant is "
	    "for " UMC_VARIANT,
	    NULL, 0, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL } };

/*
 * A two-socket Genoa on Linux 6.12: a memory controller's CAS commands,
 * event 0x0a, reads rdwrmask 1 and writes 2 (config:8-9), on amd_umc_0
 * (type 14), the first of its 24 controllers.
 */
static const struct enc umc[] = { { "amd_umc/event=0x0a,rdwrmask=0x1/", 14,
				      0x10a },
	{ "amd_umc/event=0x0a,rdwrmask=0x2/", 14, 0x20a } };

static const struct expect genoa[] = { { "TopdownL1", "AMD Zen 4", NULL,
					   NE(zen4_l1), zen4_counts },
	{ "MemBW", UMC_VARIANT, NULL, NE(umc), NULL },
	{ "Energy", "AMD Zen, and Intel without a DRAM domain", NULL, NULL, 0,
	    NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL } };

/*
 * Alder Lake: TopDown of the P-cores, on cpu_core by name (the E-cores'
 * topdown-* are other events). Level 2's 9 events are more than this
 * libpfm4 run knows counters for here (no core model forced for both
 * core types: libcpc's floor of 8), and -M says so.
 */
static const struct expect adl[] = { { "IPC", "every CPU with a PMU", NULL,
					 NULL, 0, NULL },
	{ "TopdownL1", "Intel hybrid", NULL, NE(adl_l1), icl_counts },
	{ "TopdownL2", NULL,
	    "9 events to count together, and this CPU has 8 counters; that "
	    "variant is for Intel hybrid",
	    NULL, 0, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL } };

/* RK3588's Cortex-A55/A76 have no STALL_SLOT events (Neoverse's). */
static const struct expect rk3588[] = { { "IPC", "every CPU with a PMU", NULL,
					    NULL, 0, NULL },
	{ "Branch", "every CPU with a PMU", NULL, NULL, 0, NULL },
	{ "TopdownL1", NULL,
	    "stall_slot: this CPU has no such event; that variant is for Arm "
	    "Neoverse",
	    NULL, 0, NULL },
	{ "Energy", NULL, "power/energy-pkg/: no PMU 'power' in this kernel",
	    NULL, 0, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL } };

/*
 * A guest of a Xeon (family 6, model 207) whose kernel has no core PMU
 * and whose RAPL power PMU (type 10) gives the platform's domain alone:
 * energy-psys, event=0x05.
 */
static const struct enc psys_rapl[] = { { "power/energy-psys/", 10, 0x05 } };

static const struct expect psys[] = { { "Energy",
					  "machines whose RAPL gives only "
					  "the platform (psys) domain",
					  NULL, NE(psys_rapl), NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL } };

static void check_df_zen3(cpc_t *cpc);
static void check_df_zen4(cpc_t *cpc);
static void check_umc_genoa(cpc_t *cpc);
static void check_psys(cpc_t *cpc);

static const struct model {
	const char *pmu; /* LIBPFM_FORCE_PMU, or NULL */
	const char *tree;
	const struct expect *expect;
	void (*more)(cpc_t *cpc); /* or NULL */
} models[] = {
	{ "skx", "intel-skylakex", skx, NULL },
	{ "icx", "intel-icelakex", icx, NULL },
	{ "spr", "intel-sapphirerapids", spr, NULL },
	{ "amd64_fam19h_zen3", "amd-zen3", zen3, check_df_zen3 },
	{ "amd64_fam19h_zen4", "amd-zen4", zen4, check_df_zen4 },
	{ "amd64_fam19h_zen4", "amd-genoa-2s", genoa, check_umc_genoa },
	{ "adl_glc", "intel-alderlake-hybrid", adl, NULL },
	{ NULL, "arm-rk3588-biglittle", rk3588, NULL },
	{ NULL, "intel-vm-psys", psys, check_psys },
};

#define NMODELS (sizeof(models) / sizeof(models[0]))

/* The request's first event: its type and config. */
static void
check_enc(cpc_t *cpc, const struct spec_req *req, const struct enc *want)
{
	struct ev_entry_view v;
	bool ok;

	ok = strcmp(req->name, want->name) == 0 &&
	    cpclib_event_view(cpc, req->event, &v) && v.enc.nterms >= 1 &&
	    v.enc.term[0].attr.type == want->type &&
	    v.enc.term[0].attr.config == want->config;
	check_count++;
	if (!ok) {
		check_failures++;
		fprintf(stderr, "%s: expected %s type %u config %#llx\n",
		    req->name, want->name, want->type,
		    (unsigned long long)want->config);
	}
}

/* The table's variant of group whose applies starts with variant. */
static const struct mgroup *
variant_of(const char *group, const char *variant)
{
	int i;

	for (i = 0; i < mgroup_ntable; i++)
		if (strcmp(mgroup_table[i].name, group) == 0 &&
		    strncmp(
			mgroup_table[i].applies, variant, strlen(variant)) == 0)
			return &mgroup_table[i];
	return NULL;
}

/* name's first event: on the PMU of type, with config. */
static void
check_name(cpc_t *cpc, const char *name, uint32_t type, uint64_t config)
{
	struct ev_entry_view v;

	check_count++;
	if (!cpclib_event_view(cpc, name, &v) ||
	    v.status != CPC_EVENT_COUNTABLE || v.enc.nterms != 1 ||
	    v.enc.term[0].attr.type != type ||
	    v.enc.term[0].attr.config != config) {
		check_failures++;
		fprintf(stderr, "%s: expected type %u config %#llx\n", name,
		    type, (unsigned long long)config);
	}
}

/*
 * Zen 3's MemBW, which -M refuses for the DF's 4 counters: what it would
 * open, where, and its GB/s. 1e6, 2e6, ... 8e6 requests on the 8
 * channels in 1 s are 36e6 * 64 = 2 304 000 000 bytes: 2.304 GB/s; in
 * 4 s, 0.576 GB/s.
 */
static void
check_df_zen3(cpc_t *cpc)
{
	const struct mgroup *g = variant_of("MemBW", DF_VARIANT);
	uint64_t values[8];
	struct derived_set ds;
	enum spec_error err;
	struct spec *spec;
	cpu_set_t cpus;
	double v = 0;
	int r;

	CHECK(g != NULL);
	if (g == NULL || (spec = spec_parse(cpc, g->events, &err)) == NULL) {
		CHECK(false);
		return;
	}
	CHECK(spec->nreqs == 8);
	for (r = 0; r < spec->nreqs && r < 8; r++) {
		check_enc(cpc, &spec->reqs[r], &df_zen3[r]);
		values[r] = (uint64_t)(r + 1) * 1000000;
	}
	/* Once per socket: the CPU of amd_df's cpumask, CPU 0 alone. */
	CHECK(pmumask_cpus(cpc, spec->reqs[0].event, &cpus) == 0);
	CHECK(CPU_COUNT(&cpus) == 1 && CPU_ISSET(0, &cpus));
	CHECK(derived_plan(spec, &g, 1, &ds) == 0);
	CHECK(ds.nuses == 1 && strcmp(ds.uses[0].key, "mem_total_gbs") == 0);
	if (ds.nuses == 1) {
		CHECK(derived_value(&ds, &ds.uses[0], values, 1000000000, &v));
		CHECK(fabs(v - 2.304) < 1e-12);
		CHECK(derived_value(&ds, &ds.uses[0], values, 4000000000, &v));
		CHECK(fabs(v - 0.576) < 1e-12);
		/* No elapsed time, no rate. */
		CHECK(!derived_value(&ds, &ds.uses[0], values, 0, &v));
	}
	derived_free(&ds);
	spec_free(spec);
	/* Zen 4's 12-bit umask is not this format's. */
	check_count++;
	if (cpc_event_status(cpc, "amd_df/event=0x1f,umask=0x7fe/", NULL, 0) ==
	    CPC_EVENT_COUNTABLE)
		check_failures++;
}

/*
 * Zen 4's amd_df takes PerfMonV2's wider fields (event config:0-7,32-37,
 * umask config:8-15,24-27): the kernel's local read data beats at
 * coherent station 8, event 0x21f umask 0x7fe, and writes at CS 11,
 * event 0x2df umask 0x7ff.
 */
static void
check_df_zen4(cpc_t *cpc)
{
	cpu_set_t cpus;

	check_name(cpc, "amd_df/event=0x21f,umask=0x7fe/", 10, 0x20700fe1fULL);
	check_name(cpc, "amd_df/event=0x2df,umask=0x7ff/", 10, 0x20700ffdfULL);
	CHECK(pmumask_cpus(cpc, "amd_df/event=0x21f,umask=0x7fe/", &cpus) == 0);
	CHECK(CPU_COUNT(&cpus) == 1 && CPU_ISSET(0, &cpus));
}

/*
 * Genoa's MemBW: each event is the sum of 24 controllers, each opened on
 * its own socket's CPU (0 for amd_umc_0 .. 11, 96 for 12 .. 23). 1.5e9
 * reads and 0.5e9 writes of 64 bytes in 2 s are 48 and 16 GB/s, 64 in
 * all.
 */
static void
check_umc_genoa(cpc_t *cpc)
{
	const struct mgroup *g = variant_of("MemBW", UMC_VARIANT);
	static const double want[] = { 48, 16, 64 };
	uint64_t values[2 + 48] = { 1500000000, 500000000 };
	struct derived_set ds;
	enum spec_error err;
	struct spec *spec;
	cpu_set_t cpus;
	double v = 0;
	int u;

	if (g == NULL || (spec = spec_parse(cpc, g->events, &err)) == NULL) {
		CHECK(false);
		return;
	}
	CHECK(spec->nreqs == 2 && spec->nboxes == 48);
	CHECK(spec->reqs[0].nboxes == 24 &&
	    strcmp(spec->reqs[0].box_names[0], "amd_umc_0") == 0 &&
	    strcmp(spec->reqs[0].box_names[23], "amd_umc_23") == 0);
	CHECK(
	    strcmp(cpc_event_cpumask(cpc, spec->reqs[0].event, 11), "0") == 0);
	CHECK(
	    strcmp(cpc_event_cpumask(cpc, spec->reqs[0].event, 12), "96") == 0);
	CHECK(pmumask_cpus(cpc, spec->reqs[1].event, &cpus) == 0);
	CHECK(CPU_COUNT(&cpus) == 2 && CPU_ISSET(0, &cpus) &&
	    CPU_ISSET(96, &cpus));
	CHECK(derived_plan(spec, &g, 1, &ds) == 0);
	CHECK(ds.nuses == 3);
	for (u = 0; u < ds.nuses && u < 3; u++) {
		CHECK(derived_value(&ds, &ds.uses[u], values, 2000000000, &v));
		CHECK(fabs(v - want[u]) < 1e-12);
	}
	derived_free(&ds);
	spec_free(spec);
}

/* Platform energy counts on its cpumask's CPU, in joules of 2^-32. */
static void
check_psys(cpc_t *cpc)
{
	cpu_set_t cpus;
	char unit[16];
	double scale;

	CHECK(pmumask_cpus(cpc, "power/energy-psys/", &cpus) == 0);
	CHECK(CPU_COUNT(&cpus) == 1 && CPU_ISSET(0, &cpus));
	CHECK(cpc_event_scale(
		  cpc, "power/energy-psys/", &scale, unit, sizeof(unit)) == 1 &&
	    scale == 1.0 / 4294967296.0 && strcmp(unit, "Joules") == 0);
}

/* TopDown level 1 of counts (the set's order): 40, 10|15, 20, 30|25. */
static void
check_l1(
    const struct spec *spec, const struct derived_set *ds, const double *counts)
{
	static const char *const keys[] = { "tma_retiring",
		"tma_bad_speculation", "tma_frontend_bound",
		"tma_backend_bound" };
	bool skl = strcmp(spec->reqs[0].name, "UOPS_RETIRED:RETIRE_SLOTS") == 0;
	const double want[] = { 40, skl ? 15 : 10, 20, skl ? 25 : 30 };
	uint64_t values[16];
	double v;
	int r, k, u;

	for (r = 0; r < spec->nreqs && r < 16; r++)
		values[r] = (uint64_t)counts[r];
	for (k = 0; k < 4; k++) {
		for (u = 0; u < ds->nuses; u++)
			if (strcmp(ds->uses[u].key, keys[k]) == 0)
				break;
		check_count++;
		if (u == ds->nuses ||
		    !derived_value(ds, &ds->uses[u], values, 0, &v) ||
		    fabs(v - want[k]) > 1e-9) {
			check_failures++;
			fprintf(stderr, "%s: expected %g\n", keys[k], want[k]);
		}
	}
}

/* The variant's set: its events, encodings and metrics. */
static void
check_set(cpc_t *cpc, const struct mgroup *g, const struct expect *e)
{
	struct derived_set ds;
	enum spec_error err;
	struct spec *spec;
	int r;

	if (g->events == NULL)
		return;
	spec = spec_parse(cpc, g->events, &err);
	CHECK(spec != NULL);
	if (spec == NULL)
		return;
	if (e->encs != NULL) {
		CHECK(spec->nreqs == e->nencs);
		for (r = 0; r < spec->nreqs && r < e->nencs; r++)
			check_enc(cpc, &spec->reqs[r], &e->encs[r]);
	}
	CHECK(derived_plan(spec, &g, 1, &ds) == 0);
	CHECK(ds.nuses == g->nmetrics);
	if (e->counts != NULL)
		check_l1(spec, &ds, e->counts);
	derived_free(&ds);
	spec_free(spec);
}

static void
check_group(cpc_t *cpc, const struct expect *e)
{
	const struct mgroup *g;
	char why[1024] = "";

	g = mgroup_resolve(cpc, e->group, why, sizeof(why));
	check_count++;
	if (e->variant != NULL &&
	    (g == NULL ||
		strncmp(g->applies, e->variant, strlen(e->variant)) != 0)) {
		check_failures++;
		fprintf(stderr, "%s: %s, expected the variant for %s\n",
		    e->group, g != NULL ? g->applies : why, e->variant);
		return;
	}
	if (e->variant == NULL &&
	    (g != NULL || strncmp(why, e->refusal, strlen(e->refusal)) != 0 ||
		strchr(why, '\n') != NULL)) {
		check_failures++;
		fprintf(stderr, "%s: '%s', expected '%s...'\n", e->group,
		    g != NULL ? g->applies : why, e->refusal);
		return;
	}
	if (g != NULL)
		check_set(cpc, g, e);
}

static int
child_model(size_t m)
{
	const struct expect *e;
	char root[512];
	cpc_t *cpc;

	snprintf(root, sizeof(root), "%s/tests/unit/sysfs-trees/%s", SOURCE_DIR,
	    models[m].tree);
	cpclib_set_sysfs_root(root, 1);
	cpc = cpc_open(CPC_VER_CURRENT);
	CHECK(cpc != NULL);
	if (cpc == NULL)
		return check_report(models[m].tree);
	/* Default is the run's own events: every machine has it. */
	CHECK(mgroup_resolve(cpc, "Default", root, sizeof(root)) ==
	    mgroup_default());
	for (e = models[m].expect; e->group != NULL; e++)
		check_group(cpc, e);
	if (models[m].more != NULL)
		models[m].more(cpc);
	cpc_close(cpc);
	return check_report(models[m].tree);
}

int
main(int argc, char **argv)
{
	char self[4096], arg[16];
	ssize_t len;
	size_t m;
	int status;
	pid_t pid;

	if (argc == 3 && strcmp(argv[1], "--model") == 0)
		return child_model((size_t)atoi(argv[2]));
	if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		SKIP("cannot find this program: %s", strerror(errno));
	self[len] = '\0';
	for (m = 0; m < NMODELS; m++) {
		fflush(stdout);
		snprintf(arg, sizeof(arg), "%zu", m);
		if ((pid = fork()) == 0) {
			if (models[m].pmu != NULL)
				setenv("LIBPFM_FORCE_PMU", models[m].pmu, 1);
			execl(self, self, "--model", arg, (char *)NULL);
			_exit(127);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
		if (pid > 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
			fprintf(stderr, "%s: failed\n", models[m].tree);
		CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	return check_report("test_mgroups_models");
}
