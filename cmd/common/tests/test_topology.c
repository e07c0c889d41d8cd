/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * topology.c: where each CPU sits, read from a recorded two-socket tree
 * (tests/unit/sysfs-trees/intel-icelakex: CPUs numbered alternately by
 * socket, SMT siblings from CPU 48) and from this machine's own sysfs,
 * and the units and names cpustat's --per-* rows carry.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "topology.h"

static const char icx[] = SOURCE_DIR "/tests/unit/sysfs-trees/intel-icelakex";

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
	CHECK(topology_name_field("S1-D0-C23", TOPO_SOCKET) == 1);
	CHECK(topology_name_field("S1-D0-C23", TOPO_DIE) == 0);
	CHECK(topology_name_field("S1-D0-C23", TOPO_CORE) == 23);
	CHECK(topology_name_field("S1-D0-C23", TOPO_NODE) == -1);
	CHECK(topology_name_field("S3", TOPO_SOCKET) == 3);
	CHECK(topology_name_field("S3", TOPO_CORE) == -1);
	CHECK(topology_name_field("N2", TOPO_NODE) == 2);
	CHECK(topology_name_field("N2", TOPO_SOCKET) == -1);
	CHECK(topology_name_field(NULL, TOPO_SOCKET) == -1);
}

/* This machine: every online CPU has a place, its node's list holds it. */
static void
test_this_machine(void)
{
	struct cpu_place p;

	CHECK(topology_place("/sys", 0, &p) == 0);
	CHECK(p.socket >= 0 && p.die >= 0 && p.core >= 0 && p.node >= 0);
}

int
main(void)
{
	test_recorded();
	test_name_fields();
	test_this_machine();
	return check_report("test_topology");
}
