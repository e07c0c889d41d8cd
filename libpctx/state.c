/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The life of a traced process, in one place: every change of a pctx's
 * state is made here, and so is every request to stop following one.
 *
 *	IDLE --pctx_run (of it, or of the root it joined)--> ACTIVE --exit-->
 *	EXITED
 *	FORKING (in its parent's fork callback) --pctx_run--> ACTIVE
 *	IDLE, FORKING, ACTIVE --let go--> DETACHED
 *
 * Inside the loop a callback may ask for a process to be let go (a
 * failure, pctx_release); the request waits until the event at hand is
 * handled, and no other callback of the process is called meanwhile, so
 * that handlers never find the ground moved under them.
 */
#include <stdlib.h>
#include <unistd.h>

#include "pctx_impl.h"

/* Every change of state, counting the processes the loop follows. */
static void
set_state(pctx_t *pctx, enum proc_state state)
{
	if (pctx->state == PROC_ACTIVE)
		pctxlib_tracer.active--;
	if (state == PROC_ACTIVE)
		pctxlib_tracer.active++;
	pctx->state = state;
}

/* Traced by us: its threads stop for us. */
bool
pctxlib_proc_traced(const pctx_t *pctx)
{
	return pctx->state == PROC_ACTIVE || pctx->state == PROC_IDLE ||
	    pctx->state == PROC_FORKING;
}

void
pctxlib_proc_forking(pctx_t *pctx, pctx_t *parent)
{
	pctx->root = parent->root;
	pctx->created = parent->created;
	pctx->opts = parent->opts;
	set_state(pctx, PROC_FORKING);
}

void
pctxlib_proc_activate(
    pctx_t *pctx, unsigned msec, unsigned nsamples, pctx_tickfn_t *tick)
{
	pctx->msec = msec;
	pctx->remaining = msec != 0 ? nsamples : 0;
	pctx->tick = tick;
	pctx->missed = 0;
	set_state(pctx, PROC_ACTIVE);
	pctxlib_apply_opts(pctx);
}

/* The loop is over: a process left followed stays traced, held back. */
void
pctxlib_proc_idle(pctx_t *pctx)
{
	pctx->ticking = false;
	if (pctx->state == PROC_ACTIVE)
		set_state(pctx, PROC_IDLE);
}

/*
 * The last step of every pctx: its clients and its caller's data let go
 * of it, and it is freed, later if the event loop may still hold it.
 */
void
pctxlib_proc_dispose(pctx_t *pctx)
{
	void *data = pctx->data;
	int i;

	for (i = 0; i < MAX_CLIENTS && pctx->clients[i].ops != NULL; i++)
		if (pctx->clients[i].ops->gone != NULL)
			pctx->clients[i].ops->gone(pctx, pctx->clients[i].arg);
	pctx->data = NULL;
	if (data != NULL && pctx->free_data != NULL)
		pctx->free_data(data);
	/* Its /proc task directory, if a tick opened it (workers.c). */
	if (pctx->threads_fd >= 0)
		close(pctx->threads_fd);
	pctx->threads_fd = -1;
	if (pctx->pending != PENDING_NONE)
		LIST_REMOVE(pctx, pending_entry);
	pctx->pending = PENDING_NONE;
	TAILQ_REMOVE(&pctxlib_tracer.all, pctx, all_entry);
	pctx->released = true;
	if (pctxlib_tracer.looping)
		SLIST_INSERT_HEAD(
		    &pctxlib_tracer.pctx_graves, pctx, grave_entry);
	else
		free(pctx);
}

/* Let the process run on untraced; a forked child is freed. */
void
pctxlib_proc_detach(pctx_t *pctx)
{
	if (pctxlib_proc_traced(pctx)) {
		pctx->ticking = false;
		set_state(pctx, PROC_DETACHED);
		pctxlib_detach_threads(pctx);
	}
	if (pctx->root != pctx && !pctx->released)
		pctxlib_proc_dispose(pctx);
}

/* The last thread is gone. */
void
pctxlib_proc_exited(pctx_t *pctx)
{
	pctx->ticking = false;
	set_state(pctx, PROC_EXITED);
	pctxlib_lwp_forget_all(pctx);
	pctxlib_detach_orphans(pctx->pid);
	if (pctx->root != pctx)
		pctxlib_proc_dispose(pctx);
}

/*
 * pctx_release: let the process go and free the pctx. A top-level pctx
 * takes the forked children followed in its runs with it.
 */
static void
release_start(pctx_t *pctx)
{
	pctx->released = pctx->releasing = true;
	if (pctxlib_proc_traced(pctx)) {
		pctx->ticking = false;
		set_state(pctx, PROC_DETACHED);
		pctxlib_detach_start(pctx);
	}
}

/* A process detached before has no thread left to wait for. */
static void
release_finish(pctx_t *pctx, long long deadline)
{
	if (pctx->state == PROC_DETACHED)
		pctxlib_detach_finish(pctx, deadline);
	pctxlib_proc_dispose(pctx);
}

/*
 * Every process is set going before any is waited for: a vfork parent
 * stops only once its child, which may be held, has run on to its exec.
 */
void
pctxlib_proc_release_now(pctx_t *pctx)
{
	long long deadline = pctxlib_detach_deadline();
	pctx_t *p, *next;
	bool root = pctx->root == pctx;

	if (root)
		TAILQ_FOREACH (p, &pctxlib_tracer.all, all_entry)
			if (p->root == pctx && p != pctx && !p->released)
				release_start(p);
	release_start(pctx);
	pctxlib_detach_wait_releasing(deadline);
	if (root)
		TAILQ_FOREACH_SAFE (p, &pctxlib_tracer.all, all_entry, next)
			if (p->releasing && p != pctx)
				release_finish(p, deadline);
	release_finish(pctx, deadline);
}

static void
apply(pctx_t *pctx, enum proc_pending what)
{
	if (what == PENDING_RELEASE)
		pctxlib_proc_release_now(pctx);
	else
		pctxlib_proc_detach(pctx);
}

/*
 * A callback of the process failed. A joined process is one of the
 * processes the run was given: its failure is the run's.
 */
void
pctxlib_proc_failed(pctx_t *pctx)
{
	pctx->failed = true;
	if (pctx->joined)
		pctx->root->failed = true;
}

/* pctx_join: root's runs follow it too, and root's release lets it go. */
void
pctxlib_proc_join(pctx_t *pctx, pctx_t *root)
{
	pctx->root = root;
	pctx->joined = true;
}

/*
 * Ask for a process to be let go. In the loop this waits for the event at
 * hand to be handled; outside it, it is done now. The strongest request
 * wins; a failure is remembered whatever else is asked.
 */
void
pctxlib_proc_request(pctx_t *pctx, enum proc_pending what)
{
	if (what == PENDING_FAIL)
		pctxlib_proc_failed(pctx);
	if (!pctxlib_tracer.looping) {
		apply(pctx, what);
		return;
	}
	if (pctx->pending == PENDING_NONE)
		LIST_INSERT_HEAD(&pctxlib_tracer.pending, pctx, pending_entry);
	if (what > pctx->pending)
		pctx->pending = what;
}

/*
 * No tracee is left at all, and no report said so: whatever is still
 * followed vanished.
 */
void
pctxlib_proc_vanished(pctx_t *root)
{
	pctx_t *pctx, *next;

	TAILQ_FOREACH_SAFE (pctx, &pctxlib_tracer.all, all_entry, next)
		if (pctx->root == root && pctx->state == PROC_ACTIVE) {
			pctxlib_verbose(pctx, "run",
			    "%d: process "
			    "terminated\n",
			    pctx->pid);
			pctxlib_proc_request(pctx, PENDING_FAIL);
		}
}

/* What callbacks asked for during the last event. */
void
pctxlib_apply_pending(void)
{
	enum proc_pending what;
	pctx_t *pctx;

	while ((pctx = LIST_FIRST(&pctxlib_tracer.pending)) != NULL) {
		LIST_REMOVE(pctx, pending_entry);
		what = pctx->pending;
		pctx->pending = PENDING_NONE;
		apply(pctx, what);
	}
}
