/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Everything in libcpc that touches a libpctx process: binding a set to
 * one of its LWPs, forgetting the process when it goes away, serving the
 * requests its LWPs make (cpc_enable, cpc_disable and the v1 mode
 * switches, called in the traced process), and letting processes go at
 * cpc_close and cpc_terminate. Asking such a request, when this process
 * is the traced one, is pctx_ask.c's.
 *
 * libpctx knows nothing of libcpc: a handle registers itself as a client
 * of every pctx it binds to, and libpctx calls it back.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "cpc_impl.h"

static void client_gone(pctx_t *pctx, void *arg);
static int client_request(pctx_t *pctx, id_t lwpid, int code, void *arg);

static const pctx_client_t cpc_client = {
	.gone = client_gone,
	.request = client_request,
};

int
cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set, uint_t flags)
{
	pid_t tid;

	if (set == NULL || set->cpc != cpc ||
	    (flags & ~(uint_t)CPC_BIND_STANDBY) != 0 || pctx == NULL ||
	    set->nreqs == 0 ||
	    ((flags & CPC_BIND_STANDBY) && set->asks_overflow)) {
		errno = EINVAL;
		return -1;
	}
	if ((tid = pctx_lwp_tid(pctx, id)) <= 0) {
		errno = ESRCH;
		return -1;
	}
	if (set->asks_overflow && cpclib_ovf_check(set, tid, false) != 0)
		return -1;
	if (set->bound != CPC_UNBOUND)
		(void)cpc_unbind(cpc, set);
	if (pctx_add_client(pctx, &cpc_client, cpc) != 0)
		return -1;
	set->hold = CPC_HOLD_NONE;
	set->target_held = pctx_lwp_held(pctx, id);
	set->standby = (flags & CPC_BIND_STANDBY) != 0;
	if (cpclib_group_open(cpc, set, tid, -1, false, "cpc_bind_pctx") != 0)
		return -1;
	cpclib_set_binding(set, CPC_BOUND_PCTX, tid);
	set->pctx = pctx;
	set->lwpid = id;
	return 0;
}

/* The process is gone: no set may refer to it any more. */
static void
client_gone(pctx_t *pctx, void *arg)
{
	cpc_t *cpc = arg;
	cpc_set_t *set;

	pthread_mutex_lock(&cpc->lock);
	LIST_FOREACH (set, &cpc->sets, link)
		if (set->pctx == pctx)
			set->pctx = NULL;
	pthread_mutex_unlock(&cpc->lock);
}

/* Count user or system mode from now on, or stop; what was counted stays. */
static int
switch_mode(cpc_t *cpc, cpc_set_t *set, uint_t flag, bool on)
{
	int i;

	for (i = 0; i < set->nreqs; i++) {
		if (on)
			set->reqs[i].flags |= flag;
		else
			set->reqs[i].flags &= ~flag;
	}
	/* The LWP waits in its request: its group starts when it goes on. */
	set->target_held = true;
	set->prepared = false;
	return cpclib_group_reopen(cpc, set, set->tid, "cpc_bind_pctx");
}

/* Turn a set on or off for its LWP; a set in standby only remembers it. */
static int
switch_counting(cpc_set_t *set, bool on)
{
	if (!set->standby && cpclib_group_leader(set, on) != 0)
		return -1;
	set->disabled = !on;
	return 0;
}

static int
apply(cpc_t *cpc, cpc_set_t *set, int what)
{
	switch (what) {
	case CPCLIB_REQ_ENABLE:
		return switch_counting(set, true);
	case CPCLIB_REQ_DISABLE:
		return switch_counting(set, false);
	case CPCLIB_REQ_USER_ON:
	case CPCLIB_REQ_USER_OFF:
		return switch_mode(
		    cpc, set, CPC_COUNT_USER, what == CPCLIB_REQ_USER_ON);
	case CPCLIB_REQ_SYSTEM_ON:
	case CPCLIB_REQ_SYSTEM_OFF:
		return switch_mode(
		    cpc, set, CPC_COUNT_SYSTEM, what == CPCLIB_REQ_SYSTEM_ON);
	default:
		errno = EINVAL;
		return -1;
	}
}

/*
 * An LWP of pctx asked for its counters: act on every set this handle
 * bound to it, while it waits. 0, or -errno. On the thread that runs
 * pctx, which alone makes and binds the sets of its processes; the walk
 * holds no lock, as acting on a set may open its group (group_fits).
 */
static int
client_request(pctx_t *pctx, id_t lwpid, int code, void *arg)
{
	cpc_t *cpc = arg;
	pid_t tid = pctx_lwp_tid(pctx, lwpid);
	cpc_set_t *set;
	int found = 0;

	if (((unsigned)code & CPCLIB_REQ_MASK) != CPCLIB_REQ_FAMILY)
		return -ENOSYS;
	LIST_FOREACH (set, &cpc->sets, link) {
		if (set->bound != CPC_BOUND_PCTX || set->pctx != pctx ||
		    set->tid != tid)
			continue;
		if (apply(cpc, set, code & ~CPCLIB_REQ_MASK) != 0)
			return -errno;
		found++;
	}
	return found > 0 ? 0 : -EINVAL;
}

/* cpc_close: let every process the handle's sets were bound to go, once. */
void
cpclib_pctx_release_all(cpc_t *cpc)
{
	cpc_set_t *set;
	pctx_t *pctx;

	/* Releasing may free sets (the caller's data): start over each time. */
	for (;;) {
		pctx = NULL;
		pthread_mutex_lock(&cpc->lock);
		LIST_FOREACH (set, &cpc->sets, link)
			if ((pctx = set->pctx) != NULL)
				break;
		LIST_FOREACH (set, &cpc->sets, link)
			if (pctx != NULL && set->pctx == pctx)
				set->pctx = NULL;
		pthread_mutex_unlock(&cpc->lock);
		if (pctx == NULL)
			return;
		pctx_release(pctx);
	}
}

/*
 * cpc_terminate: make every pctx_run driven through the handle return.
 * Without the lock: a signal handler may call it, and it only reads.
 */
void
cpclib_pctx_terminate_all(cpc_t *cpc)
{
	cpc_set_t *set;

	LIST_FOREACH (set, &cpc->sets, link)
		if (set->pctx != NULL)
			pctx_terminate(set->pctx);
}
