/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's run: its options and state, the rows both engines print, and
 * the signals and flush of a run. Below the command (cmd/cputrack) and
 * the engines (engines/, cputrack_engine.h), which both include it; it
 * includes neither.
 *
 *	cputrack_signals.c the signals of a run and the flush of its rows,
 *			  for main and the engines
 *	cputrack_repeat.c -r's runs, summed
 *	cputrack_rows.c	  the rows, and the exec policy, of the engines
 *	cputrack_track.c  the tracking model: the records of the processes
 *			  and LWPs the engines follow, and their rows
 */
#ifndef CPUTRACK_H
#define CPUTRACK_H

#include <sys/queue.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "libcpc.h"
#include "cgroupdir.h"
#include "output.h"
#include "setgrp.h"

struct engine;
struct cputrack_tty;

/* The command line. */
struct cputrack_opts {
	unsigned interval_ms;
	char interval_by;  /* 'T' or 'I' when given, or 0 */
	unsigned nsamples; /* 0: unlimited */
	bool follow_exec;
	bool strict_exec; /* no exec followed without -e */
	bool pass_status; /* exit with the command's status */
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
	char *kubelet_root; /* kubelet-root=, or NULL: found (k8s_labels.h) */
	/* -n, -t, --format, -o/--output, --output-fd, --listen */
	struct out_config out;
	const struct engine *engine; /* --engine's or CPCTOOLS_ENGINE's;
					NULL: auto */
	bool engine_given;	     /* --engine */
	bool top;		 /* --top, or run as cputop: the live view */
	bool top_batch;		 /* -b: the view as text, once per refresh */
	struct top_config *view; /* --top's sink's configuration */
	bool top_machine;	 /* cputop with no target: every process */
	/* ... counted by an engine that stands in (engine_instead) */
	const struct engine *instead;
	char instead_why[160]; /* ...for this reason (the view words it) */
	char watching[160];    /* --top: what is watched, in words */
	char modes_note[256];  /* --top: events counted in user mode only */
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
	/* How it counts, in a line for --top's header, or NULL */
	const char *engine_note;
	struct repeat *repeat; /* -r's totals, or NULL */
	int command_status;    /* the started command's exit status
				 (128 + signal), or -1 */
	int stop_signal;       /* the signal that cut the run short */
	bool cut_short;	       /* an ending signal came, to it or the command */
	int stop_count;
	bool counted;		  /* some LWP's counters were bound */
	bool uncounted;		  /* a process was not followed: exit 1 */
	unsigned long procs_seen; /* the last process key given */
	bool write_failed;
	bool reader_gone; /* no more rows can go out: the run
			     ends (EPIPE, or write_failed) */
	/* Per set: some row of it held counts (row_sets_unturned) */
	bool *set_counted;
	/* Where the checks open their test events: a CPU, or -1 a thread. */
	int probe_cpu;
	/* --top on a screen: the started command's own terminal */
	struct cputrack_tty *tty;
};

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
 * After the last row: a line on stderr for each set no row counted, as
 * cpustat says of its totals; the sets take turns at the ticks, and the
 * run ended before its own. Nothing where no LWP was counted at all, or
 * a signal cut the run short. set_counted is allocated here, with nsets.
 */
int row_sets_init(struct cputrack *ct);
void row_sets_unturned(struct cputrack *ct);
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

#endif /* CPUTRACK_H */
