/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The pctx object: allocation, accessors, the caller's data and clients,
 * release and terminate.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "pctx_impl.h"

pctx_t *
pctxlib_alloc(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn)
{
	pctx_t *pctx;

	if ((pctx = calloc(1, sizeof(*pctx))) == NULL)
		return NULL;
	pctx->pid = pid;
	pctx->root = pctx;
	pctx->state = PROC_IDLE;
	RB_INIT(&pctx->lwps);
	TAILQ_INIT(&pctx->order);
	pctx->next_lwpid = 1;
	pctx->threads_fd = -1;
	pctxlib_events_defaults(&pctx->h);
	pctx->arg = arg;
	pctx->verbose = verbose;
	pctx->errfn = errfn != NULL ? errfn : pctxlib_default_errfn();
	TAILQ_INSERT_TAIL(&pctxlib_tracer.all, pctx, all_entry);
	return pctx;
}

/*
 * In a copy of the controller (forkcopy.c): forget the processes the
 * original traces, and its descriptors, which are the original's to use.
 */
void
pctxlib_tracer_abandon(void)
{
	struct tracer *t = &pctxlib_tracer;

	pctxlib_table_abandon();
	TAILQ_INIT(&t->all);
	LIST_INIT(&t->pending);
	if (t->epfd >= 0)
		close(t->epfd);
	if (t->sigfd >= 0)
		close(t->sigfd);
	if (t->beacon >= 0)
		close(t->beacon);
	pctxlib_tick_close();
	t->epfd = t->sigfd = t->beacon = -1;
	t->looping = false;
	t->active = 0;
	t->root = NULL;
	t->chld_pending = false;
}

/*
 * Let the process run on untraced and free the pctx. In the loop (from a
 * callback) this is done once the event at hand is handled.
 */
void
pctx_release(pctx_t *pctx)
{
	if (pctx == NULL || pctx->released)
		return;
	if (pctxlib_tracer.looping)
		pctxlib_proc_request(pctx, PENDING_RELEASE);
	else
		pctxlib_proc_release_now(pctx);
}

int
pctx_let_go(pctx_t *pctx)
{
	if (pctx == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (!pctx->released)
		pctxlib_proc_request(pctx, PENDING_FINISH);
	return 0;
}

void
pctx_terminate(pctx_t *pctx)
{
	if (pctx == NULL)
		return;
	pctx->terminate = true;
	pctx->root->terminate = true;
}

int
pctx_set_proc_data(pctx_t *pctx, void *data, pctx_free_t *free_data)
{
	void *old = pctx->data;

	if (old != NULL && old != data && pctx->free_data != NULL)
		pctx->free_data(old);
	pctx->data = data;
	pctx->free_data = free_data;
	return 0;
}

int
pctx_set_lwp_data(pctx_t *pctx, id_t lwpid, void *data, pctx_free_t *free_data)
{
	struct lwp *lwp;

	if (pctx == NULL || (lwp = pctxlib_lwp_by_id(pctx, lwpid)) == NULL) {
		errno = ESRCH;
		return -1;
	}
	if (lwp->data != NULL && lwp->data != data)
		pctxlib_lwp_free_data(lwp);
	lwp->data = data;
	lwp->free_data = free_data;
	return 0;
}

int
pctx_set_fork_model(pctx_t *pctx, pctx_fork_model_t model)
{
	if (pctx == NULL ||
	    (model != PCTX_FORK_COPY && model != PCTX_FORK_ADOPT)) {
		errno = EINVAL;
		return -1;
	}
	pctx->fork_model = model;
	return 0;
}

int
pctx_drop_debug_traps(pctx_t *pctx)
{
	if (pctx == NULL) {
		errno = EINVAL;
		return -1;
	}
	pctx->drop_debug_traps = true;
	return 0;
}

/* Whether other processes were joined to pctx. */
static bool
has_joined(const pctx_t *pctx)
{
	const pctx_t *p;

	TAILQ_FOREACH (p, &pctxlib_tracer.all, all_entry)
		if (p->root == pctx && p != pctx)
			return true;
	return false;
}

int
pctx_join(pctx_t *pctx, pctx_t *root)
{
	if (pctxlib_tracer.looping) {
		errno = EBUSY;
		return -1;
	}
	if (pctx == NULL || root == NULL || pctx == root ||
	    pctx->root != pctx || root->root != root ||
	    pctx->state != PROC_IDLE || root->state != PROC_IDLE ||
	    has_joined(pctx)) {
		errno = EINVAL;
		return -1;
	}
	pctxlib_proc_join(pctx, root);
	return 0;
}

int
pctx_add_client(pctx_t *pctx, const pctx_client_t *client, void *arg)
{
	int i;

	for (i = 0; i < MAX_CLIENTS; i++) {
		if (pctx->clients[i].ops == client &&
		    pctx->clients[i].arg == arg)
			return 0;
		if (pctx->clients[i].ops == NULL) {
			pctx->clients[i].ops = client;
			pctx->clients[i].arg = arg;
			return 0;
		}
	}
	errno = ENOSPC;
	return -1;
}

pid_t
pctx_lwp_tid(pctx_t *pctx, id_t lwpid)
{
	struct lwp *lwp;

	if (pctx == NULL || (lwp = pctxlib_lwp_by_id(pctx, lwpid)) == NULL) {
		errno = ESRCH;
		return -1;
	}
	return lwp->tid;
}

int
pctx_lwp_held(pctx_t *pctx, id_t lwpid)
{
	struct lwp *lwp;

	if (pctx == NULL || (lwp = pctxlib_lwp_by_id(pctx, lwpid)) == NULL)
		return 0;
	return (lwp->flags & LWP_HELD) != 0;
}

int
pctx_lwp_exiting(pctx_t *pctx, id_t lwpid)
{
	unsigned long flags;
	pid_t tid;
	char state;

	if ((tid = pctx_lwp_tid(pctx, lwpid)) <= 0 ||
	    pctxlib_procfs_stat(tid, &state, &flags) != 0)
		return 1;
	return state == 'Z' || state == 'X' || (flags & PF_EXITING) != 0;
}

pid_t
pctx_pid(pctx_t *pctx)
{
	return pctx->pid;
}

unsigned long
pctx_missed_ticks(pctx_t *pctx)
{
	return pctx->missed;
}

void
pctx_set_idle(void (*idle)(void *arg), void *arg)
{
	pctxlib_tracer.idle = idle;
	pctxlib_tracer.idle_arg = arg;
}

void
pctx_set_signal_hook(
    int (*hook)(int sig, int si_code, pid_t pid, void *arg), void *arg)
{
	pctxlib_tracer.signal_hook = hook;
	pctxlib_tracer.signal_arg = arg;
}
