/*
 * pctx_run: the event loop.
 *
 * The tracer thread blocks SIGCHLD, SIGINT, SIGTERM and SIGHUP, and waits
 * in epoll on a signalfd for them and on the run's timerfd. A wakeup with
 * SIGCHLD drains waitpid(-1, __WALL | WNOHANG), handling each report at
 * once (each waitpid makes the kernel look at every tracee, so it is not
 * called without cause), then the ticks that are due are served. Before
 * it blocks again, the loop calls the idle hook (pctx_set_idle). A forked
 * child that its fork callback follows (pctx_run called on it inside the
 * callback) joins the same loop, which returns when no followed process is left, or at once
 * after pctx_terminate or one of SIGINT, SIGTERM, SIGHUP.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pctx_impl.h"

#define MAX_DRAIN		4096	/* reports per wakeup: ticks get a turn */
#define SAFETY_TIMEOUT_MS	1000	/* a lost SIGCHLD costs latency, not a hang */

struct saved_signals {
	sigset_t		mask;
	struct sigaction	chld;
	bool			chld_changed;
};

/* A callback failed: stop following the process; the run returns -1. */
void
proc_fail(pctx_t *pctx)
{
	pctx->failed = true;
	proc_finish(pctx);
}

/* Stop following the process (it runs on). Forked children are freed. */
void
proc_finish(pctx_t *pctx)
{
	detach_process(pctx);
	if (pctx->root != pctx && !pctx->released)
		pctx_dispose(pctx);
}

/*
 * Options can change only while every thread is held or still to make its
 * first stop: a created command before its run, a forked child.
 */
static void
apply_opts(pctx_t *pctx)
{
	int want = pctx_wanted_opts(pctx);
	struct lwp *lwp;

	if (want == pctx->opts)
		return;
	RB_FOREACH(lwp, lwpid_tree, &pctx->lwps)
		if (!(lwp->flags & (LWP_HELD | LWP_NEW)))
			return;
	RB_FOREACH(lwp, lwpid_tree, &pctx->lwps) {
		if (lwp->flags & LWP_HELD)
			(void)ptrace(PTRACE_SETOPTIONS, lwp->tid, 0, (long)want);
		else
			lwp->flags |= LWP_SETOPTS;
	}
	pctx->opts = want;
}

/* init_lwp for every LWP, in order. */
static int
init_all(pctx_t *pctx)
{
	struct lwp *lwp;
	id_t next = 1;

	while ((lwp = lwp_at_or_after(pctx, next)) != NULL) {
		next = lwp->lwpid + 1;
		if (call_init_lwp(pctx, lwp) != 0 ||
		    pctx->state != PROC_ACTIVE)
			return -1;
	}
	return 0;
}

/* Make a traced process followed: callbacks fire, ticks run. */
int
proc_activate(pctx_t *pctx, unsigned msec, unsigned nsamples,
    pctx_tickfn_t *tick)
{
	pctx->msec = msec;
	pctx->remaining = msec != 0 ? nsamples : 0;
	pctx->tick = tick;
	pctx->missed = 0;
	pctx->state = PROC_ACTIVE;
	apply_opts(pctx);
	if (init_all(pctx) != 0)
		return -1;
	if (tick_start(pctx) != 0) {
		pctx_error(pctx, "run", "cannot start the timer: %s\n",
		    strerror(errno));
		return -1;
	}
	return 0;
}

static void
resume_held(pctx_t *pctx)
{
	struct lwp *lwp;
	id_t next = 1;

	while (pctx->state == PROC_ACTIVE &&
	    (lwp = lwp_at_or_after(pctx, next)) != NULL) {
		next = lwp->lwpid + 1;
		restart(lwp);
	}
}

static int
loop_open(pctx_t *root, struct saved_signals *saved)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct sigaction dfl;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, &saved->mask);
	/* Ignored or SA_NOCLDSTOP, SIGCHLD would not come for ptrace stops. */
	sigaction(SIGCHLD, NULL, &saved->chld);
	saved->chld_changed = saved->chld.sa_handler == SIG_IGN ||
	    (saved->chld.sa_flags & SA_NOCLDSTOP);
	if (saved->chld_changed) {
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &dfl, NULL);
	}
	tracer.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	tracer.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (tracer.sigfd < 0 || tracer.epfd < 0 ||
	    epoll_ctl(tracer.epfd, EPOLL_CTL_ADD, tracer.sigfd, &ev) != 0) {
		pctx_error(root, "run", "cannot wait for events: %s\n",
		    strerror(errno));
		return -1;
	}
	tracer.root = root;
	tracer.looping = true;
	return 0;
}

static void
loop_close(pctx_t *root, struct saved_signals *saved)
{
	pctx_t *pctx;

	/* Processes left followed (terminate) stay traced until released. */
	LIST_FOREACH(pctx, &tracer.all, all_entry)
		if (pctx->root == root && pctx->state == PROC_ACTIVE) {
			tick_stop(pctx);
			pctx->state = PROC_IDLE;
		}
	tracer.looping = false;
	tracer.root = NULL;
	settle_orphans();
	tick_close();
	if (tracer.sigfd >= 0)
		close(tracer.sigfd);
	if (tracer.epfd >= 0)
		close(tracer.epfd);
	tracer.sigfd = tracer.epfd = -1;
	if (saved->chld_changed)
		sigaction(SIGCHLD, &saved->chld, NULL);
	pthread_sigmask(SIG_SETMASK, &saved->mask, NULL);
}

/*
 * SIGINT, SIGTERM and SIGHUP end the run as pctx_terminate does. One read
 * takes every pending signal (standard signals do not queue up), so no
 * second read is spent to learn that none is left.
 */
static void
read_signals(pctx_t *root)
{
	struct signalfd_siginfo si[8];
	ssize_t n;
	size_t i;

	if ((n = read(tracer.sigfd, si, sizeof(si))) <= 0)
		return;
	for (i = 0; i < (size_t)n / sizeof(si[0]); i++) {
		if (si[i].ssi_signo == SIGCHLD)
			tracer.chld_pending = true;
		else
			root->terminate = true;
	}
}

/* No tracee is left at all: whatever is still followed vanished. */
static void
all_gone(pctx_t *root)
{
	pctx_t *pctx, *next;

	LIST_FOREACH_SAFE(pctx, &tracer.all, all_entry, next)
		if (pctx->root == root && pctx->state == PROC_ACTIVE) {
			pctx_verbose(pctx, "run", "%d: process terminated\n",
			    pctx->pid);
			pctx->failed = true;
			proc_finish(pctx);
		}
}

static void
drain_reports(pctx_t *root)
{
	int i, status;
	pid_t tid;

	tracer.chld_pending = false;
	tracer.drain_more = false;
	for (i = 0; i < MAX_DRAIN && !root->terminate; i++) {
		tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid == 0)
			return;
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				all_gone(root);
			return;
		}
		dispatch_status(tid, status);
	}
	/* Reports are left, and their SIGCHLD is spent: come back soon. */
	tracer.drain_more = i == MAX_DRAIN;
}

static bool
tree_followed(pctx_t *root)
{
	pctx_t *pctx;

	LIST_FOREACH(pctx, &tracer.all, all_entry)
		if (pctx->root == root && pctx->state == PROC_ACTIVE)
			return true;
	return false;
}

static void
loop(pctx_t *root)
{
	struct epoll_event evs[2];
	bool tick_due;
	int i, n;

	while (!root->terminate && tree_followed(root)) {
		lwp_collect_graves();
		if (!tracer.drain_more && tracer.idle != NULL)
			tracer.idle(tracer.idle_arg);
		n = epoll_wait(tracer.epfd, evs, 2,
		    tracer.drain_more ? 0 : SAFETY_TIMEOUT_MS);
		tick_due = false;
		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr == NULL)
				read_signals(root);
			else
				tick_due = true;
		}
		/* A timeout: a SIGCHLD may have been lost; look anyway. */
		if (tracer.chld_pending || tracer.drain_more || n == 0)
			drain_reports(root);
		if (tick_due && !root->terminate)
			tick_fire();
	}
}

void
pctx_set_idle(void (*idle)(void *arg), void *arg)
{
	tracer.idle = idle;
	tracer.idle_arg = arg;
}

/*
 * Take in what happened since the capture (threads born or dead), with no
 * callbacks yet, so that init_lwp is not called for threads long gone.
 */
static void
settle(pctx_t *root)
{
	drain_reports(root);
}

/*
 * Called on a pctx of pctx_create or pctx_capture, it runs the loop. Called
 * from a fork callback on the child's pctx, it adopts the child into the
 * running loop and returns 0 at once.
 */
int
pctx_run(pctx_t *pctx, unsigned int msec, unsigned int nsamples,
    int (*tick)(pctx_t *, pid_t, id_t, void *))
{
	struct saved_signals saved;
	int rc;

	if (pctx == NULL)
		return -1;
	if (tracer.looping) {
		if (pctx->state == PROC_FORKING &&
		    pctx->root == tracer.root) {
			if (proc_activate(pctx, msec, nsamples, tick) == 0)
				return 0;
			if (pctx->state == PROC_ACTIVE)
				proc_fail(pctx);
			return -1;
		}
		pctx_error(pctx, "run", "pid %d: a run is already in "
		    "progress\n", pctx->pid);
		return -1;
	}
	if (pctx->root != pctx || pctx->state != PROC_IDLE) {
		pctx_verbose(pctx, "run", "%d: process terminated\n",
		    pctx->pid);
		return -1;
	}
	pctx->failed = pctx->terminate = false;
	if (loop_open(pctx, &saved) != 0)
		rc = -1;
	else if (settle(pctx), proc_activate(pctx, msec, nsamples, tick) != 0) {
		/* Stays held and traced: a created command dies with us. */
		pctx_verbose(pctx, "run", "%d: lwp discovery failed\n",
		    pctx->pid);
		rc = -1;
	} else {
		resume_held(pctx);
		loop(pctx);
		rc = pctx->failed && !pctx->terminate ? -1 : 0;
	}
	loop_close(pctx, &saved);
	lwp_collect_graves();
	pctx_collect_graves();
	return rc;
}
