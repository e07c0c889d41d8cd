/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's internals, shared between its files.
 */
#ifndef BPFENG_IMPL_H
#define BPFENG_IMPL_H

#include <pthread.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/tree.h>
#include <linux/types.h>

#include "bpfeng.h"
#include "bpfeng_abi.h"
#include "exec_gate.h"
#include "proc_guard.h"

struct bpfeng_bpf;
struct eng_kept;
struct bpf_link;
struct bpf_program;
struct ring_buffer;

/* A thread announced to the caller. */
struct eng_thread {
	RB_ENTRY(eng_thread) node;
	pid_t tid;
	pid_t pid;
	uint32_t gen; /* its map entry's (struct bpfeng_thread) */
	void *lwp;    /* the caller's record (lwp_create's) */
};

/* A process announced to the caller, until its exit is delivered. */
struct eng_proc {
	RB_ENTRY(eng_proc) node;
	pid_t pid;
	void *proc;	       /* the caller's record (proc_create's) */
	id_t next_lwpid;       /* the number of its next thread */
	unsigned samples_left; /* -N: its ticks left; 0: no limit */
	int nthreads;	       /* announced, not ended */
	bool exited;	       /* its exit waits for them */
	bool left;	       /* it left the target cgroup: no exit comes */
	int status;
	uint64_t exit_ns;
};

RB_HEAD(eng_thread_tree, eng_thread);
RB_HEAD(eng_proc_tree, eng_proc);

/* A command forked, waiting at its gate (bpfeng_command.c). */
struct eng_command {
	pid_t pid; /* 0: none */
	struct exec_gate gate;
};

/* The steps of opening the engine, timed for -D (bpfeng_phases). */
enum eng_phase {
	ENG_PHASE_CHECKS,
	ENG_PHASE_COUNTERS,
	ENG_PHASE_OPEN,
	ENG_PHASE_COMMAND, /* its fork and its guard's, beside the types */
	ENG_PHASE_TYPES,   /* what was left to wait for, after the two above */
	ENG_PHASE_LOAD,
	ENG_PHASE_PIDS,
	ENG_PHASE_FILL,
	ENG_PHASE_RING,
	ENG_PHASE_ATTACH,
	ENG_NPHASES
};

struct bpfeng {
	cpc_t *cpc;
	unsigned flags;
	const struct bpfeng_ops *ops;
	void *arg;

	/* The sets, as laid out in a thread's counts. */
	int nsets;
	int set_nreqs[BPFENG_MAX_SETS];
	int set_first[BPFENG_MAX_SETS]; /* counter */
	int set_slot[BPFENG_MAX_SETS];
	int set_ngroups[BPFENG_MAX_SETS];	/* perf groups: 1 when joint */
	int counter_group[BPFENG_MAX_COUNTERS]; /* in its set */
	bool multi_group;			/* a set has several groups */
	int ncounters;				/* per CPU */
	bool joint;				/* BPFENG_JOINT_SETS, taken */
	int joint_of[BPFENG_MAX_SETS][BPFENG_MAX_SET_REQS];
	uint64_t switch_counters; /* bit per counter */
	int nslots;
	size_t value_size; /* of a thread's value */
	int active;	   /* the set in use */

	/* Counter c of CPU n is fds[c * ncpus + n]; -1 where none. */
	int ncpus;
	bool maps_grow; /* the hash maps allocate entries as they are added */
	int *fds;
	bool *online; /* per CPU */
	/*
	 * A hybrid CPU's: each counter's core PMU, or -1 for one of every
	 * CPU; each CPU's core PMU. Counter c leads its group on CPU n
	 * where leader[c * ncpus + n] is its fd (-1 where it does not):
	 * the first of the group's counters there.
	 */
	bool sparse;
	int counter_core[BPFENG_MAX_COUNTERS];
	int *cpu_core;
	int *leader;

	/*
	 * The object's instances: the first, which owns the maps and most
	 * programs, and where two threads loaded them, the second
	 * (bpfeng_load.c); NULL where one loaded them all.
	 */
	struct bpfeng_bpf *skel;
	struct bpfeng_bpf *second;
	/*
	 * Or, where skel was only opened, the programs and maps of an
	 * earlier run, taken (bpfeng_keep.c); and whether this run's are
	 * kept, under keep_name, when it ends.
	 */
	struct eng_kept *kept;
	bool keep_after;
	char keep_name[33];
	int keep_dfd; /* where this run's wait to be given up, or -1 */
	/* The taken programs being attached (eng_attach_begin). */
	pthread_t attach_thread;
	bool attaching;
	int attach_err;
	/* The hook at cgroup migrations, or NULL and why (bpfeng_migrate.c). */
	struct bpfeng_bpf *migrate;
	int migrate_err;
	bool cgroup_events; /* its hooks at cgroups made and removed */
	int counters_fd;    /* maps */
	int threads_fd;
	int procs_fd;
	int cgroups_fd;
	int records_fd;
	int flush_fd;		    /* the flush program */
	volatile __u32 *active_set; /* the programs' data */
	volatile __u64 *lost_records;
	volatile __u64 *lost_threads;
	volatile __u64 *read_errors;
	volatile __u64 *hidden_switches;
	volatile __u32 *command_pid;
	volatile __u32 *signal_sender; /* per signal */
	volatile __u32 *signal_count;
	volatile __u64 *target_cgroup;
	volatile __u32 *target_level;
	unsigned nsamples;	   /* the config's: each process's ticks */
	unsigned run_samples_left; /* a target cgroup's ticks left */
	bool samples_done;	   /* a target cgroup's are */
	bool named_only;	   /* the target is named threads */
	bool named_gone;	   /* one of them ended alone */
	unsigned cgroups_max;	   /* BPFENG_EACH_CGROUP's, else 0 */
	unsigned fold_depth;
	uint64_t *cgroup_keys; /* a tick's read of the cgroups' counts */
	void *cgroup_values;
	uint32_t signals_seen[BPFENG_NSIG];
	struct ring_buffer *rb;
	int epfd;	  /* the ring and the child */
	int loop_sigfd;	  /* bpfeng_loop_open's signals; bpfeng_close closes */
	int loop_timerfd; /* and ticks */

	char *const *command;	  /* the config's */
	struct eng_command ready; /* forked while the programs loaded */
	char *const *ready_argv;  /* what it runs */
	pid_t target;		  /* 0 until there is one */
	bool by_cgroup;		  /* the target is a cgroup: never done */
	pid_t child;		  /* a started command */
	bool child_released;	  /* its exec not followed */
	bool child_signaled;	  /* a SIGCHLD since the last look */
	int child_fd;		  /* its pidfd */
	struct proc_guard guard;  /* its guard (bpfeng_guard.c) */
	pid_t starting;	      /* the command, until its first image's record */
	uint64_t starting_ns; /* when it was let go to its exec */
	int start_err;	      /* why it could not be announced, or 0 */
	pid_t discard;	      /* its records are dropped */

	struct eng_thread_tree threads;
	struct eng_proc_tree procs;

	/*
	 * A tick's batched reads of the thread map, every thread's entry in
	 * one pass, and the live threads among them, pointing into it.
	 */
	uint32_t *batch_keys;
	void *batch_values;
	uint32_t batch_len;
	struct bpfeng_ticked *ticked;
	uint32_t ticked_len;

	/*
	 * The descriptor limit the caller had: the engine raises its own to
	 * open a counter per CPU, and gives a started command this one.
	 */
	struct rlimit nofile;
	bool nofile_raised;
	long fd_spare; /* descriptors the limit leaves beyond the engine's */

	uint64_t flush_ns;
	uint64_t handover_ns; /* the last tick's hand-over began */
	uint64_t phase_ns[ENG_NPHASES];
	int types_whole;    /* why the kernel's types were not picked out */
	uint64_t lost_seen; /* losses reported */
	uint64_t unadopted; /* a cgroup's processes that could not be
			       tracked (the maps were full) */
	void *zero_value;   /* a thread's, zeroed */
	void *read_value;   /* a thread's, read from the map */
};

#define ENG_KERNEL_BTF "/sys/kernel/btf/vmlinux"
/* Descriptors the second instance of the programs takes besides. */
#define ENG_SECOND_FDS 24

/*
 * The kernel's types that the programs read (bpfeng_btf.c), picked out
 * in a thread of their own while the counters and the skeleton open.
 * The skeleton is opened with the path of the memfd they go to; libbpf
 * reads it only when it loads.
 */
struct eng_types {
	pthread_t thread;
	bool started;
	int fd;
	int err; /* why they could not be picked out, or 0 */
	char path[32];
};

/* bpfeng_btf.c */
int eng_btf_small(const char *kernel_btf, int to);

/* bpfeng_check.c */
void eng_why(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int eng_check_privilege(char *why, size_t whylen);
bool eng_may_trace_any(void);
/* The permitted capabilities: what a counted process may hold. */
uint64_t eng_permitted_caps(void);
int eng_check_kernel(
    const char *release, const char *btf_path, char *why, size_t whylen);
void eng_log_begin(void);
void eng_log_end(void);
const char *eng_log_text(void);
void eng_verifier_reason(const char *log, char *line, size_t len);
void eng_load_reason(const char *log, int err, char *why, size_t whylen);
void eng_fd_reason(const char *what, int err, char *why, size_t whylen);

/* bpfeng_counters.c */
int eng_counters_open(struct bpfeng *eng, const struct bpfeng_set *sets,
    char *why, size_t whylen);
int eng_counters_fill(struct bpfeng *eng, char *why, size_t whylen);
int eng_counters_enable(struct bpfeng *eng, int set, bool on);
void eng_counters_close(struct bpfeng *eng);

/* bpfeng_events.c */
int eng_events_open(struct bpfeng *eng, char *why, size_t whylen);
void eng_events_close(struct bpfeng *eng);
int eng_events_drain(struct bpfeng *eng);
struct eng_thread *eng_thread_find(struct bpfeng *eng, pid_t tid);
int eng_announce_thread(struct bpfeng *eng, pid_t pid, pid_t tid, uint32_t gen,
    enum bpfeng_origin origin, uint64_t when_ns);
struct eng_proc *eng_announce_proc(
    struct bpfeng *eng, pid_t pid, const struct eng_proc *parent);
/*
 * The started command (eng->starting), named comm (NULL: from /proc);
 * eng->start_err is set if it could not be.
 */
void eng_announce_started(struct bpfeng *eng, const char *comm);
void eng_forget_proc(struct bpfeng *eng, pid_t pid);
void eng_forget_all(struct bpfeng *eng);
void eng_untrack(struct bpfeng *eng, pid_t pid);
/*
 * Processes none of whose named threads is counted any more run on,
 * untracked: after the records that ended their last, not from the
 * callbacks, which still hold their records.
 */
void eng_let_go_unnamed(struct bpfeng *eng);
uint64_t eng_now_ns(void);

/* The time since *since, as phase's; *since becomes now. */
static inline void
eng_phase_done(struct bpfeng *eng, enum eng_phase phase, uint64_t *since)
{
	uint64_t now = eng_now_ns();

	eng->phase_ns[phase] = now - *since;
	*since = now;
}

/* bpfeng_target.c */
int eng_track_proc(struct bpfeng *eng, pid_t pid, uint32_t flags);
int eng_adopt_process(struct bpfeng *eng, pid_t pid);
void eng_reap_child(struct bpfeng *eng, bool wait);
void eng_kill_child(struct bpfeng *eng);
/*
 * The guard that kills the started command pid (and with -f the
 * processes below it) if cputrack dies without letting it go
 * (bpfeng_guard.c); dismissed when the command ends or is let go.
 */
int eng_guard_start(struct bpfeng *eng, pid_t pid);
void eng_guard_dismiss(struct bpfeng *eng);
/* Dismissed if it was not, and gone: nothing of the run outlives it. */
void eng_guard_gone(struct bpfeng *eng);

/* bpfeng_command.c */
int eng_command_fork(
    struct bpfeng *eng, char *const argv[], struct eng_command *c);
int eng_command_go(struct eng_command *c);
void eng_command_close(struct eng_command *c);
/*
 * The config's command forked, with its pidfd and its guard, while the
 * programs load; quietly nothing where it cannot be: bpfeng_start then
 * forks it and says why it cannot. It is taken by bpfeng_start for the
 * same argv (true), or abandoned: it ends without running anything.
 */
void eng_command_prepare(struct bpfeng *eng, char *const argv[]);
bool eng_command_take(
    struct bpfeng *eng, char *const argv[], struct eng_command *c);
void eng_command_abandon(struct bpfeng *eng);

/* bpfeng_load.c */
void eng_types_start(struct eng_types *job);
void eng_types_end(struct eng_types *job);
int eng_load(struct bpfeng *eng, struct eng_types *types, uint64_t *since,
    char *why, size_t whylen);
int eng_whoami_fd(const struct bpfeng *eng);
uint32_t eng_caller_pid(const struct bpfeng *eng);
void eng_attach_begin(struct bpfeng *eng);
int eng_attach(struct bpfeng *eng, char *why, size_t whylen);
void eng_detach(struct bpfeng *eng);
void eng_unload(struct bpfeng *eng);

/*
 * bpfeng_keep.c: programs kept loaded between runs of root's. Where
 * eng_keep_wanted, eng_keep_take takes an earlier run's instance of the
 * configured, unloaded skel, or names the one this run loads; 0 where it
 * took one, and eng->kept is set. eng_keep_leave pins this run's, loaded,
 * where eng->keep_after, and lets go of what eng->kept holds;
 * eng_keep_publish, once the run has closed every descriptor of them,
 * gives them to the next run.
 */
/* The object's maps and programs, as loaded or taken: -1 where none. */
#define ENG_MAX_OBJECTS 16
struct eng_loaded {
	int map_fd[ENG_MAX_OBJECTS]; /* in the object's order */
	int nmaps;
	int prog_fd[ENG_MAX_OBJECTS]; /* in the skeleton's order */
	int nprogs;
};

bool eng_keep_wanted(const struct bpfeng *eng);
int eng_keep_take(struct bpfeng *eng, const struct bpfeng_bpf *skel);
int eng_keep_map_fd(const struct bpfeng *eng, int i);
int eng_keep_program_fd(const struct bpfeng *eng, int i);
bool eng_keep_attached(const struct bpfeng *eng, int i);
void *eng_keep_bss(const struct bpfeng *eng);
int eng_keep_attach(struct bpfeng *eng, const struct bpfeng_bpf *skel);
void eng_keep_detach(struct bpfeng *eng);
void eng_keep_leave(struct bpfeng *eng, const struct eng_loaded *loaded);
void eng_keep_publish(struct bpfeng *eng);

/* bpfeng_migrate.c: none can fail the engine's start. */
void eng_migrate_load(struct bpfeng *eng, const char *types_path);
void eng_migrate_attach(struct bpfeng *eng);
void eng_migrate_detach(struct bpfeng *eng);
void eng_migrate_unload(struct bpfeng *eng);
/* Whether program name is loaded by the migrations' instance. */
bool eng_migrate_program(const struct bpfeng *eng, const char *name);
/* Whether program name is one of those, which this run has no use for. */
bool eng_migrate_unused(const struct bpfeng *eng, const char *name);

/* bpfeng_tick.c */
int eng_flush(struct bpfeng *eng, char *why, size_t whylen);
int eng_lost_check(struct bpfeng *eng, char *why, size_t whylen);
int eng_tick(struct bpfeng *eng, int next_set, struct bpfeng_tick_batch *batch,
    char *why, size_t whylen);

#endif /* BPFENG_IMPL_H */
