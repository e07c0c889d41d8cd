/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack: per-process, per-LWP counting of a command or a running pid.
 *
 *	cputrack.c	  main: wires the pieces together; output, the end
 *	cputrack_signals.c the signals of a run and the flush of its rows,
 *			  for main and both engines
 *	cputrack_opts.c	  the command line
 *	cputrack_engine.c which engine counts a run
 *	cputrack_rows.c	  the rows, and the exec policy, of both engines
 *	cputrack_track.c  the tracking model: the records of the processes
 *			  and LWPs both engines follow, and their rows
 *	cputrack_ptrace.c the ptrace engine, an adapter onto the model:
 *			  libpctx's callbacks, each LWP counted by its own
 *			  perf counters
 *	cputrack_bpf.c	  the BPF engine, an adapter onto the model: per-CPU
 *			  counters given to the threads at every context
 *			  switch (cmd/bpf)
 *	cputop_scan.c	  cputop with no target where the BPF engine
 *			  cannot watch the machine: the processes counted
 *			  from outside, found by a scan of /proc
 */
#ifndef CPUTRACK_H
#define CPUTRACK_H

#include <sys/queue.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "libcpc.h"
#include "libpctx.h"
#include "cgroupdir.h"
#include "output.h"
#include "setgrp.h"

struct engine;

/* The engine a run takes when --engine is not given; unset: auto. */
#define ENGINE_ENV "CPCTOOLS_ENGINE"

/* The command line. */
struct cputrack_opts {
	unsigned interval_ms;
	char interval_by;  /* 'T' or 'I' when given, or 0 */
	unsigned nsamples; /* 0: unlimited */
	bool follow_exec;
	bool strict_exec;   /* no exec followed without -e */
	bool pass_status;   /* exit with the command's status */
	bool thread_series; /* --thread-series: metrics per LWP */
	bool follow_fork;
	bool verbose;
	pid_t *pids; /* -p's, in the order given, or NULL */
	size_t npids;
	pid_t *tids; /* --tid's, in the order given, or NULL */
	size_t ntids;
	char **command;	 /* the command to start, or NULL */
	unsigned repeat; /* -r: runs of the command; 0: one */
	/* --cgroup's directory, resolved, or NULL */
	struct cgroup_dir *cgroup;
	/* --for-each-cgroup: the same directory, its cgroups each apart */
	bool each_cgroup;
	unsigned cgroup_depth; /* levels below it kept apart */
	unsigned cgroups_max;  /* cgroups kept apart */
	/* -n, -t, --format, -o/--output, --output-fd, --listen */
	struct out_config out;
	const struct engine *engine; /* --engine's or CPCTOOLS_ENGINE's;
					NULL: auto */
	bool engine_given;	     /* --engine */
	bool top;	    /* --top, or run as cputop: the live view */
	bool top_batch;	    /* -b: the view as text, once per refresh */
	bool top_machine;   /* cputop with no target: every process */
	bool top_scan;	    /* ... counted from outside (cputop_scan.c) */
	char watching[160]; /* --top: what is watched, in words */
};

/* --for-each-cgroup's defaults and bounds. */
#define CGROUPS_MAX_DEFAULT  4096u
#define CGROUPS_MAX_LIMIT    1048576u
#define CGROUP_DEPTH_ALL     64u
#define CGROUP_DEPTH_DEFAULT 3u /* the node unit's: /system.slice/x/y */
/* Bytes of a cgroup row's name: a longer one is shortened. */
#define CGROUP_NAME_MAX	     255u

/* The run. */
struct cputrack {
	cpc_t *cpc;
	setgrp_t *specs; /* the -c specs (master group) */
	int nsets;	 /* how many, once the options are read */
	struct output *out;
	struct cputrack_opts opt;
	pid_t target;		     /* the command's or -p's first pid, or 0 */
	pid_t *tid_procs;	     /* --tid: the process of each tid */
	const struct engine *engine; /* the run's, once chosen */
	void *engine_state;	     /* its own, from its open to its let_go */
	struct repeat *repeat;	     /* -r's totals, or NULL */
	int command_status;	     /* the started command's exit status
				       (128 + signal), or -1 */
	int stop_signal;	     /* the signal that cut the run short */
	bool cut_short; /* an ending signal came, to it or the command */
	int stop_count;
	bool counted;		  /* some LWP's counters were bound */
	bool uncounted;		  /* a process was not followed: exit 1 */
	unsigned long procs_seen; /* the last process key given */
	bool write_failed;
	bool reader_gone; /* no more rows can go out: the run
			     ends (EPIPE, or write_failed) */
	/* Where the checks open their test events: a CPU, or -1 a thread. */
	int probe_cpu;
};

/*
 * cputrack_engine.c: the engines, in one table in auto's order, and
 * which counts a run. engine_next: the row after e (NULL: the first), or
 * NULL after the last. An engine's name (or auto, *engine NULL): 0, or -1
 * for none. The engine without --engine: CPCTOOLS_ENGINE's, or auto; -1
 * when CPCTOOLS_ENGINE names none. The names joined for usage and errors
 * ("a, b or auto" with sep ", " and last " or "), and how each follows
 * and counts, for --help. The line that says the
 * engine, and which engine auto takes here, for -h and --version. The
 * first engine that sees a process come into a cgroup. Whether auto
 * leaves this run's target to an engine that serves a program's requests,
 * and why (a program that may mark its sections with cpc_enable). Where
 * the checks of a run with engine (NULL: auto) open their test events
 * (ct->probe_cpu): on a CPU where an engine that counts CPUs alone may
 * count, so that no test opens the first event on a thread, which waits
 * for an RCU grace period where none is counted; on the thread otherwise
 * (engine_probe_on_thread). Where its requests are checked: as such an
 * engine counts them, on every CPU (SPEC_CHECK_CPUS: each request of a
 * core PMU on one of that PMU's CPUs), or on the thread.
 */
const struct engine *engine_next(const struct engine *e);
int engine_parse(const char *name, const struct engine **engine);
int engine_default(const struct engine **engine);
const char *engine_names(
    char *buf, size_t len, const char *sep, const char *last);
void engine_line(FILE *out);
void engine_help(FILE *out);
const struct engine *engine_seeing_cgroups(void);
bool engine_auto_skips(const struct cputrack *ct, char *why, size_t whylen);
void engine_probe_where(struct cputrack *ct, const struct engine *engine);
void engine_probe_on_thread(struct cputrack *ct);
int engine_check_cpu(const struct cputrack *ct);

/*
 * cputrack_repeat.c: -r's runs. Each total row of a process adds to the
 * run's; at each run's end they become one more run's values; after the
 * last, a summary row per set (see output_summary).
 */
struct repeat;
struct repeat *repeat_new(const setgrp_t *specs);
void repeat_free(struct repeat *rp);
void repeat_add(struct repeat *rp, int set, const uint64_t *values);
void repeat_end_run(struct repeat *rp);
void repeat_write(const struct repeat *rp, struct output *out);

/* cputrack_opts.c: false when the run is over, with *status to exit with. */
bool cputrack_options(struct cputrack *ct, int argc, char **argv, int *status);

/*
 * cputrack_signals.c, for main and the engines. The handlers, installed
 * once the output is open. A signal that came before the target was
 * there (0 if none). The rows' title, once the target is there (the run's
 * clock is the output's). A signal during the run (SIGHUP, SIGINT, SIGQUIT,
 * SIGTERM): 1 when the target is to be let go and the run ended, 0 to go
 * on (a command cputrack started is sent it, unless the engine saw it
 * sent the command too, and tracked to its end). Rows written out; a
 * reader gone away, or a write error, sets reader_gone.
 */
/*
 * cputop_scan.c: cputop's whole machine refused by the BPF engine for
 * why: true when the run counts processes from outside instead (root
 * every process, a user their own), with what the header says.
 */
bool cputop_scan_instead(struct cputrack *ct, const char *why);

void cputrack_install_signals(void);
void cputrack_ending_signals(sigset_t *set);
int cputrack_early_signal(void);
void cputrack_title(struct cputrack *ct);
int cputrack_signal(
    struct cputrack *ct, int sig, int si_code, bool target_has_it);
void cputrack_flush(struct cputrack *ct);
/*
 * A new process's key for its rows: its number in the run, so that rows
 * tell apart two processes that had one pid.
 */
unsigned long cputrack_proc_key(struct cputrack *ct);

/* cputrack_rows.c: the rows both engines print. */
struct row_lwp {
	pid_t pid;
	id_t lwpid;
	pid_t tid;
	const char *comm;   /* its process's name, or NULL: read from
			       /proc when the output needs it */
	unsigned long proc; /* its process's key: cputrack_proc_key's */
};

void row_counts(struct cputrack *ct, const struct row_lwp *who,
    const char *label, int set, const struct set_counts *c);
/* A tick row, or, holding more than one interval, a gap row. */
void row_tick(struct cputrack *ct, const struct row_lwp *who, int set,
    const struct set_counts *c, unsigned long intervals);
/* A set's row whose values are no number, with the reason. */
void row_not_counted(struct cputrack *ct, const struct row_lwp *who,
    const char *label, int set, const char *why);
/*
 * A row per set that counted: an LWP's, or its process's, totals;
 * partial, when not NULL, says which LWPs they leave out.
 */
void row_totals(struct cputrack *ct, const struct row_lwp *who,
    const char *label, const setgrp_t *g, const char *partial);
/*
 * The old image's totals, then the marker with the new one's arguments
 * and name (image_comm; NULL: read from /proc when the output needs it).
 */
void row_exec(struct cputrack *ct, const struct row_lwp *who,
    const setgrp_t *acc, const char *args, const char *image_comm,
    const char *partial);
/* --cgroup: what its threads together counted since its last row. */
void row_cgroup(struct cputrack *ct, const struct row_lwp *who,
    const char *label, int set, const struct set_counts *c,
    unsigned long intervals);
/* A fork marker in the parent's LWP, at when (0: now). */
void row_fork(struct cputrack *ct, const struct row_lwp *parent, pid_t child,
    hrtime_t when);

enum exec_follow {
	EXEC_FOLLOWED,	     /* -e */
	EXEC_FOLLOWED_EARLY, /* the started command, having made no thread or
				process */
	EXEC_NOT_FOLLOWED
};
bool follows_wrapper_execs(const struct cputrack *ct);
void exec_say(pid_t pid, const char *args, enum exec_follow how);
/*
 * A process not captured, as the user named it: -p's pid (tid 0), or
 * --tid's tid of process pid; why is appended (may be "").
 */
void capture_say_failed(pid_t pid, pid_t tid, const char *why);

/* Room for an engine's reason not to count here. */
#define ENGINE_WHY_LEN 256

/*
 * An engine. open makes it ready to count and returns 0, or returns the
 * status to exit with: 1 when cpustat holds the CPUs, 2 when the engine
 * cannot count here. Where it cannot, why says so (open_one, cputrack.c,
 * says it: for auto, which then counts with the next engine, only under
 * -v or -D); an empty why: open said all there was to say. track runs
 * the whole tracking and returns the status to exit with; let_go lets
 * whatever is still tracked run on and frees the engine's state.
 */
struct engine_ops {
	int (*open)(struct cputrack *ct, bool for_auto, char *why, size_t len);
	int (*track)(struct cputrack *ct);
	void (*let_go)(struct cputrack *ct);
};

/*
 * A row of the engines' table (cputrack_engine.c), the one place that
 * names them: what --engine, the messages and the output call it, what
 * it can do, and its adapter.
 */
struct engine {
	const char *name;     /* as --engine and the output name it */
	const char *says;     /* as messages name it: "the %s engine" */
	const char *phase;    /* its mark in -D's start-up timing */
	const char *how;      /* how it follows and counts, for --help */
	bool sees_cgroups;    /* a process coming into a cgroup */
	bool serves_requests; /* a traced program's cpc_enable */
	bool counts_on_cpus;  /* CPUs alone, never a thread's events */
	/* 0 where it can run here, else -1 and why; NULL: it always can */
	int (*can_run)(char *why, size_t len);
	/* whether the user may count every process; NULL: as the kernel says */
	bool (*may_count_all)(void);
	const struct engine_ops *ops;
};

/* The adapters, each in its own file of engines/. */
extern const struct engine_ops ptrace_ops; /* cputrack_ptrace.c */
extern const struct engine_ops bpf_ops;	   /* cputrack_bpf.c */
int bpf_can_run(char *why, size_t len);	   /* ... or cputrack_nobpf.c */
bool bpf_may_count_all(void);
extern const struct engine_ops scan_ops; /* cputop_scan.c */
/* cputop's own, which no --engine names (cputop_scan.c). */
extern const struct engine scan_engine;

#endif /* CPUTRACK_H */
