/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The thread table: every traced thread by kernel tid (tracer-wide) and by
 * LWP id (per process).
 *
 * Records are never freed while the event loop may still hold a pointer to
 * them: a handler may let a whole process go while it handles one of its
 * threads. Such records go to a graveyard, emptied by the loop before it
 * takes the next event. A record's caller data is freed when the record
 * leaves its process (buried, entombed, or let go), right away.
 */
#include <errno.h>
#include <stdlib.h>

#include "pctx_impl.h"

/* libbsd's RB_*_STATIC expect BSD's __unused. */
#ifndef __unused
#define __unused __attribute__((unused))
#endif

static inline int
lwp_tid_cmp(const struct lwp *a, const struct lwp *b)
{
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static inline int
lwp_id_cmp(const struct lwp *a, const struct lwp *b)
{
	return a->lwpid < b->lwpid ? -1 : a->lwpid > b->lwpid;
}

RB_PROTOTYPE_STATIC(tid_tree, lwp, tid_entry, lwp_tid_cmp)
RB_PROTOTYPE_STATIC(lwpid_tree, lwp, id_entry, lwp_id_cmp)
RB_GENERATE_STATIC(tid_tree, lwp, tid_entry, lwp_tid_cmp)
RB_GENERATE_STATIC(lwpid_tree, lwp, id_entry, lwp_id_cmp)

struct lwp *
pctxlib_lwp_by_tid(pid_t tid)
{
	struct lwp key = { .tid = tid };

	return RB_FIND(tid_tree, &pctxlib_tracer.tids, &key);
}

struct lwp *
pctxlib_lwp_by_id(pctx_t *pctx, id_t lwpid)
{
	struct lwp key = { .lwpid = lwpid };

	return RB_FIND(lwpid_tree, &pctx->lwps, &key);
}

/*
 * The first LWP numbered lwpid or above. Walking with this instead of
 * RB_NEXT survives handlers that remove records.
 */
struct lwp *
pctxlib_lwp_at_or_after(pctx_t *pctx, id_t lwpid)
{
	struct lwp key = { .lwpid = lwpid };

	return RB_NFIND(lwpid_tree, &pctx->lwps, &key);
}

/* A walk over every traced thread. */
struct lwp *
pctxlib_tid_first(void)
{
	return RB_MIN(tid_tree, &pctxlib_tracer.tids);
}

struct lwp *
pctxlib_tid_next(struct lwp *lwp)
{
	return RB_NEXT(tid_tree, &pctxlib_tracer.tids, lwp);
}

static struct lwp *
lwp_alloc(pid_t tid, unsigned flags)
{
	struct lwp *lwp;

	if ((lwp = calloc(1, sizeof(*lwp))) == NULL)
		return NULL;
	lwp->tid = tid;
	lwp->flags = flags;
	if (RB_INSERT(tid_tree, &pctxlib_tracer.tids, lwp) != NULL) {
		free(lwp);
		errno = EEXIST;
		return NULL;
	}
	return lwp;
}

/* A thread of pctx, numbered next in creation order. */
struct lwp *
pctxlib_lwp_add(pctx_t *pctx, pid_t tid, unsigned flags)
{
	struct lwp *lwp;

	if ((lwp = lwp_alloc(tid, flags)) == NULL)
		return NULL;
	pctxlib_lwp_adopt(lwp, pctx, pctx->next_lwpid++);
	return lwp;
}

/* A forked child that stopped before its parent's fork event was seen. */
struct lwp *
pctxlib_lwp_add_orphan(pid_t tid, pid_t ppid)
{
	struct lwp *lwp;

	if ((lwp = lwp_alloc(tid, LWP_HELD | LWP_ANNOUNCED)) == NULL)
		return NULL;
	lwp->ppid = ppid;
	return lwp;
}

/* In LWP id order: new ids are the highest, only a thread taken back
 * (suspend.c) may go further in. */
static void
order_insert(pctx_t *pctx, struct lwp *lwp)
{
	struct lwp *before;

	TAILQ_FOREACH_REVERSE (before, &pctx->order, lwp_order, order_entry)
		if (before->lwpid < lwp->lwpid)
			break;
	if (before == NULL)
		TAILQ_INSERT_HEAD(&pctx->order, lwp, order_entry);
	else
		TAILQ_INSERT_AFTER(&pctx->order, before, lwp, order_entry);
	pctx->nlwps++;
}

static void
order_remove(pctx_t *pctx, struct lwp *lwp)
{
	TAILQ_REMOVE(&pctx->order, lwp, order_entry);
	pctx->nlwps--;
}

void
pctxlib_lwp_adopt(struct lwp *lwp, pctx_t *pctx, id_t lwpid)
{
	lwp->proc = pctx;
	lwp->lwpid = lwpid;
	RB_INSERT(lwpid_tree, &pctx->lwps, lwp);
	order_insert(pctx, lwp);
}

/* The caller's data of an LWP is freed once, when its record goes. */
void
pctxlib_lwp_free_data(struct lwp *lwp)
{
	void *data = lwp->data;

	lwp->data = NULL;
	if (data != NULL && lwp->free_data != NULL)
		lwp->free_data(data);
}

static void
lwp_unlink_id(struct lwp *lwp)
{
	if (lwp->proc != NULL && !(lwp->flags & LWP_DEAD)) {
		RB_REMOVE(lwpid_tree, &lwp->proc->lwps, lwp);
		order_remove(lwp->proc, lwp);
	}
	pctxlib_lwp_free_data(lwp);
}

/* A child to let go at its first stop, owned by no process. */
void
pctxlib_lwp_orphan_to_detach(struct lwp *lwp)
{
	lwp_unlink_id(lwp);
	lwp->proc = NULL;
	lwp->ppid = 0;
	lwp->flags = LWP_NEW | LWP_DETACH;
}

/*
 * A thread of a process being loosened (suspend.c) is let go but kept:
 * out of the tables, its LWP id and data kept for when it is taken back.
 */
static bool
loosen(struct lwp *lwp)
{
	pctx_t *pctx = lwp->proc;

	if (pctx == NULL || !pctx->loosening ||
	    (lwp->flags & (LWP_DEAD | LWP_INITED)) != LWP_INITED)
		return false;
	RB_REMOVE(lwpid_tree, &pctx->lwps, lwp);
	order_remove(pctx, lwp);
	RB_REMOVE(tid_tree, &pctxlib_tracer.tids, lwp);
	lwp->flags &= LWP_INITED;
	SLIST_INSERT_HEAD(&pctx->loose, lwp, grave_entry);
	return true;
}

/* A loosened thread found again: back in the tables, as it was. */
void
pctxlib_lwp_retake(struct lwp *lwp, pctx_t *pctx)
{
	RB_INSERT(tid_tree, &pctxlib_tracer.tids, lwp);
	RB_INSERT(lwpid_tree, &pctx->lwps, lwp);
	order_insert(pctx, lwp);
}

/* Forget a thread for good. */
void
pctxlib_lwp_bury(struct lwp *lwp)
{
	if (loosen(lwp))
		return;
	lwp_unlink_id(lwp);
	RB_REMOVE(tid_tree, &pctxlib_tracer.tids, lwp);
	lwp->flags = LWP_DEAD;
	if (pctxlib_tracer.looping)
		SLIST_INSERT_HEAD(&pctxlib_tracer.lwp_graves, lwp, grave_entry);
	else
		free(lwp);
}

/*
 * A dead thread whose creator's clone event is still due: it leaves its
 * process's LWP table but stays known by tid, so the late event is
 * recognised instead of being taken for a new thread.
 */
void
pctxlib_lwp_entomb(struct lwp *lwp)
{
	lwp_unlink_id(lwp);
	lwp->flags |= LWP_DEAD;
	lwp->flags &= ~(LWP_HELD | LWP_NEW | LWP_LISTENING);
}

/* Drop every record of a process, tombstones included. */
void
pctxlib_lwp_forget_all(pctx_t *pctx)
{
	struct lwp *lwp, *next;

	RB_FOREACH_SAFE (lwp, tid_tree, &pctxlib_tracer.tids, next)
		if (lwp->proc == pctx)
			pctxlib_lwp_bury(lwp);
	if (!pctx->loosening)
		pctx->next_lwpid = 1;
}

/* Free what handlers let go of during the last event. */
void
pctxlib_collect_graves(void)
{
	struct lwp *lwp;
	pctx_t *pctx;

	while ((lwp = SLIST_FIRST(&pctxlib_tracer.lwp_graves)) != NULL) {
		SLIST_REMOVE_HEAD(&pctxlib_tracer.lwp_graves, grave_entry);
		free(lwp);
	}
	while ((pctx = SLIST_FIRST(&pctxlib_tracer.pctx_graves)) != NULL) {
		SLIST_REMOVE_HEAD(&pctxlib_tracer.pctx_graves, grave_entry);
		free(pctx);
	}
}

/*
 * In a copy of the controller (forkcopy.c): the records describe threads
 * that another process traces. They are left behind, unfreed: the
 * caller's memory, copied too, may still point into them, and the copy
 * ends with _exit.
 */
void
pctxlib_table_abandon(void)
{
	RB_INIT(&pctxlib_tracer.tids);
	SLIST_INIT(&pctxlib_tracer.lwp_graves);
	SLIST_INIT(&pctxlib_tracer.pctx_graves);
}
