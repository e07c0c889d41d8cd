/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The recorded machines as hosts (recorded.h). Each tree's CPU is the one
 * tests/unit/sysfs-trees/SOURCES.md names; its id is perf's spelling of
 * it (vendor-family-model-stepping on x86, the first CPU's MIDR on
 * arm64).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorded.h"
#include "../../libcpc/cpc_impl.h"

/* libpfm4 activates only the PMU forced, and none is called this. */
#define NO_MODEL "none"

/*
 * A hybrid tree's model is none: libpfm4 activates a hybrid model only
 * where the host's kernel has its PMU (/sys/devices/cpu_core), so forcing
 * it would give each host its own answer; Debian 12's libpfm4 4.13 has no
 * Alder Lake model in any case. Arm's models are not in an x86 libpfm4.
 */
static const struct {
	const char *tree;
	const char *pfm;
	const char *cpuid;
} machines[] = {
	{ "intel-skylakex", "skx", "GenuineIntel-6-55-4" },
	{ "intel-icelakex", "icx", "GenuineIntel-6-6A-6" },
	{ "intel-sapphirerapids", "spr", "GenuineIntel-6-8F-8" },
	{ "intel-alderlake-hybrid", NO_MODEL, "GenuineIntel-6-97-2" },
	{ "intel-vm-psys", NO_MODEL, "GenuineIntel-6-CF-2" },
	{ "amd-zen3", "amd64_fam19h_zen3", "AuthenticAMD-25-1-1" },
	{ "amd-zen4", "amd64_fam19h_zen4", "AuthenticAMD-25-11-1" },
	{ "amd-genoa-2s", "amd64_fam19h_zen4", "AuthenticAMD-25-11-1" },
	{ "arm-rk3588-biglittle", NO_MODEL, "0x00000000410fd050" },
};

/*
 * libpfm4's model forced; what a user may have given it undone: PMUs left
 * out, and inactive PMUs' names encoded.
 */
static void
force_pfm(const char *model)
{
	if (setenv("LIBPFM_FORCE_PMU", model, 1) != 0 ||
	    unsetenv("LIBPFM_DISABLED_PMUS") != 0 ||
	    unsetenv("LIBPFM_ENCODE_INACTIVE") != 0) {
		fprintf(stderr, "recorded: cannot set libpfm4's variables\n");
		exit(1);
	}
}

void
recorded_machine(const char *tree, int extended_hw_type)
{
	static char root[4096];
	size_t i;

	for (i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (strcmp(machines[i].tree, tree) == 0)
			break;
	if (i == sizeof(machines) / sizeof(machines[0])) {
		fprintf(
		    stderr, "recorded: %s: no CPU known for this tree\n", tree);
		exit(1);
	}
	force_pfm(machines[i].pfm);
	if (setenv("PERF_CPUID", machines[i].cpuid, 1) != 0) {
		fprintf(stderr, "recorded: cannot set PERF_CPUID\n");
		exit(1);
	}
	snprintf(root, sizeof(root), "%s/tests/unit/sysfs-trees/%s",
	    CPCTOOLS_SOURCE_DIR, tree);
	cpclib_set_sysfs_root(root, extended_hw_type);
}

void
recorded_no_model(void)
{
	force_pfm(NO_MODEL);
	(void)unsetenv("PERF_CPUID");
}
