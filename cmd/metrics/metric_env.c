/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The literals' facts (see metric_env.h), read as perf reads them: SMT
 * from smt/active (or a CPU with siblings), the counts of packages, dies
 * and cores as the distinct sibling lists of the online CPUs, the TSC's
 * rate from CPUID leaf 0x15 or the model name's "@ 2.10GHz" (Intel
 * only), and #core_wide true where a run counts whole cores: system-wide
 * with SMT off, or with every sibling of each counted CPU counted too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "cpus.h"
#include "metric_env.h"

#define MAX_LISTS 1024

static bool
read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (f == NULL)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool
read_cpus(const char *root, const char *file, cpu_set_t *set)
{
	char path[512], line[4096];

	snprintf(path, sizeof(path), "%s/devices/system/cpu/%s", root, file);
	return read_line(path, line, sizeof(line)) &&
	    cpus_parse_list(line, set) == 0;
}

/*
 * How many distinct lists the online CPUs' topology file name gives
 * (package_cpus_list: packages), and whether one lists several CPUs.
 */
static int
distinct_lists(
    const char *root, const cpu_set_t *online, const char *name, bool *shared)
{
	static char lists[MAX_LISTS][256];
	char path[512], line[256];
	int n = 0, cpu, i;

	*shared = false;
	for (cpu = 0; cpu < CPU_SETSIZE && n < MAX_LISTS; cpu++) {
		if (!CPU_ISSET(cpu, online))
			continue;
		snprintf(path, sizeof(path),
		    "%s/devices/system/cpu/cpu%d/topology/%s", root, cpu, name);
		if (!read_line(path, line, sizeof(line)))
			continue;
		*shared |=
		    strchr(line, ',') != NULL || strchr(line, '-') != NULL;
		for (i = 0; i < n && strcmp(lists[i], line) != 0; i++)
			;
		if (i == n)
			snprintf(lists[n++], sizeof(lists[0]), "%s", line);
	}
	return n;
}

static double
smt_active(const char *root, const cpu_set_t *online)
{
	char path[512], line[16];
	bool shared;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/smt/active", root);
	if (read_line(path, line, sizeof(line)))
		return strtol(line, NULL, 10) == 1;
	(void)distinct_lists(root, online, "core_cpus_list", &shared);
	return shared;
}

#if defined(__x86_64__) || defined(__i386__)
static double
cpuinfo_tsc(void)
{
	char line[512], *at;
	double ghz;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "model name", 10) == 0 &&
		    (at = strchr(line, '@')) != NULL &&
		    sscanf(at, "@ %lfGHz", &ghz) == 1) {
			fclose(f);
			return ghz * 1e9;
		}
	fclose(f);
	return 0;
}

static double
tsc_freq(void)
{
	unsigned a, b, c, d, top;
	char vendor[13];

	if (__get_cpuid(0, &top, &b, &c, &d) == 0)
		return 0;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (strstr(vendor, "Intel") == NULL)
		return 0;
	if (top < 0x15)
		return cpuinfo_tsc();
	__cpuid_count(0x15, 0, a, b, c, d);
	if (a == 0 || b == 0 || c == 0)
		return cpuinfo_tsc();
	return (double)((unsigned long long)c * b / a);
}
#else
static double
tsc_freq(void)
{
	return 0;
}
#endif

static double
pmu_slots(const char *root, const char *pmu)
{
	char path[512], line[64];

	if (pmu == NULL)
		return 0;
	snprintf(path, sizeof(path),
	    "%s/bus/event_source/devices/%s/caps/slots", root, pmu);
	return read_line(path, line, sizeof(line)) ? strtod(line, NULL) : 0;
}

/* Whether every SMT sibling of each CPU of cpus is in cpus. */
static bool
siblings_in(const char *root, const cpu_set_t *cpus)
{
	cpu_set_t sib, missing;
	char name[64];
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, cpus))
			continue;
		snprintf(
		    name, sizeof(name), "cpu%d/topology/core_cpus_list", cpu);
		if (!read_cpus(root, name, &sib))
			continue;
		CPU_XOR(&missing, &sib, cpus);
		CPU_AND(&missing, &missing, &sib);
		if (CPU_COUNT(&missing) > 0)
			return false;
	}
	return true;
}

static int
highest(const cpu_set_t *set)
{
	int cpu, top = -1;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set))
			top = cpu;
	return top;
}

int
metric_env_host(struct metric_env *env, const char *root, const char *pmu,
    bool system_wide, const cpu_set_t *cpus)
{
	cpu_set_t online, present;
	char path[512];
	bool shared;

	memset(env, 0, sizeof(*env));
	if (!read_cpus(root, "online", &online))
		return -1;
	if (!read_cpus(root, "present", &present))
		present = online;
	snprintf(path, sizeof(path), "%s/firmware/acpi/tables/NFIT", root);
	env->has_pmem = access(path, F_OK) == 0;
	env->smt_on = smt_active(root, &online);
	env->num_cpus = highest(&present) + 1;
	env->num_cpus_online = CPU_COUNT(&online);
	env->num_packages =
	    distinct_lists(root, &online, "package_cpus_list", &shared);
	env->num_dies = distinct_lists(root, &online, "die_cpus_list", &shared);
	if (env->num_dies == 0)
		env->num_dies = env->num_packages;
	env->num_cores =
	    distinct_lists(root, &online, "core_cpus_list", &shared);
	env->system_tsc_freq = strcmp(root, "/sys") == 0 ? tsc_freq() : 0;
	env->slots = pmu_slots(root, pmu);
	env->system_wide = system_wide;
	env->siblings_counted =
	    system_wide && siblings_in(root, cpus != NULL ? cpus : &online);
	return 0;
}

double
metric_env_literal(const struct metric_env *env, const char *literal)
{
	const struct {
		const char *name;
		double value;
	} facts[] = {
		{ "#smt_on", env->smt_on },
		{ "#num_cpus", env->num_cpus },
		{ "#num_cpus_online", env->num_cpus_online },
		{ "#num_packages", env->num_packages },
		{ "#num_dies", env->num_dies },
		{ "#num_cores", env->num_cores },
		{ "#system_tsc_freq", env->system_tsc_freq },
		{ "#slots", env->slots },
		{ "#has_pmem", env->has_pmem },
	};
	size_t i;

	for (i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		if (strcasecmp(literal, facts[i].name) == 0)
			return facts[i].value;
	if (strcasecmp(literal, "#target_cpu") == 0)
		return env->system_wide;
	if (strcasecmp(literal, "#core_wide") == 0)
		return env->system_wide &&
		    (env->smt_on == 0 || env->siblings_counted);
	return NAN;
}
