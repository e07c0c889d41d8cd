/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * setgrp.c: the sets of a run taking turns, and what each one counted.
 *
 * The turns are counted for real: uprobes on two functions of this very
 * program, bound to the CPU this thread runs on (cpc_bind_cpu pins it
 * there), count exactly the calls the test makes, and nothing another
 * program does. Each set's slice holds what it counted since its previous
 * sample and only during its own turns, its total the sum of its slices,
 * both when the sets are bound as one joint set (events with no counter
 * limit) and when they switch on the PMU (CPCTOOLS_SET_SWITCH). The
 * accumulators that an engine of its own fills (cputrack's BPF engine)
 * are checked with the values it would hand them.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "setgrp.h"

static cpc_t *cpc;
static char self[4096];
static volatile unsigned long calls_a, calls_b;

__attribute__((noinline, used)) void
setgrp_probe_a(void)
{
	calls_a = calls_a + 1;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void
setgrp_probe_b(void)
{
	calls_b = calls_b + 1;
	__asm__ volatile("" ::: "memory");
}

static void
call(int a, int b)
{
	while (a-- > 0)
		setgrp_probe_a();
	while (b-- > 0)
		setgrp_probe_b();
}

/* The values a set's counts hold, as a string "v1,v2,...". */
static const char *
values(const setgrp_t *g, const struct set_counts *c)
{
	static char text[256];
	int i, n = setgrp_spec(g, c->set)->nreqs, at = 0;

	text[0] = '\0';
	for (i = 0; i < n; i++)
		at += snprintf(text + at, sizeof(text) - (size_t)at, "%s%llu",
		    i > 0 ? "," : "", (unsigned long long)c->values[i]);
	return text;
}

#define CHECK_VALUES(g, c, want)                                            \
	do {                                                                \
		const struct set_counts *c_ = (c);                          \
		const char *got_ = c_ != NULL ? values((g), c_) : "(none)"; \
		check_count++;                                              \
		if (strcmp(got_, (want)) != 0) {                            \
			check_failures++;                                   \
			fprintf(stderr, "%s:%d: %s is %s, expected %s\n",   \
			    __FILE__, __LINE__, #c, got_, (want));          \
		}                                                           \
	} while (0)

static setgrp_t *
master_of(const char *spec0, const char *spec1)
{
	setgrp_t *m = setgrp_new(cpc);

	if (m == NULL || setgrp_add(m, spec0) != 0 ||
	    (spec1 != NULL && setgrp_add(m, spec1) != 0)) {
		fprintf(stderr, "cannot add \"%s\", \"%s\"\n", spec0,
		    spec1 != NULL ? spec1 : "");
		exit(1);
	}
	return m;
}

/*
 * An accumulator filled by an engine's own readings: each sample of a set
 * is its cumulative values; the slice is what they add since the set's
 * previous sample, the total the slices' sum, the time the latest.
 */
static void
test_engine_counts(void)
{
	setgrp_t *m = master_of("task-clock,page-faults", "context-switches");
	setgrp_t *acc = setgrp_accumulator(m), *sum = setgrp_accumulator(m);
	struct set_times t1 = { 1000, 900 }, t2 = { 3000, 2500 };
	const struct set_counts *slice, *total;
	uint64_t v1[] = { 100, 7 }, v2[] = { 250, 7 }, w1[] = { 40 };
	uint64_t first_tick;

	CHECK(acc != NULL && sum != NULL && acc != sum);
	if (acc == NULL || sum == NULL)
		return;
	CHECK(setgrp_nsets(acc) == 2 && !setgrp_joint(acc));
	CHECK(!setgrp_sampled(acc, 0) && !setgrp_sampled(acc, 1));
	setgrp_sample_counts(acc, 0, v1, &t1, 5000);
	first_tick = setgrp_slice(acc, 0)->tick;
	setgrp_sample_counts(acc, 0, v2, &t2, 4000);
	slice = setgrp_slice(acc, 0);
	total = setgrp_total(acc, 0);
	CHECK_VALUES(acc, slice, "150,0");
	CHECK_VALUES(acc, total, "250,7");
	CHECK(slice->set == 0 && total->set == 0);
	CHECK_EQ_U64(slice->times.enabled_ns, 2000);
	CHECK_EQ_U64(slice->times.running_ns, 1600);
	CHECK_EQ_U64(total->times.enabled_ns, 3000);
	CHECK_EQ_U64(total->times.running_ns, 2500);
	/* A sample timed before the previous one is not earlier than it. */
	CHECK_EQ_U64(slice->when, 5000);
	CHECK_EQ_U64(total->when, 5000);
	CHECK_EQ_U64(total->tick, first_tick + slice->tick);
	CHECK(setgrp_sampled(acc, 0) && !setgrp_sampled(acc, 1));

	/* The engine says which set counts now. */
	setgrp_set_current(acc, 1);
	CHECK(setgrp_current(acc) == 1);
	setgrp_sample_counts(acc, 1, w1, &t1, 6000);
	CHECK_VALUES(acc, setgrp_total(acc, 1), "40");

	/* Totals add up over groups, and start again from zero. */
	setgrp_accumulate(sum, acc);
	setgrp_accumulate(sum, acc);
	CHECK_VALUES(sum, setgrp_total(sum, 0), "500,14");
	CHECK_VALUES(sum, setgrp_total(sum, 1), "80");
	CHECK_EQ_U64(setgrp_total(sum, 0)->times.enabled_ns, 6000);
	CHECK_EQ_U64(setgrp_total(sum, 0)->when, 5000);
	CHECK(setgrp_sampled(sum, 0) && setgrp_sampled(sum, 1));
	setgrp_reset(sum);
	CHECK_VALUES(sum, setgrp_total(sum, 0), "0,0");
	CHECK(!setgrp_sampled(sum, 0));

	/*
	 * A freed clone goes back to its master, and is the next one asked
	 * for, counting from zero again.
	 */
	setgrp_free(acc);
	CHECK(setgrp_accumulator(m) == acc);
	CHECK_VALUES(acc, setgrp_total(acc, 0), "0,0");
	CHECK(!setgrp_sampled(acc, 0) && setgrp_current(acc) == 0);
	setgrp_sample_counts(acc, 0, v1, &t1, 5000);
	CHECK_VALUES(acc, setgrp_slice(acc, 0), "100,7");
	setgrp_free(acc);
	setgrp_free(sum);
	setgrp_free(m);
}

/*
 * An engine's readings of a set of two groups, with each group's times
 * (ns, worked out by hand): each value is scaled by its own group's
 * enabled over running time since its group last ran, as perf scales a
 * count, and waits while its group does not run; the set's running time
 * is its least run group's. A set of one group takes its times as given.
 */
static void
test_group_steps(void)
{
	setgrp_t *m = master_of(
	    "{task-clock,page-faults},{context-switches}", "task-clock");
	setgrp_t *acc = setgrp_accumulator(m);
	struct set_times t1[] = { { 1000, 1000 }, { 1000, 500 } },
			 t2[] = { { 3000, 3000 }, { 3000, 500 } },
			 t3[] = { { 4000, 4000 }, { 4000, 1000 } },
			 one[] = { { 1000, 900 } };
	uint64_t v1[] = { 100, 10, 30 }, v2[] = { 300, 20, 30 },
		 v3[] = { 400, 25, 50 }, w[] = { 70 };
	const struct set_counts *c;

	CHECK(acc != NULL);
	if (acc == NULL)
		return;
	setgrp_sample_groups(acc, 0, v1, t1, 1000);
	c = setgrp_total(acc, 0);
	CHECK_VALUES(acc, c, "100,10,60");
	CHECK_EQ_U64(c->times.enabled_ns, 1000);
	CHECK_EQ_U64(c->times.running_ns, 500);
	/* Group 1 did not run: its count waits, and the set did not run. */
	setgrp_sample_groups(acc, 0, v2, t2, 2000);
	c = setgrp_slice(acc, 0);
	CHECK_VALUES(acc, c, "200,10,0");
	CHECK_EQ_U64(c->times.enabled_ns, 2000);
	CHECK_EQ_U64(c->times.running_ns, 0);
	/* It ran again: 20 more, in 500 of the 3000 ns since it last ran. */
	setgrp_sample_groups(acc, 0, v3, t3, 3000);
	c = setgrp_total(acc, 0);
	CHECK_VALUES(acc, c, "400,25,180");
	CHECK_EQ_U64(c->times.enabled_ns, 4000);
	CHECK_EQ_U64(c->times.running_ns, 1000);
	setgrp_set_current(acc, 1);
	setgrp_sample_groups(acc, 1, w, one, 4000);
	c = setgrp_total(acc, 1);
	CHECK_VALUES(acc, c, "70");
	CHECK_EQ_U64(c->times.enabled_ns, 1000);
	CHECK_EQ_U64(c->times.running_ns, 900);
	/* A clone given back counts from zero again. */
	setgrp_free(acc);
	CHECK(setgrp_accumulator(m) == acc);
	setgrp_sample_groups(acc, 0, v1, t1, 1000);
	CHECK_VALUES(acc, setgrp_total(acc, 0), "100,10,60");
	setgrp_free(acc);
	setgrp_free(m);
}

/*
 * The wall-clock time counts were counted over, from an engine's samples
 * at times worked out by hand (ns): set 0 counts from 1000 to 4000 and
 * from 6000 to 9000, set 1 from 4000 to 6000. A set's span holds the
 * other's turns; its counted time is its own turns only.
 */
static void
test_turn_times(void)
{
	setgrp_t *m = master_of("task-clock", "task-clock");
	setgrp_t *acc = setgrp_accumulator(m), *other = setgrp_accumulator(m);
	setgrp_t *sum = setgrp_accumulator(m);
	struct set_times t = { 0, 0 };
	uint64_t zero[] = { 0 }, v[] = { 1 };
	const struct set_counts *c;

	CHECK(acc != NULL && other != NULL && sum != NULL);
	if (acc == NULL || other == NULL || sum == NULL)
		return;
	/* The starts: no sample before them, no span. */
	setgrp_sample_counts(acc, 0, zero, &t, 1000);
	setgrp_sample_counts(acc, 1, zero, &t, 1000);
	c = setgrp_slice(acc, 0);
	CHECK_EQ_U64(c->span_ns, 0);
	CHECK_EQ_U64(setgrp_counted_ns(c), 0);

	setgrp_sample_counts(acc, 0, v, &t, 4000);
	c = setgrp_slice(acc, 0);
	CHECK_EQ_U64(c->span_ns, 3000);
	CHECK_EQ_U64(c->turn_ns, 3000);
	CHECK_EQ_U64(setgrp_counted_ns(c), 3000);

	setgrp_set_current(acc, 1);
	setgrp_sample_counts(acc, 1, v, &t, 6000);
	c = setgrp_slice(acc, 1);
	/* 1000 to 6000, of which set 1's turn is 4000 to 6000. */
	CHECK_EQ_U64(c->span_ns, 5000);
	CHECK_EQ_U64(c->turn_ns, 2000);
	CHECK_EQ_U64(setgrp_counted_ns(c), 2000);

	setgrp_set_current(acc, 0);
	setgrp_sample_counts(acc, 0, v, &t, 9000);
	CHECK_EQ_U64(setgrp_slice(acc, 0)->turn_ns, 3000);
	/* Set 1 sampled out of its turn: its span, none of it counted. */
	setgrp_sample_counts(acc, 1, v, &t, 9000);
	c = setgrp_slice(acc, 1);
	CHECK_EQ_U64(c->span_ns, 3000);
	CHECK_EQ_U64(c->turn_ns, 0);
	CHECK_EQ_U64(setgrp_counted_ns(c), 0);

	/*
	 * The totals: 1000 to 9000, 3000 + 3000 of it set 0's, 2000 set 1's;
	 * no start is known (the first sample had none before it), so no
	 * counted time either.
	 */
	c = setgrp_total(acc, 0);
	CHECK_EQ_U64(c->span_ns, 8000);
	CHECK_EQ_U64(c->turn_ns, 6000);
	CHECK(c->since == 0 && setgrp_counted_ns(c) == 0);
	c = setgrp_total(acc, 1);
	CHECK_EQ_U64(c->span_ns, 8000);
	CHECK_EQ_U64(c->turn_ns, 2000);

	/* A second LWP, 5000 to 7000, all of it in set 0: the sums. */
	setgrp_sample_counts(other, 0, zero, &t, 5000);
	setgrp_sample_counts(other, 0, v, &t, 7000);
	setgrp_accumulate(sum, acc);
	setgrp_accumulate(sum, other);
	c = setgrp_total(sum, 0);
	CHECK_EQ_U64(c->span_ns, 10000);
	CHECK_EQ_U64(c->turn_ns, 8000);

	/*
	 * Those totals with their start known: one LWP's is its turns; a
	 * process of the two spans 1000 to 9000, and its LWPs were in set 0
	 * for 6000 + 2000 of their 8000 + 2000 ns, 0.8 of the time: 8000 *
	 * 0.8 = 6400. All of the span in its turn: the span, exactly.
	 */
	CHECK_EQ_U64(setgrp_counted_ns(&(struct set_counts) { .since = 1000,
			 .when = 9000,
			 .span_ns = 8000,
			 .turn_ns = 6000 }),
	    6000);
	CHECK_EQ_U64(setgrp_counted_ns(&(struct set_counts) { .since = 1000,
			 .when = 9000,
			 .span_ns = 10000,
			 .turn_ns = 8000 }),
	    6400);
	CHECK_EQ_U64(setgrp_counted_ns(&(struct set_counts) { .since = 5000,
			 .when = 7000,
			 .span_ns = 2000,
			 .turn_ns = 2000 }),
	    2000);
	/* A day of 1000 LWPs: no overflow; 1/3 rounds to the nearest ns. */
	CHECK_EQ_U64(setgrp_counted_ns(&(struct set_counts) { .since = 1,
			 .when = 1 + 86400000000000LL,
			 .span_ns = 86400000000000000ULL,
			 .turn_ns = 28800000000000000ULL }),
	    28800000000000ULL);
	CHECK_EQ_U64(setgrp_counted_ns(&(struct set_counts) {
			 .since = 1, .when = 11, .span_ns = 3, .turn_ns = 1 }),
	    3);

	setgrp_free(acc);
	setgrp_free(other);
	setgrp_free(sum);
	setgrp_free(m);
}

/*
 * Two sets taking turns on this CPU: set 0 counts a and b, set 1 only b.
 * Each sample is what the current set counted in its turn since its last
 * sample; the other set holds what it had.
 */
static void
take_turns(setgrp_t *m, int cpu, const char *mode)
{
	setgrp_t *g = setgrp_clone(m);
	const struct set_counts *c;
	hrtime_t ended;

	printf("%s: two sets on CPU %d\n", mode, cpu);
	CHECK(g != NULL);
	if (g == NULL)
		return;
	if (setgrp_bind_cpu(g, cpu, false) != 0) {
		CHECK(!"setgrp_bind_cpu");
		fprintf(stderr, "%s: bind to CPU %d: %s\n", mode, cpu,
		    strerror(errno));
		setgrp_free(g);
		return;
	}
	CHECK(setgrp_current(g) == 0);
	call(3, 5);
	c = setgrp_sample(g);
	CHECK_VALUES(g, c, "3,5");
	CHECK(c != NULL && c->set == 0);
	/* Bound, it was set 0's turn from the start. */
	CHECK(c != NULL && c->turn_ns == c->span_ns && c->span_ns > 0);
	ended = c != NULL ? c->when : 0;

	CHECK(setgrp_rotate(g) == 0 && setgrp_current(g) == 1);
	call(7, 11);
	c = setgrp_sample(g);
	CHECK_VALUES(g, c, "11");
	CHECK(c != NULL && c->set == 1);
	/*
	 * Set 1's span starts at the bind, its turn at the sample that ended
	 * set 0's (a joint set's, at the clock read just before it).
	 */
	CHECK(c != NULL && c->span_ns == (uint64_t)(c->when - c->since));
	CHECK(c != NULL && c->turn_ns >= (uint64_t)(c->when - ended) &&
	    c->turn_ns < c->span_ns);

	CHECK(setgrp_rotate(g) == 0 && setgrp_current(g) == 0);
	call(2, 1);
	c = setgrp_sample(g);
	CHECK_VALUES(g, c, "2,1");
	CHECK_VALUES(g, setgrp_total(g, 0), "5,6");
	CHECK_VALUES(g, setgrp_total(g, 1), "11");

	/* A rebase starts the next slice without adding to the total. */
	call(4, 0);
	CHECK(setgrp_rebase(g) == 0);
	call(1, 0);
	c = setgrp_sample(g);
	CHECK_VALUES(g, c, "1,0");
	CHECK_VALUES(g, setgrp_total(g, 0), "6,6");
	/* Its turn all along: the slice's turn is its span, no more. */
	CHECK(c != NULL && c->turn_ns == c->span_ns && c->span_ns > 0);

	/*
	 * Every set sampled: the one waiting adds nothing it did not count.
	 * Set 1's turn lasts 5 ms: each turn holds the whole of the reads
	 * that bound it, which in a slow build (ThreadSanitizer's) take tens
	 * of microseconds, and set 0's checks below must tell its turns from
	 * set 1's however long those reads took.
	 */
	CHECK(setgrp_rotate(g) == 0);
	call(9, 2);
	(void)usleep(5000); /* not a wait: the span set 1 counts */
	CHECK(setgrp_sample_all(g) == 0);
	CHECK_VALUES(g, setgrp_slice(g, 0), "0,0");
	CHECK_VALUES(g, setgrp_slice(g, 1), "2");
	CHECK_VALUES(g, setgrp_total(g, 0), "6,6");
	CHECK_VALUES(g, setgrp_total(g, 1), "13");
	/*
	 * Out of its turn, set 0's last slice holds no time of a joint set;
	 * a switched one counted on from its sample to the switch, and that
	 * time is the slice's.
	 */
	c = setgrp_slice(g, 0);
	if (strcmp(mode, "joint") == 0)
		CHECK_EQ_U64(c->turn_ns, 0);
	else
		CHECK(c->turn_ns > 0 && c->turn_ns < c->span_ns);
	CHECK(setgrp_counted_ns(setgrp_total(g, 0)) <
	    (uint64_t)(setgrp_total(g, 0)->when - setgrp_total(g, 0)->since));

	/* The times of a total are its slices' own, each set's turns. */
	c = setgrp_total(g, 0);
	CHECK(c->times.enabled_ns > 0);
	CHECK(c->times.running_ns <= c->times.enabled_ns);

	/* Given back and taken again: bound afresh, counting from zero. */
	setgrp_free(g);
	CHECK(setgrp_clone(m) == g);
	CHECK_VALUES(g, setgrp_total(g, 0), "0,0");
	CHECK(setgrp_bind_cpu(g, cpu, false) == 0);
	call(1, 1);
	CHECK_VALUES(g, setgrp_sample(g), "1,1");
	CHECK(setgrp_rotate(g) == 0);
	call(1, 1);
	CHECK_VALUES(g, setgrp_sample(g), "1");
	setgrp_unbind(g);
	setgrp_free(g);
}

static void
test_turns(void)
{
	char a[4200], b[4200], s0[8500], why[600];
	setgrp_t *m;
	int cpu;

	snprintf(a, sizeof(a), "uprobe:%s:setgrp_probe_a", self);
	snprintf(b, sizeof(b), "uprobe:%s:setgrp_probe_b", self);
	if (cpc_event_status(cpc, a, why, sizeof(why)) != CPC_EVENT_COUNTABLE)
		SKIP("uprobes cannot be counted here: %s", why);
	if ((cpu = sched_getcpu()) < 0)
		SKIP("sched_getcpu: %s", strerror(errno));
	snprintf(s0, sizeof(s0), "%s,%s", a, b);

	/* Events with no counter limit: one joint set, counting all along. */
	unsetenv("CPCTOOLS_SET_SWITCH");
	m = master_of(s0, b);
	CHECK(setgrp_joint(m));
	take_turns(m, cpu, "joint");
	setgrp_free(m);

	/* The same, as sets that switch on the PMU. */
	setenv("CPCTOOLS_SET_SWITCH", "1", 1);
	m = master_of(s0, b);
	CHECK(!setgrp_joint(m));
	take_turns(m, cpu, "switched");
	setgrp_free(m);
	unsetenv("CPCTOOLS_SET_SWITCH");
}

/*
 * An accumulator given its thread's start, as the BPF engine does: its
 * totals run from then, so that an LWP's exit row has its counted time
 * (CPUs utilized), as a bound group's has from its bind.
 */
static void
test_started_at(void)
{
	setgrp_t *m = master_of("task-clock", NULL);
	setgrp_t *acc = setgrp_accumulator(m);
	struct set_times t = { 0, 0 };
	uint64_t zero[] = { 0 }, v[] = { 1 };
	const struct set_counts *c;

	CHECK(acc != NULL);
	if (acc == NULL)
		return;
	setgrp_started_at(acc, 1000);
	setgrp_sample_counts(acc, 0, zero, &t, 1000);
	setgrp_sample_counts(acc, 0, v, &t, 4000);
	setgrp_sample_counts(acc, 0, v, &t, 9000);
	c = setgrp_total(acc, 0);
	CHECK_EQ_U64(c->since, 1000);
	CHECK_EQ_U64(setgrp_counted_ns(c), 8000);
	CHECK_EQ_U64(setgrp_counted_ns(setgrp_slice(acc, 0)), 5000);
	setgrp_free(acc);
	setgrp_free(m);
}

int
main(void)
{
	ssize_t n;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		SKIP("no /proc/self/exe: %s", strerror(errno));
	self[n] = '\0';
	test_engine_counts();
	test_group_steps();
	test_turn_times();
	test_started_at();
	test_turns();
	cpc_close(cpc);
	return check_report("test_setgrp");
}
