/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the tracer does to one held thread: restart it as its stop
 * requires, or let it go.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

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
pctxlib_restart(struct lwp *lwp)
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

/*
 * The tracer learns of a stop before the thread's switch out of it: a
 * held thread may still be on its CPU. Counters bound then would count
 * that switch in some of their events and not in others (a group member
 * joins at the next switch in, its leader at once). Any ptrace request
 * waits until the thread is off its CPU; this one has no other effect.
 */
void
pctxlib_settle(const struct lwp *lwp)
{
	unsigned long msg;

	if (lwp->flags & LWP_HELD)
		(void)ptrace(PTRACE_GETEVENTMSG, lwp->tid, 0, &msg);
}

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4
#endif

/*
 * Whether the held LWP's signal-delivery-stop is a debug trap its process
 * asked to have dropped (pctx_drop_debug_traps): on x86 the kernel sends
 * TRAP_BRKPT for an INT1 or a debug exception no handler claimed, and
 * TRAP_HWBKPT for a ptrace breakpoint, which no tracer but this one could
 * have set. Elsewhere a BRK instruction sends TRAP_BRKPT, and would
 * trap again at once: nothing is dropped there.
 */
bool
pctxlib_is_debug_trap(const struct lwp *lwp)
{
#if defined(__x86_64__) || defined(__i386__)
	siginfo_t si;

	if (!lwp->proc->drop_debug_traps ||
	    WSTOPSIG(lwp->held_status) != SIGTRAP ||
	    ptrace(PTRACE_GETSIGINFO, lwp->tid, 0, &si) != 0)
		return false;
	return si.si_code == TRAP_BRKPT || si.si_code == TRAP_HWBKPT;
#else
	(void)lwp;
	return false;
#endif
}

/* The held LWP goes on without the signal it stopped to be given. */
void
pctxlib_drop_signal(struct lwp *lwp)
{
	lwp->held_status &= ~0xff00;
}

static int
pending_signal(const struct lwp *lwp)
{
	return ((unsigned)lwp->held_status >> 16) == 0 ?
	    WSTOPSIG(lwp->held_status) :
	    0;
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

	if ((child = pctxlib_lwp_by_tid(tid)) != NULL) {
		if (child->proc != NULL && child->proc != pctx)
			return; /* a child followed on its own */
		if (child->flags & LWP_DEAD)
			pctxlib_lwp_bury(child);
		else if (child->flags & LWP_HELD)
			pctxlib_detach_lwp_now(child);
		else if (pctxlib_tracer.looping || child->proc == NULL)
			pctxlib_lwp_orphan_to_detach(child);
		else
			child->flags |= LWP_DETACH;
		return;
	}
	if (pctxlib_tracer.looping || pctx == NULL)
		child = pctxlib_lwp_add_orphan(tid, 0);
	else
		child = pctxlib_lwp_add(pctx, tid, 0);
	if (child != NULL)
		child->flags = LWP_NEW | LWP_DETACH;
}

/* Detach a held thread, and the child of its creation event if any. */
void
pctxlib_detach_lwp_now(struct lwp *lwp)
{
	unsigned long msg;

	if (is_creation(lwp->held_status) &&
	    ptrace(PTRACE_GETEVENTMSG, lwp->tid, 0, &msg) == 0)
		let_new_child_go(lwp->proc, (pid_t)msg);
	(void)ptrace(PTRACE_DETACH, lwp->tid, 0, (long)pending_signal(lwp));
	lwp->flags &= ~LWP_HELD;
	pctxlib_lwp_bury(lwp);
}

/* A forked child that is not followed: detach it now, or at its first stop. */
void
pctxlib_let_child_go(struct lwp *child)
{
	if (child->flags & LWP_HELD)
		pctxlib_detach_lwp_now(child);
	else
		child->flags |= LWP_DETACH;
}

/* The ptrace options every thread of the process should have. */
int
pctxlib_wanted_opts(const pctx_t *pctx)
{
	return SEIZE_OPTS_BASE | (pctx->h.fork != NULL ? SEIZE_OPTS_FORK : 0) |
	    (pctx->created ? PTRACE_O_EXITKILL : 0);
}

/*
 * Options can change only while every thread is held or still to make its
 * first stop: a created command before its run, a forked child.
 */
void
pctxlib_apply_opts(pctx_t *pctx)
{
	int want = pctxlib_wanted_opts(pctx);
	struct lwp *lwp;
	id_t next;

	if (want == pctx->opts)
		return;
	for (next = 1; (lwp = pctxlib_lwp_at_or_after(pctx, next)) != NULL;
	     next = lwp->lwpid + 1)
		if (!(lwp->flags & (LWP_HELD | LWP_NEW)))
			return;
	for (next = 1; (lwp = pctxlib_lwp_at_or_after(pctx, next)) != NULL;
	     next = lwp->lwpid + 1) {
		if (lwp->flags & LWP_HELD)
			(void)ptrace(
			    PTRACE_SETOPTIONS, lwp->tid, 0, (long)want);
		else
			lwp->flags |= LWP_SETOPTS;
	}
	pctx->opts = want;
}
