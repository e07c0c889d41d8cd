/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CPUs' topology as sysfs gives it: cpuN/topology/physical_package_id,
 * die_id and core_id under devices/system/cpu, and the NUMA nodes' CPU
 * lists, devices/system/node/nodeM/cpulist. A core_id is unique only
 * within its die and socket, so a core is named by all three.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "topology.h"

/* One number from a file under root, or -1. */
static int
read_id(const char *root, int cpu, const char *name)
{
	char path[512];
	FILE *f;
	int v;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/%s",
	    root, cpu, name);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fscanf(f, "%d", &v) != 1 || v < 0)
		v = -1;
	fclose(f);
	return v;
}

/* Whether node directory dir's CPU list holds cpu. */
static bool
node_has(const char *root, const char *dir, int cpu)
{
	char path[512], list[4096];
	cpu_set_t cpus;
	bool has = false;
	FILE *f;

	snprintf(
	    path, sizeof(path), "%s/devices/system/node/%s/cpulist", root, dir);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	if (fgets(list, sizeof(list), f) != NULL) {
		list[strcspn(list, "\n")] = '\0';
		/* A node without CPUs (memory only) has an empty list. */
		has = list[0] != '\0' && cpus_parse_list(list, &cpus) == 0 &&
		    cpu < CPU_SETSIZE && CPU_ISSET(cpu, &cpus);
	}
	fclose(f);
	return has;
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
	return 0;
}

struct cpu_place
topology_unit(const struct cpu_place *p, enum topo_unit k)
{
	struct cpu_place u = { -1, -1, -1, -1 };

	switch (k) {
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
	    a->core == b->core && a->node == b->node;
}

void
topology_name(const struct cpu_place *u, char *buf, size_t size)
{
	if (u->node >= 0)
		snprintf(buf, size, "N%d", u->node);
	else if (u->core >= 0)
		snprintf(buf, size, "S%d-D%d-C%d", u->socket, u->die, u->core);
	else if (u->die >= 0)
		snprintf(buf, size, "S%d-D%d", u->socket, u->die);
	else
		snprintf(buf, size, "S%d", u->socket);
}

int
topology_name_field(const char *name, enum topo_unit k)
{
	static const char letters[] = { [TOPO_CORE] = 'C',
		[TOPO_DIE] = 'D',
		[TOPO_SOCKET] = 'S',
		[TOPO_NODE] = 'N' };
	const char *at;

	if (name == NULL || k == TOPO_NONE)
		return -1;
	for (at = name; *at != '\0'; at++)
		if ((at == name || at[-1] == '-') && *at == letters[k])
			return atoi(at + 1);
	return -1;
}
