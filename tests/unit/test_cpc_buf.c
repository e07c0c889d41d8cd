/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sample buffers: arithmetic (with the Solaris hrtime rule: sub and add
 * take the later of the two times, not a difference), ownership checks,
 * and the sample time and tick of real samples.
 */
#include "test_cpc.h"

static cpc_set_t *
set_of(cpc_t *cpc, int nreqs)
{
	cpc_set_t *set = cpc_set_create(cpc);
	int i;

	for (i = 0; i < nreqs; i++)
		CHECK(cpc_set_add_request(cpc, set, "task-clock", 0,
			  CPC_COUNT_USER, 0, NULL) == i);
	return set;
}

static uint64_t
get(cpc_t *cpc, cpc_buf_t *buf, int index)
{
	uint64_t v = 0xdeadbeef;

	CHECK(cpc_buf_get(cpc, buf, index, &v) == 0);
	return v;
}

static void
fill(cpc_t *cpc, cpc_buf_t *buf, uint64_t v0, uint64_t v1)
{
	CHECK(cpc_buf_set(cpc, buf, 0, v0) == 0);
	CHECK(cpc_buf_set(cpc, buf, 1, v1) == 0);
}

static void
arithmetic(cpc_t *cpc, cpc_set_t *set2, cpc_set_t *set3)
{
	cpc_buf_t *a = cpc_buf_create(cpc, set2);
	cpc_buf_t *b = cpc_buf_create(cpc, set2);
	cpc_buf_t *d = cpc_buf_create(cpc, set2);
	cpc_buf_t *other = cpc_buf_create(cpc, set3);

	/* Fresh buffers are zero everywhere. */
	CHECK_EQ_U64(get(cpc, a, 0), 0);
	CHECK_EQ_U64(get(cpc, a, 1), 0);
	CHECK(cpc_buf_hrtime(cpc, a) == 0);
	CHECK_EQ_U64(cpc_buf_tick(cpc, a), 0);

	fill(cpc, a, 1000, 50);
	fill(cpc, b, 300, 70);
	CHECK_EQ_U64(get(cpc, a, 0), 1000);
	CHECK_EQ_U64(get(cpc, a, 1), 50);

	cpc_buf_sub(cpc, d, a, b);
	CHECK_EQ_U64(get(cpc, d, 0), 700);
	/* Unsigned 64-bit wrap, like the virtual counters themselves. */
	CHECK_EQ_U64(get(cpc, d, 1), (uint64_t)50 - 70);
	cpc_buf_add(cpc, d, a, b);
	CHECK_EQ_U64(get(cpc, d, 0), 1300);
	CHECK_EQ_U64(get(cpc, d, 1), 120);

	/* Mismatched sizes: nothing is touched. */
	fill(cpc, d, 11, 22);
	cpc_buf_sub(cpc, d, a, other);
	cpc_buf_add(cpc, d, other, b);
	cpc_buf_sub(cpc, other, a, b);
	cpc_buf_copy(cpc, d, other);
	cpc_buf_copy(cpc, other, a);
	CHECK_EQ_U64(get(cpc, d, 0), 11);
	CHECK_EQ_U64(get(cpc, d, 1), 22);
	CHECK_EQ_U64(get(cpc, other, 0), 0);
	CHECK_EQ_U64(get(cpc, other, 2), 0);

	cpc_buf_copy(cpc, d, a);
	CHECK_EQ_U64(get(cpc, d, 0), 1000);
	CHECK_EQ_U64(get(cpc, d, 1), 50);
	cpc_buf_zero(cpc, d);
	CHECK_EQ_U64(get(cpc, d, 0), 0);
	CHECK_EQ_U64(get(cpc, d, 1), 0);
	CHECK(cpc_buf_hrtime(cpc, d) == 0);
	CHECK_EQ_U64(cpc_buf_tick(cpc, d), 0);
}

/* Two samples around some CPU work; again if a CPU binding intervened. */
static void
sample_twice(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *first, cpc_buf_t *second)
{
	volatile unsigned long spin;
	int tries, rc = -1;

	for (tries = 0; tries < 20 && rc != 0; tries++) {
		CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
		if ((rc = cpc_set_sample(cpc, set, first)) == 0) {
			for (spin = 0; spin < 20000000UL; spin++)
				;
			rc = cpc_set_sample(cpc, set, second);
		}
		CHECK(rc == 0 || errno == EAGAIN);
		CHECK(cpc_unbind(cpc, set) == 0);
	}
	CHECK(rc == 0);
}

/* The hrtime and tick rules on real samples. */
static void
time_and_tick(cpc_t *cpc, cpc_set_t *set)
{
	cpc_buf_t *early = cpc_buf_create(cpc, set);
	cpc_buf_t *late = cpc_buf_create(cpc, set);
	cpc_buf_t *d = cpc_buf_create(cpc, set);
	hrtime_t t_early, t_late;
	uint64_t k_early, k_late;

	sample_twice(cpc, set, early, late);
	t_early = cpc_buf_hrtime(cpc, early);
	t_late = cpc_buf_hrtime(cpc, late);
	k_early = cpc_buf_tick(cpc, early);
	k_late = cpc_buf_tick(cpc, late);
	CHECK(t_early > 0);
	CHECK(t_late > t_early);
	CHECK(k_late > k_early);
	/* task-clock counted the spin: over a millisecond of CPU time. */
	CHECK(get(cpc, late, 0) - get(cpc, early, 0) > 1000000);

	cpc_buf_sub(cpc, d, late, early);
	CHECK(cpc_buf_hrtime(cpc, d) == t_late);
	CHECK_EQ_U64(cpc_buf_tick(cpc, d), k_late - k_early);
	cpc_buf_sub(cpc, d, early, late);
	CHECK(cpc_buf_hrtime(cpc, d) == t_late);
	CHECK_EQ_U64(cpc_buf_tick(cpc, d), k_early - k_late);

	cpc_buf_add(cpc, d, early, late);
	CHECK(cpc_buf_hrtime(cpc, d) == t_late);
	CHECK_EQ_U64(cpc_buf_tick(cpc, d), k_early + k_late);
	cpc_buf_add(cpc, d, late, early);
	CHECK(cpc_buf_hrtime(cpc, d) == t_late);

	cpc_buf_copy(cpc, d, early);
	CHECK(cpc_buf_hrtime(cpc, d) == t_early);
	CHECK_EQ_U64(cpc_buf_tick(cpc, d), k_early);
	CHECK_EQ_U64(get(cpc, d, 0), get(cpc, early, 0));
}

static void
ownership(cpc_t *cpc, cpc_set_t *set)
{
	cpc_t *other = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *foreign_set = set_of(other, 2);
	cpc_buf_t *foreign_buf = cpc_buf_create(other, foreign_set);
	cpc_buf_t *small, *buf;
	cpc_set_t *set1 = set_of(cpc, 1);

	errno = 0;
	CHECK(cpc_buf_create(cpc, foreign_set) == NULL && errno == EINVAL);
	CHECK(cpc_buf_create(cpc, NULL) == NULL && errno == EINVAL);
	errno = 0;
	CHECK(cpc_buf_destroy(cpc, foreign_buf) == -1 && errno == EINVAL);
	CHECK(cpc_buf_destroy(other, foreign_buf) == 0);

	/* Sampling needs a bound set and a buffer of its size. */
	buf = cpc_buf_create(cpc, set);
	small = cpc_buf_create(cpc, set1);
	CHECK(cpc_set_sample(cpc, set, buf) == -1 && errno == EINVAL);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	CHECK(cpc_set_sample(cpc, set, small) == -1 && errno == EINVAL);
	/* (EAGAIN only if another process bound a CPU meanwhile.) */
	CHECK(cpc_set_sample(cpc, set, buf) == 0 || errno == EAGAIN);
	CHECK(cpc_set_sample(other, set, buf) == -1 && errno == EINVAL);
	CHECK(cpc_unbind(cpc, set) == 0);
	CHECK(cpc_set_sample(cpc, set, buf) == -1 && errno == EINVAL);
	CHECK(cpc_buf_destroy(cpc, small) == 0);
	/* cpc_close frees the rest, including other's set. */
	cpc_close(other);
}

int
main(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set2, *set3;

	CHECK(cpc != NULL);
	if (cpc == NULL)
		return check_report("test_cpc_buf");
	set2 = set_of(cpc, 2);
	set3 = set_of(cpc, 3);
	arithmetic(cpc, set2, set3);
	time_and_tick(cpc, set2);
	ownership(cpc, set2);
	cpc_close(cpc);
	return check_report("test_cpc_buf");
}
