/*
 * Letting a process go: every thread is detached and runs on as if it had
 * never been traced.
 *
 * PTRACE_DETACH needs the thread in a ptrace-stop. Held threads are
 * detached at once; running (or LISTENing) ones get PTRACE_INTERRUPT and are
 * detached at whatever stop they report first, re-injecting the signal of
 * a signal-delivery-stop. A thread caught in a creation event has a new
 * child, auto-attached, to let go as well. The waits are per tid, so no
 * other process's reports are taken, and bounded: a vfork parent does not
 * stop until its child has exec'd or exited.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "pctx_impl.h"

#define DETACH_PATIENCE_NS	(3 * 1000000000LL)

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int
pending_signal(const struct lwp *lwp)
{
	return ((unsigned)lwp->held_status >> 16) == 0 ?
	    WSTOPSIG(lwp->held_status) : 0;
}

static bool
is_creation(int status)
{
	int ev = (unsigned)status >> 16;

	return ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK ||
	    ev == PTRACE_EVENT_VFORK;
}

/*
 * The child of a creation event met while letting its creator go: it is
 * auto-attached and must be let go too, at its first stop. The event loop
 * does that when it runs; otherwise the child joins pctx's waits.
 */
static void
let_new_child_go(pctx_t *pctx, pid_t tid)
{
	struct lwp *child;

	if ((child = lwp_by_tid(tid)) != NULL) {
		if (child->proc != NULL && child->proc != pctx)
			return;		/* a child followed on its own */
		if (child->flags & LWP_DEAD)
			lwp_bury(child);
		else if (child->flags & LWP_HELD)
			detach_lwp_now(child);
		else if (tracer.looping || child->proc == NULL)
			lwp_orphan_to_detach(child);
		else
			child->flags |= LWP_DETACH;
		return;
	}
	if (tracer.looping || pctx == NULL)
		child = lwp_add_orphan(tid, 0);
	else
		child = lwp_add(pctx, tid, 0);
	if (child != NULL)
		child->flags = LWP_NEW | LWP_DETACH;
}

/* Detach a held thread, and the child of its creation event if any. */
void
detach_lwp_now(struct lwp *lwp)
{
	unsigned long msg;

	if (is_creation(lwp->held_status) &&
	    ptrace(PTRACE_GETEVENTMSG, lwp->tid, 0, &msg) == 0)
		let_new_child_go(lwp->proc, (pid_t)msg);
	(void)ptrace(PTRACE_DETACH, lwp->tid, 0, (long)pending_signal(lwp));
	lwp->flags &= ~LWP_HELD;
	lwp_bury(lwp);
}

/* Forked children still waiting for their parent's event: let them go. */
void
detach_orphans(pid_t ppid)
{
	struct lwp *lwp, *next;

	RB_FOREACH_SAFE(lwp, tid_tree, &tracer.tids, next)
		if (lwp->proc == NULL && lwp->ppid == ppid &&
		    (lwp->flags & LWP_HELD))
			detach_lwp_now(lwp);
}

/*
 * A leader that left by itself (pthread_exit) is a zombie until the last
 * thread dies: it never stops, and cannot be detached.
 */
static bool
is_zombie_leader(const struct lwp *lwp)
{
	unsigned long flags;
	char state;

	return lwp->tid == lwp->proc->pid &&
	    procfs_stat(lwp->tid, &state, &flags) == 0 && state == 'Z';
}

/* Start letting one thread go: now if held, else at its next stop. */
static void
start_detach(struct lwp *lwp)
{
	if (lwp->flags & LWP_HELD)
		detach_lwp_now(lwp);
	else if (lwp->flags & LWP_NEW) {
		if (tracer.looping)
			lwp_orphan_to_detach(lwp);	/* the loop will */
		else
			lwp->flags |= LWP_DETACH;
	} else if (ptrace(PTRACE_INTERRUPT, lwp->tid, 0, 0) != 0 ||
	    is_zombie_leader(lwp))
		lwp_bury(lwp);	/* only its death report is left */
	else
		lwp->flags |= LWP_DETACH;
}

/* One non-blocking look at a thread being let go; true when it is done. */
static bool
poll_detach(struct lwp *lwp)
{
	int status;
	pid_t r;

	r = waitpid(lwp->tid, &status, __WALL | WNOHANG);
	if (r == 0)
		return false;
	if (r < 0 || !WIFSTOPPED(status)) {
		lwp_bury(lwp);
		return true;
	}
	lwp->held_status = status;
	lwp->flags |= LWP_HELD;
	detach_lwp_now(lwp);
	return true;
}

/*
 * Children let go before their first stop: the event loop detaches them
 * when they stop. Outside it, poll them here; true when none is left.
 */
bool
detach_orphans_settled(void)
{
	struct lwp *lwp, *next;
	bool settled = true;

	RB_FOREACH_SAFE(lwp, tid_tree, &tracer.tids, next)
		if (lwp->proc == NULL && (lwp->flags & LWP_DETACH) &&
		    !poll_detach(lwp))
			settled = false;
	return settled;
}

/* Outside the loop: wait, bounded, until every such child is let go. */
void
settle_orphans(void)
{
	long long deadline = now_ns() + DETACH_PATIENCE_NS;
	struct timespec pause = { 0, 50000 };

	while (!detach_orphans_settled() && now_ns() < deadline) {
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 10000000)
			pause.tv_nsec *= 2;
	}
}

/* Wait, bounded, for pctx's threads marked LWP_DETACH. */
static void
wait_detached(pctx_t *pctx)
{
	long long deadline = now_ns() + DETACH_PATIENCE_NS;
	struct timespec pause = { 0, 50000 };
	struct lwp *lwp;
	bool pending;
	id_t next;

	for (;;) {
		pending = false;
		next = 1;
		while ((lwp = lwp_at_or_after(pctx, next)) != NULL) {
			next = lwp->lwpid + 1;
			if ((lwp->flags & LWP_DETACH) && !poll_detach(lwp))
				pending = true;
		}
		if (!tracer.looping && !detach_orphans_settled())
			pending = true;
		if (!pending)
			return;
		if (now_ns() > deadline)
			break;
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 10000000)
			pause.tv_nsec *= 2;
	}
	while ((lwp = lwp_at_or_after(pctx, 1)) != NULL) {
		pctx_error(pctx, "run", "%d: lwp %d won't stop\n", pctx->pid,
		    lwp->tid);
		lwp_bury(lwp);
	}
}

void
detach_process(pctx_t *pctx)
{
	struct lwp *lwp;
	id_t next = 1;

	if (pctx->state != PROC_ACTIVE && pctx->state != PROC_IDLE &&
	    pctx->state != PROC_FORKING)
		return;
	tick_stop(pctx);
	pctx->state = PROC_DETACHED;
	detach_orphans(pctx->pid);
	/* Walk by LWP id: letting one thread go may add or drop others. */
	while ((lwp = lwp_at_or_after(pctx, next)) != NULL) {
		next = lwp->lwpid + 1;
		if (!(lwp->flags & LWP_DETACH))
			start_detach(lwp);
	}
	wait_detached(pctx);
	lwp_forget_all(pctx);
}
