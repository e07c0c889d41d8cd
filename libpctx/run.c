/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pctx_run: the event loop, dispatch_event(next_event()).
 *
 * While it runs the tracer thread blocks SIGCHLD and SIGCONT, and those
 * of SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN and SIGTTOU that
 * are not ignored, and reads them from a signalfd (events.c); ignored
 * ones stay ignored. (A blocked SIGCONT still continues the process: the
 * loop reads it only to learn that a stop asked for is void.)
 * After each event the loop applies what callbacks asked for (state.c)
 * and restarts the thread of the event if it is still held.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "pctx_impl.h"

static const int ending_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static const int stopping_signals[] = { SIGTSTP, SIGTTIN, SIGTTOU };

static bool
ignored(int sig)
{
	struct sigaction sa;

	return sigaction(sig, NULL, &sa) == 0 && !(sa.sa_flags & SA_SIGINFO) &&
	    sa.sa_handler == SIG_IGN;
}

/* The signals the loop reads from its signalfd. */
static void
loop_signals(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGCONT);
	for (i = 0; i < sizeof(ending_signals) / sizeof(int); i++)
		if (!ignored(ending_signals[i]))
			sigaddset(set, ending_signals[i]);
	for (i = 0; i < sizeof(stopping_signals) / sizeof(int); i++)
		if (!ignored(stopping_signals[i]))
			sigaddset(set, stopping_signals[i]);
}

/* Ignored or SA_NOCLDSTOP, SIGCHLD would not come for ptrace stops. */
static void
take_sigchld(struct sigaction *saved, bool *changed)
{
	struct sigaction dfl;

	sigaction(SIGCHLD, NULL, saved);
	*changed =
	    saved->sa_handler == SIG_IGN || (saved->sa_flags & SA_NOCLDSTOP);
	if (*changed) {
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &dfl, NULL);
	}
}

struct saved_signals {
	struct sigaction chld;
	bool chld_changed;
};

static int
loop_open(pctx_t *root, struct saved_signals *saved)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct tracer *t = &pctxlib_tracer;
	sigset_t set;

	loop_signals(&set);
	pthread_sigmask(SIG_BLOCK, &set, &t->caller_mask);
	take_sigchld(&saved->chld, &saved->chld_changed);
	t->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->sigfd < 0 || t->epfd < 0 ||
	    epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->sigfd, &ev) != 0) {
		pctxlib_error(root, "run", "cannot wait for events: %s\n",
		    strerror(errno));
		return -1;
	}
	t->beacon = pctxlib_beacon_open();
	t->spare = pctxlib_procfs_spare();
	t->root = root;
	t->looping = true;
	return 0;
}

static void
loop_close(pctx_t *root, struct saved_signals *saved)
{
	struct tracer *t = &pctxlib_tracer;
	pctx_t *pctx;

	/* Processes left followed (terminate) stay traced until released. */
	pctxlib_apply_pending();
	TAILQ_FOREACH (pctx, &t->all, all_entry)
		if (pctx->root == root)
			pctxlib_proc_idle(pctx);
	t->looping = false;
	t->root = NULL;
	pctxlib_settle_orphans();
	pctxlib_tick_close();
	if (t->beacon >= 0)
		close(t->beacon);
	if (t->spare >= 0)
		close(t->spare);
	if (t->sigfd >= 0)
		close(t->sigfd);
	if (t->epfd >= 0)
		close(t->epfd);
	t->beacon = t->spare = t->sigfd = t->epfd = -1;
	if (saved->chld_changed)
		sigaction(SIGCHLD, &saved->chld, NULL);
	pthread_sigmask(SIG_SETMASK, &t->caller_mask, NULL);
	pctxlib_collect_graves();
}

/* After an event: the thread it left held goes on, if still ours. */
static void
resume(struct lwp *lwp)
{
	if ((lwp->flags & LWP_HELD) && lwp->proc != NULL &&
	    pctxlib_proc_traced(lwp->proc))
		pctxlib_restart(lwp);
}

static void
loop(pctx_t *root)
{
	struct event ev;

	for (;;) {
		pctxlib_next_event(root, &ev);
		if (ev.kind == EVT_END)
			return;
		pctxlib_dispatch_event(root, &ev);
		/* Most events ask for nothing more: no call is made then. */
		if (!LIST_EMPTY(&pctxlib_tracer.pending))
			pctxlib_apply_pending();
		if (ev.lwp != NULL) {
			resume(ev.lwp);
			pctxlib_stop_with_command(ev.lwp);
		}
		if (pctxlib_tracer.suspend_signo != 0)
			pctxlib_suspend_if_ready(root);
	}
}

/* Every held thread of the process goes on. */
static void
resume_held(pctx_t *pctx)
{
	struct lwp *lwp;
	id_t next = 1;

	while (pctxlib_proc_traced(pctx) &&
	    (lwp = pctxlib_lwp_at_or_after(pctx, next)) != NULL) {
		next = lwp->lwpid + 1;
		pctxlib_restart(lwp);
	}
}

/*
 * Make a traced process followed: init_lwp for every LWP, ticks. A
 * failure leaves it held and traced, not followed.
 */
static int
follow(pctx_t *pctx, unsigned msec, unsigned nsamples, pctx_tickfn_t *tick)
{
	pctxlib_proc_activate(pctx, msec, nsamples, tick);
	pctxlib_cb_init_all(pctx);
	if (pctx->pending != PENDING_NONE) {
		pctx->failed = pctx->pending == PENDING_FAIL;
		return -1;
	}
	if (pctxlib_tick_start(pctx) != 0) {
		pctxlib_error(pctx, "run", "cannot start the timer: %s\n",
		    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The run's own processes: root, then those joined to it (pctx_join),
 * all followed or none. A failure leaves every one held and traced, what
 * the callbacks asked for undone: the caller lets them go.
 */
static int
follow_all(pctx_t *root, unsigned msec, unsigned nsamples, pctx_tickfn_t *tick)
{
	pctx_t *pctx, *next;
	int rc = follow(root, msec, nsamples, tick);

	TAILQ_FOREACH_SAFE (pctx, &pctxlib_tracer.all, all_entry, next)
		if (rc == 0 && pctx->joined && pctx->root == root &&
		    pctx->state == PROC_IDLE)
			rc = follow(pctx, msec, nsamples, tick);
	if (rc == 0)
		return 0;
	while ((pctx = LIST_FIRST(&pctxlib_tracer.pending)) != NULL) {
		LIST_REMOVE(pctx, pending_entry);
		pctx->pending = PENDING_NONE;
	}
	return -1;
}

/* Every held thread of the run's own processes goes on. */
static void
resume_all(pctx_t *root)
{
	pctx_t *pctx;

	TAILQ_FOREACH (pctx, &pctxlib_tracer.all, all_entry)
		if (pctx->root == root && (pctx == root || pctx->joined))
			resume_held(pctx);
}

/* Called from a fork callback (PCTX_FORK_ADOPT): join the running loop. */
static int
adopt(pctx_t *pctx, unsigned msec, unsigned nsamples, pctx_tickfn_t *tick)
{
	if (pctx->state != PROC_FORKING || pctx->root != pctxlib_tracer.root) {
		pctxlib_error(pctx, "run",
		    "pid %d: a run is already in "
		    "progress\n",
		    pctx->pid);
		return -1;
	}
	if (follow(pctx, msec, nsamples, tick) == 0)
		return 0;
	pctxlib_proc_request(pctx, PENDING_FAIL);
	return -1;
}

/*
 * Take in what happened since the capture (threads born or dead), with no
 * callbacks yet, so that init_lwp is not called for threads long gone.
 */
static void
settle(pctx_t *root)
{
	struct event ev;

	ev.lwp = NULL;
	while (pctxlib_take_report(&ev)) {
		pctxlib_dispatch_event(root, &ev);
		pctxlib_apply_pending();
		if (ev.lwp != NULL)
			resume(ev.lwp);
		ev.lwp = NULL;
	}
}

int
pctx_run(pctx_t *pctx, unsigned int msec, unsigned int nsamples,
    int (*tick)(pctx_t *, pid_t, id_t, void *))
{
	struct saved_signals saved;
	int rc = -1;

	if (pctx == NULL)
		return -1;
	if (pctxlib_tracer.looping)
		return adopt(pctx, msec, nsamples, tick);
	if (pctx->root != pctx || pctx->state != PROC_IDLE) {
		pctxlib_verbose(
		    pctx, "run", "%d: process terminated\n", pctx->pid);
		return -1;
	}
	pctx->failed = pctx->terminate = false;
	if (loop_open(pctx, &saved) == 0) {
		settle(pctx);
		/* Stays held and traced: a created command dies with us. */
		if (follow_all(pctx, msec, nsamples, tick) != 0) {
			pctxlib_verbose(pctx, "run",
			    "%d: lwp discovery "
			    "failed\n",
			    pctx->pid);
		} else {
			resume_all(pctx);
			loop(pctx);
			rc = pctx->failed && !pctx->terminate ? -1 : 0;
		}
	}
	loop_close(pctx, &saved);
	return rc;
}
