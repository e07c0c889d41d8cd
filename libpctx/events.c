/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * next_event: the one place where the tracer waits, and where what it
 * gets (a wait status, a signal of its own, a tick) becomes an event of
 * one kind for dispatch.c.
 *
 * Wait reports are taken one by one with waitpid(-1, __WALL | WNOHANG)
 * after a SIGCHLD, since each waitpid makes the kernel look at every
 * tracee; after MAX_DRAIN of them the signals and the timer get a turn.
 * Before it blocks, the tracer calls the idle hook (pctx_set_idle).
 */
#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pctx_impl.h"

#define MAX_DRAIN	  4096 /* reports in a row: ticks get a turn */
#define SAFETY_TIMEOUT_MS 1000 /* a lost SIGCHLD costs latency, not a hang */

/* What a stop of a known thread means; it is held from now on. */
static enum event_kind
stop_kind(struct event *ev)
{
	struct lwp *lwp = ev->lwp;

	lwp->flags = (lwp->flags | LWP_HELD) & ~(LWP_NEW | LWP_LISTENING);
	lwp->held_status = ev->status;
	if (lwp->flags & LWP_DETACH)
		return EVT_DETACH_DUE;
	if (lwp->proc == NULL)
		return EVT_NONE; /* a forked child awaiting its parent */
	if (lwp->flags & (LWP_INIT_DUE | LWP_CREATE_DUE))
		return EVT_OPEN;
	switch ((unsigned)ev->status >> 16) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		return EVT_CREATION;
	case PTRACE_EVENT_EXEC:
		return EVT_EXEC;
	case 0:
		if (pctxlib_is_request(lwp, &ev->si))
			return EVT_REQUEST;
		return pctxlib_is_debug_trap(lwp) ? EVT_DEBUG_TRAP : EVT_STOP;
	default:
		return EVT_STOP;
	}
}

/* Decode a wait status once. */
static void
decode(pid_t tid, int status, struct event *ev)
{
	ev->tid = tid;
	ev->status = status;
	ev->lwp = pctxlib_lwp_by_tid(tid);
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		ev->kind = ev->lwp != NULL && !(ev->lwp->flags & LWP_DEAD) ?
		    EVT_DIED :
		    EVT_NONE;
		return;
	}
	if (!WIFSTOPPED(status)) {
		ev->kind = EVT_NONE;
		return;
	}
	if (ev->lwp != NULL && (ev->lwp->flags & LWP_DEAD)) {
		/* The tid was reused: the tombstone's story is over. */
		pctxlib_lwp_bury(ev->lwp);
		ev->lwp = NULL;
	}
	ev->kind = ev->lwp == NULL ? EVT_FIRST_STOP : stop_kind(ev);
}

/*
 * One read takes every pending signal (standard signals do not queue up),
 * so no second read is spent to learn that none is left. SIGCHLD only
 * says that reports are waiting.
 */
static bool
read_signals(struct event *ev)
{
	struct signalfd_siginfo si[8];
	bool got = false;
	ssize_t n;
	size_t i;

	if ((n = read(pctxlib_tracer.sigfd, si, sizeof(si))) <= 0)
		return false;
	for (i = 0; i < (size_t)n / sizeof(si[0]); i++) {
		switch (si[i].ssi_signo) {
		case SIGCHLD:
			pctxlib_tracer.chld_pending = true;
			break;
		case SIGCONT:
			/*
			 * The kernel drops a pending stop signal when SIGCONT
			 * comes, and the other way round, so a stop read
			 * earlier and not yet done came before this one.
			 */
			pctxlib_suspend_cancel();
			break;
		case SIGINT:
		case SIGTERM:
		case SIGHUP:
		case SIGQUIT:
			ev->kind = EVT_TERMINATE;
			ev->signo = (int)si[i].ssi_signo;
			ev->sender_code = si[i].ssi_code;
			ev->sender_pid = (pid_t)si[i].ssi_pid;
			got = true;
			break;
		default:
			if (!got) {
				ev->kind = EVT_SUSPEND;
				ev->signo = (int)si[i].ssi_signo;
				got = true;
			}
			break;
		}
	}
	return got;
}

/* Wait for a signal or a tick; timeout_ms 0 only looks. */
static bool
wait_for_more(struct event *ev, int timeout_ms)
{
	struct epoll_event evs[2];
	int i, n;

	n = epoll_wait(pctxlib_tracer.epfd, evs, 2, timeout_ms);
	if (n == 0 && timeout_ms != 0)
		pctxlib_tracer.chld_pending = true; /* a SIGCHLD was lost? */
	for (i = 0; i < n; i++) {
		if (evs[i].data.ptr == NULL) {
			if (read_signals(ev))
				return true;
		} else {
			ev->kind = EVT_TICK; /* the timerfd is readable */
			return true;
		}
	}
	return false;
}

/*
 * Take one wait report; false when none is left. ECHILD with processes
 * still followed means they vanished without a report: say so.
 */
bool
pctxlib_take_report(struct event *ev)
{
	int status;
	pid_t tid;

	for (;;) {
		tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid > 0) {
			decode(tid, status, ev);
			return true;
		}
		if (tid < 0 && errno == EINTR)
			continue;
		pctxlib_tracer.chld_pending = false;
		if (tid < 0 && errno == ECHILD && pctxlib_tracer.active > 0) {
			ev->kind = EVT_ALL_GONE;
			return true;
		}
		return false;
	}
}

/*
 * The next thing to handle. Every wait report of a traced thread becomes
 * an event, even one of no interest (EVT_NONE), so that the loop looks
 * again whether its processes are still followed.
 */
void
pctxlib_next_event(pctx_t *root, struct event *ev)
{
	struct tracer *t = &pctxlib_tracer;
	static unsigned drained;

	ev->kind = EVT_NONE;
	ev->lwp = NULL;
	if (!SLIST_EMPTY(&t->lwp_graves) || !SLIST_EMPTY(&t->pctx_graves))
		pctxlib_collect_graves();
	for (;;) {
		if (root->terminate) {
			ev->kind = EVT_END;
			return;
		}
		if (t->chld_pending) {
			if (drained++ < MAX_DRAIN) {
				if (pctxlib_take_report(ev))
					return;
				continue;
			}
			drained = 0;
			if (wait_for_more(ev, 0))
				return;
			continue;
		}
		drained = 0;
		if (t->idle != NULL)
			t->idle(t->idle_arg);
		if (!LIST_EMPTY(&t->pending))
			pctxlib_apply_pending();
		if (t->active == 0) {
			ev->kind = EVT_END;
			return;
		}
		/* While a stop is due, look often whether it may stop now. */
		if (!root->terminate &&
		    wait_for_more(ev,
			t->suspend_signo != 0 ? PCTX_STOP_POLL_MS :
						SAFETY_TIMEOUT_MS))
			return;
		if (t->suspend_signo != 0)
			return; /* EVT_NONE: time to look again */
	}
}
