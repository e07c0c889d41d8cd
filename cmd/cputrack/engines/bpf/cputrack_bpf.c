/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's BPF engine (its library in lib/): every CPU counts, and the
 * engine gives each thread what its CPU counted while it ran, at every
 * context switch.
 * Nothing is stopped or traced; threads, forks, execs and exits come from
 * the scheduler's tracepoints, in the order they happened.
 *
 * An adapter onto the tracking model (cputrack_track.c), as the ptrace
 * engine is: the model writes the rows from the same records, in which
 * each LWP keeps an accumulator clone of the set group, fed with the
 * engine's cumulative counts, so that its slices, totals and its
 * process's totals are computed as they are there. The engine holds
 * the records of processes and LWPs, numbers the LWPs and counts -N's
 * ticks, as libpctx does for ptrace. The sets rotate at each tick for
 * every thread at once.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/queue.h>
#include <sys/wait.h>
#include <unistd.h>

#include "access.h"
#include "bpfeng.h"
#include "cputrack_bpf_engine.h"
#include "cputrack_bpf_sets.h"
#include "cputrack_cgroup_sum.h"
#include "cputrack_cgroups.h"
#include "cputrack_track.h"
#include "diag.h"
#include "engine_breakpoint.h"
#include "procname.h"
#include "startup.h"

/*
 * A tracked process: the model's record, and its LWPs'. The engine holds
 * it and hands it back with the process's events.
 */
struct bproc {
	struct track_proc base;
	LIST_HEAD(, bthread) lwps;
	int rowless;	       /* LWPs that ended with no row */
	struct row_lwp leader; /* its exit row's LWP */
};

/*
 * A tracked LWP: the model's record, its sets fed with the engine's
 * counts. The engine holds it and hands it back with the LWP's events.
 */
struct bthread {
	struct track_lwp base;
	LIST_ENTRY(bthread) in_proc;
	uint32_t turns;	 /* a bit per set that counted for it */
	bool made;	 /* made by a tracked thread: its
			    lwp_create row is due */
	uint64_t ticked; /* the last tick that read it */
	/*
	 * A hand-over to set owed_set at owed_at that no reading of it
	 * marked (it ended, or its image was replaced, between the
	 * engine's last records and the tick's read); -1 when none.
	 */
	int owed_set;
	hrtime_t owed_at;
};

struct bpf_track {
	struct cputrack *ct;
	struct bpfeng *eng;
	int current; /* the set counting now */
	hrtime_t tick_when;
	uint64_t ticks;	       /* the ticks that read the threads, this one's */
	struct bpf_sets *sets; /* as the engine counts them */
	/* The intervals the tick holds: more than one after missed ones. */
	unsigned long intervals;
	struct track_batch ticked; /* a tick's rows */
	bool begun;		   /* the title is out */
	bool ended;		   /* the run is over */
	int status;
	bool lost_said;
	char why[ENGINE_WHY_LEN];
	struct cgroup_sum *cg;	     /* --cgroup: the cgroup's own rows */
	struct cgroup_rows *cgroups; /* --for-each-cgroup: each cgroup's rows */
};

/* The run is over: status (the worst one) to exit with. */
static void
end_run(struct bpf_track *bt, int status)
{
	bt->ended = true;
	if (status > bt->status)
		bt->status = status;
}

/*
 * A forked child takes its parent's name, a started command the one the
 * engine read at its exec: read from /proc when their records come, it
 * may already be the name of an image they exec'd.
 */
static void *
on_proc_create(void *arg, pid_t pid, void *parent, const char *comm)
{
	struct bpf_track *bt = arg;
	struct cputrack *ct = bt->ct;
	struct bproc *forker = parent, *p;

	p = (struct bproc *)track_proc_new(
	    ct, pid, forker != NULL ? forker->base.comm : comm, sizeof(*p));
	if (p == NULL) {
		fprintf(stderr, "%6d: init_lwp: out of memory\n", (int)pid);
		end_run(bt, 1);
		return NULL;
	}
	LIST_INIT(&p->lwps);
	p->leader = track_who(&p->base, 1, pid);
	return p;
}

static struct bproc *
proc_of(const struct bthread *t)
{
	return (struct bproc *)t->base.proc;
}

/* A thread's counts stay in its cgroup's when it goes. */
static void
thread_free(struct bpf_track *bt, struct bthread *t)
{
	if (bt->cg != NULL)
		cgroup_sum_keep(bt->cg, t->base.grp);
	LIST_REMOVE(t, in_proc);
	track_lwp_free(&t->base);
}

/*
 * The engine is done with a process: its records go, its LWPs' with it.
 * The one place where they do.
 */
static void
on_proc_end(void *arg, void *proc)
{
	struct bpf_track *bt = arg;
	struct bproc *p = proc;
	struct bthread *t;

	while ((t = LIST_FIRST(&p->lwps)) != NULL)
		thread_free(bt, t);
	track_proc_free(&p->base);
}

/*
 * A process of the run's own (the command, -p's) is counted no more: the
 * run fails. Under ptrace too, one of several -p's leaves the others
 * counted to their end.
 */
static void
target_lost(struct bpf_track *bt, pid_t pid)
{
	const struct cputrack_opts *o = &bt->ct->opt;
	size_t i;

	if (o->npids <= 1) {
		if (pid == bt->ct->target)
			end_run(bt, 1);
		return;
	}
	for (i = 0; i < o->npids; i++)
		if (o->pids[i] == pid)
			bt->status = 1;
}

/* Counts the engine could not give: why, as the ptrace engine says it. */
static void
counts_missing(struct bpf_track *bt, const struct bthread *t, const char *where)
{
	fprintf(stderr,
	    "%6d: %s: lwp%d: can't access perf counters - "
	    "the BPF engine could not keep the thread\n",
	    (int)t->base.who.pid, where, (int)t->base.who.lwpid);
	end_run(bt, 1);
}

/*
 * The hand-over a tick owed the LWP, made with its counts read now: the
 * set it had counted until the tick (or until when, if it ended before)
 * and the next from then on, so that each set's turns hold what it
 * counted. Its old set counted nothing after the hand-over.
 */
static void
pay_hand_over(struct bpf_track *bt, struct bthread *t,
    const struct bpfeng_counts *counts, hrtime_t when)
{
	int old = setgrp_current(t->base.grp);
	hrtime_t at = when < t->owed_at ? when : t->owed_at;
	const struct bpfeng_set_counts *sc;

	if ((sc = bpfeng_set_counts(bt->eng, counts, old)) != NULL)
		bpf_sets_sample(bt->sets, t->base.grp, old, sc, at);
	setgrp_set_current(t->base.grp, t->owed_set);
	t->turns |= 1u << t->owed_set;
	t->owed_set = -1;
}

/* Every set that counted for the LWP takes its final counts. */
static void
sample_final(struct bpf_track *bt, struct bthread *t,
    const struct bpfeng_counts *counts, uint64_t when)
{
	const struct bpfeng_set_counts *sc;
	int s;

	if (t->owed_set >= 0)
		pay_hand_over(bt, t, counts, (hrtime_t)when);
	for (s = 0; s < setgrp_nsets(t->base.grp); s++) {
		if (!(t->turns & (1u << s)) ||
		    (sc = bpfeng_set_counts(bt->eng, counts, s)) == NULL)
			continue;
		bpf_sets_sample(bt->sets, t->base.grp, s, sc, (hrtime_t)when);
	}
}

/* The LWP's counts are final; the leader's row is its process's exit's. */
static void
lwp_final(struct bthread *t)
{
	track_lwp_final(&t->base);
	if (t->base.who.tid == t->base.who.pid)
		proc_of(t)->leader = t->base.who;
}

/* The rows of an LWP's start: -v's init_lwp, and a new one's lwp_create. */
static void
lwp_started(const struct bpf_track *bt, const struct bthread *t)
{
	track_lwp_started(&t->base, setgrp_slice(t->base.grp, bt->current));
	if (t->made)
		track_lwp_created(&t->base, bt->current);
}

static void *
on_lwp_create(void *arg, void *proc, pid_t pid, pid_t tid, id_t lwpid,
    enum bpfeng_origin origin, uint64_t when_ns)
{
	static const struct set_times no_time;
	struct bpf_track *bt = arg;
	struct bproc *p = proc;
	struct bthread *t;

	/* Its process's record could not be made: said then. */
	if (p == NULL)
		return NULL;
	t = (struct bthread *)track_lwp_new(
	    &p->base, lwpid, tid, TRACK_FED, sizeof(*t));
	if (t == NULL)
		goto nomem;
	t->made = origin == BPFENG_LWP_NEW;
	t->owed_set = -1;
	setgrp_set_current(t->base.grp, bt->current);
	t->turns = 1u << bt->current;
	LIST_INSERT_HEAD(&p->lwps, t, in_proc);
	bt->ct->counted = true;
	/* It starts from zero, as a bind shows it (-v), then and there. */
	setgrp_started_at(t->base.grp, (hrtime_t)when_ns);
	setgrp_sample_counts(t->base.grp, bt->current, bpf_sets_zeros(bt->sets),
	    &no_time, (hrtime_t)when_ns);
	/* The target's first LWPs have theirs once the title is out. */
	if (bt->begun)
		lwp_started(bt, t);
	return t;
nomem:
	fprintf(stderr, "%6d: init_lwp: out of memory\n", (int)pid);
	end_run(bt, 1);
	return NULL;
}

static void
on_lwp_exit(void *arg, void *lwp, pid_t pid, pid_t tid, unsigned flags,
    const struct bpfeng_counts *counts, uint64_t when_ns)
{
	struct bpf_track *bt = arg;
	struct bthread *t = lwp;

	if (t == NULL)
		return;
	if (counts == NULL) {
		counts_missing(bt, t, "fini_lwp");
		thread_free(bt, t);
		return;
	}
	sample_final(bt, t, counts, when_ns);
	lwp_final(t);
	/*
	 * As libpctx has them: an LWP that leaves alone has a row of its
	 * own; the leader's end is its process's, and an LWP that its
	 * process's exit, a fatal signal or another LWP's exec ends has
	 * only its fini.
	 */
	if (tid != pid &&
	    !(flags &
		(BPFENG_EXIT_BY_EXEC | BPFENG_EXIT_NONZERO |
		    BPFENG_EXIT_LEFT))) {
		track_lwp_exit(&t->base);
	} else
		proc_of(t)->rowless++;
	thread_free(bt, t);
}

static void
on_fork(void *arg, void *proc, void *parent_lwp, pid_t parent, pid_t parent_tid,
    pid_t child, uint64_t when_ns)
{
	struct bpf_track *bt = arg;
	struct bthread *t = parent_lwp;
	struct bproc *p = proc;

	(void)parent_tid;
	/* --tid: the forks of the named threads alone are theirs. */
	if (t == NULL && bt->ct->opt.ntids != 0)
		return;
	track_fork(bt->ct, p != NULL ? &p->base : NULL, parent,
	    t != NULL ? t->base.who.lwpid : 1, child, (hrtime_t)when_ns);
}

/*
 * An image this user may not trace (set-id, unreadable): not counted, as
 * the ptrace engine could not bind it either. The engine lets it run on.
 */
static void
exec_untraceable(struct bpf_track *bt, struct bproc *p)
{
	struct row_lwp who = track_who(&p->base, 1, p->base.pid);
	pid_t pid = p->base.pid;

	fprintf(stderr,
	    "%6d: init_lwp: can't bind perf counters to lwp1 - "
	    "%s\n",
	    (int)pid, strerror(EACCES));
	track_not_counted(bt->ct, &who, "permission denied");
	diag(NULL, "%d: execed a program that cannot be tracked\n", (int)pid);
	bt->ct->uncounted = true;
	target_lost(bt, pid);
}

static bool
on_exec(void *arg, void *proc, void *lwp, pid_t pid, pid_t tid,
    const char *args, const char *comm, const struct bpfeng_counts *counts,
    unsigned flags, uint64_t when_ns)
{
	struct bpf_track *bt = arg;
	struct bproc *p = proc;
	struct bthread *t = lwp;
	bool followed = (flags & BPFENG_EXEC_FOLLOWED) != 0;
	bool untraceable = (flags & BPFENG_EXEC_UNTRACEABLE) != 0;
	char image[sizeof(p->base.comm)];

	(void)tid;
	if (p == NULL)
		return true;
	/* The engine's, read at the exec: /proc's may be gone by now. */
	if (comm[0] != '\0')
		strlcpy(image, comm, sizeof(image));
	else
		proc_comm(pid, image, sizeof(image));
	if (flags & BPFENG_EXEC_FIRST) {
		/* The command itself is an image this user may not trace. */
		exec_untraceable(bt, p);
		return false;
	}
	if (t != NULL) {
		if (counts == NULL)
			counts_missing(bt, t, "fini_lwp");
		else {
			sample_final(bt, t, counts, when_ns);
			lwp_final(t);
		}
		thread_free(bt, t);
	}
	/* The LWP that execs is the new image's LWP 1. */
	track_exec(&p->base, 1, args, image);
	/* The named threads end with their image, as at their exit. */
	if (bt->ct->opt.ntids != 0)
		return false;
	track_exec_follow(&p->base, args, followed || untraceable);
	/*
	 * The engine tells at the exec itself; ptrace's own check catches
	 * what only a security module refuses.
	 */
	if (untraceable ||
	    (followed && !cpc_may_trace(pid) && errno != ESRCH)) {
		exec_untraceable(bt, p);
		return false;
	}
	if (followed) {
		track_rename(&p->base, image);
		return true;
	}
	/* No longer counted: as the ptrace engine, the root's ends the run. */
	target_lost(bt, pid);
	return true;
}

static void
on_proc_exit(void *arg, void *proc, pid_t pid, int status, uint64_t when_ns)
{
	struct bpf_track *bt = arg;
	struct bproc *p = proc;

	(void)when_ns;
	if (p == NULL)
		return;
	/*
	 * --tid: named threads that each had their lwp_exit row leave none
	 * to the exit row; the ptrace engine has let such a process go.
	 */
	if (bt->ct->opt.ntids != 0 && p->rowless == 0)
		return;
	track_exit(&p->base, &p->leader,
	    WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
	/*
	 * Said of a process that a signal ended, as libpctx says it: of a
	 * target the user named, not of every process of a machine's view.
	 */
	if (WIFSIGNALED(status) && !bt->ct->opt.top_machine)
		diag("run", "%d: process terminated: killed by SIG%s%s\n",
		    (int)pid,
		    sigabbrev_np(WTERMSIG(status)) != NULL ?
			sigabbrev_np(WTERMSIG(status)) :
			"?",
		    WCOREDUMP(status) ? " (core dumped)" : "");
}

/* A process that left the cgroup runs on: its totals, as at an exit. */
static void
on_proc_left(void *arg, void *proc, pid_t pid, uint64_t when_ns)
{
	struct bproc *p = proc;

	(void)arg;
	(void)pid;
	(void)when_ns;
	if (p != NULL)
		track_leave(&p->base, &p->leader);
}

/* --for-each-cgroup: a cgroup counted first, named while it is there. */
static void
on_cgroup(void *arg, uint64_t id, bool folded, pid_t tid, uint64_t when_ns)
{
	struct bpf_track *bt = arg;

	(void)tid;
	(void)when_ns;
	if (bt->cgroups != NULL)
		cgroup_rows_found(bt->cgroups, id, folded);
}

/* --for-each-cgroup: a cgroup made, and one removed. */
static void
on_cgroup_named(void *arg, uint64_t id, uint64_t parent, const char *name)
{
	struct bpf_track *bt = arg;

	if (bt->cgroups != NULL)
		cgroup_rows_named(bt->cgroups, id, parent, name);
}

static void
on_cgroup_gone(void *arg, uint64_t id)
{
	struct bpf_track *bt = arg;

	if (bt->cgroups != NULL)
		cgroup_rows_gone(bt->cgroups, id);
}

static const struct bpfeng_ops track_ops = {
	.proc_create = on_proc_create,
	.proc_end = on_proc_end,
	.lwp_create = on_lwp_create,
	.lwp_exit = on_lwp_exit,
	.fork = on_fork,
	.exec = on_exec,
	.exit = on_proc_exit,
	.left = on_proc_left,
	.cgroup = on_cgroup,
	.cgroup_named = on_cgroup_named,
	.cgroup_gone = on_cgroup_gone,
};

static int
engine_open(struct bpf_track *bt, bool quiet)
{
	struct cputrack *ct = bt->ct;
	unsigned flags = (ct->opt.follow_fork ? BPFENG_FOLLOW_FORK : 0) |
	    (ct->opt.follow_exec ? BPFENG_FOLLOW_EXEC : 0) |
	    (follows_wrapper_execs(ct) ? BPFENG_FOLLOW_START_EXEC : 0) |
	    (setgrp_joint(ct->specs) ? BPFENG_JOINT_SETS : 0) |
	    (ct->opt.cgroup != NULL ? BPFENG_BY_CGROUP : 0) |
	    (ct->opt.each_cgroup ? BPFENG_EACH_CGROUP : 0);
	struct bpfeng_config config = { flags, ct->opt.cgroups_max,
		ct->opt.cgroup_depth,
		ct->opt.interval_ms != 0 ? ct->opt.nsamples : 0, NULL };

	/* A command to start: forked while the programs load. */
	if (ct->opt.cgroup == NULL && ct->opt.npids == 0 && ct->opt.ntids == 0)
		config.command = ct->opt.command;

	if ((bt->sets = bpf_sets_new(
		 ct->cpc, ct->specs, quiet, bt->why, sizeof(bt->why))) == NULL)
		return 2;
	bt->eng = bpfeng_open(ct->cpc, bpf_sets_engine(bt->sets),
	    setgrp_nsets(ct->specs), &config, &track_ops, bt, bt->why,
	    sizeof(bt->why));
	return bt->eng != NULL ? 0 : 2;
}

static void
track_free(struct bpf_track *bt)
{
	cgroup_sum_free(bt->cg);
	cgroup_rows_free(bt->cgroups);
	track_batch_free(&bt->ticked);
	bpf_sets_free(bt->sets);
	free(bt);
}

/*
 * Why the engine could not open, for open_one to say; a refusal of the
 * verifier comes with where its whole story is.
 */
static void
refused(struct bpf_track *bt, bool for_auto, char *why, size_t len)
{
	const char *log = bpfeng_verifier_log();

	snprintf(why, len, "%s%s", bt->why,
	    log != NULL && !for_auto ? " (-D prints the verifier's whole log)" :
				       "");
	if (log != NULL)
		diag_debug(
		    "the kernel verifier's whole log, for a report:\n%s%s", log,
		    log[0] != '\0' && log[strlen(log) - 1] == '\n' ? "" : "\n");
}

/*
 * A breakpoint this engine counts is armed on every CPU, for every task
 * that runs there, and nothing here traces a task to drop its lost trap.
 */
static const char breakpoint_advice[] =
    "a breakpoint is armed on every CPU, where a debug trap a hypervisor "
    "loses kills the task that hit it with SIGTRAP; only the ptrace engine "
    "drops that trap (--engine=ptrace)";

static int
bpf_track_open(struct cputrack *ct, bool for_auto, char *why, size_t len)
{
	struct bpf_track *bt;
	char programs[512], phases[512];
	int status;

	if (engine_refuses_breakpoint(ct->specs, breakpoint_advice, why, len))
		return 2;
	if ((bt = calloc(1, sizeof(*bt))) == NULL) {
		diag(NULL, "no memory available\n");
		return 2;
	}
	bt->ct = ct;
	if ((status = engine_open(bt, for_auto)) != 0) {
		refused(bt, for_auto, why, len);
		track_free(bt);
		return status;
	}
	bpfeng_programs(bt->eng, programs, sizeof(programs));
	bpfeng_phases(bt->eng, phases, sizeof(phases));
	diag_debug("the BPF engine counts: programs %s; opened in %s\n",
	    programs, phases);
	if (ct->opt.each_cgroup) {
		bpfeng_migrations(bt->eng, programs, sizeof(programs));
		diag_debug("cgroup migrations: %s\n", programs);
		diag_debug("cgroups: %s\n",
		    bpfeng_cgroup_events(bt->eng) ?
			"named as they are made (the kernel's cgroup_mkdir "
			"and cgroup_rmdir tracepoints)" :
			"named by a walk of the directory, at most once a "
			"tick");
	}
	ct->engine_state = bt;
	return 0;
}

/*
 * The signals that end a run come through the engine's loop, as the
 * ptrace engine has them (those ignored stay ignored), and so does
 * SIGCHLD, which says that a started command stopped. A started command
 * gets an empty mask from the engine.
 */
static int
open_loop(struct bpf_track *bt)
{
	sigset_t set;

	cputrack_ending_signals(&set);
	if (bt->ct->opt.command != NULL)
		sigaddset(&set, SIGCHLD);
	return bpfeng_loop_open(bt->eng, bt->ct->opt.interval_ms, &set);
}

/* A cgroup there at the start, counted from it (bpfeng_count_cgroup). */
static int
count_cgroup(void *arg, uint64_t id)
{
	struct bpf_track *bt = arg;

	return bpfeng_count_cgroup(bt->eng, id);
}

/* The cgroup's rows come from a group of their own. */
static int
start_cgroup(struct bpf_track *bt)
{
	struct cputrack *ct = bt->ct;
	const struct cgroup_dir *cg = ct->opt.cgroup;

	if (ct->opt.each_cgroup) {
		if ((bt->cgroups = cgroup_rows_new(
			 ct, cg, ct->opt.cgroup_depth)) == NULL) {
			diag(NULL, "cannot read the cgroup %s - %s\n", cg->path,
			    strerror(errno));
			return -1;
		}
		if (bpfeng_cgroup_events(bt->eng))
			cgroup_rows_by_event(bt->cgroups);
	} else if ((bt->cg = cgroup_sum_new(ct, cg, bpf_sets_most(bt->sets))) ==
	    NULL) {
		diag(NULL, "no memory available\n");
		return -1;
	}
	if (bpfeng_attach_cgroup(bt->eng, cg->id, cg->level, cg->path, bt->why,
		sizeof(bt->why)) != 0) {
		diag(NULL, "%s\n", bt->why);
		return -1;
	}
	if (bt->cgroups != NULL)
		cgroup_rows_count_present(
		    bt->cgroups, ct->opt.cgroups_max, count_cgroup, bt);
	return 0;
}

/*
 * What ptrace would refuse, the BPF engine refuses too: said as the
 * ptrace engine says it.
 */
static int
attachable(struct bpf_track *bt, pid_t pid, pid_t tid)
{
	if (bpfeng_capturable(pid, bt->why, sizeof(bt->why)) != 0) {
		diag("capture", "%s\n", bt->why);
		capture_say_failed(pid, tid, "");
		return -1;
	}
	if (!cpc_may_trace(pid)) {
		diag(NULL, "pid %d: %s\n", (int)pid,
		    errno == EPERM ? "permission denied" : strerror(errno));
		capture_say_failed(pid, tid, "");
		trace_refusal_hint(pid);
		return -1;
	}
	return 0;
}

/* -p's processes: every one is looked at before any is counted. */
static int
attach_all(struct bpf_track *bt)
{
	struct cputrack *ct = bt->ct;
	size_t i;

	for (i = 0; i < ct->opt.npids; i++)
		if (attachable(bt, ct->opt.pids[i], 0) != 0)
			return -1;
	if (bpfeng_attach(bt->eng, ct->opt.pids, ct->opt.npids, bt->why,
		sizeof(bt->why)) != 0) {
		/* The reason names the pid. */
		diag(NULL, "%s\n", bt->why);
		if (ct->opt.npids == 1)
			diag(NULL, "failed to capture pid %d\n",
			    (int)ct->opt.pids[0]);
		return -1;
	}
	ct->target = ct->opt.pids[0];
	return 0;
}

/*
 * --tid's threads: each one's process is looked at as -p's would be,
 * before any is counted; only the named threads are.
 */
static int
attach_tids(struct bpf_track *bt)
{
	struct cputrack *ct = bt->ct;
	size_t i;

	for (i = 0; i < ct->opt.ntids; i++)
		if (attachable(bt, ct->tid_procs[i], ct->opt.tids[i]) != 0)
			return -1;
	if (bpfeng_attach_threads(bt->eng, ct->opt.tids, ct->opt.ntids, bt->why,
		sizeof(bt->why)) != 0) {
		/* The reason names the thread. */
		diag(NULL, "%s\n", bt->why);
		return -1;
	}
	ct->target = ct->tid_procs[0];
	return 0;
}

/* A cgroup, processes or threads already running. */
static int
capture_target(struct bpf_track *bt)
{
	struct cputrack *ct = bt->ct;
	int rc;

	if (ct->opt.cgroup != NULL)
		rc = start_cgroup(bt);
	else if (ct->opt.npids != 0)
		rc = attach_all(bt);
	else
		rc = attach_tids(bt);
	if (rc == 0)
		startup_started("capture");
	return rc;
}

static int
start_target(struct bpf_track *bt)
{
	struct cputrack *ct = bt->ct;
	pid_t pid;

	if (ct->opt.cgroup != NULL || ct->opt.npids != 0 || ct->opt.ntids != 0)
		return capture_target(bt);
	if ((pid = bpfeng_start(
		 bt->eng, ct->opt.command, bt->why, sizeof(bt->why))) < 0) {
		diag(NULL, "%s\n", bt->why);
		diag(
		    NULL, "failed to start program '%s'\n", ct->opt.command[0]);
		return -1;
	}
	startup_started("command's fork and exec");
	ct->target = pid;
	return 0;
}

/*
 * What the engine could not do: counts lost (said once; the run goes on
 * and ends with 1), or anything else (said; the run ends).
 */
static void
engine_failed(struct bpf_track *bt)
{
	if (errno == ENOBUFS) {
		if (!bt->lost_said)
			diag(NULL, "%s\n", bt->why);
		bt->lost_said = true;
		bt->status = 1;
		return;
	}
	diag(NULL, "%s\n", bt->why);
	end_run(bt, 1);
}

/*
 * A live LWP's counts at the tick, as of its own end of the turn: the set
 * whose turn ended takes them, and the LWP joins the tick's batch.
 */
static void
ticked(struct bpf_track *bt, const struct bpfeng_ticked *e)
{
	struct bthread *t = e->lwp;
	hrtime_t when = (hrtime_t)e->when_ns;

	if (t == NULL)
		return;
	if (e->closed == NULL) {
		counts_missing(bt, t, "tick");
		return;
	}
	t->ticked = bt->ticks;
	if (t->owed_set >= 0)
		pay_hand_over(bt, t, e->counts, when);
	bpf_sets_sample(bt->sets, t->base.grp, bt->current, e->closed, when);
	if (track_batch_add(&bt->ticked, &t->base,
		setgrp_slice(t->base.grp, bt->current), bt->intervals) != 0)
		end_run(bt, 1);
}

/* fn with every LWP counted now, process by process. */
struct lwp_walk {
	struct bpf_track *bt;
	void (*fn)(struct bpf_track *bt, struct bthread *t);
};

static void
walk_proc(void *arg, void *proc)
{
	const struct lwp_walk *w = arg;
	struct bproc *p = proc;
	struct bthread *t;

	LIST_FOREACH (t, &p->lwps, in_proc)
		w->fn(w->bt, t);
}

static void
each_lwp(
    struct bpf_track *bt, void (*fn)(struct bpf_track *bt, struct bthread *t))
{
	struct lwp_walk w = { bt, fn };

	bpfeng_each_proc(bt->eng, walk_proc, &w);
}

static void
cgroup_add_lwp(struct bpf_track *bt, struct bthread *t)
{
	cgroup_sum_add(bt->cg, t->base.grp);
}

/* The cgroup's row at a tick: the sum of its threads', live and gone. */
static void
cgroup_row(struct bpf_track *bt, unsigned long intervals)
{
	cgroup_sum_begin(bt->cg, bt->current);
	each_lwp(bt, cgroup_add_lwp);
	cgroup_sum_row(bt->cg, bt->tick_when, intervals);
}

static void
on_cgroup_tick(void *arg, uint64_t id, const struct bpfeng_counts *counts)
{
	struct bpf_track *bt = arg;
	const struct bpfeng_set_counts *sc;

	if ((sc = bpfeng_set_counts(bt->eng, counts, bt->current)) == NULL)
		return;
	cgroup_rows_sample(
	    bt->cgroups, id, bt->current, bt->sets, sc, bt->tick_when);
}

static void
forget_cgroup(void *arg, uint64_t id)
{
	struct bpf_track *bt = arg;

	bpfeng_forget_cgroup(bt->eng, id);
}

/* --for-each-cgroup: every cgroup's row of the tick. -1: the engine failed. */
static int
each_cgroup_rows(struct bpf_track *bt, unsigned long intervals)
{
	if (bpfeng_read_cgroups(bt->eng, on_cgroup_tick, bt) != 0) {
		snprintf(bt->why, sizeof(bt->why),
		    "cannot read the cgroups' counts - %s", strerror(errno));
		engine_failed(bt);
		return -1;
	}
	cgroup_rows_tick(
	    bt->cgroups, bt->current, intervals, forget_cgroup, bt);
	return 0;
}

/*
 * Every live thread's tick row: what it counted since the last one, in
 * the set in use, which then hands over to set next; a gap row when it
 * holds more than one interval. drain: what happened before it is not
 * dispatched yet (the engine's loop dispatched before a tick of its
 * clock). -1 when the engine failed (said, and the run ended).
 */
static int
tick_rows(struct bpf_track *bt, int next, unsigned long intervals, bool drain)
{
	struct bpfeng_tick_batch batch;
	size_t i;

	/* What happened before the tick first; lost counts do not stop it. */
	if (drain && bpfeng_dispatch(bt->eng, bt->why, sizeof(bt->why)) != 0)
		engine_failed(bt);
	if (bt->ended)
		return -1;
	bt->ticks++;
	bt->intervals = intervals;
	if (bpfeng_tick(bt->eng, next, &batch, bt->why, sizeof(bt->why)) != 0) {
		engine_failed(bt);
		return -1;
	}
	/*
	 * The tick's own time is where the hand-over began (cgroups' rows);
	 * each thread's counts run to its own end of the turn.
	 */
	bt->tick_when = (hrtime_t)batch.when_ns;
	for (i = 0; i < batch.n; i++)
		ticked(bt, &batch.threads[i]);
	track_tick(&bt->ticked);
	if (bt->cg != NULL)
		cgroup_row(bt, intervals);
	if (bt->cgroups != NULL)
		return each_cgroup_rows(bt, intervals);
	return 0;
}

/*
 * The LWP's sets hand over where the tick read it. One it did not read
 * ended or was replaced meanwhile, its last counts still on their way:
 * its hand-over waits for them (pay_hand_over), which show what the old
 * set counted until the tick; made now, the old set's turn would end
 * at the tick before, and lose what it counted since.
 */
static void
hand_over(struct bpf_track *bt, struct bthread *t)
{
	if (t->ticked != bt->ticks) {
		if (t->owed_set < 0) {
			t->owed_set = bt->current;
			t->owed_at = bt->tick_when;
		}
		return;
	}
	setgrp_set_current(t->base.grp, bt->current);
	t->turns |= 1u << bt->current;
}

static bool
tick(void *arg, uint64_t expirations)
{
	struct bpf_track *bt = arg;
	int nsets = setgrp_nsets(bt->ct->specs);
	int next = (bt->current + 1) % nsets;
	bool turns = next != bt->current;

	if (tick_rows(bt, next, (unsigned long)expirations, false) != 0)
		return false;
	bt->current = next;
	/* With one set there is no turn to hand over: no walk of every LWP. */
	if (turns)
		each_lwp(bt, hand_over);
	/* The cgroup's rows divide by its sets' turns, as a thread's. */
	if (bt->cg != NULL)
		cgroup_sum_set_current(bt->cg, next);
	if (bt->cgroups != NULL)
		cgroup_rows_set_current(bt->cgroups, next);
	return true;
}

/*
 * A signal a process sent (kill(2), not the terminal) may have been sent
 * to the command as well, by the same kill of a whole job, or by its
 * next step: the engine saw whether it was, and it is not sent again.
 * The wait for the kill's other half is bounded and happens once.
 */
#define SIGNAL_PAIR_MS 100

static bool
on_signal(void *arg, const struct signalfd_siginfo *si)
{
	struct bpf_track *bt = arg;
	bool has_it = si->ssi_code <= 0 && si->ssi_pid != 0 &&
	    bt->ct->opt.command != NULL && bt->ct->stop_count == 0 &&
	    bpfeng_command_signaled(bt->eng, (int)si->ssi_signo,
		(pid_t)si->ssi_pid, SIGNAL_PAIR_MS);

	if (cputrack_signal(bt->ct, (int)si->ssi_signo, si->ssi_code, has_it) ==
	    0)
		return false;
	/*
	 * A captured process is let go between ticks: what was counted
	 * since the last one is a last tick row, so that the rows hold
	 * everything counted.
	 */
	(void)tick_rows(bt, bt->current, 1, true);
	end_run(bt, 0);
	return true;
}

/*
 * The command stopped itself: cputrack is the shell's child, so it stops
 * too, with the same signal; the shell's SIGCONT to the job continues
 * both. A stop sent to the command alone from outside leaves the run
 * going on, as under ptrace.
 */
static void
on_command_stopped(void *arg, int sig)
{
	struct bpf_track *bt = arg;

	cputrack_flush(bt->ct);
	(void)raise(sig);
}

static bool
on_failed(void *arg, int err, const char *why)
{
	struct bpf_track *bt = arg;

	snprintf(bt->why, sizeof(bt->why), "%s", why);
	errno = err;
	engine_failed(bt);
	return bt->ended;
}

static bool
on_idle(void *arg)
{
	struct bpf_track *bt = arg;

	cputrack_flush(bt->ct);
	if (bt->ct->reader_gone)
		end_run(bt, 0);
	return !bt->ended;
}

static const struct bpfeng_loop_ops loop_ops = {
	.tick = tick,
	.signal = on_signal,
	.command_stopped = on_command_stopped,
	.failed = on_failed,
	.idle = on_idle,
};

static void
to_start(struct bpf_track *bt, struct bthread *t)
{
	if (track_batch_add(&bt->ticked, &t->base, NULL, 0) != 0)
		end_run(bt, 1);
}

/*
 * The title; then the LWPs there from the start have the rows they would
 * have had with the title out: -v's init_lwp, and lwp_create for those
 * the command made before it (the command runs from its start, not held
 * as under ptrace).
 */
static void
begin(struct bpf_track *bt)
{
	size_t i;

	cputrack_title(bt->ct);
	bt->begun = true;
	each_lwp(bt, to_start);
	track_batch_order(&bt->ticked);
	for (i = 0; i < bt->ticked.n; i++)
		lwp_started(bt, (const struct bthread *)bt->ticked.lwps[i].lwp);
	bt->ticked.n = 0;
}

/*
 * A kernel that hides a task from tracing (a sandbox's own agent, say)
 * shows no switch out of it: what it counted is in the totals of the
 * tracked thread that ran next on that CPU. The counts cannot be told apart;
 * debug mode says how often it happened.
 */
static void
note_hidden(const struct bpf_track *bt)
{
	uint64_t n = bpfeng_hidden_switches(bt->eng);

	if (n > 0)
		diag_debug(
		    "note: the kernel hid %llu switches out of a task it "
		    "does not trace; what that task counted went to the "
		    "tracked thread that ran next on its CPU\n",
		    (unsigned long long)n);
}

static int
bpf_track(struct cputrack *ct)
{
	struct bpf_track *bt = ct->engine_state;

	if (open_loop(bt) != 0) {
		diag(NULL, "cannot set up the run - %s\n", strerror(errno));
		return 1;
	}
	/*
	 * The clock runs before the target does: nothing waits for cputrack
	 * once it is there. The title follows, once there is a target.
	 */
	output_start_clock(ct->out);
	if (start_target(bt) != 0)
		return 1;
	if (cputrack_early_signal() != 0) {
		if (ct->opt.command != NULL) {
			ct->stop_signal = cputrack_early_signal();
			(void)kill(ct->target, SIGKILL);
		}
		return 1;
	}
	begin(bt);
	/*
	 * The live view shows rows only at its refreshes, which follow
	 * ticks: records that can wait wake it for nothing.
	 */
	if (!bt->ended)
		(void)bpfeng_loop(bt->eng, &loop_ops, bt, ct->opt.top);
	if (bt->cg != NULL)
		cgroup_sum_total(bt->cg);
	if (bt->cgroups != NULL)
		cgroup_rows_totals(bt->cgroups);
	note_hidden(bt);
	return bt->status == 0 && !ct->write_failed ? 0 : 1;
}

/* What is still tracked runs on. */
static void
untrack(void *arg, void *proc)
{
	struct bpf_track *bt = arg;

	bpfeng_untrack(bt->eng, ((struct bproc *)proc)->base.pid);
}

static void
bpf_let_go(struct cputrack *ct)
{
	struct bpf_track *bt = ct->engine_state;

	if (bt == NULL)
		return;
	if (bt->eng != NULL)
		bpfeng_each_proc(bt->eng, untrack, bt);
	bpfeng_close(bt->eng);
	track_free(bt);
	ct->engine_state = NULL;
}

int
bpf_can_run(char *why, size_t len)
{
	return bpfeng_can_run(why, len);
}

bool
bpf_may_count_cpus(void)
{
	return bpfeng_may_count_cpus();
}

const struct engine_ops bpf_ops = {
	.open = bpf_track_open,
	.track = bpf_track,
	.let_go = bpf_let_go,
};
