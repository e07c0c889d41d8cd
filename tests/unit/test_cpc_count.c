/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Exact counting on the real kernel: software events and tracepoints
 * bound to the test itself count precisely what it does. Covers
 * cpc_bind_curlwp with and without CPC_BIND_LWP_INHERIT, presets,
 * cpc_set_restart, cpc_request_preset, cpc_disable and cpc_enable.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>

#include "test_cpc.h"

#define WRITES	   1000
#define PAGES	   100
#define THREADS	   4
#define BIG_PRESET 1000000ULL

/* A scenario either ran, or met someone's CPU binding and must rerun. */
enum outcome { RAN, RERUN };

static int devnull = -1;

static void
do_writes(int n)
{
	char c = 'x';
	int i;

	for (i = 0; i < n; i++)
		if (write(devnull, &c, 1) != 1)
			abort();
}

static void
touch_fresh_pages(int n)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	volatile char *p;
	int i;

	if (n == 0)
		return;
	p = mmap(NULL, (size_t)n * (size_t)pagesz, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	for (i = 0; i < n; i++)
		p[(long)i * pagesz] = 1;
	munmap((void *)p, (size_t)n * (size_t)pagesz);
}

/* 0 when sampled, 1 when the set was invalidated by a CPU binding. */
static int
sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	if (cpc_set_sample(cpc, set, buf) == 0)
		return 0;
	if (errno == EAGAIN)
		return 1;
	fprintf(stderr, "cpc_set_sample: %s\n", strerror(errno));
	CHECK(!"cpc_set_sample failed");
	return 1;
}

static uint64_t
value(cpc_t *cpc, cpc_buf_t *buf, int index)
{
	uint64_t v = 0;

	cpc_buf_get(cpc, buf, index, &v);
	return v;
}

static void
run(enum outcome (*scenario)(cpc_t *), const char *name)
{
	cpc_t *cpc;
	int tries;

	for (tries = 0; tries < 20; tries++) {
		if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
			CHECK(!"cpc_open");
			return;
		}
		if (scenario(cpc) == RAN) {
			cpc_close(cpc);
			return;
		}
		cpc_close(cpc);
		printf("%s: invalidated by a CPU binding elsewhere, "
		       "running it again\n",
		    name);
		sleep_ms(200); /* not a wait: a pause before another try */
	}
	CHECK(!"scenario kept being invalidated");
}

/* The set of the issue: page faults and write(2) calls, user mode. */
static cpc_set_t *
faults_and_writes(cpc_t *cpc, uint64_t preset)
{
	cpc_set_t *set = cpc_set_create(cpc);

	CHECK(set != NULL);
	CHECK(cpc_set_add_request(cpc, set, "page-faults", preset,
		  CPC_COUNT_USER, 0, NULL) == 0);
	CHECK(cpc_set_add_request(cpc, set, "syscalls:sys_enter_write", preset,
		  CPC_COUNT_USER, 0, NULL) == 1);
	return set;
}

static enum outcome
exact_writes_and_faults(cpc_t *cpc)
{
	cpc_set_t *set = faults_and_writes(cpc, 0);
	cpc_buf_t *before = cpc_buf_create(cpc, set);
	cpc_buf_t *after = cpc_buf_create(cpc, set);
	cpc_buf_t *diff = cpc_buf_create(cpc, set);

	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	if (sample(cpc, set, before))
		return RERUN;
	do_writes(WRITES);
	touch_fresh_pages(PAGES);
	if (sample(cpc, set, after))
		return RERUN;
	cpc_buf_sub(cpc, diff, after, before);
	CHECK_EQ_U64(value(cpc, diff, 1), WRITES);
	CHECK(value(cpc, diff, 0) >= PAGES);
	/* Nothing happened before the first sample but the read itself. */
	CHECK(value(cpc, before, 1) == 0);
	CHECK(cpc_buf_hrtime(cpc, after) > cpc_buf_hrtime(cpc, before));
	CHECK(cpc_buf_tick(cpc, after) >= cpc_buf_tick(cpc, before));
	CHECK(cpc_unbind(cpc, set) == 0);
	return RAN;
}

static void *
writer_thread(void *arg)
{
	(void)arg;
	do_writes(WRITES / THREADS);
	return NULL;
}

static void
spawn_writers(void)
{
	pthread_t t[THREADS];
	int i;

	for (i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, writer_thread, NULL) == 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
}

/* Threads created after an inheriting bind count in the parent's read. */
static enum outcome
inherit_counts_new_threads(cpc_t *cpc)
{
	cpc_set_t *set = faults_and_writes(cpc, 0);
	cpc_buf_t *before = cpc_buf_create(cpc, set);
	cpc_buf_t *after = cpc_buf_create(cpc, set);

	CHECK(cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT) == 0);
	if (sample(cpc, set, before))
		return RERUN;
	spawn_writers();
	if (sample(cpc, set, after))
		return RERUN;
	CHECK_EQ_U64(value(cpc, after, 1) - value(cpc, before, 1), WRITES);
	return RAN;
}

/* Without inheritance, other threads' writes are not ours. */
static enum outcome
no_inherit_ignores_threads(cpc_t *cpc)
{
	cpc_set_t *set = faults_and_writes(cpc, 0);
	cpc_buf_t *before = cpc_buf_create(cpc, set);
	cpc_buf_t *after = cpc_buf_create(cpc, set);

	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	if (sample(cpc, set, before))
		return RERUN;
	spawn_writers();
	do_writes(7);
	if (sample(cpc, set, after))
		return RERUN;
	CHECK_EQ_U64(value(cpc, after, 1) - value(cpc, before, 1), 7);
	return RAN;
}

/* Counts start at the preset; restart goes back to it. */
static enum outcome
presets_and_restart(cpc_t *cpc)
{
	cpc_set_t *set = faults_and_writes(cpc, BIG_PRESET);
	cpc_buf_t *buf = cpc_buf_create(cpc, set);

	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	if (sample(cpc, set, buf))
		return RERUN;
	CHECK_EQ_U64(value(cpc, buf, 1), BIG_PRESET);
	do_writes(10);
	if (sample(cpc, set, buf))
		return RERUN;
	CHECK_EQ_U64(value(cpc, buf, 1), BIG_PRESET + 10);

	CHECK(cpc_set_restart(cpc, set) == 0);
	if (sample(cpc, set, buf))
		return RERUN;
	CHECK_EQ_U64(value(cpc, buf, 1), BIG_PRESET);
	do_writes(3);

	/* A new preset waits for the next restart. */
	CHECK(cpc_request_preset(cpc, 1, 5) == 0);
	if (sample(cpc, set, buf))
		return RERUN;
	CHECK_EQ_U64(value(cpc, buf, 1), BIG_PRESET + 3);
	CHECK(cpc_set_restart(cpc, set) == 0);
	do_writes(2);
	if (sample(cpc, set, buf))
		return RERUN;
	CHECK_EQ_U64(value(cpc, buf, 1), 5 + 2);
	CHECK(value(cpc, buf, 0) >= BIG_PRESET);

	CHECK(cpc_request_preset(cpc, 2, 0) == -1 && errno == EINVAL);
	CHECK(cpc_request_preset(cpc, -1, 0) == -1 && errno == EINVAL);
	return RAN;
}

/* Restart also resets what threads of an inheriting set counted. */
static enum outcome
restart_inherited(cpc_t *cpc)
{
	cpc_set_t *set = faults_and_writes(cpc, 0);
	cpc_buf_t *buf = cpc_buf_create(cpc, set);

	CHECK(cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT) == 0);
	spawn_writers();
	if (sample(cpc, set, buf))
		return RERUN;
	CHECK_EQ_U64(value(cpc, buf, 1), WRITES);
	CHECK(cpc_set_restart(cpc, set) == 0);
	do_writes(4);
	if (sample(cpc, set, buf))
		return RERUN;
	CHECK_EQ_U64(value(cpc, buf, 1), 4);
	return RAN;
}

static uint64_t
writes_while(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *a, cpc_buf_t *b, int writes,
    int pages, bool *rerun)
{
	if (sample(cpc, set, a)) {
		*rerun = true;
		return 0;
	}
	do_writes(writes);
	touch_fresh_pages(pages);
	if (sample(cpc, set, b)) {
		*rerun = true;
		return 0;
	}
	return value(cpc, b, 1) - value(cpc, a, 1);
}

/* Writes made while disabled are not counted, by any request. */
static enum outcome
disable_enable(cpc_t *cpc, uint_t bindflags)
{
	cpc_set_t *set = faults_and_writes(cpc, 0);
	cpc_buf_t *a = cpc_buf_create(cpc, set);
	cpc_buf_t *b = cpc_buf_create(cpc, set);
	bool rerun = false;
	uint64_t n;

	CHECK(cpc_bind_curlwp(cpc, set, bindflags) == 0);
	CHECK(cpc_enable(cpc) == -1 && errno == EINVAL);
	CHECK(cpc_disable(cpc) == 0);
	CHECK(cpc_disable(cpc) == -1 && errno == EINVAL);
	n = writes_while(cpc, set, a, b, 100, 10, &rerun);
	if (rerun)
		return RERUN;
	CHECK_EQ_U64(n, 0);
	CHECK_EQ_U64(value(cpc, b, 0) - value(cpc, a, 0), 0);

	CHECK(cpc_enable(cpc) == 0);
	n = writes_while(cpc, set, a, b, 100, 10, &rerun);
	if (rerun)
		return RERUN;
	CHECK_EQ_U64(n, 100);
	CHECK(value(cpc, b, 0) - value(cpc, a, 0) >= 10);

	/* Restart resumes a disabled set, as the Solaris kernel does. */
	CHECK(cpc_disable(cpc) == 0);
	CHECK(cpc_set_restart(cpc, set) == 0);
	n = writes_while(cpc, set, a, b, 6, 0, &rerun);
	if (rerun)
		return RERUN;
	CHECK_EQ_U64(n, 6);
	CHECK(cpc_disable(cpc) == 0);

	CHECK(cpc_unbind(cpc, set) == 0);
	CHECK(cpc_enable(cpc) == -1 && errno == EINVAL);
	CHECK(cpc_disable(cpc) == -1 && errno == EINVAL);
	return RAN;
}

static enum outcome
disable_enable_plain(cpc_t *cpc)
{
	return disable_enable(cpc, 0);
}

static enum outcome
disable_enable_inherit(cpc_t *cpc)
{
	return disable_enable(cpc, CPC_BIND_LWP_INHERIT);
}

/* A set may grow after an unbind and be bound again. */
static enum outcome
grow_after_unbind(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *small, *big;
	int i;

	CHECK(cpc_set_add_request(cpc, set, "syscalls:sys_enter_write", 0,
		  CPC_COUNT_USER, 0, NULL) == 0);
	small = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	if (sample(cpc, set, small))
		return RERUN;
	CHECK(cpc_unbind(cpc, set) == 0);
	for (i = 1; i < 6; i++)
		CHECK(cpc_set_add_request(cpc, set, "page-faults", 0,
			  CPC_COUNT_USER, 0, NULL) == i);
	big = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	CHECK(cpc_set_sample(cpc, set, small) == -1 && errno == EINVAL);
	do_writes(9);
	if (sample(cpc, set, big))
		return RERUN;
	CHECK_EQ_U64(value(cpc, big, 0), 9);
	return RAN;
}

/* No bound set: nothing to enable, disable, preset or restart. */
static void
nothing_bound(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set = faults_and_writes(cpc, 0);

	CHECK(cpc_enable(cpc) == -1 && errno == EINVAL);
	CHECK(cpc_disable(cpc) == -1 && errno == EINVAL);
	CHECK(cpc_request_preset(cpc, 0, 1) == -1 && errno == EINVAL);
	CHECK(cpc_set_restart(cpc, set) == -1 && errno == EINVAL);
	CHECK(cpc_unbind(cpc, set) == -1 && errno == EINVAL);
	cpc_close(cpc);
}

int
main(void)
{
	require_tracefs();
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		SKIP("cannot open /dev/null: %s", strerror(errno));
	run(exact_writes_and_faults, "exact_writes_and_faults");
	run(inherit_counts_new_threads, "inherit_counts_new_threads");
	run(no_inherit_ignores_threads, "no_inherit_ignores_threads");
	run(presets_and_restart, "presets_and_restart");
	run(restart_inherited, "restart_inherited");
	run(disable_enable_plain, "disable_enable_plain");
	run(disable_enable_inherit, "disable_enable_inherit");
	run(grow_after_unbind, "grow_after_unbind");
	nothing_bound();
	close(devnull);
	return check_report("test_cpc_count");
}
