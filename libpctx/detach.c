/* SPDX-License-Identifier: BSD-2-Clause */
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

#define DETACH_PATIENCE_NS (3 * 1000000000LL)

/* Forked children still waiting for their parent's event: let them go. */
void
pctxlib_detach_orphans(pid_t ppid)
{
	struct lwp *lwp, *next;

	for (lwp = pctxlib_tid_first(); lwp != NULL; lwp = next) {
		next = pctxlib_tid_next(lwp);
		if (lwp->proc == NULL && lwp->ppid == ppid &&
		    (lwp->flags & LWP_HELD))
			pctxlib_detach_lwp_now(lwp);
	}
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
	    pctxlib_procfs_stat(lwp->tid, &state, &flags) == 0 && state == 'Z';
}

/* Start letting one thread go: now if held, else at its next stop. */
static void
start_detach(struct lwp *lwp)
{
	if (lwp->flags & LWP_HELD)
		pctxlib_detach_lwp_now(lwp);
	else if (lwp->flags & LWP_NEW) {
		if (pctxlib_tracer.looping)
			pctxlib_lwp_orphan_to_detach(lwp); /* the loop will */
		else
			lwp->flags |= LWP_DETACH;
	} else if (ptrace(PTRACE_INTERRUPT, lwp->tid, 0, 0) != 0 ||
	    is_zombie_leader(lwp))
		pctxlib_lwp_bury(lwp); /* only its death report is left */
	else
		lwp->flags |= LWP_DETACH;
}

/*
 * Whether the caller waits for this thread's end itself: the leader of a
 * process pctx_create made is the caller's child, and a wait here would
 * take its exit status from the caller.
 */
static bool
callers_to_reap(const struct lwp *lwp)
{
	return lwp->proc != NULL && lwp->proc->created &&
	    lwp->tid == lwp->proc->pid;
}

enum report { REPORT_NONE, REPORT_STOP, REPORT_END };

/*
 * What a thread has to report, looked at and left where it is: the end of
 * the caller's child is the caller's to reap, and a waitpid taken on the
 * chance of a stop would reap it.
 */
static enum report
peek_report(pid_t tid)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, (id_t)tid, &si,
		WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) != 0)
		return REPORT_END; /* no such child any more */
	if (si.si_pid != tid)
		return REPORT_NONE;
	return si.si_code == CLD_TRAPPED || si.si_code == CLD_STOPPED ?
	    REPORT_STOP :
	    REPORT_END;
}

/*
 * One non-blocking look at a thread being let go; true when it is done. A
 * stop seen is taken with waitpid: a thread stopped for its tracer ends
 * only by SIGKILL.
 */
static bool
poll_detach(struct lwp *lwp)
{
	int status;
	pid_t r;

	if (callers_to_reap(lwp)) {
		switch (peek_report(lwp->tid)) {
		case REPORT_NONE:
			return false;
		case REPORT_END:
			pctxlib_lwp_bury(lwp);
			return true;
		case REPORT_STOP:
			break;
		}
	}
	r = waitpid(lwp->tid, &status, __WALL | WNOHANG);
	if (r == 0)
		return false;
	if (r < 0 || !WIFSTOPPED(status)) {
		pctxlib_lwp_bury(lwp);
		return true;
	}
	lwp->held_status = status;
	lwp->flags |= LWP_HELD;
	pctxlib_detach_lwp_now(lwp);
	return true;
}

/*
 * Children let go before their first stop: the event loop detaches them
 * when they stop. Outside it, poll them here; true when none is left.
 */
static bool
orphans_settled(void)
{
	struct lwp *lwp, *next;
	bool settled = true;

	for (lwp = pctxlib_tid_first(); lwp != NULL; lwp = next) {
		next = pctxlib_tid_next(lwp);
		if (lwp->proc == NULL && (lwp->flags & LWP_DETACH) &&
		    !poll_detach(lwp))
			settled = false;
	}
	return settled;
}

static void
pause_growing(struct timespec *pause)
{
	nanosleep(pause, NULL);
	if (pause->tv_nsec < 10000000)
		pause->tv_nsec *= 2;
}

/* Outside the loop: wait, bounded, until every such child is let go. */
void
pctxlib_settle_orphans(void)
{
	long long deadline = pctxlib_now_ns() + DETACH_PATIENCE_NS;
	struct timespec pause = { 0, 50000 };

	while (!orphans_settled() && pctxlib_now_ns() < deadline)
		pause_growing(&pause);
}

/* Whether pctx still has threads marked LWP_DETACH (polling each once). */
static bool
threads_pending(pctx_t *pctx)
{
	struct lwp *lwp;
	bool pending = false;
	id_t next = 1;

	while ((lwp = pctxlib_lwp_at_or_after(pctx, next)) != NULL) {
		next = lwp->lwpid + 1;
		if ((lwp->flags & LWP_DETACH) && !poll_detach(lwp))
			pending = true;
	}
	return pending;
}

/* Outside the loop, children let go before their first stop too. */
static bool
orphans_pending(void)
{
	return !pctxlib_tracer.looping && !orphans_settled();
}

static bool
detach_pending(pctx_t *pctx)
{
	bool threads = threads_pending(pctx);

	return orphans_pending() || threads;
}

/* Wait, until deadline, for pctx's threads marked LWP_DETACH. */
static void
wait_detached(pctx_t *pctx, long long deadline)
{
	struct timespec pause = { 0, 50000 };
	struct lwp *lwp;

	while (detach_pending(pctx)) {
		if (pctxlib_now_ns() > deadline) {
			while (
			    (lwp = pctxlib_lwp_at_or_after(pctx, 1)) != NULL) {
				pctxlib_error(pctx, "run",
				    "%d: lwp %d won't "
				    "stop\n",
				    pctx->pid, lwp->tid);
				pctxlib_lwp_bury(lwp);
			}
			return;
		}
		pause_growing(&pause);
	}
}

void
pctxlib_detach_start(pctx_t *pctx)
{
	struct lwp *lwp;
	id_t next = 1;

	pctxlib_detach_orphans(pctx->pid);
	/* Walk by LWP id: letting one thread go may add or drop others. */
	while ((lwp = pctxlib_lwp_at_or_after(pctx, next)) != NULL) {
		next = lwp->lwpid + 1;
		if (!(lwp->flags & LWP_DETACH))
			start_detach(lwp);
	}
}

long long
pctxlib_detach_deadline(void)
{
	return pctxlib_now_ns() + DETACH_PATIENCE_NS;
}

/*
 * The processes of a release under way are waited for together: one may
 * wait for another (a vfork parent for its child) to be let go first.
 */
void
pctxlib_detach_wait_releasing(long long deadline)
{
	struct timespec pause = { 0, 50000 };
	bool pending;
	pctx_t *p;

	for (;;) {
		pending = orphans_pending();
		TAILQ_FOREACH (p, &pctxlib_tracer.all, all_entry)
			if (p->releasing && p->state == PROC_DETACHED &&
			    threads_pending(p))
				pending = true;
		if (!pending || pctxlib_now_ns() >= deadline)
			return;
		pause_growing(&pause);
	}
}

void
pctxlib_detach_finish(pctx_t *pctx, long long deadline)
{
	wait_detached(pctx, deadline);
	pctxlib_lwp_forget_all(pctx);
}

void
pctxlib_detach_threads(pctx_t *pctx)
{
	pctxlib_detach_start(pctx);
	pctxlib_detach_finish(pctx, pctxlib_detach_deadline());
}
