/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pmumask.c: which CPUs count a per-socket PMU's events, from the
 * cpumask files of recorded machines (tests/unit/sysfs-trees): the
 * two-socket Ice Lake-X (CPU 0 on socket 0, CPU 1 on socket 1, as its
 * topology files say), the one-socket Skylake-X, and Zen 3's L3 PMU, one
 * CPU per L3; a PMU named without its box's number stands for its boxes.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pmumask.h"
#include "topology.h"

#define TREES SOURCE_DIR "/tests/unit/sysfs-trees/"

/* The CPUs of event's cpumask under tree, as a list ("0,8"), or "none". */
static void
check_mask(const char *tree, const char *event, const char *want)
{
	char got[256] = "", *at = got;
	cpu_set_t cpus;
	int c;

	if (pmumask_cpus(tree, event, &cpus) != 0)
		snprintf(got, sizeof(got), "none");
	for (c = 0; c < CPU_SETSIZE && strcmp(got, "none") != 0; c++)
		if (CPU_ISSET(c, &cpus))
			at += snprintf(at, sizeof(got) - (size_t)(at - got),
			    "%s%d", at == got ? "" : ",", c);
	check_count++;
	if (strcmp(got, want) != 0) {
		check_failures++;
		fprintf(stderr, "%s in %s: CPUs %s, expected %s\n", event, tree,
		    got, want);
	}
}

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

static void
test_recorded(void)
{
	const char *icx = TREES "intel-icelakex", *skx = TREES "intel-skylakex",
		   *zen3 = TREES "amd-zen3";
	struct cpu_place p;

	/* Two sockets: one CPU each, the first of each socket. */
	check_mask(icx, "power/energy-pkg/", "0,1");
	check_mask(icx, "uncore_imc_0/cas_count_read/", "0,1");
	check_mask(icx, "uncore_imc/cas_count_read/", "0,1");
	CHECK(topology_place(icx, 0, &p) == 0 && p.socket == 0);
	CHECK(topology_place(icx, 1, &p) == 0 && p.socket == 1);
	/* One socket: CPU 0 counts for it. */
	check_mask(skx, "power/energy-pkg/", "0");
	check_mask(skx, "uncore_imc/cas_count_read/", "0");
	check_mask(skx, "cstate_pkg/c6-residency/", "0");
	/* One CPU per L3 of four. */
	check_mask(zen3, "amd_l3/event=0x4,umask=0xff/", "0,8,16,24");
	/* Core PMUs, software events and PMUs not there have none. */
	check_mask(skx, "cpu/event=0x3c/", "none");
	check_mask(skx, "cpu-clock", "none");
	check_mask(skx, "uncore_nothing/x/", "none");
	check_mask(zen3, "uncore_imc/cas_count_read/", "none");
}

/* cpustat refuses a per-socket PMU's event beside a per-CPU one only. */
static void
test_mixed(void)
{
	struct pmumask_use u = { .socket_reqs = 1,
		.socket_event = "power/energy-pkg/" };

	CHECK(!pmumask_refuse_mixed(&u));
	u.cpu_reqs = 1;
	u.cpu_event = "cpu-clock";
	CHECK(pmumask_refuse_mixed(&u));
	u.socket_reqs = 0;
	CHECK(!pmumask_refuse_mixed(&u));
}

int
main(void)
{
	test_pmu_names();
	test_recorded();
	test_mixed();
	return check_report("test_pmumask");
}
