/*
 * Event handlers: registration and the calls that keep init_lwp and
 * fini_lwp paired.
 */
#include <stdarg.h>
#include <stddef.h>

#include "pctx_impl.h"

static int
default_exec(pctx_t *pctx, pid_t pid, id_t lwpid, char *cmd, void *arg)
{
	(void)pctx; (void)pid; (void)lwpid; (void)cmd; (void)arg;
	return 0;
}

static void
default_fork(pctx_t *pctx, pid_t ppid, id_t lwpid, pid_t cpid, void *arg)
{
	(void)pctx; (void)ppid; (void)lwpid; (void)cpid; (void)arg;
}

static void
default_exit(pctx_t *pctx, pid_t pid, id_t lwpid, int status, void *arg)
{
	(void)pctx; (void)pid; (void)lwpid; (void)status; (void)arg;
}

static int
default_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	(void)pctx; (void)pid; (void)lwpid; (void)arg;
	return 0;
}

void
events_defaults(struct handlers *h)
{
	h->exec = default_exec;
	h->fork = default_fork;
	h->exit = default_exit;
	h->lwp_create = default_lwp;
	h->init_lwp = default_lwp;
	h->fini_lwp = default_lwp;
	h->lwp_exit = default_lwp;
	h->exec_set = false;
	h->fork_set = false;
}

/*
 * Handlers arrive as (tag, function) pairs ended by PCTX_NULL_EVENT. Nothing
 * changes unless the whole list is valid. A NULL function restores the
 * default.
 */
int
pctx_set_events(pctx_t *pctx, ...)
{
	struct handlers h;
	int ev;
	void *fn;
	va_list ap;

	if (pctx == NULL)
		return -1;
	h = pctx->h;
	va_start(ap, pctx);
	while ((ev = va_arg(ap, int)) != PCTX_NULL_EVENT) {
		fn = va_arg(ap, void *);
		switch (ev) {
		case PCTX_SYSC_EXEC_EVENT:
			h.exec = fn != NULL ? (pctx_sysc_execfn_t *)fn :
			    default_exec;
			h.exec_set = fn != NULL;
			break;
		case PCTX_SYSC_FORK_EVENT:
			h.fork = fn != NULL ? (pctx_sysc_forkfn_t *)fn :
			    default_fork;
			h.fork_set = fn != NULL;
			break;
		case PCTX_SYSC_EXIT_EVENT:
			h.exit = fn != NULL ? (pctx_sysc_exitfn_t *)fn :
			    default_exit;
			break;
		case PCTX_SYSC_LWP_CREATE_EVENT:
			h.lwp_create = fn != NULL ?
			    (pctx_sysc_lwp_createfn_t *)fn : default_lwp;
			break;
		case PCTX_INIT_LWP_EVENT:
			h.init_lwp = fn != NULL ? (pctx_init_lwpfn_t *)fn :
			    default_lwp;
			break;
		case PCTX_FINI_LWP_EVENT:
			h.fini_lwp = fn != NULL ? (pctx_fini_lwpfn_t *)fn :
			    default_lwp;
			break;
		case PCTX_SYSC_LWP_EXIT_EVENT:
			h.lwp_exit = fn != NULL ?
			    (pctx_sysc_lwp_exitfn_t *)fn : default_lwp;
			break;
		default:
			va_end(ap);
			pctx_error(pctx, "set_events", "unknown event type %x\n",
			    (unsigned)ev);
			return -1;
		}
	}
	va_end(ap);
	pctx->h = h;
	return 0;
}

int
call_init_lwp(pctx_t *pctx, struct lwp *lwp)
{
	lwp->flags |= LWP_INITED;
	return pctx->h.init_lwp(pctx, pctx->pid, lwp->lwpid, pctx->arg);
}

int
call_fini_lwp(pctx_t *pctx, struct lwp *lwp)
{
	if (!(lwp->flags & LWP_INITED))
		return 0;
	lwp->flags &= ~LWP_INITED;
	return pctx->h.fini_lwp(pctx, pctx->pid, lwp->lwpid, pctx->arg);
}

/*
 * fini_lwp for every LWP of the process in LWP order. A callback may
 * release the process: stop then.
 */
int
call_fini_all(pctx_t *pctx)
{
	struct lwp *lwp;
	id_t next = 1;
	int rc = 0;

	while (pctx->state == PROC_ACTIVE &&
	    (lwp = lwp_at_or_after(pctx, next)) != NULL) {
		next = lwp->lwpid + 1;
		if (call_fini_lwp(pctx, lwp) != 0)
			rc = -1;
	}
	return rc;
}
