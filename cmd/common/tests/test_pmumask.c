/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pmumask.c: the PMU an event names, and the refusal of a per-socket
 * PMU's events beside per-CPU ones. Which CPUs count a per-socket PMU's
 * events, read from recorded machines' cpumask files through libcpc, is
 * tests/unit/test_uncore.c's.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pmumask.h"

static void
test_pmu_names(void)
{
	char pmu[16];

	CHECK(pmumask_pmu("power/energy-pkg/", pmu, sizeof(pmu)) &&
	    strcmp(pmu, "power") == 0);
	CHECK(pmumask_pmu("uncore_imc/cas_count_read/", pmu, sizeof(pmu)) &&
	    strcmp(pmu, "uncore_imc") == 0);
	CHECK(!pmumask_pmu("cpu-clock", pmu, sizeof(pmu)));
	CHECK(!pmumask_pmu("sched:sched_switch", pmu, sizeof(pmu)));
	CHECK(!pmumask_pmu("/x/", pmu, sizeof(pmu)));
	CHECK(!pmumask_pmu("a_name_too_long_for_it/x/", pmu, sizeof(pmu)));
}

/*
 * cpustat refuses a per-socket PMU's event beside a per-CPU one, but per
 * socket with every CPU of the cpumasks (0 and 8) measured.
 */
static void
test_mixed(void)
{
	struct pmumask_use u = { .socket_reqs = 1,
		.socket_event = "power/energy-pkg/" };
	cpu_set_t measured;
	int cpu;

	CPU_ZERO(&u.cpus);
	CPU_SET(0, &u.cpus);
	CPU_SET(8, &u.cpus);
	CPU_ZERO(&measured);
	for (cpu = 0; cpu < 16; cpu++)
		CPU_SET(cpu, &measured);
	CHECK(!pmumask_refuse_mixed(&u, false, &measured));
	u.cpu_reqs = 1;
	u.cpu_event = "cpu-clock";
	CHECK(pmumask_refuse_mixed(&u, false, &measured));
	CHECK(!pmumask_refuse_mixed(&u, true, &measured));
	CPU_CLR(8, &measured);
	CHECK(pmumask_refuse_mixed(&u, true, &measured));
	u.socket_reqs = 0;
	CHECK(!pmumask_refuse_mixed(&u, false, &measured));
}

int
main(void)
{
	test_pmu_names();
	test_mixed();
	return check_report("test_pmumask");
}
