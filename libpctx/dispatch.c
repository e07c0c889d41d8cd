/*
 * The per-thread state machine: what each wait status means and what is
 * done about it.
 *
 * A creation has two halves, the creator's clone/fork/vfork event and the
 * new thread's first stop, reaped in either order. Whichever comes first
 * opens the LWP (init_lwp, lwp_create) or offers the child process to the
 * fork callback, while the new thread has not run a single instruction; the
 * other half only completes the record. A thread that dies before its
 * creator's event is seen stays as a tombstone until that event comes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pctx_impl.h"

static bool
is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	    sig == SIGTTOU;
}

/*
 * Restart a held thread as its stop requires: a signal-delivery-stop gets
 * its signal back unchanged, a group-stop stays a stop (PTRACE_LISTEN) so
 * that job control works, any other stop just continues. ESRCH means the
 * thread was killed; its death report follows.
 */
void
restart(struct lwp *lwp)
{
	int ev = (unsigned)lwp->held_status >> 16;
	int sig = WSTOPSIG(lwp->held_status);

	if (!(lwp->flags & LWP_HELD))
		return;
	lwp->flags &= ~LWP_HELD;
	if (ev == 0)
		(void)ptrace(PTRACE_CONT, lwp->tid, 0, (long)sig);
	else if (ev == PTRACE_EVENT_STOP && is_stop_signal(sig)) {
		if (ptrace(PTRACE_LISTEN, lwp->tid, 0, 0) == 0)
			lwp->flags |= LWP_LISTENING;
	} else
		(void)ptrace(PTRACE_CONT, lwp->tid, 0, 0);
}

static bool
traced(const pctx_t *pctx)
{
	return pctx->state == PROC_ACTIVE || pctx->state == PROC_IDLE ||
	    pctx->state == PROC_FORKING;
}

/* A new thread of pctx: open it for the callbacks at once. */
static struct lwp *
new_thread(pctx_t *pctx, pid_t tid, unsigned flags, int status)
{
	struct lwp *lwp;

	if ((lwp = lwp_add(pctx, tid, flags)) == NULL) {
		pctx_error(pctx, "run", "%d: cannot track lwp %d: out of "
		    "memory\n", pctx->pid, tid);
		return NULL;
	}
	lwp->held_status = status;
	if (pctx->state != PROC_ACTIVE)
		return lwp;
	if (call_init_lwp(pctx, lwp) != 0 || (pctx->state == PROC_ACTIVE &&
	    pctx->h.lwp_create(pctx, pctx->pid, lwp->lwpid, pctx->arg) != 0))
		if (pctx->state == PROC_ACTIVE)
			proc_fail(pctx);
	return lwp;
}

/* Not followed: detach a forked child now, or at its first stop. */
static void
let_child_go(struct lwp *child)
{
	if (child->flags & LWP_HELD)
		detach_lwp_now(child);
	else
		child->flags |= LWP_DETACH;
}

/*
 * A forked child of parent, created by thread by. It is offered to the fork
 * callback as its own pctx; it stays followed only if the callback runs
 * pctx_run on it (which adopts it into this loop), else it is let go.
 */
static void
fork_child(pctx_t *parent, struct lwp *by, struct lwp *child)
{
	pctx_t *pctx;

	if (parent->state != PROC_ACTIVE || !parent->h.fork_set) {
		let_child_go(child);
		return;
	}
	if ((pctx = pctx_alloc(child->tid, parent->arg, parent->verbose,
	    parent->errfn)) == NULL) {
		pctx_error(parent, "run", "cannot follow pid %d: out of "
		    "memory\n", child->tid);
		let_child_go(child);
		return;
	}
	pctx->root = parent->root;
	pctx->created = parent->created;
	pctx->opts = parent->opts;
	pctx->state = PROC_FORKING;
	lwp_adopt(child, pctx, pctx->next_lwpid++);
	child->flags |= LWP_ANNOUNCED;
	parent->h.fork(pctx, parent->pid, by->lwpid, pctx->pid, parent->arg);
	if (pctx->state == PROC_FORKING) {
		detach_process(pctx);
		pctx_dispose(pctx);
	} else if (pctx->state == PROC_ACTIVE)
		restart(child);
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
creation_event(struct lwp *lwp, int ev)
{
	pctx_t *pctx = lwp->proc;
	unsigned long msg;
	struct lwp *child;
	pid_t tid;

	if (ptrace(PTRACE_GETEVENTMSG, lwp->tid, 0, &msg) != 0) {
		restart(lwp);
		return;
	}
	tid = (pid_t)msg;
	if ((child = lwp_by_tid(tid)) != NULL) {
		if (child->flags & LWP_DEAD)
			lwp_bury(child);
		else if (child->proc == NULL && !(child->flags & LWP_DETACH))
			fork_child(pctx, lwp, child);
		else
			child->flags |= LWP_ANNOUNCED;
	} else if (ev == PTRACE_EVENT_CLONE && is_thread_of(pctx->pid, tid)) {
		/*
		 * The new thread cannot run before its first stop, so the
		 * creator goes on at once instead of waiting while the
		 * callbacks open the thread: on another CPU, it makes its
		 * next thread meanwhile.
		 */
		if (traced(pctx))
			restart(lwp);
		(void)new_thread(pctx, tid, LWP_NEW | LWP_ANNOUNCED, 0);
		return;
	} else if ((child = lwp_add_orphan(tid, pctx->pid)) != NULL) {
		child->flags = LWP_NEW | LWP_ANNOUNCED;
		fork_child(pctx, lwp, child);
	}
	if (traced(pctx))
		restart(lwp);
}

/*
 * The new thread's half came first: it is unknown. A thread is opened at
 * once. A new process waits, held, for its parent's fork event, which is
 * already on its way (the parent reports it before it returns from fork)
 * and names the forking thread.
 */
static struct lwp *
first_stop_unknown(pid_t tid, int status)
{
	struct lwp *leader, *lwp;
	pid_t tgid, ppid;

	if (procfs_ids(tid, &tgid, &ppid, NULL) != 0) {
		(void)ptrace(PTRACE_DETACH, tid, 0, 0);
		return NULL;
	}
	if (tgid != tid) {
		leader = lwp_by_tid(tgid);
		if (leader == NULL || leader->proc == NULL ||
		    !traced(leader->proc)) {
			(void)ptrace(PTRACE_DETACH, tid, 0, 0);
			return NULL;
		}
		return new_thread(leader->proc, tid, LWP_HELD, status);
	}
	if ((lwp = lwp_add_orphan(tid, ppid)) == NULL)
		(void)ptrace(PTRACE_DETACH, tid, 0, 0);
	else
		lwp->held_status = status;
	return lwp;
}

/* Warn when the new image is set-id and runs without its privileges. */
static void
check_setid_image(pctx_t *pctx)
{
	char path[64];
	struct stat st;

	/* A tracer with CAP_SYS_PTRACE lets a set-id image keep them. */
	if (have_cap_sys_ptrace())
		return;
	snprintf(path, sizeof(path), "/proc/%d/exe", pctx->pid);
	if (stat(path, &st) != 0 || !(st.st_mode & (S_ISUID | S_ISGID)))
		return;
	if ((!(st.st_mode & S_ISUID) || st.st_uid == geteuid()) &&
	    (!(st.st_mode & S_ISGID) || st.st_gid == getegid()))
		return;
	pctx_error(pctx, "run", "%d: set-id program runs without its "
	    "privileges while traced\n", pctx->pid);
}

/*
 * A successful exec, possibly by a non-leader thread, which now has the
 * pid as its tid. Solaris order: fini_lwp for every LWP, exec, then the
 * table restarts with LWP 1 and init_lwp(1).
 */
static void
exec_event(struct lwp *lwp)
{
	pctx_t *pctx = lwp->proc;
	int status = lwp->held_status, rc = 0;
	char cmd[81];

	if (pctx->state == PROC_ACTIVE) {
		if (call_fini_all(pctx) != 0)
			pctx->failed = true;
		if (pctx->state != PROC_ACTIVE)
			return;
		if (!pctx->h.exec_set) {
			proc_finish(pctx);
			return;
		}
		procfs_psargs(pctx->pid, cmd, sizeof(cmd));
		rc = pctx->h.exec(pctx, pctx->pid, 1, cmd, pctx->arg);
		if (pctx->state != PROC_ACTIVE)
			return;
	}
	lwp->flags &= ~LWP_HELD;
	lwp_forget_all(pctx);
	if ((lwp = lwp_add(pctx, pctx->pid, LWP_HELD | LWP_ANNOUNCED)) ==
	    NULL) {
		(void)ptrace(PTRACE_CONT, pctx->pid, 0, 0);
		proc_fail(pctx);
		return;
	}
	lwp->held_status = status;
	if (pctx->state == PROC_ACTIVE) {
		if (rc != 0) {
			proc_fail(pctx);
			return;
		}
		check_setid_image(pctx);
		if (call_init_lwp(pctx, lwp) != 0 &&
		    pctx->state == PROC_ACTIVE) {
			proc_fail(pctx);
			return;
		}
	}
	if (traced(pctx))
		restart(lwp);
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
static bool
own_thread_exit(int status)
{
	return status == 0;
}

static void
thread_died(struct lwp *lwp, int status)
{
	pctx_t *pctx = lwp->proc;

	lwp->flags &= ~(LWP_HELD | LWP_NEW | LWP_LISTENING);
	if (pctx == NULL || (lwp->flags & LWP_DETACH)) {
		lwp_bury(lwp);
		return;
	}
	if (lwp->tid == pctx->pid) {
		proc_exited(pctx, lwp->lwpid, status);
		return;
	}
	if (pctx->state == PROC_ACTIVE && (lwp->flags & LWP_INITED)) {
		(void)call_fini_lwp(pctx, lwp);
		if (pctx->state == PROC_ACTIVE &&
		    own_thread_exit(status))
			(void)pctx->h.lwp_exit(pctx, pctx->pid, lwp->lwpid,
			    pctx->arg);
		if (!traced(pctx))
			return;
	}
	if (lwp->flags & LWP_ANNOUNCED)
		lwp_bury(lwp);
	else
		lwp_entomb(lwp);
}

/*
 * The last thread is gone. Solaris order: fini_lwp for every LWP still
 * recorded, then exit with the exit() argument, or 128 + the signal for a
 * death by signal.
 */
void
proc_exited(pctx_t *pctx, id_t lwpid, int status)
{
	int code = WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);

	if (pctx->state == PROC_ACTIVE) {
		if (call_fini_all(pctx) != 0)
			pctx->failed = true;
		if (pctx->state == PROC_ACTIVE)
			pctx->h.exit(pctx, pctx->pid, lwpid, code, pctx->arg);
		if (WIFSIGNALED(status))
			pctx_verbose(pctx, "run", "%d: process terminated\n",
			    pctx->pid);
	}
	if (!traced(pctx))
		return;
	tick_stop(pctx);
	pctx->state = PROC_EXITED;
	lwp_forget_all(pctx);
	detach_orphans(pctx->pid);
	if (pctx->root != pctx)
		pctx_dispose(pctx);
}

static void
stop_event(struct lwp *lwp)
{
	switch ((unsigned)lwp->held_status >> 16) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		creation_event(lwp, (unsigned)lwp->held_status >> 16);
		break;
	case PTRACE_EVENT_EXEC:
		exec_event(lwp);
		break;
	default:
		/* Signals, group-stops, first stops, interrupts. */
		restart(lwp);
		break;
	}
}

void
dispatch_status(pid_t tid, int status)
{
	struct lwp *lwp = lwp_by_tid(tid);

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (lwp != NULL && !(lwp->flags & LWP_DEAD))
			thread_died(lwp, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	if (lwp != NULL && (lwp->flags & LWP_DEAD)) {
		/* The tid was reused: the tombstone's story is over. */
		lwp_bury(lwp);
		lwp = NULL;
	}
	if (lwp == NULL) {
		if ((lwp = first_stop_unknown(tid, status)) == NULL ||
		    !(lwp->flags & LWP_HELD) || lwp->proc == NULL)
			return;
	} else {
		lwp->flags = (lwp->flags | LWP_HELD) &
		    ~(LWP_NEW | LWP_LISTENING);
		lwp->held_status = status;
	}
	if (lwp->flags & LWP_DETACH) {
		detach_lwp_now(lwp);
		return;
	}
	if (lwp->proc == NULL)
		return;
	if (lwp->flags & LWP_SETOPTS) {
		lwp->flags &= ~LWP_SETOPTS;
		(void)ptrace(PTRACE_SETOPTIONS, tid, 0,
		    (long)lwp->proc->opts);
	}
	stop_event(lwp);
}
