/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpfeng: cputrack's BPF counting engine.
 *
 * Every CPU counts every request of every set (one counter per CPU per
 * request, pid -1; joint sets, one per distinct request), each on the
 * CPUs of its core PMU where a hybrid CPU has several. At each context
 * switch a BPF program gives what the CPU counted since the last switch to
 * the task that leaves, if it is a thread of a tracked process, into the
 * set in use. Nothing is stopped or
 * traced: thread creation, forks, execs and exits come from scheduler
 * tracepoints through a ring buffer, in the order they happened.
 *
 * The caller gives the sets as perf_event_attr lists (cpc_set_request_attr
 * turns a libcpc set into one), opens its clock (bpfeng_loop_open),
 * starts a command or attaches to a pid, and runs bpfeng_loop, which
 * calls its hooks at each tick and signal; or it polls bpfeng_fd() and
 * calls bpfeng_dispatch() and bpfeng_tick() itself. Counts are
 * cumulative per thread
 * and per set, from the moment the thread began to be counted. One engine
 * has one target; it is used from one thread.
 */
#ifndef BPFENG_H
#define BPFENG_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include "libcpc.h"

struct bpfeng;

/*
 * One set: what to count, one attr per counter, in order. names (may be
 * NULL) serve only in messages. On a hybrid CPU a request is counted by
 * one counter per core PMU (cpc_core_pmu), each on its own CPUs: cores
 * (may be NULL) gives each counter's core PMU, or -1 for a counter of
 * every CPU; a thread's counts of it are what it counted on that core
 * type's CPUs. groups (may be NULL: one group) gives each counter's perf
 * group in the set, numbered from 0 in counter order: each group is
 * opened on each CPU as a perf group of its own, which the kernel
 * multiplexes with the others where the counters are short, and a
 * thread's counts keep each group's own times (bpfeng_group_times).
 * Joint sets (BPFENG_JOINT_SETS) are one group whatever it says.
 */
struct bpfeng_set {
	const struct perf_event_attr *attrs;
	const char *const *names;
	int nattrs;
	const int *cores;
	const int *groups;
};

/* A thread's counts, all sets (opaque): read with bpfeng_set_counts. */
struct bpfeng_counts;

/* One set's share of a thread's counts. */
struct bpfeng_set_counts {
	uint64_t running_ns; /* its counters ran */
	uint64_t stopped_ns; /* they did not (multiplexed, or held) */
	uint64_t values[];   /* one per counter */
};

/* Its time on a CPU, counted with the set: perf's time enabled. */
static inline uint64_t
bpfeng_enabled_ns(const struct bpfeng_set_counts *sc)
{
	return sc->running_ns + sc->stopped_ns;
}

/*
 * Group g's times in a set's counts (sc's own for group 0), as a thread
 * ran with that group's counters enabled; nattrs is the set's. The others
 * lie after the values (bpfeng_abi.h).
 */
static inline void
bpfeng_group_times(const struct bpfeng_set_counts *sc, int nattrs, int g,
    uint64_t *running_ns, uint64_t *stopped_ns)
{
	const uint64_t *at =
	    g == 0 ? &sc->running_ns : &sc->values[nattrs + 2 * (g - 1)];

	*running_ns = at[0];
	*stopped_ns = at[1];
}

/* NULL for NULL counts or no such set. */
const struct bpfeng_set_counts *bpfeng_set_counts(
    const struct bpfeng *eng, const struct bpfeng_counts *counts, int set);

/* Why a thread begins to be counted (lwp_create). */
enum bpfeng_origin {
	BPFENG_LWP_NEW,	  /* made by a tracked thread */
	BPFENG_LWP_FIRST, /* a process's first: started, forked, execed */
	BPFENG_LWP_FOUND  /* there when the engine attached */
};

/* flags of lwp_exit */
#define BPFENG_EXIT_BY_EXEC 0x1 /* ended by another thread's exec */
/*
 * Its exit status was not 0: its process's exit or a fatal signal took
 * it (a thread that leaves alone, or is taken by exit(0), has status 0).
 */
#define BPFENG_EXIT_NONZERO 0x2
/* It left the target cgroup (its process with it): it runs on, uncounted. */
#define BPFENG_EXIT_LEFT    0x4

/* flags of exec */
#define BPFENG_EXEC_FOLLOWED	0x1 /* the new image is counted */
/*
 * The exec was to be followed, but the new image is one the caller could
 * not ptrace (set-id, file capabilities, unreadable, or another user's):
 * it is not, unless the caller has CAP_SYS_PTRACE.
 */
#define BPFENG_EXEC_UNTRACEABLE 0x2
/* The command the engine started, at its first exec: it was never counted. */
#define BPFENG_EXEC_FIRST	0x4

/*
 * What happens, in the order it happened; when_ns is CLOCK_MONOTONIC.
 * counts is NULL when the engine could not keep the thread. It holds
 * only during the call. Any member may be NULL.
 *
 * Each counted thread gets one lwp_create, then one lwp_exit, unless its
 * exec ends the image: exec gives the exec'ing thread's counts for the old
 * image (its other threads have had their lwp_exit, BY_EXEC), and the new
 * image's name ("" if unknown). If the exec
 * is followed, lwp_create(FIRST) for the process's one thread (tid == pid)
 * comes next and counts the new image from zero; if not, the process is
 * no longer tracked and has no exit. exec returns false to stop counting a
 * followed process from its exec on (it runs on, untracked, as after
 * bpfeng_untrack). A process's exit comes after all its
 * threads' lwp_exit. fork comes for every fork of a tracked process; with
 * BPFENG_FOLLOW_FORK, lwp_create(FIRST) for the child comes next.
 *
 * The engine holds the caller's records: proc_create returns its record
 * of a process (or NULL), made before the process's first lwp_create;
 * parent is the forking process's record for a followed fork's child,
 * else NULL; comm is a started command's name at its exec (its first
 * image's, which /proc may no longer have), else NULL. lwp_create
 * returns its record of a thread, numbered lwpid in its process: 1 for
 * a process's first thread (again after a followed exec), then in the
 * order they were made; a thread found at an attach as /proc/PID/task
 * lists it. The engine hands each record back with every event of its
 * process or thread (proc, lwp, parent_lwp: NULL for one not
 * announced), so that the caller keeps them in no tree of its
 * own. proc_end is the one place where the engine gives a process's
 * record back: after its exit or left, at its untracking, at an exec not
 * followed, and at bpfeng_close; its threads' records it gave back
 * before (lwp_exit, exec), except those of a process untracked or closed
 * while they ran, which go with it.
 */
struct bpfeng_ops {
	void *(*proc_create)(
	    void *arg, pid_t pid, void *parent, const char *comm);
	void (*proc_end)(void *arg, void *proc);
	void *(*lwp_create)(void *arg, void *proc, pid_t pid, pid_t tid,
	    id_t lwpid, enum bpfeng_origin origin, uint64_t when_ns);
	void (*lwp_exit)(void *arg, void *lwp, pid_t pid, pid_t tid,
	    unsigned flags, const struct bpfeng_counts *counts,
	    uint64_t when_ns);
	void (*fork)(void *arg, void *parent, void *parent_lwp, pid_t ppid,
	    pid_t parent_tid, pid_t child, uint64_t when_ns);
	bool (*exec)(void *arg, void *proc, void *lwp, pid_t pid, pid_t tid,
	    const char *args, const char *comm,
	    const struct bpfeng_counts *counts, unsigned flags,
	    uint64_t when_ns);
	void (*exit)(
	    void *arg, void *proc, pid_t pid, int status, uint64_t when_ns);
	/*
	 * With a target cgroup: the process left it, and runs on, no
	 * longer counted; its threads have had their lwp_exit (LEFT).
	 */
	void (*left)(void *arg, void *proc, pid_t pid, uint64_t when_ns);
	/*
	 * BPFENG_EACH_CGROUP: a cgroup (its id) has counts of its own from
	 * now on, the first of them tid's; or, folded, there was no room for
	 * them, and they are its parent's (or the target's).
	 */
	void (*cgroup)(
	    void *arg, uint64_t id, bool folded, pid_t tid, uint64_t when_ns);
	/*
	 * BPFENG_EACH_CGROUP, where bpfeng_cgroup_events() says so: a cgroup
	 * of the target (its id) made, named name in the cgroup parent;
	 * and one removed. Some may not be the target's: the parent says.
	 */
	void (*cgroup_named)(
	    void *arg, uint64_t id, uint64_t parent, const char *name);
	void (*cgroup_gone)(void *arg, uint64_t id);
};

/*
 * A live thread's counts at a tick: closed, those of the set whose turn
 * the tick ended, and counts, every set's; lwp is what its lwp_create
 * returned. when_ns: the time its counts run to, its own end of the turn
 * (CLOCK_MONOTONIC). Its CPU handed over at that CPU's flush, or at a
 * switch before it, so a thread that ran during the hand-over counted
 * in the old set past its start, up to its last mark there; one that did
 * not, up to the start (the batch's when_ns).
 */
struct bpfeng_ticked {
	void *lwp;
	pid_t pid, tid;
	const struct bpfeng_set_counts *closed;
	const struct bpfeng_counts *counts;
	uint64_t when_ns;
};

/*
 * A tick's live threads, read from the kernel in one pass and held by the
 * engine until its next tick or its close; when_ns: when the hand-over
 * began (bpfeng_handover_ns), the earliest of their own when_ns.
 */
struct bpfeng_tick_batch {
	const struct bpfeng_ticked *threads;
	size_t n;
	uint64_t when_ns;
};

/* A cgroup's counts at a tick, by its id (bpfeng_read_cgroups). */
typedef void(bpfeng_cgroup_fn)(
    void *arg, uint64_t id, const struct bpfeng_counts *counts);

/* open flags */
#define BPFENG_FOLLOW_FORK	 0x1 /* count forked children too */
#define BPFENG_FOLLOW_EXEC	 0x2 /* go on counting across exec */
/*
 * A started command's execs are followed until it makes a thread or a
 * process (or bpfeng_follow_exec says otherwise).
 */
#define BPFENG_FOLLOW_START_EXEC 0x4
/*
 * The sets' events have no counter limit (software events, tracepoints):
 * each distinct event is counted once per CPU, all the time, and the sets
 * take turns as bookkeeping, exactly. Without it, each set has counters
 * of its own, and a tick hands over from one set's to the next's.
 */
#define BPFENG_JOINT_SETS	 0x8
/*
 * The target is to be a cgroup (bpfeng_attach_cgroup). Without it the
 * programs are loaded without their watch of cgroups, which the verifier
 * would otherwise check at every start.
 */
#define BPFENG_BY_CGROUP	 0x10
/*
 * With BPFENG_BY_CGROUP: each cgroup of the target keeps the counts of
 * whatever runs in it (bpfeng_read_cgroups), up to cgroups_max of them,
 * and no thread is tracked: the target is a cgroup only, and the programs
 * for threads, forks, execs, exits and a command's signals are not
 * loaded. It counts every task there, whoever's, with no per-task check,
 * as a CPU-wide counter of a cgroup does (perf stat -a -G): only a caller
 * the kernel lets count whole CPUs (bpfeng_may_count_cpus) may ask for
 * it. No pid reaches userspace: it runs in any pid namespace.
 */
#define BPFENG_EACH_CGROUP	 0x20

/* How the engine is to count: BPFENG_* flags, and limits. */
struct bpfeng_config {
	unsigned flags;
	unsigned cgroups_max; /* BPFENG_EACH_CGROUP: the map's room */
	/*
	 * BPFENG_EACH_CGROUP: levels below the target's whose cgroups count
	 * apart; a deeper one counts in its ancestor at the last of them.
	 */
	unsigned fold_depth;
	/*
	 * -N: the ticks each process is counted for (bpfeng_count_ticks),
	 * or with a target cgroup, the run; 0 for no limit.
	 */
	unsigned nsamples;
	/*
	 * The command bpfeng_start will run, or NULL: it is forked while the
	 * programs load, and waits to exec until bpfeng_start lets it.
	 */
	char *const *command;
};

/* Room for a reason: every why below is one line, without a newline. */
#define BPFENG_WHY_LEN 256

/* Whether the caller may count whole CPUs (CAP_PERFMON or CAP_SYS_ADMIN). */
bool bpfeng_may_count_cpus(void);

/*
 * Whether the engine may run here, as far as can be told without loading
 * it (privilege, the kernel's version and BTF): 0, or -1 with why. A
 * later bpfeng_open may still fail (the verifier, descriptors).
 */
int bpfeng_can_run(char *why, size_t whylen);

/*
 * Load the engine and open its counters; set 0 is in use first. cpc is
 * the caller's libcpc handle, which gives the counters' attributes. NULL
 * on failure, with errno and why: no privilege, or a pid namespace other
 * than the initial one without BPFENG_EACH_CGROUP (EPERM), a kernel too
 * old (ENOSYS) or without BTF (ENOENT), the verifier's refusal with its
 * reason, a counter the kernel will not open, no memory. A cpustat holding
 * a CPU's PMU refuses nothing: the hardware counters just do not run there
 * meanwhile.
 */
struct bpfeng *bpfeng_open(cpc_t *cpc, const struct bpfeng_set *sets, int nsets,
    const struct bpfeng_config *config, const struct bpfeng_ops *ops, void *arg,
    char *why, size_t whylen);

/*
 * When the last bpfeng_open failed because the kernel's verifier refused a
 * program: everything libbpf said while it loaded them, the verifier's
 * whole log among it, for a report; NULL otherwise. Kept until the next
 * bpfeng_open.
 */
const char *bpfeng_verifier_log(void);

/*
 * What runs, for -D: every program of the engine (but the hooks at
 * cgroup changes, where no cgroup is counted apart) and whether the kernel
 * loaded it ("on_switch" or "!on_switch"), then how many are attached,
 * e.g. "on_switch flush ... on_exit; 8 loaded, 6 attached".
 */
void bpfeng_programs(const struct bpfeng *eng, char *buf, size_t len);
/*
 * How long bpfeng_open took, then each of its steps, for -D:
 * "52.1 ms: checks 0.4 ms, counters 0.1 ms, ...".
 */
void bpfeng_phases(const struct bpfeng *eng, char *buf, size_t len);
/*
 * For -D, with each cgroup apart, in one line: until when a task that
 * moves itself to another cgroup counts in the one it left (the move,
 * where the kernel lets the engine hook it, else its next switch).
 */
void bpfeng_migrations(const struct bpfeng *eng, char *buf, size_t len);
/*
 * Whether the cgroups made and removed below the target are told
 * (ops' cgroup_named and cgroup_gone), as they happen, from bpfeng_open
 * on; false where the kernel refused the engine's hooks for them.
 */
bool bpfeng_cgroup_events(const struct bpfeng *eng);

/*
 * The target, once per engine. bpfeng_start runs argv (PATH searched,
 * signal mask cleared) and counts it from its exec on; its pid, or -1.
 * lwp_create(FIRST) is called before it returns. bpfeng_attach counts the
 * threads of each of npids processes from now on: each leader FIRST, the
 * others FOUND, before it returns; a thread on a CPU counts from the flush
 * of that CPU that ends the attach. All or none: every pid is checked
 * before any is counted, and a failure lets go of those taken. 0 or -1.
 */
pid_t bpfeng_start(
    struct bpfeng *eng, char *const argv[], char *why, size_t whylen);
/*
 * Whether pid may be a target, as a capture by ptrace is refused: not
 * this process, one that exists, not a kernel thread, not a zombie. One
 * that a debugger traces may be. 0, or -1 and why ("pid 2 is a system
 * process"), said as the ptrace engine says it.
 */
int bpfeng_capturable(pid_t pid, char *why, size_t whylen);
int bpfeng_attach(struct bpfeng *eng, const pid_t *pids, size_t npids,
    char *why, size_t whylen);
/*
 * Count only the ntids threads named, of one process or several, from
 * now on: each leader named FIRST, the others FOUND, before it returns.
 * Threads made later are not counted (nor announced); the forks, exec
 * and exit of their processes are told as for bpfeng_attach. A process
 * none of whose named threads is counted any more (the last ended alone,
 * or was gone before it was announced) runs on, untracked (proc_end),
 * after the dispatch that saw its end, or at the next bpfeng_count_ticks.
 * All or none, as bpfeng_attach. 0 or -1.
 */
int bpfeng_attach_threads(struct bpfeng *eng, const pid_t *tids, size_t ntids,
    char *why, size_t whylen);

/*
 * The target is a cgroup (v2), by the id and level cgroupdir.h gives
 * and its directory: every thread of every process in it or below it,
 * those there now and those that come, from then on, until it leaves
 * (lwp_exit LEFT, then left). The processes there now are FIRST, their
 * other threads FOUND, before it returns; a thread that comes later is
 * FOUND when it is first seen running there (its process with it), and
 * counts from then. A process the caller could not ptrace is not counted
 * unless it may ptrace any. The engine is never done. 0 or -1 with why.
 */
int bpfeng_attach_cgroup(struct bpfeng *eng, uint64_t id, int level,
    const char *dir, char *why, size_t whylen);

/*
 * Whether pid's execs are followed (a tracked process), whatever the
 * engine's BPFENG_FOLLOW_EXEC: a caller may follow a command through the
 * execs that reach its program (env, nice, #! scripts). 0 or -1.
 */
int bpfeng_follow_exec(struct bpfeng *eng, pid_t pid, bool follow);

/*
 * Whether the command bpfeng_start started was sent signal sig (below
 * BPFENG_NSIG) by process sender since this last said so, waiting up to
 * wait_ms milliseconds for it: one kill of a whole job (its process group,
 * its cgroup) signals the command and its caller one after the other, in
 * either order.
 */
bool bpfeng_command_signaled(
    struct bpfeng *eng, int sig, pid_t sender, int wait_ms);

/*
 * Stop counting pid, a tracked process, and let it run on: no callback
 * comes about it any more but its proc_end. A started command is no
 * longer killed at close.
 */
void bpfeng_untrack(struct bpfeng *eng, pid_t pid);

/*
 * fn with each tracked process's record (proc_create's), in pid order;
 * fn may untrack the process it is given.
 */
void bpfeng_each_proc(
    struct bpfeng *eng, void (*fn)(void *arg, void *proc), void *arg);

/*
 * Readable when bpfeng_dispatch has something that cannot wait: a process
 * ended, or the records fill a quarter of the ring. Other records (thread
 * creations and exits, forks, execs) wake nobody, which spares a churning
 * target an interrupt and a switch per record: the caller dispatches at
 * least every BPFENG_READ_MS, which bounds how late their rows are.
 */
#define BPFENG_READ_MS 10
int bpfeng_fd(const struct bpfeng *eng);

/*
 * Call back for what happened since the last call, without waiting. 0, or
 * -1 with why: counts were lost (a full ring buffer or thread table, a
 * failed counter read: ENOBUFS, said once).
 */
int bpfeng_dispatch(struct bpfeng *eng, char *why, size_t whylen);

/*
 * Nothing is tracked any more, and a started command has been reaped
 * (unless its exec was not followed: it runs on, the engine's no more);
 * or a target cgroup's samples are done.
 */
bool bpfeng_done(const struct bpfeng *eng);

/*
 * A tick, of what the last bpfeng_dispatch saw: the caller dispatches
 * right before it (bpfeng_loop did, in the turn that calls its tick
 * hook), so that a thread that ended before the tick has its end
 * reported, not a tick row, and the ring is drained once a tick. Every
 * CPU is flushed, so
 * that a thread on a CPU has its counts up to the flush of that CPU; the
 * set in use becomes next_set, CPU by CPU at its flush, with no time lost
 * in between; then every live thread's counts are read into batch. Sets
 * rotate for all threads at once. bpfeng_flush_ns says how long the flush
 * of every CPU took, bpfeng_handover_ns when (CLOCK_MONOTONIC) the
 * hand-over to next_set began; each thread's counts run to its own
 * when_ns, at or after it. -1 with why, or EINVAL for no such set.
 */
int bpfeng_tick(struct bpfeng *eng, int next_set,
    struct bpfeng_tick_batch *batch, char *why, size_t whylen);
uint64_t bpfeng_flush_ns(const struct bpfeng *eng);
uint64_t bpfeng_handover_ns(const struct bpfeng *eng);

/*
 * After a tick's rows: it stood for ticks deadlines (more than one when
 * some were missed), each taken from every process's samples left
 * (config's nsamples), but for its last one, as libpctx takes them. A
 * process whose samples are done is untracked (proc_end), and runs on;
 * with a target cgroup, the run's samples done, the engine is done.
 */
void bpfeng_count_ticks(struct bpfeng *eng, uint64_t ticks);

/*
 * The run's clock and signals, opened before its target starts, so that
 * nothing waits for them once it runs: a tick every interval_ms (0: none)
 * at absolute deadlines, and signals, blocked from now on and taken by
 * bpfeng_loop (with SIGCHLD among them, the stops of a started command).
 * 0, or -1 with errno.
 */
int bpfeng_loop_open(
    struct bpfeng *eng, unsigned interval_ms, const sigset_t *signals);

struct signalfd_siginfo;

/* What bpfeng_loop calls; a hook that returns true ends it. */
struct bpfeng_loop_ops {
	/*
	 * A tick, standing for ticks deadlines (more than one when some
	 * were missed), right after the records before it were dispatched:
	 * the caller's bpfeng_tick and rows. True when it took the tick:
	 * the loop then counts it (bpfeng_count_ticks).
	 */
	bool (*tick)(void *arg, uint64_t ticks);
	/* A signal of those opened, but SIGCHLD. */
	bool (*signal)(void *arg, const struct signalfd_siginfo *si);
	/*
	 * The started command stopped itself with sig (a suspend command):
	 * untraced, its shell would have taken the terminal back, and the
	 * caller, its shell's child, stops with it.
	 */
	void (*command_stopped)(void *arg, int sig);
	/* What bpfeng_dispatch could not do: err, and why. */
	bool (*failed)(void *arg, int err, const char *why);
	/* After each wakeup's work: false ends the loop. */
	bool (*idle)(void *arg);
};

/*
 * dispatch_event(next_event()) until the engine is done or a hook ends
 * it: what happened, dispatched within BPFENG_READ_MS (lazy: only when
 * bpfeng_fd says it cannot wait, or at a tick or a signal), then the
 * signals, the ticks, and the idle hook. A command that made the caller
 * its tracer is let go at its first stop. 0, or -1 when the loop could
 * not wait (said to failed).
 */
int bpfeng_loop(struct bpfeng *eng, const struct bpfeng_loop_ops *ops,
    void *arg, bool lazy);

/*
 * How many times a switch out of a task the kernel hides from tracing went
 * unseen, and what the CPU counted meanwhile went to a tracked thread: its
 * counts then hold some of the hidden task's.
 */
uint64_t bpfeng_hidden_switches(const struct bpfeng *eng);

/*
 * BPFENG_EACH_CGROUP: every cgroup's counts as of the last tick, the
 * target's own among them. 0, or -1 with errno.
 */
int bpfeng_read_cgroups(struct bpfeng *eng, bpfeng_cgroup_fn *fn, void *arg);

/*
 * BPFENG_EACH_CGROUP, after bpfeng_attach_cgroup: a cgroup of the target,
 * there now, has its room at once, so that its counts (0 while nothing
 * runs in it) are read from now on. 0, or -1 with errno.
 */
int bpfeng_count_cgroup(struct bpfeng *eng, uint64_t id);

/* A cgroup that is gone: its counts are dropped, and its room freed. */
void bpfeng_forget_cgroup(struct bpfeng *eng, uint64_t id);

/*
 * Detach and let everything go, with no callbacks but the proc_end of
 * every process still tracked. A started command that
 * is still counted is killed (as the ptrace engine's is); an attached
 * process, or a command no longer counted after an exec, runs on. (A
 * started command outlives an engine's process that dies unclosed.)
 */
void bpfeng_close(struct bpfeng *eng);

#endif /* BPFENG_H */
