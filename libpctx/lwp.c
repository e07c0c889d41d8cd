/*
 * The thread table: every traced thread by kernel tid (tracer-wide) and by
 * LWP id (per process).
 *
 * Records are never freed while the event loop may still hold a pointer to
 * them: a callback can release a whole process in the middle of handling
 * one of its threads. Such records go to a graveyard, emptied by the loop
 * between two wakeups.
 */
#include <errno.h>
#include <stdlib.h>

#include "pctx_impl.h"

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

RB_GENERATE(tid_tree, lwp, tid_entry, lwp_tid_cmp)
RB_GENERATE(lwpid_tree, lwp, id_entry, lwp_id_cmp)

struct lwp *
lwp_by_tid(pid_t tid)
{
	struct lwp key = { .tid = tid };

	return RB_FIND(tid_tree, &tracer.tids, &key);
}

struct lwp *
lwp_by_id(pctx_t *pctx, id_t lwpid)
{
	struct lwp key = { .lwpid = lwpid };

	return RB_FIND(lwpid_tree, &pctx->lwps, &key);
}

/*
 * The first LWP numbered lwpid or above. Walking with this instead of
 * RB_NEXT survives callbacks that remove records.
 */
struct lwp *
lwp_at_or_after(pctx_t *pctx, id_t lwpid)
{
	struct lwp key = { .lwpid = lwpid };

	return RB_NFIND(lwpid_tree, &pctx->lwps, &key);
}

static struct lwp *
lwp_alloc(pid_t tid, unsigned flags)
{
	struct lwp *lwp;

	if ((lwp = calloc(1, sizeof(*lwp))) == NULL)
		return NULL;
	lwp->tid = tid;
	lwp->flags = flags;
	if (RB_INSERT(tid_tree, &tracer.tids, lwp) != NULL) {
		free(lwp);
		errno = EEXIST;
		return NULL;
	}
	return lwp;
}

/* A thread of pctx, numbered next in creation order. */
struct lwp *
lwp_add(pctx_t *pctx, pid_t tid, unsigned flags)
{
	struct lwp *lwp;

	if ((lwp = lwp_alloc(tid, flags)) == NULL)
		return NULL;
	lwp_adopt(lwp, pctx, pctx->next_lwpid++);
	return lwp;
}

/* A forked child that stopped before its parent's fork event was seen. */
struct lwp *
lwp_add_orphan(pid_t tid, pid_t ppid)
{
	struct lwp *lwp;

	if ((lwp = lwp_alloc(tid, LWP_HELD | LWP_ANNOUNCED)) == NULL)
		return NULL;
	lwp->ppid = ppid;
	return lwp;
}

void
lwp_adopt(struct lwp *lwp, pctx_t *pctx, id_t lwpid)
{
	lwp->proc = pctx;
	lwp->lwpid = lwpid;
	RB_INSERT(lwpid_tree, &pctx->lwps, lwp);
	pctx->nlwps++;
}

static void
lwp_unlink_id(struct lwp *lwp)
{
	if (lwp->proc != NULL && !(lwp->flags & LWP_DEAD)) {
		RB_REMOVE(lwpid_tree, &lwp->proc->lwps, lwp);
		lwp->proc->nlwps--;
	}
}

/* A child to let go at its first stop, owned by no process. */
void
lwp_orphan_to_detach(struct lwp *lwp)
{
	lwp_unlink_id(lwp);
	lwp->proc = NULL;
	lwp->ppid = 0;
	lwp->flags = LWP_NEW | LWP_DETACH;
}

/* Forget a thread for good. */
void
lwp_bury(struct lwp *lwp)
{
	lwp_unlink_id(lwp);
	RB_REMOVE(tid_tree, &tracer.tids, lwp);
	if (tracer.looping)
		SLIST_INSERT_HEAD(&tracer.lwp_graves, lwp, grave_entry);
	else
		free(lwp);
}

/*
 * A dead thread whose creator's clone event is still due: it leaves its
 * process's LWP table but stays known by tid, so the late event is
 * recognised instead of being taken for a new thread.
 */
void
lwp_entomb(struct lwp *lwp)
{
	lwp_unlink_id(lwp);
	lwp->flags |= LWP_DEAD;
	lwp->flags &= ~(LWP_HELD | LWP_NEW | LWP_LISTENING);
}

/* Drop every record of a process, tombstones included. */
void
lwp_forget_all(pctx_t *pctx)
{
	struct lwp *lwp, *next;

	RB_FOREACH_SAFE(lwp, tid_tree, &tracer.tids, next)
		if (lwp->proc == pctx)
			lwp_bury(lwp);
	pctx->next_lwpid = 1;
}

void
lwp_collect_graves(void)
{
	struct lwp *lwp;

	while ((lwp = SLIST_FIRST(&tracer.lwp_graves)) != NULL) {
		SLIST_REMOVE_HEAD(&tracer.lwp_graves, grave_entry);
		free(lwp);
	}
}
