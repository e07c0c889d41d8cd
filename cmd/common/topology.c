/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CPUs' topology as sysfs gives it: cpuN/topology/physical_package_id,
 * die_id and core_id under devices/system/cpu, the NUMA nodes' CPU
 * lists, devices/system/node/nodeM/cpulist, and each CPU's caches,
 * cpuN/cache/indexK/{level,type,id,shared_cpu_list}. A core_id is unique
 * only within its die and socket, so a core is named by all three; a
 * cache id within its level, so perf names a cache by its socket, die,
 * level and id.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "topology.h"

const char *const topology_field_keys[TOPO_NFIELDS] = {
	[TOPO_F_SOCKET] = "socket",
	[TOPO_F_DIE] = "die",
	[TOPO_F_CORE] = "core",
	[TOPO_F_NODE] = "node",
	[TOPO_F_CACHE_LEVEL] = "cache_level",
	[TOPO_F_CACHE] = "cache",
};

const char *const topology_unit_keys[TOPO_NUNITS] = {
	[TOPO_CORE] = "core",
	[TOPO_DIE] = "die",
	[TOPO_SOCKET] = "socket",
	[TOPO_NODE] = "node",
	[TOPO_CACHE] = "cache",
};

/* Each field's mark in a unit's name: S1-D0-C23, N2, S0-D0-L3-ID1. */
static const char *const field_marks[TOPO_NFIELDS] = {
	[TOPO_F_SOCKET] = "S",
	[TOPO_F_DIE] = "D",
	[TOPO_F_CORE] = "C",
	[TOPO_F_NODE] = "N",
	[TOPO_F_CACHE_LEVEL] = "L",
	[TOPO_F_CACHE] = "ID",
};

/* The first line of the file at path, or NULL. */
static char *
read_text(const char *path, char *buf, size_t size)
{
	FILE *f;
	char *line;

	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	line = fgets(buf, (int)size, f);
	fclose(f);
	if (line != NULL)
		line[strcspn(line, "\n")] = '\0';
	return line;
}

/* The number in the file at path, or -1. */
static int
read_number(const char *path)
{
	char text[32], *end;
	long v;

	if (read_text(path, text, sizeof(text)) == NULL)
		return -1;
	v = strtol(text, &end, 10);
	return end != text && *end == '\0' && v >= 0 && v <= INT_MAX ? (int)v :
								       -1;
}

/* One number of cpu's topology under root, or -1. */
static int
read_id(const char *root, int cpu, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/%s",
	    root, cpu, name);
	return read_number(path);
}

/* Whether node directory dir's CPU list holds cpu. */
static bool
node_has(const char *root, const char *dir, int cpu)
{
	char path[512], list[4096];
	cpu_set_t cpus;

	snprintf(
	    path, sizeof(path), "%s/devices/system/node/%s/cpulist", root, dir);
	/* A node without CPUs (memory only) has an empty list. */
	return read_text(path, list, sizeof(list)) != NULL && list[0] != '\0' &&
	    cpus_parse_list(list, &cpus) == 0 && cpu < CPU_SETSIZE &&
	    CPU_ISSET(cpu, &cpus);
}

/* The node whose CPU list holds cpu; 0 without NUMA (no node directory). */
static int
node_of(const char *root, int cpu)
{
	char path[512];
	struct dirent *e;
	int node = -1, n;
	char *end;
	DIR *d;

	snprintf(path, sizeof(path), "%s/devices/system/node", root);
	if ((d = opendir(path)) == NULL)
		return 0;
	while (node < 0 && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "node", 4) != 0)
			continue;
		n = (int)strtol(e->d_name + 4, &end, 10);
		if (end != e->d_name + 4 && *end == '\0' &&
		    node_has(root, e->d_name, cpu))
			node = n;
	}
	closedir(d);
	return node >= 0 ? node : 0;
}

int
topology_place(const char *root, int cpu, struct cpu_place *p)
{
	p->socket = read_id(root, cpu, "physical_package_id");
	p->core = read_id(root, cpu, "core_id");
	if (p->socket < 0 || p->core < 0)
		return -1;
	/* Kernels before 5.5 and one-die packages may have no die_id. */
	if ((p->die = read_id(root, cpu, "die_id")) < 0)
		p->die = 0;
	p->node = node_of(root, cpu);
	p->cache_level = p->cache = -1;
	return 0;
}

/*
 * Cache index k of cpu: its level and id, where it holds data (data or
 * unified); false past the last index, or for an instruction cache.
 */
static bool
cache_index(const char *root, int cpu, int k, int *level, int *id, bool *end)
{
	char dir[512], path[600], text[4096];
	cpu_set_t sharing;
	int first;

	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%d/cache/index%d",
	    root, cpu, k);
	snprintf(path, sizeof(path), "%s/level", dir);
	*end = (*level = read_number(path)) < 0;
	snprintf(path, sizeof(path), "%s/type", dir);
	if (*end || read_text(path, text, sizeof(text)) == NULL ||
	    strcmp(text, "Instruction") == 0)
		return false;
	snprintf(path, sizeof(path), "%s/id", dir);
	if ((*id = read_number(path)) >= 0)
		return true;
	snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
	if (read_text(path, text, sizeof(text)) == NULL ||
	    cpus_parse_list(text, &sharing) != 0)
		return false;
	for (first = 0; first < CPU_SETSIZE && !CPU_ISSET(first, &sharing);
	     first++)
		;
	*id = first < CPU_SETSIZE ? first : -1;
	return *id >= 0;
}

int
topology_cache(const char *root, int cpu, int level, struct cpu_place *p)
{
	int k, at, id;
	bool end = false;

	p->cache_level = p->cache = -1;
	for (k = 0; !end; k++)
		if (cache_index(root, cpu, k, &at, &id, &end) &&
		    (level == 0 ? at > p->cache_level : at == level)) {
			p->cache_level = at;
			p->cache = id;
		}
	return p->cache_level >= 0 ? 0 : -1;
}

struct cpu_place
topology_unit(const struct cpu_place *p, enum topo_unit k)
{
	struct cpu_place u = { -1, -1, -1, -1, -1, -1 };

	switch (k) {
	case TOPO_CACHE:
		u.cache_level = p->cache_level;
		u.cache = p->cache;
		u.die = p->die;
		u.socket = p->socket;
		break;
	case TOPO_CORE:
		u.core = p->core;
		/* FALLTHROUGH */
	case TOPO_DIE:
		u.die = p->die;
		/* FALLTHROUGH */
	case TOPO_SOCKET:
		u.socket = p->socket;
		break;
	case TOPO_NODE:
		u.node = p->node;
		break;
	case TOPO_NONE:
		break;
	}
	return u;
}

bool
topology_same(const struct cpu_place *a, const struct cpu_place *b)
{
	return a->socket == b->socket && a->die == b->die &&
	    a->core == b->core && a->node == b->node &&
	    a->cache_level == b->cache_level && a->cache == b->cache;
}

void
topology_name(const struct cpu_place *u, char *buf, size_t size)
{
	if (u->node >= 0)
		snprintf(buf, size, "N%d", u->node);
	else if (u->cache_level >= 0)
		snprintf(buf, size, "S%d-D%d-L%d-ID%d", u->socket, u->die,
		    u->cache_level, u->cache);
	else if (u->core >= 0)
		snprintf(buf, size, "S%d-D%d-C%d", u->socket, u->die, u->core);
	else if (u->die >= 0)
		snprintf(buf, size, "S%d-D%d", u->socket, u->die);
	else
		snprintf(buf, size, "S%d", u->socket);
}

int
topology_name_field(const char *name, enum topo_field f)
{
	const char *at, *mark;
	size_t n;

	if (name == NULL || f < 0 || f >= TOPO_NFIELDS)
		return -1;
	mark = field_marks[f];
	n = strlen(mark);
	for (at = name; *at != '\0'; at++)
		if ((at == name || at[-1] == '-') &&
		    strncmp(at, mark, n) == 0 && at[n] >= '0' && at[n] <= '9')
			return atoi(at + n);
	return -1;
}
