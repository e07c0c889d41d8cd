/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the machine offers: the kernel's core PMU, its counters and names.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpc_impl.h"

#define PMU_SYSFS "/sys/bus/event_source/devices"
#define MIN_NPIC  8

/* sysfs names of PMUs that count CPU core events. */
static const char *const core_pmu_patterns[] = {
	"cpu",
	"cpu_core",
	"cpu_atom",
	"armv8_*",
	"armv7_*",
	"arm_*",
	"riscv-pmu*",
	"cpum_cf",
};

#if defined(__x86_64__) || defined(__i386__)
#define CPC_X86_ATTRS 1
/* Solaris attribute names, as fields of the x86 event-select register. */
static const char *const x86_intel_attrs[] = { "edge", "inv", "umask", "cmask",
	"anythr", NULL };
static const char *const x86_amd_attrs[] = { "edge", "pc", "inv", "cmask",
	"umask", NULL };
static const struct cpc_attr_field x86_fields[] = {
	{ "umask", 0, 0xffULL << 8 },
	{ "edge", 0, 1ULL << 18 },
	{ "pc", 0, 1ULL << 19 },
	{ "anythr", 0, 1ULL << 21 },
	{ "inv", 0, 1ULL << 23 },
	{ "cmask", 0, 0xffULL << 24 },
};
#else
/*
 * Elsewhere the attributes are the fields the kernel's core PMU names in
 * sysfs (its format/ directory), less the event code itself: on
 * armv8_pmuv3, long (config1:0, a 64-bit counter) and rdpmc (config1:1),
 * and threshold fields on newer kernels. Read once: the machine's PMU does
 * not change.
 */
#define MAX_FORMATS 16
static struct cpc_attr_field sysfs_fields[MAX_FORMATS];
static char sysfs_names[MAX_FORMATS][32];
static const char *sysfs_attrs[MAX_FORMATS + 1];
static int nsysfs_fields;
static pthread_once_t sysfs_once = PTHREAD_ONCE_INIT;
#endif
static const char *const no_attrs[] = { NULL };

/*
 * The attributes of an idle, disabled, user-only event on the caller:
 * enough to ask the kernel whether something can be opened at all.
 */
void
cpclib_dummy_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->disabled = 1;
}

static bool
is_core_pmu(const char *name)
{
	size_t i;

	for (i = 0;
	     i < sizeof(core_pmu_patterns) / sizeof(core_pmu_patterns[0]); i++)
		if (fnmatch(core_pmu_patterns[i], name, 0) == 0)
			return true;
	return false;
}

static int
read_pmu_type(const char *name)
{
	char path[512];
	FILE *f;
	int type = -1;

	snprintf(path, sizeof(path), PMU_SYSFS "/%s/type", name);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

/*
 * Find the kernel's core PMU in sysfs; never assume its type number.
 * Its name goes to name (empty when there is none); returns its type or -1.
 */
static int
kernel_pmu(char *name, size_t len)
{
	DIR *d;
	struct dirent *de;
	int type = -1;

	name[0] = '\0';
	if ((d = opendir(PMU_SYSFS)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || !is_core_pmu(de->d_name))
			continue;
		if ((type = read_pmu_type(de->d_name)) < 0)
			continue;
		strlcpy(name, de->d_name, len);
		break;
	}
	closedir(d);
	return type;
}

static void
find_kernel_pmu(cpc_t *cpc)
{
	cpc->pmu_type = kernel_pmu(cpc->pmu_name, sizeof(cpc->pmu_name));
}

#ifndef CPC_X86_ATTRS
static void
load_sysfs_formats(void)
{
	char pmu[64], path[512], text[128];
	struct cpc_attr_field f;
	struct dirent *de;
	DIR *d;
	FILE *fp;
	int i;

	if (kernel_pmu(pmu, sizeof(pmu)) < 0)
		return;
	snprintf(path, sizeof(path), PMU_SYSFS "/%s/format", pmu);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL && nsysfs_fields < MAX_FORMATS) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "event") == 0 ||
		    strlen(de->d_name) >= sizeof(sysfs_names[0]))
			continue;
		snprintf(path, sizeof(path), PMU_SYSFS "/%s/format/%s", pmu,
		    de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		if (fgets(text, sizeof(text), fp) != NULL &&
		    cpclib_sysfs_format(text, &f.config, &f.mask)) {
			/* Sorted by name, for a stable listing. */
			for (i = nsysfs_fields; i > 0 &&
			     strcmp(sysfs_names[i - 1], de->d_name) > 0;
			     i--) {
				memcpy(sysfs_names[i], sysfs_names[i - 1],
				    sizeof(sysfs_names[0]));
				sysfs_fields[i] = sysfs_fields[i - 1];
			}
			strlcpy(
			    sysfs_names[i], de->d_name, sizeof(sysfs_names[0]));
			sysfs_fields[i] = f;
			nsysfs_fields++;
		}
		fclose(fp);
	}
	closedir(d);
	for (i = 0; i < nsysfs_fields; i++) {
		sysfs_fields[i].name = sysfs_names[i];
		sysfs_attrs[i] = sysfs_names[i];
	}
	sysfs_attrs[nsysfs_fields] = NULL;
}
#endif

/* The field an attribute name sets, or NULL. */
const struct cpc_attr_field *
cpclib_pmu_attr_field(const char *name)
{
#ifdef CPC_X86_ATTRS
	const struct cpc_attr_field *fields = x86_fields;
	size_t i, n = sizeof(x86_fields) / sizeof(x86_fields[0]);
#else
	const struct cpc_attr_field *fields = sysfs_fields;
	size_t i, n;

	pthread_once(&sysfs_once, load_sysfs_formats);
	n = (size_t)nsysfs_fields;
#endif
	for (i = 0; i < n; i++)
		if (strcmp(fields[i].name, name) == 0)
			return &fields[i];
	return NULL;
}

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

/* The libpfm4 core PMU that describes this CPU model, or -1. */
static int
find_pfm_core_pmu(pfm_pmu_info_t *info)
{
	pfm_pmu_t p;

	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(info, 0, sizeof(*info));
		info->size = sizeof(*info);
		if (pfm_get_pmu_info(p, info) != PFM_SUCCESS)
			continue;
		if (info->is_present && info->type == PFM_PMU_TYPE_CORE)
			return (int)p;
	}
	return -1;
}

/* The attribute names this machine offers (info: its libpfm4 PMU). */
static const char *const *
arch_attrs(const cpc_t *cpc, const pfm_pmu_info_t *info)
{
#ifdef CPC_X86_ATTRS
	(void)cpc;
	/* The CPU's attributes, even where its PMU is not exposed. */
	if (info == NULL)
		return no_attrs;
	if (strncmp(info->name, "amd64", 5) == 0)
		return x86_amd_attrs;
	return x86_intel_attrs;
#else
	(void)info;
	if (cpc->pmu_name[0] == '\0')
		return no_attrs;
	pthread_once(&sysfs_once, load_sysfs_formats);
	return sysfs_attrs;
#endif
}

void
cpclib_pmu_detect(cpc_t *cpc)
{
	pfm_pmu_info_t info;
	uint_t counters = 0;
	const char *model = "this CPU";

	find_kernel_pmu(cpc);
	cpc->pfm_pmu = find_pfm_core_pmu(&info);
	if (cpc->pfm_pmu >= 0) {
		model = info.desc;
		cpc->hw_general = (uint_t)info.num_cntrs;
		cpc->hw_fixed = fixed_counters(&info);
		counters = cpc->hw_general + cpc->hw_fixed;
	}
	cpc->attr_names = arch_attrs(cpc, cpc->pfm_pmu >= 0 ? &info : NULL);
	if (cpc->pmu_name[0] != '\0') {
		snprintf(cpc->cciname, sizeof(cpc->cciname),
		    "%s (Linux perf_event PMU '%s')", model, cpc->pmu_name);
	} else {
		counters = 0;
		cpc->hw_general = cpc->hw_fixed = 0;
		snprintf(cpc->cciname, sizeof(cpc->cciname),
		    "%s: no hardware PMU in this kernel "
		    "(software events and tracepoints only)",
		    model);
	}
	cpc->npic = counters > MIN_NPIC ? counters : MIN_NPIC;
	snprintf(cpc->cpuref, sizeof(cpc->cpuref),
	    "See the processor vendor's performance monitoring documentation "
	    "for %s, 'perf list' for the kernel's names, and "
	    "perf_event_open(2) for software events. Tracepoints are named "
	    "subsystem:event as listed under /sys/kernel/tracing/events.",
	    model);
}

/*
 * Cycles per nanosecond of the time-stamp counter, from the conversion
 * the kernel publishes for user-space rdtsc. 1.0 (ticks are nanoseconds)
 * where the kernel publishes none.
 */
double
cpclib_tsc_per_ns(void)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *page;
	double rate = 1.0;
	long pagesz = sysconf(_SC_PAGESIZE);
	int fd;

	cpclib_dummy_attr(&attr);
	attr.disabled = 0; /* the kernel fills in the page of a live event */
	if ((fd = cpclib_perf_open(&attr, 0, -1, -1)) < 0)
		return rate;
	page = mmap(NULL, (size_t)pagesz, PROT_READ, MAP_SHARED, fd, 0);
	if (page != MAP_FAILED) {
		if (page->cap_user_time && page->time_mult != 0)
			rate = (double)(1ULL << page->time_shift) /
			    page->time_mult;
		munmap(page, (size_t)pagesz);
	}
	close(fd);
	return rate;
}

/* The derived tick of enabled_ns on a CPU; the rate is read once. */
uint64_t
cpclib_tick_of(cpc_t *cpc, uint64_t enabled_ns)
{
	if (cpc->tsc_per_ns == 0.0)
		cpc->tsc_per_ns = cpclib_tsc_per_ns();
	return (uint64_t)((double)enabled_ns * cpc->tsc_per_ns);
}

/* libpfm4's name for this CPU's core PMU ("skl", "amd64_fam19h_zen4"). */
const char *
cpclib_pfm_pmu_name(const cpc_t *cpc)
{
	pfm_pmu_info_t info;

	if (cpc->pfm_pmu < 0)
		return NULL;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (pfm_get_pmu_info((pfm_pmu_t)cpc->pfm_pmu, &info) != PFM_SUCCESS)
		return NULL;
	return info.name;
}

const char *
cpc_pmu_name(cpc_t *cpc)
{
	return cpc->pmu_name[0] != '\0' ? cpc->pmu_name : NULL;
}
