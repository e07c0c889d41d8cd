/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live view's table of processes and threads. Each entity holds one
 * block of counts: three spans (what is being gathered, what is shown,
 * the total), each a slot per set: the ns it was counted over, its flags
 * and reason, then the set's values. A process's shown and total spans are
 * worked out at each refresh from its threads'; its gathering span holds
 * instead what the threads before an exec counted (the exec row's
 * totals), as the new image's threads count from zero, a fourth what
 * its threads that are gone counted, and a fifth what those that ended
 * since the last refresh counted after their last tick, which the next
 * refresh shows. A thread that ends before any tick or refresh has seen
 * it gets no record: its end row goes straight into its process's, as a
 * churning process makes thousands of them a second. A sixth span holds
 * what the refreshes showed so far, so that a process whose exit row
 * gives its exact total shows at its last refresh all that it counted
 * after what was shown: one that starts and ends between two refreshes
 * is shown once with all its counts. A seventh holds the total as the
 * rows give it, which becomes the shown total at the next refresh.
 *
 * A process's owner, parent, arguments and cgroup are read from /proc
 * once, when it is first seen, and again at its exec; one gone by then (a
 * row comes after the process, as the BPF engine's do) has its parent's
 * owner and cgroup, as the fork row names the parent, and its exec row's
 * arguments. --for-each-cgroup's cgroups are processes of one thread,
 * with no pid, named by their cgroup.
 *
 * A process that ended and was shown is kept, off the table, for the
 * final totals; past GONE_MAX of them, those of one name are summed into
 * one, so that a churning machine's run holds a bounded memory.
 *
 * Threads are found by (process key, LWP) and processes by key in hash
 * tables, as a row comes for each thread at each tick.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "top_model.h"

/*
 * A thread gathers a refresh's ticks in GATHER, and its total until now in
 * RUNNING. A process's GATHER holds what its images before the last exec
 * counted, DEAD what its threads that are gone counted since then, ENDED
 * what those that ended since the last refresh counted after their last
 * tick, and RUNNING its exit row's total. SHOWN and TOTAL change only at a
 * refresh: a screen drawn between two (paused, at a key) shows one
 * refresh's figures, in which a process's line is its threads' sum.
 */
enum span { GATHER, SHOWN, TOTAL, DEAD, ENDED, PAST, RUNNING, NSPANS };

enum slot_flags {
	SLOT_COUNTED = 1u << 0,
	SLOT_MULTIPLEXED = 1u << 1,
	SLOT_NOT_COUNTED = 1u << 2,
};

/* The slot's head: elapsed ns, then flags and reason. */
#define SLOT_HEAD    2
#define MAX_REASONS  16
#define NBUCKETS_MIN 256
/* Ended processes kept each apart, then summed per name; forks named. */
#define GONE_MAX     4096
#define FOLDED_MAX   256
#define FORKS_KEPT   256
#define FOUND_KEPT   1024
#define CMDLINE_MAX  4096

struct rec {
	struct top_entity e;
	struct rec *proc;     /* a thread's process; NULL for a process */
	struct rec *next;     /* in its hash bucket */
	bool ending;	      /* its end came: shown ended next refresh */
	bool listed;	      /* a process in the table */
	bool seen_at_exec;    /* first seen by its exec's counts row */
	bool exact_total;     /* RUNNING is a total row's, not the ticks' */
	int uncounted;	      /* a thread not counted: its reason + 1 */
	int execs_pending;    /* refreshes since an exec, with no thread */
	struct rec **threads; /* a process's */
	int nthreads, cap;
	uint64_t block[]; /* NSPANS spans of the model's stride */
};

/* A fork row: the parent of a child that may be gone when it is seen. */
struct fork_seen {
	pid_t child, parent;
	unsigned long parent_proc;
};

/*
 * What /proc said of a process when the engine found it, for its first
 * row, which may come once it is gone (a process counted from outside
 * that ended between two scans).
 */
struct found {
	pid_t pid;
	uid_t uid;
	bool uid_known;
	pid_t ppid;
	char *cmdline;
	char *cgroup;
};

struct table {
	struct rec **buckets;
	size_t nbuckets; /* a power of two */
	size_t n;
};

struct top_model {
	const struct out_run *run;
	size_t *slot_at; /* per set: the offset of its slot in a span */
	size_t stride;	 /* a span's length in the block */
	struct table threads, procs;
	struct rec **order; /* the processes, in the order first seen */
	struct rec *spares; /* records gone, kept for the next ones */
	uint64_t *scratch;  /* a span's length, for one row's counts */
	int nprocs, cap;
	char *reasons[MAX_REASONS];
	int nreasons;
	bool ticked;
	int64_t tick_time;
	uint64_t refreshes;
	/*
	 * Per set: the longest time a thread's ticks gave it since the last
	 * refresh, and at the last: the set's time in the refresh.
	 */
	uint64_t *turn_gather, *turn;
	int64_t refreshed_at; /* the tick time of the last refresh */
	struct rec **gone;    /* ended, shown, kept for the final totals */
	int ngone, gone_cap;
	struct rec *folded[FOLDED_MAX]; /* past GONE_MAX: one per name */
	int nfolded;
	struct fork_seen forks[FORKS_KEPT]; /* the latest, in a ring */
	unsigned nforks;
	struct found found[FOUND_KEPT]; /* the latest, in a ring */
	unsigned nfound;
	/*
	 * --for-each-cgroup: the cgroups counted, each shown as a process
	 * of one thread whose key is CGROUP_KEY(its index here).
	 */
	char **cgroups;
	int ncgroups;
};

#define CGROUP_KEY(i) (~0UL - (unsigned long)(i))

static size_t
hash_key(unsigned long proc, int lwp)
{
	uint64_t h = (uint64_t)proc * 0x9e3779b97f4a7c15ULL ^ (uint64_t)lwp;

	return (size_t)(h ^ (h >> 29));
}

static struct rec *
table_find(const struct table *t, unsigned long proc, int lwp)
{
	struct rec *r;

	if (t->nbuckets == 0)
		return NULL;
	r = t->buckets[hash_key(proc, lwp) & (t->nbuckets - 1)];
	while (r != NULL && (r->e.proc != proc || r->e.lwp != lwp))
		r = r->next;
	return r;
}

static void
table_link(struct table *t, struct rec *r)
{
	struct rec **b =
	    &t->buckets[hash_key(r->e.proc, r->e.lwp) & (t->nbuckets - 1)];

	r->next = *b;
	*b = r;
}

/* Room for one more: the buckets double when they are full. */
static int
table_grow(struct table *t)
{
	struct table bigger = { .n = t->n };
	struct rec *r, *next;
	size_t i;

	if (t->n < t->nbuckets)
		return 0;
	bigger.nbuckets = t->nbuckets ? t->nbuckets * 2 : NBUCKETS_MIN;
	bigger.buckets = calloc(bigger.nbuckets, sizeof(*bigger.buckets));
	if (bigger.buckets == NULL)
		return -1;
	for (i = 0; i < t->nbuckets; i++)
		for (r = t->buckets[i]; r != NULL; r = next) {
			next = r->next;
			table_link(&bigger, r);
		}
	free(t->buckets);
	*t = bigger;
	return 0;
}

static void
table_unlink(struct table *t, struct rec *r)
{
	struct rec **p =
	    &t->buckets[hash_key(r->e.proc, r->e.lwp) & (t->nbuckets - 1)];

	while (*p != r)
		p = &(*p)->next;
	*p = r->next;
	t->n--;
}

static uint64_t *
slot(const struct top_model *m, struct rec *r, enum span sp, int set)
{
	return r->block + (size_t)sp * m->stride + m->slot_at[set];
}

static void
clear_span(const struct top_model *m, struct rec *r, enum span sp)
{
	memset(r->block + (size_t)sp * m->stride, 0,
	    m->stride * sizeof(*r->block));
}

struct top_model *
top_model_new(const struct out_run *run)
{
	struct top_model *m = calloc(1, sizeof(*m));
	int s;

	if (m == NULL)
		return NULL;
	m->run = run;
	m->refreshed_at = run->start;
	if ((m->slot_at = calloc((size_t)run->nsets, sizeof(*m->slot_at))) ==
	    NULL) {
		free(m);
		return NULL;
	}
	for (s = 0; s < run->nsets; s++) {
		m->slot_at[s] = m->stride;
		m->stride += SLOT_HEAD + (size_t)spec_nvalues(run->specs[s]);
	}
	m->scratch = calloc(m->stride, sizeof(*m->scratch));
	m->turn = calloc((size_t)run->nsets, sizeof(*m->turn));
	m->turn_gather = calloc((size_t)run->nsets, sizeof(*m->turn_gather));
	if (m->scratch == NULL || m->turn == NULL || m->turn_gather == NULL) {
		top_model_free(m);
		return NULL;
	}
	return m;
}

static size_t
rec_size(const struct top_model *m)
{
	return sizeof(struct rec) + NSPANS * m->stride * sizeof(uint64_t);
}

static void
rec_free(struct rec *r)
{
	if (r == NULL)
		return;
	free(r->threads);
	free(r->e.cmdline);
	free(r->e.cgroup);
	free(r);
}

/*
 * A record gone is kept for the next one: a churning target ends
 * thousands of threads a second, and the heap that their records would
 * give back at each refresh would fault in again at the next.
 */
static void
rec_put(struct top_model *m, struct rec *r)
{
	free(r->threads);
	r->threads = NULL;
	free(r->e.cmdline);
	r->e.cmdline = NULL;
	free(r->e.cgroup);
	r->e.cgroup = NULL;
	r->next = m->spares;
	m->spares = r;
}

void
top_model_free(struct top_model *m)
{
	size_t i;
	struct rec *r, *next;
	int p;

	if (m == NULL)
		return;
	for (i = 0; i < m->threads.nbuckets; i++)
		for (r = m->threads.buckets[i]; r != NULL; r = next) {
			next = r->next;
			rec_free(r);
		}
	for (p = 0; p < m->nprocs; p++)
		rec_free(m->order[p]);
	for (r = m->spares; r != NULL; r = next) {
		next = r->next;
		rec_free(r);
	}
	for (p = 0; p < m->ngone; p++)
		rec_free(m->gone[p]);
	for (p = 0; p < m->nfolded; p++)
		rec_free(m->folded[p]);
	for (p = 0; p < FOUND_KEPT; p++) {
		free(m->found[p].cmdline);
		free(m->found[p].cgroup);
	}
	for (p = 0; p < m->ncgroups; p++)
		free(m->cgroups[p]);
	free(m->cgroups);
	free(m->gone);
	free(m->turn);
	free(m->turn_gather);
	free(m->threads.buckets);
	free(m->procs.buckets);
	free(m->order);
	free(m->slot_at);
	free(m->scratch);
	for (p = 0; p < m->nreasons; p++)
		free(m->reasons[p]);
	free(m);
}

static struct rec *
rec_new(struct top_model *m, const struct out_row *row, int lwp)
{
	struct rec *r = m->spares;

	if (r != NULL) {
		m->spares = r->next;
		memset(r, 0, rec_size(m));
	} else if ((r = calloc(1, rec_size(m))) == NULL)
		return NULL;
	r->e.pid = row->pid;
	r->e.tid = lwp != 0 ? row->tid : row->pid;
	r->e.lwp = lwp;
	r->e.proc = row->proc;
	r->e.first_refresh = m->refreshes;
	r->e.comm_refresh = UINT64_MAX; /* not read yet */
	/* The rows name the process; a thread's own name is the view's. */
	if (lwp == 0 && row->comm != NULL)
		strlcpy(r->e.comm, row->comm, sizeof(r->e.comm));
	return r;
}

/* A small /proc file whole into buf, ended by a NUL: its length, or -1. */
static ssize_t
read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The parent, and the effective user (as ps's USER), of /proc's status. */
static void
learn_status(struct top_entity *e)
{
	char path[40], buf[2048];
	const char *at;
	char *end;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)e->pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return;
	if ((at = strstr(buf, "\nPPid:")) != NULL)
		e->ppid = (pid_t)strtol(at + 6, NULL, 10);
	if ((at = strstr(buf, "\nUid:")) != NULL) {
		(void)strtoul(at + 5, &end, 10);
		e->uid = (uid_t)strtoul(end, NULL, 10);
		e->uid_known = true;
	}
}

/* The arguments, spaced: NULL for none (a kernel thread) or gone. */
static char *
read_cmdline(pid_t pid)
{
	char path[40], buf[CMDLINE_MAX];
	ssize_t n, i;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((n = read_small(path, buf, sizeof(buf))) <= 0)
		return NULL;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n' || buf[i] == '\t')
			buf[i] = ' ';
	buf[n] = '\0';
	return n > 0 ? strdup(buf) : NULL;
}

/* The cgroup v2 path ("0::/a/b"), or NULL. */
static char *
read_cgroup(pid_t pid)
{
	char path[40], buf[4096];
	char *at, *end;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return NULL;
	if (strncmp(buf, "0::", 3) == 0)
		at = buf + 3;
	else if ((at = strstr(buf, "\n0::")) != NULL)
		at += 4;
	else
		return NULL;
	if ((end = strchr(at, '\n')) != NULL)
		*end = '\0';
	return strdup(at);
}

/* What the fork row of a process gone before it was seen gives. */
static void
learn_from_parent(struct top_model *m, struct rec *p)
{
	const struct fork_seen *f;
	const struct rec *parent;
	unsigned i, n = m->nforks < FORKS_KEPT ? m->nforks : FORKS_KEPT;

	for (i = 1; i <= n; i++) {
		f = &m->forks[(m->nforks - i) % FORKS_KEPT];
		if (f->child != p->e.pid)
			continue;
		if (p->e.ppid == 0)
			p->e.ppid = f->parent;
		parent = table_find(&m->procs, f->parent_proc, 0);
		if (parent == NULL)
			return;
		if (!p->e.uid_known && parent->e.uid_known) {
			p->e.uid = parent->e.uid;
			p->e.uid_known = true;
		}
		if (p->e.cgroup == NULL && parent->e.cgroup != NULL)
			p->e.cgroup = strdup(parent->e.cgroup);
		return;
	}
}

/* What /proc said of pid when it was found, taken; NULL: nothing. */
static struct found *
found_of(struct top_model *m, pid_t pid)
{
	unsigned i, n = m->nfound < FOUND_KEPT ? m->nfound : FOUND_KEPT;
	struct found *f;

	for (i = 1; i <= n; i++) {
		f = &m->found[(m->nfound - i) % FOUND_KEPT];
		if (f->pid == pid)
			return f;
	}
	return NULL;
}

/* A process gone by its first row: what /proc said when it was found. */
static void
learn_found(struct top_model *m, struct rec *p)
{
	struct found *f = found_of(m, p->e.pid);

	if (f == NULL)
		return;
	if (!p->e.uid_known) {
		p->e.uid = f->uid;
		p->e.uid_known = f->uid_known;
	}
	if (p->e.ppid == 0)
		p->e.ppid = f->ppid;
	if (p->e.cmdline == NULL) {
		p->e.cmdline = f->cmdline;
		f->cmdline = NULL;
	}
	if (p->e.cgroup == NULL) {
		p->e.cgroup = f->cgroup;
		f->cgroup = NULL;
	}
	f->pid = 0;
}

/* A process first seen: what /proc says of it, once. */
static void
learn_process(struct top_model *m, struct rec *p)
{
	learn_status(&p->e);
	p->e.cmdline = read_cmdline(p->e.pid);
	p->e.cgroup = read_cgroup(p->e.pid);
	if (!p->e.uid_known || p->e.ppid == 0 || p->e.cgroup == NULL)
		learn_found(m, p);
	if (!p->e.uid_known || p->e.ppid == 0 || p->e.cgroup == NULL)
		learn_from_parent(m, p);
}

void
top_model_process(struct top_model *m, pid_t pid)
{
	struct found *f = &m->found[m->nfound++ % FOUND_KEPT];
	struct top_entity e = { .pid = pid };

	free(f->cmdline);
	free(f->cgroup);
	learn_status(&e);
	*f = (struct found) {
		.pid = pid,
		.uid = e.uid,
		.uid_known = e.uid_known,
		.ppid = e.ppid,
		.cmdline = read_cmdline(pid),
		.cgroup = read_cgroup(pid),
	};
}

static struct rec *find_proc(struct top_model *m, const struct out_row *row);

/* A fork: its parent is seen (and learnt) before its child. */
static void
note_fork(struct top_model *m, const struct out_row *row)
{
	(void)find_proc(m, row);
	m->forks[m->nforks++ % FORKS_KEPT] = (struct fork_seen) {
		.child = row->child,
		.parent = row->pid,
		.parent_proc = row->proc,
	};
}

/* r at the end of the processes shown. */
static int
order_add(struct top_model *m, struct rec *r)
{
	struct rec **grown;

	if (m->nprocs == m->cap) {
		grown = reallocarray(
		    m->order, m->cap ? (size_t)m->cap * 2 : 64, sizeof(*grown));
		if (grown == NULL)
			return -1;
		m->order = grown;
		m->cap = m->cap ? m->cap * 2 : 64;
	}
	m->order[m->nprocs++] = r;
	return 0;
}

static struct rec *
find_proc(struct top_model *m, const struct out_row *row)
{
	struct rec *p = table_find(&m->procs, row->proc, 0);

	if (p != NULL)
		return p;
	if (table_grow(&m->procs) != 0 || (p = rec_new(m, row, 0)) == NULL)
		return NULL;
	if (order_add(m, p) != 0) {
		rec_put(m, p);
		return NULL;
	}
	table_link(&m->procs, p);
	m->procs.n++;
	p->listed = true;
	if (row->pid > 0)
		learn_process(m, p);
	return p;
}

static int
adopt(struct rec *p, struct rec *t)
{
	struct rec **grown;

	if (p->nthreads == p->cap) {
		grown = reallocarray(p->threads,
		    p->cap ? (size_t)p->cap * 2 : 4, sizeof(*grown));
		if (grown == NULL)
			return -1;
		p->threads = grown;
		p->cap = p->cap ? p->cap * 2 : 4;
	}
	p->threads[p->nthreads++] = t;
	t->proc = p;
	return 0;
}

/* The thread a row is about, made at its first row; NULL: no memory. */
static struct rec *
find_thread(struct top_model *m, const struct out_row *row)
{
	struct rec *p, *t = table_find(&m->threads, row->proc, row->lwp);

	if (t != NULL)
		return t;
	if ((p = find_proc(m, row)) == NULL || table_grow(&m->threads) != 0 ||
	    (t = rec_new(m, row, row->lwp)) == NULL)
		return NULL;
	if (adopt(p, t) != 0) {
		rec_put(m, t);
		return NULL;
	}
	table_link(&m->threads, t);
	m->threads.n++;
	return t;
}

/* A reason's number, kept once; the last number when there are too many. */
static int
reason_of(struct top_model *m, const char *why)
{
	int i;

	for (i = 0; i < m->nreasons; i++)
		if (strcmp(m->reasons[i], why) == 0)
			return i;
	if (m->nreasons < MAX_REASONS &&
	    (m->reasons[m->nreasons] = strdup(why)) != NULL)
		return m->nreasons++;
	return m->nreasons - 1;
}

/* d += c for set s: the longer time, the flags of either. */
static void
sum_slot(const struct top_model *m, uint64_t *d, const uint64_t *c, int s)
{
	int i, n = spec_nvalues(m->run->specs[s]);

	if (c[0] > d[0])
		d[0] = c[0];
	d[1] |= c[1] & (SLOT_COUNTED | SLOT_MULTIPLEXED);
	if ((c[1] & SLOT_NOT_COUNTED) && !(d[1] & SLOT_NOT_COUNTED))
		d[1] |= c[1] & ~(uint64_t)(SLOT_COUNTED | SLOT_MULTIPLEXED);
	for (i = 0; i < n; i++)
		d[SLOT_HEAD + i] += c[SLOT_HEAD + i];
}

/* A row's counts into a slot: added (a tick's), or put (a total's). */
static void
take_counts(
    struct top_model *m, uint64_t *s, const struct out_row *row, bool add)
{
	int i, n = spec_nvalues(m->run->specs[row->setno]);

	if (row->not_counted != NULL) {
		if (!(s[1] & SLOT_NOT_COUNTED))
			s[1] |= SLOT_NOT_COUNTED |
			    (uint64_t)reason_of(m, row->not_counted) << 8;
		return;
	}
	s[1] |= SLOT_COUNTED;
	if (row->running_ns < row->enabled_ns)
		s[1] |= SLOT_MULTIPLEXED;
	s[0] = add ? s[0] + row->elapsed_ns : row->elapsed_ns;
	for (i = 0; i < n && row->values != NULL; i++)
		s[SLOT_HEAD + i] =
		    add ? s[SLOT_HEAD + i] + row->values[i] : row->values[i];
}

/*
 * A process's name as its rows give it: an engine that sees an exec
 * only as a new name (the scan's, counting from outside) says it in the
 * rows that follow, with no exec row.
 */
static void
follow_name(struct rec *p, const char *comm)
{
	if (p != NULL && comm != NULL && strcmp(p->e.comm, comm) != 0)
		strlcpy(p->e.comm, comm, sizeof(p->e.comm));
}

static void
tick_row(struct top_model *m, const struct out_row *row)
{
	struct rec *t = find_thread(m, row);
	const uint64_t *g;

	if (t == NULL)
		return;
	follow_name(t->proc, row->comm);
	g = slot(m, t, GATHER, row->setno);
	take_counts(m, slot(m, t, GATHER, row->setno), row, true);
	if (g[0] > m->turn_gather[row->setno])
		m->turn_gather[row->setno] = g[0];
	if (!t->exact_total)
		take_counts(m, slot(m, t, RUNNING, row->setno), row, true);
	m->ticked = true;
	if (row->when > m->tick_time)
		m->tick_time = row->when;
}

static void
free_threads(struct top_model *m, struct rec *p)
{
	while (p->nthreads > 0) {
		p->nthreads--;
		table_unlink(&m->threads, p->threads[p->nthreads]);
		rec_put(m, p->threads[p->nthreads]);
	}
}

/*
 * The old image's threads go; the exec row's totals (of that image) stay
 * with the process.
 */
static void
exec_row(struct top_model *m, const struct out_row *row)
{
	struct rec *p = find_proc(m, row);

	if (p == NULL)
		return;
	take_counts(m, slot(m, p, GATHER, row->setno), row, true);
	clear_span(m, p, DEAD);
	free_threads(m, p);
	p->execs_pending = 1;
}

/*
 * What a thread counted after its last tick, for the next refresh: its
 * end row's total less what its ticks gave (its RUNNING until then).
 */
static void
gather_rest(struct top_model *m, struct rec *t, const struct out_row *row)
{
	uint64_t *g = slot(m, t, GATHER, row->setno);
	const uint64_t *ticked = slot(m, t, RUNNING, row->setno);
	int i, n = spec_nvalues(m->run->specs[row->setno]);

	if (row->not_counted != NULL || row->values == NULL)
		return;
	if (row->elapsed_ns > ticked[0])
		g[0] += row->elapsed_ns - ticked[0];
	g[1] |= SLOT_COUNTED;
	for (i = 0; i < n; i++)
		if (row->values[i] > ticked[SLOT_HEAD + i])
			g[SLOT_HEAD + i] +=
			    row->values[i] - ticked[SLOT_HEAD + i];
}

/* A thread no tick has seen: its end row goes into its process's. */
static void
fold_thread(struct top_model *m, const struct out_row *row)
{
	struct rec *p = find_proc(m, row);
	size_t len =
	    SLOT_HEAD + (size_t)spec_nvalues(m->run->specs[row->setno]);

	if (p == NULL)
		return;
	memset(m->scratch, 0, len * sizeof(*m->scratch));
	take_counts(m, m->scratch, row, false);
	sum_slot(m, slot(m, p, DEAD, row->setno), m->scratch, row->setno);
	sum_slot(m, slot(m, p, ENDED, row->setno), m->scratch, row->setno);
}

static void
thread_end_row(struct top_model *m, const struct out_row *row)
{
	struct rec *t = table_find(&m->threads, row->proc, row->lwp);

	if (t == NULL) {
		if (row->setno >= 0)
			fold_thread(m, row);
		return;
	}
	t->ending = true;
	if (row->setno < 0)
		return;
	gather_rest(m, t, row);
	t->exact_total = true;
	take_counts(m, slot(m, t, RUNNING, row->setno), row, false);
}

static void
proc_end_row(struct top_model *m, const struct out_row *row)
{
	struct rec *p = find_proc(m, row);
	size_t len;

	if (p == NULL)
		return;
	p->ending = true;
	if (row->setno < 0)
		return;
	/* The sets with no exit row keep the total of the last refresh. */
	if (!p->exact_total)
		memcpy(p->block + RUNNING * m->stride,
		    p->block + TOTAL * m->stride,
		    m->stride * sizeof(*p->block));
	p->exact_total = true;
	/* A process's exit row is its last image's. */
	len = SLOT_HEAD + (size_t)spec_nvalues(m->run->specs[row->setno]);
	memcpy(slot(m, p, RUNNING, row->setno), slot(m, p, GATHER, row->setno),
	    len * sizeof(uint64_t));
	take_counts(m, slot(m, p, RUNNING, row->setno), row, true);
}

/*
 * An exec: its arguments are the process's now, and its owner and cgroup
 * are read again, as a process often sets both up before its exec (a
 * set-id program, a shell that moves itself into a cgroup).
 */
static void
learn_image(struct rec *p, const char *args)
{
	char *copy;

	/* First seen at this exec: /proc was read then. */
	if (!p->seen_at_exec) {
		learn_status(&p->e);
		if ((copy = read_cgroup(p->e.pid)) != NULL) {
			free(p->e.cgroup);
			p->e.cgroup = copy;
		}
	}
	p->seen_at_exec = false;
	if (args == NULL || args[0] == '\0' ||
	    (p->e.cmdline != NULL && strcmp(p->e.cmdline, args) == 0) ||
	    (copy = strdup(args)) == NULL)
		return;
	free(p->e.cmdline);
	p->e.cmdline = copy;
}

/*
 * A cgroup's index by its name, kept at its first row; -1: no memory. A
 * cgroup removed leaves its index, so that a new one of its name, shown
 * while the old one is shown ended, is another.
 */
static int
cgroup_index(struct top_model *m, const char *name)
{
	char **grown;
	int i;

	for (i = 0; i < m->ncgroups; i++)
		if (m->cgroups[i] != NULL && strcmp(m->cgroups[i], name) == 0)
			return i;
	grown =
	    reallocarray(m->cgroups, (size_t)m->ncgroups + 1, sizeof(*grown));
	if (grown == NULL)
		return -1;
	m->cgroups = grown;
	if ((m->cgroups[m->ncgroups] = strdup(name)) == NULL)
		return -1;
	return m->ncgroups++;
}

/*
 * --for-each-cgroup's rows: each cgroup a process of one thread, its
 * name its command; its rmdir row its last.
 */
static void
cgroup_row(struct top_model *m, const struct out_row *row)
{
	struct out_row r = *row;
	struct rec *p;
	int i;

	if (row->comm == NULL || row->setno < 0 ||
	    (strcmp(row->label, "cgroup") != 0 &&
		strcmp(row->label, "rmdir") != 0) ||
	    (i = cgroup_index(m, row->comm)) < 0)
		return;
	r.pid = 0;
	r.proc = CGROUP_KEY(i);
	r.lwp = 1;
	r.tid = 0;
	tick_row(m, &r);
	if ((p = table_find(&m->procs, r.proc, 0)) == NULL)
		return;
	if (p->e.cgroup == NULL)
		p->e.cgroup = strdup(row->comm);
	if (strcmp(row->label, "rmdir") == 0) {
		p->ending = true;
		free(m->cgroups[i]);
		m->cgroups[i] = NULL;
	}
}

void
top_model_row(struct top_model *m, const struct out_row *row)
{
	const char *l = row->label;
	struct rec *r;
	bool seen;

	if (row->pid <= 0) {
		cgroup_row(m, row);
		return;
	}
	if (strcmp(l, "tick") == 0 || strcmp(l, "gap") == 0) {
		if (row->setno >= 0)
			tick_row(m, row);
	} else if (strcmp(l, "exec") == 0 && row->setno >= 0) {
		seen = table_find(&m->procs, row->proc, 0) != NULL;
		exec_row(m, row);
		if (!seen && (r = table_find(&m->procs, row->proc, 0)) != NULL)
			r->seen_at_exec = true;
	} else if (strcmp(l, "exec") == 0 && row->comm != NULL &&
	    (r = find_proc(m, row)) != NULL) {
		strlcpy(r->e.comm, row->comm, sizeof(r->e.comm));
		learn_image(r, row->args);
	} else if (strcmp(l, "fork") == 0 && row->child > 0) {
		note_fork(m, row);
	} else if (strcmp(l, "lwp_exit") == 0) {
		thread_end_row(m, row);
	} else if (strcmp(l, "exit") == 0) {
		proc_end_row(m, row);
	} else if (strcmp(l, "lwp_create") == 0 || strcmp(l, "init_lwp") == 0) {
		if ((r = find_thread(m, row)) != NULL &&
		    row->not_counted != NULL)
			r->uncounted = reason_of(m, row->not_counted) + 1;
	}
}

bool
top_model_ticked(const struct top_model *m)
{
	return m->ticked;
}

int64_t
top_model_tick_time(const struct top_model *m)
{
	return m->tick_time;
}

uint64_t
top_model_refreshes(const struct top_model *m)
{
	return m->refreshes;
}

/* dst += src, slot by slot: the longest time, the flags of either. */
static void
sum_span(const struct top_model *m, uint64_t *dst, const uint64_t *src)
{
	int s;

	for (s = 0; s < m->run->nsets; s++)
		sum_slot(m, dst + m->slot_at[s], src + m->slot_at[s], s);
}

/* A thread not counted: each set's slot of the span says why. */
static void
mark_uncounted(const struct top_model *m, struct rec *t, enum span sp)
{
	uint64_t *sl;
	int s;

	for (s = 0; s < m->run->nsets; s++) {
		sl = slot(m, t, sp, s);
		if (!(sl[1] & SLOT_NOT_COUNTED))
			sl[1] |= SLOT_NOT_COUNTED |
			    (uint64_t)(t->uncounted - 1) << 8;
	}
}

/* A thread's gathered counts are shown now, and gathering starts again. */
static void
refresh_thread(struct top_model *m, struct rec *t)
{
	memcpy(t->block + SHOWN * m->stride, t->block + GATHER * m->stride,
	    m->stride * sizeof(*t->block));
	clear_span(m, t, GATHER);
	memcpy(t->block + TOTAL * m->stride, t->block + RUNNING * m->stride,
	    m->stride * sizeof(*t->block));
	if (t->uncounted > 0) {
		mark_uncounted(m, t, SHOWN);
		mark_uncounted(m, t, TOTAL);
	}
	if (t->ending)
		t->e.ended = true;
}

/* Threads shown ended at the last refresh go now. */
static void
drop_ended_threads(struct top_model *m, struct rec *p)
{
	int i, kept = 0;

	for (i = 0; i < p->nthreads; i++) {
		if (p->threads[i]->e.ended) {
			table_unlink(&m->threads, p->threads[i]);
			sum_span(m, p->block + DEAD * m->stride,
			    p->threads[i]->block + TOTAL * m->stride);
			rec_put(m, p->threads[i]);
		} else {
			p->threads[kept++] = p->threads[i];
		}
	}
	p->nthreads = kept;
}

/*
 * A process whose exit row gave its total shows all of it that the
 * refreshes before did not: what its threads counted after their last
 * tick, and all of a process that no tick saw.
 */
static void
show_rest(const struct top_model *m, struct rec *p)
{
	const uint64_t *total, *past;
	uint64_t *shown;
	int s, i, n;

	for (s = 0; s < m->run->nsets; s++) {
		total = slot(m, p, TOTAL, s);
		past = slot(m, p, PAST, s);
		shown = slot(m, p, SHOWN, s);
		if (!(total[1] & SLOT_COUNTED))
			continue;
		n = spec_nvalues(m->run->specs[s]);
		shown[0] = total[0];
		shown[1] = total[1];
		for (i = 0; i < n; i++)
			shown[SLOT_HEAD + i] =
			    total[SLOT_HEAD + i] > past[SLOT_HEAD + i] ?
			    total[SLOT_HEAD + i] - past[SLOT_HEAD + i] :
			    0;
	}
}

/* A process's spans from its threads', now that theirs are new. */
static void
refresh_proc(struct top_model *m, struct rec *p)
{
	int i, live = 0, uncounted = 0;

	drop_ended_threads(m, p);
	clear_span(m, p, SHOWN);
	sum_span(m, p->block + SHOWN * m->stride, p->block + ENDED * m->stride);
	clear_span(m, p, ENDED);
	if (p->exact_total) {
		memcpy(p->block + TOTAL * m->stride,
		    p->block + RUNNING * m->stride,
		    m->stride * sizeof(*p->block));
	} else {
		memcpy(p->block + TOTAL * m->stride,
		    p->block + GATHER * m->stride,
		    m->stride * sizeof(*p->block));
		sum_span(m, p->block + TOTAL * m->stride,
		    p->block + DEAD * m->stride);
	}
	for (i = 0; i < p->nthreads; i++) {
		/* A process's end is each of its threads'. */
		p->threads[i]->ending |= p->ending;
		refresh_thread(m, p->threads[i]);
		sum_span(m, p->block + SHOWN * m->stride,
		    p->threads[i]->block + SHOWN * m->stride);
		if (!p->exact_total)
			sum_span(m, p->block + TOTAL * m->stride,
			    p->threads[i]->block + TOTAL * m->stride);
		live += !p->threads[i]->e.ended;
		uncounted +=
		    !p->threads[i]->e.ended && p->threads[i]->uncounted > 0;
	}
	p->e.nthreads = live;
	p->e.uncounted = uncounted;
	if (p->exact_total)
		show_rest(m, p);
	sum_span(m, p->block + PAST * m->stride, p->block + SHOWN * m->stride);
	/*
	 * An exec that is followed has the new image's first tick within a
	 * refresh; one that is not ends the process's counting.
	 */
	if (p->nthreads > 0)
		p->execs_pending = 0;
	else if (p->execs_pending > 0 && p->execs_pending++ > 1)
		p->ending = true;
	if (p->ending)
		p->e.ended = true;
}

/*
 * Past GONE_MAX, an ended process's total goes into the one of its name
 * (of the first FOLDED_MAX names; the last takes the rest).
 */
static void
fold_gone(struct top_model *m, struct rec *p)
{
	struct rec *f = NULL;
	int i;

	for (i = 0; i < m->nfolded && f == NULL; i++)
		if (strcmp(m->folded[i]->e.comm, p->e.comm) == 0)
			f = m->folded[i];
	if (f == NULL && m->nfolded < FOLDED_MAX &&
	    (f = calloc(1, rec_size(m))) != NULL) {
		f->e = (struct top_entity) {
			.proc = p->e.proc,
			.ended = true,
			.uid = p->e.uid,
			.uid_known = p->e.uid_known,
		};
		strlcpy(f->e.comm, p->e.comm, sizeof(f->e.comm));
		m->folded[m->nfolded++] = f;
	}
	if (f == NULL && m->nfolded > 0)
		f = m->folded[m->nfolded - 1];
	if (f != NULL) {
		sum_span(m, f->block + TOTAL * m->stride,
		    p->block + TOTAL * m->stride);
		f->e.nfolded++;
		if (f->e.uid_known && (!p->e.uid_known || p->e.uid != f->e.uid))
			f->e.uid_known = false;
	}
	rec_put(m, p);
}

/* An ended process that was shown, kept for the final totals. */
static void
keep_gone(struct top_model *m, struct rec *p)
{
	struct rec **grown;

	if (m->ngone == GONE_MAX) {
		fold_gone(m, p);
		return;
	}
	if (m->ngone == m->gone_cap) {
		grown = reallocarray(m->gone,
		    m->gone_cap ? (size_t)m->gone_cap * 2 : 64, sizeof(*grown));
		if (grown == NULL) {
			fold_gone(m, p);
			return;
		}
		m->gone = grown;
		m->gone_cap = m->gone_cap ? m->gone_cap * 2 : 64;
	}
	m->gone[m->ngone++] = p;
}

/* The processes kept for the final totals, shown again (ended). */
static void
show_gone(struct top_model *m)
{
	int i;

	for (i = 0; i < m->ngone; i++)
		if (order_add(m, m->gone[i]) != 0)
			break;
	if (i < m->ngone) {
		memmove(m->gone, m->gone + i,
		    (size_t)(m->ngone - i) * sizeof(*m->gone));
		m->ngone -= i;
		return;
	}
	m->ngone = 0;
	for (i = 0; i < m->nfolded; i++)
		if (order_add(m, m->folded[i]) != 0)
			break;
	memmove(m->folded, m->folded + i,
	    (size_t)(m->nfolded - i) * sizeof(*m->folded));
	m->nfolded -= i;
}

/*
 * Each set's time in the refresh: its longest thread's ticks, and no less
 * than its share of the refresh (the sets take turns), as the first
 * ticks of a thread counted from its attach, after the refresh began.
 */
static void
set_turns(struct top_model *m)
{
	int64_t span = m->tick_time - m->refreshed_at;
	uint64_t share = 0;
	int s, nsets = m->run->nsets;

	if (span > 0 && nsets > 0) {
		share = (uint64_t)span / (uint64_t)nsets;
		m->refreshed_at = m->tick_time;
	}
	for (s = 0; s < nsets; s++) {
		m->turn[s] =
		    m->turn_gather[s] > share ? m->turn_gather[s] : share;
		m->turn_gather[s] = 0;
	}
}

static void
refresh_all(struct top_model *m, bool keep_ended)
{
	int i, kept = 0;
	struct rec *p;

	m->refreshes++;
	m->ticked = false;
	set_turns(m);
	for (i = 0; i < m->nprocs; i++) {
		p = m->order[i];
		if (p->e.ended && !keep_ended) {
			free_threads(m, p);
			if (p->listed)
				table_unlink(&m->procs, p);
			p->listed = false;
			keep_gone(m, p);
			continue;
		}
		refresh_proc(m, p);
		m->order[kept++] = p;
	}
	m->nprocs = kept;
}

void
top_model_refresh(struct top_model *m)
{
	refresh_all(m, false);
}

void
top_model_last_refresh(struct top_model *m)
{
	refresh_all(m, true);
	show_gone(m);
}

int
top_model_nprocs(const struct top_model *m)
{
	return m->nprocs;
}

struct top_entity *
top_model_proc(struct top_model *m, int i)
{
	return &m->order[i]->e;
}

int
top_model_nthreads(const struct top_model *m, int proc)
{
	return m->order[proc]->nthreads;
}

struct top_entity *
top_model_thread(struct top_model *m, int proc, int i)
{
	return &m->order[proc]->threads[i]->e;
}

struct top_counts
top_model_counts(const struct top_model *m, const struct top_entity *e,
    enum top_span span, int set)
{
	/* The entity is the first member of its record. */
	const struct rec *r = (const struct rec *)e;
	enum span sp = span == TOP_SHOWN ? SHOWN : TOTAL;
	const uint64_t *s = r->block + (size_t)sp * m->stride + m->slot_at[set];
	uint64_t ns = s[0];

	/* A thread's shown time is its ticks': the set's in the refresh. */
	if (sp == SHOWN && m->turn[set] > 0)
		ns = m->turn[set];
	return (struct top_counts) {
		.values = s + SLOT_HEAD,
		.elapsed_ns = ns,
		.counted = (s[1] & SLOT_COUNTED) != 0,
		.multiplexed = (s[1] & SLOT_MULTIPLEXED) != 0,
		.reason = (s[1] & SLOT_NOT_COUNTED) ? (int)(s[1] >> 8) : -1,
	};
}

const char *
top_model_reason(const struct top_model *m, int reason)
{
	return reason >= 0 && reason < m->nreasons ? m->reasons[reason] : "";
}

int
top_model_nreasons(const struct top_model *m)
{
	return m->nreasons;
}
