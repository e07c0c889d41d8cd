/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sets of several perf groups (cpc_set_group, cpc_set_scale,
 * cpc_buf_get_times) on the real kernel, with tracepoints that count
 * exactly: each group's values, more requests than cpc_npic, samples that
 * add up, a restart, an inheriting bind, and the refusals (a group of
 * more requests than a group holds, overflow, a bound set). Software
 * events never wait for a counter, so each group runs all its enabled
 * time and a scaled count is the count itself; the scaling of groups
 * that take turns on hardware counters is proven on the hardware suite's
 * emulated PMU (docs/hardware.md).
 */
#include <pthread.h>
#include <sys/syscall.h>

#include "test_cpc.h"

#define WRITES	1000
#define PPIDS	300
#define GROUPS	3
#define THREADS 4

/* Each group counts these four: writes and getppid calls, in and out. */
static const char *const events[] = { "syscalls:sys_enter_write",
	"syscalls:sys_exit_write", "syscalls:sys_enter_getppid",
	"syscalls:sys_exit_getppid" };
#define NEVENTS ((int)(sizeof(events) / sizeof(events[0])))

static int devnull = -1;

static void
do_calls(int writes, int ppids)
{
	char c = 'x';
	int i;

	for (i = 0; i < writes; i++)
		if (write(devnull, &c, 1) != 1)
			abort();
	for (i = 0; i < ppids; i++)
		(void)syscall(SYS_getppid);
}

/* What request i counts per write and per getppid call. */
static uint64_t
expected(int i, uint64_t writes, uint64_t ppids)
{
	return i % NEVENTS < 2 ? writes : ppids;
}

static uint64_t
value(cpc_t *cpc, cpc_buf_t *buf, int i)
{
	uint64_t v = 0;

	CHECK(cpc_buf_get(cpc, buf, i, &v) == 0);
	return v;
}

/*
 * GROUPS groups of the four events, group g holding requests 4g to 4g+3;
 * first put in group first (0: the set's own first group).
 */
static cpc_set_t *
grouped_set(cpc_t *cpc, int first, bool scale)
{
	cpc_set_t *set = cpc_set_create(cpc);
	int g, k, i;

	CHECK(set != NULL);
	for (g = 0; g < GROUPS; g++)
		for (k = 0; k < NEVENTS; k++) {
			i = cpc_set_add_request(cpc, set, events[k], 0,
			    CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL);
			CHECK(i == g * NEVENTS + k);
			CHECK(cpc_set_group(cpc, set, i, first + g) == 0);
		}
	CHECK(cpc_set_scale(cpc, set, scale) == 0);
	return set;
}

/* Every request of a grouped set counted exactly, its times full. */
static void
check_exact(cpc_t *cpc, cpc_buf_t *diff, uint64_t writes, uint64_t ppids)
{
	uint64_t enabled, running;
	int i;

	for (i = 0; i < GROUPS * NEVENTS; i++) {
		CHECK_EQ_U64(value(cpc, diff, i), expected(i, writes, ppids));
		CHECK(cpc_buf_get_times(cpc, diff, i, &enabled, &running) == 0);
		CHECK(enabled > 0);
		CHECK_EQ_U64(running, enabled);
	}
}

/*
 * More requests than cpc_npic, in three groups: each counts exactly, in
 * every span between samples, scaled or not; the set ran all its time.
 */
static void
exact_in_groups(bool scale)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set;
	cpc_buf_t *a, *b, *c, *diff;
	uint64_t enabled, running;

	CHECK(cpc != NULL);
	CHECK(GROUPS * NEVENTS > (int)cpc_npic(cpc));
	set = grouped_set(cpc, 1, scale);
	a = cpc_buf_create(cpc, set);
	b = cpc_buf_create(cpc, set);
	c = cpc_buf_create(cpc, set);
	diff = cpc_buf_create(cpc, set);
	CHECK(cpc_set_check(cpc, set, -1) == 0);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	CHECK(cpc_set_sample(cpc, set, a) == 0);
	do_calls(WRITES, PPIDS);
	CHECK(cpc_set_sample(cpc, set, b) == 0);
	cpc_buf_sub(cpc, diff, b, a);
	check_exact(cpc, diff, WRITES, PPIDS);
	do_calls(7, 11);
	CHECK(cpc_set_sample(cpc, set, c) == 0);
	cpc_buf_sub(cpc, diff, c, b);
	check_exact(cpc, diff, 7, 11);
	cpc_buf_sub(cpc, diff, c, a);
	check_exact(cpc, diff, WRITES + 7, PPIDS + 11);
	CHECK(cpc_set_times(cpc, set, &enabled, &running) == 0);
	CHECK(enabled > 0);
	CHECK_EQ_U64(running, enabled);
	CHECK(cpc_unbind(cpc, set) == 0);
	CHECK(cpc_close(cpc) == 0);
}

/* Group 0 is a group like another: the set's first. */
static void
group_zero_among_others(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set = grouped_set(cpc, 0, true);
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);

	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	CHECK(cpc_set_sample(cpc, set, a) == 0);
	do_calls(WRITES, PPIDS);
	CHECK(cpc_set_sample(cpc, set, b) == 0);
	cpc_buf_sub(cpc, b, b, a);
	check_exact(cpc, b, WRITES, PPIDS);
	CHECK(cpc_close(cpc) == 0);
}

/* A restart of a scaled set of groups: counts start again, exactly. */
static void
restart_in_groups(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set = grouped_set(cpc, 1, true);
	cpc_buf_t *buf = cpc_buf_create(cpc, set);
	int i;

	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	do_calls(WRITES, PPIDS);
	CHECK(cpc_set_restart(cpc, set) == 0);
	do_calls(5, 9);
	CHECK(cpc_set_sample(cpc, set, buf) == 0);
	for (i = 0; i < GROUPS * NEVENTS; i++)
		CHECK_EQ_U64(value(cpc, buf, i), expected(i, 5, 9));
	CHECK(cpc_close(cpc) == 0);
}

static void *
caller_thread(void *arg)
{
	(void)arg;
	do_calls(WRITES / THREADS, PPIDS / THREADS);
	return NULL;
}

/* Threads made after an inheriting bind count in each group. */
static void
inherit_in_groups(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set = grouped_set(cpc, 1, true);
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
	pthread_t t[THREADS];
	int i;

	CHECK(cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT) == 0);
	CHECK(cpc_set_sample(cpc, set, a) == 0);
	for (i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, caller_thread, NULL) == 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK(cpc_set_sample(cpc, set, b) == 0);
	cpc_buf_sub(cpc, b, b, a);
	for (i = 0; i < GROUPS * NEVENTS; i++)
		CHECK_EQ_U64(value(cpc, b, i), expected(i, WRITES, PPIDS));
	CHECK(cpc_close(cpc) == 0);
}

/* One more request than a group holds: refused at bind, naming it. */
static void
group_too_big(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set = cpc_set_create(cpc);
	char want[128];
	uint_t i;

	(void)cpc_seterrhndlr(cpc, recording_handler);
	for (i = 0; i < cpc_npic(cpc) + 1; i++) {
		CHECK(cpc_set_add_request(cpc, set, events[0], 0,
			  CPC_COUNT_USER, 0, NULL) == (int)i);
		CHECK(cpc_set_group(cpc, set, (int)i, 2) == 0);
	}
	CHECK(cpc_set_add_request(
		  cpc, set, events[1], 0, CPC_COUNT_USER, 0, NULL) == (int)i);
	last_error.calls = 0;
	CHECK(cpc_bind_curlwp(cpc, set, 0) == -1 && errno == EINVAL);
	snprintf(want, sizeof(want),
	    "group 2: %u requests, more than the %u a group holds\n",
	    cpc_npic(cpc) + 1, cpc_npic(cpc));
	CHECK(last_error.calls == 1);
	CHECK(strcmp(last_error.msg, want) == 0);
	CHECK(last_error.subcode == CPC_RESOURCE_UNAVAIL);
	/* The check before a bind says the same. */
	last_error.calls = 0;
	CHECK(cpc_set_check(cpc, set, -1) == 1);
	CHECK(last_error.calls == 1 && strcmp(last_error.msg, want) == 0);
	CHECK(cpc_close(cpc) == 0);
}

/* Without groups, a set holds cpc_npic requests, as before. */
static void
one_group_bound_by_npic(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set = cpc_set_create(cpc);
	uint_t i;

	for (i = 0; i < cpc_npic(cpc) + 1; i++)
		CHECK(cpc_set_add_request(cpc, set, events[0], 0,
			  CPC_COUNT_USER, 0, NULL) == (int)i);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == -1 && errno == EINVAL);
	/* In one group of its own, still one group. */
	for (i = 0; i < cpc_npic(cpc) + 1; i++)
		CHECK(cpc_set_group(cpc, set, (int)i, 3) == 0);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == -1 && errno == EINVAL);
	CHECK(cpc_close(cpc) == 0);
}

/* At most CPC_SET_MAX_REQS requests in all, whatever the groups. */
static void
set_bound(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set = cpc_set_create(cpc);
	int i, per = (int)cpc_npic(cpc);

	for (i = 0; i <= CPC_SET_MAX_REQS; i++) {
		CHECK(cpc_set_add_request(cpc, set, "page-faults", 0,
			  CPC_COUNT_USER, 0, NULL) == i);
		CHECK(cpc_set_group(cpc, set, i, i / per) == 0);
	}
	CHECK(cpc_bind_curlwp(cpc, set, 0) == -1 && errno == EINVAL);
	CHECK(cpc_close(cpc) == 0);
}

/* The calls' own refusals. */
static void
bad_calls(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT), *other;
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf;
	uint64_t en, ru;

	other = cpc_open(CPC_VER_CURRENT);
	CHECK(cpc_set_add_request(
		  cpc, set, events[0], 0, CPC_COUNT_USER, 0, NULL) == 0);
	CHECK(cpc_set_group(cpc, set, 1, 1) == -1 && errno == EINVAL);
	CHECK(cpc_set_group(cpc, set, -1, 1) == -1 && errno == EINVAL);
	CHECK(cpc_set_group(cpc, set, 0, -1) == -1 && errno == EINVAL);
	CHECK(cpc_set_group(cpc, set, 0, CPC_SET_MAX_REQS) == -1 &&
	    errno == EINVAL);
	CHECK(cpc_set_group(other, set, 0, 1) == -1 && errno == EINVAL);
	CHECK(cpc_set_scale(other, set, 1) == -1 && errno == EINVAL);
	buf = cpc_buf_create(cpc, set);
	CHECK(
	    cpc_buf_get_times(cpc, buf, 1, &en, &ru) == -1 && errno == EINVAL);
	CHECK(
	    cpc_buf_get_times(cpc, buf, -1, &en, &ru) == -1 && errno == EINVAL);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	CHECK(cpc_set_group(cpc, set, 0, 1) == -1 && errno == EINVAL);
	CHECK(cpc_set_scale(cpc, set, 1) == -1 && errno == EINVAL);
	CHECK(cpc_close(other) == 0);
	CHECK(cpc_close(cpc) == 0);
}

/* Overflow needs one group: a set of several that asks is refused. */
static void
overflow_refused(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set = cpc_set_create(cpc);

	(void)cpc_seterrhndlr(cpc, recording_handler);
	CHECK(cpc_set_add_request(cpc, set, events[0], UINT64_MAX - 10,
		  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL) == 0);
	CHECK(cpc_set_add_request(
		  cpc, set, events[2], 0, CPC_COUNT_USER, 0, NULL) == 1);
	CHECK(cpc_set_group(cpc, set, 1, 1) == 0);
	last_error.calls = 0;
	CHECK(cpc_bind_curlwp(cpc, set, 0) == -1 && errno == EINVAL);
	CHECK(last_error.calls == 1);
	CHECK(strstr(last_error.msg, "counts in one group; this one has 2") !=
	    NULL);
	CHECK(cpc_close(cpc) == 0);
}

int
main(void)
{
	require_tracefs();
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		SKIP("/dev/null: %s", strerror(errno));
	exact_in_groups(false);
	exact_in_groups(true);
	group_zero_among_others();
	restart_in_groups();
	inherit_in_groups();
	group_too_big();
	one_group_bound_by_npic();
	set_bound();
	bad_calls();
	overflow_refused();
	return check_report("test_cpc_groups");
}
