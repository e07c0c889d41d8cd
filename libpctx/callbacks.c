/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The caller's handlers: their registration, and the one place each is
 * called from. A handler is called only while its process is followed
 * with nothing pending; init_lwp and fini_lwp stay paired; a failing
 * handler has its process let go (PENDING_FAIL: the loop does it after
 * the event).
 *
 * An LWP is opened (init_lwp, lwp_create) only while it is held. A new
 * thread whose first stop is still due is not: it is already running
 * kernel code on its way there, and counters bound meanwhile would race
 * with it (the kernel may count their time enabled but not running).
 * Its handlers wait for that first stop, which comes before its first
 * instruction all the same (EVT_OPEN). A held one may still be switching
 * out of its stop: it is opened once it is off its CPU (control.c).
 */
#include <stdarg.h>
#include <stddef.h>

#include "pctx_impl.h"

void
pctxlib_events_defaults(struct handlers *h)
{
	h->exec = NULL;
	h->fork = NULL;
	h->exit = NULL;
	h->lwp_create = NULL;
	h->init_lwp = NULL;
	h->fini_lwp = NULL;
	h->lwp_exit = NULL;
}

static int
set_handler(struct handlers *h, int ev, void *fn)
{
	switch (ev) {
	case PCTX_SYSC_EXEC_EVENT:
		h->exec = (pctx_sysc_execfn_t *)fn;
		return 0;
	case PCTX_SYSC_FORK_EVENT:
		h->fork = (pctx_sysc_forkfn_t *)fn;
		return 0;
	case PCTX_SYSC_EXIT_EVENT:
		h->exit = (pctx_sysc_exitfn_t *)fn;
		return 0;
	case PCTX_SYSC_LWP_CREATE_EVENT:
		h->lwp_create = (pctx_sysc_lwp_createfn_t *)fn;
		return 0;
	case PCTX_INIT_LWP_EVENT:
		h->init_lwp = (pctx_init_lwpfn_t *)fn;
		return 0;
	case PCTX_FINI_LWP_EVENT:
		h->fini_lwp = (pctx_fini_lwpfn_t *)fn;
		return 0;
	case PCTX_SYSC_LWP_EXIT_EVENT:
		h->lwp_exit = (pctx_sysc_lwp_exitfn_t *)fn;
		return 0;
	default:
		return -1;
	}
}

/*
 * Handlers arrive as (tag, function) pairs ended by PCTX_NULL_EVENT. Nothing
 * changes unless the whole list is valid. A NULL function restores the
 * default, which does nothing.
 */
int
pctx_set_events(pctx_t *pctx, ...)
{
	struct handlers h;
	va_list ap;
	int ev;

	if (pctx == NULL)
		return -1;
	h = pctx->h;
	va_start(ap, pctx);
	while ((ev = va_arg(ap, int)) != PCTX_NULL_EVENT) {
		if (set_handler(&h, ev, va_arg(ap, void *)) != 0) {
			va_end(ap);
			pctxlib_error(pctx, "set_events",
			    "unknown event type "
			    "%x\n",
			    (unsigned)ev);
			return -1;
		}
	}
	va_end(ap);
	pctx->h = h;
	return 0;
}

static void *
proc_arg(const pctx_t *pctx)
{
	return pctx->data != NULL ? pctx->data : pctx->arg;
}

static void *
lwp_arg(const pctx_t *pctx, const struct lwp *lwp)
{
	return lwp->data != NULL ? lwp->data : proc_arg(pctx);
}

void
pctxlib_cb_init_lwp(pctx_t *pctx, struct lwp *lwp)
{
	if (!pctxlib_proc_live(pctx))
		return;
	if (lwp->flags & LWP_NEW) {
		lwp->flags |= LWP_INIT_DUE;
		return;
	}
	lwp->flags |= LWP_INITED;
	if (pctx->h.init_lwp == NULL)
		return;
	pctxlib_settle(lwp);
	if (pctx->h.init_lwp(pctx, pctx->pid, lwp->lwpid, proc_arg(pctx)) != 0)
		pctxlib_proc_request(pctx, PENDING_FAIL);
}

/* init_lwp for every LWP, in order. */
void
pctxlib_cb_init_all(pctx_t *pctx)
{
	struct lwp *lwp;
	id_t next = 1;

	while (pctxlib_proc_live(pctx) &&
	    (lwp = pctxlib_lwp_at_or_after(pctx, next)) != NULL) {
		next = lwp->lwpid + 1;
		pctxlib_cb_init_lwp(pctx, lwp);
	}
}

void
pctxlib_cb_lwp_create(pctx_t *pctx, struct lwp *lwp)
{
	if (lwp->flags & LWP_NEW) {
		lwp->flags |= LWP_CREATE_DUE;
		return;
	}
	if (pctxlib_proc_live(pctx) && pctx->h.lwp_create != NULL &&
	    pctx->h.lwp_create(
		pctx, pctx->pid, lwp->lwpid, lwp_arg(pctx, lwp)) != 0)
		pctxlib_proc_request(pctx, PENDING_FAIL);
}

/* A failing fini_lwp makes pctx_run fail, but the process stays followed. */
void
pctxlib_cb_fini_lwp(pctx_t *pctx, struct lwp *lwp)
{
	if (!(lwp->flags & LWP_INITED) || !pctxlib_proc_live(pctx))
		return;
	lwp->flags &= ~LWP_INITED;
	if (pctx->h.fini_lwp != NULL &&
	    pctx->h.fini_lwp(pctx, pctx->pid, lwp->lwpid, lwp_arg(pctx, lwp)) !=
		0)
		pctxlib_proc_failed(pctx);
}

/* fini_lwp for every LWP of the process in LWP order. */
void
pctxlib_cb_fini_all(pctx_t *pctx)
{
	struct lwp *lwp;
	id_t next = 1;

	while (pctxlib_proc_live(pctx) &&
	    (lwp = pctxlib_lwp_at_or_after(pctx, next)) != NULL) {
		next = lwp->lwpid + 1;
		pctxlib_cb_fini_lwp(pctx, lwp);
	}
}

void
pctxlib_cb_lwp_exit(pctx_t *pctx, struct lwp *lwp)
{
	if (pctxlib_proc_live(pctx) && pctx->h.lwp_exit != NULL)
		(void)pctx->h.lwp_exit(
		    pctx, pctx->pid, lwp->lwpid, lwp_arg(pctx, lwp));
}

/* The exec handler, with the new image's argument string. */
void
pctxlib_cb_exec(pctx_t *pctx)
{
	char cmd[81];

	if (!pctxlib_proc_live(pctx) || pctx->h.exec == NULL)
		return;
	pctxlib_procfs_psargs(pctx->pid, cmd, sizeof(cmd));
	if (pctx->h.exec(pctx, pctx->pid, 1, cmd, proc_arg(pctx)) != 0)
		pctxlib_proc_request(pctx, PENDING_FAIL);
}

void
pctxlib_cb_exit(pctx_t *pctx, id_t lwpid, int code)
{
	if (pctxlib_proc_live(pctx) && pctx->h.exit != NULL)
		pctx->h.exit(pctx, pctx->pid, lwpid, code, proc_arg(pctx));
}

/* (child's pctx, parent pid, child pid, lwpid, arg): see libpctx.h. */
void
pctxlib_cb_fork(pctx_t *parent, pctx_t *child, id_t lwpid)
{
	parent->h.fork(child, parent->pid, child->pid, lwpid, proc_arg(parent));
}

void
pctxlib_cb_tick(pctx_t *pctx, struct lwp *lwp)
{
	if ((lwp->flags & LWP_INITED) && pctxlib_proc_live(pctx) &&
	    pctx->tick(pctx, pctx->pid, lwp->lwpid, lwp_arg(pctx, lwp)) != 0)
		pctxlib_proc_request(pctx, PENDING_FAIL);
}

/*
 * The clients' end of the tick, also after a failed tick callback: what
 * they gathered in the tick callbacks is theirs to finish.
 */
void
pctxlib_cb_tick_end(pctx_t *pctx)
{
	const struct client *c;

	for (c = pctx->clients;
	     c < pctx->clients + MAX_CLIENTS && c->ops != NULL; c++)
		if (c->ops->tick_end != NULL)
			c->ops->tick_end(pctx, c->arg);
}
