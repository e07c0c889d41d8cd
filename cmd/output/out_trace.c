/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Trace Event format, in its JSON array form: "[", then one event a
 * line, each made by jansson, then "]" when the run ends. A run cut
 * short leaves the array open, which the viewers accept; the events are
 * streamed as the rows come, so that nothing waits for the end.
 *
 * The head is a global instant event "cpctools" at time 0 whose args are
 * the run's facts (as the JSON head), and the tool's own process_name.
 * Then, for each row:
 *   - metadata (ph "M"): process_name (the comm, again after an exec)
 *     and thread_name ("lwp N"; cpustat: "cpu N", a thread per CPU whose
 *     tid is the CPU number) with thread_sort_index, when first seen;
 *   - a counter (ph "C") of the row's values, unscaled, one arg an
 *     event. The viewers keep counters per process, so its name says
 *     whose they are: "lwp N" (cpustat "cpu N", or with --per-* the
 *     unit's name, "S0-D0-C1") for the counts of each interval (tick
 *     and gap rows, and the zeros a thread starts with), "lwp N total"
 *     and "process total" (cpustat "total") for the totals rows, which
 *     are not intervals and would break the line; " set S" follows with
 *     several sets;
 *   - with --metrics or -M, a counter of the row's metrics beside it,
 *     its name the counts' and " metrics", one arg a metric's key;
 *   - instant events (ph "i"): fork (args.child), exec (args.args),
 *     exit, lwp_exit, gap (args.intervals), and "not counted" in place
 *     of a counter whose values were not counted (args.reason), or
 *     "partial" beside one that leaves something out.
 * ts is in microseconds from the run's start, the row's time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "out_format.h"
#include "out_json.h"

#define BUCKETS 1024

struct tthread {
	pid_t tid;
	int n; /* the LWP's number, or the CPU's */
	struct tthread *next;
};

struct tproc {
	pid_t pid;
	char *comm; /* the name last given */
	struct tthread *threads;
	struct tproc *next;
};

/* The end last marked, whose other sets' rows follow it. */
struct tmark {
	const char *label;
	pid_t pid;
	pid_t tid;
};

/* What the trace has named so far; only the writer thread uses it. */
struct out_trace {
	struct tproc *procs[BUCKETS];
	struct tmark mark;
	pid_t self;
};

/* Whose a row is: the process and thread the viewers show it on. */
struct who {
	pid_t pid;
	pid_t tid;
	int n;		   /* LWP or CPU number: the thread's order */
	bool thread_known; /* the row says which thread */
	const char *comm;  /* the process's name, or NULL */
	char thread[512];  /* the thread's name, or a cgroup's */
};

/* One event being built; ok turns false when any part could not be. */
static void
free_threads(struct tthread *t)
{
	struct tthread *next;

	for (; t != NULL; t = next) {
		next = t->next;
		free(t);
	}
}

static void
free_proc(struct tproc *p)
{
	free_threads(p->threads);
	free(p->comm);
	free(p);
}

static void
trace_free(void *state)
{
	struct out_trace *tr = state;
	struct tproc *p, *next;
	int i;

	if (tr == NULL)
		return;
	for (i = 0; i < BUCKETS; i++)
		for (p = tr->procs[i]; p != NULL; p = next) {
			next = p->next;
			free_proc(p);
		}
	free(tr);
}

static struct tproc **
proc_slot(struct out_trace *tr, pid_t pid)
{
	struct tproc **pp = &tr->procs[(unsigned)pid % BUCKETS];

	while (*pp != NULL && (*pp)->pid != pid)
		pp = &(*pp)->next;
	return pp;
}

static struct tproc *
proc_get(struct out_trace *tr, pid_t pid)
{
	struct tproc **pp = proc_slot(tr, pid);

	if (*pp == NULL && (*pp = calloc(1, sizeof(**pp))) != NULL)
		(*pp)->pid = pid;
	return *pp;
}

/* Its own process, named by the head, which the writer thread does not write.
 */
static void *
trace_new(const struct out_run *run)
{
	struct out_trace *tr = calloc(1, sizeof(*tr));
	struct tproc *self;

	if (tr == NULL)
		return NULL;
	tr->self = getpid();
	if ((self = proc_get(tr, tr->self)) == NULL ||
	    (self->comm = strdup(run->tool)) == NULL) {
		trace_free(tr);
		return NULL;
	}
	return tr;
}

static struct tthread **
thread_slot(struct tproc *p, pid_t tid)
{
	struct tthread **tp = &p->threads;

	while (*tp != NULL && (*tp)->tid != tid)
		tp = &(*tp)->next;
	return tp;
}

/* Move what object o holds under key into e; o fails e if it failed. */
static void
put_ev(struct out_json_obj *e, const char *key, struct out_json_obj *o)
{
	if (!o->ok) {
		json_decref(o->json);
		e->ok = false;
		return;
	}
	out_json_put(e, key, o->json);
}

static struct out_json_obj
object(void)
{
	struct out_json_obj e = { json_object(), true };

	if (e.json == NULL)
		e.ok = false;
	return e;
}

static struct out_json_obj
event(const char *name, const char *ph, hrtime_t t, pid_t pid, pid_t tid)
{
	struct out_json_obj e = object();

	out_json_put(&e, "name", out_json_text(name));
	out_json_put(&e, "ph", json_string(ph));
	out_json_put(&e, "ts", json_real((double)t / 1e3));
	out_json_put(&e, "pid", json_integer(pid));
	out_json_put(&e, "tid", json_integer(tid));
	return e;
}

/* The event after sep, on a line of its own. */
static void
emit(struct out_buf *b, struct out_json_obj *e, const char *sep)
{
	out_buf_str(b, sep);
	out_json_emit(e, b);
}

static void
emit_meta(struct out_buf *b, const char *what, const struct who *w, hrtime_t t,
    const char *key, json_t *value)
{
	struct out_json_obj e = event(what, "M", t, w->pid, w->tid);
	struct out_json_obj args = object();

	out_json_put(&args, key, value);
	put_ev(&e, "args", &args);
	emit(b, &e, ",\n");
}

/* An instant event; scope: t (thread), p (process) or g (global). */
static void
emit_instant(struct out_buf *b, const char *name, const char *scope,
    const struct who *w, hrtime_t t, struct out_json_obj *args)
{
	struct out_json_obj e = event(name, "i", t, w->pid, w->tid);

	out_json_put(&e, "s", json_string(scope));
	put_ev(&e, "args", args);
	emit(b, &e, ",\n");
}

static void
name_process(
    struct tproc *p, struct out_buf *b, const struct who *w, hrtime_t t)
{
	char *comm;

	if (w->comm == NULL || w->comm[0] == '\0' ||
	    (p->comm != NULL && strcmp(p->comm, w->comm) == 0))
		return;
	if ((comm = strdup(w->comm)) == NULL) {
		b->failed = true;
		return;
	}
	free(p->comm);
	p->comm = comm;
	emit_meta(b, "process_name", w, t, "name", out_json_text(comm));
}

static void
name_thread(struct tproc *p, struct out_buf *b, const struct who *w, hrtime_t t)
{
	struct tthread **tp = thread_slot(p, w->tid);

	if (!w->thread_known || (*tp != NULL && (*tp)->n == w->n))
		return;
	if (*tp == NULL && (*tp = calloc(1, sizeof(**tp))) == NULL) {
		b->failed = true;
		return;
	}
	(*tp)->tid = w->tid;
	(*tp)->n = w->n;
	emit_meta(b, "thread_name", w, t, "name", out_json_text(w->thread));
	emit_meta(
	    b, "thread_sort_index", w, t, "sort_index", json_integer(w->n));
}

/* The process and thread, named when first seen or renamed (exec). */
static void
name(struct out_trace *tr, struct out_buf *b, const struct who *w, hrtime_t t)
{
	struct tproc *p = proc_get(tr, w->pid);

	if (p == NULL) {
		b->failed = true;
		return;
	}
	name_process(p, b, w, t);
	name_thread(p, b, w, t);
}

/* A row without a thread id (fork): the LWP's, if it was seen. */
static pid_t
tid_of_lwp(struct out_trace *tr, pid_t pid, int lwp)
{
	struct tproc *p = *proc_slot(tr, pid);
	struct tthread *t;

	for (t = p != NULL ? p->threads : NULL; t != NULL; t = t->next)
		if (t->n == lwp)
			return t->tid;
	return -1;
}

static void
cpustat_who(const struct out_trace *tr, const struct out_run *run,
    const struct out_row *r, struct who *w)
{
	w->pid = tr->self;
	w->comm = run->tool;
	w->n = r->cpu;
	w->thread_known = r->cpu >= 0;
	w->tid = r->cpu >= 0 ? r->cpu : tr->self;
	snprintf(w->thread, sizeof(w->thread), "cpu %d", r->cpu);
}

static void
who_of(struct out_trace *tr, const struct out_run *run, const struct out_row *r,
    struct who *w)
{
	memset(w, 0, sizeof(*w));
	if (run->cfg.tool == OUT_CPUSTAT) {
		cpustat_who(tr, run, r, w);
		return;
	}
	w->pid = r->pid;
	w->comm = r->comm;
	w->n = r->lwp;
	w->tid = r->tid > 0 ? r->tid : tid_of_lwp(tr, r->pid, r->lwp);
	w->thread_known = r->tid > 0;
	if (w->tid <= 0)
		w->tid = r->pid;
	/*
	 * --cgroup's own rows: pid 0, the cgroup's name as comm; with
	 * --for-each-cgroup, a counter of each cgroup's by its name.
	 */
	if (r->pid == 0 && run->cfg.cgroup_names && r->comm != NULL)
		snprintf(w->thread, sizeof(w->thread), "cgroup %s", r->comm);
	else if (r->pid == 0)
		snprintf(w->thread, sizeof(w->thread), "cgroup");
	else
		snprintf(w->thread, sizeof(w->thread), "lwp %d", r->lwp);
}

/* A row of one interval's counts, rather than of totals. */
static bool
interval_row(const char *label)
{
	static const char *const labels[] = { "tick", "gap", "cgroup", "rmdir",
		"lwp_create", "init_lwp" };
	size_t i;

	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (strcmp(label, labels[i]) == 0)
			return true;
	return false;
}

/* The counter's name: whose values, and which kind (see the top). */
static void
counter_name(const struct out_run *run, const struct out_row *r,
    const struct who *w, char *buf, size_t size)
{
	bool interval = interval_row(r->label);
	int n;

	if (run->cfg.tool == OUT_CPUSTAT)
		n = snprintf(buf, size, "%s",
		    r->cpu >= 0		? w->thread :
			r->unit != NULL ? r->unit :
					  "total");
	else if (interval || r->pid == 0)
		n = snprintf(
		    buf, size, "%s%s", w->thread, interval ? "" : " total");
	else if (strcmp(r->label, "lwp_exit") == 0 ||
	    strcmp(r->label, "fini_lwp") == 0)
		n = snprintf(buf, size, "%s total", w->thread);
	else
		n = snprintf(buf, size, "process total");
	if (run->nsets > 1 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " set %d", r->setno);
}

/*
 * --metrics, -M: the row's metrics on a counter of their own beside its
 * counts' (named counter, then " metrics"): a ratio on the scale of the
 * counts would be a flat line at 0.
 */
static void
emit_metrics(const struct out_run *run, struct out_buf *b,
    const struct out_row *r, const struct who *w, hrtime_t t,
    const char *counter)
{
	const struct out_metric *m;
	struct out_json_obj e, args = object();
	char name[80];
	bool any = false;
	double v;
	int i, n = out_run_set_metrics(run, r->setno, &m);

	for (i = 0; i < n; i++)
		if (out_row_metric(r, i, &v)) {
			out_json_put_clean(&args, m[i].key, json_real(v));
			any = true;
		}
	if (!any) {
		json_decref(args.json);
		return;
	}
	snprintf(name, sizeof(name), "%s metrics", counter);
	e = event(name, "C", t, w->pid, w->tid);
	put_ev(&e, "args", &args);
	emit(b, &e, ",\n");
}

static void
emit_counter(const struct out_run *run, struct out_buf *b,
    const struct out_row *r, const struct who *w, hrtime_t t)
{
	const struct spec *spec = run->specs[r->setno];
	struct out_json_obj e, args = object();
	char name[64];
	int i;

	counter_name(run, r, w, name, sizeof(name));
	e = event(name, "C", t, w->pid, w->tid);
	/* Beyond what JSON readers take as an integer: left out. */
	for (i = 0; i < spec->nreqs; i++)
		if (r->values[i] <= INT64_MAX)
			out_json_put_clean(&args, spec->reqs[i].name,
			    json_integer((json_int_t)r->values[i]));
	put_ev(&e, "args", &args);
	emit(b, &e, ",\n");
	if (r->metrics != NULL)
		emit_metrics(run, b, r, w, t, name);
}

/* Why a row's counter is missing, or what its total leaves out. */
static void
emit_note(struct out_buf *b, const char *what, const struct out_row *r,
    const struct who *w, hrtime_t t, const char *reason)
{
	struct out_json_obj args = object();

	out_json_put(&args, "label", out_json_text(r->label));
	out_json_put(&args, "set", json_integer(r->setno));
	out_json_put(&args, "reason", out_json_text(reason));
	emit_instant(b, what, "t", w, t, &args);
}

static void
counts(const struct out_run *run, struct out_buf *b, const struct out_row *r,
    const struct who *w, hrtime_t t)
{
	struct out_json_obj args;

	/* Never a 0 for what was not counted: no sample, and why. */
	if (r->not_counted != NULL || r->values == NULL) {
		emit_note(b, "not counted", r, w, t,
		    r->not_counted != NULL ? r->not_counted : "no values");
		return;
	}
	emit_counter(run, b, r, w, t);
	if (r->partial != NULL)
		emit_note(b, "partial", r, w, t, r->partial);
	if (r->intervals > 1) {
		args = object();
		out_json_put(
		    &args, "intervals", json_integer((json_int_t)r->intervals));
		emit_instant(b, "gap", "t", w, t, &args);
	}
}

/* A row without counts: a fork, or an exec's new image. */
static void
marker(
    struct out_buf *b, const struct out_row *r, const struct who *w, hrtime_t t)
{
	struct out_json_obj args = object();

	if (r->child > 0) {
		out_json_put(&args, "child", json_integer(r->child));
		emit_instant(b, "fork", "t", w, t, &args);
	} else if (r->args != NULL) {
		out_json_put(&args, "args", out_json_text(r->args));
		emit_instant(b, "exec", "p", w, t, &args);
	} else {
		json_decref(args.json);
	}
}

static bool
end_row(const struct out_row *r)
{
	return strcmp(r->label, "exit") == 0 ||
	    strcmp(r->label, "lwp_exit") == 0;
}

static void
forget(struct out_trace *tr, const struct out_row *r, const struct who *w)
{
	struct tproc **pp = proc_slot(tr, w->pid), *p = *pp;
	struct tthread **tp, *t;

	if (p == NULL)
		return;
	if (strcmp(r->label, "exit") == 0) {
		*pp = p->next;
		free_proc(p);
		return;
	}
	if ((t = *(tp = thread_slot(p, w->tid))) != NULL) {
		*tp = t->next;
		free(t);
	}
}

/*
 * An exit or lwp_exit: marked once, though a row comes for each set,
 * and what was named of it forgotten, as its ids may come again.
 */
static void
end(struct out_trace *tr, struct out_buf *b, const struct out_row *r,
    const struct who *w, hrtime_t t)
{
	struct out_json_obj args = object();
	bool process = strcmp(r->label, "exit") == 0;

	out_json_put(&args, "lwp", json_integer(r->lwp));
	emit_instant(b, r->label, process ? "p" : "t", w, t, &args);
	tr->mark = (struct tmark) { r->label, w->pid, w->tid };
	forget(tr, r, w);
}

static bool
marked(const struct out_trace *tr, const struct out_row *r, const struct who *w)
{
	return tr->mark.label != NULL && end_row(r) &&
	    strcmp(tr->mark.label, r->label) == 0 && tr->mark.pid == w->pid &&
	    tr->mark.tid == w->tid;
}

static void
trace_row(void *state, const struct out_run *run, struct out_buf *b,
    const struct out_row *r, hrtime_t t)
{
	struct out_trace *tr = state;
	struct who w;
	bool again;

	who_of(tr, run, r, &w);
	again = marked(tr, r, &w);
	if (!again) {
		tr->mark.label = NULL;
		name(tr, b, &w, t);
	}
	if (r->setno >= 0)
		counts(run, b, r, &w, t);
	else
		marker(b, r, &w, t);
	if (end_row(r) && !again)
		end(tr, b, r, &w, t);
}

static void
trace_head(void *state, const struct out_run *run, struct out_buf *b)
{
	const struct out_trace *tr = state;
	struct who self = { .pid = tr->self, .tid = tr->self };
	struct out_json_obj e = event("cpctools", "i", 0, tr->self, tr->self);
	struct out_json_obj args = object();

	out_json_put(&e, "s", json_string("g"));
	out_json_put(&args, "schema", json_string("cpctools"));
	out_json_put(&args, "version", json_integer(OUTPUT_SCHEMA_VERSION));
	out_json_put(&args, "tool", json_string(run->tool));
	out_json_put(&args, "tool_version", out_json_text(run->tool_version));
	out_json_put(&args, "host", out_json_text(run->host));
	out_json_put(&args, "start", json_string(run->start_text));
	out_json_put(&args, "start_epoch_ns",
	    json_integer((json_int_t)out_run_start_ns(run)));
	out_json_put(&args, "sets", out_json_sets(run));
	put_ev(&e, "args", &args);
	emit(b, &e, "[\n");
	emit_meta(b, "process_name", &self, 0, "name", json_string(run->tool));
}

/* The array's end, once every row is written. */
static void
trace_tail(struct out_buf *b)
{
	out_buf_str(b, "\n]\n");
}

/* The rows name their commands: the processes' tracks carry them. */
const struct out_format_ops out_trace_format = {
	.wants_comm = true,
	.state_new = trace_new,
	.state_free = trace_free,
	.head = trace_head,
	.row = trace_row,
	.tail = trace_tail,
};
