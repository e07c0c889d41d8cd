/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where each CPU sits, from sysfs: its socket (package), die, core, NUMA
 * node and caches; and the units cpustat sums CPUs into (--per-core,
 * --per-die, --per-socket, --per-node, --per-cache), named as perf names
 * them.
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
	int cache_level; /* --per-cache's level (topology_cache) */
	int cache;	 /* the id of the CPU's cache at that level */
};

enum topo_unit {
	TOPO_NONE,
	TOPO_CORE,
	TOPO_DIE,
	TOPO_SOCKET,
	TOPO_NODE,
	TOPO_CACHE
};

/* The fields of a unit's name, in the outputs' order. */
enum topo_field {
	TOPO_F_SOCKET,
	TOPO_F_DIE,
	TOPO_F_CORE,
	TOPO_F_NODE,
	TOPO_F_CACHE_LEVEL,
	TOPO_F_CACHE,
	TOPO_NFIELDS
};

/* Each field's name in CSV, JSON and the exporter's labels. */
extern const char *const topology_field_keys[TOPO_NFIELDS];
/* Each kind of unit's key in a record ("socket"); TOPO_NONE's is NULL. */
#define TOPO_NUNITS (TOPO_CACHE + 1)
extern const char *const topology_unit_keys[TOPO_NUNITS];

/*
 * cpu's place, read under root ("/sys", or a recorded tree): 0, or -1
 * when the CPU has no topology directory there. A die or node that the
 * kernel does not give (no die_id, no NUMA) is 0, as on one die or node.
 */
int topology_place(const char *root, int cpu, struct cpu_place *p);

/*
 * The cache of cpu at level (1, 2, 3...; 0: its highest), its data or
 * unified one, in p: 0, or -1 when sysfs gives the CPU no such cache.
 * A cache without an id (some Arm firmware gives none) is named by the
 * first CPU that shares it.
 */
int topology_cache(const char *root, int cpu, int level, struct cpu_place *p);

/* The unit of kind k that a CPU at p belongs to (its other fields -1). */
struct cpu_place topology_unit(const struct cpu_place *p, enum topo_unit k);
bool topology_same(const struct cpu_place *a, const struct cpu_place *b);

/*
 * A unit's name, perf's: S0-D0-C1 (core), S0-D0 (die), S0, N0,
 * S0-D0-L3-ID0 (cache).
 */
void topology_name(const struct cpu_place *u, char *buf, size_t size);

/* Field f of a unit's name, or -1 where it has none. */
int topology_name_field(const char *name, enum topo_field f);

#endif /* TOPOLOGY_H */
