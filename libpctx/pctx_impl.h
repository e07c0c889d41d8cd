/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx internals.
 *
 * One tracer thread runs one event loop for a whole tree of processes: the
 * process given to pctx_run (the root), those joined to it (pctx_join),
 * and every forked child a fork callback chose to follow. Each has the
 * root as its root. The loop reads as two verbs, dispatch_event(next_event()):
 * events.c turns each wait status (and each signal or tick of the tracer)
 * into one event of one kind, dispatch.c has one handler per kind, and
 * run.c applies, after each event, whatever the callbacks asked for
 * (release, failure, the end of a process's samples).
 *
 * Files and who calls whom, each file calling only files below it (no
 * cycle, of two files or more: tests/arch checks it on the objects), leaves
 * last; every file reads the tracer (tracer.c) and writes through error.c:
 *
 *	run.c       loop open/close: events dispatch suspend request tick
 *	            callbacks state detach control table
 *	dispatch.c  one handler per event kind: forkcopy suspend request
 *	            tick callbacks state pctx control table procfs
 *	events.c    next_event: request state table
 *	suspend.c   the controller stops: callbacks state detach table
 *	            procfs
 *	forkcopy.c  the Solaris fork model: pctx table
 *	capture.c   the way in by pid: pctx state table procfs workers
 *	create.c    the way in by command: pctx state table procfs
 *	pctx.c      the object, the API's small calls: callbacks state tick
 *	            table procfs
 *	tick.c      ticks: callbacks state workers
 *	workers.c   threads with no clone event: callbacks table
 *	callbacks.c the caller's handlers: state table procfs
 *	state.c     every change of a process's state: detach control table
 *	detach.c    letting a process go: control table procfs
 *	control.c   restarting or letting go of one thread: table
 *	request.c   pctx_request, both sides: procfs
 *	table.c, procfs.c, error.c, tracer.c
 *
 * Every traced thread has one record (struct lwp), found by kernel tid in
 * the tracer-wide tree (waitpid names threads, not processes) and by LWP
 * id in its process's tree. Every traced process has one record (struct
 * __pctx). Callers may hang their own data on both (pctx_set_proc_data,
 * pctx_set_lwp_data); it is freed through their function when the record
 * goes.
 */
#ifndef PCTX_IMPL_H
#define PCTX_IMPL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/tree.h>
#include <time.h>

/*
 * The library is built with hidden visibility: only what the public
 * header declares is exported.
 */
#pragma GCC visibility push(default)
#include "libpctx.h"
#pragma GCC visibility pop

/*
 * lwp flags. LWP_ANNOUNCED: its creator's clone event was seen, or none is
 * due. LWP_DEAD: a tombstone, dead and waiting for its creator's event.
 */
#define LWP_HELD       0x01 /* in a ptrace-stop we have not restarted */
#define LWP_NEW	       0x02 /* auto-attached; its first stop is due */
#define LWP_ANNOUNCED  0x04
#define LWP_INITED     0x08 /* init_lwp was called: fini_lwp is owed */
#define LWP_DEAD       0x10
#define LWP_DETACH     0x20  /* detach at its next stop */
#define LWP_LISTENING  0x40  /* group-stopped, parked with PTRACE_LISTEN */
#define LWP_SETOPTS    0x80  /* set its process's options at its next stop */
#define LWP_INIT_DUE   0x100 /* init_lwp waits for its first stop */
#define LWP_CREATE_DUE 0x200 /* lwp_create waits for its first stop */

struct lwp {
	RB_ENTRY(lwp) tid_entry;      /* in the tracer-wide tid tree */
	RB_ENTRY(lwp) id_entry;	      /* in its process's lwpid tree */
	TAILQ_ENTRY(lwp) order_entry; /* in its process's LWP id order */
	SLIST_ENTRY(lwp) grave_entry;
	pid_t tid;
	id_t lwpid;
	unsigned flags;
	int held_status;     /* wait status of the stop it is held in */
	struct __pctx *proc; /* NULL: a fork child awaiting its parent's event
			      */
	pid_t ppid;	     /* for such an orphan: its parent process */
	void *data;	     /* the caller's, see pctx_set_lwp_data */
	pctx_free_t *free_data;
};

RB_HEAD(tid_tree, lwp);
RB_HEAD(lwpid_tree, lwp);

enum proc_state {
	PROC_IDLE,    /* traced, not in a running pctx_run */
	PROC_FORKING, /* a child inside its parent's fork callback */
	PROC_ACTIVE,  /* traced, in the running loop: callbacks fire */
	PROC_EXITED,  /* the last thread died */
	PROC_DETACHED /* released from tracing; it runs on */
};

/*
 * What a callback (or the end of the samples) asked for, applied by the
 * loop once the event at hand is handled. Until then no further callback
 * of the process is called.
 */
enum proc_pending {
	PENDING_NONE,
	PENDING_FINISH, /* stop following it; it runs on */
	PENDING_FAIL,	/* a callback failed: as FINISH, pctx_run -1 */
	PENDING_RELEASE /* pctx_release: as FINISH, and free it */
};

struct handlers {
	pctx_sysc_execfn_t *exec;
	pctx_sysc_forkfn_t *fork;
	pctx_sysc_exitfn_t *exit;
	pctx_sysc_lwp_createfn_t *lwp_create;
	pctx_init_lwpfn_t *init_lwp;
	pctx_fini_lwpfn_t *fini_lwp;
	pctx_sysc_lwp_exitfn_t *lwp_exit;
};

typedef int(pctx_tickfn_t)(pctx_t *, pid_t, id_t, void *);

#define MAX_CLIENTS 4

struct client {
	const pctx_client_t *ops;
	void *arg;
};

struct __pctx {
	TAILQ_ENTRY(__pctx) all_entry; /* in creation order */
	LIST_ENTRY(__pctx) pending_entry;
	SLIST_ENTRY(__pctx) grave_entry;
	pid_t pid;
	struct __pctx *root; /* the pctx pctx_run was called on */
	enum proc_state state;
	enum proc_pending pending;
	bool created;	       /* by pctx_create: killed if the tracer dies */
	bool released;	       /* freed as soon as the loop lets go of it */
	bool releasing;	       /* in a release under way: to be freed */
	bool terminate;	       /* pctx_terminate: the run returns 0 */
	bool failed;	       /* a callback failed: pctx_run returns -1 */
	bool joined;	       /* pctx_join: its root's peer, not its child */
	bool drop_debug_traps; /* pctx_drop_debug_traps */
	int opts;	       /* ptrace options of all its threads */
	pctx_fork_model_t fork_model;
	struct lwpid_tree lwps;
	TAILQ_HEAD(lwp_order, lwp) order; /* the same LWPs, for walks */
	unsigned nlwps;			  /* how many */
	id_t next_lwpid;
	bool loosening;		 /* its threads are let go, records kept */
	bool stopping;		 /* a stop signal reached it: it stops */
	bool stopping_itself;	 /* one it sent itself */
	SLIST_HEAD(, lwp) loose; /* their records, until taken back */
	struct handlers h;
	void *arg;  /* given to pctx_create or pctx_capture */
	void *data; /* the caller's, see pctx_set_proc_data */
	pctx_free_t *free_data;
	int verbose;
	pctx_errfn_t *errfn;
	struct client clients[MAX_CLIENTS];
	/* Ticks. */
	unsigned msec;
	unsigned remaining; /* samples left; 0 = unlimited */
	pctx_tickfn_t *tick;
	bool ticking; /* served at the run's deadlines */
	unsigned long missed;
	/* Threads with no clone event (workers.c). */
	int threads_fd;	       /* its /proc task directory, or -1 */
	long threads_unseized; /* a count with none to seize */
};

LIST_HEAD(pctx_list, __pctx);

/* The tracer: state shared by every pctx of this process. */
struct tracer {
	struct tid_tree tids;
	TAILQ_HEAD(, __pctx) all;
	struct pctx_list pending; /* with a request to apply */
	bool looping;		  /* inside pctx_run's loop */
	unsigned active;	  /* processes in state PROC_ACTIVE */
	pctx_t *root;		  /* the pctx being run */
	int epfd;
	int sigfd;
	int timerfd;		 /* the run's ticks */
	int beacon;		 /* tells tracees a libpctx tracer is here */
	int spare;		 /* given up to read /proc at the fd limit */
	bool chld_pending;	 /* SIGCHLD seen: reports to take in */
	int suspend_signo;	 /* the tracer is to stop, when ready */
	long long suspend_since; /* ns, CLOCK_MONOTONIC */
	sigset_t caller_mask;	 /* the mask pctx_run found */
	void (*idle)(void *);	 /* see pctx_set_idle() */
	void *idle_arg;
	int (*signal_hook)(int, int, pid_t, void *);
	void *signal_arg;
	SLIST_HEAD(, lwp) lwp_graves;
	SLIST_HEAD(, __pctx) pctx_graves;
};

extern struct tracer pctxlib_tracer;

#define SEIZE_OPTS_BASE (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC)
#define SEIZE_OPTS_FORK (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK)

/*
 * One thing that happened, as next_event() found it and dispatch_event()
 * handles it.
 */
enum event_kind {
	EVT_NONE,	/* nothing to do (a report of no interest) */
	EVT_END,	/* the loop is over */
	EVT_DIED,	/* a traced thread died */
	EVT_CREATION,	/* a clone, fork or vfork event of its creator */
	EVT_EXEC,	/* a successful exec */
	EVT_FIRST_STOP, /* an unknown thread's first stop */
	EVT_OPEN,	/* a known thread's first stop: its callbacks are due */
	EVT_STOP,	/* any other stop: signal, group-stop, ... */
	EVT_DETACH_DUE, /* a stop of a thread being let go */
	EVT_REQUEST,	/* a tracee asked its controller (pctx_request) */
	EVT_DEBUG_TRAP, /* a debug trap to drop (pctx_drop_debug_traps) */
	EVT_TICK,	/* the run's timer expired */
	EVT_TERMINATE,	/* SIGINT, SIGTERM or SIGHUP to the tracer */
	EVT_SUSPEND,	/* SIGTSTP, SIGTTIN or SIGTTOU to the tracer */
	EVT_ALL_GONE	/* no tracee is left, and no report came */
};

struct event {
	enum event_kind kind;
	pid_t tid;
	int status;	 /* wait status */
	struct lwp *lwp; /* the thread it is about, if known */
	int signo;	 /* EVT_TERMINATE, EVT_SUSPEND */
	int sender_code; /* EVT_TERMINATE: who sent it */
	pid_t sender_pid;
	siginfo_t si; /* EVT_REQUEST */
};

/* The clock of every patience and wait: CLOCK_MONOTONIC, in ns. */
static inline long long
pctxlib_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* error.c */
void pctxlib_error(pctx_t *pctx, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void pctxlib_error_to(pctx_errfn_t *errfn, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void pctxlib_verbose(pctx_t *pctx, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
pctx_errfn_t *pctxlib_default_errfn(void);

/* table.c */
struct lwp *pctxlib_lwp_by_tid(pid_t tid);
struct lwp *pctxlib_lwp_by_id(pctx_t *pctx, id_t lwpid);
struct lwp *pctxlib_lwp_at_or_after(pctx_t *pctx, id_t lwpid);
struct lwp *pctxlib_tid_first(void);
struct lwp *pctxlib_tid_next(struct lwp *lwp);
struct lwp *pctxlib_lwp_add(pctx_t *pctx, pid_t tid, unsigned flags);
struct lwp *pctxlib_lwp_add_orphan(pid_t tid, pid_t ppid);
void pctxlib_lwp_adopt(struct lwp *lwp, pctx_t *pctx, id_t lwpid);
void pctxlib_lwp_bury(struct lwp *lwp);
void pctxlib_lwp_orphan_to_detach(struct lwp *lwp);
void pctxlib_lwp_entomb(struct lwp *lwp);
void pctxlib_lwp_forget_all(pctx_t *pctx);
void pctxlib_lwp_retake(struct lwp *lwp, pctx_t *pctx);
void pctxlib_lwp_free_data(struct lwp *lwp);
void pctxlib_collect_graves(void);
void pctxlib_table_abandon(void);

/* procfs.c */
/* The tracer's spare descriptor (struct tracer), or -1. */
int pctxlib_procfs_spare(void);
int pctxlib_procfs_ids(pid_t tid, pid_t *tgid, pid_t *ppid, pid_t *tracer_pid);
int pctxlib_procfs_stat(pid_t pid, char *state, unsigned long *flags);
#define PF_EXITING 0x00000004 /* task flags: exit has begun */
#define PF_KTHREAD 0x00200000 /* task flags: a kernel thread */
void pctxlib_procfs_psargs(pid_t pid, char *buf, size_t len);
bool pctxlib_have_cap_sys_ptrace(void);

/* control.c */
void pctxlib_restart(struct lwp *lwp);
void pctxlib_settle(const struct lwp *lwp);
bool pctxlib_is_debug_trap(const struct lwp *lwp);
void pctxlib_drop_signal(struct lwp *lwp);
void pctxlib_detach_lwp_now(struct lwp *lwp);
void pctxlib_let_child_go(struct lwp *child);
void pctxlib_apply_opts(pctx_t *pctx);
int pctxlib_wanted_opts(const pctx_t *pctx);

/* detach.c */
/*
 * Detach every thread of a traced process, and its waiting children:
 * start (held threads go at once, running ones are interrupted), then
 * finish (wait until the deadline for the interrupted ones); or both in
 * one. The processes of a release (releasing) are waited for together
 * first. The deadline: the patience of one release, from now.
 */
void pctxlib_detach_start(pctx_t *pctx);
void pctxlib_detach_finish(pctx_t *pctx, long long deadline);
void pctxlib_detach_threads(pctx_t *pctx);
void pctxlib_detach_wait_releasing(long long deadline);
long long pctxlib_detach_deadline(void);
void pctxlib_detach_orphans(pid_t ppid);
void pctxlib_settle_orphans(void);

/* state.c */
void pctxlib_proc_request(pctx_t *pctx, enum proc_pending what);
void pctxlib_proc_failed(pctx_t *pctx);
void pctxlib_proc_join(pctx_t *pctx, pctx_t *root);
bool pctxlib_proc_traced(const pctx_t *pctx);
void pctxlib_proc_forking(pctx_t *pctx, pctx_t *parent);
void pctxlib_proc_activate(
    pctx_t *pctx, unsigned msec, unsigned nsamples, pctx_tickfn_t *tick);
void pctxlib_proc_idle(pctx_t *pctx);
void pctxlib_proc_exited(pctx_t *pctx);
void pctxlib_proc_detach(pctx_t *pctx);
void pctxlib_proc_dispose(pctx_t *pctx);
void pctxlib_proc_release_now(pctx_t *pctx);
void pctxlib_proc_vanished(pctx_t *root);
void pctxlib_apply_pending(void);

/* callbacks.c */
void pctxlib_events_defaults(struct handlers *h);
void pctxlib_cb_init_lwp(pctx_t *pctx, struct lwp *lwp);
void pctxlib_cb_init_all(pctx_t *pctx);
void pctxlib_cb_lwp_create(pctx_t *pctx, struct lwp *lwp);
void pctxlib_cb_fini_lwp(pctx_t *pctx, struct lwp *lwp);
void pctxlib_cb_fini_all(pctx_t *pctx);
void pctxlib_cb_lwp_exit(pctx_t *pctx, struct lwp *lwp);
void pctxlib_cb_exec(pctx_t *pctx);
void pctxlib_cb_exit(pctx_t *pctx, id_t lwpid, int code);
void pctxlib_cb_fork(pctx_t *parent, pctx_t *child, id_t lwpid);
void pctxlib_cb_tick(pctx_t *pctx, struct lwp *lwp);
void pctxlib_cb_tick_end(pctx_t *pctx);

/* tick.c */
int pctxlib_tick_start(pctx_t *pctx);
void pctxlib_tick_close(void);
void pctxlib_tick_serve(void);

/* request.c */
bool pctxlib_is_request(const struct lwp *lwp, siginfo_t *si);
void pctxlib_serve_request(struct lwp *lwp, const siginfo_t *si);
int pctxlib_beacon_open(void);

/* suspend.c; while a stop is due, the loop looks this often (ms). */
#define PCTX_STOP_POLL_MS 5
void pctxlib_suspend_request(int signo);
void pctxlib_suspend_cancel(void);
void pctxlib_suspend_if_ready(pctx_t *root);
void pctxlib_stop_signal_seen(struct lwp *lwp);
void pctxlib_stop_with_command(struct lwp *lwp);

/* workers.c */
int pctxlib_seize_unknown_threads(pctx_t *pctx, bool announce_them);
void pctxlib_workers_find(pctx_t *pctx);

/* forkcopy.c */
bool pctxlib_fork_copy(pctx_t *parent, struct lwp *by, struct lwp *child);

/* pctx.c */
pctx_t *pctxlib_alloc(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn);
void pctxlib_tracer_abandon(void);

/* events.c */
void pctxlib_next_event(pctx_t *root, struct event *ev);
bool pctxlib_take_report(struct event *ev);

/* dispatch.c */
void pctxlib_dispatch_event(pctx_t *root, struct event *ev);

/*
 * Followed in the running loop, with nothing pending: its handlers may be
 * called. On every event's path, so called in place.
 */
static inline bool
pctxlib_proc_live(const pctx_t *pctx)
{
	return pctx->state == PROC_ACTIVE && pctx->pending == PENDING_NONE;
}

#endif /* PCTX_IMPL_H */
