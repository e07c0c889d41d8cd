/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf's own event names, as data: the kernel's generic software and
 * hardware events (include/uapi/linux/perf_event.h), the cache event
 * grammar's words, perf's "tool" events and its modifiers. Every other
 * name comes from the kernel (sysfs, tracefs) or from libpfm4.
 */
#include <linux/perf_event.h>
#include <stddef.h>

#include "evname.h"

#define SW PERF_TYPE_SOFTWARE
#define HW PERF_TYPE_HARDWARE

/* The kernel's enum name and value, from one token. */
#define KNAME(k) #k, k

const struct ev_legacy cpclib_perf_names[] = {
	{ "cpu-clock", KNAME(PERF_COUNT_SW_CPU_CLOCK), NULL, SW, false,
	    "CPU time, from a high-resolution timer (ns)" },
	{ "task-clock", KNAME(PERF_COUNT_SW_TASK_CLOCK), NULL, SW, false,
	    "time the task ran on a CPU (ns)" },
	{ "page-faults", KNAME(PERF_COUNT_SW_PAGE_FAULTS), NULL, SW, false,
	    "page faults" },
	{ "faults", KNAME(PERF_COUNT_SW_PAGE_FAULTS), "page-faults", SW, false,
	    "page faults" },
	{ "context-switches", KNAME(PERF_COUNT_SW_CONTEXT_SWITCHES), NULL, SW,
	    true, "context switches" },
	{ "cs", KNAME(PERF_COUNT_SW_CONTEXT_SWITCHES), "context-switches", SW,
	    true, "context switches" },
	{ "cpu-migrations", KNAME(PERF_COUNT_SW_CPU_MIGRATIONS), NULL, SW, true,
	    "moves of the task to another CPU" },
	{ "migrations", KNAME(PERF_COUNT_SW_CPU_MIGRATIONS), "cpu-migrations",
	    SW, true, "moves of the task to another CPU" },
	{ "minor-faults", KNAME(PERF_COUNT_SW_PAGE_FAULTS_MIN), NULL, SW, false,
	    "page faults served without I/O" },
	{ "major-faults", KNAME(PERF_COUNT_SW_PAGE_FAULTS_MAJ), NULL, SW, false,
	    "page faults that needed I/O" },
	{ "alignment-faults", KNAME(PERF_COUNT_SW_ALIGNMENT_FAULTS), NULL, SW,
	    false, "unaligned accesses the kernel fixed up" },
	{ "emulation-faults", KNAME(PERF_COUNT_SW_EMULATION_FAULTS), NULL, SW,
	    false, "instructions the kernel emulated" },
	{ "dummy", KNAME(PERF_COUNT_SW_DUMMY), NULL, SW, false,
	    "counts nothing (a placeholder event)" },
	{ "bpf-output", KNAME(PERF_COUNT_SW_BPF_OUTPUT), NULL, SW, false,
	    "records BPF programs send (counts 0 without one)" },
	{ "cgroup-switches", KNAME(PERF_COUNT_SW_CGROUP_SWITCHES), NULL, SW,
	    true, "context switches to a task of another cgroup" },
	{ "cpu-cycles", KNAME(PERF_COUNT_HW_CPU_CYCLES), NULL, HW, false,
	    "CPU cycles" },
	{ "cycles", KNAME(PERF_COUNT_HW_CPU_CYCLES), "cpu-cycles", HW, false,
	    "CPU cycles" },
	{ "instructions", KNAME(PERF_COUNT_HW_INSTRUCTIONS), NULL, HW, false,
	    "instructions retired" },
	{ "cache-references", KNAME(PERF_COUNT_HW_CACHE_REFERENCES), NULL, HW,
	    false, "last-level cache accesses" },
	{ "cache-misses", KNAME(PERF_COUNT_HW_CACHE_MISSES), NULL, HW, false,
	    "last-level cache misses" },
	{ "branch-instructions", KNAME(PERF_COUNT_HW_BRANCH_INSTRUCTIONS), NULL,
	    HW, false, "branch instructions retired" },
	{ "branches", KNAME(PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
	    "branch-instructions", HW, false, "branch instructions retired" },
	{ "branch-misses", KNAME(PERF_COUNT_HW_BRANCH_MISSES), NULL, HW, false,
	    "mispredicted branches" },
	{ "bus-cycles", KNAME(PERF_COUNT_HW_BUS_CYCLES), NULL, HW, false,
	    "bus cycles" },
	{ "stalled-cycles-frontend",
	    KNAME(PERF_COUNT_HW_STALLED_CYCLES_FRONTEND), NULL, HW, false,
	    "cycles the front end issued nothing" },
	{ "idle-cycles-frontend", KNAME(PERF_COUNT_HW_STALLED_CYCLES_FRONTEND),
	    "stalled-cycles-frontend", HW, false,
	    "cycles the front end issued nothing" },
	{ "stalled-cycles-backend", KNAME(PERF_COUNT_HW_STALLED_CYCLES_BACKEND),
	    NULL, HW, false, "cycles the back end retired nothing" },
	{ "idle-cycles-backend", KNAME(PERF_COUNT_HW_STALLED_CYCLES_BACKEND),
	    "stalled-cycles-backend", HW, false,
	    "cycles the back end retired nothing" },
	{ "ref-cycles", KNAME(PERF_COUNT_HW_REF_CPU_CYCLES), NULL, HW, false,
	    "reference cycles, at a constant rate" },
};
const size_t cpclib_nperf_names =
    sizeof(cpclib_perf_names) / sizeof(cpclib_perf_names[0]);

/*
 * The cache event grammar: unit[-op][-result]. The first spelling of
 * each unit is perf's; an op's first two spellings are perf's singular
 * and plural.
 */
const struct ev_cache_word cpclib_cache_units[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D, "L1 data cache" },
	{ "l1-d", PERF_COUNT_HW_CACHE_L1D, NULL },
	{ "l1d", PERF_COUNT_HW_CACHE_L1D, NULL },
	{ "L1-data", PERF_COUNT_HW_CACHE_L1D, NULL },
	{ "L1-icache", PERF_COUNT_HW_CACHE_L1I, "L1 instruction cache" },
	{ "l1-i", PERF_COUNT_HW_CACHE_L1I, NULL },
	{ "l1i", PERF_COUNT_HW_CACHE_L1I, NULL },
	{ "L1-instruction", PERF_COUNT_HW_CACHE_L1I, NULL },
	{ "LLC", PERF_COUNT_HW_CACHE_LL, "last-level cache" },
	{ "L2", PERF_COUNT_HW_CACHE_LL, NULL },
	{ "dTLB", PERF_COUNT_HW_CACHE_DTLB, "data TLB" },
	{ "d-tlb", PERF_COUNT_HW_CACHE_DTLB, NULL },
	{ "Data-TLB", PERF_COUNT_HW_CACHE_DTLB, NULL },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB, "instruction TLB" },
	{ "i-tlb", PERF_COUNT_HW_CACHE_ITLB, NULL },
	{ "Instruction-TLB", PERF_COUNT_HW_CACHE_ITLB, NULL },
	{ "branch", PERF_COUNT_HW_CACHE_BPU, "branch prediction unit" },
	{ "branches", PERF_COUNT_HW_CACHE_BPU, NULL },
	{ "bpu", PERF_COUNT_HW_CACHE_BPU, NULL },
	{ "btb", PERF_COUNT_HW_CACHE_BPU, NULL },
	{ "bpc", PERF_COUNT_HW_CACHE_BPU, NULL },
	{ "node", PERF_COUNT_HW_CACHE_NODE, "local memory (NUMA node)" },
};
const size_t cpclib_ncache_units =
    sizeof(cpclib_cache_units) / sizeof(cpclib_cache_units[0]);

const struct ev_cache_word cpclib_cache_ops[] = {
	{ "load", PERF_COUNT_HW_CACHE_OP_READ, "load" },
	{ "loads", PERF_COUNT_HW_CACHE_OP_READ, NULL },
	{ "read", PERF_COUNT_HW_CACHE_OP_READ, NULL },
	{ "store", PERF_COUNT_HW_CACHE_OP_WRITE, "store" },
	{ "stores", PERF_COUNT_HW_CACHE_OP_WRITE, NULL },
	{ "write", PERF_COUNT_HW_CACHE_OP_WRITE, NULL },
	{ "prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH, "prefetch" },
	{ "prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH, NULL },
	{ "speculative-read", PERF_COUNT_HW_CACHE_OP_PREFETCH, NULL },
	{ "speculative-load", PERF_COUNT_HW_CACHE_OP_PREFETCH, NULL },
};
const size_t cpclib_ncache_ops =
    sizeof(cpclib_cache_ops) / sizeof(cpclib_cache_ops[0]);

const struct ev_cache_word cpclib_cache_results[] = {
	{ "refs", PERF_COUNT_HW_CACHE_RESULT_ACCESS, "accesses" },
	{ "Reference", PERF_COUNT_HW_CACHE_RESULT_ACCESS, NULL },
	{ "ops", PERF_COUNT_HW_CACHE_RESULT_ACCESS, NULL },
	{ "access", PERF_COUNT_HW_CACHE_RESULT_ACCESS, NULL },
	{ "misses", PERF_COUNT_HW_CACHE_RESULT_MISS, "misses" },
	{ "miss", PERF_COUNT_HW_CACHE_RESULT_MISS, NULL },
};
const size_t cpclib_ncache_results =
    sizeof(cpclib_cache_results) / sizeof(cpclib_cache_results[0]);

#define R (1u << PERF_COUNT_HW_CACHE_OP_READ)
#define W (1u << PERF_COUNT_HW_CACHE_OP_WRITE)
#define P (1u << PERF_COUNT_HW_CACHE_OP_PREFETCH)
/* The operations perf accepts for each unit, by unit id. */
const unsigned cpclib_cache_valid_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = R | W | P,
	[PERF_COUNT_HW_CACHE_L1I] = R | P,
	[PERF_COUNT_HW_CACHE_LL] = R | W | P,
	[PERF_COUNT_HW_CACHE_DTLB] = R | W | P,
	[PERF_COUNT_HW_CACHE_ITLB] = R,
	[PERF_COUNT_HW_CACHE_BPU] = R,
	[PERF_COUNT_HW_CACHE_NODE] = R | W | P,
};

/* The kernel's names of the cache event fields (libpfm4's perf:: names). */
const struct ev_cache_word cpclib_cache_knames[] = {
	{ "L1D", PERF_COUNT_HW_CACHE_L1D, NULL },
	{ "L1I", PERF_COUNT_HW_CACHE_L1I, NULL },
	{ "LL", PERF_COUNT_HW_CACHE_LL, NULL },
	{ "DTLB", PERF_COUNT_HW_CACHE_DTLB, NULL },
	{ "ITLB", PERF_COUNT_HW_CACHE_ITLB, NULL },
	{ "BPU", PERF_COUNT_HW_CACHE_BPU, NULL },
	{ "NODE", PERF_COUNT_HW_CACHE_NODE, NULL },
};
const size_t cpclib_ncache_knames =
    sizeof(cpclib_cache_knames) / sizeof(cpclib_cache_knames[0]);
const struct ev_cache_word cpclib_cache_op_knames[] = {
	{ "READ", PERF_COUNT_HW_CACHE_OP_READ, NULL },
	{ "WRITE", PERF_COUNT_HW_CACHE_OP_WRITE, NULL },
	{ "PREFETCH", PERF_COUNT_HW_CACHE_OP_PREFETCH, NULL },
	{ "ACCESS", 16 + PERF_COUNT_HW_CACHE_RESULT_ACCESS, NULL },
	{ "MISS", 16 + PERF_COUNT_HW_CACHE_RESULT_MISS, NULL },
};
const size_t cpclib_ncache_op_knames =
    sizeof(cpclib_cache_op_knames) / sizeof(cpclib_cache_op_knames[0]);

/*
 * perf's "tool" events are values perf computes itself, not kernel
 * counters. Their per-thread or per-CPU meaning is already in the
 * commands' output, so they are refused with the reason.
 */
const struct ev_tool cpclib_perf_tools[] = {
	{ "duration_time",
	    "a perf tool event: perf stat's wall-clock time "
	    "of its whole run, not a kernel counter; the time column of "
	    "cputrack and cpustat already gives it" },
	{ "user_time",
	    "a perf tool event: the user CPU time of perf stat's "
	    "command from its resource usage at exit, not a kernel counter; "
	    "count task-clock:u per thread instead" },
	{ "system_time",
	    "a perf tool event: the system CPU time of perf "
	    "stat's command from its resource usage at exit, not a kernel "
	    "counter; count task-clock:k per thread instead" },
};
const size_t cpclib_nperf_tools =
    sizeof(cpclib_perf_tools) / sizeof(cpclib_perf_tools[0]);

/* What each of perf's modifier letters does; NULL for no modifier. */
const char *
cpclib_modifier_meaning(char c)
{
	switch (c) {
	case 'u':
		return "count user mode";
	case 'k':
		return "count kernel mode";
	case 'h':
		return "count hypervisor mode";
	case 'H':
		return "count on the host only";
	case 'G':
		return "count in guests only";
	case 'p':
		return "ask for a precise (skid-free) PC";
	case 'P':
		return "the most precise PC the PMU can give "
		       "(perf record)";
	case 'I':
		return "leave out the idle task (system-wide "
		       "sampling)";
	case 'S':
		return "read the group at each sample (perf record)";
	case 'D':
		return "pin the event to the PMU";
	case 'W':
		return "group sample weights (perf record)";
	case 'e':
		return "exclusive use of the PMU";
	case 'b':
		return "count with a BPF program (perf stat "
		       "--bpf-counters)";
	default:
		return NULL;
	}
}
