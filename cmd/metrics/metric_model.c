/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CPU's model (see metric_model.h). The matching is perf's: on x86
 * each pattern is a POSIX extended regular expression that must match
 * the whole id, or the id less its stepping where the pattern names
 * none; on arm64 a MIDR matches a pattern of the same implementer, part
 * and architecture whose variant and revision are no later than its own.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "metric_model.h"

#define MIDR_REVISION 0xfULL	     /* bits 3..0 */
#define MIDR_VARIANT  (0xfULL << 20) /* bits 23..20 */

#if defined(__x86_64__) || defined(__i386__)
/* perf's x86 id: vendor-family-model-stepping, model and stepping hex. */
static int
host_cpuid(const char *root, char *buf, size_t len)
{
	unsigned a, b, c, d, family, model;
	char vendor[13];

	(void)root;
	if (__get_cpuid(0, &a, &b, &c, &d) == 0)
		return -1;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (__get_cpuid(1, &a, &b, &c, &d) == 0)
		return -1;
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 0x6)
		model += ((a >> 16) & 0xf) << 4;
	snprintf(buf, len, "%s-%u-%X-%X", vendor, family, model, a & 0xf);
	return 0;
}
#else
/* The MIDR of the first CPU that gives one (arm64's sysfs). */
static int
host_cpuid(const char *root, char *buf, size_t len)
{
	char path[256];
	FILE *f;
	int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		snprintf(path, sizeof(path),
		    "%s/devices/system/cpu/cpu%d/regs/identification/midr_el1",
		    root, cpu);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		if (fgets(buf, (int)len, f) == NULL)
			buf[0] = '\0';
		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
		return buf[0] != '\0' ? 0 : -1;
	}
	return -1;
}
#endif

int
metric_cpuid(const char *root, char *buf, size_t len)
{
	const char *forced = getenv("PERF_CPUID");

	if (forced != NULL && forced[0] != '\0') {
		snprintf(buf, len, "%s", forced);
		return 0;
	}
	return host_cpuid(root, buf, len);
}

/*
 * An x86 id with its stepping: vendor-family-model-stepping, three
 * dashes exactly, as perf counts them in ids and patterns alike. A
 * pattern whose brackets hold ranges ("AuthenticAMD-23-([12][0-9A-F]|
 * [0-9A-F])", Zen 1's) has more, and is one without a stepping.
 */
static bool
full_x86_id(const char *id)
{
	int dashes = 0;

	for (; *id != '\0'; id++)
		dashes += *id == '-';
	return dashes == 3;
}

static bool
x86_matches(const char *pattern, const char *cpuid)
{
	regmatch_t m;
	regex_t re;
	size_t want;
	bool ok;

	if (full_x86_id(pattern) && !full_x86_id(cpuid))
		return false;
	if (regcomp(&re, pattern, REG_EXTENDED) != 0)
		return false;
	ok = regexec(&re, cpuid, 1, &m, 0) == 0;
	regfree(&re);
	if (!ok)
		return false;
	want = !full_x86_id(pattern) && full_x86_id(cpuid) ?
	    (size_t)(strrchr(cpuid, '-') - cpuid) :
	    strlen(cpuid);
	return m.rm_so == 0 && (size_t)(m.rm_eo - m.rm_so) == want;
}

static bool
midr_matches(const char *pattern, const char *cpuid)
{
	unsigned long long map = strtoull(pattern, NULL, 16);
	unsigned long long id = strtoull(cpuid, NULL, 16);
	unsigned long long fields = ~(MIDR_VARIANT | MIDR_REVISION);

	if ((map & fields) != (id & fields))
		return false;
	if ((id & MIDR_VARIANT) != (map & MIDR_VARIANT))
		return (id & MIDR_VARIANT) > (map & MIDR_VARIANT);
	return (id & MIDR_REVISION) >= (map & MIDR_REVISION);
}

bool
metric_cpuid_matches(const char *pattern, const char *cpuid)
{
	if (strncmp(pattern, "0x", 2) == 0)
		return strncmp(cpuid, "0x", 2) == 0 &&
		    midr_matches(pattern, cpuid);
	return x86_matches(pattern, cpuid);
}

const struct metric_model *
metric_model_of(const char *cpuid)
{
	const struct metric_model *m;
	int i, k;

	for (i = 0; i < metric_nmodels; i++) {
		m = &metric_models[i];
		for (k = 0; k < m->ncpuids; k++)
			if (metric_cpuid_matches(
				metric_str(metric_cpuids[m->cpuid0 + k]),
				cpuid))
				return m;
	}
	return NULL;
}

const struct metric_model *
metric_model_named(const char *tag)
{
	int i;

	for (i = 0; i < metric_nmodels; i++)
		if (strcmp(metric_str(metric_models[i].tag), tag) == 0)
			return &metric_models[i];
	return NULL;
}

const struct metric_model *
metric_model_common(void)
{
	return metric_model_named("common");
}

const struct metric_model *
metric_model_legacy(const struct metric_model *m, int i)
{
	if (m == NULL || i < 0 || i >= m->nlegacy)
		return NULL;
	return &metric_models[metric_legacy[m->legacy0 + i]];
}

void
metric_model_describe(
    const struct metric_model *m, const char *cpuid, char *buf, size_t len)
{
	if (m == NULL)
		snprintf(buf, len,
		    "CPU %s, which the vendors' metric data "
		    "does not know",
		    cpuid);
	else
		snprintf(buf, len, "%s (CPU %s; %s's %s %s)",
		    metric_str(m->tag), cpuid, metric_str(m->source),
		    metric_str(m->dir), metric_str(m->version));
}
