/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's ptrace engine: libpctx starts the command, or captures -p's
 * processes (or those of --tid's threads) into one loop (the first is its
 * root, pctx_join adds the others as its peers), and calls back at every
 * LWP's start and end, fork, exec, exit and tick. With --tid only the
 * named LWPs get sets; a process is let go (pctx_let_go) once none of
 * them counts.
 * An adapter onto the tracking model (cputrack_track.c): every LWP's
 * record, with its own clone of the set group bound to its counters, is
 * made at init_lwp and hung on libpctx's record of the LWP, and each
 * process's on libpctx's record of it, so each callback receives its
 * record directly and hands the event to the model, which writes the rows.
 * A tick's counts are gathered LWP by LWP into a batch, which the model
 * has at the tick's end (the engine is a client of each process's pctx),
 * or a part at a time where the process has thousands of LWPs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"
#include "cputrack_engine.h"
#include "cputrack_track.h"
#include "diag.h"
#include "fdlimit.h"
#include "libpctx.h"
#include "proc_guard.h"
#include "procname.h"
#include "startup.h"

struct tproc;

/*
 * A tracked LWP: the model's record, its sets bound to its own counters
 * and taking turns. An LWP left uncounted (past the descriptor limit)
 * keeps a record too, with no sets: every callback about it then finds
 * it, rather than its process's record.
 */
struct tlwp {
	struct track_lwp base;
	unsigned long missed_seen; /* its process's missed ticks then */
	bool listed;		   /* in the run's lwps, while it counts */
	LIST_ENTRY(tlwp) counting;
};

/* The adapter's own state, from its open to its let_go. */
struct ptrace_run {
	pctx_t *root;		   /* the target's context; -p's other pids are
				      joined to it */
	LIST_HEAD(, tlwp) lwps;	   /* the LWPs counting now */
	struct track_batch ticked; /* a process's tick */
	struct track_batch last;   /* their last ticks */
	struct proc_guard guard;   /* -f: the command's tree's, see guard() */
};

static struct ptrace_run *
run_of(const struct cputrack *ct)
{
	return ct->engine_state;
}

/* A tracked process: the model's record, and libpctx's context of it. */
struct tproc {
	struct track_proc base;
	pctx_t *pctx;
	bool forked; /* a child followed with -f */
	bool lost;   /* said that it cannot be followed */
	bool made;   /* it made a thread */
	int bound;   /* its LWPs whose counters are bound */
	/*
	 * --tid: the one record of all its LWPs not named, which are
	 * never counted: nothing is allocated or opened for them.
	 */
	struct tlwp unnamed;
};

/* libpctx drops the process's record. */
static void
tproc_free(void *arg)
{
	struct tproc *p = arg;

	track_proc_free(&p->base);
}

/* comm: its name, known (a fork's is its parent's), or NULL: read it. */
static struct tproc *
tproc_new(struct cputrack *ct, pctx_t *pctx, const char *comm)
{
	struct tproc *p;

	p = (struct tproc *)track_proc_new(
	    ct, pctx_pid(pctx), comm, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->pctx = pctx;
	p->unnamed =
	    (struct tlwp) { .base.proc = &p->base, .base.finished = true };
	if (pctx_set_proc_data(pctx, p, tproc_free) != 0) {
		tproc_free(p);
		return NULL;
	}
	return p;
}

static struct tproc *
proc_of(const struct tlwp *l)
{
	return (struct tproc *)l->base.proc;
}

/* libpctx drops the LWP's record, or its bind failed. */
static void
tlwp_free(void *arg)
{
	struct tlwp *l = arg;

	if (l->listed)
		LIST_REMOVE(l, counting);
	track_lwp_free(&l->base);
}

/* Keep the record of an LWP left uncounted, without its sets. */
static void
tlwp_uncounted(pctx_t *pctx, struct tlwp *l)
{
	track_lwp_uncounted(&l->base);
	(void)pctx_set_lwp_data(pctx, l->base.who.lwpid, l, tlwp_free);
}

/* Why an LWP was not counted, as its rows say it. */
static const char *
reason_of(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return "permission denied";
	case EMFILE:
	case ENFILE:
		return "out of file descriptors";
	default:
		return strerror(err);
	}
}

/*
 * A forked child that cannot be followed, said once. Its LWP 1 may fail
 * to open in the fork callback or, if the kernel had not reported the
 * child's first stop yet, at that stop.
 */
static void
child_lost(struct cputrack *ct, struct tproc *p, pid_t pid)
{
	if (p != NULL && p->lost)
		return;
	if (p != NULL)
		p->lost = true;
	diag(NULL, "cannot follow pid %d\n", (int)pid);
	ct->uncounted = true;
}

/* The counts could not be read: said. */
static void
sample_error(const struct tlwp *l, const char *where, const char *access)
{
	fprintf(stderr, "%6d: %s: lwp%d: can't access %s - %s\n",
	    (int)l->base.who.pid, where, (int)l->base.who.lwpid, access,
	    strerror(errno));
}

/*
 * Whether this user may still look into the process. An unreadable
 * (execute-only) or set-id program makes it undumpable: /proc/PID/exe
 * and perf_event_open(2) on it need CAP_SYS_PTRACE from then on.
 */
static bool
inspectable(pid_t pid)
{
	char path[64], target[PATH_MAX];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return readlink(path, target, sizeof(target)) >= 0 ||
	    (errno != EACCES && errno != EPERM);
}

/*
 * The LWP's counters could not be bound. A thread that died before its
 * turn, or one beyond the descriptor limit in a process already counted,
 * is kept uncounted, and the others go on; anything else ends the
 * process's tracking.
 */
static int
bind_failed(pctx_t *pctx, struct tproc *p, struct tlwp *l)
{
	int err = errno;

	if (err == ESRCH) {
		tlwp_uncounted(pctx, l);
		return 0;
	}
	if (err == EMFILE) {
		fd_limit_reached();
		if (l->base.who.lwpid != 1) {
			p->base.uncounted++;
			tlwp_uncounted(pctx, l);
			return 0;
		}
	}
	fprintf(stderr,
	    "%6d: init_lwp: can't bind perf counters to lwp%d - "
	    "%s\n",
	    (int)p->base.pid, (int)l->base.who.lwpid, strerror(err));
	track_not_counted(p->base.ct, &l->base.who, reason_of(err));
	if (p->forked && l->base.who.lwpid == 1)
		child_lost(p->base.ct, p, p->base.pid);
	tlwp_free(l);
	if ((err == EACCES || err == EPERM) && !inspectable(p->base.pid))
		diag(NULL, "%d: execed a program that cannot be tracked\n",
		    (int)p->base.pid);
	return -1;
}

/* Whether --tid names tid. */
static bool
named(const struct cputrack *ct, pid_t tid)
{
	size_t i;

	for (i = 0; i < ct->opt.ntids; i++)
		if (ct->opt.tids[i] == tid)
			return true;
	return false;
}

/*
 * --tid: a process none of whose named threads is counted any more runs
 * on, untraced.
 */
static void
let_go_if_done(pctx_t *pctx, const struct tproc *p)
{
	if (p->bound == 0)
		(void)pctx_let_go(pctx);
}

static int
cb_init_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct tproc *p = arg;
	struct cputrack *ct = p->base.ct;
	pid_t tid = pctx_lwp_tid(pctx, lwpid);
	struct tlwp *l;

	if (ct->opt.ntids != 0 && !named(ct, tid))
		return pctx_set_lwp_data(pctx, lwpid, &p->unnamed, NULL);
	l = (struct tlwp *)track_lwp_new(
	    &p->base, lwpid, tid, TRACK_BOUND, sizeof(*l));
	if (l == NULL) {
		fprintf(stderr, "%6d: init_lwp: out of memory\n", (int)pid);
		return -1;
	}
	l->missed_seen = pctx_missed_ticks(pctx);
	if (setgrp_bind_pctx(l->base.grp, pctx, lwpid) != 0)
		return bind_failed(pctx, p, l);
	(void)pctx_set_lwp_data(pctx, lwpid, l, tlwp_free);
	LIST_INSERT_HEAD(&run_of(ct)->lwps, l, counting);
	l->listed = true;
	p->bound++;
	ct->counted = true;
	track_lwp_started(
	    &l->base, ct->opt.verbose ? setgrp_sample(l->base.grp) : NULL);
	return 0;
}

/* Its counters were just bound: the row shows its zero start. */
static int
cb_lwp_create(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct tlwp *l = arg;

	(void)pctx;
	(void)pid;
	if (lwpid != 1)
		proc_of(l)->made = true;
	if (l->base.grp == NULL)
		return 0;
	track_lwp_created(&l->base, 0);
	return 0;
}

/* The LWP's counts are final: into its process's totals. */
static void
lwp_final(struct tlwp *l)
{
	track_lwp_final(&l->base);
	setgrp_unbind(l->base.grp);
	proc_of(l)->bound--;
}

/*
 * A tick of thousands of LWPs has its rows go out a few hundred at a
 * time, as their counts are read, in LWP order all the same: so that the
 * output's writer renders them meanwhile, and a burst of them all at the
 * tick's end does not find its queue full.
 */
#define TICK_ROWS_AT_ONCE 256

/*
 * The LWP's counts since its last tick, into the tick's batch: held
 * there, in its set's slice, until the batch's rows. Ticks libpctx
 * missed since the LWP's last row make it a gap row.
 */
static int
tick_counts(pctx_t *pctx, struct tlwp *l)
{
	struct track_batch *ticked = &run_of(l->base.proc->ct)->ticked;
	const struct set_counts *c;
	unsigned long missed = pctx_missed_ticks(pctx);

	if ((c = setgrp_sample(l->base.grp)) == NULL) {
		sample_error(l, "tick", "perf counter");
		return -1;
	}
	if (track_batch_add(
		ticked, &l->base, c, 1 + (missed - l->missed_seen)) != 0)
		return -1;
	l->missed_seen = missed;
	if (ticked->n == TICK_ROWS_AT_ONCE)
		track_tick(ticked);
	return 0;
}

/*
 * The next set takes its turn, from the sample just taken. The LWP may
 * be exiting (a tick can race with its end): what it counted up to now
 * is all it will count. Reading its sets again changes the slice the
 * batch holds: the batch's rows go out first, in the same order.
 */
static int
rotate(pctx_t *pctx, pid_t pid, id_t lwpid, struct tlwp *l)
{
	int err;

	if (l->base.proc->ct->nsets == 1 || setgrp_rotate(l->base.grp) == 0)
		return 0;
	err = errno;
	if (err == ESRCH || pctx_lwp_exiting(pctx, lwpid)) {
		track_tick(&run_of(l->base.proc->ct)->ticked);
		(void)setgrp_sample_all(l->base.grp);
		lwp_final(l);
		return 0;
	}
	fprintf(stderr,
	    "%6d: tick: lwp%d: can't switch perf counters "
	    "- %s\n",
	    (int)pid, (int)lwpid, strerror(err));
	return -1;
}

static int
cb_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct tlwp *l = arg;

	if (l->base.finished) {
		/* Named threads gone before their counters were bound. */
		if (l->base.proc->ct->opt.ntids != 0)
			let_go_if_done(pctx, proc_of(l));
		return 0;
	}
	if (tick_counts(pctx, l) != 0)
		return -1;
	return rotate(pctx, pid, lwpid, l);
}

/* After its LWPs' ticks, also where one failed: the process's tick rows. */
static void
tick_end(pctx_t *pctx, void *arg)
{
	struct cputrack *ct = arg;

	(void)pctx;
	track_tick(&run_of(ct)->ticked);
}

static const pctx_client_t tick_client = { .tick_end = tick_end };

static int
cb_fini_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct tlwp *l = arg;

	(void)pctx;
	(void)pid;
	(void)lwpid;
	if (l->base.finished)
		return 0;
	if (setgrp_sample_all(l->base.grp) != 0) {
		sample_error(l, "fini_lwp", "perf counters");
		return -1;
	}
	lwp_final(l);
	return 0;
}

static int
cb_lwp_exit(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct tlwp *l = arg;

	(void)pid;
	(void)lwpid;
	if (l->base.grp == NULL)
		return 0;
	track_lwp_exit(&l->base);
	if (l->base.proc->ct->opt.ntids != 0)
		let_go_if_done(pctx, proc_of(l));
	return 0;
}

static void
cb_exit(pctx_t *pctx, pid_t pid, id_t lwpid, int status, void *arg)
{
	struct tproc *p = arg;
	struct row_lwp who =
	    track_who(&p->base, lwpid, pctx_lwp_tid(pctx, lwpid));

	(void)pid;
	track_exit(&p->base, &who, status);
	if (pctx == run_of(p->base.ct)->root)
		proc_guard_dismiss(&run_of(p->base.ct)->guard);
}

/*
 * Whether process pid, stopped at its exec, has a child (running, or
 * ended and not yet waited for); one that cannot be told has one.
 */
static bool
has_child(pid_t pid)
{
	char path[64];
	int c = EOF;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
	    (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return true;
	c = fgetc(f);
	fclose(f);
	return c != EOF;
}

/* Whether the exec is followed; an exec not followed is said. */
static bool
follows_exec(const struct tproc *p, const char *args)
{
	struct cputrack *ct = p->base.ct;
	bool followed = ct->opt.follow_exec ||
	    (p->base.started && !p->made && follows_wrapper_execs(ct) &&
		!has_child(p->base.pid));

	track_exec_follow(&p->base, args, followed);
	return followed;
}

static int
cb_exec(pctx_t *pctx, pid_t pid, id_t lwpid, char *cmd, void *arg)
{
	struct tproc *p = arg;
	char image[sizeof(p->base.comm)];
	const char *args = cmd != NULL ? cmd : "(unknown)";

	/* Stopped at the exec: the new image's name is there to read. */
	proc_comm(pid, image, sizeof(image));
	track_exec(&p->base, lwpid, args, image);
	track_rename(&p->base, image);
	/* The named threads end with their image, as at their exit. */
	if (p->base.ct->opt.ntids != 0)
		return pctx_let_go(pctx);
	if (follows_exec(p, args))
		return 0;
	/*
	 * Not followed, the command runs on, and so does what it made; a
	 * process it made goes on being of its tree, untraced: its guard
	 * takes it, stopped here at its exec.
	 */
	if (pctx == run_of(p->base.ct)->root)
		proc_guard_dismiss(&run_of(p->base.ct)->guard);
	else
		proc_guard_add(&run_of(p->base.ct)->guard, pid);
	return -1;
}

static int track_setup(struct cputrack *ct, pctx_t *pctx);

static void
cb_fork(pctx_t *child, pid_t ppid, pid_t pid, id_t lwpid, void *arg)
{
	struct tproc *parent = arg, *p;
	struct cputrack *ct = parent->base.ct;

	/* --tid: the forks of the named threads alone are theirs. */
	if (ct->opt.ntids != 0 && !named(ct, pctx_lwp_tid(parent->pctx, lwpid)))
		return;
	track_fork(ct, &parent->base, ppid, lwpid, pid, 0);
	if (!ct->opt.follow_fork)
		return;
	if ((p = tproc_new(ct, child, parent->base.comm)) == NULL) {
		child_lost(ct, NULL, pid);
		return;
	}
	p->forked = true;
	if (track_setup(ct, child) != 0 ||
	    pctx_run(child, ct->opt.interval_ms, ct->opt.nsamples, cb_tick) !=
		0)
		child_lost(ct, p, pid);
}

/*
 * Callbacks for a process, created, captured, or forked and followed. A
 * breakpoint counter's debug exception that the kernel sends on as a
 * SIGTRAP (pctx_drop_debug_traps) is no signal of the process's.
 */
static int
track_setup(struct cputrack *ct, pctx_t *pctx)
{
	if (pctx_set_fork_model(pctx, PCTX_FORK_ADOPT) != 0 ||
	    pctx_add_client(pctx, &tick_client, ct) != 0 ||
	    (setgrp_counts_breakpoints(ct->specs) &&
		pctx_drop_debug_traps(pctx) != 0))
		return -1;
	return pctx_set_events(pctx, PCTX_SYSC_EXEC_EVENT, cb_exec,
	    PCTX_SYSC_FORK_EVENT, cb_fork, PCTX_SYSC_EXIT_EVENT, cb_exit,
	    PCTX_SYSC_LWP_CREATE_EVENT, cb_lwp_create, PCTX_INIT_LWP_EVENT,
	    cb_init_lwp, PCTX_FINI_LWP_EVENT, cb_fini_lwp,
	    PCTX_SYSC_LWP_EXIT_EVENT, cb_lwp_exit, PCTX_NULL_EVENT);
}

static void
pctx_diag(const char *fn, const char *fmt, va_list ap)
{
	diag_errhndlr(fn, -1, fmt, ap);
}

/* A process to follow: its callbacks, and its record. */
static int
track_proc(struct cputrack *ct, pctx_t *pctx)
{
	if (track_setup(ct, pctx) != 0) {
		diag(NULL, "can't bind process context ops to process\n");
		return -1;
	}
	if (tproc_new(ct, pctx, NULL) == NULL) {
		diag(NULL, "no memory available\n");
		return -1;
	}
	return 0;
}

/* A process to capture: -p's pid, or the process of --tid's tid. */
struct capture_of {
	pid_t pid;
	pid_t tid; /* 0 for -p */
};

static pctx_t *
capture(struct cputrack *ct, const struct capture_of *c)
{
	pctx_t *pctx = pctx_capture(c->pid, ct, 1, pctx_diag);

	if (pctx == NULL) {
		capture_say_failed(c->pid, c->tid, "");
		trace_refusal_hint(c->pid);
		tracer_hint(c->pid);
	}
	return pctx;
}

/* One more process of the run: the first is its root, the others join. */
static int
capture_one(struct cputrack *ct, const struct capture_of *c)
{
	struct ptrace_run *run = run_of(ct);
	char why[128];
	pctx_t *pctx;

	if ((pctx = capture(ct, c)) == NULL)
		return -1;
	if (run->root == NULL)
		run->root = pctx;
	else if (pctx_join(pctx, run->root) != 0) {
		snprintf(why, sizeof(why), " - %s", strerror(errno));
		capture_say_failed(c->pid, c->tid, why);
		pctx_release(pctx);
		return -1;
	}
	return track_proc(ct, pctx);
}

/*
 * The processes still tracked run on, -p's joined ones with the root;
 * their records hold sets of ct.
 */
static void
ptrace_let_go(struct cputrack *ct)
{
	struct ptrace_run *run = run_of(ct);

	if (run == NULL)
		return;
	pctx_release(run->root);
	proc_guard_gone(&run->guard);
	track_batch_free(&run->ticked);
	track_batch_free(&run->last);
	free(run);
	ct->engine_state = NULL;
}

/*
 * The processes, in one loop. All or none: a refusal lets go of those
 * taken, before anything is counted, so that no process is left traced.
 */
static int
capture_all(struct cputrack *ct, const struct capture_of *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (capture_one(ct, &list[i]) != 0) {
			ptrace_let_go(ct);
			return -1;
		}
	return 0;
}

/* -p's processes; a thread of a process is not one: said before any. */
static int
capture_pids(struct cputrack *ct, struct capture_of *list)
{
	const struct cputrack_opts *o = &ct->opt;
	pid_t tgid;
	size_t i;

	for (i = 0; i < o->npids; i++) {
		if ((tgid = proc_tgid(o->pids[i])) > 0 && tgid != o->pids[i]) {
			diag(NULL,
			    "pid %d is a thread of process %d, not a "
			    "process\n",
			    (int)o->pids[i], (int)tgid);
			return -1;
		}
		list[i] = (struct capture_of) { o->pids[i], 0 };
	}
	return capture_all(ct, list, o->npids);
}

/*
 * --tid's processes, each captured whole, once, in the order of its
 * first thread named: libpctx follows a process's threads, its exec
 * and its exit as it does for -p, so the target behaves as it does
 * there; only the named threads get counters (cb_init_lwp).
 */
static int
capture_tids(struct cputrack *ct, struct capture_of *list)
{
	const struct cputrack_opts *o = &ct->opt;
	size_t i, j, n = 0;

	for (i = 0; i < o->ntids; i++) {
		for (j = 0; j < n && list[j].pid != ct->tid_procs[i]; j++)
			;
		if (j == n)
			list[n++] = (struct capture_of) { ct->tid_procs[i],
				o->tids[i] };
	}
	return capture_all(ct, list, n);
}

static int
capture_target(struct cputrack *ct)
{
	size_t n = ct->opt.npids + ct->opt.ntids;
	struct capture_of *list;
	int rc;

	if ((list = calloc(n, sizeof(*list))) == NULL) {
		diag(NULL, "no memory available\n");
		return -1;
	}
	rc = ct->opt.npids != 0 ? capture_pids(ct, list) :
				  capture_tids(ct, list);
	free(list);
	return rc;
}

/*
 * -f: PTRACE_O_EXITKILL kills what is traced when cputrack dies, but a
 * process made with -f and let go at its exec (not followed, without -e)
 * is traced no more, and once EXITKILL has ended its parent it is no
 * longer below the command: the guard (proc_guard.h) is handed each such
 * process as it is let go (cb_exec), and kills it and what is below it,
 * and the command's tree, as the BPF engine's does.
 */
static int
guard(struct cputrack *ct, pid_t pid)
{
	int fd = proc_guard_open(pid), rc = 0;

	if (fd < 0)
		return 0;
	if (proc_guard_start(&run_of(ct)->guard, fd, pid, true) != 0) {
		diag(NULL, "cannot start the guard of program '%s': %s\n",
		    ct->opt.command[0], strerror(errno));
		(void)kill(pid, SIGKILL);
		rc = -1;
	}
	close(fd);
	return rc;
}

static int
start_target(struct cputrack *ct)
{
	struct cputrack_opts *o = &ct->opt;

	int rc;

	if (o->npids != 0 || o->ntids != 0) {
		if ((rc = capture_target(ct)) == 0)
			startup_started("capture");
		return rc;
	}
	run_of(ct)->root =
	    pctx_create(o->command[0], o->command, ct, 1, pctx_diag);
	if (run_of(ct)->root == NULL) {
		diag(NULL, "failed to start program '%s'\n", o->command[0]);
		return -1;
	}
	startup_started("command's fork and exec");
	if (o->follow_fork && guard(ct, pctx_pid(run_of(ct)->root)) != 0)
		return -1;
	return track_proc(ct, run_of(ct)->root);
}

/* Between events: the rows out; a reader gone away ends the run. */
static void
idle(void *arg)
{
	struct cputrack *ct = arg;

	cputrack_flush(ct);
	if (ct->reader_gone && run_of(ct)->root != NULL)
		pctx_terminate(run_of(ct)->root);
}

/*
 * A captured process is let go between ticks: what its LWPs counted
 * since the last one is a last tick row each, so that the rows hold
 * everything counted. Counters are read as they run: nothing stops.
 */
static void
last_tick(struct cputrack *ct)
{
	struct ptrace_run *run = run_of(ct);
	const struct set_counts *c;
	struct tlwp *l;

	LIST_FOREACH (l, &run->lwps, counting) {
		if (l->base.finished)
			continue;
		if ((c = setgrp_sample(l->base.grp)) == NULL)
			sample_error(l, "tick", "perf counter");
		else if (track_batch_add(&run->last, &l->base, c, 1) != 0)
			break;
	}
	track_last_tick(&run->last);
}

static int
on_signal(int sig, int si_code, pid_t sender, void *arg)
{
	struct cputrack *ct = arg;

	(void)sender;
	if (cputrack_signal(ct, sig, si_code, false) == 0)
		return 0;
	last_tick(ct);
	return 1;
}

/* The target is there: track it, unless a signal came first. */
static int
run_target(struct cputrack *ct)
{
	if (cputrack_early_signal() != 0) {
		if (ct->opt.command != NULL) {
			ct->stop_signal = cputrack_early_signal();
			(void)kill(ct->target, SIGKILL);
		}
		return -1;
	}
	cputrack_title(ct);
	output_start_clock(ct->out);
	pctx_set_idle(idle, ct);
	pctx_set_signal_hook(on_signal, ct);
	return pctx_run(
	    run_of(ct)->root, ct->opt.interval_ms, ct->opt.nsamples, cb_tick);
}

/*
 * The signals that end the run wait, blocked, from the look for an early
 * one to the loop, which reads them (see cputrack_ending_signals). After
 * the start: the command gets the mask cputrack was given.
 */
static int
ptrace_track(struct cputrack *ct)
{
	sigset_t ending, before;
	int rc;

	if (start_target(ct) != 0)
		return 1;
	ct->target = pctx_pid(run_of(ct)->root);
	/* After the start: the command keeps the limit it was given. */
	raise_fd_limit(false);
	cputrack_ending_signals(&ending);
	sigprocmask(SIG_BLOCK, &ending, &before);
	rc = run_target(ct);
	sigprocmask(SIG_SETMASK, &before, NULL);
	/* A command held since its start, never counted, dies unseen. */
	if (rc != 0 && ct->opt.command != NULL && !ct->counted)
		(void)kill(ct->target, SIGKILL);
	return rc == 0 && !ct->write_failed ? 0 : 1;
}

/* The adapter's state: libpctx starts or captures the target as it tracks. */
static int
ptrace_open(struct cputrack *ct, bool for_auto, char *why, size_t len)
{
	struct ptrace_run *run;

	(void)for_auto;
	(void)why;
	(void)len;
	if ((run = calloc(1, sizeof(*run))) == NULL) {
		diag(NULL, "no memory available\n");
		return 1;
	}
	LIST_INIT(&run->lwps);
	proc_guard_init(&run->guard);
	ct->engine_state = run;
	return 0;
}

static const struct engine_ops ptrace_ops = {
	.open = ptrace_open,
	.track = ptrace_track,
	.let_go = ptrace_let_go,
};

/* Its row of the engines' table (engines.def). */
const struct engine ptrace_engine = { .name = "ptrace",
	.says = "ptrace",
	.phase = "ptrace engine",
	.how = "ptrace, each thread with counters of its own",
	.serves_requests = true,
	.ops = &ptrace_ops };
