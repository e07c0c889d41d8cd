/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Uncore and RAPL events on a recorded server: the PMU tree of a 2-socket
 * Ice Lake-X (tests/unit/sysfs-trees/intel-icelakex, read through
 * libcpc's test-only sysfs root; SOURCES.md says where each file comes
 * from). Its memory controllers are boxes, uncore_imc_0 (type 19) and
 * uncore_imc_1 (type 20), with no PMU named uncore_imc: a name without
 * the box number is one event per box, each weighed 1, so that the count
 * is their sum; each box, and RAPL's power PMU, counts on the CPUs of its
 * cpumask, CPU 0 (socket 0) and CPU 1 (socket 1). What the kernel does
 * with them is for a machine that has them.
 */
#include "test_cpc.h"
#include "../../cmd/common/pmumask.h"
#include "../../libcpc/evname.h"

#define ROOT SOURCE_DIR "/tests/unit/sysfs-trees/intel-icelakex"

/* Each of name's events is on the PMU of types[i], with config. */
static void
check_terms(
    cpc_t *cpc, const char *name, const uint32_t *types, int n, uint64_t config)
{
	struct ev_entry_view v;
	int i;

	CHECK(cpclib_event_view(cpc, name, &v));
	CHECK(v.status == CPC_EVENT_COUNTABLE);
	CHECK(v.enc.nterms == n);
	for (i = 0; i < n && i < v.enc.nterms; i++) {
		CHECK(v.enc.term[i].attr.type == types[i]);
		CHECK(v.enc.term[i].attr.config == config);
		CHECK(v.enc.term[i].sign == 1);
	}
}

/* The CPUs name counts on: 0 and 1, one per socket. */
static void
check_sockets(const char *name)
{
	cpu_set_t cpus;

	CHECK(pmumask_cpus(ROOT, name, &cpus) == 0);
	CHECK(CPU_COUNT(&cpus) == 2);
	CHECK(CPU_ISSET(0, &cpus) && CPU_ISSET(1, &cpus));
}

int
main(void)
{
	static const uint32_t boxes[] = { 19, 20 }, power[] = { 11 };
	struct ev_entry_view v;
	cpc_t *cpc;

	cpclib_set_sysfs_root(ROOT, 1);
	cpc = cpc_open(CPC_VER_CURRENT);
	CHECK(cpc != NULL);
	if (cpc == NULL)
		return check_report("test_uncore");
	/* The kernel's event=0x04 with umask 0x0f and 0x30, on each box. */
	check_terms(cpc, "uncore_imc/cas_count_read/", boxes, 2, 0x0f04);
	check_terms(cpc, "uncore_imc/cas_count_write/", boxes, 2, 0x3004);
	check_terms(cpc, "uncore_imc/event=0x01/", boxes, 2, 0x01);
	/* A box named counts alone. */
	check_terms(cpc, "uncore_imc_1/cas_count_read/", boxes + 1, 1, 0x0f04);
	check_terms(cpc, "power/energy-pkg/", power, 1, 0x02);
	check_terms(cpc, "power/energy-ram/", power, 1, 0x03);
	/* Boxes of another name are not these. */
	CHECK(cpclib_event_view(cpc, "uncore_im/cas_count_read/", &v));
	CHECK(v.status != CPC_EVENT_COUNTABLE);
	CHECK(strstr(v.why, "no PMU 'uncore_im'") != NULL);
	check_sockets("uncore_imc/cas_count_read/");
	check_sockets("uncore_imc_0/cas_count_read/");
	check_sockets("power/energy-pkg/");
	cpc_close(cpc);
	return check_report("test_uncore");
}
