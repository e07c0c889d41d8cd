/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's kernel side. One counter per CPU per request of every set
 * counts whatever runs there. Each CPU keeps a mark: the counts of the
 * set in use when it was last marked. At every context switch, before
 * the switch, the CPU is marked again and what it counted since the last
 * mark goes to the task that is leaving, if it is tracked; a flush, an
 * exit and an exec mark too, for the task running.
 *
 * Sets whose events have no counter limit (software events, tracepoints)
 * are joint: each distinct event is counted once per CPU, by one group
 * that counts all the time, and a set's turn on a CPU is bookkeeping at
 * its marks. Sets of their own counters, handed over at a tick, would
 * both count a tracepoint for a moment, and a flush that came between
 * the two counters' increments of one event would count it in both sets
 * or in neither. Forks, execs and exits
 * of tracked processes go to userspace, in order, through one ring
 * buffer; a thread's final counts go with its exit.
 *
 * The switch hook is a BPF program on the sched_switch raw tracepoint,
 * before the switch, in the leaving task's context, with interrupts off.
 * It is a tracing program: the kernel runs it even when the leaving task is
 * inside a bpf(2) map call, where it would skip a perf_event program
 * (bpf_prog_active) and give what that task counted to the next one.
 * A kernel may still hide a task from tracing: no switch out of it is
 * seen, and what it counts goes to the tracked thread that runs next on
 * the CPU, when that is next marked. Each mark keeps the task it saw
 * come, so that such a switch is counted where it lands on a tracked
 * thread, whichever hook marks it, and userspace says so.
 *
 * The kernel's software event counts a context switch just after the
 * switch hook has run, in the next task's interval, though the switch is
 * the leaving task's. So the leaving task is given it at the hook, ahead,
 * and the next mark on the CPU takes it out of what the counter counted
 * since. Userspace names only counters that always count then (kernel
 * mode, in sets the PMU never multiplexes). A thread's last switch,
 * after its exit, goes to nobody, as the kernel's own per-thread counters
 * never see it.
 *
 * Only its own CPU touches a mark: the switch (interrupts off), the exit
 * and exec handlers (preemption off, marked busy so that a flush that
 * interrupts them backs off), and the flush, which userspace runs on each
 * CPU in turn.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpfeng_abi.h"
#include "bpfeng_flavours.bpf.h"

#ifndef ENOENT
#define ENOENT 2 /* <errno.h>'s, which BPF C has not */
#endif

/* The helpers used here are offered to GPL-compatible programs only. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define SIGNAL_GROUP_EXIT 0x00000004
#define PF_IO_WORKER	  0x00000010
#define PF_EXITING	  0x00000004

/* Fixed by userspace before load. */
const volatile __u32 ncpus = 1;
const volatile __u32 nsets = 1;
const volatile __u32 nslots = BPFENG_SET_HEAD + 1;
const volatile __u32 set_first[BPFENG_MAX_SETS];
const volatile __u32 set_nreqs[BPFENG_MAX_SETS];
/*
 * The most requests of any set: what bounds the loops over a set's
 * counters for the verifier, which cannot tell which set a CPU's mark
 * holds, and would otherwise follow each loop to BPFENG_MAX_SET_REQS.
 */
const volatile __u32 max_nreqs = 1;
const volatile __u32 set_slot[BPFENG_MAX_SETS];
/*
 * Sets of several perf groups: counter c belongs to its set's group
 * counter_group[c], whose times lie apart (bpfeng_abi.h), and a mark
 * reads them through read_marked_groups, a call that a run of one-group
 * sets never makes: its marks verify and run as they always did.
 */
const volatile bool multi_group = false;
const volatile __u32 counter_group[BPFENG_MAX_COUNTERS];
/* Joint sets: njoint counters; request i of set s is set_joint[s][i]. */
const volatile bool joint;
const volatile __u32 njoint;
const volatile __u32 set_joint[BPFENG_MAX_SETS][BPFENG_MAX_SET_REQS];
/* Bit c: counter c counts context switches in kernel mode. */
const volatile __u64 switch_counters;
/*
 * A hybrid CPU's: a request is counted by a counter per core PMU, each
 * opened on its own core type's CPUs only, so a CPU lacks the others'.
 */
const volatile bool sparse;
const volatile bool follow_fork;
const volatile bool follow_exec;
/* The target may be a cgroup: its border is watched at every switch. */
const volatile bool by_cgroup = false;
/*
 * --for-each-cgroup: each cgroup of the target keeps the counts of the
 * tasks that run in it, and no thread is tracked; one more than
 * fold_depth levels below the target counts in its ancestor fold_depth
 * levels below. Every task there counts, whoever's: no per-task check
 * (caller_may_trace) runs, as none does for a CPU-wide counter of a
 * cgroup, and userspace asks for it only where the caller may count
 * whole CPUs (CAP_PERFMON or CAP_SYS_ADMIN).
 */
const volatile bool each_cgroup = false;
const volatile __u32 fold_depth;
/*
 * Images the caller could not ptrace are not followed, unless it may
 * ptrace any (CAP_SYS_PTRACE); its real ids decide, as they do ptrace's.
 */
const volatile bool follow_untraceable;
const volatile __u32 caller_uid;
const volatile __u32 caller_gid;
const volatile __u64 caller_caps; /* its permitted capabilities */
/* Unread bytes in the ring past which userspace is woken at once. */
const volatile __u64 wake_bytes = 1;

#ifdef BPFENG_PLAIN
/*
 * The plain build, for a run of one-group sets and no cgroup: the values
 * these take there, as constants to the compiler, which then leaves out
 * every path the verifier would find dead. The variables stay, so that
 * both builds' global data are laid out alike; those it leaves unread
 * have initialisers, without which the compiler would place them last.
 */
#define multi_group false
#define by_cgroup   false
#define each_cgroup false
#endif

/* The set marks count for; userspace moves it at a tick. */
__u32 active_set;
/* The process that ran whoami, as the programs see it. */
__u32 caller_pid;
/* Trouble userspace must report: counts it can no longer vouch for. */
__u64 lost_records;
__u64 lost_threads;
__u64 read_errors;
/* Switches the kernel did not trace, whose counts went to a tracked thread. */
__u64 hidden_switches;
/*
 * The command userspace started, once it runs; for each signal sent to
 * it, how many times, and by which process the last time: a signal that
 * ends the run may have reached it already (a whole job signalled).
 */
__u32 command_pid;
__u32 signal_sender[BPFENG_NSIG];
__u32 signal_count[BPFENG_NSIG];
/*
 * A target cgroup, by its id and its level in the hierarchy, or 0: a
 * thread seen running in it or below it is tracked from then on, and a
 * tracked one seen running outside it is not any more. Set by userspace
 * once the programs run.
 */
__u64 target_cgroup = 0;
__u32 target_level = 0;

/* Counter c of CPU n is at c * ncpus + n. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} counters SEC(".maps");

/* Tracked threads; the value size is set at load (bpfeng_abi.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpfeng_thread));
	__uint(max_entries, 1);
} threads SEC(".maps");

/*
 * Each cgroup's counts, keyed by its id, laid out as a thread's; its
 * size is the most cgroups counted apart, set at load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, sizeof(struct bpfeng_thread));
	__uint(max_entries, 1);
} cgroups SEC(".maps");

/* The cgroups that found no room in cgroups, each told of once. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u32);
	__uint(max_entries, BPFENG_FOLDED_TOLD);
} folded SEC(".maps");

/* A new thread's value, all counts zero; per CPU, sized as threads'. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpfeng_thread));
	__uint(max_entries, 1);
} fresh SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct bpfeng_proc);
	__uint(max_entries, 1);
} procs SEC(".maps");

/*
 * Where a task is in the target cgroup: the id of the cgroup its counts
 * go to (its own, or its ancestor fold_depth below the target), and that
 * one's parent's (0 for the target itself); key is 0 outside.
 */
struct place {
	__u64 key;
	__u64 parent;
};

struct mark {
	__u32 set;   /* the set base holds, or counts for (joint) */
	__u32 valid; /* base was read */
	__u32 busy;
	__u32 owner;	  /* the task seen to run since the mark */
	__u32 switch_due; /* the mark's switch is yet to be counted */
	__u32 placed;	  /* place is owner's (each cgroup apart) */
	struct place place;
	__u64 since; /* ns */
	__u64 base_enabled[BPFENG_MAX_SET_REQS];
	__u64 base_running[BPFENG_MAX_SET_REQS];
	__u64 base[BPFENG_MAX_SET_REQS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct mark);
	__uint(max_entries, 1);
} marks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} records SEC(".maps");

static __always_inline struct mark *
this_mark(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&marks, &zero);
}

static __always_inline __u32
current_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

/* A counter's value with its enabled and running times. */
static __always_inline long
read_counter(__u32 counter, __u32 cpu, struct bpf_perf_event_value *v)
{
	__u64 index = (__u64)counter * ncpus + cpu;

	return bpf_perf_event_read_value(&counters, index, v, sizeof(*v));
}

/*
 * A counter's value alone: a group's members share their leader's times,
 * and computing them again costs clock reads at every switch.
 */
static __always_inline long
read_count(__u32 counter, __u32 cpu, struct bpf_perf_event_value *v)
{
	__u64 index = (__u64)counter * ncpus + cpu;
	__u64 value = bpf_perf_event_read(&counters, index);

	/* Errors come back as values from -4095 to -1. */
	if (value >= (__u64)-4095)
		return (long)value;
	v->counter = value;
	return 0;
}

static __always_inline struct bpfeng_thread *cgroup_counts(
    const struct place *at, __u32 tid);

static __always_inline void
add_slot(struct bpfeng_thread *t, __u64 slot, __u64 delta)
{
	/* Check and use the same register, or the verifier cannot tell. */
	barrier_var(slot);
	if (slot < nslots && slot < BPFENG_MAX_SLOTS)
		t->slots[slot] += delta;
}

/*
 * Group g's times since the mark: running, and enabled but not running
 * (see BPFENG_SET_HEAD), at slot. Enabled grows at least as fast as
 * running.
 */
static __always_inline void
add_times(struct bpfeng_thread *t, __u64 slot, const struct mark *m, __u32 g,
    const struct bpf_perf_event_value *v)
{
	__u64 running;

	g &= BPFENG_MAX_SET_REQS - 1;
	running = v->running - m->base_running[g];
	add_slot(t, slot, running);
	add_slot(t, slot + 1, v->enabled - m->base_enabled[g] - running);
}

/* Counter c's group in its set, where sets have several. */
static __always_inline __u32
group_of(__u32 c)
{
	return counter_group[c & (BPFENG_MAX_COUNTERS - 1)] &
	    (BPFENG_MAX_SET_REQS - 1);
}

/*
 * Where group g's times lie in a set of n requests from slot: the first
 * group's ahead of the values, the others' after them (bpfeng_abi.h).
 */
static __always_inline __u64
times_slot(__u64 slot, __u32 n, __u32 g)
{
	return g == 0 ? slot : slot + n + BPFENG_SET_HEAD * (__u64)g;
}

/*
 * What of a count of counter c since a mark with its switch due is that
 * switch, given ahead to the task that switched: 1 for a counter of
 * switches that counted since, else 0. Arithmetic, not branches: the
 * verifier follows each path through the loops that call it.
 */
static __always_inline __u64
switch_share(__u32 c, __u64 delta)
{
	__u64 counted = (delta | (0 - delta)) >> 63;

	return (switch_counters >> (c & 63)) & counted & 1;
}

/*
 * A set number already checked against nsets, masked: what the verifier
 * sees bounded, whichever register the compiler checked.
 */
static __always_inline __u32
below_max_sets(__u32 set)
{
	barrier_var(set);
	return set & (BPFENG_MAX_SETS - 1);
}

/*
 * A set number, as the verifier can follow it: with one set, the
 * constant 0. It then knows the set's counters and slots, and follows
 * fewer paths through the loops over them: a fifth fewer instructions
 * to check, and the verifier is most of the engine's start.
 */
static __always_inline __u32
known_set(__u32 set)
{
	return nsets == 1 ? 0 : set;
}

/* The switch of t, given to it ahead in set's counters of switches. */
static __always_inline void
give_switch(struct bpfeng_thread *t, __u32 set)
{
	__u32 i, c;
	__u64 slot;

	if (set >= nsets)
		return;
	set = below_max_sets(set);
	slot = set_slot[set] + BPFENG_SET_HEAD;
	for (i = 0;
	     i < BPFENG_MAX_SET_REQS && i < max_nreqs && i < set_nreqs[set];
	     i++) {
		c = joint ? set_joint[set][i] & (BPFENG_MAX_SET_REQS - 1) :
			    set_first[set] + i;
		add_slot(t, slot + i, (switch_counters >> (c & 63)) & 1);
	}
}

/*
 * Read set's counters on this CPU. With t, add what they counted since
 * the mark to t, but for the mark's switch if due (switch_share); with
 * rebase, make the readings the new mark. The set's times are its first
 * counter's on this CPU: its group's leader (on a hybrid CPU, the first
 * of this core type's; the others' are not there, and are passed over).
 */
static __always_inline int
read_set(struct mark *m, __u32 set, __u32 cpu, struct bpfeng_thread *t,
    bool due, bool rebase)
{
	struct bpf_perf_event_value v;
	__u32 first, n, i;
	__u64 slot, delta;
	bool timed = false;
	long err;

	if (set >= nsets)
		return -1;
	set = below_max_sets(set);
	first = set_first[set];
	n = set_nreqs[set];
	slot = set_slot[set];
	for (i = 0; i < BPFENG_MAX_SET_REQS && i < max_nreqs && i < n; i++) {
		err = !timed ? read_counter(first + i, cpu, &v) :
			       read_count(first + i, cpu, &v);
		/* sparse first: a constant, to the verifier. */
		if (sparse && err == -ENOENT)
			continue;
		if (err != 0) {
			__sync_fetch_and_add(&read_errors, 1);
			return -1;
		}
		if (t != NULL) {
			if (!timed)
				add_times(t, slot, m, 0, &v);
			delta = v.counter - m->base[i];
			if (due)
				delta -= switch_share(first + i, delta);
			add_slot(t, slot + BPFENG_SET_HEAD + i, delta);
		}
		if (rebase) {
			m->base[i] = v.counter;
			if (!timed) {
				m->base_enabled[0] = v.enabled;
				m->base_running[0] = v.running;
			}
		}
		timed = true;
	}
	return 0;
}

/*
 * read_set for sets of several groups: each group's times are its first
 * counter's on this CPU, read once (timed has a bit per group read), and
 * kept in its own slots and mark.
 */
static __always_inline int
read_groups(struct mark *m, __u32 set, __u32 cpu, struct bpfeng_thread *t,
    bool due, bool rebase)
{
	struct bpf_perf_event_value v;
	__u32 first, n, i, g, fresh, timed = 0;
	__u64 slot, delta;
	long err;

	if (set >= nsets)
		return -1;
	set = below_max_sets(set);
	first = set_first[set];
	n = set_nreqs[set];
	slot = set_slot[set];
	for (i = 0; i < BPFENG_MAX_SET_REQS && i < max_nreqs && i < n; i++) {
		g = group_of(first + i);
		fresh = !((timed >> g) & 1);
		err = fresh ? read_counter(first + i, cpu, &v) :
			      read_count(first + i, cpu, &v);
		/* sparse first: a constant, to the verifier. */
		if (sparse && err == -ENOENT)
			continue;
		if (err != 0) {
			__sync_fetch_and_add(&read_errors, 1);
			return -1;
		}
		if (t != NULL) {
			if (fresh)
				add_times(t, times_slot(slot, n, g), m, g, &v);
			delta = v.counter - m->base[i];
			if (due)
				delta -= switch_share(first + i, delta);
			add_slot(t, slot + BPFENG_SET_HEAD + i, delta);
		}
		if (rebase) {
			m->base[i] = v.counter;
			if (fresh) {
				m->base_enabled[g] = v.enabled;
				m->base_running[g] = v.running;
			}
		}
		timed |= 1u << g;
	}
	return 0;
}

/*
 * A mark of sets of several groups: what the CPU counted since the mark
 * (the marked set's) goes to t, each group's times to its own slots;
 * set's counters are the new mark. A call, not inlined: where no set has
 * several groups, the verifier follows the paths it follows without it.
 */
static __noinline int
read_marked_groups(struct mark *m, __u32 set, __u32 marked_set,
    struct bpfeng_thread *t, bool due)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (set == marked_set)
		return read_groups(m, set, cpu, t, due, true);
	if (t != NULL)
		(void)read_groups(m, marked_set, cpu, t, due, false);
	return read_groups(m, set, cpu, NULL, false, true);
}

/*
 * Read the joint counters on this CPU. With t, add what they counted since
 * the mark to t's counts of the mark's set, but for the mark's switch if
 * due (switch_share); make the readings the mark.
 */
static __always_inline int
read_joint(struct mark *m, __u32 cpu, struct bpfeng_thread *t, bool due)
{
	struct bpf_perf_event_value v = { 0 };
	__u64 now[BPFENG_MAX_SET_REQS] = { 0 }, slot, delta;
	__u32 set = known_set(m->set), i, j;

	for (j = 0; j < BPFENG_MAX_SET_REQS && j < njoint; j++) {
		if ((j == 0 ? read_counter(0, cpu, &v) :
			      read_count(j, cpu, &v)) != 0) {
			__sync_fetch_and_add(&read_errors, 1);
			return -1;
		}
		now[j] = v.counter;
	}
	if (t != NULL && set < nsets) {
		set = below_max_sets(set);
		slot = set_slot[set];
		add_times(t, slot, m, 0, &v);
		for (i = 0; i < BPFENG_MAX_SET_REQS && i < max_nreqs &&
		     i < set_nreqs[set];
		     i++) {
			/* Below 16 already: the mask shows the verifier. */
			j = set_joint[set][i] & (BPFENG_MAX_SET_REQS - 1);
			delta = now[j] - m->base[j];
			if (due)
				delta -= switch_share(j, delta);
			add_slot(t, slot + BPFENG_SET_HEAD + i, delta);
		}
	}
	for (j = 0; j < BPFENG_MAX_SET_REQS && j < njoint; j++)
		m->base[j] = now[j];
	m->base_enabled[0] = v.enabled;
	m->base_running[0] = v.running;
	return 0;
}

/* Thread tid, if it is tracked and was when the last mark was made. */
static __always_inline struct bpfeng_thread *
counted_thread(struct mark *m, __u32 tid)
{
	struct bpfeng_thread *t;

	if (!m->valid || tid == 0 ||
	    (t = bpf_map_lookup_elem(&threads, &tid)) == NULL ||
	    t->start_ns > m->since)
		return NULL;
	return t;
}

/*
 * Mark this CPU: what it counted since the last mark goes to thread tid
 * if that is tracked and was tracked when the last mark was made, or
 * with each_cgroup to the cgroup at places it in; next runs from here on.
 * switching: tid switches out now, and is given that switch ahead.
 * Returns whether tid was given the counts.
 */
static __always_inline bool
mark_cpu(struct mark *m, __u32 tid, __u32 next, bool switching,
    const struct place *at)
{
	__u32 set = known_set(active_set), cpu = bpf_get_smp_processor_id();
	__u32 marked_set = known_set(m->set);
	struct bpfeng_thread *t = each_cgroup ? NULL : counted_thread(m, tid);
	/*
	 * Never due without a counter of switches: a constant that the
	 * verifier sees, and it follows half the paths.
	 */
	bool due = switch_counters != 0 && m->valid && m->switch_due;
	__u64 now = bpf_ktime_get_ns();

	m->valid = 0;
	m->owner = next;
	m->switch_due = 0;
	if (set >= nsets)
		return false;
	if (each_cgroup && at != NULL)
		t = cgroup_counts(at, tid);
	if (joint) {
		/* What it counted since the mark is the set then in use's. */
		if (read_joint(m, cpu, t, due) != 0)
			return false;
	} else if (multi_group) {
		if (read_marked_groups(m, set, marked_set, t, due) != 0)
			return false;
	} else if (set == marked_set) {
		if (read_set(m, set, cpu, t, due, true) != 0)
			return false;
	} else {
		if (t != NULL)
			(void)read_set(m, marked_set, cpu, t, due, false);
		if (read_set(m, set, cpu, NULL, false, true) != 0)
			return false;
	}
	/* Every switch is due, given ahead to a tracked thread only. */
	if (switching && switch_counters != 0) {
		m->switch_due = 1;
		if (t != NULL)
			give_switch(t, set);
	}
	if (t != NULL)
		t->counted_ns = now;
	m->set = set;
	m->since = now;
	m->valid = 1;
	return t != NULL;
}

/*
 * Mark this CPU for tid, the task running on it, with next to run from
 * here on. A tid that is not the task the last mark saw come means that
 * switches out of a hidden task went untraced in between: tid's counts
 * then hold the hidden task's too, wherever tid is next marked, at a
 * switch, a flush, an exec or an exit.
 */
static __always_inline void
mark_running(struct mark *m, __u32 tid, __u32 next, bool switching,
    const struct place *at)
{
	/*
	 * Values tested after the mark, not a test before it: the verifier
	 * would follow the mark once for each outcome.
	 */
	__u32 valid = m->valid, owner = m->owner;

	if (mark_cpu(m, tid, next, switching, at) && valid && owner != tid)
		__sync_fetch_and_add(&hidden_switches, 1);
}

/*
 * The task running as tid of process tgid, to be marked: itself, or the
 * thread it was. A thread that execs while not its process's leader
 * takes the leader's tid before the exec's hook runs, and may switch or
 * be flushed in between: what it counted since its mark is still its
 * old tid's, which the exec hook then reports, and the leader's entry
 * is gone with the leader.
 */
static __always_inline __u32
marked_tid(const struct mark *m, __u32 tid, __u32 tgid)
{
	struct bpfeng_thread *t;
	__u32 owner = m->owner;

	if (!m->valid || owner == tid || tid != tgid ||
	    bpf_map_lookup_elem(&threads, &tid) != NULL)
		return tid;
	t = bpf_map_lookup_elem(&threads, &owner);
	return t != NULL && t->pid == tgid ? owner : tid;
}

/* A new entry for tid: its number, or 0 when there is no room. */
static __always_inline __u32
track_thread(__u32 tid, __u32 pid, __u32 flags)
{
	struct bpfeng_thread *t;
	__u32 zero = 0, gen;

	if ((t = bpf_map_lookup_elem(&fresh, &zero)) == NULL)
		return 0;
	/*
	 * Random: an exec's new entry takes its old one's number once in
	 * 2^32 (BPF before v3 atomics has no fetch-and-add to count with).
	 */
	if ((gen = bpf_get_prandom_u32()) == 0)
		gen = 1; /* 0 is userspace's */
	t->pid = pid;
	t->flags = flags;
	t->start_ns = 0;
	t->counted_ns = 0;
	t->gen = gen;
	if (bpf_map_update_elem(&threads, &tid, t, BPF_ANY) != 0) {
		__sync_fetch_and_add(&lost_threads, 1);
		return 0;
	}
	return gen;
}

static __always_inline struct bpfeng_rec *
reserve(__u32 type, __u32 pid, __u32 tid, __u32 arg, __u64 size)
{
	struct bpfeng_rec *r = bpf_ringbuf_reserve(&records, size, 0);

	if (r == NULL) {
		__sync_fetch_and_add(&lost_records, 1);
		return NULL;
	}
	r->type = type;
	r->pid = pid;
	r->tid = tid;
	r->arg = arg;
	r->flags = 0;
	r->gen = 0;
	r->when_ns = bpf_ktime_get_ns();
	return r;
}

/*
 * Hand a record on. Userspace reads the ring at every tick and at least
 * every few milliseconds anyway, so a record wakes it only when it ends
 * a process (the run may be over) or when the ring fills: a wakeup per
 * record would cost a churning target an interrupt and a switch each.
 */
static __always_inline void
submit(struct bpfeng_rec *r)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (r->type == BPFENG_REC_EXIT || r->type == BPFENG_REC_BEGIN ||
	    bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA) >= wake_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(r, flags);
}

static __always_inline void
send(__u32 type, __u32 pid, __u32 tid, __u32 arg, __u32 gen)
{
	struct bpfeng_rec *r = reserve(type, pid, tid, arg, sizeof(*r));

	if (r != NULL) {
		r->gen = gen;
		submit(r);
	}
}

/* Copy a thread's counts into data[at...]; none: flagged, zeros. */
static __always_inline void
copy_counts(struct bpfeng_rec *r, __u32 at, struct bpfeng_thread *t)
{
	__u32 i;

	if (t == NULL)
		r->flags |= BPFENG_REC_NO_COUNTS;
	for (i = 0; i < BPFENG_MAX_SLOTS; i++) {
		if (i >= nslots)
			break;
		r->data[at + i] = t != NULL ? t->slots[i] : 0;
	}
}

/*
 * Every program is on a raw tracepoint, and a task is a number to it:
 * what it reads of one it reads with BPF_CORE_READ. Attaching then needs
 * no BTF of the kernel's, the verifier has no kernel pointer to check
 * against it, and libbpf relocates the reads against the few types that
 * userspace picks out of it (bpfeng_btf.c), not the whole of it: that was
 * most of the engine's start. Every field read here, through vmlinux.h's
 * structs or a flavour of bpfeng_flavours.bpf.h, is a line of
 * kernel_fields.txt, where a new one is added (tests/bpf/kernel-fields
 * checks the object).
 */
static __always_inline __u32
exit_status(struct task_struct *p)
{
	struct signal_struct *sig = BPF_CORE_READ(p, signal);

	if (BPF_CORE_READ(sig, flags) & SIGNAL_GROUP_EXIT)
		return BPF_CORE_READ(sig, group_exit_code);
	return BPF_CORE_READ(p, exit_code);
}

/* Whether p, of sig's process, ends because another of its threads execs. */
static __always_inline bool
ended_by_exec(struct task_struct *p, struct signal_struct *sig)
{
	struct task_struct *execer;

	if (bpf_core_field_exists(sig->group_exec_task))
		execer = BPF_CORE_READ(sig, group_exec_task);
	else
		execer = BPF_CORE_READ(
		    (struct signal_struct___pre518 *)sig, group_exit_task);
	return execer != NULL && execer != p;
}

static __always_inline __u64
cgroup_id(struct cgroup___cg *cg)
{
	return BPF_CORE_READ(cg, kn, id);
}

/*
 * Whether p is in the target cgroup or below it, and where (struct
 * place). The walk up reads only the ids it needs: with --cgroup, the
 * target's.
 */
static __always_inline bool
place_of(struct task_struct *p, struct place *at)
{
	struct task_struct___cg *task = (void *)p;
	struct cgroup___cg *cg, *kept = NULL, *above = NULL;
	struct cgroup_subsys_state___cg *css;
	int level, steps, keep, i;
	bool keeps = fold_depth != 0;
	__u64 id;

	at->key = at->parent = 0;
	/* The root holds every task: with no levels kept below it, no walk. */
	if (target_level == 0 && fold_depth == 0) {
		at->key = target_cgroup;
		return true;
	}
	if ((cg = BPF_CORE_READ(task, cgroups, dfl_cgrp)) == NULL)
		return false;
	level = BPF_CORE_READ(cg, level);
	steps = level - (int)target_level;
	if (steps < 0 || steps > BPFENG_CGROUP_DEPTH)
		return false;
	keep = (int)target_level + (int)fold_depth;
	if (keep > level)
		keep = level;
	/*
	 * The cgroups at the levels kept and above it, on the way up; with
	 * no level kept below the target, none, which the verifier then
	 * need not follow at each step.
	 */
	for (i = 0; i < BPFENG_CGROUP_DEPTH && i < steps; i++) {
		if (keeps && level - i == keep)
			kept = cg;
		if (keeps && level - i == keep - 1)
			above = cg;
		/* A cgroup's parent is its own css's, which it holds. */
		css = BPF_CORE_READ(cg, self.parent);
		if (css == NULL)
			return false;
		cg = (void *)((char *)css -
		    bpf_core_field_offset(struct cgroup___cg, self));
	}
	if ((id = cgroup_id(cg)) != target_cgroup)
		return false;
	at->key = kept != NULL ? cgroup_id(kept) : id;
	at->parent = above != NULL ?
	    cgroup_id(above) :
	    (kept != NULL && keep - 1 == (int)target_level ? id : 0);
	return true;
}

/* Whether p is in the target cgroup or below it. */
static __always_inline bool
in_target(struct task_struct *p)
{
	struct place at;

	return place_of(p, &at);
}

/* A record of cgroup id, counted apart from now on, or folded. */
static __always_inline void
tell_cgroup(__u64 id, __u32 tid, __u32 flags)
{
	struct bpfeng_rec *r =
	    reserve(BPFENG_REC_CGROUP, 0, tid, 0, sizeof(*r) + sizeof(__u64));

	if (r != NULL) {
		r->flags = flags;
		r->data[0] = id;
		submit(r);
	}
}

/*
 * The counts of the cgroup at places, made at its first count, when a
 * record tells userspace of it. With no room left in the map, they are
 * its parent's, or the target's, and a record says so once.
 */
static __always_inline struct bpfeng_thread *
cgroup_counts(const struct place *at, __u32 tid)
{
	__u64 key = at->key, top = target_cgroup;
	struct bpfeng_thread *c, *zeros;
	__u32 zero = 0;

	if (!each_cgroup || key == 0)
		return NULL;
	if ((c = bpf_map_lookup_elem(&cgroups, &key)) != NULL)
		return c;
	if ((zeros = bpf_map_lookup_elem(&fresh, &zero)) == NULL)
		return NULL;
	/* A new thread's header is of no use to a cgroup; its counts are 0. */
	if (bpf_map_update_elem(&cgroups, &key, zeros, BPF_NOEXIST) == 0)
		tell_cgroup(key, tid, 0);
	if ((c = bpf_map_lookup_elem(&cgroups, &key)) != NULL)
		return c;
	if (bpf_map_update_elem(&folded, &key, &zero, BPF_NOEXIST) == 0)
		tell_cgroup(key, tid, BPFENG_REC_FOLDED);
	key = at->parent;
	if (key != 0 && (c = bpf_map_lookup_elem(&cgroups, &key)) != NULL)
		return c;
	return bpf_map_lookup_elem(&cgroups, &top);
}

static __always_inline bool caller_may_trace(struct task_struct *p);

/*
 * A thread of the target cgroup, seen running: tracked, and counted from
 * the CPU's mark just made, if the caller may count it.
 */
static __always_inline void
enter(struct task_struct *p, __u32 tid)
{
	struct bpfeng_proc fresh_proc = { 0 };
	__u32 pid = BPF_CORE_READ(p, tgid), gen;

	if (!caller_may_trace(p))
		return;
	(void)bpf_map_update_elem(&procs, &pid, &fresh_proc, BPF_NOEXIST);
	if ((gen = track_thread(tid, pid, 0)) != 0)
		send(BPFENG_REC_ENTER, pid, tid, 0, gen);
}

/*
 * A tracked thread seen running outside the target cgroup, its counts
 * marked: they go with the record, and the thread and its process are
 * no longer tracked (its other threads leave when they are seen, or
 * userspace lets them go). The record is tested for NULL once (see
 * exec_tracked).
 */
static __always_inline void
leave(__u32 tid, struct bpfeng_thread *t)
{
	__u32 pid = t->pid;
	struct bpfeng_rec *r;

	r = reserve(BPFENG_REC_LEAVE, pid, tid, 0,
	    sizeof(*r) + (__u64)nslots * sizeof(__u64));
	if (r == NULL) {
		bpf_map_delete_elem(&procs, &pid);
		bpf_map_delete_elem(&threads, &tid);
		return;
	}
	copy_counts(r, 0, t);
	if (bpf_map_delete_elem(&procs, &pid) == 0)
		r->flags |= BPFENG_REC_PROC_LEFT;
	bpf_map_delete_elem(&threads, &tid);
	submit(r);
}

/*
 * With a target cgroup: p (the task that was running, its counts marked,
 * or the one that runs next, or the one a flush found) if it just crossed
 * the cgroup's border. One on its way out (its exit already seen) never
 * comes in.
 */
static __always_inline void
watch_cgroup(struct task_struct *p, __u32 tid, const struct place *at)
{
	struct bpfeng_thread *t;

	if (tid == 0 || each_cgroup)
		return;
	if ((t = bpf_map_lookup_elem(&threads, &tid)) != NULL) {
		if (at != NULL ? at->key == 0 : !in_target(p))
			leave(tid, t);
	} else if (!(BPF_CORE_READ(p, flags) &
		       (BPFENG_PF_KTHREAD | PF_EXITING)) &&
	    (at != NULL ? at->key != 0 : in_target(p)))
		enter(p, tid);
}

/* Where p is, if the target is a cgroup and p may be counted; else NULL. */
static __always_inline const struct place *
looked_up(struct task_struct *p, struct place *at)
{
	if (!by_cgroup || target_cgroup == 0 ||
	    (BPF_CORE_READ(p, flags) & BPFENG_PF_KTHREAD))
		return NULL;
	(void)place_of(p, at);
	return at;
}

/*
 * With each cgroup apart, where tid, the task running here, was when it
 * came to this CPU or when it last moved here (place_coming): what it
 * counted since goes there, though it may have moved to another cgroup
 * since. Otherwise, or where the mark did not see tid come, where it is.
 */
static __always_inline const struct place *
place_running(
    const struct mark *m, struct task_struct *p, __u32 tid, struct place *at)
{
	if (each_cgroup && m->placed && m->owner == tid) {
		*at = m->place;
		return at;
	}
	return looked_up(p, at);
}

/* With each cgroup apart: where p, which runs here from now on, is. */
static __always_inline void
place_coming(struct mark *m, struct task_struct *p)
{
	if (each_cgroup)
		m->placed = looked_up(p, &m->place) != NULL;
}

/*
 * Every context switch, before it: what the CPU counted goes to prev.
 */
SEC("raw_tp/sched_switch")
int
BPF_PROG(
    on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	/* prev is the task running: the switch is yet to be made. */
	__u64 prev_ids = bpf_get_current_pid_tgid();
	__u32 prev_tid = (__u32)prev_ids, next_tid = BPF_CORE_READ(next, pid);
	struct mark *m = this_mark();
	struct place place;
	const struct place *at;
	__u32 tid;

	if (m != NULL) {
		tid = marked_tid(m, prev_tid, prev_ids >> 32);
		at = place_running(m, prev, tid, &place);
		mark_running(m, tid, next_tid, true, at);
		place_coming(m, next);
	} else
		at = looked_up(prev, &place);
	if (by_cgroup && target_cgroup != 0) {
		/* No task leaves the root. */
		if (target_level != 0)
			watch_cgroup(prev, prev_tid, at);
		watch_cgroup(next, next_tid, NULL);
	}
	return 0;
}

/*
 * Run on a chosen CPU by userspace (BPF_PROG_TEST_RUN), in an interrupt:
 * the current task is whatever runs there. Returns 1 when it interrupted
 * a handler at work on the mark: userspace tries again.
 */
SEC("raw_tp")
int
flush(void *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct mark *m = this_mark();
	const struct place *at;
	struct place place;
	__u32 tid, marked;

	if (m == NULL)
		return 0;
	if (m->busy)
		return 1;
	tid = current_tid();
	marked = marked_tid(m, tid, (__u32)(bpf_get_current_pid_tgid() >> 32));
	at = place_running(m, task, marked, &place);
	mark_running(m, marked, tid, false, at);
	place_coming(m, task);
	if (by_cgroup && target_cgroup != 0)
		watch_cgroup(task, tid, at);
	return 0;
}

/*
 * A task moved to another cgroup (the cgroup_attach_task tracepoint, just
 * after the move), with each cgroup apart: if it is the task running here
 * and it moved, what it counted since its mark goes to the cgroup it left,
 * where it was counted, the write(2) to cgroup.procs that moved it
 * included (`echo $$ > cgroup.procs`, as service managers' and container
 * runtimes' children do), and what it counts from here on to the new one.
 * One moved by another while it runs on another CPU counts in the cgroup
 * it left until its next switch. Loaded apart, so that a kernel that
 * refuses it still counts (bpfeng_migrate.c).
 */
SEC("?raw_tp/cgroup_attach_task")
int
BPF_PROG(on_migrate, struct cgroup *dst, const char *path,
    struct task_struct *task, bool threadgroup)
{
	struct task_struct *p = (void *)bpf_get_current_task();
	struct place was, now;
	struct mark *m;
	__u32 tid;

	if (!each_cgroup || target_cgroup == 0 || (m = this_mark()) == NULL)
		return 0;
	tid = current_tid();
	if (!m->placed || m->owner != tid || looked_up(p, &now) == NULL ||
	    now.key == m->place.key)
		return 0;
	was = m->place;
	m->busy = 1;
	mark_running(m, tid, tid, false, &was);
	m->place = now;
	m->busy = 0;
	return 0;
}

/*
 * A cgroup of the unified hierarchy that each cgroup apart may count,
 * once there is a target: below it (its level says; userspace checks its
 * ancestry) and no deeper than its cgroups are counted apart.
 */
static __always_inline bool
nameable(struct cgroup___cg *cg)
{
	int below = BPF_CORE_READ(cg, level) - (int)target_level;

	if (!each_cgroup || BPF_CORE_READ(cg, root, hierarchy_id) != 0)
		return false;
	return target_cgroup == 0 || (below > 0 && below <= (int)fold_depth);
}

/*
 * A cgroup made: its id, its parent's and its name go to userspace, which
 * names its rows by them and never walks the directory for them
 * (bpfeng_migrate.c loads these with on_migrate). The unified hierarchy
 * renames no cgroup.
 */
SEC("?raw_tp/cgroup_mkdir")
int
BPF_PROG(on_cgroup_made, struct cgroup *cgrp, const char *path)
{
	struct cgroup___cg *cg = (void *)cgrp;
	struct cgroup_subsys_state___cg *up;
	struct bpfeng_rec *r;

	if (cg == NULL || !nameable(cg))
		return 0;
	r = reserve(BPFENG_REC_CGROUP_NAMED, 0, 0, 0,
	    sizeof(*r) + 2 * sizeof(__u64) + BPFENG_CGROUP_NAME_LEN);
	if (r == NULL)
		return 0;
	up = BPF_CORE_READ(cg, self.parent);
	r->data[0] = cgroup_id(cg);
	r->data[1] = up == NULL ?
	    0 :
	    cgroup_id((void *)((char *)up -
		bpf_core_field_offset(struct cgroup___cg, self)));
	if (bpf_probe_read_kernel_str(&r->data[2], BPFENG_CGROUP_NAME_LEN,
		BPF_CORE_READ(cg, kn, name)) < 0)
		((char *)&r->data[2])[0] = '\0';
	submit(r);
	return 0;
}

SEC("?raw_tp/cgroup_rmdir")
int
BPF_PROG(on_cgroup_removed, struct cgroup *cgrp, const char *path)
{
	struct cgroup___cg *cg = (void *)cgrp;
	struct bpfeng_rec *r;

	if (cg == NULL || !nameable(cg) ||
	    (r = reserve(BPFENG_REC_CGROUP_GONE, 0, 0, 0,
		 sizeof(*r) + sizeof(__u64))) == NULL)
		return 0;
	r->data[0] = cgroup_id(cg);
	submit(r);
	return 0;
}

/* Run once by userspace: its pid as the programs will see pids. */
SEC("raw_tp")
int
whoami(void *ctx)
{
	caller_pid = bpf_get_current_pid_tgid() >> 32;
	return 0;
}

/* A signal generated for the command: counted, with who sent it. */
SEC("raw_tp/signal_generate")
int
BPF_PROG(on_signal, int sig, struct kernel_siginfo *info,
    struct task_struct *task, int group, int result)
{
	__u32 n = (__u32)sig;

	if (command_pid == 0 || BPF_CORE_READ(task, tgid) != command_pid ||
	    n >= BPFENG_NSIG)
		return 0;
	/* Below 32 already: the mask, kept, shows the verifier. */
	barrier_var(n);
	n &= BPFENG_NSIG - 1;
	signal_sender[n] = bpf_get_current_pid_tgid() >> 32;
	__sync_fetch_and_add(&signal_count[n], 1);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int
BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = BPF_CORE_READ(parent, tgid);
	__u32 cpid = BPF_CORE_READ(child, tgid),
	      ctid = BPF_CORE_READ(child, pid);
	__u32 gen;
	struct bpfeng_proc fresh_proc = { 0 }, *parent_proc;
	struct bpfeng_rec *r;

	if ((BPF_CORE_READ(child, flags) & PF_IO_WORKER) ||
	    (parent_proc = bpf_map_lookup_elem(&procs, &ppid)) == NULL)
		return 0;
	if (cpid == ppid) {
		/* Having made a thread, it runs its own program. */
		parent_proc->flags &= ~BPFENG_PROC_FOLLOW_EXEC;
		if (!(parent_proc->flags & BPFENG_PROC_NAMED_ONLY) &&
		    (gen = track_thread(ctid, ppid, 0)) != 0)
			send(BPFENG_REC_LWP_CREATE, ppid, ctid, 0, gen);
		return 0;
	}
	if ((r = reserve(BPFENG_REC_FORK, ppid, BPF_CORE_READ(parent, pid),
		 cpid, sizeof(*r))) == NULL)
		return 0;
	if (follow_fork) {
		if (bpf_map_update_elem(&procs, &cpid, &fresh_proc, BPF_ANY) !=
		    0)
			__sync_fetch_and_add(&lost_threads, 1);
		else if ((r->gen = track_thread(ctid, cpid, 0)) != 0)
			r->flags |= BPFENG_REC_FOLLOWED;
		else
			bpf_map_delete_elem(&procs, &cpid);
	}
	submit(r);
	return 0;
}

/*
 * io_uring's threads of a process (io-wq workers, SQPOLL pollers) are made
 * without kernel_clone, so sched_process_fork never fires for them; this
 * does, for every new task, once its ids are set.
 */
SEC("raw_tp/task_newtask")
int
BPF_PROG(on_newtask, struct task_struct *p, unsigned long clone_flags)
{
	__u32 pid, tid, gen;
	struct bpfeng_proc *proc;

	/* Every task comes here: the one test that passes most by, first. */
	if (!(BPF_CORE_READ(p, flags) & PF_IO_WORKER))
		return 0;
	pid = BPF_CORE_READ(p, tgid);
	if ((proc = bpf_map_lookup_elem(&procs, &pid)) == NULL ||
	    (proc->flags & BPFENG_PROC_NAMED_ONLY))
		return 0;
	tid = BPF_CORE_READ(p, pid);
	if ((gen = track_thread(tid, pid, 0)) != 0)
		send(BPFENG_REC_LWP_CREATE, pid, tid, 0, gen);
	return 0;
}

static __always_inline void
read_args(struct bpfeng_rec *r, struct task_struct *p)
{
	struct mm_struct *mm = BPF_CORE_READ(p, mm);
	unsigned long start, len;
	__u32 i;

	for (i = 0; i < BPFENG_ARGS_WORDS; i++)
		r->data[i] = 0;
	if (mm == NULL)
		return;
	start = BPF_CORE_READ(mm, arg_start);
	len = BPF_CORE_READ(mm, arg_end) - start;
	if (len > BPFENG_ARGS_LEN)
		len = BPFENG_ARGS_LEN;
	if (bpf_probe_read_user(r->data, len, (void *)start) != 0)
		r->data[0] = 0;
}

/*
 * What ptrace(2) looks at to decide whether a caller may trace a task
 * (its structs' flavours: bpfeng_flavours.bpf.h).
 */
#define SUID_DUMP_USER	  1
#define MMF_DUMPABLE_MASK 3

static __always_inline unsigned long
mm_flags(struct mm_struct *mm)
{
	struct mm_struct___flags_bitmap *bitmap = (void *)mm;
	struct mm_struct___flags_long *word = (void *)mm;

	if (bpf_core_field_exists(struct mm_struct___flags_bitmap, flags))
		return BPF_CORE_READ(bitmap, flags.__mm_flags[0]);
	return BPF_CORE_READ(word, flags);
}

/*
 * Whether the caller could ptrace p: all its ids are the caller's, it
 * holds no capability the caller lacks (a cputrack with file
 * capabilities is not to count a process of its user that has more),
 * and the kernel left it dumpable (an exec that gives privilege, set-id
 * or file capabilities, or of a file the caller may not read, makes it
 * not).
 */
static __always_inline bool
caller_may_trace(struct task_struct *p)
{
	struct task_struct___ptrace *task = (void *)p;
	struct cred___ptrace *c = BPF_CORE_READ(task, cred);
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	__u64 caps = ~0ULL;

	if (follow_untraceable)
		return true;
	if (c == NULL || mm == NULL ||
	    BPF_CORE_READ(c, uid.val) != caller_uid ||
	    BPF_CORE_READ(c, euid.val) != caller_uid ||
	    BPF_CORE_READ(c, suid.val) != caller_uid ||
	    BPF_CORE_READ(c, gid.val) != caller_gid ||
	    BPF_CORE_READ(c, egid.val) != caller_gid ||
	    BPF_CORE_READ(c, sgid.val) != caller_gid)
		return false;
	if (bpf_core_read(&caps, sizeof(caps), &c->cap_permitted) != 0 ||
	    (caps & ~caller_caps) != 0)
		return false;
	return (mm_flags(mm) & MMF_DUMPABLE_MASK) == SUID_DUMP_USER;
}

/*
 * The old image's thread is no longer tracked; the new image's is, if the
 * exec is followed and there is room, and otherwise the process is no
 * longer tracked. The new image's entry's number, or 0 if it is not.
 */
static __always_inline __u32
replace_image(
    __u32 pid, __u32 tid, __u32 old, struct bpfeng_thread *t, bool follow)
{
	__u32 gen = 0;

	if (t != NULL)
		bpf_map_delete_elem(&threads, &old);
	if (follow && (gen = track_thread(tid, pid, 0)) != 0)
		return gen;
	bpf_map_delete_elem(&procs, &pid);
	return 0;
}

/*
 * An exec by a tracked thread that is not a started command's first. The
 * record is tested for NULL once, and each path is whole: a verifier
 * that does not carry the test from one branch to the next (Linux 6.1)
 * would otherwise see a path on which the record is never submitted.
 */
static __always_inline void
exec_tracked(struct task_struct *p, __u32 old, struct bpfeng_thread *t,
    bool follow, __u32 flags)
{
	__u32 pid = BPF_CORE_READ(p, tgid), tid = BPF_CORE_READ(p, pid);
	struct bpfeng_rec *r;

	r = reserve(BPFENG_REC_EXEC, pid, old, 0,
	    sizeof(*r) + BPFENG_ARGS_LEN + BPFENG_COMM_LEN +
		(__u64)nslots * sizeof(__u64));
	if (r == NULL) {
		(void)replace_image(pid, tid, old, t, follow);
		return;
	}
	read_args(r, p);
	/* Read now: the process may be gone when userspace reads the ring. */
	r->data[BPFENG_ARGS_WORDS] = r->data[BPFENG_ARGS_WORDS + 1] = 0;
	(void)bpf_probe_read_kernel_str(
	    &r->data[BPFENG_ARGS_WORDS], BPFENG_COMM_LEN, p->comm);
	copy_counts(r, BPFENG_EXEC_COUNTS, t);
	r->flags = flags;
	if ((r->gen = replace_image(pid, tid, old, t, follow)) != 0)
		r->flags |= BPFENG_REC_FOLLOWED;
	submit(r);
}

/*
 * A started command's first image, named as it is at its exec: read from
 * /proc later, the name may already be the next image's.
 */
static __always_inline void
begin_image(struct task_struct *p, __u32 pid, __u32 tid)
{
	struct bpfeng_rec *r;

	r = reserve(
	    BPFENG_REC_BEGIN, pid, tid, 0, sizeof(*r) + BPFENG_COMM_LEN);
	if (r == NULL)
		return;
	r->data[0] = r->data[1] = 0;
	(void)bpf_probe_read_kernel_str(r->data, BPFENG_COMM_LEN, p->comm);
	submit(r);
}

/*
 * A process that moved itself into the target cgroup and execs there (as
 * a service manager's or a container runtime's child does) may not have
 * switched since: it is found here, and counted from its new image on.
 */
static __always_inline void
enter_at_exec(struct mark *m, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);

	if (!by_cgroup || each_cgroup || target_cgroup == 0 || !in_target(p))
		return;
	m->busy = 1;
	/* What it counted so far was not the target's. */
	mark_running(m, tid, tid, false, NULL);
	enter(p, tid);
	m->busy = 0;
}

/* Whether task p has a child, running or not yet waited for. */
static bool
has_child(struct task_struct *p)
{
	struct task_struct___kids *k = (void *)p;

	return BPF_CORE_READ(k, children.next) != &k->children;
}

SEC("raw_tp/sched_process_exec")
int
BPF_PROG(
    on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 pid = BPF_CORE_READ(p, tgid), old = old_pid, i, flags;
	struct bpfeng_thread *t;
	struct bpfeng_proc *proc;
	struct place place;
	struct mark *m;
	bool follow, first;

	if ((m = this_mark()) == NULL)
		return 0;
	if ((proc = bpf_map_lookup_elem(&procs, &pid)) == NULL) {
		enter_at_exec(m, p);
		return 0;
	}
	/*
	 * A wrapper's exec (a shim that forked and waited) is followed; one
	 * with a child of its own still there is a program's.
	 */
	follow = follow_exec ||
	    ((proc->flags & BPFENG_PROC_FOLLOW_EXEC) && !has_child(p));
	flags = caller_may_trace(p) ? 0 : BPFENG_REC_UNTRACEABLE;
	m->busy = 1;
	/* The old image's counts end here. */
	mark_running(
	    m, old, BPF_CORE_READ(p, pid), false, looked_up(p, &place));
	place_coming(m, p);
	t = bpf_map_lookup_elem(&threads, &old);
	if (t != NULL && (t->flags & BPFENG_THREAD_AWAIT_EXEC))
		begin_image(p, pid, BPF_CORE_READ(p, pid));
	if (t != NULL && (t->flags & BPFENG_THREAD_AWAIT_EXEC) && flags == 0) {
		/* A started command counts from its exec on, as perf does. */
		for (i = 0; i < BPFENG_MAX_SLOTS; i++) {
			if (i >= nslots)
				break;
			t->slots[i] = 0;
		}
		t->flags = 0;
	} else {
		/*
		 * One call, whose record the verifier checks once: a
		 * started command's first image that the caller may not
		 * trace ends its count, and an untraceable image says why
		 * an exec to be followed is not.
		 */
		first = t != NULL && (t->flags & BPFENG_THREAD_AWAIT_EXEC);
		/*
		 * flags before follow: a constant where the caller may trace
		 * any, and the verifier follows one path, not one per follow.
		 */
		exec_tracked(p, old, t, !first && flags == 0 && follow,
		    first ? flags | BPFENG_REC_FIRST_IMAGE :
			    (flags != 0 && follow ? flags : 0));
	}
	m->busy = 0;
	return 0;
}

SEC("raw_tp/sched_process_exit")
int
BPF_PROG(on_exit, struct task_struct *p)
{
	/* p is the task that runs: its ids are at hand. */
	__u64 ids = bpf_get_current_pid_tgid();
	__u32 pid = ids >> 32, tid = (__u32)ids;
	struct bpfeng_thread *t = bpf_map_lookup_elem(&threads, &tid);
	struct signal_struct *sig;
	struct bpfeng_rec *r;
	struct place place;
	struct mark *m;

	if (t == NULL && bpf_map_lookup_elem(&procs, &pid) == NULL)
		return 0;
	sig = BPF_CORE_READ(p, signal);
	if (t != NULL && (m = this_mark()) != NULL) {
		m->busy = 1;
		/* Its final counts: what it does from here on is not its. */
		mark_running(m, tid, tid, false, looked_up(p, &place));
		r = reserve(BPFENG_REC_LWP_EXIT, pid, tid,
		    BPF_CORE_READ(p, exit_code),
		    sizeof(*r) + (__u64)nslots * sizeof(__u64));
		if (r != NULL) {
			if (ended_by_exec(p, sig))
				r->flags |= BPFENG_REC_BY_EXEC;
			copy_counts(r, 0, t);
			submit(r);
		}
		bpf_map_delete_elem(&threads, &tid);
		m->busy = 0;
	}
	/*
	 * Threads that end together may each see the group dead: the one
	 * that removes the process reports its end.
	 */
	if (BPF_CORE_READ(sig, live.counter) == 0 &&
	    bpf_map_delete_elem(&procs, &pid) == 0)
		send(BPFENG_REC_EXIT, pid, tid, exit_status(p), 0);
	return 0;
}
