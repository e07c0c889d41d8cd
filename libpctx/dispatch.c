/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dispatch_event: one handler per kind of event, and what each kind means
 * for the thread and its process.
 *
 * A creation has two halves, the creator's clone/fork/vfork event and the
 * new thread's first stop, reaped in either order. Whichever comes first
 * records the LWP or offers the child process to the fork callback, while
 * the new thread has not run a single instruction. The LWP is opened
 * (init_lwp, lwp_create) at its first stop, where it is held: at once if
 * that came first, or else when it comes (callbacks.c). A thread that dies
 * before its creator's event is seen stays as a tombstone until that event
 * comes.
 *
 * Handlers leave the thread of the event held; the loop restarts it after
 * applying what callbacks asked for (run.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pctx_impl.h"

/* A new thread of pctx: open it for the callbacks at once. */
static void
new_thread(pctx_t *pctx, pid_t tid, unsigned flags, int status)
{
	struct lwp *lwp;

	if ((lwp = pctxlib_lwp_add(pctx, tid, flags)) == NULL) {
		pctxlib_error(pctx, "run",
		    "%d: cannot track lwp %d: out of "
		    "memory\n",
		    pctx->pid, tid);
		return;
	}
	lwp->held_status = status;
	pctxlib_cb_init_lwp(pctx, lwp);
	pctxlib_cb_lwp_create(pctx, lwp);
}

/*
 * The child is followed only if the fork callback runs pctx_run on its
 * pctx, which adopts it into this loop; otherwise it is let go.
 */
static void
fork_adopt(pctx_t *parent, struct lwp *by, struct lwp *child)
{
	pctx_t *pctx;

	if ((pctx = pctxlib_alloc(child->tid, parent->arg, parent->verbose,
		 parent->errfn)) == NULL) {
		pctxlib_error(parent, "run",
		    "cannot follow pid %d: out of "
		    "memory\n",
		    child->tid);
		pctxlib_let_child_go(child);
		return;
	}
	pctxlib_proc_forking(pctx, parent);
	pctxlib_lwp_adopt(child, pctx, pctx->next_lwpid++);
	child->flags |= LWP_ANNOUNCED;
	pctxlib_cb_fork(parent, pctx, by->lwpid);
	if (pctx->state == PROC_FORKING)
		pctxlib_proc_detach(pctx);
	else if (pctx->state == PROC_ACTIVE)
		pctxlib_restart(child);
}

/* A forked child of parent, made by thread by: offer it. */
static void
fork_child(pctx_t *parent, struct lwp *by, struct lwp *child)
{
	if (!pctxlib_proc_live(parent) || parent->h.fork == NULL) {
		pctxlib_let_child_go(child);
		return;
	}
	if (parent->fork_model == PCTX_FORK_COPY &&
	    pctxlib_fork_copy(parent, by, child))
		return;
	fork_adopt(parent, by, child);
}

/*
 * Whether tid is a thread of process pid. Signal 0 is only looked up, not
 * sent, and tgkill finds tid only within pid (EPERM means it was found):
 * cheaper than a path lookup in /proc, once per clone.
 */
static bool
is_thread_of(pid_t pid, pid_t tid)
{
	return tgkill(pid, tid, 0) == 0 || errno == EPERM;
}

/* The creator's half: a clone, fork or vfork event. */
static void
on_creation(struct event *ev)
{
	struct lwp *lwp = ev->lwp, *child;
	pctx_t *pctx = lwp->proc;
	unsigned long msg;
	pid_t tid;

	if (ptrace(PTRACE_GETEVENTMSG, lwp->tid, 0, &msg) != 0)
		return;
	tid = (pid_t)msg;
	if ((child = pctxlib_lwp_by_tid(tid)) != NULL) {
		if (child->flags & LWP_DEAD)
			pctxlib_lwp_bury(child);
		else if (child->proc == NULL && !(child->flags & LWP_DETACH))
			fork_child(pctx, lwp, child);
		else
			child->flags |= LWP_ANNOUNCED;
	} else if ((unsigned)ev->status >> 16 == PTRACE_EVENT_CLONE &&
	    is_thread_of(pctx->pid, tid)) {
		/*
		 * The new thread is opened at its first stop, so the creator
		 * goes on at once: on another CPU, it makes its next thread
		 * meanwhile.
		 */
		pctxlib_restart(lwp);
		new_thread(pctx, tid, LWP_NEW | LWP_ANNOUNCED, 0);
	} else if ((child = pctxlib_lwp_add_orphan(tid, pctx->pid)) != NULL) {
		child->flags = LWP_NEW | LWP_ANNOUNCED;
		fork_child(pctx, lwp, child);
	}
}

/*
 * The new thread's half came first: it is unknown. A thread is opened at
 * once. A new process waits, held, for its parent's fork event, which is
 * already on its way (the parent reports it before it returns from fork)
 * and names the forking thread.
 */
static void
on_first_stop(struct event *ev)
{
	struct lwp *leader, *lwp;
	pid_t tgid, ppid;

	if (pctxlib_procfs_ids(ev->tid, &tgid, &ppid, NULL) != 0) {
		(void)ptrace(PTRACE_DETACH, ev->tid, 0, 0);
		return;
	}
	if (tgid != ev->tid) {
		leader = pctxlib_lwp_by_tid(tgid);
		if (leader == NULL || leader->proc == NULL ||
		    !pctxlib_proc_traced(leader->proc)) {
			(void)ptrace(PTRACE_DETACH, ev->tid, 0, 0);
			return;
		}
		new_thread(leader->proc, ev->tid, LWP_HELD, ev->status);
		ev->lwp = pctxlib_lwp_by_tid(ev->tid);
		return;
	}
	if ((lwp = pctxlib_lwp_add_orphan(ev->tid, ppid)) == NULL)
		(void)ptrace(PTRACE_DETACH, ev->tid, 0, 0);
	else
		lwp->held_status = ev->status;
}

/* Whether a set-id image would have had ids the tracer lacks. */
static bool
setid_beyond_tracer(const struct stat *st)
{
	return ((st->st_mode & S_ISUID) && st->st_uid != geteuid()) ||
	    ((st->st_mode & S_ISGID) && st->st_gid != getegid());
}

/*
 * Warn when the new image runs without the privileges it would have had
 * untraced: the kernel gave it neither its set-id ids nor its file
 * capabilities, as it was traced at its exec. Said whether or not the
 * exec is followed: the process is let go only after it.
 */
static void
check_setid_image(pctx_t *pctx)
{
	char path[64];
	struct stat st;

	/* A tracer with CAP_SYS_PTRACE lets the image keep them. */
	if (pctxlib_have_cap_sys_ptrace())
		return;
	snprintf(path, sizeof(path), "/proc/%d/exe", pctx->pid);
	if (stat(path, &st) != 0)
		return;
	if (setid_beyond_tracer(&st))
		pctxlib_error(pctx, "run",
		    "%d: set-id program runs without its "
		    "privileges while traced\n",
		    pctx->pid);
	else if (getxattr(path, "security.capability", NULL, 0) > 0)
		pctxlib_error(pctx, "run",
		    "%d: program with file capabilities runs "
		    "without them while traced\n",
		    pctx->pid);
}

/*
 * A successful exec, possibly by a non-leader thread, which now has the
 * pid as its tid. Solaris order: fini_lwp for every LWP, exec, then the
 * table restarts with LWP 1 and init_lwp(1). Without an exec handler the
 * process is let go.
 */
static void
on_exec(struct event *ev)
{
	pctx_t *pctx = ev->lwp->proc;
	struct lwp *leader;

	pctxlib_cb_fini_all(pctx);
	if (pctxlib_proc_live(pctx))
		check_setid_image(pctx);
	if (pctxlib_proc_live(pctx) && pctx->h.exec == NULL) {
		pctxlib_proc_request(pctx, PENDING_FINISH);
		return;
	}
	pctxlib_cb_exec(pctx);
	ev->lwp->flags &= ~LWP_HELD;
	pctxlib_lwp_forget_all(pctx);
	ev->lwp = leader =
	    pctxlib_lwp_add(pctx, pctx->pid, LWP_HELD | LWP_ANNOUNCED);
	if (leader == NULL) {
		(void)ptrace(PTRACE_CONT, pctx->pid, 0, 0);
		pctxlib_proc_request(pctx, PENDING_FAIL);
		return;
	}
	leader->held_status = ev->status;
	pctxlib_cb_init_lwp(pctx, leader);
}

/*
 * The last thread is gone. Solaris order: fini_lwp for every LWP still
 * recorded, then exit with the exit() argument, or 128 + the signal for a
 * death by signal.
 */
static void
process_died(pctx_t *pctx, id_t lwpid, int status)
{
	int code =
	    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	pctxlib_cb_fini_all(pctx);
	pctxlib_cb_exit(pctx, lwpid, code);
	if (WIFSIGNALED(status))
		pctxlib_verbose(pctx, "run",
		    "%d: process terminated: killed by SIG%s%s\n", pctx->pid,
		    sigabbrev_np(WTERMSIG(status)) != NULL ?
			sigabbrev_np(WTERMSIG(status)) :
			"?",
		    WCOREDUMP(status) ? " (core dumped)" : "");
	pctxlib_proc_exited(pctx);
}

/*
 * Linux reports every thread's death alike, whether it left alone or with
 * the process. A non-zero status is a process exit: exit_group or a fatal
 * signal kills the other threads with that status, and on Solaris they get
 * fini_lwp but no lwp_exit. Status 0 is taken as the thread's own exit;
 * a thread killed by exit(0) of another thread is reported so too (its
 * death cannot be told apart from pthread_exit, not even by the order of
 * reports: a thread joined just before exit dies alongside the leader).
 */
static void
on_died(struct event *ev)
{
	struct lwp *lwp = ev->lwp;
	pctx_t *pctx = lwp->proc;
	bool opened;

	lwp->flags &= ~(LWP_HELD | LWP_NEW | LWP_LISTENING);
	if (pctx == NULL || (lwp->flags & LWP_DETACH)) {
		pctxlib_lwp_bury(lwp);
		return;
	}
	if (lwp->tid == pctx->pid) {
		if (pctxlib_proc_traced(pctx))
			process_died(pctx, lwp->lwpid, ev->status);
		return;
	}
	/* One that died before its first stop was never opened. */
	opened = (lwp->flags & LWP_INITED) != 0;
	pctxlib_cb_fini_lwp(pctx, lwp);
	if (ev->status == 0 && opened)
		pctxlib_cb_lwp_exit(pctx, lwp);
	if (lwp->flags & LWP_ANNOUNCED)
		pctxlib_lwp_bury(lwp);
	else
		pctxlib_lwp_entomb(lwp);
}

/* A stop of a thread being let go. */
static void
on_detach_due(struct event *ev)
{
	pctxlib_detach_lwp_now(ev->lwp);
}

/*
 * Any other stop: new options are due at the first stop after a fork; a
 * stop signal on its way to the process is job control to keep in order.
 */
static void
on_stop(struct event *ev)
{
	struct lwp *lwp = ev->lwp;

	pctxlib_stop_signal_seen(lwp);
	if (lwp->flags & LWP_SETOPTS) {
		lwp->flags &= ~LWP_SETOPTS;
		(void)ptrace(
		    PTRACE_SETOPTIONS, lwp->tid, 0, (long)lwp->proc->opts);
	}
}

/* The first stop of an LWP whose opening waited for it (callbacks.c). */
static void
on_open(struct event *ev)
{
	struct lwp *lwp = ev->lwp;
	unsigned due = lwp->flags & (LWP_INIT_DUE | LWP_CREATE_DUE);

	lwp->flags &= ~due;
	on_stop(ev);
	if (due & LWP_INIT_DUE)
		pctxlib_cb_init_lwp(lwp->proc, lwp);
	if (due & LWP_CREATE_DUE)
		pctxlib_cb_lwp_create(lwp->proc, lwp);
}

void
pctxlib_dispatch_event(pctx_t *root, struct event *ev)
{
	switch (ev->kind) {
	case EVT_DIED:
		on_died(ev);
		break;
	case EVT_CREATION:
		on_stop(ev);
		on_creation(ev);
		break;
	case EVT_EXEC:
		on_stop(ev);
		on_exec(ev);
		break;
	case EVT_FIRST_STOP:
		on_first_stop(ev);
		break;
	case EVT_STOP:
		on_stop(ev);
		break;
	case EVT_OPEN:
		on_open(ev);
		break;
	case EVT_DETACH_DUE:
		on_detach_due(ev);
		break;
	case EVT_REQUEST:
		pctxlib_serve_request(ev->lwp, &ev->si);
		break;
	case EVT_DEBUG_TRAP:
		on_stop(ev);
		pctxlib_drop_signal(ev->lwp);
		break;
	case EVT_TICK:
		pctxlib_tick_serve();
		break;
	case EVT_TERMINATE:
		if (pctxlib_tracer.signal_hook == NULL ||
		    pctxlib_tracer.signal_hook(ev->signo, ev->sender_code,
			ev->sender_pid, pctxlib_tracer.signal_arg) != 0)
			root->terminate = true;
		break;
	case EVT_SUSPEND:
		pctxlib_suspend_request(ev->signo);
		break;
	case EVT_ALL_GONE:
		pctxlib_proc_vanished(root);
		break;
	case EVT_NONE:
	case EVT_END:
		break;
	}
}
