/*
 * cputrack's callbacks from libpctx: every LWP gets its own copy of the
 * sets at init_lwp, ticks print per-LWP deltas, and the counts of LWPs
 * that end are summed into their process's totals for the exec and exit
 * rows.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cputrack.h"

static int
lwp_cmp(const struct lwp *a, const struct lwp *b)
{
	return a->lwpid < b->lwpid ? -1 : a->lwpid > b->lwpid;
}

static int
proc_cmp(const struct proc *a, const struct proc *b)
{
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

RB_PROTOTYPE(ct_lwp_tree, lwp, node, lwp_cmp)
RB_PROTOTYPE(ct_proc_tree, proc, node, proc_cmp)
RB_GENERATE(ct_lwp_tree, lwp, node, lwp_cmp)
RB_GENERATE(ct_proc_tree, proc, node, proc_cmp)

static struct proc *
proc_find(struct cputrack *ct, pid_t pid)
{
	struct proc key = { .pid = pid };

	return RB_FIND(ct_proc_tree, &ct->procs, &key);
}

static struct lwp *
lwp_find(struct proc *p, id_t lwpid)
{
	struct lwp key = { .lwpid = lwpid };

	return p != NULL ? RB_FIND(ct_lwp_tree, &p->lwps, &key) : NULL;
}

static void
lwp_free(struct cputrack *ct, struct proc *p, struct lwp *l)
{
	RB_REMOVE(ct_lwp_tree, &p->lwps, l);
	rotation_free(ct->cpc, l->rot);
	free(l);
}

static void
proc_forget_lwps(struct cputrack *ct, struct proc *p)
{
	struct lwp *l, *next;

	RB_FOREACH_SAFE(l, ct_lwp_tree, &p->lwps, next)
		lwp_free(ct, p, l);
}

static void
proc_reset_totals(struct cputrack *ct, struct proc *p)
{
	int s;

	for (s = 0; s < ct->grp.nspecs; s++) {
		cpc_buf_zero(ct->cpc, p->total[s]);
		p->sampled[s] = false;
		p->times[s] = (struct set_times){ 0 };
	}
}

static void
proc_free(struct cputrack *ct, struct proc *p)
{
	int s;

	proc_forget_lwps(ct, p);
	RB_REMOVE(ct_proc_tree, &ct->procs, p);
	for (s = 0; ct->cpc != NULL && s < ct->grp.nspecs; s++)
		if (p->total[s] != NULL)
			(void)cpc_buf_destroy(ct->cpc, p->total[s]);
	free(p->total);
	free(p->sampled);
	free(p->times);
	free(p);
}

static struct proc *
proc_get(struct cputrack *ct, pctx_t *pctx, pid_t pid)
{
	struct proc *p;
	int s;

	if ((p = proc_find(ct, pid)) != NULL) {
		p->pctx = pctx;
		return p;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->pid = pid;
	p->pctx = pctx;
	RB_INIT(&p->lwps);
	p->total = calloc((size_t)ct->grp.nspecs, sizeof(*p->total));
	p->sampled = calloc((size_t)ct->grp.nspecs, sizeof(*p->sampled));
	p->times = calloc((size_t)ct->grp.nspecs, sizeof(*p->times));
	RB_INSERT(ct_proc_tree, &ct->procs, p);
	if (p->total == NULL || p->sampled == NULL || p->times == NULL)
		goto fail;
	for (s = 0; s < ct->grp.nspecs; s++)
		if ((p->total[s] = cpc_buf_create(ct->cpc,
		    ct->templates[s])) == NULL)
			goto fail;
	return p;
fail:
	proc_free(ct, p);
	return NULL;
}

static void
sample_error(pid_t pid, const char *where, id_t lwpid, const char *access)
{
	if (errno == EAGAIN)
		fprintf(stderr, "%6d: %s: lwp%d: perf counter contents "
		    "invalidated\n", (int)pid, where, (int)lwpid);
	else
		fprintf(stderr, "%6d: %s: lwp%d: can't access %s - %s\n",
		    (int)pid, where, (int)lwpid, access, strerror(errno));
}

/*
 * Whether this user may still look into the process. An unreadable
 * (execute-only) or set-id program makes it undumpable: /proc/PID/exe
 * and perf_event_open(2) on it need CAP_SYS_PTRACE from then on.
 */
static bool
inspectable(pid_t pid)
{
	char path[64], target[PATH_MAX];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return readlink(path, target, sizeof(target)) >= 0 ||
	    (errno != EACCES && errno != EPERM);
}

static int
cb_init_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct cputrack *ct = arg;
	struct proc *p;
	struct lwp *l;
	bool first;
	int err;

	if (cputrack_interrupted)
		return 0;
	if ((p = proc_get(ct, pctx, pid)) == NULL ||
	    (l = calloc(1, sizeof(*l))) == NULL) {
		fprintf(stderr, "%6d: init_lwp: out of memory\n", (int)pid);
		return -1;
	}
	l->lwpid = lwpid;
	l->tid = pctx_lwp_tid(pctx, lwpid);
	if ((l->rot = rotation_create(ct->cpc, &ct->grp)) == NULL) {
		fprintf(stderr, "%6d: init_lwp: out of memory\n", (int)pid);
		free(l);
		return -1;
	}
	first = RB_EMPTY(&p->lwps);
	RB_INSERT(ct_lwp_tree, &p->lwps, l);
	if (cpc_bind_pctx(ct->cpc, pctx, lwpid, l->rot->sets[0], 0) != 0) {
		/* A thread of a captured process may die before its turn. */
		if (errno == ESRCH) {
			lwp_free(ct, p, l);
			return 0;
		}
		err = errno;
		if (err == EMFILE) {
			fd_limit_reached();
			if (!first) {
				lwp_free(ct, p, l);
				return 0;
			}
		}
		fprintf(stderr, "%6d: init_lwp: can't bind perf counters to "
		    "lwp%d - %s\n", (int)pid, (int)lwpid, strerror(err));
		if ((err == EACCES || err == EPERM) && !inspectable(pid))
			diag(NULL, "%d: execed a program that cannot be "
			    "tracked\n", (int)pid);
		lwp_free(ct, p, l);
		return -1;
	}
	if (ct->verbose && rotation_sample(ct->cpc, l->rot) == 0)
		rows_sample(ct, p, l, "init_lwp", 0, l->rot->now[0], 0, 0);
	return 0;
}

static int
cb_lwp_create(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct cputrack *ct = arg;
	struct proc *p = proc_find(ct, pid);
	struct lwp *l = lwp_find(p, lwpid);

	(void)pctx;
	if (cputrack_interrupted || l == NULL)
		return 0;
	/* Its counters were just bound: the row shows its zero start. */
	rows_sample(ct, p, l, "lwp_create", 0, l->rot->total[0], 0, 0);
	return 0;
}

/* Bind the next set of a rotation in place of the one just measured. */
static int
rotate(struct cputrack *ct, pctx_t *pctx, struct lwp *l)
{
	struct rotation *rot = l->rot;

	(void)cpc_unbind(ct->cpc, rot->sets[rot->current]);
	rotation_next(ct->cpc, rot);
	return cpc_bind_pctx(ct->cpc, pctx, l->lwpid, rot->sets[rot->current],
	    0);
}

static void
add_to_process(struct cputrack *ct, struct proc *p, struct lwp *l)
{
	int s;

	for (s = 0; s < ct->grp.nspecs; s++) {
		if (!l->rot->sampled[s])
			continue;
		cpc_buf_add(ct->cpc, p->total[s], p->total[s],
		    l->rot->total[s]);
		p->times[s].total_enabled += l->rot->times[s].total_enabled;
		p->times[s].total_running += l->rot->times[s].total_running;
		p->sampled[s] = true;
	}
}

/*
 * The LWP's counts are final (set c was the last counted, and is
 * unbound): into its process's totals; fini_lwp has nothing left to do.
 */
static void
lwp_final(struct cputrack *ct, struct proc *p, struct lwp *l, int c)
{
	if (ct->verbose)
		rows_sample(ct, p, l, "fini_lwp", c, l->rot->total[c],
		    l->rot->times[c].total_enabled,
		    l->rot->times[c].total_running);
	add_to_process(ct, p, l);
	l->finished = true;
}

static int
cb_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct cputrack *ct = arg;
	struct proc *p = proc_find(ct, pid);
	struct lwp *l = lwp_find(p, lwpid);
	int c, err;

	if (cputrack_interrupted || l == NULL || l->finished)
		return 0;
	c = l->rot->current;
	if (rotation_sample(ct->cpc, l->rot) != 0) {
		sample_error(pid, "tick", lwpid, "perf counter");
		return -1;
	}
	rotation_accumulate(ct->cpc, l->rot);
	rows_sample(ct, p, l, "tick", c, l->rot->delta[c],
	    l->rot->times[c].delta_enabled, l->rot->times[c].delta_running);
	if (ct->grp.nspecs > 1 && rotate(ct, pctx, l) != 0) {
		err = errno;
		/*
		 * The LWP is exiting (a tick can race with its end): what it
		 * counted up to now is all it will count.
		 */
		if (err == ESRCH || pctx_lwp_exiting(pctx, lwpid)) {
			lwp_final(ct, p, l, c);
			return 0;
		}
		fprintf(stderr, "%6d: tick: lwp%d: can't bind perf counters - "
		    "%s\n", (int)pid, (int)lwpid, strerror(err));
		return -1;
	}
	return 0;
}

static int
cb_fini_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct cputrack *ct = arg;
	struct proc *p = proc_find(ct, pid);
	struct lwp *l = lwp_find(p, lwpid);
	int c;

	(void)pctx;
	if (cputrack_interrupted || l == NULL || l->finished)
		return 0;
	c = l->rot->current;
	if (rotation_sample(ct->cpc, l->rot) != 0) {
		sample_error(pid, "fini_lwp", lwpid, "perf counters");
		return -1;
	}
	rotation_accumulate(ct->cpc, l->rot);
	/* Its counts are final: let the kernel counters go now. */
	(void)cpc_unbind(ct->cpc, l->rot->sets[c]);
	lwp_final(ct, p, l, c);
	return 0;
}

static void
total_rows(struct cputrack *ct, struct proc *p, struct lwp *l,
    const char *label, cpc_buf_t **totals, const bool *sampled,
    const struct set_times *times)
{
	int s;

	for (s = 0; s < ct->grp.nspecs; s++) {
		if (!sampled[s])
			continue;
		rows_sample(ct, p, l, label, s, totals[s],
		    times[s].total_enabled, times[s].total_running);
		if (cpc_buf_hrtime(ct->cpc, totals[s]) > p->last_total_time)
			p->last_total_time = cpc_buf_hrtime(ct->cpc, totals[s]);
	}
}

static int
cb_lwp_exit(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct cputrack *ct = arg;
	struct proc *p = proc_find(ct, pid);
	struct lwp *l = lwp_find(p, lwpid);

	(void)pctx;
	if (cputrack_interrupted || l == NULL)
		return 0;
	total_rows(ct, p, l, "lwp_exit", l->rot->total, l->rot->sampled,
	    l->rot->times);
	lwp_free(ct, p, l);
	return 0;
}

static void
cb_exit(pctx_t *pctx, pid_t pid, id_t lwpid, int status, void *arg)
{
	struct cputrack *ct = arg;
	struct proc *p = proc_find(ct, pid);
	struct lwp exiting = { .lwpid = lwpid, .tid = pid };

	(void)pctx;
	(void)status;
	if (cputrack_interrupted || p == NULL)
		return;
	exiting.tid = pctx_lwp_tid(pctx, lwpid);
	total_rows(ct, p, &exiting, "exit", p->total, p->sampled, p->times);
	proc_free(ct, p);
}

static int
cb_exec(pctx_t *pctx, pid_t pid, id_t lwpid, char *cmd, void *arg)
{
	struct cputrack *ct = arg;
	struct proc *p = proc_find(ct, pid);
	struct lwp leader = { .lwpid = lwpid, .tid = pid };

	(void)pctx;
	if (cputrack_interrupted || p == NULL)
		return 0;
	p->last_total_time = 0;
	total_rows(ct, p, &leader, "exec", p->total, p->sampled, p->times);
	rows_exec_marker(ct, p, cmd != NULL ? cmd : "(unknown)");
	proc_forget_lwps(ct, p);
	proc_reset_totals(ct, p);
	return ct->follow_exec ? 0 : -1;
}

static void
cb_fork(pctx_t *child, pid_t parent, id_t lwpid, pid_t pid, void *arg)
{
	struct cputrack *ct = arg;

	if (cputrack_interrupted)
		return;
	rows_fork(ct, parent, lwpid, pid);
	if (!ct->follow_fork)
		return;
	if (track_setup(ct, child) != 0 ||
	    pctx_run(child, ct->interval_ms, ct->nsamples, cb_tick) != 0)
		diag(NULL, "cannot follow pid %d\n", (int)pid);
}

int
track_setup(struct cputrack *ct, pctx_t *pctx)
{
	(void)ct;
	return pctx_set_events(pctx,
	    PCTX_SYSC_EXEC_EVENT, cb_exec,
	    PCTX_SYSC_FORK_EVENT, cb_fork,
	    PCTX_SYSC_EXIT_EVENT, cb_exit,
	    PCTX_SYSC_LWP_CREATE_EVENT, cb_lwp_create,
	    PCTX_INIT_LWP_EVENT, cb_init_lwp,
	    PCTX_FINI_LWP_EVENT, cb_fini_lwp,
	    PCTX_SYSC_LWP_EXIT_EVENT, cb_lwp_exit,
	    PCTX_NULL_EVENT);
}

int
track_run(struct cputrack *ct, pctx_t *pctx)
{
	return pctx_run(pctx, ct->interval_ms, ct->nsamples, cb_tick);
}

/* Free the records once cpc_close has taken the sets and buffers. */
void
track_forget(struct cputrack *ct)
{
	struct proc *p, *next;

	RB_FOREACH_SAFE(p, ct_proc_tree, &ct->procs, next)
		proc_free(ct, p);
}
