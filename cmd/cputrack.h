/*
 * cputrack: per-process, per-LWP counting of a command or a running pid.
 */
#ifndef CPUTRACK_H
#define CPUTRACK_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/tree.h>

#include "libcpc.h"
#include "libpctx.h"
#include "output.h"
#include "spec.h"

/* One LWP: its own copy of the sets, rotating per tick. */
struct lwp {
	RB_ENTRY(lwp)	 node;
	id_t		 lwpid;
	pid_t		 tid;
	struct rotation	*rot;
	bool		 finished;	/* fini_lwp has read its final counts */
};

RB_HEAD(ct_lwp_tree, lwp);

/* One tracked process: its LWPs and the totals of those that ended. */
struct proc {
	RB_ENTRY(proc)	 node;
	pid_t		 pid;
	pctx_t		*pctx;
	struct ct_lwp_tree	 lwps;
	cpc_buf_t	**total;	/* per set, summed over ended LWPs */
	bool		 *sampled;	/* per set */
	struct set_times *times;	/* per set */
	hrtime_t	 last_total_time;
};

RB_HEAD(ct_proc_tree, proc);

struct cputrack {
	cpc_t		*cpc;
	struct setgrp	 grp;
	cpc_set_t	**templates;	/* per set, to size buffers */
	struct output	 out;
	FILE		*log;
	const char	*log_name;
	unsigned	 interval_ms;
	unsigned	 nsamples;	/* 0: unlimited */
	bool		 follow_exec;
	bool		 follow_fork;
	bool		 tick_col;
	bool		 verbose;
	bool		 no_title;
	hrtime_t	 start;
	struct ct_proc_tree procs;
	bool		 write_failed;
	bool		 reader_gone;	/* EPIPE: the output pipe was closed */
};

extern volatile sig_atomic_t cputrack_interrupted;

/* cputrack_track.c: the libpctx callbacks. */
int track_setup(struct cputrack *ct, pctx_t *pctx);
int track_run(struct cputrack *ct, pctx_t *pctx);
void track_forget(struct cputrack *ct);

/* cputrack_rows.c: the rows, in table, CSV or JSON form. */
void rows_title(struct cputrack *ct);
void rows_sample(struct cputrack *ct, struct proc *p, struct lwp *l,
    const char *label, int setno, cpc_buf_t *buf, uint64_t enabled,
    uint64_t running);
void rows_fork(struct cputrack *ct, pid_t parent, id_t lwpid, pid_t child);
void rows_exec_marker(struct cputrack *ct, struct proc *p, const char *args);
void rows_flush(struct cputrack *ct);
hrtime_t rows_now(void);

#endif /* CPUTRACK_H */
