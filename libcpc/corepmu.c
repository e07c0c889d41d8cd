/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's core PMUs: the ones that count a CPU's own events. Most
 * machines have one (x86's "cpu", an Arm SoC's "armv8_pmuv3"); hybrid
 * CPUs have one per core type (Intel's "cpu_core" and "cpu_atom", Arm
 * big.LITTLE's "armv8_cortex_a55" and "armv8_cortex_a76"), each counting
 * only on its own CPUs. The handle keeps them in CPU order, each with its
 * CPUs and its libpfm4 model, which gives its counters.
 */
#include <dirent.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evname.h"

/*
 * A core PMU is "cpu", or one with a cpus file (every core PMU of a
 * hybrid x86 or of an Arm SoC has one) and no cpumask (an uncore PMU's,
 * which counts for its socket), or one of these, which have neither.
 */
static const char *const core_without_cpus[] = {
	"cpum_cf",
	"riscv-pmu*",
};

/*
 * The libpfm4 model of a core PMU of a hybrid CPU, by the kernel's name
 * for it: libpfm4 names the core types' models itself. Arm's kernel
 * names the core ("armv8_cortex_a55"), libpfm4 names it "arm_ac55".
 */
static const struct {
	const char *kernel;
	const char *pfm;
} hybrid_models[] = {
	{ "cpu_core", "adl_glc" },
	{ "cpu_core", "mtl_rwc" },
	{ "cpu_atom", "adl_grt" },
	{ "cpu_atom", "mtl_cmt" },
};
static const struct {
	const char *kernel_prefix;
	const char *pfm_prefix;
} arm_model_names[] = {
	{ "armv8_cortex_", "arm_ac" },
	{ "armv8_neoverse_", "arm_" },
	{ "armv7_cortex_", "arm_ac" },
};

/*
 * Counters that libpfm4's models leave out of their counts: every ARMv7
 * and ARMv8 PMU has a cycle counter of its own (PMCCNTR) besides the
 * event counters that libpfm4 counts, as the kernel's "N counters
 * available" at boot shows (6 event counters and it on a Cortex-A57).
 */
static const struct {
	const char *pfm_prefix;
	uint_t fixed;
} uncounted_fixed[] = {
	{ "arm_", 1 },
};

static bool
read_text(const char *path, char *buf, size_t len)
{
	FILE *f;
	bool ok;

	if ((f = fopen(path, "re")) == NULL)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool
is_core(const char *name, const char *cpus_path)
{
	char mask[512];
	size_t i;

	if (strcmp(name, "cpu") == 0)
		return true;
	if (access(cpus_path, F_OK) == 0)
		return !cpclib_pmu_path(
			   mask, sizeof(mask), "/%s/cpumask", name) ||
		    access(mask, F_OK) != 0;
	for (i = 0;
	     i < sizeof(core_without_cpus) / sizeof(core_without_cpus[0]); i++)
		if (fnmatch(core_without_cpus[i], name, 0) == 0)
			return true;
	return false;
}

/* "0-15,32" into a set; false for a list of no CPU or a bad one. */
bool
cpclib_parse_cpus(const char *list, cpu_set_t *cpus)
{
	const char *p = list;
	char *end;
	long lo, hi, c;

	CPU_ZERO(cpus);
	while (*p != '\0') {
		lo = strtol(p, &end, 10);
		if (end == p || lo < 0)
			return false;
		hi = lo;
		if (*end == '-' && (hi = strtol(end + 1, &end, 10)) < lo)
			return false;
		for (c = lo; c <= hi && c < CPU_SETSIZE; c++)
			CPU_SET((int)c, cpus);
		if (*end != ',')
			break;
		p = end + 1;
	}
	return CPU_COUNT(cpus) > 0;
}

static void
every_cpu(cpu_set_t *cpus)
{
	int c;

	CPU_ZERO(cpus);
	for (c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, cpus);
}

/* Read one PMU directory into p; false when it is no core PMU. */
static bool
read_core_pmu(const char *name, struct cpc_core_pmu *p)
{
	char path[512], text[256];

	if (strlen(name) >= sizeof(p->name) ||
	    !cpclib_pmu_path(path, sizeof(path), "/%s/cpus", name) ||
	    !is_core(name, path))
		return false;
	memset(p, 0, sizeof(*p));
	strlcpy(p->name, name, sizeof(p->name));
	if (read_text(path, text, sizeof(text)) &&
	    cpclib_parse_cpus(text, &p->cpus))
		strlcpy(p->cpulist, text, sizeof(p->cpulist));
	else
		every_cpu(&p->cpus);
	if (!cpclib_pmu_path(path, sizeof(path), "/%s/type", name) ||
	    !read_text(path, text, sizeof(text)))
		return false;
	p->type = atoi(text);
	p->pfm_pmu = -1;
	return true;
}

static int
first_cpu(const cpu_set_t *cpus)
{
	int c;

	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, cpus))
			return c;
	return CPU_SETSIZE;
}

static int
by_first_cpu(const void *a, const void *b)
{
	const struct cpc_core_pmu *x = a, *y = b;
	int fx = first_cpu(&x->cpus), fy = first_cpu(&y->cpus);

	return fx != fy ? (fx < fy ? -1 : 1) : strcmp(x->name, y->name);
}

static bool
pfm_info(int p, pfm_pmu_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return pfm_get_pmu_info((pfm_pmu_t)p, info) == PFM_SUCCESS &&
	    info->type == PFM_PMU_TYPE_CORE;
}

static int
pfm_by_name(const char *name)
{
	pfm_pmu_info_t info;
	int p;

	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++)
		if (pfm_info(p, &info) && strcmp(info.name, name) == 0)
			return p;
	return -1;
}

/* The libpfm4 core PMU that describes this CPU model, or -1. */
int
cpclib_pfm_present(void)
{
	pfm_pmu_info_t info;
	int p;

	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++)
		if (pfm_info(p, &info) && info.is_present)
			return p;
	return -1;
}

/* The libpfm4 model of one core PMU of several, or -1. */
static int
pfm_of_hybrid(const char *kernel)
{
	char name[80];
	size_t i, n;
	int p;

	for (i = 0; i < sizeof(hybrid_models) / sizeof(hybrid_models[0]); i++)
		if (strcmp(hybrid_models[i].kernel, kernel) == 0 &&
		    (p = pfm_by_name(hybrid_models[i].pfm)) >= 0)
			return p;
	for (i = 0; i < sizeof(arm_model_names) / sizeof(arm_model_names[0]);
	     i++) {
		n = strlen(arm_model_names[i].kernel_prefix);
		if (strncmp(kernel, arm_model_names[i].kernel_prefix, n) != 0)
			continue;
		snprintf(name, sizeof(name), "%s%s",
		    arm_model_names[i].pfm_prefix, kernel + n);
		if ((p = pfm_by_name(name)) >= 0)
			return p;
	}
	return -1;
}

/*
 * Where libpfm4's models count more general counters than the CPU gives a
 * logical CPU: Intel documents 8 for Ice Lake and Sapphire Rapids (its
 * event lists, and the kernel's constraint masks, 0xff), libpfm4 says 16.
 */
static const struct {
	const char *pfm;
	uint_t general;
} general_counters[] = {
	{ "icl", 8 },
	{ "icx", 8 },
	{ "spr", 8 },
};

#if defined(__x86_64__) || defined(__i386__)
/*
 * The counters of the CPU this runs on, from where the kernel learns them
 * (arch/x86/events): Intel's architectural leaf 0xA (general counters per
 * logical CPU, fewer with SMT on some models, and fixed ones); AMD's
 * PerfMonV2 leaf 0x80000022, or its core counter extension (6 counters,
 * else 4). This, not a model's table, is what a VM's virtual PMU gives.
 */
static bool
cpuid_counters(uint_t *general, uint_t *fixed)
{
	unsigned a, b, c, d, max;
	char vendor[13];

	if (!__get_cpuid(0, &max, &b, &c, &d))
		return false;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (strcmp(vendor, "GenuineIntel") == 0) {
		if (max < 0xa || !__get_cpuid_count(0xa, 0, &a, &b, &c, &d) ||
		    (a & 0xff) == 0)
			return false;
		*general = (a >> 8) & 0xff;
		*fixed = (a & 0xff) >= 2 ? d & 0x1f : 0;
		return *general > 0;
	}
	if (strcmp(vendor, "AuthenticAMD") != 0 &&
	    strcmp(vendor, "HygonGenuine") != 0)
		return false;
	*fixed = 0;
	max = __get_cpuid_max(0x80000000, NULL);
	if (max >= 0x80000022 && __get_cpuid(0x80000022, &a, &b, &c, &d) &&
	    (a & 1) != 0) {
		*general = b & 0xf;
		return *general > 0;
	}
	if (max < 0x80000001 || !__get_cpuid(0x80000001, &a, &b, &c, &d))
		return false;
	*general = (c & (1u << 23)) != 0 ? 6 : 4;
	return true;
}
#endif

/* The model's general counters, corrected where libpfm4 overstates them. */
static uint_t
model_general(const pfm_pmu_info_t *info)
{
	size_t i;

	for (i = 0; i < sizeof(general_counters) / sizeof(general_counters[0]);
	     i++)
		if (strcmp(info->name, general_counters[i].pfm) == 0)
			return general_counters[i].general;
	return (uint_t)info->num_cntrs;
}

/* The model's fixed-function counters, those it leaves out included. */
static uint_t
fixed_counters(const pfm_pmu_info_t *info)
{
	size_t i;

	if (info->num_fixed_cntrs > 0)
		return (uint_t)info->num_fixed_cntrs;
	for (i = 0; i < sizeof(uncounted_fixed) / sizeof(uncounted_fixed[0]);
	     i++)
		if (strncmp(info->name, uncounted_fixed[i].pfm_prefix,
			strlen(uncounted_fixed[i].pfm_prefix)) == 0)
			return uncounted_fixed[i].fixed;
	return 0;
}

static void
set_model(struct cpc_core_pmu *p, int pfm)
{
	pfm_pmu_info_t info;

	p->pfm_pmu = pfm;
	if (pfm < 0 || !pfm_info(pfm, &info))
		return;
	strlcpy(p->model, info.desc, sizeof(p->model));
	p->general = model_general(&info);
	p->fixed = fixed_counters(&info);
}

/* The one core PMU of the machine this runs on: the CPU says its counters. */
static void
set_live_counters(struct cpc_core_pmu *p)
{
#if defined(__x86_64__) || defined(__i386__)
	uint_t general, fixed;

	if (cpuid_counters(&general, &fixed)) {
		p->general = general;
		p->fixed = fixed;
	}
#else
	(void)p;
#endif
}

/* Find the kernel's core PMUs; never assume their names or types. */
void
cpclib_core_pmus_detect(cpc_t *cpc)
{
	char dir[512];
	struct dirent *de;
	DIR *d;

	cpc->ncore = 0;
	if (!cpclib_pmu_path(dir, sizeof(dir), "%s", "") ||
	    (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL && cpc->ncore < CPC_MAX_CORE_PMUS)
		if (de->d_name[0] != '.' &&
		    read_core_pmu(de->d_name, &cpc->core[cpc->ncore]))
			cpc->ncore++;
	closedir(d);
	qsort(
	    cpc->core, (size_t)cpc->ncore, sizeof(cpc->core[0]), by_first_cpu);
	if (cpc->ncore == 1 && !cpclib_sysfs_recorded())
		set_live_counters(&cpc->core[0]);
}

/*
 * libpfm4's model of each core PMU: its description, and its counters
 * where the CPU does not say them. The CPU's own word wins over the model.
 */
void
cpclib_core_models(cpc_t *cpc)
{
	int i;

	if (cpc->ncore == 1) {
		set_model(&cpc->core[0], cpclib_pfm_present());
		if (!cpclib_sysfs_recorded())
			set_live_counters(&cpc->core[0]);
	}
	for (i = 0; cpc->ncore > 1 && i < cpc->ncore; i++)
		set_model(&cpc->core[i], pfm_of_hybrid(cpc->core[i].name));
}

/* The core PMU that counts on cpu, or -1. */
int
cpclib_core_of_cpu(const cpc_t *cpc, int cpu)
{
	int i;

	for (i = 0; cpu >= 0 && cpu < CPU_SETSIZE && i < cpc->ncore; i++)
		if (CPU_ISSET(cpu, &cpc->core[i].cpus))
			return i;
	return -1;
}

/* The core PMU whose perf type this is, or -1. */
int
cpclib_core_of_type(const cpc_t *cpc, uint32_t type)
{
	int i;

	for (i = 0; i < cpc->ncore; i++)
		if (cpc->core[i].type >= 0 &&
		    (uint32_t)cpc->core[i].type == type)
			return i;
	return -1;
}

/*
 * The core PMU an event's attributes count on: the one of its type, or
 * of the extended type of a generic hardware event; the kernel's own
 * choice (the first) for generic and raw events that name none; -1 for
 * events of no core PMU.
 */
int
cpclib_core_of_attr(const cpc_t *cpc, const struct perf_event_attr *attr)
{
	uint32_t ext;

	if (cpc->ncore == 0)
		return -1;
	if (attr->type == PERF_TYPE_HARDWARE ||
	    attr->type == PERF_TYPE_HW_CACHE) {
		ext = (uint32_t)(attr->config >> 32);
		return ext != 0 ? cpclib_core_of_type(cpc, ext) : 0;
	}
	if (attr->type == PERF_TYPE_RAW)
		return 0;
	return cpclib_core_of_type(cpc, attr->type);
}

const char *
cpc_core_pmu(cpc_t *cpc, int i, const char **cpus)
{
	if (cpc == NULL || i < 0 || i >= cpc->ncore)
		return NULL;
	if (cpus != NULL)
		*cpus = cpc->core[i].cpulist;
	return cpc->core[i].name;
}

/*
 * Where some core PMU has no such event: "counted on cpu_core (CPUs 0-15)
 * only: cpu_atom (CPUs 16-23) has no such event, ...", in the note.
 */
void
cpclib_note_missing_cores(
    const cpc_t *cpc, const bool *has, struct ev_result *r)
{
	char on[256] = "", off[256] = "", note[EV_DESC_LEN];
	int i, missing = 0;

	for (i = 0; i < cpc->ncore; i++)
		missing += !has[i];
	if (missing == 0 || missing == cpc->ncore)
		return;
	for (i = 0; i < cpc->ncore; i++) {
		char *to = has[i] ? on : off;

		snprintf(to + strlen(to), sizeof(on) - strlen(to),
		    "%s%s (CPUs %s)", to[0] != '\0' ? ", " : "",
		    cpc->core[i].name, cpc->core[i].cpulist);
	}
	snprintf(note, sizeof(note),
	    "counted on %s only: %s %s no such event, and a thread's time "
	    "there is not counted",
	    on, off, strchr(off, ',') != NULL ? "have" : "has");
	if (r->note[0] != '\0')
		strlcat(r->note, "; ", sizeof(r->note));
	strlcat(r->note, note, sizeof(r->note));
}

/*
 * Where a request's events count, for the message of a CPU they do not
 * count on: "CPUs 16-23 (cpu_atom)", each of its core PMUs.
 */
void
cpclib_request_cores(
    const cpc_t *cpc, const struct cpc_request *req, char *buf, size_t len)
{
	bool has[CPC_MAX_CORE_PMUS] = { false };
	int t, c;

	buf[0] = '\0';
	for (t = 0; t < req->enc.nterms; t++)
		if ((c = cpclib_core_of_attr(cpc, &req->enc.term[t].attr)) >= 0)
			has[c] = true;
	for (c = 0; c < cpc->ncore; c++)
		if (has[c])
			snprintf(buf + strlen(buf), len - strlen(buf),
			    "%sCPUs %s (%s)", buf[0] != '\0' ? ", " : "",
			    cpc->core[c].cpulist, cpc->core[c].name);
}
