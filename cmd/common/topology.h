/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where each CPU sits, from sysfs: its socket (package), die, core and
 * NUMA node; and the units cpustat sums CPUs into (--per-core,
 * --per-die, --per-socket, --per-node), named as perf names them.
 */
#ifndef TOPOLOGY_H
#define TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

/* A CPU's place, or a unit's: -1 where sysfs does not say, or unused. */
struct cpu_place {
	int socket;
	int die;
	int core;
	int node;
};

enum topo_unit { TOPO_NONE, TOPO_CORE, TOPO_DIE, TOPO_SOCKET, TOPO_NODE };

/*
 * cpu's place, read under root ("/sys", or a recorded tree): 0, or -1
 * when the CPU has no topology directory there. A die or node that the
 * kernel does not give (no die_id, no NUMA) is 0, as on one die or node.
 */
int topology_place(const char *root, int cpu, struct cpu_place *p);

/* The unit of kind k that a CPU at p belongs to (its other fields -1). */
struct cpu_place topology_unit(const struct cpu_place *p, enum topo_unit k);
bool topology_same(const struct cpu_place *a, const struct cpu_place *b);

/* A unit's name, perf's: S0-D0-C1 (core), S0-D0 (die), S0, N0. */
void topology_name(const struct cpu_place *u, char *buf, size_t size);

/*
 * A field of a unit's name (TOPO_SOCKET: S, TOPO_DIE: D, TOPO_CORE: C,
 * TOPO_NODE: N), or -1 where it has none: the outputs' fields.
 */
int topology_name_field(const char *name, enum topo_unit k);

#endif /* TOPOLOGY_H */
