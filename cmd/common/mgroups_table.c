/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The metric groups (see mgroups.h), as data. Event names are those rows
 * name their counters with: perf's canonical generic names (cpu-cycles,
 * branch-instructions), the kernel's sysfs event aliases (slots,
 * topdown-retiring, stall_slot_frontend), libpfm4's names of a model's
 * native events (UOPS_ISSUED:ANY), PMU/event/ for the PMUs that count a
 * socket (uncore_imc, power), with terms where the kernel names none
 * (amd_df/event=0x07,umask=0x38/). Where a formula's facts come from is in
 * cmd/common/SOURCES, under each group's source.
 *
 * Percentages of TopDown are of the issue (dispatch) slots: the CPU's
 * width times its unhalted cycles.
 *
 * A variant's first event is one only the CPUs it is for have: where no
 * variant counts, the refusal speaks of the one whose first event does.
 */
#include "mgroups.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/*
 * perf stat's "shadow" metrics: each is given wherever the run's own
 * events hold all its inputs, with the same modes. Per CPU, cpu-clock
 * stands for task-clock, as in perf stat -a; a set with both takes
 * task-clock's (the first of a key wins). The clocks count ns.
 */
static const struct mgroup_metric default_metrics[] = {
	{ "ipc", "insn per cycle", "instructions / cpu-cycles", "",
	    "instructions retired per CPU cycle" },
	{ "cpi", "cycles per insn", "cpu-cycles / instructions", "",
	    "CPU cycles per instruction retired" },
	{ "branch_miss_pct", "of all branches",
	    "branch-misses / branch-instructions * 100", "%",
	    "branches mispredicted, of all branches" },
	{ "cache_miss_pct", "of all cache refs",
	    "cache-misses / cache-references * 100", "%",
	    "last-level cache misses, of its references" },
	{ "l1d_miss_pct", "of all L1-dcache accesses",
	    "L1-dcache-load-misses / L1-dcache-loads * 100", "%",
	    "L1 data cache load misses, of its loads" },
	{ "cpus_utilized", "CPUs utilized", "task-clock / #elapsed", "",
	    "CPU time per wall-clock time: CPUs busy on average" },
	{ "ghz", "GHz", "cpu-cycles / task-clock", "",
	    "cycles per ns of CPU time: the clock while running" },
	{ "page_faults_k_per_sec", "page-faults",
	    "page-faults / task-clock * 1e6", "K/sec",
	    "thousands of page faults per second of CPU time" },
	{ "minor_faults_k_per_sec", "minor-faults",
	    "minor-faults / task-clock * 1e6", "K/sec",
	    "thousands of minor faults per second of CPU time" },
	{ "major_faults_k_per_sec", "major-faults",
	    "major-faults / task-clock * 1e6", "K/sec",
	    "thousands of major faults per second of CPU time" },
	{ "context_switches_k_per_sec", "context-switches",
	    "context-switches / task-clock * 1e6", "K/sec",
	    "thousands of context switches per second of CPU time" },
	{ "cpu_migrations_k_per_sec", "cpu-migrations",
	    "cpu-migrations / task-clock * 1e6", "K/sec",
	    "thousands of migrations per second of CPU time" },
	{ "cpus_utilized", "CPUs utilized", "cpu-clock / #elapsed", "",
	    "CPU time per wall-clock time: CPUs busy on average" },
	{ "page_faults_k_per_sec", "page-faults",
	    "page-faults / cpu-clock * 1e6", "K/sec",
	    "thousands of page faults per second of CPU time" },
	{ "context_switches_k_per_sec", "context-switches",
	    "context-switches / cpu-clock * 1e6", "K/sec",
	    "thousands of context switches per second of CPU time" },
	{ "cpu_migrations_k_per_sec", "cpu-migrations",
	    "cpu-migrations / cpu-clock * 1e6", "K/sec",
	    "thousands of migrations per second of CPU time" },
};

static const struct mgroup_metric ipc_metrics[] = {
	{ "ipc", "insn per cycle", "instructions / cpu-cycles", "",
	    "instructions retired per CPU cycle" },
	{ "cpi", "cycles per insn", "cpu-cycles / instructions", "",
	    "CPU cycles per instruction retired" },
};

static const struct mgroup_metric branch_metrics[] = {
	{ "branch_miss_pct", "of all branches",
	    "branch-misses / branch-instructions * 100", "%",
	    "branches mispredicted, of all branches" },
	{ "branch_mpki", "branch misses per 1k insn",
	    "branch-misses * 1000 / instructions", "",
	    "branches mispredicted per thousand instructions" },
	{ "branch_pct", "of insn are branches",
	    "branch-instructions / instructions * 100", "%",
	    "branches, of all instructions" },
};

static const struct mgroup_metric cache_metrics[] = {
	{ "cache_miss_pct", "of all cache refs",
	    "cache-misses / cache-references * 100", "%",
	    "last-level cache misses, of its references" },
	{ "cache_mpki", "cache misses per 1k insn",
	    "cache-misses * 1000 / instructions", "",
	    "last-level cache misses per thousand instructions" },
};

/*
 * Intel Ice Lake and later: the kernel reads PERF_METRICS, each level-1
 * share of TOPDOWN.SLOTS (fixed counter 3), as topdown-* counts in
 * slots; slots must lead their group. T names an event: as it is, or on
 * a hybrid CPU, of the P-cores' PMU (the E-cores' topdown-* are other
 * events, counts of slots rather than shares of PERF_METRICS).
 */
#define TD(x)		  x
#define TD_CORE(x)	  "{cpu_core/" x "/}"
#define ICL_SHARE(T, ev)  "100 * " T(ev) " / " T("slots")
#define ICL_REST(T, a, b) "100 * (" T(a) " - " T(b) ") / " T("slots")
#define ICL_L1(T)                                                                     \
	{                                                                             \
		{ "tma_retiring", "retiring",                                         \
			ICL_SHARE(T, "topdown-retiring"), "%",                        \
			"slots that retired an operation: useful work" },             \
		    { "tma_bad_speculation", "bad speculation",                       \
			    ICL_SHARE(T, "topdown-bad-spec"), "%",                    \
			    "slots spent on operations that never retired "           \
			    "(mispredicts, clears)" },                                \
		    { "tma_frontend_bound", "frontend bound",                         \
			    ICL_SHARE(T, "topdown-fe-bound"), "%",                    \
			    "slots the front end left empty: fetch and decode too "   \
			    "slow" },                                                 \
		{                                                                     \
			"tma_backend_bound", "backend bound",                         \
			    ICL_SHARE(T, "topdown-be-bound"), "%",                    \
			    "slots the back end could not take: memory or execution " \
			    "units"                                                   \
		}                                                                     \
	}
static const struct mgroup_metric icl_l1_metrics[] = ICL_L1(TD);
static const struct mgroup_metric icl_l1_core_metrics[] = ICL_L1(TD_CORE);

/* Skylake (server): 4 issue slots per cycle, no PERF_METRICS. */
#define SKL_SLOTS "(4 * cpu-cycles)"
static const struct mgroup_metric skl_l1_metrics[] = {
	{ "tma_retiring", "retiring",
	    "100 * UOPS_RETIRED:RETIRE_SLOTS / " SKL_SLOTS, "%",
	    "slots that retired an operation: useful work" },
	{ "tma_bad_speculation", "bad speculation",
	    "100 * (UOPS_ISSUED:ANY - UOPS_RETIRED:RETIRE_SLOTS + 4 * "
	    "INT_MISC:RECOVERY_CYCLES) / " SKL_SLOTS,
	    "%",
	    "slots spent on operations that never retired (mispredicts, "
	    "clears)" },
	{ "tma_frontend_bound", "frontend bound",
	    "100 * IDQ_UOPS_NOT_DELIVERED:CORE / " SKL_SLOTS, "%",
	    "slots the front end left empty: fetch and decode too slow" },
	{ "tma_backend_bound", "backend bound",
	    "100 - 100 * (IDQ_UOPS_NOT_DELIVERED:CORE + UOPS_ISSUED:ANY + 4 * "
	    "INT_MISC:RECOVERY_CYCLES) / " SKL_SLOTS,
	    "%",
	    "slots the back end could not take: memory or execution units" },
};

/* AMD Zen 4: 6 dispatch slots per cycle. */
#define ZEN4_SLOTS "(6 * CYCLES_NOT_IN_HALT)"
#define ZEN4_OPS_DISPATCHED \
	"{OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER}"
static const struct mgroup_metric zen4_l1_metrics[] = {
	{ "tma_retiring", "retiring", "100 * RETIRED_OPS / " ZEN4_SLOTS, "%",
	    "slots that retired an operation: useful work" },
	{ "tma_bad_speculation", "bad speculation",
	    "100 * (" ZEN4_OPS_DISPATCHED " - RETIRED_OPS) / " ZEN4_SLOTS, "%",
	    "slots spent on operations that never retired (mispredicts, "
	    "clears)" },
	{ "tma_frontend_bound", "frontend bound",
	    "100 * DISPATCH_STALLS_1:FE_NO_OPS / " ZEN4_SLOTS, "%",
	    "slots the front end left empty: fetch and decode too slow" },
	{ "tma_backend_bound", "backend bound",
	    "100 * DISPATCH_STALLS_1:BE_STALLS / " ZEN4_SLOTS, "%",
	    "slots the back end could not take: memory or execution units" },
};

/*
 * Arm Neoverse (PMUv3 with the STALL_SLOT events): #slots is the core
 * PMU's caps/slots. A misprediction costs the front end 1 slot-cycle
 * and the back end 3, which the vendor's method moves to bad
 * speculation.
 */
#define ARM_SLOTS  "(#slots * cpu_cycles)"
#define ARM_ISSUED "(1 - stall_slot / " ARM_SLOTS ")"
static const struct mgroup_metric arm_l1_metrics[] = {
	{ "tma_retiring", "retiring",
	    "100 * op_retired / op_spec * " ARM_ISSUED, "%",
	    "slots that retired an operation: useful work" },
	{ "tma_bad_speculation", "bad speculation",
	    "100 * ((1 - op_retired / op_spec) * " ARM_ISSUED
	    " + 4 * br_mis_pred / cpu_cycles)",
	    "%",
	    "slots spent on operations that never retired (mispredicts, "
	    "clears)" },
	{ "tma_frontend_bound", "frontend bound",
	    "100 * (stall_slot_frontend / " ARM_SLOTS
	    " - br_mis_pred / cpu_cycles)",
	    "%", "slots the front end left empty: fetch and decode too slow" },
	{ "tma_backend_bound", "backend bound",
	    "100 * (stall_slot_backend / " ARM_SLOTS
	    " - 3 * br_mis_pred / cpu_cycles)",
	    "%",
	    "slots the back end could not take: memory or execution units" },
};

/* Golden Cove (Sapphire Rapids, Alder Lake's P-cores): level 2 too. */
#define GLC_L2(T)                                                                     \
	{                                                                             \
		{                                                                     \
			"tma_heavy_operations", "heavy operations",                   \
			ICL_SHARE(T, "topdown-heavy-ops"), "%",                       \
			"retiring slots of operations of several uops (microcode)"    \
		},                                                                    \
		    { "tma_light_operations", "light operations",                     \
			    ICL_REST(                                                 \
				T, "topdown-retiring", "topdown-heavy-ops"),          \
			    "%", "retiring slots of single-uop operations" },         \
		    { "tma_branch_mispredicts", "branch mispredicts",                 \
			    ICL_SHARE(T, "topdown-br-mispredict"), "%",               \
			    "slots lost to mispredicted branches" },                  \
		    { "tma_machine_clears", "machine clears",                         \
			    ICL_REST(T, "topdown-bad-spec",                           \
				"topdown-br-mispredict"),                             \
			    "%",                                                      \
			    "slots lost to pipeline clears (memory ordering, "        \
			    "self-modifying code)" },                                 \
		    { "tma_fetch_latency", "fetch latency",                           \
			    ICL_SHARE(T, "topdown-fetch-lat"), "%",                   \
			    "front-end slots empty because nothing was fetched "      \
			    "(i-cache, iTLB, resteers)" },                            \
		    { "tma_fetch_bandwidth", "fetch bandwidth",                       \
			    ICL_REST(                                                 \
				T, "topdown-fe-bound", "topdown-fetch-lat"),          \
			    "%",                                                      \
			    "front-end slots empty because decode delivered too few " \
			    "uops" },                                                 \
		    { "tma_memory_bound", "memory bound",                             \
			    ICL_SHARE(T, "topdown-mem-bound"), "%",                   \
			    "back-end slots waiting on the memory hierarchy" },       \
		{                                                                     \
			"tma_core_bound", "core bound",                               \
			    ICL_REST(                                                 \
				T, "topdown-be-bound", "topdown-mem-bound"),          \
			    "%", "back-end slots waiting on execution units"          \
		}                                                                     \
	}
static const struct mgroup_metric glc_l2_metrics[] = GLC_L2(TD);
static const struct mgroup_metric glc_l2_core_metrics[] = GLC_L2(TD_CORE);

/*
 * Skylake (server), level 2 of the front end and of bad speculation:
 * more events than its 4 general counters with SMT on.
 */
#define SKL_BAD_SPEC                                          \
	"(UOPS_ISSUED:ANY - UOPS_RETIRED:RETIRE_SLOTS + 4 * " \
	"INT_MISC:RECOVERY_CYCLES)"
#define SKL_MISP_SHARE                                                    \
	"BR_MISP_RETIRED:ALL_BRANCHES / (BR_MISP_RETIRED:ALL_BRANCHES + " \
	"MACHINE_CLEARS:COUNT)"
static const struct mgroup_metric skl_l2_metrics[] = {
	{ "tma_fetch_latency", "fetch latency",
	    "100 * 4 * IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE / " SKL_SLOTS,
	    "%",
	    "front-end slots empty because nothing was fetched (i-cache, "
	    "iTLB, resteers)" },
	{ "tma_fetch_bandwidth", "fetch bandwidth",
	    "100 * (IDQ_UOPS_NOT_DELIVERED:CORE - 4 * "
	    "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE) / " SKL_SLOTS,
	    "%",
	    "front-end slots empty because decode delivered too few uops" },
	{ "tma_branch_mispredicts", "branch mispredicts",
	    "100 * " SKL_MISP_SHARE " * " SKL_BAD_SPEC " / " SKL_SLOTS, "%",
	    "slots lost to mispredicted branches" },
	{ "tma_machine_clears", "machine clears",
	    "100 * (1 - " SKL_MISP_SHARE ") * " SKL_BAD_SPEC " / " SKL_SLOTS,
	    "%",
	    "slots lost to pipeline clears (memory ordering, self-modifying "
	    "code)" },
};

/*
 * A CAS command moves one 64-byte line; bytes per ns are GB/s. The
 * uncore_imc boxes of a socket are summed as one event. Formulas take
 * the counters' raw counts, as rows keep them; the kernel's .scale
 * (6.103515625e-5 MiB, 64 bytes) is the same fact, and rows show the
 * scaled value beside the count (evscale.h).
 */
static const struct mgroup_metric imc_metrics[] = {
	{ "mem_read_gbs", "memory read",
	    "{uncore_imc/cas_count_read/} * 64 / #elapsed", "GB/s",
	    "bytes read from DRAM per second" },
	{ "mem_write_gbs", "memory write",
	    "{uncore_imc/cas_count_write/} * 64 / #elapsed", "GB/s",
	    "bytes written to DRAM per second" },
	{ "mem_total_gbs", "memory total",
	    "({uncore_imc/cas_count_read/} + {uncore_imc/cas_count_write/}) * "
	    "64 / #elapsed",
	    "GB/s", "bytes moved to and from DRAM per second" },
};

/*
 * AMD Zen 2 and Zen 3: the Data Fabric's "DRAM channel controller
 * requests with data" of each of its 8 channels, 64 bytes a request,
 * reads and writes together (the kernel's and AMD's definitions give no
 * split). Event numbers step by 0x40 a channel; the DF counts for the
 * socket (amd_df's cpumask).
 */
#define DF_CH(ev) "{amd_df/event=" ev ",umask=0x38/}"
#define DF_CH_SUM                                                                \
	DF_CH("0x07")                                                            \
	" + " DF_CH("0x47") " + " DF_CH("0x87") " + " DF_CH("0xc7") " + " DF_CH( \
	    "0x107") " + " DF_CH("0x147") " + " DF_CH("0x187") " + " DF_CH("0x1c7")
static const struct mgroup_metric df_zen3_metrics[] = {
	{ "mem_total_gbs", "memory total", "(" DF_CH_SUM ") * 64 / #elapsed",
	    "GB/s", "bytes moved to and from DRAM per second" },
};

/*
 * AMD Zen 4 and Zen 5: each memory controller (UMC, one per DRAM
 * channel) counts its CAS commands, reads (rdwrmask 1) and writes (2)
 * apart, 64 bytes a command. The kernel has a PMU per controller,
 * amd_umc_0 .. amd_umc_N, its cpumask a CPU of the controller's socket:
 * the event of them all is their sum (boxes), each socket's row its own.
 */
#define UMC_RD "{amd_umc/event=0x0a,rdwrmask=0x1/}"
#define UMC_WR "{amd_umc/event=0x0a,rdwrmask=0x2/}"
static const struct mgroup_metric umc_metrics[] = {
	{ "mem_read_gbs", "memory read", UMC_RD " * 64 / #elapsed", "GB/s",
	    "bytes read from DRAM per second" },
	{ "mem_write_gbs", "memory write", UMC_WR " * 64 / #elapsed", "GB/s",
	    "bytes written to DRAM per second" },
	{ "mem_total_gbs", "memory total",
	    "(" UMC_RD " + " UMC_WR ") * 64 / #elapsed", "GB/s",
	    "bytes moved to and from DRAM per second" },
};

/* RAPL counts in units of 2^-32 J (the events' .scale), raw as above. */
#define RAPL_J "2.3283064365386962890625e-10"
static const struct mgroup_metric rapl_metrics[] = {
	{ "energy_pkg_j", "package energy", "{power/energy-pkg/} * " RAPL_J,
	    "J", "joules the package (cores, caches, uncore) used" },
	{ "power_pkg_w", "package power",
	    "{power/energy-pkg/} * " RAPL_J " / #elapsed * 1e9", "W",
	    "the package's average power" },
	{ "energy_ram_j", "DRAM energy", "{power/energy-ram/} * " RAPL_J, "J",
	    "joules the memory used" },
	{ "power_ram_w", "DRAM power",
	    "{power/energy-ram/} * " RAPL_J " / #elapsed * 1e9", "W",
	    "the memory's average power" },
};

static const struct mgroup_metric rapl_pkg_metrics[] = {
	{ "energy_pkg_j", "package energy", "{power/energy-pkg/} * " RAPL_J,
	    "J", "joules the package (cores, caches, uncore) used" },
	{ "power_pkg_w", "package power",
	    "{power/energy-pkg/} * " RAPL_J " / #elapsed * 1e9", "W",
	    "the package's average power" },
};

/* Platform energy (the psys domain: the whole SoC and what it feeds). */
static const struct mgroup_metric rapl_psys_metrics[] = {
	{ "energy_psys_j", "platform energy", "{power/energy-psys/} * " RAPL_J,
	    "J", "joules the platform used (the psys domain)" },
	{ "power_psys_w", "platform power",
	    "{power/energy-psys/} * " RAPL_J " / #elapsed * 1e9", "W",
	    "the platform's average power" },
};

#define TOPDOWN_L1_DESC                                             \
	"TopDown level 1: where the issue slots go (retiring, bad " \
	"speculation, frontend bound, backend bound)"
#define TOPDOWN_L2_DESC "TopDown level 2: each level-1 share split in two"

const struct mgroup mgroup_table[] = {
	{ "Default", "perf stat's derived metrics, for the run's own events",
	    "every CPU", NULL, default_metrics, N(default_metrics),
	    "perf-shadow", NULL, 0 },
	{ "IPC", "instructions per cycle and cycles per instruction",
	    "every CPU with a PMU", "cycles,instructions", ipc_metrics,
	    N(ipc_metrics), "perf-generic", NULL, 0 },
	{ "Branch", "branch mispredictions", "every CPU with a PMU",
	    "instructions,branch-instructions,branch-misses", branch_metrics,
	    N(branch_metrics), "perf-generic", NULL, 0 },
	{ "Cache", "last-level cache misses", "every CPU with a PMU",
	    "instructions,cache-references,cache-misses", cache_metrics,
	    N(cache_metrics), "perf-generic", NULL, 0 },
	{ "TopdownL1", TOPDOWN_L1_DESC,
	    "Intel hybrid CPUs (Alder Lake and later): the P-cores' time",
	    "{cpu_core/slots/,cpu_core/topdown-retiring/,"
	    "cpu_core/topdown-bad-spec/,cpu_core/topdown-fe-bound/,"
	    "cpu_core/topdown-be-bound/}",
	    icl_l1_core_metrics, N(icl_l1_core_metrics), "intel-tma", NULL, 0 },
	{ "TopdownL1", TOPDOWN_L1_DESC,
	    "Intel Ice Lake, Sapphire Rapids and later (slots, topdown-*)",
	    "{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,"
	    "topdown-be-bound}",
	    icl_l1_metrics, N(icl_l1_metrics), "intel-tma", NULL, 0 },
	{ "TopdownL1", TOPDOWN_L1_DESC, "Intel Skylake and Cascade Lake",
	    "UOPS_RETIRED:RETIRE_SLOTS,cycles,UOPS_ISSUED:ANY,"
	    "IDQ_UOPS_NOT_DELIVERED:CORE,INT_MISC:RECOVERY_CYCLES",
	    skl_l1_metrics, N(skl_l1_metrics), "intel-tma", NULL, 0 },
	{ "TopdownL1", TOPDOWN_L1_DESC, "AMD Zen 4",
	    "CYCLES_NOT_IN_HALT,RETIRED_OPS,"
	    "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER,"
	    "DISPATCH_STALLS_1:FE_NO_OPS,DISPATCH_STALLS_1:BE_STALLS",
	    zen4_l1_metrics, N(zen4_l1_metrics), "amd-zen4", NULL, 0 },
	{ "TopdownL1", TOPDOWN_L1_DESC,
	    "Arm Neoverse (PMUv3 STALL_SLOT events)",
	    "cpu_cycles,stall_slot,stall_slot_frontend,stall_slot_backend,"
	    "op_retired,op_spec,br_mis_pred",
	    arm_l1_metrics, N(arm_l1_metrics), "arm-neoverse", NULL, 0 },
	{ "TopdownL2", TOPDOWN_L2_DESC,
	    "Intel hybrid CPUs (Alder Lake and later): the P-cores' time",
	    "{cpu_core/slots/,cpu_core/topdown-retiring/,"
	    "cpu_core/topdown-bad-spec/,cpu_core/topdown-fe-bound/,"
	    "cpu_core/topdown-be-bound/,cpu_core/topdown-heavy-ops/,"
	    "cpu_core/topdown-br-mispredict/,cpu_core/topdown-fetch-lat/,"
	    "cpu_core/topdown-mem-bound/}",
	    glc_l2_core_metrics, N(glc_l2_core_metrics), "intel-tma", NULL, 0 },
	{ "TopdownL2", TOPDOWN_L2_DESC, "Intel Sapphire Rapids and later",
	    "{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,"
	    "topdown-be-bound,topdown-heavy-ops,topdown-br-mispredict,"
	    "topdown-fetch-lat,topdown-mem-bound}",
	    glc_l2_metrics, N(glc_l2_metrics), "intel-tma", NULL, 0 },
	{ "TopdownL2", TOPDOWN_L2_DESC,
	    "Intel Skylake and Cascade Lake (front end and bad speculation)",
	    "UOPS_RETIRED:RETIRE_SLOTS,cycles,UOPS_ISSUED:ANY,"
	    "IDQ_UOPS_NOT_DELIVERED:CORE,INT_MISC:RECOVERY_CYCLES,"
	    "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE,"
	    "BR_MISP_RETIRED:ALL_BRANCHES,MACHINE_CLEARS:COUNT",
	    skl_l2_metrics, N(skl_l2_metrics), "intel-tma", NULL, 0 },
	{ "MemBW", "memory bandwidth per socket, from the memory controllers",
	    "Intel servers (uncore_imc)",
	    "uncore_imc/cas_count_read/,uncore_imc/cas_count_write/",
	    imc_metrics, N(imc_metrics), "intel-uncore", NULL, 0 },
	{ "MemBW", "memory bandwidth per socket, from the memory controllers",
	    "AMD Zen 2 and Zen 3 (amd_df: reads and writes together)",
	    "amd_df/event=0x07,umask=0x38/,amd_df/event=0x47,umask=0x38/,"
	    "amd_df/event=0x87,umask=0x38/,amd_df/event=0xc7,umask=0x38/,"
	    "amd_df/event=0x107,umask=0x38/,amd_df/event=0x147,umask=0x38/,"
	    "amd_df/event=0x187,umask=0x38/,amd_df/event=0x1c7,umask=0x38/",
	    df_zen3_metrics, N(df_zen3_metrics), "amd-df",
	    "AMD64 Fam17h Zen2|AMD64 Fam19h Zen3", 4 },
	{ "MemBW", "memory bandwidth per socket, from the memory controllers",
	    "AMD Zen 4 and Zen 5 (amd_umc, Linux 6.7 and later)",
	    "amd_umc/event=0x0a,rdwrmask=0x1/,amd_umc/event=0x0a,rdwrmask=0x2/",
	    umc_metrics, N(umc_metrics), "amd-umc",
	    "AMD64 Fam19h Zen4|AMD64 Fam1Ah Zen5", 0 },
	{ "Energy", "energy and power per socket (RAPL)",
	    "Intel (package and DRAM domains)",
	    "power/energy-pkg/,power/energy-ram/", rapl_metrics,
	    N(rapl_metrics), "rapl", NULL, 0 },
	{ "Energy", "energy and power per socket (RAPL)",
	    "AMD Zen, and Intel without a DRAM domain (package only)",
	    "power/energy-pkg/", rapl_pkg_metrics, N(rapl_pkg_metrics), "rapl",
	    NULL, 0 },
	{ "Energy", "energy and power per socket (RAPL)",
	    "machines whose RAPL gives only the platform (psys) domain",
	    "power/energy-psys/", rapl_psys_metrics, N(rapl_psys_metrics),
	    "rapl", NULL, 0 },
};

const int mgroup_ntable = N(mgroup_table);
