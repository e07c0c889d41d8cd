/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The controller is told to stop (SIGTSTP, SIGTTIN, SIGTTOU, not ignored).
 *
 * A created command in the controller's process group is stopped by the
 * same signal (Ctrl-Z stops the whole job), and it must stop as it would
 * untraced: its stop signal waits in a signal-delivery-stop for the
 * tracer, and handlers (less, vim, top) do their work and stop themselves
 * in turn. So the controller stops only once each such command has
 * stopped in every thread, or shows no sign of a stop signal within
 * STOP_GRACE_MS (a stop signal still pending for it, or a thread in a
 * ptrace-stop the tracer has yet to collect, is such a sign), or
 * STOP_PATIENCE_MS have passed. A command, the controller's child, that
 * stops itself asks for the controller's stop in turn.
 *
 * A stopped tracer would hold up every tracee at its next ptrace-stop,
 * so first every captured process is let go, its records kept. The
 * controller then stops as the signal asks. When it continues, it takes
 * each process back: threads it knew get their LWP ids and data back
 * (their counters counted on meanwhile), threads born since are new LWPs,
 * threads that died since get fini_lwp and lwp_exit, and a process that
 * is gone gets its exit callback, with status -1 (unknown). Created
 * commands stay traced: they die with the controller if it dies.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pctx_impl.h"

#define STOP_GRACE_MS	 50
#define STOP_PATIENCE_MS 2000

static bool
is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	    sig == SIGTTOU;
}

#define SIGBIT(sig) (1ULL << ((sig)-1))
#define STOP_SIGNALS \
	(SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU))

/* Whether a signal of mask waits for the thread, or for its process. */
static bool
pending(pid_t pid, pid_t tid, unsigned long long signals)
{
	char path[64], line[128];
	unsigned long long mask;
	bool found = false;
	FILE *f;

	snprintf(
	    path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		if ((sscanf(line, "SigPnd: %llx", &mask) == 1 ||
			sscanf(line, "ShdPnd: %llx", &mask) == 1) &&
		    (mask & signals))
			found = true;
	fclose(f);
	return found;
}

/* Whether the process has a SIGCONT on its way: a stop before it is void. */
static bool
cont_pending(pid_t pid, pid_t tid)
{
	return pending(pid, tid, SIGBIT(SIGCONT));
}

/*
 * Whether a stop may be on its way to the process, which a busy machine
 * may hold up for a while: a stop signal sent (a Ctrl-Z reaches the whole
 * job at once) but not yet taken by one of its threads, or a thread in a
 * ptrace-stop that the tracer has not collected yet (its delivery-stop).
 */
static bool
stop_coming(pctx_t *pctx)
{
	unsigned long flags;
	struct lwp *lwp;
	char state;

	TAILQ_FOREACH (lwp, &pctx->order, order_entry) {
		if (pending(pctx->pid, lwp->tid, STOP_SIGNALS))
			return true;
		if (!(lwp->flags & (LWP_HELD | LWP_LISTENING)) &&
		    pctxlib_procfs_stat(lwp->tid, &state, &flags) == 0 &&
		    state == 't')
			return true;
	}
	return false;
}

/* Whether the signal at the thread's delivery-stop came from its process. */
static bool
sent_by_itself(const struct lwp *lwp)
{
	siginfo_t si;

	return ptrace(PTRACE_GETSIGINFO, lwp->tid, 0, &si) == 0 &&
	    si.si_code <= 0 && si.si_pid == lwp->proc->pid;
}

/*
 * A stop signal at its delivery. Untraced, SIGCONT sent after it would
 * have resumed the process: under ptrace the stop still waits here, and
 * would take effect after the SIGCONT, for good. Such a stop is dropped.
 */
void
pctxlib_stop_signal_seen(struct lwp *lwp)
{
	int status = lwp->held_status;

	if ((unsigned)status >> 16 != 0)
		return;
	if (WSTOPSIG(status) == SIGCONT)
		lwp->proc->stopping = lwp->proc->stopping_itself = false;
	if (!is_stop_signal(WSTOPSIG(status)))
		return;
	if (cont_pending(lwp->proc->pid, lwp->tid)) {
		lwp->held_status &= ~0xff00;
		return;
	}
	lwp->proc->stopping = true;
	lwp->proc->stopping_itself = sent_by_itself(lwp);
}

/* Every thread of a stopping process is in its group-stop. */
static bool
stopped(pctx_t *pctx)
{
	struct lwp *lwp;

	TAILQ_FOREACH (lwp, &pctx->order, order_entry)
		if (!(lwp->flags & LWP_LISTENING))
			return false;
	return true;
}

/* Whether the process is the controller's own child, as seen by its shell. */
static bool
our_child(const pctx_t *pctx)
{
	pid_t tgid, ppid;

	return pctxlib_procfs_ids(pctx->pid, &tgid, &ppid, NULL) == 0 &&
	    ppid == getpid();
}

/*
 * A command the controller started stopped itself, as a suspend command
 * does: untraced, its shell would have seen its child stop and taken the
 * terminal back. The shell's child is the controller now, so the
 * controller stops too, with the same signal; the shell's SIGCONT to the
 * job then continues both. A stop of the whole job asks for this anyway;
 * one sent to the command alone from outside leaves the run going on.
 */
void
pctxlib_stop_with_command(struct lwp *lwp)
{
	pctx_t *pctx = lwp->proc;

	if (pctxlib_tracer.suspend_signo != 0 ||
	    !(lwp->flags & LWP_LISTENING) || pctx == NULL || !pctx->created ||
	    !pctx->stopping_itself || !pctxlib_proc_live(pctx) ||
	    !stopped(pctx) || !our_child(pctx))
		return;
	pctxlib_suspend_request(WSTOPSIG(lwp->held_status));
}

void
pctxlib_suspend_request(int signo)
{
	if (pctxlib_tracer.suspend_signo != 0)
		return;
	pctxlib_tracer.suspend_signo = signo;
	pctxlib_tracer.suspend_since = pctxlib_now_ns();
}

/*
 * A SIGCONT came after the stop signal, while the controller waited for
 * its commands to stop: untraced, it would have stopped and gone on at
 * once. Stopping now would be for good.
 */
void
pctxlib_suspend_cancel(void)
{
	pctxlib_tracer.suspend_signo = 0;
}

/* Whether the created commands that the stop reached have stopped. */
static bool
commands_stopped(pctx_t *root, long long waited_ms)
{
	pctx_t *pctx;

	TAILQ_FOREACH (pctx, &pctxlib_tracer.all, all_entry) {
		if (pctx->root != root || !pctx->created ||
		    !pctxlib_proc_live(pctx))
			continue;
		if (pctx->stopping ?
			!stopped(pctx) :
			waited_ms < STOP_GRACE_MS || stop_coming(pctx))
			return false;
	}
	return true;
}

/* Let go of a process's threads, keeping their records. */
static void
loosen(pctx_t *pctx)
{
	pctx->loosening = true;
	pctxlib_detach_threads(pctx);
}

/*
 * Stop as the signal would have stopped us, until SIGCONT. A SIGCONT
 * pending here came after the stop signal (the kernel drops one of them
 * when the other comes), while the processes were let go: untraced, the
 * stop would be over already.
 */
static void
stop_self(int signo)
{
	sigset_t one, waiting;

	if (sigpending(&waiting) == 0 && sigismember(&waiting, SIGCONT))
		return;
	sigemptyset(&one);
	sigaddset(&one, signo);
	(void)raise(signo);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	pthread_sigmask(SIG_BLOCK, &one, NULL);
}

static struct lwp *
take_loose(pctx_t *pctx, pid_t tid)
{
	struct lwp *lwp, *prev = NULL;

	SLIST_FOREACH (lwp, &pctx->loose, grave_entry) {
		if (lwp->tid == tid) {
			if (prev == NULL)
				SLIST_REMOVE_HEAD(&pctx->loose, grave_entry);
			else
				SLIST_REMOVE_AFTER(prev, grave_entry);
			return lwp;
		}
		prev = lwp;
	}
	return NULL;
}

/* Seize one thread: a known one back in place, a new one as a new LWP. */
static void
retake_thread(pctx_t *pctx, pid_t tid)
{
	struct lwp *lwp;

	if (pctxlib_lwp_by_tid(tid) != NULL ||
	    ptrace(PTRACE_SEIZE, tid, 0, (long)pctx->opts) != 0)
		return;
	if ((lwp = take_loose(pctx, tid)) != NULL) {
		pctxlib_lwp_retake(lwp, pctx);
		return;
	}
	if ((lwp = pctxlib_lwp_add(pctx, tid, LWP_ANNOUNCED)) == NULL) {
		(void)ptrace(PTRACE_DETACH, tid, 0, 0);
		return;
	}
	pctxlib_cb_init_lwp(pctx, lwp);
	pctxlib_cb_lwp_create(pctx, lwp);
}

/* One pass over /proc/PID/task; the number of threads seen, or -1. */
static int
retake_pass(pctx_t *pctx)
{
	char path[64];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pctx->pid);
	if ((dir = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		retake_thread(pctx, (pid_t)atoi(de->d_name));
		n++;
	}
	closedir(dir);
	return n;
}

/* Threads that did not come back died meanwhile. */
static void
bury_loose(pctx_t *pctx)
{
	struct lwp *lwp;

	while ((lwp = SLIST_FIRST(&pctx->loose)) != NULL) {
		SLIST_REMOVE_HEAD(&pctx->loose, grave_entry);
		pctxlib_cb_fini_lwp(pctx, lwp);
		pctxlib_cb_lwp_exit(pctx, lwp);
		pctxlib_lwp_free_data(lwp);
		free(lwp);
	}
}

static void
retake(pctx_t *pctx)
{
	unsigned long flags;
	char state;
	int quiet;

	pctx->loosening = false;
	if (pctxlib_procfs_stat(pctx->pid, &state, &flags) == 0 &&
	    state != 'Z' && state != 'X') {
		/* Two quiet passes: a readdir racing new threads can skip. */
		for (quiet = 0; quiet < 2 && retake_pass(pctx) >= 0; quiet++)
			;
	}
	bury_loose(pctx);
	if (RB_EMPTY(&pctx->lwps)) {
		pctxlib_cb_exit(pctx, 1, -1);
		pctxlib_proc_exited(pctx);
	}
}

static void
suspend(pctx_t *root, int signo)
{
	pctx_t *pctx, *next;

	/* Outside the loop's ways: every detach waits for its thread. */
	pctxlib_tracer.looping = false;
	TAILQ_FOREACH (pctx, &pctxlib_tracer.all, all_entry)
		if (pctx->root == root && pctxlib_proc_live(pctx) &&
		    !pctx->created)
			loosen(pctx);
	stop_self(signo);
	pctxlib_tracer.looping = true;
	TAILQ_FOREACH_SAFE (pctx, &pctxlib_tracer.all, all_entry, next)
		if (pctx->root == root && pctxlib_proc_live(pctx) &&
		    !pctx->created)
			retake(pctx);
}

/* After each event: stop the controller once the commands have stopped. */
void
pctxlib_suspend_if_ready(pctx_t *root)
{
	long long waited_ms;
	int signo = pctxlib_tracer.suspend_signo;
	pctx_t *pctx;

	if (signo == 0)
		return;
	waited_ms = (pctxlib_now_ns() - pctxlib_tracer.suspend_since) / 1000000;
	if (waited_ms < STOP_PATIENCE_MS && !commands_stopped(root, waited_ms))
		return;
	pctxlib_tracer.suspend_signo = 0;
	TAILQ_FOREACH (pctx, &pctxlib_tracer.all, all_entry)
		pctx->stopping = pctx->stopping_itself = false;
	suspend(root, signo);
}
