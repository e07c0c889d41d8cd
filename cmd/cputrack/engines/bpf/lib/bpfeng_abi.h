/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the engine's BPF programs and its userspace side share: limits,
 * the layout of a thread's counts, and the records of the ring buffer.
 * Included by BPF C (types from vmlinux.h) and by userspace.
 */
#ifndef BPFENG_ABI_H
#define BPFENG_ABI_H

#define BPFENG_MAX_SETS	    16 /* sets in rotation */
#define BPFENG_MAX_SET_REQS 16 /* requests of one set */
/* The programs bound a set number and a joint counter's index with masks. */
_Static_assert((BPFENG_MAX_SETS & (BPFENG_MAX_SETS - 1)) == 0,
    "BPFENG_MAX_SETS is a power of two");
_Static_assert((BPFENG_MAX_SET_REQS & (BPFENG_MAX_SET_REQS - 1)) == 0,
    "BPFENG_MAX_SET_REQS is a power of two");
#define BPFENG_MAX_COUNTERS 64 /* requests of all sets together */
_Static_assert((BPFENG_MAX_COUNTERS & (BPFENG_MAX_COUNTERS - 1)) == 0,
    "BPFENG_MAX_COUNTERS is a power of two");
/*
 * Per set: running ns, stopped ns (enabled, not running) of its first
 * perf group, then one value per request, then the same two times of
 * each of its other groups (a set of several: cputrack's {...}), in
 * order. Not enabled and running: userspace may read an entry while its
 * thread switches, with one of the two times updated and not the other,
 * and a set whose counters never stop must never look stopped. A set of
 * one group is laid out as it always was, and its switch costs no more.
 */
#define BPFENG_SET_HEAD 2
#define BPFENG_MAX_SLOTS                     \
	(BPFENG_MAX_SETS * BPFENG_SET_HEAD + \
	    BPFENG_MAX_COUNTERS * (1 + BPFENG_SET_HEAD))
/* Signals below this are watched for the started command. */
#define BPFENG_NSIG 32

/* A task's flag (task_struct's, /proc/PID/stat's): a kernel thread. */
#define BPFENG_PF_KTHREAD 0x00200000
_Static_assert(
    (BPFENG_NSIG & (BPFENG_NSIG - 1)) == 0, "BPFENG_NSIG is a power of two");
/* An exec's argument string, as psargs keeps it. */
#define BPFENG_ARGS_LEN 80

/*
 * A tracked thread, keyed by tid. The map's value size is fixed at load:
 * the header, then nslots counts laid out set after set.
 *
 * gen tells the entries of one tid apart: an exec replaces the thread's
 * entry with the new image's, and a tick can read the map before the
 * exec's record is dispatched. The programs give the entries they make a
 * random non-zero number, and the record that announces one carries it;
 * userspace makes its own with 0.
 */
struct bpfeng_thread {
	__u32 pid;	/* its process */
	__u32 flags;	/* BPFENG_THREAD_* */
	__u64 start_ns; /* counts nothing from before this */
	/*
	 * Its counts run to here: the latest mark that gave it what its CPU
	 * counted (CLOCK_MONOTONIC), 0 before the first.
	 */
	__u64 counted_ns;
	__u32 gen;
	__u32 pad;
	__u64 slots[];
};

/* Counted only from its first exec: a command the engine started. */
#define BPFENG_THREAD_AWAIT_EXEC 0x1

/* A tracked process, keyed by pid. */
struct bpfeng_proc {
	__u32 flags; /* BPFENG_PROC_* */
	__u32 pad;
};

/* Its execs are followed, whatever the engine's default. */
#define BPFENG_PROC_FOLLOW_EXEC 0x1
/*
 * Only the threads put in the thread map are counted: those it makes
 * later are not, io_uring's included; its forks, exec and exit are told.
 */
#define BPFENG_PROC_NAMED_ONLY	0x2

/*
 * Records: LWP_CREATE (pid, tid); FORK (pid, tid: the parent; arg: the
 * child's pid); LWP_EXIT (pid, tid; arg: the thread's exit status; data:
 * the counts); EXEC (pid, tid:
 * the exec'ing thread's before; data: the argument string, the new
 * name, then the counts); EXIT (pid, tid; arg: the wait status). With a target
 * cgroup: ENTER (pid, tid: a thread found in it, counted from now on), LEAVE
 * (pid, tid: a thread found outside it; data: the counts). For each cgroup
 * of the target: CGROUP (pid, tid: the thread that first counted for it;
 * data[0]: its id), once its counts have an entry of their own, or (flag
 * FOLDED) once they have found no room for one. BEGIN (pid, tid; data: the
 * name): a started command's first image, before anything else of it.
 * CGROUP_NAMED (data[0]: a cgroup's id, data[1]: its parent's, then its
 * name in its parent, BPFENG_CGROUP_NAME_LEN bytes at most, with its
 * NUL): one made in the unified hierarchy; CGROUP_GONE
 * (data[0]: its id): one removed. Both for each cgroup of the target, at
 * most as deep as its cgroups are counted apart.
 */
enum bpfeng_rec_type {
	BPFENG_REC_LWP_CREATE = 1,
	BPFENG_REC_FORK,
	BPFENG_REC_LWP_EXIT,
	BPFENG_REC_EXEC,
	BPFENG_REC_EXIT,
	BPFENG_REC_ENTER,
	BPFENG_REC_LEAVE,
	BPFENG_REC_CGROUP,
	BPFENG_REC_BEGIN,
	BPFENG_REC_CGROUP_NAMED,
	BPFENG_REC_CGROUP_GONE
};

/*
 * flags of a record. BPFENG_REC_UNTRACEABLE: an exec of an image the
 * caller could not ptrace, so not followed.
 */
#define BPFENG_REC_FOLLOWED    0x1 /* fork, exec: the new is tracked */
#define BPFENG_REC_BY_EXEC     0x2 /* lwp_exit: another thread execs */
#define BPFENG_REC_NO_COUNTS   0x4 /* the thread was not tracked */
#define BPFENG_REC_UNTRACEABLE 0x8
#define BPFENG_REC_FIRST_IMAGE 0x10 /* exec: a started command's first */
#define BPFENG_REC_PROC_LEFT   0x20 /* leave: its process is untracked */
#define BPFENG_REC_FOLDED      0x40 /* cgroup: no room; in its parent's */
/* Cgroups told of as folded, at most; more are counted, not told of. */
#define BPFENG_FOLDED_TOLD     1024
/* Cgroups this deep below the target's level are not looked into. */
#define BPFENG_CGROUP_DEPTH    64

/* A ring buffer record. */
struct bpfeng_rec {
	__u32 type;
	__u32 pid;
	__u32 tid;
	__u32 arg;
	__u32 flags;
	__u32 gen;     /* lwp_create, fork, exec, enter: the new entry's */
	__u64 when_ns; /* CLOCK_MONOTONIC */
	__u64 data[];
};

#define BPFENG_ARGS_WORDS      (BPFENG_ARGS_LEN / 8)
/* An exec's new name (the task's comm), after its arguments. */
#define BPFENG_COMM_LEN	       16
#define BPFENG_COMM_WORDS      (BPFENG_COMM_LEN / 8)
/* A cgroup's name in its parent: NAME_MAX, and its NUL. */
#define BPFENG_CGROUP_NAME_LEN 256
/* Where an exec record's counts start. */
#define BPFENG_EXEC_COUNTS     (BPFENG_ARGS_WORDS + BPFENG_COMM_WORDS)

#endif /* BPFENG_ABI_H */
