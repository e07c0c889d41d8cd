/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checks that need a hardware PMU in the kernel: real cycle and
 * instruction counts, generic (PAPI) names, and CPC_RESOURCE_UNAVAIL for
 * more hardware events than the PMU can schedule together. On a kernel
 * without a core PMU (a VM without a virtual PMU) the test is skipped
 * with that reason; the no-PMU behaviour is in test_cpc_errors.
 */
#include "test_cpc.h"

#define SPIN 10000000UL

static uint64_t
get(cpc_t *cpc, cpc_buf_t *buf, int index)
{
	uint64_t v = 0;

	cpc_buf_get(cpc, buf, index, &v);
	return v;
}

static void
spin(void)
{
	volatile unsigned long i;

	for (i = 0; i < SPIN; i++)
		;
}

/* Cycles and instructions of a known loop, in user mode. */
static void
real_counts(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *a, *b;

	CHECK(cpc_set_add_request(
		  cpc, set, "cycles", 0, CPC_COUNT_USER, 0, NULL) == 0);
	CHECK(cpc_set_add_request(
		  cpc, set, "PAPI_tot_ins", 0, CPC_COUNT_USER, 0, NULL) == 1);
	a = cpc_buf_create(cpc, set);
	b = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	CHECK(cpc_set_sample(cpc, set, a) == 0);
	spin();
	CHECK(cpc_set_sample(cpc, set, b) == 0);
	/* The loop is at least a compare, a branch and an increment. */
	CHECK(get(cpc, b, 1) - get(cpc, a, 1) >= 3 * SPIN);
	CHECK(get(cpc, b, 0) - get(cpc, a, 0) >= SPIN);
	printf("%lu iterations: %llu cycles, %llu instructions\n", SPIN,
	    (unsigned long long)(get(cpc, b, 0) - get(cpc, a, 0)),
	    (unsigned long long)(get(cpc, b, 1) - get(cpc, a, 1)));
	CHECK(cpc_unbind(cpc, set) == 0);
}

static void
count_name(void *arg, const char *event)
{
	(void)event;
	(*(int *)arg)++;
}

static void
listed(cpc_t *cpc)
{
	int generic = 0;

	cpc_walk_generic_events_all(cpc, &generic, count_name);
	CHECK(generic > 0);
	CHECK(cpc_event_status(cpc, "cycles", NULL, 0) == CPC_EVENT_COUNTABLE);
	CHECK(
	    cpc_event_status(cpc, "Cycle_cnt", NULL, 0) == CPC_EVENT_COUNTABLE);
}

/*
 * npic counts general and fixed counters; branch misses fit only the
 * general ones, so npic of them in one group cannot be scheduled. A PMU
 * without branch misses (QEMU's armv8_pmuv3) has instructions, which fit
 * only its general counters too.
 */
static void
resource_unavail(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	const char *event = "branch-misses";
	uint_t i;

	if (cpc_event_status(cpc, event, NULL, 0) != CPC_EVENT_COUNTABLE)
		event = "instructions";
	for (i = 0; i < cpc_npic(cpc); i++)
		CHECK(cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER, 0,
			  NULL) == (int)i);
	forget_error();
	CHECK(cpc_bind_curlwp(cpc, set, 0) == -1 && errno == EINVAL);
	CHECK(last_error.subcode == CPC_RESOURCE_UNAVAIL);
	CHECK(strcmp(last_error.msg, "Hardware resource unavailable\n") == 0);
}

int
main(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	CHECK(cpc != NULL);
	if (cpc == NULL)
		return check_report("test_cpc_hardware");
	if (cpc_pmu_name(cpc) == NULL) {
		cpc_close(cpc);
		SKIP("no hardware PMU in this kernel (nothing like cpu, "
		     "cpu_core or armv8_pmuv3 under "
		     "/sys/bus/event_source/devices): hardware counting, "
		     "PAPI names and CPC_RESOURCE_UNAVAIL cannot be tested");
	}
	cpc_seterrhndlr(cpc, recording_handler);
	listed(cpc);
	real_counts(cpc);
	resource_unavail(cpc);
	cpc_close(cpc);
	return check_report("test_cpc_hardware");
}
