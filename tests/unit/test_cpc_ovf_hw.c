/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Overflow on hardware counters, where the kernel has a core PMU: an
 * instructions counter preset 2^64 - P interrupts (SIGEMT, EMT_CPCOVF)
 * and freezes near 0 (hardware skid allows a few more), and buffered
 * records of a hardware event carry a precise PC where the PMU gives one.
 * Skipped, with the reason, on kernels without a core PMU (VMs).
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "test_cpc.h"

#define P    1000000ULL
#define SKID 10000ULL

static volatile int signals, code;

static void
on_emt(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	code = si->si_code;
	signals++;
}

static void __attribute__((noinline)) spin(long n)
{
	volatile long x = 0;

	while (n-- > 0)
		x++;
}

static void
test_interrupt(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	struct sigaction sa;
	cpc_buf_t *buf;
	uint64_t v;
	long rounds = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_emt;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGEMT, &sa, NULL);
	CHECK(cpc_set_add_request(cpc, set, "instructions", UINT64_MAX - P + 1,
		  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL) == 0);
	buf = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	while (signals == 0 && rounds++ < 1000)
		spin(10000);
	CHECK_EQ_U64(signals, 1);
	CHECK_EQ_U64(code, EMT_CPCOVF);
	CHECK(cpc_set_sample(cpc, set, buf) == 0);
	cpc_buf_get(cpc, buf, 0, &v);
	CHECK(v < SKID);
	CHECK(cpc_unbind(cpc, set) == 0);
}

static void
test_buffered(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_ovf_record_t recs[64];
	int n;

	CHECK(cpc_set_add_request(cpc, set, "instructions", 100000,
		  CPC_COUNT_USER | CPC_OVF_BUFFERED, 0, NULL) == 0);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	spin(1000000);
	n = cpc_set_sample_records(cpc, set, recs, 64, NULL);
	CHECK(n > 0);
	printf("hardware records: %d, precise PC %s\n", n,
	    n > 0 && (recs[0].cr_valid & CPC_REC_PRECISE_PC) ?
		"given" :
		"not given by this PMU");
	CHECK(cpc_unbind(cpc, set) == 0);
}

int
main(void)
{
	cpc_t *cpc;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	if (cpc_pmu_name(cpc) == NULL) {
		cpc_close(cpc);
		SKIP(
		    "no hardware PMU in this kernel (nothing like cpu, "
		    "cpu_core or armv8_pmuv3 in /sys/bus/event_source/devices):"
		    " hardware overflow cannot be tested here");
	}
	test_interrupt(cpc);
	test_buffered(cpc);
	cpc_close(cpc);
	return check_report("test_cpc_ovf_hw");
}
