/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * metric_model.c and metric_env.c: which model's metrics a CPU takes, as
 * perf chooses them, and the facts its formulas' literals read.
 *
 *  - x86 ids against the data's patterns as perf matches them: the whole
 *    id, or the id less its stepping where a pattern names none (Skylake-X
 *    and Cascade Lake share model 0x55 and differ by stepping; AMD's
 *    families 0x19 and 0x1A by model ranges);
 *  - arm64 MIDRs: implementer, architecture and part equal, the variant
 *    and revision no earlier than the pattern's;
 *  - PERF_CPUID naming the CPU in place of the machine's own, and the
 *    machine's own id against what /proc/cpuinfo says of it;
 *  - the legacy chain: a model's data from older perf releases;
 *  - the literals on two recorded machines (tests/unit/sysfs-trees) and
 *    on this one, against facts read from files the code does not read
 *    (the topology ids, not the sibling lists), #core_wide for runs of
 *    every CPU, of some, and of threads; literals in any case.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "metric_env.h"
#include "metric_model.h"

#define TREES SOURCE_DIR "/tests/unit/sysfs-trees"

/* The model perf takes for cpuid: its tag, or NULL for none. */
static const char *
tag_of(const char *cpuid)
{
	const struct metric_model *m = metric_model_of(cpuid);

	return m != NULL ? metric_str(m->tag) : NULL;
}

static void
check_tag(const char *cpuid, const char *want)
{
	const char *got = tag_of(cpuid);

	check_count++;
	if (want == NULL ? got != NULL :
			   got == NULL || strcmp(got, want) != 0) {
		check_failures++;
		fprintf(stderr, "%s: model %s, expected %s\n", cpuid,
		    got != NULL ? got : "none", want != NULL ? want : "none");
	}
}

/*
 * perf's x86 ids: vendor-family-model-stepping, the family decimal, the
 * model and stepping hexadecimal in capitals.
 */
static void
test_x86(void)
{
	/* Model 0x55: steppings 0-4 are Skylake-X, 5 and later Cascade Lake. */
	check_tag("GenuineIntel-6-55-4", "skylakex");
	check_tag("GenuineIntel-6-55-0", "skylakex");
	check_tag("GenuineIntel-6-55-7", "cascadelakex");
	check_tag("GenuineIntel-6-55-B", "cascadelakex");
	/* Both patterns name a stepping: an id without one matches none. */
	check_tag("GenuineIntel-6-55", NULL);
	/* Patterns without a stepping match any, or none given. */
	check_tag("GenuineIntel-6-6A-6", "icelakex");
	check_tag("GenuineIntel-6-6A", "icelakex");
	check_tag("GenuineIntel-6-8F-8", "sapphirerapids");
	check_tag("GenuineIntel-6-CF-2", "emeraldrapids");
	check_tag("GenuineIntel-6-AD-1", "graniterapids");
	/* Alder Lake, hybrid: one model for its P- and E-cores. */
	check_tag("GenuineIntel-6-97-2", "alderlake");
	check_tag("GenuineIntel-6-9A-3", "alderlake");
	/* The whole id, not a prefix or a part of it. */
	check_tag("GenuineIntel-6-555-4", NULL);
	check_tag("GenuineIntel-6-8F0-8", NULL);
	check_tag("XGenuineIntel-6-8F-8", NULL);
	check_tag("GenuineIntel-16-8F-8", NULL);
	check_tag("GenuineIntel-6-1-1", NULL);
	/*
	 * AMD family 0x17 (23): Zen 1 is models 0x00-0x2F, Zen 2 the rest.
	 * Zen 1's pattern names no stepping, and its brackets hold ranges:
	 * more than the three dashes of a full id.
	 */
	check_tag("AuthenticAMD-23-1-2", "amdzen1");
	check_tag("AuthenticAMD-23-18-1", "amdzen1");
	check_tag("AuthenticAMD-23-31-0", "amdzen2");
	CHECK(metric_cpuid_matches(
	    "AuthenticAMD-23-([12][0-9A-F]|[0-9A-F])", "AuthenticAMD-23-8-2"));
	/* 0x19 (25): Zen 3 is 0x00-0x0F, 0x20-0x5F; Zen 4 the rest. */
	check_tag("AuthenticAMD-25-1-1", "amdzen3");
	check_tag("AuthenticAMD-25-21-0", "amdzen3");
	check_tag("AuthenticAMD-25-11-1", "amdzen4");
	check_tag("AuthenticAMD-25-61-2", "amdzen4");
	check_tag("AuthenticAMD-25-A0-1", "amdzen4");
	/* 0x1A (26): Zen 5 is 0x00-0x2F, 0x40-0x4F, 0x60-0x7F. */
	check_tag("AuthenticAMD-26-2-0", "amdzen5");
	check_tag("AuthenticAMD-26-11-0", "amdzen5");
	check_tag("AuthenticAMD-26-44-0", "amdzen5");
	check_tag("AuthenticAMD-26-50-0", "amdzen6");
	check_tag("AuthenticAMD-24-1-0", NULL);

	/* The matching itself, as perf's regular expressions take it. */
	CHECK(metric_cpuid_matches(
	    "GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-4"));
	CHECK(!metric_cpuid_matches(
	    "GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-5"));
	CHECK(metric_cpuid_matches("GenuineIntel-6-8F", "GenuineIntel-6-8F-8"));
	CHECK(metric_cpuid_matches("GenuineIntel-6-8F", "GenuineIntel-6-8F"));
	CHECK(!metric_cpuid_matches("GenuineIntel-6-8F", "GenuineIntel-6-8"));
	CHECK(metric_cpuid_matches(
	    "GenuineIntel-6-(97|9A|B7|BA|BF)", "GenuineIntel-6-BA-3"));
	CHECK(!metric_cpuid_matches("GenuineIntel-6-8F", "0x00000000410fd0c0"));
}

/* arm64: implementer 31:24, variant 23:20, architecture 19:16, part
 * 15:4, revision 3:0. */
static void
test_arm64(void)
{
	check_tag("0x00000000410fd0c0", "arm/neoverse-n1");
	/* r3p1 of the part: later than the pattern's r0p0. */
	check_tag("0x00000000413fd0c1", "arm/neoverse-n1");
	check_tag("0x00000000410fd400", "arm/neoverse-v1");
	check_tag("0x00000000410fd490", "arm/neoverse-n2-v2");
	check_tag("0x00000000410fd4f0", "arm/neoverse-n2-v2");
	/* Another part: Cortex-A76 and A55 (the RK3588's), no data. */
	check_tag("0x00000000410fd0b0", NULL);
	check_tag("0x00000000410fd050", NULL);
	/* Another implementer or architecture field, the same part. */
	check_tag("0x00000000420fd0c0", NULL);
	check_tag("0x00000000410ed0c0", NULL);

	/* Variant then revision, as r<variant>p<revision> compare. */
	CHECK(metric_cpuid_matches("0x00000000412fd0c3", "0x00000000412fd0c3"));
	CHECK(metric_cpuid_matches("0x00000000412fd0c3", "0x00000000412fd0c4"));
	CHECK(metric_cpuid_matches("0x00000000412fd0c3", "0x00000000413fd0c0"));
	CHECK(
	    !metric_cpuid_matches("0x00000000412fd0c3", "0x00000000412fd0c2"));
	CHECK(
	    !metric_cpuid_matches("0x00000000412fd0c3", "0x00000000411fd0cf"));
	CHECK(
	    !metric_cpuid_matches("0x00000000410fd0c0", "GenuineIntel-6-55-4"));
}

/* The models that older perf releases' data gives skylakex, newest first. */
static void
test_legacy(void)
{
	const struct metric_model *skx = metric_model_named("skylakex"), *l;
	char buf[256];

	CHECK(skx != NULL && metric_model_of("GenuineIntel-6-55-4") == skx);
	l = metric_model_legacy(skx, 0);
	CHECK(l != NULL && strcmp(metric_str(l->tag), "skylakex@6.12") == 0 &&
	    strcmp(metric_str(l->source), "linux-6.12") == 0);
	l = metric_model_legacy(skx, 1);
	CHECK(l != NULL && strcmp(metric_str(l->tag), "skylakex@6.1") == 0 &&
	    strcmp(metric_str(l->source), "linux-6.1") == 0 &&
	    strcmp(metric_str(l->dir), "x86/skylakex") == 0);
	CHECK(metric_model_legacy(skx, 2) == NULL);
	CHECK(metric_model_legacy(skx, -1) == NULL);
	CHECK(metric_model_legacy(NULL, 0) == NULL);
	CHECK(metric_model_legacy(metric_model_named("amdzen4"), 0) == NULL);
	/* A legacy model is no CPU's own: the current one is chosen. */
	CHECK(metric_model_of("GenuineIntel-6-55-4") == skx);
	CHECK(metric_model_named("skylakex@6.1") != NULL &&
	    metric_model_named("nonesuch") == NULL);
	CHECK(metric_model_common() != NULL &&
	    strcmp(metric_str(metric_model_common()->tag), "common") == 0);

	metric_model_describe(skx, "GenuineIntel-6-55-4", buf, sizeof(buf));
	CHECK(strstr(buf, "skylakex") != NULL &&
	    strstr(buf, "GenuineIntel-6-55-4") != NULL &&
	    strstr(buf, "x86/skylakex") != NULL);
	metric_model_describe(NULL, "0x00000000410fd050", buf, sizeof(buf));
	CHECK(strstr(buf, "0x00000000410fd050") != NULL &&
	    strstr(buf, "does not know") != NULL);
}

#if defined(__x86_64__) || defined(__i386__)
/* This machine's id as perf writes it, from /proc/cpuinfo. */
static bool
cpuinfo_id(char *buf, size_t len)
{
	char line[512], vendor[64] = "";
	unsigned family = 0, model = 0, stepping = 0, seen = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (f == NULL)
		return false;
	while (seen != 0xf && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "vendor_id : %63s", vendor) == 1)
			seen |= 1;
		else if (sscanf(line, "cpu family : %u", &family) == 1)
			seen |= 2;
		else if (sscanf(line, "model : %u", &model) == 1)
			seen |= 4;
		else if (sscanf(line, "stepping : %u", &stepping) == 1)
			seen |= 8;
	}
	fclose(f);
	snprintf(buf, len, "%s-%u-%X-%X", vendor, family, model, stepping);
	return seen == 0xf;
}
#else
/* This machine's MIDR from /proc/cpuinfo's fields for its first CPU. */
static bool
cpuinfo_id(char *buf, size_t len)
{
	char line[512];
	unsigned impl = 0, arch = 0, var = 0, part = 0, rev = 0, seen = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (f == NULL)
		return false;
	while (seen != 0x1f && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "CPU implementer : %x", &impl) == 1)
			seen |= 1;
		else if (sscanf(line, "CPU architecture : %u", &arch) == 1)
			seen |= 2;
		else if (sscanf(line, "CPU variant : %x", &var) == 1)
			seen |= 4;
		else if (sscanf(line, "CPU part : %x", &part) == 1)
			seen |= 8;
		else if (sscanf(line, "CPU revision : %u", &rev) == 1)
			seen |= 16;
	}
	fclose(f);
	/* The architecture field reads 0xf ("by ID registers") for 8. */
	snprintf(buf, len, "0x%016llx",
	    (unsigned long long)impl << 24 | (unsigned long long)var << 20 |
		0xfULL << 16 | (unsigned long long)part << 4 | rev);
	return seen == 0x1f && arch == 8;
}
#endif

/* PERF_CPUID names the CPU, as perf's does; unset or empty, the machine. */
static void
test_perf_cpuid(void)
{
	char id[64], own[64], want[64];
	int r;

	if (setenv("PERF_CPUID", "GenuineIntel-6-55-4", 1) != 0) {
		CHECK(false);
		return;
	}
	CHECK(metric_cpuid("/sys", id, sizeof(id)) == 0 &&
	    strcmp(id, "GenuineIntel-6-55-4") == 0 &&
	    strcmp(tag_of(id), "skylakex") == 0);
	(void)setenv("PERF_CPUID", "0x00000000410fd0c0", 1);
	CHECK(
	    metric_cpuid(TREES "/arm-rk3588-biglittle", id, sizeof(id)) == 0 &&
	    strcmp(id, "0x00000000410fd0c0") == 0);
	(void)setenv("PERF_CPUID", "", 1);
	r = metric_cpuid("/sys", own, sizeof(own));
	(void)unsetenv("PERF_CPUID");
	CHECK(r == 0);
	CHECK(
	    metric_cpuid("/sys", id, sizeof(id)) == 0 && strcmp(id, own) == 0);
	check_count++;
	if (!cpuinfo_id(want, sizeof(want)) || strcmp(id, want) != 0) {
		check_failures++;
		fprintf(stderr, "this machine's id %s, /proc/cpuinfo's %s\n",
		    id, want);
	}
	printf("this machine: %s, model %s\n", id,
	    tag_of(id) != NULL ? tag_of(id) : "none");
}

static double
lit(const struct metric_env *env, const char *name)
{
	return metric_env_literal(env, name);
}

/* A recorded Ice Lake-X: 2 sockets of 24 cores, CPUs N and N+48 a core's
 * threads, packages alternating (tests/unit/sysfs-trees/SOURCES.md). */
static void
test_env_icelakex(void)
{
	const char *root = TREES "/intel-icelakex";
	struct metric_env env;
	cpu_set_t cpus;
	int cpu;

	CHECK(metric_env_host(&env, root, "cpu", true, NULL) == 0);
	CHECK(lit(&env, "#smt_on") == 1);
	CHECK(lit(&env, "#num_cpus") == 96 &&
	    lit(&env, "#num_cpus_online") == 96);
	CHECK(lit(&env, "#num_packages") == 2 && lit(&env, "#num_dies") == 2);
	CHECK(lit(&env, "#num_cores") == 48);
	/* Not this machine's: no TSC rate; Intel's core PMU gives no slots. */
	CHECK(lit(&env, "#system_tsc_freq") == 0 && lit(&env, "#slots") == 0);
	/* Every CPU counted: every sibling with it. */
	CHECK(lit(&env, "#core_wide") == 1 && lit(&env, "#target_cpu") == 1);

	/* The first thread of each core: no core counted whole. */
	CPU_ZERO(&cpus);
	for (cpu = 0; cpu < 48; cpu++)
		CPU_SET(cpu, &cpus);
	CHECK(metric_env_host(&env, root, "cpu", true, &cpus) == 0);
	CHECK(lit(&env, "#core_wide") == 0 && lit(&env, "#target_cpu") == 1);
	/* Core 0 of socket 0 and both its threads: whole. */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	CPU_SET(48, &cpus);
	CHECK(metric_env_host(&env, root, "cpu", true, &cpus) == 0);
	CHECK(lit(&env, "#core_wide") == 1);
	/* Threads (cputrack): never core-wide, no CPU targeted. */
	CHECK(metric_env_host(&env, root, "cpu", false, NULL) == 0);
	CHECK(lit(&env, "#core_wide") == 0 && lit(&env, "#target_cpu") == 0);
	CHECK(lit(&env, "#smt_on") == 1 && lit(&env, "#num_cores") == 48);
}

/* A recorded guest of 16 CPUs in one socket, no SMT, no smt/ directory:
 * SMT read from the sibling lists. */
static void
test_env_vm(void)
{
	const char *root = TREES "/intel-vm-psys";
	struct metric_env env;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(3, &cpus);
	CHECK(metric_env_host(&env, root, NULL, true, &cpus) == 0);
	CHECK(lit(&env, "#smt_on") == 0 && lit(&env, "#num_cpus_online") == 16);
	CHECK(lit(&env, "#num_packages") == 1 && lit(&env, "#num_dies") == 1 &&
	    lit(&env, "#num_cores") == 16);
	/* SMT off: one CPU of a core is the whole core. */
	CHECK(lit(&env, "#core_wide") == 1);
	CHECK(metric_env_host(&env, root, NULL, false, NULL) == 0);
	CHECK(lit(&env, "#core_wide") == 0);
	/* A tree without CPU lists gives no facts. */
	CHECK(
	    metric_env_host(&env, TREES "/amd-zen4", "cpu", true, NULL) == -1);
}

/* A topology id of cpu: physical_package_id, die_id, core_id; -1. */
static long
topo_id(int cpu, const char *name)
{
	char path[256], line[64];
	FILE *f;
	long v = -1;

	snprintf(path, sizeof(path),
	    "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(line, sizeof(line), f) != NULL)
		v = strtol(line, NULL, 10);
	fclose(f);
	return v;
}

/* How many distinct ids[i][0..k-1] the n CPUs have; whether one repeats. */
static int
distinct(long (*ids)[3], int n, int k, bool *repeats)
{
	int count = 0, i, j;
	bool seen;

	*repeats = false;
	for (i = 0; i < n; i++) {
		for (seen = false, j = 0; j < i && !seen; j++)
			seen = memcmp(ids[j], ids[i],
				   (size_t)k * sizeof(long)) == 0;
		count += !seen;
		*repeats |= seen;
	}
	return count;
}

/*
 * This machine's facts against its topology ids: packages, dies (a die
 * per package where there is no die_id), cores as distinct (package,
 * die, core), and SMT on where two online CPUs share those.
 */
static void
test_env_host(void)
{
	static long ids[CPU_SETSIZE][3];
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = 0, npkgs, ndies, ncores, cpu, first = -1;
	struct metric_env env;
	bool smt, unused;
	cpu_set_t one;

	CHECK(metric_env_host(&env, "/sys", NULL, true, NULL) == 0);
	for (cpu = 0; cpu < CPU_SETSIZE && n < ncpus; cpu++) {
		if ((ids[n][0] = topo_id(cpu, "physical_package_id")) < 0)
			continue;
		ids[n][1] = topo_id(cpu, "die_id");
		ids[n][2] = topo_id(cpu, "core_id");
		if (first < 0)
			first = cpu;
		n++;
	}
	npkgs = distinct(ids, n, 1, &unused);
	ndies = distinct(ids, n, 2, &unused);
	ncores = distinct(ids, n, 3, &smt);
	printf("this machine: %d CPUs, %d packages, %d dies, %d cores, "
	       "SMT %s\n",
	    n, npkgs, ndies, ncores, smt ? "on" : "off");
	CHECK(n == ncpus && lit(&env, "#num_cpus_online") == ncpus);
	CHECK(lit(&env, "#num_packages") == npkgs);
	CHECK(lit(&env, "#num_dies") == ndies);
	CHECK(lit(&env, "#num_cores") == ncores);
	CHECK(lit(&env, "#smt_on") == smt);
	CHECK(lit(&env, "#core_wide") == 1 && lit(&env, "#target_cpu") == 1);
	/* One CPU: core-wide only where it has no sibling. */
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	CHECK(metric_env_host(&env, "/sys", NULL, true, &one) == 0);
	CHECK(lit(&env, "#core_wide") == !smt);
	CHECK(metric_env_host(&env, "/sys", NULL, false, NULL) == 0);
	CHECK(lit(&env, "#core_wide") == 0 && lit(&env, "#target_cpu") == 0);
}

/* perf reads the literals in any case; one it does not know is NaN. */
static void
test_literals(void)
{
	struct metric_env env = { .smt_on = 1,
		.num_cpus = 9,
		.num_cpus_online = 8,
		.num_packages = 2,
		.num_dies = 4,
		.num_cores = 6,
		.system_tsc_freq = 2.1e9,
		.slots = 5,
		.has_pmem = 1,
		.system_wide = true,
		.siblings_counted = false };

	CHECK(lit(&env, "#smt_on") == 1 && lit(&env, "#SMT_on") == 1 &&
	    lit(&env, "#SMT_ON") == 1);
	CHECK(lit(&env, "#num_cpus") == 9 && lit(&env, "#NUM_CPUS") == 9);
	CHECK(lit(&env, "#Num_Cpus_Online") == 8);
	CHECK(lit(&env, "#num_packages") == 2 && lit(&env, "#NUM_DIES") == 4);
	CHECK(lit(&env, "#num_cores") == 6);
	CHECK(lit(&env, "#system_tsc_freq") == 2.1e9);
	CHECK(lit(&env, "#slots") == 5 && lit(&env, "#SLOTS") == 5);
	CHECK(lit(&env, "#has_pmem") == 1);
	/* SMT on and a sibling left out: not core-wide. */
	CHECK(lit(&env, "#core_wide") == 0 && lit(&env, "#Core_Wide") == 0);
	CHECK(lit(&env, "#target_cpu") == 1 && lit(&env, "#TARGET_CPU") == 1);
	env.siblings_counted = true;
	CHECK(lit(&env, "#CORE_WIDE") == 1);
	env.smt_on = 0;
	env.siblings_counted = false;
	CHECK(lit(&env, "#core_wide") == 1);
	env.system_wide = false;
	CHECK(lit(&env, "#core_wide") == 0 && lit(&env, "#target_cpu") == 0);
	CHECK(isnan(lit(&env, "#nonesuch")));
	CHECK(isnan(lit(&env, "smt_on")));
	CHECK(isnan(lit(&env, "#smt_onx")));
}

int
main(void)
{
	test_x86();
	test_arm64();
	test_legacy();
	test_perf_cpuid();
	test_env_icelakex();
	test_env_vm();
	test_env_host();
	test_literals();
	return check_report("test_metric_model");
}
