/*
 * libpctx internals shared between its source files.
 *
 * One tracer thread runs one event loop for a whole tree of processes: the
 * process given to pctx_run and every forked child its fork callback chose
 * to follow. Every traced thread has one record (struct lwp), found by kernel
 * tid in one tree for the whole tracer, because waitpid(-1) names threads and
 * not processes, and by LWP id in its process's own tree.
 */
#ifndef PCTX_IMPL_H
#define PCTX_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/tree.h>

#include "libpctx.h"

/* lwp flags */
#define LWP_HELD	0x01	/* in a ptrace-stop that we have not restarted */
#define LWP_NEW		0x02	/* auto-attached; its first stop is still due */
#define LWP_ANNOUNCED	0x04	/* its creator's clone event was seen, or none is due */
#define LWP_INITED	0x08	/* init_lwp was called: fini_lwp is owed */
#define LWP_DEAD	0x10	/* tombstone: dead, waiting for its creator's event */
#define LWP_DETACH	0x20	/* detach at its next stop */
#define LWP_LISTENING	0x40	/* group-stopped, parked with PTRACE_LISTEN */
#define LWP_SETOPTS	0x80	/* set its process's options at its next stop */

struct lwp {
	RB_ENTRY(lwp)	 tid_entry;	/* in the tracer-wide tid tree */
	RB_ENTRY(lwp)	 id_entry;	/* in its process's lwpid tree */
	SLIST_ENTRY(lwp) grave_entry;
	pid_t		 tid;
	id_t		 lwpid;
	unsigned	 flags;
	int		 held_status;	/* wait status of the stop it is held in */
	struct __pctx	*proc;		/* NULL: forked child awaiting its parent's event */
	pid_t		 ppid;		/* for such an orphan: its parent process */
};

RB_HEAD(tid_tree, lwp);
RB_HEAD(lwpid_tree, lwp);
RB_PROTOTYPE(tid_tree, lwp, tid_entry, lwp_tid_cmp)
RB_PROTOTYPE(lwpid_tree, lwp, id_entry, lwp_id_cmp)

enum proc_state {
	PROC_IDLE,	/* traced, not in a running pctx_run */
	PROC_FORKING,	/* a child inside its parent's fork callback */
	PROC_ACTIVE,	/* traced, in the running loop: callbacks fire */
	PROC_EXITED,	/* the last thread died */
	PROC_DETACHED	/* released from tracing; it runs on */
};

struct handlers {
	pctx_sysc_execfn_t	 *exec;
	pctx_sysc_forkfn_t	 *fork;
	pctx_sysc_exitfn_t	 *exit;
	pctx_sysc_lwp_createfn_t *lwp_create;
	pctx_init_lwpfn_t	 *init_lwp;
	pctx_fini_lwpfn_t	 *fini_lwp;
	pctx_sysc_lwp_exitfn_t	 *lwp_exit;
	bool			  exec_set;
	bool			  fork_set;
};

typedef int (pctx_tickfn_t)(pctx_t *, pid_t, id_t, void *);

struct __pctx {
	LIST_ENTRY(__pctx) all_entry;
	SLIST_ENTRY(__pctx) grave_entry;
	pid_t		 pid;
	struct __pctx	*root;		/* the pctx pctx_run was called on; self for top level */
	enum proc_state	 state;
	bool		 created;	/* by pctx_create: killed if the tracer dies */
	bool		 released;	/* pctx_release was called; free when safe */
	bool		 terminate;	/* pctx_terminate: the run returns 0 */
	bool		 failed;	/* a callback failed: pctx_run returns -1 */
	int		 opts;		/* ptrace options of all its threads */
	struct lwpid_tree lwps;
	unsigned	 nlwps;		/* live records in lwps */
	id_t		 next_lwpid;
	struct handlers	 h;
	void		*arg;
	int		 verbose;
	pctx_errfn_t	*errfn;
	/* Ticks. */
	unsigned	 msec;
	unsigned	 remaining;	/* samples left; 0 = unlimited */
	pctx_tickfn_t	*tick;
	bool		 ticking;	/* served at the run's deadlines */
	unsigned long	 missed;
};

LIST_HEAD(pctx_list, __pctx);

/* The tracer: state shared by every pctx of this process. */
struct tracer {
	struct tid_tree	 tids;
	struct pctx_list all;
	bool		 looping;	/* inside pctx_run's loop */
	pctx_t		*root;		/* the pctx being run */
	int		 epfd;
	int		 sigfd;
	int		 timerfd;	/* the run's ticks */
	bool		 chld_pending;	/* SIGCHLD seen: reports to take in */
	bool		 drain_more;	/* the last drain stopped at its limit */
	void		(*idle)(void *);	/* see pctx_set_idle() */
	void		*idle_arg;
	SLIST_HEAD(, lwp) lwp_graves;
	SLIST_HEAD(, __pctx) pctx_graves;
};

extern struct tracer tracer;

#define SEIZE_OPTS_BASE	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC)
#define SEIZE_OPTS_FORK	(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK)

/* pctx.c */
pctx_t	*pctx_alloc(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn);
void	 pctx_error(pctx_t *pctx, const char *fn, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	 pctx_error_to(pctx_errfn_t *errfn, const char *fn, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	 pctx_verbose(pctx_t *pctx, const char *fn, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	 pctx_dispose(pctx_t *pctx);
void	 pctx_collect_graves(void);
int	 pctx_wanted_opts(const pctx_t *pctx);

/* lwp.c */
struct lwp *lwp_by_tid(pid_t tid);
struct lwp *lwp_by_id(pctx_t *pctx, id_t lwpid);
struct lwp *lwp_at_or_after(pctx_t *pctx, id_t lwpid);
struct lwp *lwp_add(pctx_t *pctx, pid_t tid, unsigned flags);
struct lwp *lwp_add_orphan(pid_t tid, pid_t ppid);
void	 lwp_adopt(struct lwp *lwp, pctx_t *pctx, id_t lwpid);
void	 lwp_bury(struct lwp *lwp);
void	 lwp_orphan_to_detach(struct lwp *lwp);
void	 lwp_entomb(struct lwp *lwp);
void	 lwp_forget_all(pctx_t *pctx);
void	 lwp_collect_graves(void);

/* events.c */
void	 events_defaults(struct handlers *h);
int	 call_init_lwp(pctx_t *pctx, struct lwp *lwp);
int	 call_fini_lwp(pctx_t *pctx, struct lwp *lwp);
int	 call_fini_all(pctx_t *pctx);

/* dispatch.c */
void	 dispatch_status(pid_t tid, int status);
void	 restart(struct lwp *lwp);
void	 proc_exited(pctx_t *pctx, id_t lwpid, int status);

/* run.c */
void	 proc_fail(pctx_t *pctx);
void	 proc_finish(pctx_t *pctx);
int	 proc_activate(pctx_t *pctx, unsigned msec, unsigned nsamples,
	    pctx_tickfn_t *tick);

/* detach.c */
void	 detach_process(pctx_t *pctx);
void	 detach_orphans(pid_t ppid);
void	 detach_lwp_now(struct lwp *lwp);
bool	 detach_orphans_settled(void);
void	 settle_orphans(void);

/* tick.c */
int	 tick_start(pctx_t *pctx);
void	 tick_stop(pctx_t *pctx);
void	 tick_close(void);
void	 tick_fire(void);

/* procfs.c */
int	 procfs_ids(pid_t tid, pid_t *tgid, pid_t *ppid, pid_t *tracer_pid);
int	 procfs_stat(pid_t pid, char *state, unsigned long *flags);
#define PF_EXITING	0x00000004	/* task flags: exit has begun */
#define PF_KTHREAD	0x00200000	/* task flags: a kernel thread */
void	 procfs_psargs(pid_t pid, char *buf, size_t len);
bool	 have_cap_sys_ptrace(void);

#endif /* PCTX_IMPL_H */
