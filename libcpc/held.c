/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Why a CPU binding could not have the counters it asked for. The kernel
 * only says that a pinned group could not go on the PMU (it reads as end
 * of file), not who holds what: what is known for certain is how many
 * counters the set needs, how many the CPU has, and whether the kernel's
 * own hardlockup detector (the NMI watchdog) keeps one on every CPU.
 */
#include <stdio.h>

#include "cpc_impl.h"

/* Whether the kernel's NMI watchdog is on: it pins a cycles counter. */
static bool
nmi_watchdog_on(void)
{
	FILE *f;
	int on = 0;

	if ((f = fopen("/proc/sys/kernel/nmi_watchdog", "re")) == NULL)
		return false;
	if (fscanf(f, "%d", &on) != 1)
		on = 0;
	fclose(f);
	return on > 0;
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

/* "7 (6 general, 1 fixed)", or "an unknown number" of counters. */
static void
cpu_counters(const cpc_t *cpc, char *buf, size_t len)
{
	if (cpc->hw_general == 0)
		snprintf(buf, len, "an unknown number");
	else if (cpc->hw_fixed == 0)
		snprintf(buf, len, "%u", cpc->hw_general);
	else
		snprintf(buf, len, "%u (%u general, %u fixed)",
		    cpc->hw_general + cpc->hw_fixed, cpc->hw_general,
		    cpc->hw_fixed);
}

static const char watchdog[] =
    "the kernel's NMI watchdog keeps one on every CPU "
    "(kernel.nmi_watchdog is 1; sysctl kernel.nmi_watchdog=0 frees it)";

/*
 * Report, with CPC_COUNTERS_HELD, why the set's pinned group could not go
 * on the PMU of cpu. Called with errno EAGAIN, which it keeps.
 */
void
cpclib_report_held(cpc_t *cpc, const cpc_set_t *set, int cpu)
{
	char has[64];
	int need = counters_needed(set);
	bool nmi = nmi_watchdog_on();

	cpu_counters(cpc, has, sizeof(has));
	if (set->hold == CPC_HOLD_EXCLUSIVE)
		cpclib_err(cpc, "cpc_bind_cpu", CPC_COUNTERS_HELD,
		    "holding the whole PMU of cpu%d needs all its %s counters "
		    "free, and %s\n",
		    cpu, has,
		    nmi ? watchdog :
			  "another CPU-wide counter holds some of them, or "
			  "the whole PMU");
	else
		cpclib_err(cpc, "cpc_bind_cpu", CPC_COUNTERS_HELD,
		    "the set needs %d hardware counter%s of the %s cpu%d "
		    "has, and others hold them: %s\n",
		    need, need == 1 ? "" : "s", has, cpu,
		    nmi ? watchdog :
			  "other CPU-wide counters hold some, or one holds "
			  "the whole PMU");
}
