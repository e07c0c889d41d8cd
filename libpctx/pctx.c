/*
 * The pctx object: allocation, errors, accessors, release and terminate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>

#include "pctx_impl.h"

struct tracer tracer = {
	.tids = RB_INITIALIZER(&tracer.tids),
	.all = LIST_HEAD_INITIALIZER(tracer.all),
	.epfd = -1,
	.sigfd = -1,
	.timerfd = -1,
	.lwp_graves = SLIST_HEAD_INITIALIZER(tracer.lwp_graves),
	.pctx_graves = SLIST_HEAD_INITIALIZER(tracer.pctx_graves),
};

/* libcpc forgets a pctx through this when it is linked in. */
void __cpc_pctx_gone(pctx_t *pctx) __attribute__((weak));

static void
default_errfn(const char *fn, const char *fmt, va_list ap)
{
	fprintf(stderr, "libpctx: pctx_%s: ", fn);
	vfprintf(stderr, fmt, ap);
}

void
pctx_error_to(pctx_errfn_t *errfn, const char *fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(errfn != NULL ? errfn : default_errfn)(fn, fmt, ap);
	va_end(ap);
}

void
pctx_error(pctx_t *pctx, const char *fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pctx->errfn(fn, fmt, ap);
	va_end(ap);
}

void
pctx_verbose(pctx_t *pctx, const char *fn, const char *fmt, ...)
{
	va_list ap;

	if (!pctx->verbose)
		return;
	va_start(ap, fmt);
	pctx->errfn(fn, fmt, ap);
	va_end(ap);
}

pctx_t *
pctx_alloc(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn)
{
	pctx_t *pctx;

	if ((pctx = calloc(1, sizeof(*pctx))) == NULL)
		return NULL;
	pctx->pid = pid;
	pctx->root = pctx;
	pctx->state = PROC_IDLE;
	RB_INIT(&pctx->lwps);
	pctx->next_lwpid = 1;
	events_defaults(&pctx->h);
	pctx->arg = arg;
	pctx->verbose = verbose;
	pctx->errfn = errfn != NULL ? errfn : default_errfn;
	LIST_INSERT_HEAD(&tracer.all, pctx, all_entry);
	return pctx;
}

int
pctx_wanted_opts(const pctx_t *pctx)
{
	return SEIZE_OPTS_BASE | (pctx->h.fork_set ? SEIZE_OPTS_FORK : 0) |
	    (pctx->created ? PTRACE_O_EXITKILL : 0);
}

/*
 * The last step of every pctx: libcpc forgets it, and it is freed, later
 * if the event loop may still hold it.
 */
void
pctx_dispose(pctx_t *pctx)
{
	if (__cpc_pctx_gone != NULL)
		__cpc_pctx_gone(pctx);
	LIST_REMOVE(pctx, all_entry);
	pctx->released = true;
	if (tracer.looping)
		SLIST_INSERT_HEAD(&tracer.pctx_graves, pctx, grave_entry);
	else
		free(pctx);
}

void
pctx_collect_graves(void)
{
	pctx_t *pctx;

	while ((pctx = SLIST_FIRST(&tracer.pctx_graves)) != NULL) {
		SLIST_REMOVE_HEAD(&tracer.pctx_graves, grave_entry);
		free(pctx);
	}
}

static void
release_one(pctx_t *pctx)
{
	detach_process(pctx);
	pctx_dispose(pctx);
}

/*
 * Let the process run on untraced and free the pctx. Releasing a top-level
 * pctx releases the forked children followed in its runs too.
 */
void
pctx_release(pctx_t *pctx)
{
	pctx_t *p, *next;

	if (pctx == NULL || pctx->released)
		return;
	if (pctx->root == pctx)
		LIST_FOREACH_SAFE(p, &tracer.all, all_entry, next)
			if (p->root == pctx && p != pctx && !p->released)
				release_one(p);
	release_one(pctx);
}

void
pctx_terminate(pctx_t *pctx)
{
	if (pctx == NULL)
		return;
	pctx->terminate = true;
	pctx->root->terminate = true;
}

pid_t
__pctx_lwp_tid(pctx_t *pctx, id_t lwpid)
{
	struct lwp *lwp;

	if (pctx == NULL || (lwp = lwp_by_id(pctx, lwpid)) == NULL) {
		errno = ESRCH;
		return -1;
	}
	return lwp->tid;
}

/*
 * Internal link for libcpc: whether the LWP is sure to pass through a
 * ptrace-stop before it runs another user instruction. It is, while held in
 * one, and when it was auto-attached and its first stop is still due.
 */
int
__pctx_lwp_held(pctx_t *pctx, id_t lwpid)
{
	struct lwp *lwp;

	if (pctx == NULL || (lwp = lwp_by_id(pctx, lwpid)) == NULL)
		return 0;
	return (lwp->flags & (LWP_HELD | LWP_NEW)) != 0;
}

pid_t
pctx_lwp_tid(pctx_t *pctx, id_t lwpid)
{
	return __pctx_lwp_tid(pctx, lwpid);
}

int
pctx_lwp_exiting(pctx_t *pctx, id_t lwpid)
{
	unsigned long flags;
	pid_t tid;
	char state;

	if ((tid = __pctx_lwp_tid(pctx, lwpid)) <= 0 ||
	    procfs_stat(tid, &state, &flags) != 0)
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
