/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The BPF engine's row of the engines' table (engines.def): it traces
 * nothing, so that auto tries it first.
 */
#include "cputrack_bpf_engine.h"

const struct engine bpf_engine = { .name = "bpf",
	.says = "BPF",
	.phase = "BPF engine",
	.how = "BPF programs at each context switch",
	.sees_cgroups = true,
	.counts_on_cpus = true,
	.can_run = bpf_can_run,
	.may_count_cpus = bpf_may_count_cpus,
	.ops = &bpf_ops };
