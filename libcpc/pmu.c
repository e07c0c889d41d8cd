/*
 * What the machine offers: the kernel's core PMU, its counters and names.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpc_impl.h"

#define PMU_SYSFS	"/sys/bus/event_source/devices"
#define MIN_NPIC	8

/* sysfs names of PMUs that count CPU core events. */
static const char *const core_pmu_patterns[] = {
	"cpu", "cpu_core", "cpu_atom", "armv8_*", "armv7_*", "arm_*",
	"riscv-pmu*", "cpum_cf",
};

/* Solaris attribute names offered on each architecture. */
static const char *const x86_intel_attrs[] = {
	"edge", "inv", "umask", "cmask", "anythr", NULL
};
static const char *const x86_amd_attrs[] = {
	"edge", "pc", "inv", "cmask", "umask", NULL
};
static const char *const no_attrs[] = { NULL };

int
cpc_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
	    PERF_FLAG_FD_CLOEXEC);
}

hrtime_t
cpc_gethrtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static bool
is_core_pmu(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(core_pmu_patterns) / sizeof(core_pmu_patterns[0]);
	    i++)
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

/* Find the kernel's core PMU in sysfs; never assume its type number. */
static void
find_kernel_pmu(cpc_t *cpc)
{
	DIR *d;
	struct dirent *de;

	cpc->pmu_name[0] = '\0';
	cpc->pmu_type = -1;
	if ((d = opendir(PMU_SYSFS)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || !is_core_pmu(de->d_name))
			continue;
		if ((cpc->pmu_type = read_pmu_type(de->d_name)) < 0)
			continue;
		strlcpy(cpc->pmu_name, de->d_name, sizeof(cpc->pmu_name));
		break;
	}
	closedir(d);
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

static const char *const *
arch_attrs(const pfm_pmu_info_t *info)
{
#if defined(__x86_64__) || defined(__i386__)
	if (strncmp(info->name, "amd64", 5) == 0)
		return x86_amd_attrs;
	return x86_intel_attrs;
#else
	(void)info;
	(void)x86_intel_attrs;
	(void)x86_amd_attrs;
	return no_attrs;
#endif
}

void
cpc_pmu_detect(cpc_t *cpc)
{
	pfm_pmu_info_t info;
	uint_t counters = 0;
	const char *model = "this CPU";

	find_kernel_pmu(cpc);
	cpc->pfm_pmu = find_pfm_core_pmu(&info);
	cpc->attr_names = no_attrs;
	if (cpc->pfm_pmu >= 0) {
		model = info.desc;
		counters = (uint_t)(info.num_cntrs + info.num_fixed_cntrs);
		/* The CPU's attributes, even where its PMU is not exposed. */
		cpc->attr_names = arch_attrs(&info);
	}
	if (cpc->pmu_name[0] != '\0') {
		snprintf(cpc->cciname, sizeof(cpc->cciname),
		    "%s (Linux perf_event PMU '%s')", model, cpc->pmu_name);
	} else {
		counters = 0;
		snprintf(cpc->cciname, sizeof(cpc->cciname),
		    "%s: no hardware PMU in this kernel "
		    "(software events and tracepoints only)", model);
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
cpc_tsc_per_ns(void)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *page;
	double rate = 1.0;
	long pagesz = sysconf(_SC_PAGESIZE);
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	if ((fd = cpc_perf_open(&attr, 0, -1, -1)) < 0)
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

const char *
cpc_pmu_name(cpc_t *cpc)
{
	return cpc->pmu_name[0] != '\0' ? cpc->pmu_name : NULL;
}
