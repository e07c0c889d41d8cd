/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libcpc: the Solaris CPU performance counter API (version 2) on Linux
 * perf_event_open(2), with libpfm4 supplying event names and encodings.
 */
#ifndef LIBCPC_H
#define LIBCPC_H

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

/*
 * As on Solaris, <libcpc.h> brings <libpctx.h> and <string.h> along: its
 * callers use pctx_* and string functions with nothing else included.
 * And the SIGEMT handler's siginfo_t, which strict C modes (-std=c99,
 * -std=c11 without feature macros) leave undeclared in <signal.h>.
 */
#include <libpctx.h>
#if defined(__GLIBC__) && !defined(__siginfo_t_defined)
#include <bits/types/siginfo_t.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned int uint_t;
typedef int processorid_t;
/*
 * Solaris's own definition (<sys/time.h>), so that ported code that
 * declares hrtime_t itself, as code that once had it from the system
 * does, repeats the same type rather than clashing with it.
 */
typedef long long hrtime_t;

typedef struct __cpc cpc_t;
typedef struct __cpc_set cpc_set_t;
typedef struct __cpc_buf cpc_buf_t;

typedef struct {
	char *ca_name;
	uint64_t ca_val;
} cpc_attr_t;

#define CPC_VER_NONE	0
#define CPC_VER_1	1
#define CPC_VER_CURRENT 2

/* Request flags. */
#define CPC_OVF_NOTIFY_EMT 0x1
#define CPC_COUNT_USER	   0x2
#define CPC_COUNT_SYSTEM   0x4
#define CPC_COUNT_HV	   0x8
/* Linux extension: overflow records in a kernel buffer (see below). */
#define CPC_OVF_BUFFERED   0x10

/* Set (bind) flags. */
#define CPC_BIND_LWP_INHERIT 0x1
#define CPC_BIND_EMT_OVF     0x2

/* Capabilities. */
#define CPC_CAP_OVERFLOW_INTERRUPT 0x1
#define CPC_CAP_OVERFLOW_PRECISE   0x2

#define CPC_MAX_EVENT_LEN 512
#define CPC_MAX_ATTR_LEN  32
#define CPC_MAX_IMPL_NAME 512
#define CPC_MAX_CPUREF	  1024

/* Name of the virtualized cycle counter column (cpc_buf_tick). */
#define CPC_TICKREG_NAME "tsc"

/*
 * Linux has no SIGEMT on x86, arm64 or riscv. Overflow notification uses
 * SIGSTKFLT there: no kernel path sends it, it is a constant (usable in
 * switch cases, unlike SIGRTMIN), and like SIGEMT it is a classic signal
 * whose default action ends the process. SIGIO is not used: every O_ASYNC
 * descriptor sends it, with si_code POLL_IN, which is 1 like EMT_CPCOVF.
 * The bound thread gets it with si_code EMT_CPCOVF and si_addr the PC the
 * overflow interrupted; the handler's ucontext is that PC's context too.
 * Architectures with a real SIGEMT (mips, sparc, alpha) keep theirs.
 */
#ifndef SIGEMT
#define SIGEMT SIGSTKFLT
#endif
#define EMT_CPCOVF 1

/* Error subcodes passed to the error handler. */
#define CPC_INVALID_EVENT	    1
#define CPC_INVALID_PICNUM	    2
#define CPC_INVALID_ATTRIBUTE	    3
#define CPC_ATTRIBUTE_OUT_OF_RANGE  4
#define CPC_RESOURCE_UNAVAIL	    5
#define CPC_PIC_NOT_CAPABLE	    6
#define CPC_REQ_INVALID_FLAGS	    7
#define CPC_CONFLICTING_REQS	    8
#define CPC_ATTR_REQUIRES_PRIVILEGE 9
#define CPC_PBIND_FAILED	    10
#define CPC_HV_NO_ACCESS	    11

typedef void(cpc_errhndlr_t)(
    const char *fn, int subcode, const char *fmt, va_list ap);

/* Handle. */
cpc_t *cpc_open(int ver);
int cpc_close(cpc_t *cpc);
uint_t cpc_npic(cpc_t *cpc);
uint_t cpc_caps(cpc_t *cpc);
const char *cpc_cciname(cpc_t *cpc);
const char *cpc_cpuref(cpc_t *cpc);
int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn);

/* Walkers. */
void cpc_walk_events_all(
    cpc_t *cpc, void *arg, void (*action)(void *arg, const char *event));
void cpc_walk_generic_events_all(
    cpc_t *cpc, void *arg, void (*action)(void *arg, const char *event));
void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event));
void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event));
void cpc_walk_attrs(
    cpc_t *cpc, void *arg, void (*action)(void *arg, const char *attr));

/* Sets and requests. */
cpc_set_t *cpc_set_create(cpc_t *cpc);
int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set);
int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event,
    uint64_t preset, uint_t flags, uint_t nattrs, const cpc_attr_t *attrs);
void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
    void (*action)(void *arg, int index, const char *event, uint64_t preset,
	uint_t flags, int nattrs, const cpc_attr_t *attrs));

/* Binding. */
int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags);
int cpc_bind_pctx(
    cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set, uint_t flags);
int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags);
int cpc_unbind(cpc_t *cpc, cpc_set_t *set);
int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset);
int cpc_set_restart(cpc_t *cpc, cpc_set_t *set);
int cpc_enable(cpc_t *cpc);
int cpc_disable(cpc_t *cpc);

/* Sampling and buffers. */
int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf);
cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set);
int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf);
int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val);
int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val);
hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf);
uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf);
void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b);
void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b);
void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src);
void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf);

/* Private to the commands: make every pctx_run driven through cpc return. */
void cpc_terminate(cpc_t *cpc);

/*
 * Linux extensions.
 */

/* Why an event name can or cannot be counted on this machine. */
typedef enum {
	CPC_EVENT_COUNTABLE = 0,
	CPC_EVENT_UNKNOWN,	 /* no such name anywhere */
	CPC_EVENT_NO_PMU,	 /* hardware event, kernel has no PMU */
	CPC_EVENT_NO_EQUIVALENT, /* Solaris name with no exact Linux event */
	CPC_EVENT_UNSUPPORTED,	 /* the kernel refuses it (ENOENT, ...) */
	CPC_EVENT_NO_PERMISSION, /* perf_event_paranoid or capabilities */
	CPC_EVENT_NO_TRACEFS	 /* tracepoint, but tracefs is missing */
} cpc_event_status_t;

/*
 * Classify an event name. A one-line explanation (the event's Linux
 * meaning and the reason) is written to why, which may be NULL.
 */
cpc_event_status_t cpc_event_status(
    cpc_t *cpc, const char *event, char *why, size_t whylen);

/*
 * The kind of an event name: "software", "hardware", "cache", "tool",
 * "tracepoint", "breakpoint", "uprobe", "kprobe", "pmu" (an event a sysfs
 * PMU describes), "raw", "libpfm4", "generic" (PAPI_*), "ultrasparc" or
 * "modifier" (a perf modifier that means nothing to counting); NULL when
 * the name has the form of none. A name of a known kind may still not be
 * countable here: cpc_event_status says why.
 */
const char *cpc_event_kind(cpc_t *cpc, const char *event);

/*
 * 1, with a one-line note in note ("EC_ref: counted as LLC references
 * ..."), when a countable name is counted by its nearest Linux event
 * rather than exactly (the UltraSPARC names); 0 otherwise.
 */
int cpc_event_note(cpc_t *cpc, const char *event, char *note, size_t len);

/*
 * The canonical spelling of an event name into name (len bytes): perf's
 * aliases by the names they stand for ("cs" -> "context-switches",
 * "cycles:u" -> "cpu-cycles:u"), every other name as it is. 0, or -1 with
 * errno EINVAL (not an event name) or ERANGE (name too small).
 */
int cpc_event_canonical(cpc_t *cpc, const char *event, char *name, size_t len);

/*
 * Every name the walkers list (generic ones included), each with its kind
 * and a one-line description, then the forms that take a parameter, such
 * as "mem:ADDR[/LEN][:r|w|rw|x]" or "msr/TERM=VALUE,.../" (written with
 * capitals where a value goes; those are not names to add as such).
 */
void cpc_walk_events_described(cpc_t *cpc, void *arg,
    void (*action)(
	void *arg, const char *event, const char *kind, const char *desc));

/*
 * Check, before binding, that every request of a set can count as it
 * asks: its attributes against its event, and this user's permission for
 * each mode it counts, on the calling thread (cpuid -1, as cpc_bind_curlwp
 * and cpc_bind_pctx) or on CPU cpuid (as cpc_bind_cpu). Nothing is left
 * open. Each request refused is told through the error handler, one line
 * each: the event, the cause and the fix. Returns the number refused (0:
 * all can count), or -1 with errno EINVAL for a bad set or cpuid.
 */
int cpc_set_check(cpc_t *cpc, cpc_set_t *set, int cpuid);

/* Default text of an error subcode, without the newline; NULL if unknown. */
const char *cpc_subcode_text(int subcode);

/* Times from the last sample of a set: enabled and running nanoseconds. */
int cpc_set_times(
    cpc_t *cpc, cpc_set_t *set, uint64_t *enabled_ns, uint64_t *running_ns);

/* Name of the PMU driving hardware events ("cpu", "armv8_pmuv3_0"), or NULL. */
const char *cpc_pmu_name(cpc_t *cpc);

/*
 * The kernel's core PMUs, in CPU order (Linux extension): most machines
 * have one; a hybrid CPU (Intel's P- and E-cores, Arm big.LITTLE) has one
 * per core type, each counting on its own CPUs only. cpc_core_pmu gives
 * the name of the i-th (NULL past the last) and, in *cpus if not NULL,
 * its CPUs as the kernel lists them ("0-15"; "" for every CPU). There, an
 * event named without a PMU counts on each core PMU that has it, summed,
 * and cpc_buf_get_part gives request index's part counted on core PMU
 * core (with one core PMU, its whole value): 0, or -1 with EINVAL (no
 * such request or core PMU) or ENOENT (a request that counts on no core
 * PMU: a software event, a tracepoint).
 */
const char *cpc_core_pmu(cpc_t *cpc, int i, const char **cpus);
int cpc_buf_get_part(
    cpc_t *cpc, cpc_buf_t *buf, int index, int core, uint64_t *val);

/*
 * Sets that take turns on one LWP or CPU, with no event lost between
 * turns. A set bound with CPC_BIND_STANDBY (cpc_bind_pctx, cpc_bind_cpu)
 * has its counters open but not counting. cpc_set_switch starts `to`, a
 * standby set, then stops `from`, bound to the same LWP or CPU, which
 * goes to standby: an event falls in one set or, in the microseconds the
 * two overlap, in both. Sets pinned on a CPU's PMU (below: all but
 * CPC_BIND_SHARED) cannot overlap: `from` stops before `to` starts, and
 * what happens between the two is in neither. A set keeps its values
 * across its turns, so its samples accumulate. Sets that ask for overflow
 * cannot take turns.
 */
#define CPC_BIND_STANDBY 0x100
int cpc_set_switch(cpc_t *cpc, cpc_set_t *from, cpc_set_t *to);

/*
 * What cpc_bind_cpu takes of a CPU's PMU for a set with hardware events.
 * By default the set's counters only: the kernel keeps its group on the
 * PMU always (pinned), never multiplexed, beside other pinned CPU-wide
 * counters (the NMI watchdog's) and per-thread counters, as long as the
 * CPU has counters left for it. A set that does not fit fails with EAGAIN,
 * and the error handler is told why (CPC_COUNTERS_HELD): how many counters
 * the set needs, how many the CPU has, and who holds the rest where the
 * kernel says so. CPC_BIND_EXCLUSIVE takes the whole PMU, as Solaris did:
 * pinned and alone; a second such binding, or one beside any other pinned
 * CPU-wide counter, fails with EAGAIN, and a thread's hardware events are
 * not counted while it runs there (its running time falls behind its
 * enabled time). CPC_BIND_SHARED holds nothing: the set's hardware events
 * share the PMU with everyone, multiplexed as the kernel decides, and
 * cpc_set_times tells how long they ran. The two flags exclude each other.
 * Software events and tracepoints never take anything.
 */
#define CPC_BIND_SHARED	   0x200
#define CPC_BIND_EXCLUSIVE 0x400

/*
 * Buffered overflow ("CPC in-kernel buffering"). A request with
 * CPC_OVF_BUFFERED writes one record per overflow into a kernel ring buffer
 * instead of interrupting; with CPC_OVF_NOTIFY_EMT too, the bound thread gets
 * SIGEMT each time CPC_PCBUF_SIZE records are waiting. cpc_set_sample_pcbuf
 * copies out (and consumes) up to CPC_PCBUF_SIZE PCs;
 * cpc_set_sample_records copies out whole records. See
 * docs/libcpc.md.
 */
#define CPC_PCBUF_SIZE	  256
/* Request flag: also record the user call stack (Linux extension). */
#define CPC_OVF_CALLSTACK 0x20
/* Deepest call stack a record keeps. */
#define CPC_OVF_MAX_STACK 64

/* Which fields of a record the kernel filled (cr_valid). */
#define CPC_REC_PC	   0x01 /* cr_pc */
#define CPC_REC_PRECISE_PC 0x02 /* cr_precise_pc */
#define CPC_REC_TID	   0x04 /* cr_pid, cr_tid */
#define CPC_REC_TIME	   0x08 /* cr_time */
#define CPC_REC_VADDR	   0x10 /* cr_vaddr */
#define CPC_REC_PADDR	   0x20 /* cr_paddr */
#define CPC_REC_STACK	   0x40 /* cr_nstack, cr_stack */

typedef struct cpc_ovf_record {
	int cr_index;		/* request that overflowed */
	uint_t cr_valid;	/* CPC_REC_* */
	uint64_t cr_pc;		/* PC when the overflow interrupted */
	uint64_t cr_precise_pc; /* PC of the instruction that caused it */
	pid_t cr_pid;
	pid_t cr_tid;
	hrtime_t cr_time;  /* CLOCK_MONOTONIC ns, as cpc_buf_hrtime */
	uint64_t cr_vaddr; /* data virtual address */
	uint64_t cr_paddr; /* physical address of cr_vaddr */
	uint_t cr_nstack;  /* frames in cr_stack, innermost first */
	uint64_t cr_stack[CPC_OVF_MAX_STACK];
} cpc_ovf_record_t;

/* Error subcode (Linux extension): the ring filled before it was read. */
#define CPC_OVF_RECORDS_LOST 64
/*
 * Error subcode (Linux extension): cpc_bind_cpu could not have the
 * counters it needs on the CPU, as others hold them (errno EAGAIN).
 */
#define CPC_COUNTERS_HELD    65

int cpc_set_sample_pcbuf(
    cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf, uint64_t *pcbuf);
int cpc_set_sample_records(cpc_t *cpc, cpc_set_t *set, cpc_ovf_record_t *recs,
    int nrecs, uint64_t *lost);
/* Size of the set's ring in pages (a power of two), before binding. */
int cpc_set_ring_pages(cpc_t *cpc, cpc_set_t *set, size_t pages);

/*
 * Private interfaces, from here to their end below: for cpctools' own
 * counting engines. libcpc.so.1 exports them at the version node
 * LIBCPC_PRIVATE, outside the stable ABI of LIBCPC_1: they may change in
 * any release, and a program outside cpctools should not call them.
 *
 * Counting engines outside libcpc (cputrack's BPF engine) open counters
 * of their own for the requests of a set.
 *
 * cpc_set_request_attr fills attr (from <linux/perf_event.h>) with what
 * counts request index of set: type, config, the counted modes and the
 * request's attributes, with read_format TOTAL_TIME_ENABLED|RUNNING and
 * nothing else set. The set is not bound and presets do not apply. -1
 * with errno EINVAL for a bad index or an attribute the event cannot take
 * (the error handler says which), ENOTSUP for an overflow request or a
 * derived one (a sum of several events).
 */
struct perf_event_attr;
int cpc_set_request_attr(
    cpc_t *cpc, cpc_set_t *set, int index, struct perf_event_attr *attr);
/*
 * cpc_set_request_attr_core: on a hybrid CPU, a request counted on each
 * core PMU (cpc_core_pmu), for which cpc_set_request_attr gives ENOTSUP,
 * has one event per core PMU: the attr of the one on core PMU core, or -1
 * with ENOENT where that PMU has no such event. ENOTSUP for a request that
 * is not one event per core PMU; otherwise as cpc_set_request_attr.
 */
int cpc_set_request_attr_core(cpc_t *cpc, cpc_set_t *set, int index, int core,
    struct perf_event_attr *attr);

/*
 * cpc_tick_of gives the tick that cpc_buf_tick gives a sample of a thread
 * that was enabled_ns on a CPU: what such an engine's caller shows as the
 * tick of its counts.
 */
uint64_t cpc_tick_of(cpc_t *cpc, uint64_t enabled_ns);

/*
 * cpc_event_counts_ns says whether an event name is one of the kernel's
 * two clock events (cpu-clock, task-clock, in any spelling and with any
 * modifiers), which count nanoseconds: 1 if so, 0 otherwise (a name that
 * is not countable here, or counts something else).
 */
int cpc_event_counts_ns(cpc_t *cpc, const char *event);

/*
 * cpc_may_trace says whether this process may trace pid as ptrace(2)'s
 * attach check decides it (owner, capabilities, set-id and dumpable
 * state, Yama), which perf_event_open(2) asks of another process whatever
 * kernel.perf_event_paranoid says, without touching pid: 1 if it may, 0
 * if not, with errno EPERM, or ESRCH for a process that is gone.
 */
int cpc_may_trace(pid_t pid);

/*
 * cpc_probe_cpu makes the handle's tests of what can be counted
 * (cpc_event_status and what asks it, the tick's rate) open their events
 * on CPU cpuid, or on a CPU of the event's core PMU on a hybrid CPU,
 * rather than on the calling thread (cpuid -1, the default): for an
 * engine that counts CPUs alone, whose caller may count CPUs. The first
 * event on a thread where none counts one costs an RCU grace period. -1
 * with errno EINVAL for a cpuid below -1 or beyond CPU_SETSIZE.
 */
int cpc_probe_cpu(cpc_t *cpc, int cpuid);
/*
 * cpc_set_check_cpus checks set as such an engine counts it, on every
 * CPU: as cpc_set_check on the handle's probe CPU, and on a hybrid CPU
 * each request and group of a core PMU on a CPU of that PMU. Its
 * refusals are told as cpc_set_check's, and it returns what that
 * returns; -1 with errno EINVAL where the handle has no probe CPU.
 */
int cpc_set_check_cpus(cpc_t *cpc, cpc_set_t *set);

/*
 * PMUs that count for a whole socket (uncore, RAPL's power, cstate_pkg)
 * have a cpumask: the kernel counts their events on the one CPU it names
 * per socket (or per L3), and on no thread. cpc_event_cpumask gives the
 * cpumask ("0,28", as the kernel lists it) of the PMU of event's i-th
 * counter: an event summed over the boxes of a PMU (uncore_imc for
 * uncore_imc_0 .. uncore_imc_N) has one per box, in order. NULL past the
 * last, and for an event whose PMU has no cpumask (a core PMU, a software
 * event, a tracepoint) or that this machine cannot count.
 *
 * cpc_event_scale gives what one count of event, an event that its PMU
 * names in sysfs, is worth (its .scale file) in *scale, and its unit
 * ("MiB", "Joules"; the .unit file) in unit, of len bytes: 1 when sysfs
 * gives either (a unit alone: scale 1), 0 when it gives neither (scale 1,
 * unit ""), -1 with errno EINVAL for a NULL argument.
 */
const char *cpc_event_cpumask(cpc_t *cpc, const char *event, int i);
int cpc_event_scale(
    cpc_t *cpc, const char *event, double *scale, char *unit, size_t len);

/*
 * An event named by a PMU of boxes without the box's number (uncore_imc
 * for uncore_imc_0 .. uncore_imc_N) counts on every box, summed; each
 * box's part is kept. cpc_event_box gives the name of the PMU of event's
 * i-th box ("uncore_imc_0"): NULL past the last, and for an event not
 * summed over boxes (a box named by its number, any other event).
 * cpc_buf_get_box gives request index's part counted on its box-th box,
 * in the order of cpc_event_box: 0, or -1 with errno EINVAL (no such
 * request or box) or ENOENT (a request not summed over boxes).
 */
const char *cpc_event_box(cpc_t *cpc, const char *event, int i);
int cpc_buf_get_box(
    cpc_t *cpc, cpc_buf_t *buf, int index, int box, uint64_t *val);

/*
 * Sets of several perf groups, for metrics that need more events than
 * the PMU has counters. cpc_set_group puts request index of set in perf
 * group group, before the set is bound: 0, every request's until then,
 * is the set's first group, and each other number, below
 * CPC_SET_MAX_REQS, a group of its own. The kernel counts a group's
 * events together, and the groups take turns on the counters when they
 * need more than the PMU has (multiplexing). A set of one group holds at
 * most cpc_npic requests; a set of several at most CPC_SET_MAX_REQS,
 * each group at most cpc_npic, and each group's hardware events must fit
 * the core PMU together: cpc_set_check and the bind name the group that
 * does not. On a hybrid CPU each group is a group per core PMU, and an
 * event of a socket PMU (uncore, RAPL) is a group of its own in any
 * group. A set of several groups cannot ask for overflow. cpc_bind_cpu
 * pins the groups as it pins one, where the PMU takes their hardware
 * events at once; where it cannot, they are bound as with
 * CPC_BIND_SHARED, and CPC_BIND_EXCLUSIVE is refused (EINVAL) for a set
 * with hardware events in more than one group.
 *
 * The time a set of several groups ran (cpc_set_times) is its least
 * counted group's: over each span between two samples, the enabled time
 * less the longest that one of its groups waited, and none for a span in
 * which one of them never ran; summed over the spans.
 *
 * cpc_set_scale, with on non-zero, makes the samples of set estimates,
 * as perf stat scales a count: each span between two samples adds what
 * each event counted in it times its group's enabled time over its
 * running time in it (perf stat -I's estimate of an interval; with one
 * sample at the end, perf stat's of the run). A span in which a group
 * did not run adds nothing to its requests, and their next span that it
 * ran is scaled over both, so that the estimate covers the whole time.
 * Counts of a group that never ran stay at their presets, and the set's
 * running time says so. Before the set is bound; -1 with EINVAL
 * otherwise.
 *
 * cpc_buf_get_times gives request index's enabled and running ns in the
 * sample in buf: those of its group (of its events' groups, the least
 * counted, where they are several). A buffer made by cpc_buf_sub holds
 * the times between its two samples. 0, or -1 with EINVAL.
 */
#define CPC_SET_MAX_REQS 256
int cpc_set_group(cpc_t *cpc, cpc_set_t *set, int index, int group);
int cpc_set_scale(cpc_t *cpc, cpc_set_t *set, int on);
int cpc_buf_get_times(cpc_t *cpc, cpc_buf_t *buf, int index,
    uint64_t *enabled_ns, uint64_t *running_ns);

/* End of the private interfaces. */

/*
 * The obsolete CPCv1 API, on the v2 core. Solaris declared it
 * only for 32-bit x86 and SPARC; here it is always available. The event
 * layout is Solaris x86's. ce_pes[n] is counter n's control word, laid
 * out as a P6 PerfEvtSel: event code (bits 0-7, an index into the table
 * cpc_walk_names lists), umask (8-15), user (16), system (17), edge (18),
 * pc (19), int (20), inv (23), cmask (24-31). See docs/libcpc.md.
 */
typedef struct {
	int ce_cpuver;
	hrtime_t ce_hrt;    /* when the counters were sampled */
	uint64_t ce_tsc;    /* virtualized cycle counter */
	uint64_t ce_pic[2]; /* counts, or presets for a bind */
	uint32_t ce_pes[2]; /* control words */
#define ce_cesr ce_pes[0]
} cpc_event_t;

/* The virtualized cycle counter of a v1 sample, as on x86 Solaris. */
#define CPC_TICKREG(ev) ((ev)->ce_tsc)

/* The cpuver of Linux perf_event: two counters, any countable event. */
#define CPC_LINUX_PERF 4000

#define CPC_PES_EVENT_MASK  0x000000ffu
#define CPC_PES_UMASK_SHIFT 8
#define CPC_PES_USR	    (1u << 16)
#define CPC_PES_OS	    (1u << 17)
#define CPC_PES_EDGE	    (1u << 18)
#define CPC_PES_PC	    (1u << 19)
#define CPC_PES_INT	    (1u << 20)
#define CPC_PES_INV	    (1u << 23)
#define CPC_PES_CMASK_SHIFT 24

typedef void(cpc_errfn_t)(const char *fn, const char *fmt, va_list ap);

uint_t cpc_version(uint_t ver);
int cpc_getcpuver(void);
const char *cpc_getcciname(int cpuver);
const char *cpc_getcpuref(int cpuver);
const char *cpc_getusage(int cpuver);
uint_t cpc_getnpic(int cpuver);
void cpc_walk_names(int cpuver, int regno, void *arg,
    void (*action)(void *arg, int regno, const char *name, uint8_t bits));
int cpc_strtoevent(int cpuver, const char *spec, cpc_event_t *event);
char *cpc_eventtostr(cpc_event_t *event);
void cpc_event_accum(cpc_event_t *accum, cpc_event_t *event);
void cpc_event_diff(cpc_event_t *diff, cpc_event_t *after, cpc_event_t *before);
int cpc_bind_event(cpc_event_t *event, int flags);
int cpc_take_sample(cpc_event_t *event);
int cpc_rele(void);
int cpc_count_usr_events(int enable);
int cpc_count_sys_events(int enable);
int cpc_access(void);
void cpc_seterrfn(cpc_errfn_t *errfn);
int cpc_shared_open(void);
void cpc_shared_close(int fd);
int cpc_shared_bind_event(int fd, cpc_event_t *event, int flags);
int cpc_shared_take_sample(int fd, cpc_event_t *event);
int cpc_shared_rele(int fd);
int cpc_pctx_bind_event(
    pctx_t *pctx, id_t lwpid, cpc_event_t *event, int flags);
int cpc_pctx_take_sample(pctx_t *pctx, id_t lwpid, cpc_event_t *event);
int cpc_pctx_rele(pctx_t *pctx, id_t lwpid);
int cpc_pctx_invalidate(pctx_t *pctx, id_t lwpid);

#ifdef __cplusplus
}
#endif

#endif /* LIBCPC_H */
