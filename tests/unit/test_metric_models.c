/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -M on the recorded machines (tests/unit/sysfs-trees, read through
 * libcpc's test-only sysfs root), each in a process of its own, with
 * PERF_CPUID naming its CPU and libpfm4 forced to its model
 * (LIBPFM_FORCE_PMU), or to none where libpfm4 has none (the RK3588, and
 * a guest with no core PMU) or has it only on a host of that model (a
 * hybrid model, active only where /sys/devices/cpu_core is), so that no
 * answer is the host's. For each metric or group asked, as cpustat
 * (every CPU and sibling) or cputrack (threads) would ask it, with
 * libcpc answering which events exist as metrics_option.c has it
 * answer:
 *
 *  - the events its set counts (the set spec_parse makes of the plan's
 *    spec, as the run makes it), each event's perf_event_attr type and
 *    config against the vendors' documents: Intel's SDM event, umask,
 *    cmask, edge and AnyThread numbers, AMD's PPR, the kernel's own slots
 *    and topdown-* encodings, and the PMU types of the recorded kernel
 *    (Alder Lake's cpu_core 4 and cpu_atom 8);
 *  - slots leading TopDown's group;
 *  - the plan bound to that set;
 *  - where the machine cannot count a metric, the one line that says so.
 *
 * The answers must not depend on the machine the test runs on: each
 * machine's answers (its core PMU and counters, each plan's events and
 * encodings, or its refusal) are made again with LIBPFM_FORCE_PMU set
 * to five models as the host's, and compared with the first run's.
 * METRIC_MODELS_VERBOSE=1 prints the first run's answers.
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "test_cpc.h"
#include "../../cmd/common/spec.h"
#include "../../cmd/metrics/metric_model.h"
#include "../../cmd/metrics/metric_plan.h"
#include "../../cmd/metrics/tests/spec_items.h"
#include "../../cmd/cli/metrics_option.h"
#include "../../libcpc/evname.h"

/* libpfm4 activates only the PMU forced, and none is called this. */
#define NO_PFM_MODEL "none"

#define TRANSCRIPT_MAX (256 * 1024)

/*
 * One event of a set: what rows call it, its PMU type and config; where
 * it is counted in parts (the boxes of an uncore PMU, summed, or each
 * core PMU of a hybrid), part i is type + i * type_step and config + i *
 * config_step.
 */
struct enc {
	const char *name;
	uint32_t type;
	uint64_t config;
	int parts; /* 0: one */
	uint32_t type_step;
	uint64_t config_step;
};

enum run { CPUS, THREADS };

/* A -M on a machine: what its set counts, or the line refusing it. */
struct ask_case {
	const char *names;
	enum run run;
	bool smt_off; /* the machine with SMT turned off */
	const struct enc *encs;
	int nencs;
	bool some;	     /* encs are some of the set's events */
	const char *lead;    /* TopDown's group's first event, or NULL */
	const char *refusal; /* the start of the line, or NULL */
	const char *note;    /* a note it gives, or NULL */
	/*
	 * Why a group of its set is more than libcpc takes in one, or NULL:
	 * every group is parsed and the plan bound to the set.
	 */
	const char *too_many;
};

#define ENCS(a) .encs = a, .nencs = (int)(sizeof(a) / sizeof((a)[0]))
/* clang-format off */
#define EV(name, type, config) { name, type, config, 0, 0, 0 }
#define PARTS(name, type, config, parts, type_step, config_step) \
	{ name, type, config, parts, type_step, config_step }
/* clang-format on */

/* The machine's facts, where its tree has no CPU lists. */
struct facts {
	int cpus, cores, packages, dies;
};

struct machine {
	const char *tree;
	const char *pfm; /* LIBPFM_FORCE_PMU */
	const char *cpuid;
	struct facts facts; /* cpus 0: read from the tree */
	const struct ask_case *cases;
};

/* x86: event | umask << 8 | edge 1 << 18 | any 1 << 21 | cmask << 24. */
#define X86(event, umask) ((uint64_t)(event) | (uint64_t)(umask) << 8)
#define EDGE		  (1ULL << 18)
#define ANY		  (1ULL << 21)
#define CMASK(n)	  ((uint64_t)(n) << 24)
/* AMD: event bits 11:8 go to config bits 35:32. */
#define AMD(event, umask)                                    \
	(((uint64_t)(event)&0xff) | (uint64_t)(umask) << 8 | \
	    ((uint64_t)(event) >> 8) << 32)

/*
 * The kernel's PMU types: perf's generic hardware and software events
 * (PERF_TYPE_HARDWARE 0, PERF_TYPE_SOFTWARE 1), and the core PMU, "cpu"
 * or Alder Lake's "cpu_core", registered as PERF_TYPE_RAW (4).
 */
#define HW   0
#define SW   1
#define CORE 4

/*
 * The kernel's slots and topdown-* of Ice Lake and later: slots is event
 * 0x00 umask 0x04 (fixed counter 3), the metrics event 0x00 with umasks
 * 0x80 (retiring), 0x81 (bad-spec), 0x82 (fe-bound), 0x83 (be-bound),
 * 0x84 (heavy-ops), 0x85 (br-mispredict), 0x86 (fetch-lat), 0x87
 * (mem-bound).
 */
#define SLOTS X86(0x00, 0x04)
#define TD(n) X86(0x00, 0x80 + (n))

/*
 * Skylake-SP (SDM vol. 4, Skylake microarchitecture events):
 * IDQ_UOPS_NOT_DELIVERED.CORE 9CH/01H, CPU_CLK_UNHALTED.THREAD 3CH/00H
 * (fixed counter 1, or this architectural encoding), .ONE_THREAD_ACTIVE
 * 3CH/02H, .REF_XCLK 3CH/01H, UOPS_ISSUED.ANY 0EH/01H,
 * INT_MISC.RECOVERY_CYCLES 0DH/01H, UOPS_RETIRED.RETIRE_SLOTS C2H/02H,
 * .MACRO_FUSED C2H/04H, INST_RETIRED.ANY C0H/00H; the _ANY forms set
 * AnyThread, counting both threads of a core. Per thread, SMT on, the
 * core's cycles come from ONE_THREAD_ACTIVE and REF_XCLK; with SMT off
 * recovery is the thread's own; per CPU with every sibling, THREAD_ANY.
 * tma_retiring's threshold reads tma_heavy_operations: MACRO_FUSED and
 * INST_RETIRED.ANY.
 */
static const struct enc skx_l1_thread[] = {
	EV("IDQ_UOPS_NOT_DELIVERED.CORE", CORE, X86(0x9c, 0x01)),
	EV("CPU_CLK_UNHALTED.THREAD", CORE, X86(0x3c, 0x00)),
	EV("CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", CORE, X86(0x3c, 0x02)),
	EV("CPU_CLK_UNHALTED.REF_XCLK", CORE, X86(0x3c, 0x01)),
	EV("UOPS_ISSUED.ANY", CORE, X86(0x0e, 0x01)),
	EV("INT_MISC.RECOVERY_CYCLES_ANY", CORE, X86(0x0d, 0x01) | ANY),
	EV("UOPS_RETIRED.RETIRE_SLOTS", CORE, X86(0xc2, 0x02)),
	EV("UOPS_RETIRED.MACRO_FUSED", CORE, X86(0xc2, 0x04)),
	EV("INST_RETIRED.ANY", CORE, X86(0xc0, 0x00)),
};
static const struct enc skx_l1_nosmt[] = {
	EV("IDQ_UOPS_NOT_DELIVERED.CORE", CORE, X86(0x9c, 0x01)),
	EV("CPU_CLK_UNHALTED.THREAD", CORE, X86(0x3c, 0x00)),
	EV("CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", CORE, X86(0x3c, 0x02)),
	EV("CPU_CLK_UNHALTED.REF_XCLK", CORE, X86(0x3c, 0x01)),
	EV("UOPS_ISSUED.ANY", CORE, X86(0x0e, 0x01)),
	EV("INT_MISC.RECOVERY_CYCLES", CORE, X86(0x0d, 0x01)),
	EV("UOPS_RETIRED.RETIRE_SLOTS", CORE, X86(0xc2, 0x02)),
	EV("UOPS_RETIRED.MACRO_FUSED", CORE, X86(0xc2, 0x04)),
	EV("INST_RETIRED.ANY", CORE, X86(0xc0, 0x00)),
};
static const struct enc skx_l1_cpus[] = {
	EV("IDQ_UOPS_NOT_DELIVERED.CORE", CORE, X86(0x9c, 0x01)),
	EV("CPU_CLK_UNHALTED.THREAD_ANY", CORE, X86(0x3c, 0x00) | ANY),
	EV("UOPS_ISSUED.ANY", CORE, X86(0x0e, 0x01)),
	EV("INT_MISC.RECOVERY_CYCLES_ANY", CORE, X86(0x0d, 0x01) | ANY),
	EV("UOPS_RETIRED.RETIRE_SLOTS", CORE, X86(0xc2, 0x02)),
	EV("UOPS_RETIRED.MACRO_FUSED", CORE, X86(0xc2, 0x04)),
	EV("INST_RETIRED.ANY", CORE, X86(0xc0, 0x00)),
};
/*
 * Level 2 adds IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE 9CH/01H
 * cmask 4, BR_MISP_RETIRED.ALL_BRANCHES C5H/00H, MACHINE_CLEARS.COUNT
 * C3H/01H cmask 1 edge, CYCLE_ACTIVITY.STALLS_MEM_ANY A3H/14H cmask 20,
 * .STALLS_TOTAL A3H/04H cmask 4, EXE_ACTIVITY.BOUND_ON_STORES A6H/40H,
 * .1_PORTS_UTIL A6H/02H, .2_PORTS_UTIL A6H/04H.
 */
static const struct enc skx_l2_some[] = {
	EV("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", CORE,
	    X86(0x9c, 0x01) | CMASK(4)),
	EV("BR_MISP_RETIRED.ALL_BRANCHES", CORE, X86(0xc5, 0x00)),
	EV("MACHINE_CLEARS.COUNT", CORE, X86(0xc3, 0x01) | CMASK(1) | EDGE),
	EV("CYCLE_ACTIVITY.STALLS_MEM_ANY", CORE, X86(0xa3, 0x14) | CMASK(20)),
	EV("CYCLE_ACTIVITY.STALLS_TOTAL", CORE, X86(0xa3, 0x04) | CMASK(4)),
	EV("EXE_ACTIVITY.BOUND_ON_STORES", CORE, X86(0xa6, 0x40)),
	EV("EXE_ACTIVITY.1_PORTS_UTIL", CORE, X86(0xa6, 0x02)),
	EV("EXE_ACTIVITY.2_PORTS_UTIL", CORE, X86(0xa6, 0x04)),
	EV("CPU_CLK_UNHALTED.THREAD_ANY", CORE, X86(0x3c, 0x00) | ANY),
};
/*
 * perf's metrics of every CPU: the kernel's software events
 * (PERF_COUNT_SW_TASK_CLOCK 1, _PAGE_FAULTS 2, _CONTEXT_SWITCHES 3,
 * _CPU_MIGRATIONS 4; _CPU_CLOCK 0 counting CPUs) and generic hardware
 * ones (PERF_COUNT_HW_CPU_CYCLES 0, _INSTRUCTIONS 1, _BRANCH_INSTRUCTIONS
 * 4, _BRANCH_MISSES 5, _STALLED_CYCLES_FRONTEND 7, _BACKEND 8). A
 * recorded machine's kernel cannot be asked whether it maps a generic
 * event: libcpc takes stalled-cycles-* for countable there (Skylake's
 * kernel maps none; on the machine, libcpc's probe of the kernel finds
 * that, and perf's formulas read 0 for them).
 */
static const struct enc default_intel_threads[] = {
	EV("task-clock", SW, 1),
	EV("context-switches", SW, 3),
	EV("cpu-migrations", SW, 4),
	EV("page-faults", SW, 2),
	EV("instructions", HW, 1),
	EV("cpu-cycles", HW, 0),
	EV("branches", HW, 4),
	EV("branch-misses", HW, 5),
	EV("stalled-cycles-frontend", HW, 7),
	EV("stalled-cycles-backend", HW, 8),
};

/*
 * Memory bandwidth's core events: L1D_PEND_MISS.PENDING 48H/01H (and
 * cmask 1), L1D.REPLACEMENT 51H/01H, L2_LINES_IN.ALL F1H/1FH,
 * MEM_LOAD_RETIRED.L1_MISS D1H/08H, .L2_HIT D1H/02H,
 * CYCLE_ACTIVITY.STALLS_L1D_MISS A3H/0CH cmask 12, .STALLS_L2_MISS
 * A3H/05H cmask 5, .STALLS_L3_MISS A3H/06H cmask 6.
 */
static const struct enc skx_bw_some[] = {
	EV("L1D_PEND_MISS.PENDING", CORE, X86(0x48, 0x01)),
	EV("L1D_PEND_MISS.PENDING_CYCLES", CORE, X86(0x48, 0x01) | CMASK(1)),
	EV("L1D.REPLACEMENT", CORE, X86(0x51, 0x01)),
	EV("L2_LINES_IN.ALL", CORE, X86(0xf1, 0x1f)),
	EV("MEM_LOAD_RETIRED.L1_MISS", CORE, X86(0xd1, 0x08)),
	EV("MEM_LOAD_RETIRED.L2_HIT", CORE, X86(0xd1, 0x02)),
	EV("CYCLE_ACTIVITY.STALLS_L1D_MISS", CORE, X86(0xa3, 0x0c) | CMASK(12)),
	EV("CYCLE_ACTIVITY.STALLS_L2_MISS", CORE, X86(0xa3, 0x05) | CMASK(5)),
	EV("CYCLE_ACTIVITY.STALLS_L3_MISS", CORE, X86(0xa3, 0x06) | CMASK(6)),
};

/*
 * The recorded Skylake-X's uncore_imc has no format/ and its msr no
 * events/ (SOURCES.md): the DRAM bandwidth cannot be counted from them.
 */
static const struct ask_case skx_cases[] = {
	{ .names = "TopdownL1", .run = THREADS, ENCS(skx_l1_thread) },
	{ .names = "TopdownL1",
	    .run = THREADS,
	    .smt_off = true,
	    ENCS(skx_l1_nosmt) },
	{ .names = "TopdownL1", .run = CPUS, ENCS(skx_l1_cpus) },
	{ .names = "TopdownL2", .run = CPUS, ENCS(skx_l2_some), .some = true },
	{ .names = "tma_info_system_dram_bw_use",
	    .run = CPUS,
	    .refusal =
		"tma_info_system_dram_bw_use: UNC_M_CAS_COUNT.RD "
		"(uncore_imc/event=4,umask=3,name=UNC_M_CAS_COUNT.RD/): unknown "
		"term 'event' for PMU uncore_imc_0" },
	{ .names = "MemoryBW",
	    .run = CPUS,
	    ENCS(skx_bw_some),
	    .some = true,
	    .note =
		"tma_info_system_dram_bw_use (of MemoryBW): UNC_M_CAS_COUNT.RD" },
	{ .names = "Default", .run = THREADS, ENCS(default_intel_threads) },
	{ .names = NULL },
};

/*
 * Ice Lake-X (SDM, Ice Lake microarchitecture events): TOPDOWN.SLOTS
 * 00H/04H (fixed counter 3: the kernel's slots) leads the topdown-*;
 * INT_MISC.CLEARS_COUNT 0DH/01H cmask 1 edge, INT_MISC.UOP_DROPPING
 * 0DH/10H; tma_retiring's threshold reads tma_heavy_operations:
 * UOPS_RETIRED.SLOTS C2H/02H, UOPS_ISSUED.ANY 0EH/01H, IDQ.MS_UOPS
 * 79H/30H, UOPS_DECODED.DEC0 56H/01H (and cmask 1), IDQ.MITE_UOPS
 * 79H/04H.
 */
static const struct enc icx_l1[] = {
	EV("TOPDOWN.SLOTS", CORE, SLOTS),
	EV("topdown-retiring", CORE, TD(0)),
	EV("topdown-bad-spec", CORE, TD(1)),
	EV("topdown-fe-bound", CORE, TD(2)),
	EV("topdown-be-bound", CORE, TD(3)),
	EV("INT_MISC.CLEARS_COUNT", CORE, X86(0x0d, 0x01) | CMASK(1) | EDGE),
	EV("INT_MISC.UOP_DROPPING", CORE, X86(0x0d, 0x10)),
	EV("UOPS_RETIRED.SLOTS", CORE, X86(0xc2, 0x02)),
	EV("UOPS_ISSUED.ANY", CORE, X86(0x0e, 0x01)),
	EV("IDQ.MS_UOPS", CORE, X86(0x79, 0x30)),
	EV("UOPS_DECODED.DEC0", CORE, X86(0x56, 0x01)),
	EV("cpu/event=0x56,umask=1,cmask=1/", CORE, X86(0x56, 0x01) | CMASK(1)),
	EV("IDQ.MITE_UOPS", CORE, X86(0x79, 0x04)),
};
/* Level 2: CYCLES_0_UOPS_DELIV.CORE 9CH/01H cmask 5, 5 slots a cycle. */
static const struct enc icx_l2_some[] = {
	EV("TOPDOWN.SLOTS", CORE, SLOTS),
	EV("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", CORE,
	    X86(0x9c, 0x01) | CMASK(5)),
	EV("EXE_ACTIVITY.1_PORTS_UTIL", CORE, X86(0xa6, 0x02)),
	EV("EXE_ACTIVITY.2_PORTS_UTIL", CORE, X86(0xa6, 0x04)),
};
/*
 * The kernel's uncore_imc events of Ice Lake-X (the tree's cas_count_read
 * and cas_count_write): event 04H, umask 0FH reads, 30H writes; counted
 * on the recorded machine's two boxes, types 19 and 20, and summed. And
 * the core's: L1D.REPLACEMENT 51H/01H, L1D_PEND_MISS.FB_FULL 48H/02H,
 * .FB_FULL_PERIODS 48H/02H cmask 1 edge, .L2_STALL 48H/04H.
 */
static const struct enc icx_bw_some[] = {
	PARTS("UNC_M_CAS_COUNT.RD", 19, X86(0x04, 0x0f), 2, 1, 0),
	PARTS("UNC_M_CAS_COUNT.WR", 19, X86(0x04, 0x30), 2, 1, 0),
	EV("L1D.REPLACEMENT", CORE, X86(0x51, 0x01)),
	EV("L1D_PEND_MISS.FB_FULL", CORE, X86(0x48, 0x02)),
	EV("L1D_PEND_MISS.FB_FULL_PERIODS", CORE,
	    X86(0x48, 0x02) | CMASK(1) | EDGE),
	EV("L1D_PEND_MISS.L2_STALL", CORE, X86(0x48, 0x04)),
};

static const struct ask_case icx_cases[] = {
	{ .names = "TopdownL1",
	    .run = CPUS,
	    ENCS(icx_l1),
	    .lead = "TOPDOWN.SLOTS" },
	{ .names = "TopdownL2",
	    .run = CPUS,
	    ENCS(icx_l2_some),
	    .some = true,
	    .lead = "TOPDOWN.SLOTS" },
	{ .names = "MemoryBW", .run = CPUS, ENCS(icx_bw_some), .some = true },
	{ .names = "MemoryBW",
	    .run = THREADS,
	    .some = true,
	    .note = "tma_info_system_dram_bw_use (of MemoryBW): it counts "
		    "UNC_M_CAS_COUNT.RD, a whole socket's" },
	{ .names = NULL },
};

/*
 * Sapphire Rapids (SDM, Golden Cove events): TOPDOWN.SLOTS and the eight
 * topdown-*; INT_MISC.UOP_DROPPING ADH/10H (INT_MISC is event ADH here).
 */
static const struct enc spr_l1[] = {
	EV("TOPDOWN.SLOTS", CORE, SLOTS),
	EV("topdown-retiring", CORE, TD(0)),
	EV("topdown-bad-spec", CORE, TD(1)),
	EV("topdown-fe-bound", CORE, TD(2)),
	EV("topdown-be-bound", CORE, TD(3)),
	EV("topdown-heavy-ops", CORE, TD(4)),
	EV("INT_MISC.UOP_DROPPING", CORE, X86(0xad, 0x10)),
};
static const struct enc spr_l2[] = {
	EV("TOPDOWN.SLOTS", CORE, SLOTS),
	EV("topdown-retiring", CORE, TD(0)),
	EV("topdown-bad-spec", CORE, TD(1)),
	EV("topdown-fe-bound", CORE, TD(2)),
	EV("topdown-be-bound", CORE, TD(3)),
	EV("topdown-heavy-ops", CORE, TD(4)),
	EV("topdown-br-mispredict", CORE, TD(5)),
	EV("topdown-fetch-lat", CORE, TD(6)),
	EV("topdown-mem-bound", CORE, TD(7)),
	EV("INT_MISC.UOP_DROPPING", CORE, X86(0xad, 0x10)),
};

static const struct ask_case spr_cases[] = {
	{ .names = "TopdownL1",
	    .run = CPUS,
	    ENCS(spr_l1),
	    .lead = "TOPDOWN.SLOTS" },
	{ .names = "TopdownL2",
	    .run = THREADS,
	    ENCS(spr_l2),
	    .lead = "TOPDOWN.SLOTS" },
	{ .names = "tma_info_system_dram_bw_use",
	    .run = CPUS,
	    .refusal = "tma_info_system_dram_bw_use: UNC_M_CAS_COUNT.RD" },
	{ .names = NULL },
};

/*
 * AMD Zen 3 (PPR for family 19h model 01h): the Data Fabric's DRAM
 * channel reads and writes, DramChannelDataControllerN, event 07H +
 * 40H * N, umask 38H, on amd_df (type 10), whose format puts event bits
 * 11:8 in config bits 35:32. Zen 3 has no pipeline utilization events:
 * no TopDown in its data.
 */
static const struct enc zen3_dram[] = {
	EV("dram_channel_data_controller_0", 10, AMD(0x007, 0x38)),
	EV("dram_channel_data_controller_1", 10, AMD(0x047, 0x38)),
	EV("dram_channel_data_controller_2", 10, AMD(0x087, 0x38)),
	EV("dram_channel_data_controller_3", 10, AMD(0x0c7, 0x38)),
	EV("dram_channel_data_controller_4", 10, AMD(0x107, 0x38)),
	EV("dram_channel_data_controller_5", 10, AMD(0x147, 0x38)),
	EV("dram_channel_data_controller_6", 10, AMD(0x187, 0x38)),
	EV("dram_channel_data_controller_7", 10, AMD(0x1c7, 0x38)),
};
static const struct enc default_amd_cpus[] = {
	EV("cpu-clock", SW, 0),
	EV("context-switches", SW, 3),
	EV("cpu-migrations", SW, 4),
	EV("page-faults", SW, 2),
	EV("instructions", HW, 1),
	EV("cpu-cycles", HW, 0),
	EV("branches", HW, 4),
	EV("branch-misses", HW, 5),
	EV("stalled-cycles-frontend", HW, 7),
	EV("stalled-cycles-backend", HW, 8),
};

static const struct ask_case zen3_cases[] = {
	{ .names = "TopdownL1",
	    .run = CPUS,
	    .refusal =
		"TopdownL1: no such metric or metric group for amdzen3" },
	{ .names = "nps1_die_to_dram", .run = CPUS, ENCS(zen3_dram) },
	{ .names = "nps1_die_to_dram",
	    .run = THREADS,
	    .refusal =
		"nps1_die_to_dram: it counts dram_channel_data_controller_0, a "
		"whole socket's" },
	{ .names = "Default", .run = CPUS, ENCS(default_amd_cpus) },
	{ .names = NULL },
};

/*
 * AMD Zen 4 (PPR for family 19h model 11h): ls_not_halted_cyc 76H,
 * ex_ret_ops C1H, de_src_op_disp.all AAH umask 07H,
 * de_no_dispatch_per_slot 1A0H umask 01H (no ops from the front end),
 * 1EH (back-end stalls), 60H (SMT contention); level 2 adds
 * ex_ret_brn_misp C3H, resyncs_or_nc_redirects 96H, ex_no_retire D6H
 * umask 02H (not complete) and A2H (loads not complete), the front
 * end's no-ops cmask 6 (6 dispatch slots) and ex_ret_ucode_ops 1C2H.
 */
static const struct enc zen4_l1[] = {
	EV("ls_not_halted_cyc", CORE, AMD(0x076, 0x00)),
	EV("ex_ret_ops", CORE, AMD(0x0c1, 0x00)),
	EV("de_src_op_disp.all", CORE, AMD(0x0aa, 0x07)),
	EV("de_no_dispatch_per_slot.no_ops_from_frontend", CORE,
	    AMD(0x1a0, 0x01)),
	EV("de_no_dispatch_per_slot.backend_stalls", CORE, AMD(0x1a0, 0x1e)),
	EV("de_no_dispatch_per_slot.smt_contention", CORE, AMD(0x1a0, 0x60)),
};
static const struct enc zen4_l2[] = {
	EV("ls_not_halted_cyc", CORE, AMD(0x076, 0x00)),
	EV("ex_ret_ops", CORE, AMD(0x0c1, 0x00)),
	EV("de_src_op_disp.all", CORE, AMD(0x0aa, 0x07)),
	EV("de_no_dispatch_per_slot.no_ops_from_frontend", CORE,
	    AMD(0x1a0, 0x01)),
	EV("cpu/event=0x1a0,umask=1,cmask=0x6/", CORE,
	    AMD(0x1a0, 0x01) | CMASK(6)),
	EV("de_no_dispatch_per_slot.backend_stalls", CORE, AMD(0x1a0, 0x1e)),
	EV("ex_ret_brn_misp", CORE, AMD(0x0c3, 0x00)),
	EV("resyncs_or_nc_redirects", CORE, AMD(0x096, 0x00)),
	EV("ex_no_retire.not_complete", CORE, AMD(0x0d6, 0x02)),
	EV("ex_no_retire.load_not_complete", CORE, AMD(0x0d6, 0xa2)),
	EV("ex_ret_ucode_ops", CORE, AMD(0x1c2, 0x00)),
};

/* Linux 6.1 has no amd_umc PMU: Zen 4's memory controllers uncounted. */
static const struct ask_case zen4_cases[] = {
	{ .names = "PipelineL1", .run = CPUS, ENCS(zen4_l1) },
	{ .names = "PipelineL1", .run = THREADS, ENCS(zen4_l1) },
	{ .names = "PipelineL2", .run = CPUS, ENCS(zen4_l2) },
	{ .names = "TopdownL1",
	    .run = CPUS,
	    .refusal =
		"TopdownL1: no such metric or metric group for amdzen4" },
	{ .names = "umc_mem_bandwidth",
	    .run = CPUS,
	    .refusal =
		"umc_mem_bandwidth: umc_cas_cmd.all (amd_umc/event=0xa,"
		"name=umc_cas_cmd.all/): no PMU 'amd_umc' in this kernel" },
	{ .names = "Default", .run = CPUS, ENCS(default_amd_cpus) },
	{ .names = NULL },
};

/*
 * A two-socket Genoa on Linux 6.12: a memory controller's CAS commands
 * (PPR for family 19h model 11h, UMC events): event 0AH, reads rdwrmask
 * 1 and writes 2 (config bits 9:8), all 0; each summed over the 24
 * controllers, amd_umc_0 to _23, types 14 to 37.
 */
static const struct enc genoa_umc[] = {
	PARTS("umc_cas_cmd.rd", 14, 0x10a, 24, 1, 0),
	PARTS("umc_cas_cmd.wr", 14, 0x20a, 24, 1, 0),
	PARTS("umc_cas_cmd.all", 14, 0x00a, 24, 1, 0),
};

static const struct ask_case genoa_cases[] = {
	{ .names = "PipelineL1", .run = CPUS, ENCS(zen4_l1) },
	{ .names =
		"umc_mem_read_bandwidth,umc_mem_write_bandwidth,umc_mem_bandwidth",
	    .run = CPUS,
	    ENCS(genoa_umc) },
	{ .names = "umc_mem_bandwidth",
	    .run = THREADS,
	    .refusal =
		"umc_mem_bandwidth: it counts umc_cas_cmd.all, a whole socket's" },
	{ .names = NULL },
};

/*
 * Alder Lake: the P-cores' TopDown on cpu_core (type 4), led by
 * TOPDOWN.SLOTS, INT_MISC.UOP_DROPPING ADH/10H; the E-cores' on
 * cpu_atom (type 8), Gracemont's events: TOPDOWN_FE_BOUND.ALL 71H/00H,
 * TOPDOWN_BE_BOUND.ALL 74H/00H, TOPDOWN_RETIRING.ALL C2H/00H,
 * CPU_CLK_UNHALTED.CORE 3CH/00H. The data names them cpu_atom@...@: rows
 * call them by their encoding.
 */
static const struct enc adl_l1[] = {
	EV("cpu_core/event=0,umask=4/", CORE, SLOTS),
	EV("cpu_core/topdown-retiring/", CORE, TD(0)),
	EV("cpu_core/topdown-bad-spec/", CORE, TD(1)),
	EV("cpu_core/topdown-fe-bound/", CORE, TD(2)),
	EV("cpu_core/topdown-be-bound/", CORE, TD(3)),
	EV("cpu_core/topdown-heavy-ops/", CORE, TD(4)),
	EV("cpu_core/event=0xad,umask=0x10/", CORE, X86(0xad, 0x10)),
	EV("cpu_atom/event=0x71/", 8, X86(0x71, 0x00)),
	EV("cpu_atom/event=0x74/", 8, X86(0x74, 0x00)),
	EV("cpu_atom/event=0xc2/", 8, X86(0xc2, 0x00)),
	EV("cpu_atom/event=0x3c/", 8, X86(0x3c, 0x00)),
};

/*
 * Level 2 adds topdown-br-mispredict, -fetch-lat and -mem-bound to the
 * P-cores' group: slots and 8 metrics. The kernel counts the metrics in
 * PERF_METRICS, with no counter each; libcpc gives the recorded Alder
 * Lake 8 counters and counts each event as one, so that group is more
 * than one of its groups takes (a limit of libcpc's, not of the plan's).
 */
static const struct enc adl_l2_some[] = {
	EV("cpu_core/event=0,umask=4/", CORE, SLOTS),
	EV("cpu_core/topdown-br-mispredict/", CORE, TD(5)),
	EV("cpu_core/topdown-fetch-lat/", CORE, TD(6)),
	EV("cpu_core/topdown-mem-bound/", CORE, TD(7)),
};

static const struct ask_case adl_cases[] = {
	{ .names = "TopdownL1",
	    .run = CPUS,
	    ENCS(adl_l1),
	    .lead = "cpu_core/event=0,umask=4/" },
	{ .names = "TopdownL2",
	    .run = CPUS,
	    ENCS(adl_l2_some),
	    .some = true,
	    .lead = "cpu_core/event=0,umask=4/",
	    .too_many = "the P-cores' TopDown group" },
	{ .names = NULL },
};

/*
 * The RK3588's Cortex-A55 and A76: no model in the vendors' data, perf's
 * common metrics alone; generic events counted on both core PMUs
 * (armv8_cortex_a55 type 10, armv8_cortex_a76 type 11), the PMU's type
 * in config bits 63:32 (the kernel's extended type).
 */
static const struct enc rk3588_default[] = {
	EV("cpu-clock", SW, 0),
	EV("context-switches", SW, 3),
	EV("cpu-migrations", SW, 4),
	EV("page-faults", SW, 2),
	PARTS("cpu-cycles", HW, 0xa00000000ULL, 2, 0, 0x100000000ULL),
	PARTS("instructions", HW, 0xa00000001ULL, 2, 0, 0x100000000ULL),
	PARTS("branches", HW, 0xa00000004ULL, 2, 0, 0x100000000ULL),
	PARTS("branch-misses", HW, 0xa00000005ULL, 2, 0, 0x100000000ULL),
	PARTS("stalled-cycles-frontend", HW, 0xa00000007ULL, 2, 0,
	    0x100000000ULL),
	PARTS(
	    "stalled-cycles-backend", HW, 0xa00000008ULL, 2, 0, 0x100000000ULL),
};

static const struct ask_case rk3588_cases[] = {
	{ .names = "TopdownL1",
	    .run = CPUS,
	    .refusal = "TopdownL1: no such metric or metric group for CPU "
		       "0x00000000410fd0" },
	{ .names = "Default", .run = CPUS, ENCS(rk3588_default) },
	{ .names = NULL },
};

/*
 * A guest with no core PMU: perf's metrics of software events only,
 * those of hardware events left out, each said; TopDown refused.
 */
static const struct enc psys_default[] = {
	EV("cpu-clock", SW, 0),
	EV("context-switches", SW, 3),
	EV("cpu-migrations", SW, 4),
	EV("page-faults", SW, 2),
};

static const struct ask_case psys_cases[] = {
	{ .names = "Default",
	    .run = CPUS,
	    ENCS(psys_default),
	    .note =
		"insn_per_cycle (of Default): instructions (cpu/instructions/): "
		"a hardware event, and this kernel has no hardware counters" },
	{ .names = "TopdownL1",
	    .run = CPUS,
	    .refusal = "TopdownL1: none of its" },
	{ .names = NULL },
};

static const struct machine machines[] = {
	{ "intel-skylakex", "skx", "GenuineIntel-6-55-4", { 28, 14, 1, 1 },
	    skx_cases },
	{ "intel-icelakex", "icx", "GenuineIntel-6-6A-6", { 0, 0, 0, 0 },
	    icx_cases },
	{ "intel-sapphirerapids", "spr", "GenuineIntel-6-8F-8",
	    { 112, 56, 1, 1 }, spr_cases },
	{ "amd-zen3", "amd64_fam19h_zen3", "AuthenticAMD-25-1-1",
	    { 64, 32, 1, 1 }, zen3_cases },
	{ "amd-zen4", "amd64_fam19h_zen4", "AuthenticAMD-25-11-1",
	    { 32, 16, 1, 1 }, zen4_cases },
	{ "amd-genoa-2s", "amd64_fam19h_zen4", "AuthenticAMD-25-11-1",
	    { 384, 192, 2, 2 }, genoa_cases },
	{ "intel-alderlake-hybrid", NO_PFM_MODEL, "GenuineIntel-6-97-2",
	    { 24, 16, 1, 1 }, adl_cases },
	{ "arm-rk3588-biglittle", NO_PFM_MODEL, "0x00000000410fd050",
	    { 8, 8, 1, 1 }, rk3588_cases },
	{ "arm-rk3588-biglittle", NO_PFM_MODEL, "0x00000000410fd0b0",
	    { 8, 8, 1, 1 }, rk3588_cases },
	{ "intel-vm-psys", NO_PFM_MODEL, "GenuineIntel-6-CF-2", { 0, 0, 0, 0 },
	    psys_cases },
};

#define NMACHINES ((int)(sizeof(machines) / sizeof(machines[0])))

static struct spec_items items;
static char err[1024], notes[64 * 1024];

/* The machine's facts for a run: its tree's, or those recorded. */
static bool
env_for(const struct machine *m, const char *root, const char *core_pmu,
    const struct ask_case *c, struct metric_env *env)
{
	const struct facts *f = &m->facts;

	memset(env, 0, sizeof(*env));
	if (f->cpus == 0) {
		if (metric_env_host(
			env, root, core_pmu, c->run == CPUS, NULL) != 0)
			return false;
	} else {
		env->smt_on = f->cpus > f->cores;
		env->num_cpus = env->num_cpus_online = f->cpus;
		env->num_cores = f->cores;
		env->num_packages = f->packages;
		env->num_dies = f->dies;
		env->system_wide = c->run == CPUS;
		env->siblings_counted = c->run == CPUS;
	}
	if (c->smt_off)
		env->smt_on = 0;
	return metric_cpuid(root, env->cpuid, sizeof(env->cpuid)) == 0;
}

/* The expected encoding of the event rows call name, or NULL. */
static const struct enc *
enc_of(const struct ask_case *c, const char *name)
{
	int i;

	for (i = 0; i < c->nencs; i++)
		if (strcmp(c->encs[i].name, name) == 0)
			return &c->encs[i];
	return NULL;
}

/* An event of the set, as libcpc encodes it, against the vendor's. */
static void
check_event(cpc_t *cpc, const struct ask_case *c, const char *event)
{
	struct ev_entry_view v;
	const struct enc *want;
	char name[256];
	int t, parts;
	bool ok;

	spec_item_name(event, name, sizeof(name));
	ok = cpclib_event_view(cpc, event, &v) && v.enc.nterms >= 1;
	printf("  %s:", name);
	for (t = 0; ok && t < (int)v.enc.nterms; t++)
		printf(" %u/%#llx", v.enc.term[t].attr.type,
		    (unsigned long long)v.enc.term[t].attr.config);
	printf("\n");
	if ((want = enc_of(c, name)) == NULL) {
		check_count++;
		if (!c->some) {
			check_failures++;
			fprintf(stderr, "-M %s: %s: not expected\n", c->names,
			    event);
		}
		return;
	}
	parts = want->parts > 0 ? want->parts : 1;
	ok = ok && (int)v.enc.nterms == parts;
	for (t = 0; ok && t < parts; t++)
		ok = v.enc.term[t].attr.type ==
			want->type + (uint32_t)t * want->type_step &&
		    v.enc.term[t].attr.config ==
			want->config + (uint64_t)t * want->config_step;
	check_count++;
	if (!ok) {
		check_failures++;
		fprintf(stderr,
		    "-M %s: %s: expected %d part(s) from type %u config "
		    "%#llx\n",
		    c->names, event, parts, want->type,
		    (unsigned long long)want->config);
	}
}

/* The most events one group of the spec holds. */
static int
largest_group(void)
{
	int most = 0, g, n, i;

	for (g = 1; g <= items.ngroups; g++) {
		for (n = 0, i = 0; i < items.n; i++)
			n += items.group[i] == g;
		if (n > most)
			most = n;
	}
	return most;
}

/*
 * The events of p's spec against the vendors', and the set spec_parse
 * makes of it, as the run makes it, with the plan bound to that set.
 */
static void
check_set(cpc_t *cpc, const struct ask_case *c, struct metric_plan *p)
{
	const char *spec = metric_plan_spec(p);
	enum spec_error se;
	struct spec *set;
	int i;

	spec_items_split(spec, &items);
	CHECK(items.n > 0 && !items.outside);
	for (i = 0; i < items.n; i++)
		check_event(cpc, c, items.text[i]);
	for (i = 0; i < c->nencs; i++)
		if (spec_item_find(&items, c->encs[i].name) < 0) {
			CHECK(false);
			fprintf(stderr, "-M %s: %s not counted\n", c->names,
			    c->encs[i].name);
		}
	set = spec_parse(cpc, spec, &se);
	check_count++;
	if ((set != NULL) != (c->too_many == NULL)) {
		check_failures++;
		fprintf(stderr, "-M %s: its set %s\n", c->names,
		    set != NULL ? "made" : "not made");
	}
	if (set == NULL) {
		printf("  a group of %d events, %u counters: %s\n",
		    largest_group(), cpc_npic(cpc),
		    c->too_many != NULL ? c->too_many : "");
		return;
	}
	CHECK(set->nreqs == items.n);
	CHECK(metric_plan_bind(p, set, err, sizeof(err)) == 0);
	spec_free(set);
}

/* TopDown's group: led by c->lead, every topdown-* in it. */
static void
check_lead(const struct ask_case *c)
{
	char name[256];
	int i, first = -1;

	for (i = 0; i < items.n && first < 0; i++)
		if (strstr(items.text[i], "topdown-") != NULL)
			first = i;
	CHECK(first > 0);
	if (first <= 0)
		return;
	while (first > 0 && items.group[first - 1] == items.group[first])
		first--;
	spec_item_name(items.text[first], name, sizeof(name));
	CHECK(strcmp(name, c->lead) == 0);
	for (i = 0; i < items.n; i++)
		if (strstr(items.text[i], "topdown-") != NULL)
			CHECK(
			    i > first && items.group[i] == items.group[first]);
}

static void
check_case(cpc_t *cpc, const struct machine *m, const char *root,
    const struct ask_case *c)
{
	struct metric_ask ask = { .names = c->names,
		.per_thread = c->run == THREADS,
		.core_pmu = cpc_core_pmu(cpc, 0, NULL),
		.modes = "uk",
		/* The recorded kernels' NMI watchdog is not known: none. */
		.counters = (int)cpc_npic(cpc),
		.event_kind = metrics_option_event_kind,
		.arg = cpc };
	struct metric_env env;
	struct metric_plan *p;

	printf("-M %s (%s%s):\n", c->names, c->run == CPUS ? "CPUs" : "threads",
	    c->smt_off ? ", SMT off" : "");
	CHECK(env_for(m, root, ask.core_pmu, c, &env));
	p = metric_plan_new(metric_model_of(env.cpuid), &env, &ask, err,
	    sizeof(err), notes, sizeof(notes));
	printf("  %s\n%s", p != NULL ? "taken" : err, p != NULL ? notes : "");
	check_count++;
	if (c->refusal != NULL ? p != NULL ||
		    strncmp(err, c->refusal, strlen(c->refusal)) != 0 ||
		    strchr(err, '\n') != NULL :
				 p == NULL) {
		check_failures++;
		fprintf(stderr, "-M %s: '%s', expected %s\n", c->names,
		    p != NULL ? metric_plan_spec(p) : err,
		    c->refusal != NULL ? c->refusal : "a plan");
	}
	if (c->note != NULL)
		CHECK(strstr(notes, c->note) != NULL);
	if (p == NULL)
		return;
	check_set(cpc, c, p);
	if (c->lead != NULL)
		check_lead(c);
	metric_plan_free(p);
}

static int
child_machine(int i)
{
	const struct machine *m = &machines[i];
	const struct ask_case *c;
	char root[512];
	cpc_t *cpc;

	/*
	 * The machine's CPU and libpfm4 model, whatever the host's: libpfm4
	 * reads LIBPFM_FORCE_PMU once, when cpc_open initializes it.
	 */
	if (setenv("LIBPFM_FORCE_PMU", m->pfm, 1) != 0 ||
	    setenv("PERF_CPUID", m->cpuid, 1) != 0 ||
	    unsetenv("LIBPFM_DISABLED_PMUS") != 0 ||
	    unsetenv("LIBPFM_ENCODE_INACTIVE") != 0) {
		CHECK(false);
		return check_report(m->tree);
	}
	snprintf(root, sizeof(root), "%s/tests/unit/sysfs-trees/%s", SOURCE_DIR,
	    m->tree);
	cpclib_set_sysfs_root(root, 1);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		CHECK(false);
		return check_report(m->tree);
	}
	printf("%s, %s: core PMU %s, %u counters\n", m->tree, m->cpuid,
	    cpc_core_pmu(cpc, 0, NULL) != NULL ? cpc_core_pmu(cpc, 0, NULL) :
						 "none",
	    cpc_npic(cpc));
	for (c = m->cases; c->names != NULL; c++)
		check_case(cpc, m, root, c);
	cpc_close(cpc);
	fflush(stdout);
	return check_failures > 0;
}

/*
 * Machine i's run, in a process of its own started with this one's
 * environment: its answers into out (len bytes); whether it passed.
 */
static bool
run_machine(const char *self, int i, char *out, size_t len)
{
	char arg[16];
	size_t n = 0;
	ssize_t r;
	int fds[2], status;
	pid_t pid;

	if (pipe(fds) != 0)
		return false;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		snprintf(arg, sizeof(arg), "%d", i);
		execl(self, self, "--machine", arg, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && n + 1 < len &&
	    (r = read(fds[0], out + n, len - n - 1)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The host's libpfm4 model: detected (NULL), or forced to host. */
static void
set_host(const char *host)
{
	if (host != NULL)
		(void)setenv("LIBPFM_FORCE_PMU", host, 1);
	else
		(void)unsetenv("LIBPFM_FORCE_PMU");
}

int
main(int argc, char **argv)
{
	/* Hosts of five models, as libpfm4 has them forced. */
	static const char *const hosts[] = { "skx", "icx", "spr",
		"amd64_fam19h_zen3", "amd64_fam19h_zen4" };
	static char first[TRANSCRIPT_MAX], again[TRANSCRIPT_MAX];
	char self[4096], *given = NULL;
	ssize_t len;
	size_t h;
	int i;

	if (argc == 3 && strcmp(argv[1], "--machine") == 0)
		return child_machine(atoi(argv[2]));
	if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		SKIP("cannot find this program: %s", strerror(errno));
	self[len] = '\0';
	/* The host's as the test was started: detected, or forced. */
	if (getenv("LIBPFM_FORCE_PMU") != NULL &&
	    (given = strdup(getenv("LIBPFM_FORCE_PMU"))) == NULL)
		SKIP("no memory");
	for (i = 0; i < NMACHINES; i++) {
		set_host(given);
		check_count++;
		if (!run_machine(self, i, first, sizeof(first))) {
			check_failures++;
			fprintf(stderr, "%s: failed; it answered:\n%s",
			    machines[i].tree, first);
			continue;
		}
		if (getenv("METRIC_MODELS_VERBOSE") != NULL)
			fputs(first, stdout);
		/* The same answers, whichever model the host's libpfm4 has. */
		for (h = 0; h < sizeof(hosts) / sizeof(hosts[0]); h++) {
			set_host(hosts[h]);
			check_count++;
			if (!run_machine(self, i, again, sizeof(again)) ||
			    strcmp(first, again) != 0) {
				check_failures++;
				fprintf(stderr,
				    "%s: on a host of %s, it answered:\n%s",
				    machines[i].tree, hosts[h], again);
			}
		}
	}
	free(given);
	return check_report("test_metric_models");
}
