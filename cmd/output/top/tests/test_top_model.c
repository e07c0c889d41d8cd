/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live view's model and lines, fed rows as cputrack's engines make
 * them. A refresh shows the ticks since the one before, per thread and
 * summed per process (with the longest of the threads' times); totals
 * add up the ticks until a total row (lwp_exit, exit) gives them exactly;
 * a thread or process that ends is shown ended for one refresh and then
 * goes, its total staying in its process's, and a thread that ends before
 * a tick has seen it has no line, its counts its process's; an exec's totals
 * stay with the process and the new image counts from zero; an exec that is not
 * followed ends the process after a refresh with no thread; a row not
 * counted gives its reason, never a 0. The lines: rates per second,
 * clocks as CPUs, "-" for what was not counted, the busier process first,
 * a filter, each process's threads under it with H. Short processes:
 * rates over the refresh, every one in the final totals, past a bound
 * summed per name, the owner a fork row gives; batch mode's fold; the
 * tree; command lines; --for-each-cgroup's cgroups as lines; the scaled
 * mark kept in the final totals of large counts.
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "check.h"
#include "top_model.h"
#include "top_view.h"

#define SEC 1000000000LL

static cpc_t *cpc;

struct fixture {
	setgrp_t *specs;
	struct out_run run;
	struct top_model *m;
};

/* Set 0: page-faults,task-clock; set 1: context-switches. */
static void
open_fixture(struct fixture *f)
{
	struct out_config cfg = {
		.tool = OUT_CPUTRACK, .fd = -1, .metrics = true
	};

	memset(f, 0, sizeof(*f));
	if ((f->specs = setgrp_new(cpc)) == NULL ||
	    setgrp_add(f->specs, "page-faults,task-clock") != 0 ||
	    setgrp_add(f->specs, "context-switches") != 0) {
		fprintf(stderr, "cannot parse the specs\n");
		exit(1);
	}
	cfg.specs = f->specs;
	if (out_run_init(&f->run, cpc, &cfg) != 0 ||
	    (f->m = top_model_new(&f->run)) == NULL) {
		fprintf(stderr, "top_model_new: %s\n", strerror(errno));
		exit(1);
	}
}

static void
close_fixture(struct fixture *f)
{
	top_model_free(f->m);
	out_run_fini(&f->run);
	setgrp_free(f->specs);
}

/*
 * The test's pids are above the kernel's largest pid_max: the view looks
 * in /proc for names, where no process of the machine may answer.
 */
#define PID_BASE 5000000

/* A row of set for LWP lwp of process proc (pid PID_BASE + proc). */
static void
row_of(struct fixture *f, int set, const char *label, unsigned long proc,
    int lwp, const uint64_t *values, uint64_t elapsed_ns)
{
	top_model_row(f->m,
	    &(struct out_row) { .label = label,
		.when = (hrtime_t)elapsed_ns,
		.pid = (pid_t)(PID_BASE + proc),
		.proc = proc,
		.lwp = lwp,
		.tid = (pid_t)(PID_BASE + proc + (unsigned long)lwp - 1),
		.comm = "prog",
		.cpu = -1,
		.ncpus = -1,
		.setno = set,
		.values = values,
		.enabled_ns = elapsed_ns,
		.running_ns = elapsed_ns,
		.elapsed_ns = elapsed_ns });
}

/* A row of set 0 (page-faults, task-clock). */
static void
row0(struct fixture *f, const char *label, unsigned long proc, int lwp,
    uint64_t faults, uint64_t clock_ns, uint64_t elapsed_ns)
{
	uint64_t v[2] = { faults, clock_ns };

	row_of(f, 0, label, proc, lwp, v, elapsed_ns);
}

/* A row of set 1 (context-switches). */
static void
row1(struct fixture *f, const char *label, unsigned long proc, int lwp,
    uint64_t cs, uint64_t elapsed_ns)
{
	row_of(f, 1, label, proc, lwp, &cs, elapsed_ns);
}

static const struct top_entity *
proc_of(struct fixture *f, unsigned long key)
{
	int i;

	for (i = 0; i < top_model_nprocs(f->m); i++)
		if (top_model_proc(f->m, i)->proc == key)
			return top_model_proc(f->m, i);
	return NULL;
}

static int proc_index(struct fixture *f, unsigned long key);

/* LWP lwp of process key. */
static const struct top_entity *
thread_of(struct fixture *f, unsigned long key, int lwp)
{
	int p = proc_index(f, key), i;

	for (i = 0; p >= 0 && i < top_model_nthreads(f->m, p); i++)
		if (top_model_thread(f->m, p, i)->lwp == lwp)
			return top_model_thread(f->m, p, i);
	return NULL;
}

static int
proc_index(struct fixture *f, unsigned long key)
{
	int i;

	for (i = 0; i < top_model_nprocs(f->m); i++)
		if (top_model_proc(f->m, i)->proc == key)
			return i;
	return -1;
}

/* Set 0's value v of an entity over a span. */
static uint64_t
value(struct fixture *f, const struct top_entity *e, enum top_span span, int v)
{
	struct top_counts c = top_model_counts(f->m, e, span, 0);

	return c.counted ? c.values[v] : (uint64_t)-1;
}

static void
test_ticks(void)
{
	struct fixture f;
	const struct top_entity *p;

	open_fixture(&f);
	row0(&f, "lwp_create", 1, 2, 0, 0, 0);
	row0(&f, "tick", 1, 1, 3, 100, SEC);
	row0(&f, "tick", 1, 2, 5, 200, SEC / 2);
	CHECK(top_model_ticked(f.m));
	top_model_refresh(f.m);
	CHECK(!top_model_ticked(f.m));
	CHECK_EQ_U64(top_model_nprocs(f.m), 1);
	p = proc_of(&f, 1);
	CHECK(p != NULL && p->nthreads == 2 && !p->ended);
	CHECK_EQ_U64(value(&f, p, TOP_SHOWN, 0), 8);
	CHECK_EQ_U64(value(&f, p, TOP_SHOWN, 1), 300);
	/* A process's time is its longest thread's. */
	CHECK_EQ_U64(top_model_counts(f.m, p, TOP_SHOWN, 0).elapsed_ns, SEC);
	/* Set 1 was not counted: neither counted nor refused. */
	CHECK(!top_model_counts(f.m, p, TOP_SHOWN, 1).counted);
	CHECK(top_model_counts(f.m, p, TOP_SHOWN, 1).reason < 0);
	CHECK_EQ_U64(value(&f, thread_of(&f, 1, 2), TOP_SHOWN, 0), 5);
	/* The next refresh shows the next ticks only; totals add up. */
	row0(&f, "tick", 1, 1, 1, 10, 2 * SEC);
	top_model_refresh(f.m);
	p = proc_of(&f, 1);
	CHECK_EQ_U64(value(&f, p, TOP_SHOWN, 0), 1);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 9);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 1), 310);
	/* A thread without a tick in a refresh has nothing counted in it. */
	CHECK_EQ_U64(
	    value(&f, thread_of(&f, 1, 2), TOP_SHOWN, 0), (uint64_t)-1);
	close_fixture(&f);
}

/*
 * Rows that come after a refresh change nothing shown until the next: a
 * screen drawn between two (paused, at a key) has a process's total the
 * sum of its threads', an ended thread's exact total and a process's exit
 * row included.
 */
static void
test_between_refreshes(void)
{
	struct fixture f;
	const struct top_entity *p;

	open_fixture(&f);
	row0(&f, "tick", 1, 1, 3, 0, SEC);
	row0(&f, "tick", 1, 2, 5, 0, SEC);
	top_model_refresh(f.m);
	row0(&f, "tick", 1, 1, 10, 0, SEC);
	row0(&f, "lwp_exit", 1, 2, 20, 0, 2 * SEC);
	p = proc_of(&f, 1);
	CHECK_EQ_U64(value(&f, thread_of(&f, 1, 1), TOP_TOTAL, 0), 3);
	CHECK_EQ_U64(value(&f, thread_of(&f, 1, 2), TOP_TOTAL, 0), 5);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 8);
	CHECK(!thread_of(&f, 1, 2)->ended);
	top_model_refresh(f.m);
	p = proc_of(&f, 1);
	CHECK_EQ_U64(value(&f, thread_of(&f, 1, 1), TOP_TOTAL, 0), 13);
	CHECK_EQ_U64(value(&f, thread_of(&f, 1, 2), TOP_TOTAL, 0), 20);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 33);
	/* The exit row, too, waits for the refresh. */
	row0(&f, "exit", 1, 1, 50, 0, 3 * SEC);
	CHECK_EQ_U64(value(&f, proc_of(&f, 1), TOP_TOTAL, 0), 33);
	CHECK(!proc_of(&f, 1)->ended);
	top_model_refresh(f.m);
	p = proc_of(&f, 1);
	CHECK(p->ended);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 50);
	close_fixture(&f);
}

/* Process 1's LWPs 1 and 2, a tick each (1 and 2 faults), refreshed. */
static void
open_two_threads(struct fixture *f)
{
	open_fixture(f);
	row0(f, "tick", 1, 1, 1, 0, SEC);
	row0(f, "tick", 1, 2, 2, 0, SEC);
	top_model_refresh(f->m);
}

/*
 * A thread that ends before any tick has seen it has no line: its end
 * row is its process's, shown at the next refresh and in its total. One
 * that ends after ticks shows what it counted after its last one.
 */
static void
test_short_threads(void)
{
	struct fixture f;
	const struct top_entity *p;

	open_two_threads(&f);
	/*
	 * LWP 3 starts and ends between ticks; LWP 2 ends 5 after its tick,
	 * and 3 after its tick of set 1.
	 */
	row1(&f, "tick", 1, 2, 1, SEC);
	row0(&f, "lwp_exit", 1, 3, 40, 0, SEC / 100);
	row0(&f, "lwp_exit", 1, 2, 7, 0, SEC + SEC / 2);
	row1(&f, "lwp_exit", 1, 2, 4, SEC + SEC / 2);
	row0(&f, "tick", 1, 1, 1, 0, SEC);
	top_model_refresh(f.m);
	CHECK_EQ_U64(
	    top_model_counts(f.m, thread_of(&f, 1, 2), TOP_SHOWN, 1).values[0],
	    1 + 3);
	p = proc_of(&f, 1);
	CHECK(thread_of(&f, 1, 3) == NULL);
	CHECK_EQ_U64(top_model_nthreads(f.m, proc_index(&f, 1)), 2);
	CHECK_EQ_U64(p->nthreads, 1);
	/* Shown: LWP 1's tick, LWP 2's 5 after its tick, LWP 3's 40. */
	CHECK_EQ_U64(value(&f, p, TOP_SHOWN, 0), 46);
	CHECK_EQ_U64(value(&f, thread_of(&f, 1, 2), TOP_SHOWN, 0), 5);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 2 + 7 + 40);
	/* The next refresh shows LWP 1's tick alone; the total stays. */
	row0(&f, "tick", 1, 1, 1, 0, SEC);
	top_model_refresh(f.m);
	p = proc_of(&f, 1);
	CHECK_EQ_U64(value(&f, p, TOP_SHOWN, 0), 1);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 3 + 7 + 40);
	close_fixture(&f);
}

static void
test_ends(void)
{
	struct fixture f;
	const struct top_entity *p;

	open_two_threads(&f);
	/* LWP 2's end gives its total exactly: 7, not its ticks' 2. */
	row0(&f, "lwp_exit", 1, 2, 7, 0, SEC);
	top_model_refresh(f.m);
	p = proc_of(&f, 1);
	CHECK_EQ_U64(top_model_nthreads(f.m, proc_index(&f, 1)), 2);
	CHECK(thread_of(&f, 1, 2)->ended);
	CHECK_EQ_U64(p->nthreads, 1);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 8);
	/* Then it goes; its total stays with the process. */
	row0(&f, "tick", 1, 1, 1, 0, 2 * SEC);
	top_model_refresh(f.m);
	p = proc_of(&f, 1);
	CHECK_EQ_U64(top_model_nthreads(f.m, proc_index(&f, 1)), 1);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 9);
	/* The process's exit row is its total; it is shown ended, then goes. */
	row0(&f, "exit", 1, 1, 12, 0, 3 * SEC);
	top_model_refresh(f.m);
	p = proc_of(&f, 1);
	CHECK(p != NULL && p->ended);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 12);
	CHECK(thread_of(&f, 1, 1)->ended);
	/* The run's last refresh keeps it, for the final totals. */
	top_model_last_refresh(f.m);
	p = proc_of(&f, 1);
	CHECK(p != NULL && p->ended);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 12);
	top_model_refresh(f.m);
	CHECK_EQ_U64(top_model_nprocs(f.m), 0);
	close_fixture(&f);
}

static void
test_execs(void)
{
	struct fixture f;
	const struct top_entity *p;

	open_fixture(&f);
	row0(&f, "tick", 1, 1, 1, 0, SEC);
	row0(&f, "tick", 1, 2, 1, 0, SEC);
	/* The old image's totals; its threads go, the new one counts. */
	row0(&f, "exec", 1, 1, 5, 0, SEC);
	row0(&f, "tick", 1, 1, 2, 0, 2 * SEC);
	top_model_refresh(f.m);
	p = proc_of(&f, 1);
	CHECK_EQ_U64(top_model_nthreads(f.m, proc_index(&f, 1)), 1);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 7);
	/* Its exit row is the new image's: the process's total adds both. */
	row0(&f, "exit", 1, 1, 4, 0, 3 * SEC);
	top_model_refresh(f.m);
	CHECK_EQ_U64(value(&f, proc_of(&f, 1), TOP_TOTAL, 0), 9);
	close_fixture(&f);

	/* An exec not followed: no thread comes, the process ends. */
	open_fixture(&f);
	row0(&f, "tick", 2, 1, 1, 0, SEC);
	row0(&f, "exec", 2, 1, 1, 0, SEC);
	top_model_refresh(f.m);
	CHECK(!proc_of(&f, 2)->ended);
	top_model_refresh(f.m);
	CHECK(proc_of(&f, 2)->ended);
	top_model_refresh(f.m);
	CHECK(proc_of(&f, 2) == NULL);
	close_fixture(&f);
}

/*
 * A process that starts and ends between two refreshes is shown once,
 * with all its exit row counted, over the refresh's time (not its life),
 * then goes; one that ticked shows at its end what came after its tick.
 * The run's last refresh has every process that ended in its totals.
 */
static void
test_short_procs(void)
{
	struct fixture f;
	const struct top_entity *p;
	struct top_counts c;
	uint64_t sum = 0;
	int i;

	open_fixture(&f);
	row0(&f, "tick", 1, 1, 1, SEC / 4, SEC / 2);
	row0(&f, "tick", 3, 1, 10, 0, SEC / 2);
	row0(&f, "exec", 2, 1, 0, 0, 0);
	row0(&f, "lwp_exit", 2, 2, 500, 0, SEC / 1000);
	row0(&f, "exit", 2, 1, 1000, SEC / 1000, SEC / 1000);
	top_model_refresh(f.m);
	p = proc_of(&f, 2);
	CHECK(p != NULL && p->ended);
	CHECK_EQ_U64(value(&f, p, TOP_SHOWN, 0), 1000);
	/* Over the set's half second in the refresh: 2000/s, 0.002 CPUs. */
	c = top_model_counts(f.m, p, TOP_SHOWN, 0);
	CHECK_EQ_U64(c.elapsed_ns, SEC / 2);
	CHECK_EQ_U64(c.values[1], SEC / 1000);
	/* Process 3's end: 25 in all, 15 after its tick. */
	row0(&f, "exit", 3, 1, 25, 0, SEC);
	row0(&f, "tick", 1, 1, 1, SEC / 4, SEC / 2);
	top_model_refresh(f.m);
	CHECK(proc_of(&f, 2) == NULL);
	p = proc_of(&f, 3);
	CHECK(p != NULL && p->ended);
	CHECK_EQ_U64(value(&f, p, TOP_SHOWN, 0), 15);
	CHECK_EQ_U64(value(&f, p, TOP_TOTAL, 0), 25);
	row0(&f, "tick", 1, 1, 1, SEC / 4, SEC / 2);
	top_model_refresh(f.m);
	CHECK(proc_of(&f, 3) == NULL);
	CHECK_EQ_U64(top_model_nprocs(f.m), 1);
	/* The end: each process that counted, with its exact total. */
	top_model_last_refresh(f.m);
	CHECK_EQ_U64(top_model_nprocs(f.m), 3);
	CHECK_EQ_U64(value(&f, proc_of(&f, 2), TOP_TOTAL, 0), 1000);
	CHECK_EQ_U64(value(&f, proc_of(&f, 3), TOP_TOTAL, 0), 25);
	CHECK_EQ_U64(value(&f, proc_of(&f, 1), TOP_TOTAL, 0), 3);
	for (i = 0; i < top_model_nprocs(f.m); i++)
		sum += value(&f, top_model_proc(f.m, i), TOP_TOTAL, 0);
	CHECK_EQ_U64(sum, 1028);
	close_fixture(&f);
}

/*
 * A refresh's time is no less than its length (from the run's start for
 * the first), though the only thread ticked was attached late in it.
 */
static void
test_refresh_time(void)
{
	struct fixture f;
	const struct top_entity *p;

	open_fixture(&f);
	top_model_free(f.m);
	f.run.start = 0;
	if ((f.m = top_model_new(&f.run)) == NULL)
		exit(1);
	row0(&f, "tick", 1, 1, 1, 0, SEC / 4);
	top_model_row(f.m,
	    &(struct out_row) { .label = "tick",
		.when = SEC,
		.pid = PID_BASE + 3,
		.proc = 3,
		.lwp = 1,
		.tid = PID_BASE + 3,
		.setno = 0,
		.values = (const uint64_t[]) { 1, 0 },
		.elapsed_ns = SEC / 4,
		.enabled_ns = SEC / 4,
		.running_ns = SEC / 4 });
	row0(&f, "exit", 2, 1, 1000, 0, SEC / 1000);
	top_model_refresh(f.m);
	p = proc_of(&f, 2);
	CHECK(p != NULL && p->ended);
	/* The fixture's two sets take turns: set 0's is half the second. */
	CHECK_EQ_U64(
	    top_model_counts(f.m, p, TOP_SHOWN, 0).elapsed_ns, SEC / 2);
	close_fixture(&f);
}

/*
 * Thousands of processes that ended: past the bound, those of one name
 * are one, summed, and the totals stay exact.
 */
static void
test_many_ended(void)
{
	struct fixture f;
	const struct top_entity *p;
	uint64_t sum = 0, nfolded = 0;
	unsigned long k, n = 5000;
	int i;

	open_fixture(&f);
	for (k = 1; k <= n; k++) {
		row0(&f, "exit", k, 1, k % 7, 0, SEC / 1000);
		top_model_refresh(f.m);
	}
	top_model_refresh(f.m);
	CHECK_EQ_U64(top_model_nprocs(f.m), 0);
	top_model_last_refresh(f.m);
	for (i = 0; i < top_model_nprocs(f.m); i++) {
		p = top_model_proc(f.m, i);
		CHECK(p->ended);
		sum += value(&f, p, TOP_TOTAL, 0);
		nfolded += p->nfolded;
	}
	/* Each kept apart to the bound; the rest one line of their name. */
	CHECK(top_model_nprocs(f.m) < (int)n);
	CHECK_EQ_U64(nfolded + (uint64_t)top_model_nprocs(f.m) - 1, n);
	for (k = 1; k <= n; k++)
		sum -= k % 7;
	CHECK_EQ_U64(sum, 0);
	close_fixture(&f);
}

/*
 * A process first seen after it is gone (the BPF engine's rows come
 * late) has the owner and parent that its fork row gives: this test's.
 */
static void
test_fork_parent(void)
{
	struct fixture f;
	const struct top_entity *p;

	open_fixture(&f);
	top_model_row(f.m,
	    &(struct out_row) { .label = "fork",
		.pid = getpid(),
		.proc = 1,
		.lwp = 1,
		.tid = -1,
		.comm = "parent",
		.setno = -1,
		.child = PID_BASE + 2 });
	row0(&f, "exit", 2, 1, 3, 0, SEC / 1000);
	top_model_refresh(f.m);
	p = proc_of(&f, 2);
	CHECK(p != NULL && p->uid_known && p->uid == geteuid());
	CHECK(p != NULL && p->ppid == getpid());
	p = proc_of(&f, 1);
	CHECK(p != NULL && p->uid_known && p->uid == geteuid());
	CHECK(p != NULL && p->cmdline != NULL &&
	    strstr(p->cmdline, "test_top_model") != NULL);
	close_fixture(&f);
}

static void
test_not_counted(void)
{
	struct fixture f;
	struct top_counts c;

	open_fixture(&f);
	top_model_row(f.m,
	    &(struct out_row) { .label = "tick",
		.pid = PID_BASE + 1,
		.proc = 1,
		.lwp = 1,
		.tid = PID_BASE + 1,
		.setno = 1,
		.not_counted = "no descriptors" });
	row0(&f, "tick", 1, 1, 1, 0, SEC);
	top_model_refresh(f.m);
	c = top_model_counts(f.m, proc_of(&f, 1), TOP_SHOWN, 1);
	CHECK(!c.counted);
	CHECK(c.reason >= 0 &&
	    strcmp(top_model_reason(f.m, c.reason), "no descriptors") == 0);
	CHECK_EQ_U64(top_model_nreasons(f.m), 1);
	close_fixture(&f);
}

/* The line of a process or thread whose command is comm, or NULL. */
static const char *
line_of(const struct top_lines *l, const char *comm, int nth)
{
	size_t n = strlen(comm);
	const char *s;
	int i;

	for (i = l->body; i < l->n; i++) {
		s = top_line(l, i);
		if (strlen(s) >= n && strcmp(s + strlen(s) - n, comm) == 0 &&
		    nth-- == 0)
			return s;
	}
	return NULL;
}

static void
test_lines(void)
{
	struct fixture f;
	struct top_view *v;
	struct top_lines l = { 0 };
	struct top_choice c = { .interval_ms = 1000 };
	struct top_about a = {
		.engine = "bpf", .watching = "the test", .tick_ms = 1000
	};
	const char *s;
	uint64_t cs = 40;
	int i;

	open_fixture(&f);
	if ((v = top_view_new(&f.run)) == NULL) {
		fprintf(stderr, "top_view_new: no memory\n");
		exit(1);
	}
	c.sort = top_view_default_sort(v);
	CHECK(strcmp(top_view_column(v, c.sort), "page-fault") == 0);
	row0(&f, "tick", 1, 1, 10, SEC / 2, SEC);
	row0(&f, "tick", 2, 1, 2000, SEC, SEC);
	row0(&f, "tick", 2, 2, 500, SEC, SEC);
	top_model_row(f.m,
	    &(struct out_row) { .label = "tick",
		.pid = PID_BASE + 1,
		.proc = 1,
		.lwp = 1,
		.tid = PID_BASE + 1,
		.setno = 1,
		.values = &cs,
		.elapsed_ns = SEC / 2,
		.enabled_ns = SEC / 2,
		.running_ns = SEC / 4 });
	top_model_refresh(f.m);
	strlcpy(top_model_proc(f.m, 0)->comm, "small", 64);
	strlcpy(top_model_proc(f.m, 1)->comm, "big", 64);
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(!l.failed);
	CHECK(strcmp(top_line(&l, 0), "") != 0);
	/* The busier first: 2.50K faults/s over 2.00 CPUs, then 10.0/s. */
	CHECK((s = line_of(&l, " big", 0)) != NULL && l.body < l.n &&
	    s == top_line(&l, l.body));
	CHECK(s != NULL && strstr(s, " 2.50K/s ") != NULL &&
	    strstr(s, " 2.00 ") != NULL);
	/* Set 1 ran a quarter of its half second: 80/s, marked. */
	CHECK((s = line_of(&l, " small", 0)) != NULL &&
	    strstr(s, " 10.0/s ") != NULL && strstr(s, " 0.50 ") != NULL &&
	    strstr(s, " 80.0/s* ") != NULL);
	/* The other way round, filtered, with threads. */
	c.ascending = true;
	c.all_threads = true;
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK((s = line_of(&l, " small", 0)) != NULL &&
	    s == top_line(&l, l.body));
	CHECK(line_of(&l, "   big", 1) != NULL);
	strlcpy(c.filter, "bi", sizeof(c.filter));
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(line_of(&l, " small", 0) == NULL);
	CHECK(line_of(&l, " big", 0) != NULL);
	/* A narrow window: every line cut to it. */
	top_view_render(v, f.m, &c, &a, 40, &l);
	for (i = 0; i < l.n; i++)
		CHECK(strlen(top_line(&l, i)) <= 40);
	/* Totals: counts since the start, clocks in seconds. */
	c = (struct top_choice) { .sort = c.sort, .totals = true };
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK((s = line_of(&l, " big", 0)) != NULL &&
	    strstr(s, " 2500 ") != NULL && strstr(s, " 2.00s ") != NULL);
	top_lines_free(&l);
	top_view_free(v);
	close_fixture(&f);
}

/* A second's tick of set 1 for process proc, its set counted a third of it. */
static void
row1_scaled(struct fixture *f, unsigned long proc, uint64_t cs)
{
	top_model_row(f->m,
	    &(struct out_row) { .label = "tick",
		.when = SEC,
		.pid = (pid_t)(PID_BASE + proc),
		.proc = proc,
		.lwp = 1,
		.tid = (pid_t)(PID_BASE + proc),
		.comm = "prog",
		.setno = 1,
		.values = &cs,
		.elapsed_ns = SEC,
		.enabled_ns = SEC,
		.running_ns = SEC / 3 });
}

/*
 * The final totals keep the scaled mark of the ticks they sum, however
 * large the count: one past a billion is scaled (4.00G*), not 7 digits
 * and a prefix that filled the column and cut the mark off; one below
 * is exact (999999999*). A count never scaled has no mark.
 */
static void
test_scaled_totals(void)
{
	struct fixture f;
	struct top_view *v;
	struct top_lines l = { 0 };
	struct top_choice c = { .totals = true, .fold_ended = true };
	struct top_about a = {
		.engine = "scan", .watching = "the test", .tick_ms = 1000
	};
	const char *s;

	open_fixture(&f);
	if ((v = top_view_new(&f.run)) == NULL) {
		fprintf(stderr, "top_view_new: no memory\n");
		exit(1);
	}
	c.sort = top_view_default_sort(v);
	row1_scaled(&f, 1, 2000000000);
	row1(&f, "tick", 2, 1, 5000000000, SEC);
	row1_scaled(&f, 3, 999999999);
	top_model_refresh(f.m);
	row1_scaled(&f, 1, 2000000000);
	top_model_last_refresh(f.m);
	strlcpy(top_model_proc(f.m, proc_index(&f, 1))->comm, "mux", 64);
	strlcpy(top_model_proc(f.m, proc_index(&f, 2))->comm, "whole", 64);
	strlcpy(top_model_proc(f.m, proc_index(&f, 3))->comm, "below", 64);
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(!l.failed);
	CHECK((s = line_of(&l, " mux", 0)) != NULL &&
	    strstr(s, " 4.00G* ") != NULL);
	CHECK((s = line_of(&l, " whole", 0)) != NULL &&
	    strstr(s, " 5.00G ") != NULL && strchr(s, '*') == NULL);
	CHECK((s = line_of(&l, " below", 0)) != NULL &&
	    strstr(s, " 999999999* ") != NULL);
	top_lines_free(&l);
	top_view_free(v);
	close_fixture(&f);
}

/*
 * Batch mode's fold: past the first 20 lines, the ended processes of one
 * command are one line, their counts summed, and a line says so.
 */
static void
test_fold(void)
{
	struct fixture f;
	struct top_view *v;
	struct top_lines l = { 0 };
	struct top_choice c = { .interval_ms = 1000, .totals = true };
	struct top_about a = { .engine = "bpf", .tick_ms = 1000 };
	const char *s;
	unsigned long k;
	int i, nshort = 0;

	open_fixture(&f);
	if ((v = top_view_new(&f.run)) == NULL) {
		fprintf(stderr, "top_view_new: no memory\n");
		exit(1);
	}
	c.sort = top_view_default_sort(v);
	/* 30 processes of 2 faults each, ended; one busy one alive. */
	row0(&f, "tick", 100, 1, 1000, 0, SEC);
	for (k = 1; k <= 30; k++)
		row0(&f, "exit", k, 1, 2, 0, SEC / 1000);
	top_model_refresh(f.m);
	for (i = 0; i < top_model_nprocs(f.m); i++)
		strlcpy(top_model_proc(f.m, i)->comm,
		    top_model_proc(f.m, i)->proc == 100 ? "busy" : "short", 64);
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(line_of(&l, " short x11 <ended>", 0) == NULL);
	c.fold_ended = true;
	top_view_render(v, f.m, &c, &a, 0, &l);
	/* The busy one and 19 short ones, then the other 11 as one. */
	CHECK(
	    (s = line_of(&l, " busy", 0)) != NULL && s == top_line(&l, l.body));
	for (i = l.body; i < l.n; i++)
		nshort += strstr(top_line(&l, i), " short <ended>") != NULL;
	CHECK_EQ_U64(nshort, 19);
	CHECK((s = line_of(&l, " short x11 <ended>", 0)) != NULL &&
	    strstr(s, " 22 ") != NULL);
	CHECK(line_of(&l, "their counts summed)", 0) != NULL);
	top_lines_free(&l);
	top_view_free(v);
	close_fixture(&f);
}

/* The text of line i of the body, or "". */
static const char *
body_line(const struct top_lines *l, int i)
{
	return l->body + i < l->n ? top_line(l, l->body + i) : "";
}

static bool
ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), k = strlen(end);

	return n >= k && strcmp(s + n - k, end) == 0;
}

/*
 * The tree (V): each process under its parent, brothers in the order of
 * the sort; one whose parent is not shown at the top.
 */
static void
test_tree(void)
{
	struct fixture f;
	struct top_view *v;
	struct top_lines l = { 0 };
	struct top_choice c = { .interval_ms = 1000, .tree = true };
	struct top_about a = { .engine = "bpf", .tick_ms = 1000 };
	/* Process k's faults, and its parent (a process's number, or 0). */
	static const uint64_t faults[] = { 0, 1, 10, 5, 20, 100 };
	static const unsigned long parent[] = { 0, 0, 1, 2, 1, 99 };
	struct top_entity *e;
	char name[8];
	unsigned long k;
	int i;

	open_fixture(&f);
	if ((v = top_view_new(&f.run)) == NULL) {
		fprintf(stderr, "top_view_new: no memory\n");
		exit(1);
	}
	c.sort = top_view_default_sort(v);
	for (k = 1; k <= 5; k++)
		row0(&f, "tick", k, 1, faults[k], 0, SEC);
	top_model_refresh(f.m);
	for (i = 0; i < top_model_nprocs(f.m); i++) {
		e = top_model_proc(f.m, i);
		snprintf(name, sizeof(name), "p%lu", e->proc);
		strlcpy(e->comm, name, sizeof(e->comm));
		e->ppid = (pid_t)(PID_BASE + parent[e->proc]);
	}
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(ends_with(body_line(&l, 0), " p5"));
	CHECK(ends_with(body_line(&l, 1), " p1"));
	CHECK(ends_with(body_line(&l, 2), " `- p4"));
	CHECK(ends_with(body_line(&l, 3), " `- p2"));
	CHECK(ends_with(body_line(&l, 4), "    `- p3"));
	/* Without the tree: the busiest first, none indented. */
	c.tree = false;
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(ends_with(body_line(&l, 0), " p5"));
	CHECK(ends_with(body_line(&l, 1), " p4"));
	CHECK(ends_with(body_line(&l, 4), " p1"));
	/* c: a command line where there is one; the name where none. */
	top_model_proc(f.m, 0)->cmdline = strdup("p1 --with args");
	c.cmdline = true;
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(ends_with(body_line(&l, 4), " p1 --with args"));
	CHECK(ends_with(body_line(&l, 0), " p5"));
	/*
	 * g: a line per cgroup, its processes' values summed, the busier
	 * first: p4 and p5 (120 faults/s) in /y, the others (16) in /x.
	 */
	for (i = 0; i < top_model_nprocs(f.m); i++) {
		e = top_model_proc(f.m, i);
		e->cgroup = strdup(e->proc >= 4 ? "/y" : "/x");
	}
	c = (struct top_choice) { .sort = c.sort, .by_cgroup = true };
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(ends_with(body_line(&l, 0), " /y (2 processes)") &&
	    strstr(body_line(&l, 0), " 120/s ") != NULL);
	CHECK(ends_with(body_line(&l, 1), " /x (3 processes)") &&
	    strstr(body_line(&l, 1), " 16.0/s ") != NULL);
	CHECK(ends_with(body_line(&l, 2), "+- refresh"));
	top_lines_free(&l);
	top_view_free(v);
	close_fixture(&f);
}

/* A row of set 0 of --for-each-cgroup's cgroup name. */
static void
cgroup_row_of(struct fixture *f, const char *label, const char *name,
    uint64_t faults, uint64_t elapsed_ns)
{
	uint64_t v[2] = { faults, 0 };

	top_model_row(f->m,
	    &(struct out_row) { .label = label,
		.when = (hrtime_t)elapsed_ns,
		.comm = name,
		.cpu = -1,
		.ncpus = -1,
		.setno = 0,
		.values = v,
		.enabled_ns = elapsed_ns,
		.running_ns = elapsed_ns,
		.elapsed_ns = elapsed_ns });
}

/*
 * --for-each-cgroup's rows: each cgroup a line of its name, its ticks
 * its rate; a removed one ended, then gone, and one made again of its
 * name another.
 */
static void
test_each_cgroup(void)
{
	struct fixture f;
	struct top_view *v;
	struct top_lines l = { 0 };
	struct top_choice c = { .interval_ms = 1000 };
	struct top_about a = { .engine = "bpf", .tick_ms = 1000 };
	const struct top_entity *e;

	open_fixture(&f);
	if ((v = top_view_new(&f.run)) == NULL) {
		fprintf(stderr, "top_view_new: no memory\n");
		exit(1);
	}
	c.sort = top_view_default_sort(v);
	cgroup_row_of(&f, "cgroup", "/a", 30, SEC);
	cgroup_row_of(&f, "cgroup", "/a/b", 7, SEC);
	cgroup_row_of(&f, "total", "/a", 1000, SEC);
	top_model_refresh(f.m);
	CHECK_EQ_U64(top_model_nprocs(f.m), 2);
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(ends_with(body_line(&l, 0), " /a") &&
	    strstr(body_line(&l, 0), " 30.0/s ") != NULL);
	CHECK(ends_with(body_line(&l, 1), " /a/b") &&
	    strstr(body_line(&l, 1), " 7.0/s ") != NULL);
	/* A cgroup's line has no pid, user or threads. */
	CHECK(strncmp(body_line(&l, 0), "                      ", 22) == 0);
	cgroup_row_of(&f, "cgroup", "/a", 10, SEC);
	cgroup_row_of(&f, "rmdir", "/a/b", 1, SEC);
	top_model_refresh(f.m);
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(ends_with(body_line(&l, 0), " /a") &&
	    strstr(body_line(&l, 0), " 10.0/s ") != NULL);
	CHECK(ends_with(body_line(&l, 1), " /a/b <ended>") &&
	    strstr(body_line(&l, 1), " 1.0/s ") != NULL);
	cgroup_row_of(&f, "cgroup", "/a/b", 2, SEC);
	top_model_refresh(f.m);
	CHECK_EQ_U64(top_model_nprocs(f.m), 2);
	top_model_last_refresh(f.m);
	CHECK_EQ_U64(top_model_nprocs(f.m), 3);
	e = top_model_proc(f.m, 2);
	CHECK(e->ended && strcmp(e->cgroup, "/a/b") == 0);
	CHECK_EQ_U64(value(&f, e, TOP_TOTAL, 0), 8);
	top_lines_free(&l);
	top_view_free(v);
	close_fixture(&f);
}

/*
 * A thread's line names the thread, as the kernel does now: this test's
 * own thread, named, then renamed, then gone (its last name stays).
 */
static void
test_thread_names(void)
{
	struct fixture f;
	struct top_view *v;
	struct top_lines l = { 0 };
	struct top_choice c = { .interval_ms = 1000, .all_threads = true };
	struct top_about a = { .engine = "ptrace", .tick_ms = 1000 };
	uint64_t vals[2] = { 1, 1 };
	struct out_row row = { .label = "tick",
		.pid = getpid(),
		.proc = 1,
		.lwp = 1,
		.tid = gettid(),
		.comm = "prog",
		.cpu = -1,
		.ncpus = -1,
		.values = vals,
		.elapsed_ns = SEC,
		.enabled_ns = SEC,
		.running_ns = SEC };

	open_fixture(&f);
	if ((v = top_view_new(&f.run)) == NULL) {
		fprintf(stderr, "top_view_new: no memory\n");
		exit(1);
	}
	CHECK(prctl(PR_SET_NAME, "first-name") == 0);
	top_model_row(f.m, &row);
	top_model_refresh(f.m);
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(line_of(&l, " prog", 0) != NULL);
	CHECK(line_of(&l, "   first-name", 0) != NULL);
	CHECK(prctl(PR_SET_NAME, "second-name") == 0);
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(line_of(&l, "   first-name", 0) != NULL);
	row.when = 2 * SEC;
	top_model_row(f.m, &row);
	top_model_refresh(f.m);
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(line_of(&l, "   second-name", 0) != NULL);
	row.label = "lwp_exit";
	top_model_row(f.m, &row);
	top_model_refresh(f.m);
	CHECK(prctl(PR_SET_NAME, "test_top_model") == 0);
	top_view_render(v, f.m, &c, &a, 0, &l);
	CHECK(line_of(&l, "   second-name <ended>", 0) != NULL);
	top_lines_free(&l);
	top_view_free(v);
	close_fixture(&f);
}

int
main(void)
{
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	test_ticks();
	test_ends();
	test_between_refreshes();
	test_short_threads();
	test_execs();
	test_short_procs();
	test_refresh_time();
	test_many_ended();
	test_fork_parent();
	test_not_counted();
	test_lines();
	test_scaled_totals();
	test_thread_names();
	test_fold();
	test_tree();
	test_each_cgroup();
	cpc_close(cpc);
	return check_report("test_top_model");
}
