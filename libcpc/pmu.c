/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the machine offers: the kernel's core PMU, its counters and names.
 */
#include <dirent.h>
#include <errno.h>
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
#include "evname.h"

#define MIN_NPIC 8

#if defined(__x86_64__) || defined(__i386__)
#define CPC_X86_ATTRS 1
#include <cpuid.h>
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

/*
 * The CPU where a test of core PMU core opens, for a caller that counts
 * CPUs alone: the probe CPU if it is one of core's, else core's first.
 */
int
cpclib_core_probe_cpu(const cpc_t *cpc, int core)
{
	int cpu;

	if (cpc->ncore < 2 || core < 0 || core >= cpc->ncore ||
	    cpclib_core_of_cpu(cpc, cpc->probe_cpu) == core)
		return cpc->probe_cpu;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &cpc->core[core].cpus))
			return cpu;
	return cpc->probe_cpu;
}

/*
 * A test event, opened where the caller counts. The first event on a
 * thread, where none counts a thread, turns the kernel's switch hooks on
 * and waits for an RCU grace period (milliseconds): a caller that counts
 * CPUs alone should not pay it for a test.
 */
int
cpclib_probe_open(cpc_t *cpc, struct perf_event_attr *attr)
{
	const struct sysfs_pmu *socket = cpclib_socket_pmu(cpc, attr);
	int cpu;

	/* A PMU with a cpumask counts on its CPUs, never for a thread. */
	if (socket != NULL) {
		for (cpu = 0; !CPU_ISSET(cpu, &socket->cpus); cpu++)
			;
		return cpclib_perf_open(attr, -1, cpu, -1);
	}
	if (cpc->probe_cpu < 0)
		return cpclib_perf_open(attr, 0, -1, -1);
	return cpclib_perf_open(attr, -1,
	    cpclib_core_probe_cpu(cpc, cpclib_core_of_attr(cpc, attr)), -1);
}

/* The pid a test event is opened for, as cpclib_probe_open opens it. */
int
cpclib_probe_pid(const cpc_t *cpc)
{
	return cpc->probe_cpu < 0 ? 0 : -1;
}

int
cpc_probe_cpu(cpc_t *cpc, int cpuid)
{
	if (cpc == NULL || cpuid < -1 || cpuid >= CPU_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	cpc->probe_cpu = cpuid;
	return 0;
}

/*
 * The first core PMU's name, read afresh: the attribute fields are the
 * library's, not a handle's (see load_sysfs_formats).
 */
#ifndef CPC_X86_ATTRS
static bool
first_core_pmu(char *name, size_t len)
{
	cpc_t probe = { 0 };

	cpclib_core_pmus_detect(&probe);
	if (probe.ncore == 0)
		return false;
	strlcpy(name, probe.core[0].name, len);
	return true;
}
#endif

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

	if (!first_core_pmu(pmu, sizeof(pmu)) ||
	    !cpclib_pmu_path(path, sizeof(path), "/%s/format", pmu) ||
	    (d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL && nsysfs_fields < MAX_FORMATS) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "event") == 0 ||
		    strlen(de->d_name) >= sizeof(sysfs_names[0]))
			continue;
		if (!cpclib_pmu_path(
			path, sizeof(path), "/%s/format/%s", pmu, de->d_name) ||
		    (fp = fopen(path, "re")) == NULL)
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

#ifdef CPC_X86_ATTRS
/*
 * The event-select fields of a CPU that libpfm4 has no model of (a model
 * newer than the library): they are architectural, so the vendor says
 * which.
 */
static const char *const *
x86_vendor_attrs(void)
{
	unsigned int eax, ebx, ecx, edx;
	char vendor[13] = "";
	const char *id;

	if (cpclib_sysfs_recorded()) {
		/*
		 * A recorded machine's vendor is its CPU id's (PERF_CPUID, set
		 * with the tree), never the host's.
		 */
		if ((id = getenv("PERF_CPUID")) != NULL)
			strlcpy(vendor, id, sizeof(vendor));
	} else if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) != 0) {
		memcpy(vendor, &ebx, 4);
		memcpy(vendor + 4, &edx, 4);
		memcpy(vendor + 8, &ecx, 4);
		vendor[12] = '\0';
	}
	if (strcmp(vendor, "AuthenticAMD") == 0 ||
	    strcmp(vendor, "HygonGenuine") == 0)
		return x86_amd_attrs;
	if (strcmp(vendor, "GenuineIntel") == 0)
		return x86_intel_attrs;
	return no_attrs;
}
#endif

/* The attribute names this machine offers (info: its libpfm4 PMU). */
static const char *const *
arch_attrs(const cpc_t *cpc, const pfm_pmu_info_t *info)
{
#ifdef CPC_X86_ATTRS
	(void)cpc;
	/* The CPU's attributes, even where its PMU is not exposed. */
	if (info == NULL)
		return x86_vendor_attrs();
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

/*
 * The attribute names, where libpfm4's model need not be asked: on x86 the
 * CPU's vendor says what its model would, unless a model is forced by
 * name (LIBPFM_FORCE_PMU), which may be another vendor's. NULL: ask it.
 */
static const char *const *
attrs_without_model(const cpc_t *cpc)
{
#ifdef CPC_X86_ATTRS
	(void)cpc;
	if (getenv("LIBPFM_FORCE_PMU") != NULL)
		return NULL;
	return x86_vendor_attrs();
#else
	return arch_attrs(cpc, NULL);
#endif
}

/* "ARM Cortex A57 (Linux perf_event PMU 'armv8_pmuv3')", and the like. */
static void
name_interface(cpc_t *cpc, const char *model)
{
	char pmus[CPC_MAX_IMPL_NAME];
	const struct cpc_core_pmu *p;
	int i;

	if (cpc->ncore == 1) {
		snprintf(cpc->cciname, sizeof(cpc->cciname),
		    "%s (Linux perf_event PMU '%s')", model, cpc->pmu_name);
		return;
	}
	pmus[0] = '\0';
	for (i = 0; i < cpc->ncore; i++) {
		p = &cpc->core[i];
		snprintf(pmus + strlen(pmus), sizeof(pmus) - strlen(pmus),
		    "%s'%s' on CPUs %s%s%s", i > 0 ? ", " : "", p->name,
		    p->cpulist, p->model[0] != '\0' ? ": " : "", p->model);
	}
	snprintf(cpc->cciname, sizeof(cpc->cciname),
	    "%d core types (Linux perf_event PMUs %s)", cpc->ncore, pmus);
}

/* The most counters a core PMU has, of those known, at least MIN_NPIC. */
static uint_t
most_counters(const cpc_t *cpc)
{
	uint_t counters = 0;
	int i;

	for (i = 0; i < cpc->ncore; i++)
		if (cpc->core[i].general + cpc->core[i].fixed > counters)
			counters = cpc->core[i].general + cpc->core[i].fixed;
	return counters > MIN_NPIC ? counters : MIN_NPIC;
}

/* Whether every core PMU's counters are known, libpfm4 not asked. */
static bool
counters_known(const cpc_t *cpc)
{
	int i;

	for (i = 0; i < cpc->ncore; i++)
		if (cpc->core[i].general == 0)
			return false;
	return true;
}

/*
 * The kernel's core PMUs, from sysfs alone. Their counters are known here
 * where the CPU says them or there is no PMU; else, with the rest of what
 * libpfm4's models say, at the first need (cpclib_pmu_models).
 */
void
cpclib_pmu_detect(cpc_t *cpc)
{
	cpclib_core_pmus_detect(cpc);
	cpc->extended_type = -1;
	cpc->pmu_name[0] = '\0';
	cpc->pmu_type = -1;
	cpc->pfm_pmu = -1;
	if (cpc->ncore > 0) {
		strlcpy(
		    cpc->pmu_name, cpc->core[0].name, sizeof(cpc->pmu_name));
		cpc->pmu_type = cpc->core[0].type;
	}
	cpc->attr_names = attrs_without_model(cpc);
	cpc->npic = counters_known(cpc) ? most_counters(cpc) : 0;
}

static void
describe_models(cpc_t *cpc)
{
	pfm_pmu_info_t info;
	const char *model = "this CPU";

	if (cpclib_pfm_init() == PFM_SUCCESS) {
		cpclib_core_models(cpc);
		/* The CPU's names are known even where none can count. */
		cpc->pfm_pmu = cpc->ncore > 0 ? cpc->core[0].pfm_pmu :
						cpclib_pfm_present();
	}
	if (cpc->pfm_pmu >= 0) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info((pfm_pmu_t)cpc->pfm_pmu, &info) ==
		    PFM_SUCCESS)
			model = info.desc;
	}
	if (cpc->attr_names == NULL)
		cpc->attr_names =
		    arch_attrs(cpc, cpc->pfm_pmu >= 0 ? &info : NULL);
	if (cpc->ncore > 0) {
		name_interface(cpc, model);
	} else {
		snprintf(cpc->cciname, sizeof(cpc->cciname),
		    "%s: no hardware PMU in this kernel "
		    "(software events and tracepoints only)",
		    model);
	}
	if (cpc->npic == 0)
		cpc->npic = most_counters(cpc);
	snprintf(cpc->cpuref, sizeof(cpc->cpuref),
	    "See the processor vendor's performance monitoring documentation "
	    "for %s, 'perf list' for the kernel's names, and "
	    "perf_event_open(2) for software events. Tracepoints are named "
	    "subsystem:event as listed under /sys/kernel/tracing/events.",
	    model);
}

/*
 * What only libpfm4's models say (the CPU's name, and on some machines its
 * counters and attributes), worked out at the first need: libpfm4
 * tests each of the hundreds of PMU tables it knows with cpuid when it
 * initializes, each test an exit to the hypervisor in a VM, and a run of
 * software events and tracepoints needs none of it.
 */
void
cpclib_pmu_models(cpc_t *cpc)
{
	int saved = errno; /* callers on an error's path report it */

	if (cpc->models_known)
		return;
	pthread_mutex_lock(&cpc->models_lock);
	if (!cpc->models_known) {
		describe_models(cpc);
		cpc->models_known = true;
	}
	pthread_mutex_unlock(&cpc->models_lock);
	errno = saved;
}

/* The counters a request group may have (cpc_npic). */
uint_t
cpclib_npic(cpc_t *cpc)
{
	if (cpc->npic == 0)
		cpclib_pmu_models(cpc);
	return cpc->npic;
}

/* The attribute names the core PMU offers. */
const char *const *
cpclib_attr_names(cpc_t *cpc)
{
	if (cpc->attr_names == NULL)
		cpclib_pmu_models(cpc);
	return cpc->attr_names;
}

/*
 * Cycles per nanosecond of the time-stamp counter, from the conversion
 * the kernel publishes for user-space rdtsc. 1.0 (ticks are nanoseconds)
 * where the kernel publishes none.
 */
double
cpclib_tsc_per_ns(cpc_t *cpc)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *page;
	double rate = 1.0;
	long pagesz = sysconf(_SC_PAGESIZE);
	int fd;

	cpclib_dummy_attr(&attr);
	attr.disabled = 0; /* the kernel fills in the page of a live event */
	if ((fd = cpclib_probe_open(cpc, &attr)) < 0)
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
		cpc->tsc_per_ns = cpclib_tsc_per_ns(cpc);
	return (uint64_t)((double)enabled_ns * cpc->tsc_per_ns);
}

/* libpfm4's name for this CPU's core PMU ("skl", "amd64_fam19h_zen4"). */
const char *
cpclib_pfm_pmu_name(cpc_t *cpc)
{
	pfm_pmu_info_t info;

	cpclib_pmu_models(cpc);
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
