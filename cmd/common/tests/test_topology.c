/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * topology.c: where each CPU sits, read from a recorded two-socket tree
 * (tests/unit/sysfs-trees/intel-icelakex: CPUs numbered alternately by
 * socket, SMT siblings from CPU 48; the caches of four of its CPUs), the
 * caches of an RK3588 whose firmware gives them no id, and this machine's
 * own sysfs, and the units and names cpustat's --per-* rows carry.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "topology.h"

static const char icx[] = SOURCE_DIR "/tests/unit/sysfs-trees/intel-icelakex";
static const char rk3588[] =
    SOURCE_DIR "/tests/unit/sysfs-trees/arm-rk3588-biglittle";

static void
check_name(const struct cpu_place *p, enum topo_unit k, const char *want)
{
	struct cpu_place u = topology_unit(p, k);
	char got[32];

	topology_name(&u, got, sizeof(got));
	check_count++;
	if (strcmp(got, want) != 0) {
		check_failures++;
		fprintf(stderr, "unit %d: '%s', expected '%s'\n", (int)k, got,
		    want);
	}
}

static void
test_recorded(void)
{
	struct cpu_place p, q;

	CHECK(topology_place(icx, 0, &p) == 0);
	CHECK(p.socket == 0 && p.die == 0 && p.core == 0 && p.node == 0);
	CHECK(topology_place(icx, 49, &p) == 0);
	CHECK(p.socket == 1 && p.die == 0 && p.core == 0 && p.node == 1);
	check_name(&p, TOPO_CORE, "S1-D0-C0");
	check_name(&p, TOPO_DIE, "S1-D0");
	check_name(&p, TOPO_SOCKET, "S1");
	check_name(&p, TOPO_NODE, "N1");
	/* CPU 1 and its SMT sibling, CPU 49, are one core. */
	CHECK(topology_place(icx, 1, &q) == 0);
	p = topology_unit(&p, TOPO_CORE);
	q = topology_unit(&q, TOPO_CORE);
	CHECK(topology_same(&p, &q));
	/* CPU 3 is socket 1's next core; CPU 2 is socket 0's. */
	CHECK(topology_place(icx, 3, &q) == 0);
	check_name(&q, TOPO_CORE, "S1-D0-C1");
	q = topology_unit(&q, TOPO_CORE);
	CHECK(!topology_same(&p, &q));
	CHECK(topology_place(icx, 2, &q) == 0);
	check_name(&q, TOPO_SOCKET, "S0");
	check_name(&q, TOPO_CORE, "S0-D0-C1");
	CHECK(topology_place(icx, 95, &q) == 0);
	check_name(&q, TOPO_CORE, "S1-D0-C23");
	check_name(&q, TOPO_NODE, "N1");
	/* No CPU 96 on that machine. */
	CHECK(topology_place(icx, 96, &q) == -1);
	CHECK(topology_place("/nonexistent", 0, &q) == -1);
}

static void
test_name_fields(void)
{
	CHECK(topology_name_field("S1-D0-C23", TOPO_F_SOCKET) == 1);
	CHECK(topology_name_field("S1-D0-C23", TOPO_F_DIE) == 0);
	CHECK(topology_name_field("S1-D0-C23", TOPO_F_CORE) == 23);
	CHECK(topology_name_field("S1-D0-C23", TOPO_F_NODE) == -1);
	CHECK(topology_name_field("S1-D0-C23", TOPO_F_CACHE) == -1);
	CHECK(topology_name_field("S3", TOPO_F_SOCKET) == 3);
	CHECK(topology_name_field("S3", TOPO_F_CORE) == -1);
	CHECK(topology_name_field("N2", TOPO_F_NODE) == 2);
	CHECK(topology_name_field("N2", TOPO_F_SOCKET) == -1);
	CHECK(topology_name_field(NULL, TOPO_F_SOCKET) == -1);
	/* A cache's ID is not its die's D. */
	CHECK(topology_name_field("S1-D2-L3-ID17", TOPO_F_SOCKET) == 1);
	CHECK(topology_name_field("S1-D2-L3-ID17", TOPO_F_DIE) == 2);
	CHECK(topology_name_field("S1-D2-L3-ID17", TOPO_F_CACHE_LEVEL) == 3);
	CHECK(topology_name_field("S1-D2-L3-ID17", TOPO_F_CACHE) == 17);
	CHECK(topology_name_field("S1-D2-L3-ID17", TOPO_F_CORE) == -1);
	CHECK(strcmp(topology_field_keys[TOPO_F_CACHE_LEVEL], "cache_level") ==
	    0);
}

/*
 * The recorded Ice Lake-X's caches (CPUs 0, 1, 2 and 48): L1 and L2 a
 * core's, its two threads sharing them; L3 a socket's. The highest level
 * without one named; the instruction cache never.
 */
static void
test_recorded_caches(void)
{
	struct cpu_place p, q;

	CHECK(topology_place(icx, 48, &p) == 0 && p.cache_level == -1);
	CHECK(topology_cache(icx, 48, 0, &p) == 0);
	CHECK(p.cache_level == 3 && p.cache == 0);
	check_name(&p, TOPO_CACHE, "S0-D0-L3-ID0");
	CHECK(topology_place(icx, 2, &q) == 0 &&
	    topology_cache(icx, 2, 3, &q) == 0);
	p = topology_unit(&p, TOPO_CACHE);
	q = topology_unit(&q, TOPO_CACHE);
	CHECK(topology_same(&p, &q));
	/* Socket 1's L3 is another; L2 is each core's. */
	CHECK(topology_place(icx, 1, &q) == 0 &&
	    topology_cache(icx, 1, 3, &q) == 0);
	check_name(&q, TOPO_CACHE, "S1-D0-L3-ID1");
	CHECK(topology_place(icx, 48, &p) == 0 &&
	    topology_cache(icx, 48, 2, &p) == 0);
	check_name(&p, TOPO_CACHE, "S0-D0-L2-ID0");
	CHECK(topology_place(icx, 2, &q) == 0 &&
	    topology_cache(icx, 2, 2, &q) == 0);
	check_name(&q, TOPO_CACHE, "S0-D0-L2-ID2");
	CHECK(topology_cache(icx, 0, 1, &p) == 0 && p.cache_level == 1);
	/* No level 4; no cache recorded for CPU 3. */
	CHECK(topology_cache(icx, 0, 4, &p) == -1 && p.cache_level == -1);
	CHECK(topology_cache(icx, 3, 0, &p) == -1);
}

/*
 * The RK3588's firmware gives its caches no id: each is named by the
 * first CPU that shares it. L3 is the eight cores' (0-7), L2 each core's.
 */
static void
test_caches_without_id(void)
{
	struct cpu_place p;

	CHECK(topology_cache(rk3588, 4, 0, &p) == 0);
	CHECK(p.cache_level == 3 && p.cache == 0);
	CHECK(topology_cache(rk3588, 4, 2, &p) == 0);
	CHECK(p.cache_level == 2 && p.cache == 4);
}

/* This machine: every online CPU has a place, its node's list holds it. */
static void
test_this_machine(void)
{
	struct cpu_place p;

	CHECK(topology_place("/sys", 0, &p) == 0);
	CHECK(p.socket >= 0 && p.die >= 0 && p.core >= 0 && p.node >= 0);
	if (access("/sys/devices/system/cpu/cpu0/cache/index0", F_OK) != 0) {
		printf("SKIP this machine's caches: its sysfs gives none\n");
		return;
	}
	CHECK(topology_cache("/sys", 0, 0, &p) == 0 && p.cache_level >= 1 &&
	    p.cache >= 0);
}

int
main(void)
{
	test_recorded();
	test_name_fields();
	test_recorded_caches();
	test_caches_without_id();
	test_this_machine();
	return check_report("test_topology");
}
