/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Why a CPU binding could not have the counters it asked for. The kernel
 * only says that a pinned group could not go on the PMU (it reads as end
 * of file), not who holds what: what is known for certain is how many
 * counters the set needs, how many the CPU has, and whether the kernel's
 * own hardlockup detector (the NMI watchdog) keeps one on every CPU.
 * Nothing else is said of the holders: the kernel does not name them.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "cpc_impl.h"

/* Whether the kernel's NMI watchdog holds a counter on every CPU. */
enum watchdog_hold { WATCHDOG_NONE, WATCHDOG_HOLDS, WATCHDOG_MAY_HOLD };

static int
sysctl_nmi_watchdog(void)
{
	FILE *f;
	int on = 0;

	if ((f = fopen("/proc/sys/kernel/nmi_watchdog", "re")) == NULL)
		return 0;
	if (fscanf(f, "%d", &on) != 1)
		on = 0;
	fclose(f);
	return on;
}

/*
 * 1 when the running kernel's configuration (Debian keeps it in /boot)
 * builds the hardlockup detector on perf, 0 when it does not, -1 when it
 * cannot be read. Only that detector holds a counter: the buddy detector
 * of newer arm64 kernels, also behind kernel.nmi_watchdog, holds none.
 */
static int
detector_on_perf(void)
{
	char path[300], line[256];
	struct utsname u;
	FILE *f;
	int found = 0;

	if (uname(&u) != 0)
		return -1;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found =
		    strcmp(line, "CONFIG_HARDLOCKUP_DETECTOR_PERF=y\n") == 0;
	fclose(f);
	return found;
}

static enum watchdog_hold
nmi_watchdog_hold(void)
{
	int perf;

	if (sysctl_nmi_watchdog() <= 0)
		return WATCHDOG_NONE;
	if ((perf = detector_on_perf()) >= 0)
		return perf ? WATCHDOG_HOLDS : WATCHDOG_NONE;
#if defined(__x86_64__) || defined(__i386__)
	/* x86 builds it on perf wherever there is a PMU to build it on. */
	return WATCHDOG_HOLDS;
#else
	return WATCHDOG_MAY_HOLD;
#endif
}

/* The hardware counters a set's group takes: one per hardware event. */
static int
counters_needed(const cpc_set_t *set)
{
	int i, n = 0;

	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].enc.hardware)
			n += set->reqs[i].enc.nterms;
	return n;
}

/* "7 (6 general, 1 fixed)", or "an unknown number": cpu's counters. */
static void
cpu_counters(const cpc_t *cpc, int cpu, char *buf, size_t len)
{
	int c = cpclib_core_of_cpu(cpc, cpu);
	const struct cpc_core_pmu *p = c >= 0 ? &cpc->core[c] : NULL;

	if (p == NULL || p->general == 0)
		snprintf(buf, len, "an unknown number");
	else if (p->fixed == 0)
		snprintf(buf, len, "%u", p->general);
	else
		snprintf(buf, len, "%u (%u general, %u fixed)",
		    p->general + p->fixed, p->general, p->fixed);
}

/* Who holds the counters, as far as it is known. */
static const char *
holders(bool whole_pmu)
{
	switch (nmi_watchdog_hold()) {
	case WATCHDOG_HOLDS:
		return "the kernel's NMI watchdog keeps one on every CPU "
		       "(kernel.nmi_watchdog is 1; sysctl "
		       "kernel.nmi_watchdog=0 frees it)";
	case WATCHDOG_MAY_HOLD:
		return "other CPU-wide counters hold some (the kernel's NMI "
		       "watchdog may keep one on every CPU: kernel.nmi_watchdog "
		       "is 1)";
	default:
		return whole_pmu ? "another CPU-wide counter holds some of "
				   "them, or the whole PMU" :
				   "other CPU-wide counters hold some, or one "
				   "holds the whole PMU";
	}
}

/*
 * Report, with CPC_COUNTERS_HELD, why the set's pinned group could not go
 * on the PMU of cpu. Called with errno EAGAIN, which it keeps.
 */
void
cpclib_report_held(cpc_t *cpc, const cpc_set_t *set, int cpu)
{
	char has[64];
	int need = counters_needed(set);

	cpclib_pmu_models(cpc);
	cpu_counters(cpc, cpu, has, sizeof(has));
	if (set->hold == CPC_HOLD_EXCLUSIVE)
		cpclib_err(cpc, "cpc_bind_cpu", CPC_COUNTERS_HELD,
		    "holding the whole PMU of cpu%d needs all its %s counters "
		    "free, and %s\n",
		    cpu, has, holders(true));
	else
		cpclib_err(cpc, "cpc_bind_cpu", CPC_COUNTERS_HELD,
		    "the set needs %d hardware counter%s of the %s cpu%d "
		    "has, and others hold them: %s\n",
		    need, need == 1 ? "" : "s", has, cpu, holders(false));
}
