/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The counters as metrics (see out_metrics.h).
 *
 * A series is one counter per event of a set, for one CPU (cpustat), one
 * LWP or one process (cputrack), with the enabled and running times. Tick
 * rows add their slices; the totals of an LWP (lwp_exit, fini_lwp) or of a
 * process image (exec, exit) replace what the ticks added up to, being
 * exact where the ticks miss the end. A series whose LWP or process ended
 * is kept OUT_METRICS_RETAIN_NS, then dropped; and of those, no more than
 * the latest OUT_METRICS_MAX_ENDED are kept, the first ended going first
 * (counted by cputrack_ended_series_dropped_total): a program that churns
 * through threads leaves a bounded table. Series are named by their
 * labels: when new ones come under the same labels (a pid used again, an
 * image that kept its name), the counter goes on from where it was
 * instead of starting again, so that it never goes down.
 *
 * Families, for tool T (cpustat or cputrack):
 *   T_events_total           events: cpu | pid,lwp,comm,cgroup; event; set
 *                            (where the cgroup names a pod or a container,
 *                            its ids after cgroup: k8s_labels.h)
 *                            (cpustat --per-*: socket, die, core, node,
 *                            those the unit has, instead of cpu)
 *   T_event_seconds_total    clock events (ns) in seconds, the same labels
 *   T_enabled_seconds_total  cpu | pid,lwp,comm,cgroup; set
 *   T_running_seconds_total  the same
 *   cpustat_gap_intervals_total  cpu, set: intervals held in gap rows
 *   cputrack_process_events_total, cputrack_process_event_seconds_total:
 *                            pid, comm, cgroup, event, set
 *   T_not_counted, T_partial 1, with the row's labels, set and reason
 *   T_metric, cputrack_process_metric, cputrack_cgroup_metric:
 *                            --metrics, -M: the series' labels, metric
 *                            (its key), set; from the counts so far
 *   T_set_info               set, spec
 *   cpctools_build_info      tool, version
 *   T_start_time_seconds     the run's start, seconds since the epoch
 *   cputrack_ended_series_dropped_total  series of ended LWPs and
 *                            processes dropped early by the bound
 *   cputrack_cgroup_*        --cgroup: the cgroup's events, enabled,
 *                            running and set seconds
 * and over HTTP (out_health): process_* as Prometheus clients have them,
 * T_rows_dropped_total, T_scrape_duration_seconds, cputrack_engine_info,
 * and with --for-each-cgroup cputrack_cgroups_folded.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "k8s_labels.h"
#include "out_metrics.h"
#include "procname.h"
#include "topology.h"

/* The most counts of a series the metrics are computed from. */
#define METRIC_MAX_VALUES 64

#define STRINGIFY_(x) #x
#define STRINGIFY(x)  STRINGIFY_(x)

enum kind { K_CPU, K_TOTAL, K_LWP, K_PROCESS, K_CGROUP };

struct series {
	struct series *prev, *next;   /* all, oldest first */
	struct series *hnext;	      /* the same hash bucket */
	struct series *eprev, *enext; /* ended, in the order they ended */
	enum kind kind;
	int cpu;
	pid_t pid;
	int lwp;
	int set;
	char *comm;
	/*
	 * A process's or LWP's: its process's cgroup when the series began
	 * (a label, not part of its name, so that it never changes); NULL:
	 * not known.
	 */
	char *cgroup;
	/* Its cgroup's pod and container, where it names them; or NULL. */
	struct k8s_ids *k8s;
	pid_t tid;	/* whose counts they are now */
	unsigned image; /* of its process, now */
	bool ended;
	hrtime_t ended_at;
	hrtime_t created; /* when it began to count (monotonic ns) */
	bool counted;	  /* some values came */
	char *not_counted;
	char *partial;
	/* [0]: what ended incarnations counted; [1]: the one counting now */
	uint64_t enabled[2];
	uint64_t running[2];
	uint64_t gap_intervals; /* cpustat: held in gap rows */
	uint64_t set_ns;	/* a cgroup's: time its set was in use */
	/*
	 * A process's: what the series of its image's LWPs that were
	 * dropped had (nvalues values, then enabled and running), so that
	 * its total still divides right among the rest (finish_lwps).
	 */
	uint64_t *gone;
	int nvalues;
	uint64_t values[][2];
};

/* A process of cputrack: its name and cgroup, for the series' labels. */
struct mproc {
	struct mproc *hnext;
	pid_t pid;
	char comm[64];
	char *cgroup;	/* NULL: not known */
	unsigned image; /* execs so far */
};

#define PROC_BUCKETS 1024

struct out_metrics {
	const struct out_run *run;
	bool thread_series; /* series per LWP too */
	struct series *first, *last;
	struct series **buckets;
	size_t nbuckets;
	size_t nseries;
	struct series *ended_first, *ended_last;
	size_t nended;
	uint64_t dropped; /* ended series dropped by the bound */
	struct mproc *procs[PROC_BUCKETS];
	bool changed;
	struct out_buf samples; /* a family's, while rendered */
	/* The time of the cgroup rows of the last tick, and of the one before.
	 */
	hrtime_t cgroup_row_at, cgroup_before;
	hrtime_t row_began; /* the row's counting began: a new series' */
	/* While rendered: OpenMetrics, and the last sample's labels. */
	bool om;
	size_t labels_at, labels_end;
	struct out_buf labels;
};

struct out_metrics *
out_metrics_new(const struct out_run *run, bool thread_series)
{
	struct out_metrics *m;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	m->run = run;
	m->thread_series = thread_series;
	m->nbuckets = 64;
	if ((m->buckets = calloc(m->nbuckets, sizeof(*m->buckets))) == NULL) {
		free(m);
		return NULL;
	}
	m->changed = true;
	return m;
}

static void
series_free(struct series *s)
{
	free(s->gone);
	free(s->comm);
	free(s->cgroup);
	free(s->k8s);
	free(s->not_counted);
	free(s->partial);
	free(s);
}

static void
proc_free(struct mproc *p)
{
	free(p->cgroup);
	free(p);
}

void
out_metrics_free(struct out_metrics *m)
{
	struct series *s, *next;
	struct mproc *p, *pnext;
	int i;

	if (m == NULL)
		return;
	for (s = m->first; s != NULL; s = next) {
		next = s->next;
		series_free(s);
	}
	for (i = 0; i < PROC_BUCKETS; i++)
		for (p = m->procs[i]; p != NULL; p = pnext) {
			pnext = p->hnext;
			proc_free(p);
		}
	free(m->buckets);
	out_buf_free(&m->samples);
	out_buf_free(&m->labels);
	free(m);
}

bool
out_metrics_changed(const struct out_metrics *m)
{
	return m->changed;
}

/* FNV-1a over the labels that name a series. */
static size_t
key_hash(enum kind kind, int cpu, pid_t pid, int lwp, int set, const char *comm)
{
	uint64_t h = 14695981039346656037ULL;
	int parts[5] = { (int)kind, cpu, (int)pid, lwp, set };
	const unsigned char *p;
	size_t i;

	for (p = (const unsigned char *)parts;
	     p < (const unsigned char *)(parts + 5); p++)
		h = (h ^ *p) * 1099511628211ULL;
	for (i = 0; comm[i] != '\0'; i++)
		h = (h ^ (unsigned char)comm[i]) * 1099511628211ULL;
	return (size_t)h;
}

static size_t
series_hash(const struct series *s)
{
	return key_hash(s->kind, s->cpu, s->pid, s->lwp, s->set, s->comm);
}

static void
grow_buckets(struct out_metrics *m)
{
	struct series **grown, *s;
	size_t n = m->nbuckets * 2, b;

	if ((grown = calloc(n, sizeof(*grown))) == NULL)
		return; /* longer chains, still right */
	for (s = m->first; s != NULL; s = s->next) {
		b = series_hash(s) % n;
		s->hnext = grown[b];
		grown[b] = s;
	}
	free(m->buckets);
	m->buckets = grown;
	m->nbuckets = n;
}

/* The series of these labels, or NULL. */
static struct series *
series_lookup(const struct out_metrics *m, enum kind kind, int cpu, pid_t pid,
    int lwp, int set, const char *comm)
{
	size_t b = key_hash(kind, cpu, pid, lwp, set, comm) % m->nbuckets;
	struct series *s;

	for (s = m->buckets[b]; s != NULL; s = s->hnext)
		if (s->kind == kind && s->cpu == cpu && s->pid == pid &&
		    s->lwp == lwp && s->set == set &&
		    strcmp(s->comm, comm) == 0)
			return s;
	return NULL;
}

/*
 * The pod and container its cgroup names, read once: its labels beside
 * the cgroup's. 0, or -1 without memory.
 */
static int
series_k8s(const struct out_metrics *m, struct series *s, const char *cgroup)
{
	struct k8s_ids ids;

	if (cgroup == NULL ||
	    !k8s_ids_parse(cgroup, m->run->cfg.kubelet_root, &ids))
		return 0;
	if ((s->k8s = malloc(sizeof(*s->k8s))) == NULL)
		return -1;
	*s->k8s = ids;
	return 0;
}

/* The series of these labels, made if it is new; NULL without memory. */
static struct series *
series_find(struct out_metrics *m, enum kind kind, int cpu, pid_t pid, int lwp,
    int set, const char *comm, const char *cgroup)
{
	size_t b = key_hash(kind, cpu, pid, lwp, set, comm) % m->nbuckets;
	int n = m->run->specs[set]->nreqs;
	struct series *s;

	if ((s = series_lookup(m, kind, cpu, pid, lwp, set, comm)) != NULL)
		return s;
	if ((s = calloc(1, sizeof(*s) + (size_t)n * sizeof(s->values[0]))) ==
		NULL ||
	    (s->comm = strdup(comm)) == NULL ||
	    (cgroup != NULL && (s->cgroup = strdup(cgroup)) == NULL) ||
	    series_k8s(m, s, kind == K_CGROUP ? comm : cgroup) != 0) {
		if (s != NULL) {
			free(s->comm);
			free(s->cgroup);
		}
		free(s);
		return NULL;
	}
	s->kind = kind;
	s->cpu = cpu;
	s->pid = pid;
	s->lwp = lwp;
	s->set = set;
	s->tid = -1;
	s->created = m->row_began;
	s->nvalues = n;
	s->hnext = m->buckets[b];
	m->buckets[b] = s;
	s->prev = m->last;
	if (m->last != NULL)
		m->last->next = s;
	else
		m->first = s;
	m->last = s;
	if (++m->nseries > 2 * m->nbuckets)
		grow_buckets(m);
	return s;
}

/* The ended list: a series that ends goes last. */
static void
ended_append(struct out_metrics *m, struct series *s)
{
	s->enext = NULL;
	s->eprev = m->ended_last;
	if (m->ended_last != NULL)
		m->ended_last->enext = s;
	else
		m->ended_first = s;
	m->ended_last = s;
	m->nended++;
}

static void
ended_unlink(struct out_metrics *m, struct series *s)
{
	if (s->eprev != NULL)
		s->eprev->enext = s->enext;
	else
		m->ended_first = s->enext;
	if (s->enext != NULL)
		s->enext->eprev = s->eprev;
	else
		m->ended_last = s->eprev;
	s->eprev = s->enext = NULL;
	m->nended--;
}

static void
series_remove(struct out_metrics *m, struct series *s)
{
	struct series **pp = &m->buckets[series_hash(s) % m->nbuckets];

	if (s->ended)
		ended_unlink(m, s);
	while (*pp != s)
		pp = &(*pp)->hnext;
	*pp = s->hnext;
	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		m->first = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	else
		m->last = s->prev;
	m->nseries--;
	series_free(s);
}

/*
 * Drop an ended series. An LWP's counts of an image still running stay
 * in its process's series, for its total to divide right at its end.
 */
static void
series_drop(struct out_metrics *m, struct series *s)
{
	struct series *proc;
	int i;

	if (s->kind == K_LWP && s->counted &&
	    (proc = series_lookup(
		 m, K_PROCESS, -1, s->pid, -1, s->set, s->comm)) != NULL &&
	    !proc->ended && proc->image == s->image &&
	    (proc->gone != NULL ||
		(proc->gone = calloc((size_t)proc->nvalues + 2,
		     sizeof(*proc->gone))) != NULL)) {
		for (i = 0; i < s->nvalues; i++)
			proc->gone[i] += s->values[i][1];
		proc->gone[s->nvalues] += s->enabled[1];
		proc->gone[s->nvalues + 1] += s->running[1];
	}
	series_remove(m, s);
	m->changed = true;
}

/*
 * Drop the series that ended beyond the latest OUT_METRICS_MAX_ENDED,
 * first ended first, then those that ended longer ago than they are
 * kept: the ended list is in the order they ended, so both are at its
 * head. Done before a row is taken and before the table is written, never
 * while a row walks the series.
 */
static void
prune(struct out_metrics *m, hrtime_t now)
{
	while (m->nended > OUT_METRICS_MAX_ENDED) {
		series_drop(m, m->ended_first);
		m->dropped++;
	}
	while (m->ended_first != NULL &&
	    now - m->ended_first->ended_at > OUT_METRICS_RETAIN_NS)
		series_drop(m, m->ended_first);
}

/* The counts from now on are a new LWP's, or a new image's. */
static void
begin(struct out_metrics *m, struct series *s, pid_t tid, unsigned image)
{
	int i;

	if (!s->ended && s->tid == tid && s->image == image)
		return;
	if (s->ended)
		ended_unlink(m, s);
	for (i = 0; i < s->nvalues; i++) {
		s->values[i][0] += s->values[i][1];
		s->values[i][1] = 0;
	}
	s->enabled[0] += s->enabled[1];
	s->running[0] += s->running[1];
	s->enabled[1] = s->running[1] = 0;
	if (s->gone != NULL)
		memset(s->gone, 0, ((size_t)s->nvalues + 2) * sizeof(*s->gone));
	s->ended = false;
	s->tid = tid;
	s->image = image;
}

/* A slice adds to what is counting now; a total replaces it. */
static void
take(struct series *s, const struct out_row *row, bool total)
{
	uint64_t v;
	int i;

	for (i = 0; i < s->nvalues; i++) {
		v = row->values[i];
		s->values[i][1] = total ? v : s->values[i][1] + v;
	}
	s->enabled[1] =
	    total ? row->enabled_ns : s->enabled[1] + row->enabled_ns;
	s->running[1] =
	    total ? row->running_ns : s->running[1] + row->running_ns;
	s->counted = true;
}

static void
note(char **where, const char *reason)
{
	char *copy;

	if (reason == NULL || (*where != NULL && strcmp(*where, reason) == 0))
		return;
	if ((copy = strdup(reason)) == NULL)
		return;
	free(*where);
	*where = copy;
}

/* What a row says about a series: its values, or why there are none. */
static void
apply(struct series *s, const struct out_row *row, bool total)
{
	if (s == NULL)
		return;
	note(&s->partial, row->partial);
	if (row->not_counted != NULL)
		note(&s->not_counted, row->not_counted);
	else if (s->kind != K_TOTAL)
		take(s, row, total);
}

static void
end(struct out_metrics *m, struct series *s, hrtime_t now)
{
	if (s != NULL && !s->ended) {
		s->ended = true;
		s->ended_at = now;
		ended_append(m, s);
	}
}

/* cputrack's processes. */

static struct mproc **
proc_slot(struct out_metrics *m, pid_t pid)
{
	struct mproc **pp = &m->procs[(unsigned)pid % PROC_BUCKETS];

	while (*pp != NULL && (*pp)->pid != pid)
		pp = &(*pp)->hnext;
	return pp;
}

/*
 * The process, its name taken from the row or read when first seen; its
 * cgroup its parent's (a fork's child starts in it), or not known until
 * the tracker says the process is there (out_metrics_process).
 */
static struct mproc *
proc_new(struct out_metrics *m, pid_t pid, const char *comm,
    const struct mproc *parent)
{
	struct mproc **pp = proc_slot(m, pid), *p;

	if ((p = *pp) != NULL)
		return p;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->pid = pid;
	if (comm != NULL)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	else
		proc_comm(pid, p->comm, sizeof(p->comm));
	if (parent != NULL && parent->cgroup != NULL)
		p->cgroup = strdup(parent->cgroup);
	*pp = p;
	return p;
}

static struct mproc *
proc_of(struct out_metrics *m, pid_t pid, const char *comm)
{
	return proc_new(m, pid, comm, NULL);
}

void
out_metrics_process(
    struct out_metrics *m, pid_t pid, const char *comm, const char *cgroup)
{
	struct mproc *p = proc_of(m, pid, comm);

	if (p != NULL && p->cgroup == NULL)
		p->cgroup = cgroup != NULL ? strdup(cgroup) : proc_cgroup(pid);
}

/* A new image (exec): its name now. */
static void
proc_exec(struct out_metrics *m, pid_t pid, const char *comm)
{
	struct mproc *p = proc_of(m, pid, comm);
	char *cgroup;

	if (p == NULL)
		return;
	p->image++;
	if (comm != NULL)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	else
		proc_comm(pid, p->comm, sizeof(p->comm));
	/* A service manager's child moves itself, then execs. */
	if (p->cgroup != NULL && (cgroup = proc_cgroup(pid)) != NULL) {
		free(p->cgroup);
		p->cgroup = cgroup;
	}
}

static void
proc_forget(struct out_metrics *m, pid_t pid)
{
	struct mproc **pp = proc_slot(m, pid), *p = *pp;

	if (p != NULL) {
		*pp = p->hnext;
		proc_free(p);
	}
}

/* An image ended (exec, exit): its series of the set end. */
static void
end_image(struct out_metrics *m, pid_t pid, int set, hrtime_t now)
{
	struct series *s;

	for (s = m->first; s != NULL; s = s->next)
		if (s->pid == pid && s->set == set &&
		    (s->kind == K_LWP || s->kind == K_PROCESS))
			end(m, s, now);
}

/* The image's LWP series of a set that have counts. */
static bool
of_image(const struct series *s, const struct mproc *p, int set)
{
	return s->kind == K_LWP && s->pid == p->pid && s->set == set &&
	    s->image == p->image && s->counted;
}

/*
 * What the image's other LWP series have of value i (-1, -2: times),
 * those dropped (in its process's series, proc) among them.
 */
static uint64_t
others(const struct out_metrics *m, const struct mproc *p,
    const struct series *proc, const struct series *last,
    const struct out_row *row, int i)
{
	const struct series *s;
	uint64_t sum = 0;

	for (s = m->first; s != NULL; s = s->next)
		if (s != last && of_image(s, p, row->setno))
			sum += i >= 0 ? s->values[i][1] :
			    i == -1   ? s->enabled[1] :
					s->running[1];
	if (proc != NULL && proc->gone != NULL)
		sum += proc->gone[i >= 0 ? i :
			i == -1		 ? proc->nvalues :
					   proc->nvalues + 1];
	return sum;
}

/*
 * An image's total has, beyond its LWPs' series, what the LWPs still
 * running at its end counted since their last tick. When the one running
 * is the one that ended it, that is all its own, and its series gets it:
 * exact. With more running, how it divides is not known: their series
 * stay at their last tick (the process's series has it all).
 */
static void
finish_lwps(struct out_metrics *m, const struct mproc *p,
    const struct series *proc, struct series *last, const struct out_row *row)
{
	struct series *s;
	int i, running = 0;

	for (s = m->first; s != NULL; s = s->next)
		if (of_image(s, p, row->setno) && !s->ended &&
		    (++running > 1 || s != last))
			return;
	for (i = 0; i < last->nvalues; i++)
		if (row->values[i] < others(m, p, proc, NULL, row, i))
			return;
	if (row->enabled_ns < others(m, p, proc, NULL, row, -1) ||
	    row->running_ns < others(m, p, proc, NULL, row, -2))
		return;
	begin(m, last, row->tid, p->image);
	for (i = 0; i < last->nvalues; i++)
		last->values[i][1] =
		    row->values[i] - others(m, p, proc, last, row, i);
	last->enabled[1] = row->enabled_ns - others(m, p, proc, last, row, -1);
	last->running[1] = row->running_ns - others(m, p, proc, last, row, -2);
	last->counted = true;
}

static bool
is(const struct out_row *row, const char *label)
{
	return strcmp(row->label, label) == 0;
}

/* A cgroup that is gone: its series end, in every set. */
static void
cgroup_gone(struct out_metrics *m, const char *name, hrtime_t now)
{
	struct series *s;

	for (s = m->first; s != NULL; s = s->next)
		if (s->kind == K_CGROUP && strcmp(s->comm, name) == 0)
			end(m, s, now);
}

/*
 * --cgroup's and --for-each-cgroup's rows: pid 0, the cgroup's name for
 * comm. Each of its interval rows adds to its series; its total at the
 * end of the run is their sum. A cgroup that is gone (rmdir) ends its
 * series with its last row.
 */
static void
cgroup_row(struct out_metrics *m, const struct out_row *row, hrtime_t now)
{
	const char *name = row->comm != NULL ? row->comm : "";
	hrtime_t since;
	struct series *s;

	if (!is(row, "cgroup") && !is(row, "rmdir"))
		return;
	/* Every cgroup's row of a tick has the tick's time. */
	if (row->when > m->cgroup_row_at) {
		m->cgroup_before = m->cgroup_row_at;
		m->cgroup_row_at = row->when;
	}
	s = series_find(m, K_CGROUP, -1, 0, -1, row->setno, name, NULL);
	apply(s, row, false);
	/*
	 * The sets take turns at the ticks, for every thread at once: the
	 * time since the last tick, or since the series began, is this
	 * row's set's.
	 */
	since = m->cgroup_before != 0 ? m->cgroup_before : m->run->start;
	if (s != NULL && s->created > since)
		since = s->created;
	if (s != NULL && row->when > since)
		s->set_ns += (uint64_t)(row->when - since);
	if (is(row, "rmdir"))
		cgroup_gone(m, name, now);
}

static void
cputrack_row(struct out_metrics *m, const struct out_row *row, hrtime_t now)
{
	struct mproc *p = proc_of(m, row->pid, row->comm);
	const char *comm = p != NULL ? p->comm : "";
	const char *cgroup = p != NULL ? p->cgroup : NULL;
	unsigned image = p != NULL ? p->image : 0;
	struct series *lwp, *proc;

	lwp = series_find(
	    m, K_LWP, -1, row->pid, row->lwp, row->setno, comm, cgroup);
	proc = series_find(
	    m, K_PROCESS, -1, row->pid, -1, row->setno, comm, cgroup);
	if (is(row, "tick") || is(row, "gap") || is(row, "lwp_create") ||
	    is(row, "init_lwp")) {
		if (lwp != NULL)
			begin(m, lwp, row->tid, image);
		if (proc != NULL)
			begin(m, proc, row->pid, image);
		apply(lwp, row, false);
		if (row->not_counted == NULL)
			apply(proc, row, false);
	} else if (is(row, "lwp_exit") || is(row, "fini_lwp")) {
		if (lwp != NULL)
			begin(m, lwp, row->tid, image);
		apply(lwp, row, true);
		if (is(row, "lwp_exit"))
			end(m, lwp, now);
	} else if (is(row, "exec") || is(row, "exit") || is(row, "leave")) {
		if (proc != NULL)
			begin(m, proc, row->pid, image);
		apply(proc, row, true);
		if (row->not_counted == NULL && p != NULL && lwp != NULL)
			finish_lwps(m, p, proc, lwp, row);
		end_image(m, row->pid, row->setno, now);
		if (!is(row, "exec"))
			proc_forget(m, row->pid);
	}
}

/*
 * A row of one CPU of cpustat, or of one unit (--per-*: named by the
 * unit, cpu -1); a gap row's intervals are counted too.
 */
static void
cpustat_row(struct out_metrics *m, const struct out_row *row)
{
	struct series *s = series_find(m, K_CPU, row->cpu, -1, -1, row->setno,
	    row->unit != NULL ? row->unit : "", NULL);

	apply(s, row, false);
	if (s != NULL && row->intervals > 1)
		s->gap_intervals += row->intervals;
}

void
out_metrics_row(struct out_metrics *m, const struct out_row *row, hrtime_t now)
{
	prune(m, now);
	if (row->setno < 0) {
		if (m->run->cfg.tool != OUT_CPUTRACK)
			return;
		/*
		 * A fork's child has its parent's name. Read from /proc, it
		 * may be an image's it exec'd since (an engine that reports
		 * the fork late).
		 */
		if (row->child > 0)
			(void)proc_new(m, row->child, row->comm,
			    proc_of(m, row->pid, row->comm));
		else if (row->args != NULL)
			proc_exec(m, row->pid, row->comm);
		return;
	}
	m->changed = true;
	/* What it counted since the row's enabled time began, or the run. */
	m->row_began = now > m->run->start + (hrtime_t)row->enabled_ns ?
	    now - (hrtime_t)row->enabled_ns :
	    m->run->start;
	if (m->run->cfg.tool == OUT_CPUTRACK && row->pid == 0)
		cgroup_row(m, row, now);
	else if (m->run->cfg.tool == OUT_CPUTRACK)
		cputrack_row(m, row, now);
	else if (row->cpu >= 0 || row->unit != NULL)
		cpustat_row(m, row);
	else
		apply(series_find(m, K_TOTAL, -1, -1, -1, row->setno, "", NULL),
		    row, true);
}

/* Rendering. */

/*
 * The "info" metrics (a set's spec, the tool's version) are gauges named
 * *_info, whose value is 1, as Prometheus's own are: node_exporter's
 * textfile collector, which reads the Prometheus text format even in an
 * OpenMetrics file, refuses OpenMetrics' info type.
 */
enum family_type { F_COUNTER, F_GAUGE };

struct family {
	const char *prefix; /* NULL: the tool's name */
	const char *name;
	enum family_type type;
	const char *unit; /* "seconds", or NULL */
	const char *help;
};

static const char *const type_names[] = { "counter", "gauge" };
static const char *const sample_suffix[] = { "_total", "" };

static const char *
prefix_of(const struct out_metrics *m, const struct family *f)
{
	return f->prefix != NULL ? f->prefix : m->run->tool;
}

/* The name of a family's samples: the family's plus the type's suffix. */
static void
sample_name(struct out_metrics *m, struct out_buf *b, const struct family *f)
{
	out_buf_printf(
	    b, "%s_%s%s", prefix_of(m, f), f->name, sample_suffix[f->type]);
}

/* The family's metadata, then its samples, if it has any. */
static void
family_out(
    struct out_metrics *m, struct out_buf *b, const struct family *f, bool om)
{
	const char *prefix = prefix_of(m, f), *name = f->name;

	if (m->samples.len == 0)
		return;
	if (om) {
		out_buf_printf(
		    b, "# TYPE %s_%s %s\n", prefix, name, type_names[f->type]);
		if (f->unit != NULL)
			out_buf_printf(
			    b, "# UNIT %s_%s %s\n", prefix, name, f->unit);
		out_buf_printf(b, "# HELP %s_%s %s\n", prefix, name, f->help);
	} else {
		out_buf_printf(b, "# HELP %s_%s%s %s\n", prefix, name,
		    sample_suffix[f->type], f->help);
		out_buf_printf(b, "# TYPE %s_%s%s %s\n", prefix, name,
		    sample_suffix[f->type], type_names[f->type]);
	}
	out_buf_add(b, m->samples.data, m->samples.len);
	out_buf_reset(&m->samples);
}

static void
label(struct out_buf *b, bool *first, const char *key, const char *value)
{
	out_buf_printf(b, "%s%s=\"", *first ? "{" : ",", key);
	out_buf_label(b, value);
	out_buf_str(b, "\"");
	*first = false;
}

static void
label_int(struct out_buf *b, bool *first, const char *key, long long v)
{
	char text[24];

	snprintf(text, sizeof(text), "%lld", v);
	label(b, first, key, text);
}

/* The pod's and container's ids of a series' cgroup (k8s_labels.h). */
static void
k8s_labels(struct out_buf *b, bool *first, const struct k8s_ids *ids)
{
	const char *keys[K8S_LABELS_MAX], *values[K8S_LABELS_MAX];
	size_t i, n = k8s_ids_labels(ids, keys, values);

	for (i = 0; i < n; i++)
		label(b, first, keys[i], values[i]);
}

/* A unit's labels (--per-*): the socket, die, ... it names. */
static void
unit_labels(struct out_buf *b, bool *first, const char *unit)
{
	int f, v;

	for (f = 0; f < TOPO_NFIELDS; f++)
		if ((v = topology_name_field(unit, (enum topo_field)f)) >= 0)
			label_int(b, first, topology_field_keys[f], v);
}

/*
 * A sample's name and labels: the series', then key (event or metric)
 * with its value, set and reason.
 */
static void
sample_start_keyed(struct out_metrics *m, const struct family *f,
    const struct series *s, const char *key, const char *value,
    const char *reason)
{
	struct out_buf *b = &m->samples;
	bool first = true;

	sample_name(m, b, f);
	m->labels_at = b->len;
	if (s->kind == K_CPU && s->comm[0] != '\0')
		unit_labels(b, &first, s->comm);
	else if (s->kind == K_CPU)
		label_int(b, &first, "cpu", s->cpu);
	if (s->kind == K_LWP || s->kind == K_PROCESS)
		label_int(b, &first, "pid", s->pid);
	if (s->kind == K_LWP)
		label_int(b, &first, "lwp", s->lwp);
	if (s->kind == K_LWP || s->kind == K_PROCESS)
		label(b, &first, "comm", s->comm);
	if ((s->kind == K_LWP || s->kind == K_PROCESS) && s->cgroup != NULL)
		label(b, &first, "cgroup", s->cgroup);
	if (s->kind == K_CGROUP)
		label(b, &first, "cgroup", s->comm);
	if (s->k8s != NULL)
		k8s_labels(b, &first, s->k8s);
	if (value != NULL)
		label(b, &first, key, value);
	label_int(b, &first, "set", s->set);
	if (reason != NULL)
		label(b, &first, "reason", reason);
	out_buf_str(b, "}");
	m->labels_end = b->len;
}

static void
sample_start(struct out_metrics *m, const struct family *f,
    const struct series *s, const char *event, const char *reason)
{
	sample_start_keyed(m, f, s, "event", event, reason);
}

/*
 * OpenMetrics: after a counter's sample, its _created sample with the
 * same labels, when it began to count (epoch_ns, since the epoch). The
 * labels are copied out first: adding to the buffer may move it.
 */
static void
created_out(struct out_metrics *m, const struct family *f, long long epoch_ns)
{
	if (!m->om)
		return;
	out_buf_reset(&m->labels);
	out_buf_add(&m->labels, m->samples.data + m->labels_at,
	    m->labels_end - m->labels_at);
	out_buf_printf(&m->samples, "%s_%s_created", prefix_of(m, f), f->name);
	out_buf_add(&m->samples, m->labels.data, m->labels.len);
	out_buf_printf(&m->samples, " %lld.%09lld\n", epoch_ns / 1000000000LL,
	    epoch_ns % 1000000000LL);
}

/* A series' _created, from the run's start on the realtime clock. */
static void
series_created(
    struct out_metrics *m, const struct family *f, const struct series *s)
{
	created_out(m, f,
	    (long long)out_run_start_ns(m->run) + (s->created - m->run->start));
}

static void
value_out(struct out_buf *b, uint64_t v, bool seconds)
{
	if (seconds)
		out_buf_printf(b, " %llu.%09llu\n",
		    (unsigned long long)(v / 1000000000ULL),
		    (unsigned long long)(v % 1000000000ULL));
	else
		out_buf_printf(b, " %llu\n", (unsigned long long)v);
}

/* The events of series of one kind, counts or clocks. */
static void
events_family(struct out_metrics *m, struct out_buf *b, enum kind kind,
    const struct family *f, bool clocks, bool om)
{
	const struct spec *spec;
	struct series *s;
	int r;

	for (s = m->first; s != NULL; s = s->next) {
		if (s->kind != kind || !s->counted)
			continue;
		spec = m->run->specs[s->set];
		for (r = 0; r < s->nvalues; r++) {
			if (out_run_is_clock(m->run, spec->reqs[r].name) !=
			    clocks)
				continue;
			sample_start(m, f, s, spec->reqs[r].name, NULL);
			value_out(&m->samples,
			    s->values[r][0] + s->values[r][1], clocks);
			series_created(m, f, s);
		}
	}
	family_out(m, b, f, om);
}

/*
 * One metric of a series, where it has a value: -M's as the formula gives
 * it (the unit's scale left to the dashboards), --metrics's as its key
 * says (K/sec).
 */
static void
metric_sample(struct out_metrics *m, const struct family *f, struct series *s,
    const struct out_metric *mt, double value)
{
	if (isnan(value) || isinf(value))
		return;
	sample_start_keyed(m, f, s, "metric", mt->key, NULL);
	out_buf_printf(&m->samples, " %.17g\n",
	    mt->by_key ? value : value / mt->shown->scale);
}

/*
 * The metrics of a series, from all its counts so far (a ratio of
 * counts: those that divide by the elapsed time are the rate of the
 * event series' counters instead): -M's first, perf's tma_* names as the
 * metric label, then --metrics's keys. The output's lock is held: the
 * run's scratch is this series' alone.
 */
static void
metric_samples(struct out_metrics *m, const struct family *f, struct series *s,
    const uint64_t *values)
{
	struct out_run *run = (struct out_run *)m->run;
	const struct out_metric *mt;
	struct metric_counts in = {
		.values = values,
		.nvalues = s->nvalues,
		.cpus = 1,
		.elapsed_s = NAN,
		.counted = true,
	};
	int i, pass, n = out_run_set_metrics(run, s->set, &mt);

	out_run_eval(run, s->set, &in, run->metric_values);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (mt[i].by_key == (pass == 1))
				metric_sample(m, f, s, &mt[i],
				    run->metric_values[i].value);
}

static void
metrics_family(struct out_metrics *m, struct out_buf *b, enum kind kind,
    const struct family *f, bool om)
{
	uint64_t values[METRIC_MAX_VALUES];
	const struct out_metric *first;
	struct series *s;
	int r;

	for (s = m->first; s != NULL; s = s->next) {
		if (s->kind != kind || !s->counted || s->not_counted != NULL ||
		    s->nvalues > METRIC_MAX_VALUES ||
		    out_run_set_metrics(m->run, s->set, &first) == 0)
			continue;
		for (r = 0; r < s->nvalues; r++)
			values[r] = s->values[r][0] + s->values[r][1];
		metric_samples(m, f, s, values);
	}
	family_out(m, b, f, om);
}

/* A cgroup's sets' turns: the run's time each was in use. */
static void
set_time_family(
    struct out_metrics *m, struct out_buf *b, const struct family *f, bool om)
{
	struct series *s;

	for (s = m->first; s != NULL; s = s->next) {
		if (s->kind != K_CGROUP || !s->counted)
			continue;
		sample_start(m, f, s, NULL, NULL);
		value_out(&m->samples, s->set_ns, true);
		series_created(m, f, s);
	}
	family_out(m, b, f, om);
}

static void
times_family(struct out_metrics *m, struct out_buf *b, enum kind kind,
    const struct family *f, bool running, bool om)
{
	struct series *s;

	for (s = m->first; s != NULL; s = s->next) {
		if (s->kind != kind || !s->counted)
			continue;
		sample_start(m, f, s, NULL, NULL);
		value_out(&m->samples,
		    running ? s->running[0] + s->running[1] :
			      s->enabled[0] + s->enabled[1],
		    true);
		series_created(m, f, s);
	}
	family_out(m, b, f, om);
}

/* cpustat: the intervals of each CPU's gap rows, 0 when there were none. */
static void
gaps_family(
    struct out_metrics *m, struct out_buf *b, const struct family *f, bool om)
{
	struct series *s;

	for (s = m->first; s != NULL; s = s->next) {
		if (s->kind != K_CPU || !s->counted)
			continue;
		sample_start(m, f, s, NULL, NULL);
		value_out(&m->samples, s->gap_intervals, false);
		series_created(m, f, s);
	}
	family_out(m, b, f, om);
}

static void
notes_family(struct out_metrics *m, struct out_buf *b, const struct family *f,
    bool partial, bool om)
{
	struct series *s;
	const char *reason;

	for (s = m->first; s != NULL; s = s->next) {
		if ((reason = partial ? s->partial : s->not_counted) == NULL)
			continue;
		sample_start(m, f, s, NULL, reason);
		out_buf_str(&m->samples, " 1\n");
	}
	family_out(m, b, f, om);
}

static void
run_families(struct out_metrics *m, struct out_buf *b, bool om)
{
	static const struct family sets = { NULL, "set_info", F_GAUGE, NULL,
		"The event specification (-c) of each set." };
	static const struct family build = { "cpctools", "build_info", F_GAUGE,
		NULL, "The tool and its version." };
	static const struct family start = { NULL, "start_time_seconds",
		F_GAUGE, "seconds",
		"When the run started, in seconds since the epoch." };
	const struct out_run *run = m->run;
	bool first;
	int s;

	for (s = 0; s < run->nsets; s++) {
		first = true;
		sample_name(m, &m->samples, &sets);
		label_int(&m->samples, &first, "set", s);
		label(&m->samples, &first, "spec", run->specs[s]->text);
		out_buf_str(&m->samples, "} 1\n");
	}
	family_out(m, b, &sets, om);
	first = true;
	sample_name(m, &m->samples, &build);
	label(&m->samples, &first, "tool", run->tool);
	label(&m->samples, &first, "version", run->tool_version);
	out_buf_str(&m->samples, "} 1\n");
	family_out(m, b, &build, om);
	sample_name(m, &m->samples, &start);
	out_buf_printf(&m->samples, " %lld.%09ld\n",
	    (long long)run->start_real.tv_sec, run->start_real.tv_nsec);
	family_out(m, b, &start, om);
}

/*
 * One sample of a family with no labels, its value as text; a counter's
 * began to count at created_ns since the epoch.
 */
static void single(struct out_metrics *m, struct out_buf *b,
    const struct family *f, const char *value, bool om);
static void single_counter(struct out_metrics *m, struct out_buf *b,
    const struct family *f, const char *value, long long created_ns, bool om);

/* --web-config's password checks (web_auth.h). */
static void
auth_families(struct out_metrics *m, struct out_buf *b,
    const struct out_http_auth *a, bool om)
{
	static const struct family checked = { NULL, "http_passwords_checked",
		F_COUNTER, NULL,
		"Passwords checked with bcrypt, off the thread that serves "
		"scrapes." };
	static const struct family remembered = { NULL,
		"http_passwords_remembered", F_COUNTER, NULL,
		"Requests let in by a user and password that passed before, "
		"with no bcrypt." };
	static const struct family busy = { NULL, "http_passwords_busy",
		F_COUNTER, NULL,
		"Requests answered 503 because too many passwords waited to be "
		"checked." };
	char value[32];

	long long since = (long long)out_run_start_ns(m->run);

	snprintf(value, sizeof(value), "%llu", a->checked);
	single_counter(m, b, &checked, value, since, om);
	snprintf(value, sizeof(value), "%llu", a->remembered);
	single_counter(m, b, &remembered, value, since, om);
	snprintf(value, sizeof(value), "%llu", a->busy);
	single_counter(m, b, &busy, value, since, om);
}

static void
single(struct out_metrics *m, struct out_buf *b, const struct family *f,
    const char *value, bool om)
{
	sample_name(m, &m->samples, f);
	out_buf_printf(&m->samples, " %s\n", value);
	family_out(m, b, f, om);
}

static void
single_counter(struct out_metrics *m, struct out_buf *b, const struct family *f,
    const char *value, long long created_ns, bool om)
{
	sample_name(m, &m->samples, f);
	m->labels_at = m->labels_end = m->samples.len;
	out_buf_printf(&m->samples, " %s\n", value);
	created_out(m, f, created_ns);
	family_out(m, b, f, om);
}

static long long
open_fds(void)
{
	struct dirent *d;
	long long n = 0;
	DIR *dir;

	if ((dir = opendir("/proc/self/fd")) == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL)
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	/* Less the one that reads the directory. */
	return n - 1;
}

/* Its start, in seconds since the epoch: the boot's, plus its own. */
static double
process_start(void)
{
	unsigned long long ticks = 0, btime = 0;
	char text[1024], *p;
	FILE *f;
	int i;

	if ((f = fopen("/proc/self/stat", "re")) == NULL)
		return -1;
	p = fgets(text, sizeof(text), f);
	fclose(f);
	if (p == NULL || (p = strrchr(text, ')')) == NULL)
		return -1;
	/* Field 22, starttime; the 2nd ends at the ')'. */
	for (i = 2; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p, " %llu", &ticks) != 1 ||
	    (f = fopen("/proc/stat", "re")) == NULL)
		return -1;
	while (fgets(text, sizeof(text), f) != NULL)
		if (sscanf(text, "btime %llu", &btime) == 1)
			break;
	fclose(f);
	return (double)btime + (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

static void
health_families(struct out_metrics *m, struct out_buf *b,
    const struct out_health *h, bool om)
{
	static const struct family cpu = { "process", "cpu_seconds", F_COUNTER,
		"seconds", "User and system CPU time the exporter spent." };
	static const struct family rss = { "process", "resident_memory_bytes",
		F_GAUGE, "bytes", "The exporter's resident memory." };
	static const struct family vsz = { "process", "virtual_memory_bytes",
		F_GAUGE, "bytes", "The exporter's virtual memory." };
	static const struct family fds = { "process", "open_fds", F_GAUGE, NULL,
		"The exporter's open file descriptors." };
	static const struct family maxfds = { "process", "max_fds", F_GAUGE,
		NULL, "The exporter's limit of open file descriptors." };
	static const struct family started = { "process", "start_time_seconds",
		F_GAUGE, "seconds",
		"When the exporter started, in seconds since the epoch." };
	static const struct family dropped = { NULL, "rows_dropped", F_COUNTER,
		NULL,
		"Rows the output could not keep up with and dropped (ticks; "
		"totals are kept)." };
	static const struct family engine = { NULL, "engine_info", F_GAUGE,
		NULL, "The engine that follows and counts the threads." };
	static const struct family folded = { NULL, "cgroups_folded", F_GAUGE,
		NULL,
		"Cgroups counted in their parents' series: more than "
		"--for-each-cgroup's max= were counted." };
	static const struct family took = { NULL, "scrape_duration_seconds",
		F_GAUGE, "seconds", "How long this scrape took to make." };
	unsigned long long size = 0, resident = 0;
	long page = sysconf(_SC_PAGESIZE);
	struct timespec ts;
	struct rusage ru;
	struct rlimit rl;
	char value[64];
	bool first = true;
	FILE *f;

	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		snprintf(value, sizeof(value), "%ld.%06ld",
		    (long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000000,
		    (long)((ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) %
			1000000));
		single_counter(
		    m, b, &cpu, value, (long long)(process_start() * 1e9), om);
	}
	if ((f = fopen("/proc/self/statm", "re")) != NULL) {
		if (fscanf(f, "%llu %llu", &size, &resident) == 2) {
			snprintf(value, sizeof(value), "%llu",
			    resident * (unsigned long long)page);
			single(m, b, &rss, value, om);
			snprintf(value, sizeof(value), "%llu",
			    size * (unsigned long long)page);
			single(m, b, &vsz, value, om);
		}
		fclose(f);
	}
	snprintf(value, sizeof(value), "%lld", open_fds());
	single(m, b, &fds, value, om);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		snprintf(value, sizeof(value), "%llu",
		    (unsigned long long)rl.rlim_cur);
		single(m, b, &maxfds, value, om);
	}
	snprintf(value, sizeof(value), "%.2f", process_start());
	single(m, b, &started, value, om);
	snprintf(value, sizeof(value), "%llu", h->rows_dropped);
	single_counter(
	    m, b, &dropped, value, (long long)out_run_start_ns(m->run), om);
	if (h->cgroups_folded >= 0) {
		snprintf(value, sizeof(value), "%lld", h->cgroups_folded);
		single(m, b, &folded, value, om);
	}
	if (h->engine != NULL) {
		sample_name(m, &m->samples, &engine);
		label(&m->samples, &first, "engine", h->engine);
		out_buf_str(&m->samples, "} 1\n");
		family_out(m, b, &engine, om);
	}
	if (h->auth != NULL && h->auth->on)
		auth_families(m, b, h->auth, om);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(value, sizeof(value), "%.6f",
	    ((double)ts.tv_sec * 1e9 + (double)ts.tv_nsec -
		(double)h->scrape_start) /
		1e9);
	single(m, b, &took, value, om);
}

/* The families an exporter serves: their names, types, units and help. */
static const struct family fam_events = { NULL, "events", F_COUNTER, NULL,
	"Events counted, from the start of the run." };
static const struct family fam_clocks = { NULL, "event_seconds", F_COUNTER,
	"seconds",
	"Clock events (cpu-clock, task-clock), from the start "
	"of the run." };
static const struct family fam_enabled = { NULL, "enabled_seconds", F_COUNTER,
	"seconds", "Time the counters of the set were enabled." };
static const struct family fam_running = { NULL, "running_seconds", F_COUNTER,
	"seconds", "Time the counters of the set were counting." };
static const struct family fam_pevents = { NULL, "process_events", F_COUNTER,
	NULL, "Events counted by all the LWPs of a process image." };
static const struct family fam_pclocks = { NULL, "process_event_seconds",
	F_COUNTER, "seconds",
	"Clock events counted by all the LWPs of a "
	"process image." };
static const struct family fam_penabled = { NULL, "process_enabled_seconds",
	F_COUNTER, "seconds",
	"Time the set was enabled on the LWPs of a process image, "
	"summed." };
static const struct family fam_prunning = { NULL, "process_running_seconds",
	F_COUNTER, "seconds",
	"Time the set counted on the LWPs of a process image, "
	"summed." };
static const struct family fam_cevents = { NULL, "cgroup_events", F_COUNTER,
	NULL,
	"Events counted by the threads of a cgroup (--cgroup) while "
	"they were in it." };
static const struct family fam_cclocks = { NULL, "cgroup_event_seconds",
	F_COUNTER, "seconds",
	"Clock events counted by the threads of a cgroup while they "
	"were in it." };
static const struct family fam_cenabled = { NULL, "cgroup_enabled_seconds",
	F_COUNTER, "seconds",
	"Time the set was enabled on the threads of a cgroup, summed." };
static const struct family fam_crunning = { NULL, "cgroup_running_seconds",
	F_COUNTER, "seconds",
	"Time the set counted on the threads of a cgroup, summed." };
static const struct family fam_cset = { NULL, "cgroup_set_seconds", F_COUNTER,
	"seconds",
	"Time of the run the set was in use (the sets take turns at "
	"the ticks): its rate is the set's share." };
static const struct family fam_gaps = { NULL, "gap_intervals", F_COUNTER, NULL,
	"Intervals held in gap rows: their sample times were "
	"missed (cpustat was stopped, or not run in time)." };
static const struct family fam_not_counted = { NULL, "not_counted", F_GAUGE,
	NULL, "1 where values were not counted, with the reason." };
static const struct family fam_partial = { NULL, "partial", F_GAUGE, NULL,
	"1 where a total leaves something out, with what." };
static const struct family fam_dropped = { NULL, "ended_series_dropped",
	F_COUNTER, NULL,
	"Series of ended LWPs and processes dropped "
	"before their time, the first ended first, so that no more than " STRINGIFY(
	    OUT_METRICS_MAX_ENDED) " are kept." };
static const struct family fam_metric = { NULL, "metric", F_GAUGE, NULL,
	"A derived metric (--metrics, -M) of the counts so far." };
static const struct family fam_pmetric = { NULL, "process_metric", F_GAUGE,
	NULL, "A derived metric of a process image's counts so far." };
static const struct family fam_cmetric = { NULL, "cgroup_metric", F_GAUGE, NULL,
	"A derived metric of a cgroup's counts so far." };

/*
 * cputrack's series of each process image and cgroup, and the count of
 * ended ones dropped.
 */
static void
process_families(struct out_metrics *m, struct out_buf *b, bool om)
{
	char value[32];

	events_family(m, b, K_PROCESS, &fam_pevents, false, om);
	events_family(m, b, K_PROCESS, &fam_pclocks, true, om);
	times_family(m, b, K_PROCESS, &fam_penabled, false, om);
	times_family(m, b, K_PROCESS, &fam_prunning, true, om);
	events_family(m, b, K_CGROUP, &fam_cevents, false, om);
	events_family(m, b, K_CGROUP, &fam_cclocks, true, om);
	times_family(m, b, K_CGROUP, &fam_cenabled, false, om);
	times_family(m, b, K_CGROUP, &fam_crunning, true, om);
	set_time_family(m, b, &fam_cset, om);
	metrics_family(m, b, K_PROCESS, &fam_pmetric, om);
	metrics_family(m, b, K_CGROUP, &fam_cmetric, om);
	snprintf(value, sizeof(value), "%llu", (unsigned long long)m->dropped);
	single_counter(
	    m, b, &fam_dropped, value, (long long)out_run_start_ns(m->run), om);
}

void
out_metrics_render(struct out_metrics *m, struct out_buf *b, bool openmetrics,
    hrtime_t now, const struct out_health *health)
{
	enum kind kind = m->run->cfg.tool == OUT_CPUTRACK ? K_LWP : K_CPU;

	prune(m, now);
	out_buf_reset(&m->samples);
	m->om = openmetrics;
	/* A series per thread only when asked: they are most of a host's. */
	if (kind == K_CPU || m->thread_series) {
		events_family(m, b, kind, &fam_events, false, openmetrics);
		events_family(m, b, kind, &fam_clocks, true, openmetrics);
		times_family(m, b, kind, &fam_enabled, false, openmetrics);
		times_family(m, b, kind, &fam_running, true, openmetrics);
		metrics_family(m, b, kind, &fam_metric, openmetrics);
	}
	if (kind == K_LWP)
		process_families(m, b, openmetrics);
	else
		gaps_family(m, b, &fam_gaps, openmetrics);
	notes_family(m, b, &fam_not_counted, false, openmetrics);
	notes_family(m, b, &fam_partial, true, openmetrics);
	run_families(m, b, openmetrics);
	if (health != NULL)
		health_families(m, b, health, openmetrics);
	if (openmetrics)
		out_buf_str(b, "# EOF\n");
	m->changed = false;
}
