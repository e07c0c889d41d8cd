/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The BPF engine's row (cputrack_bpf_engine.c) and what it names: the
 * adapter, in cputrack_bpf.c, or in a build without the engine,
 * cputrack_nobpf.c, which says why it cannot count.
 */
#ifndef CPUTRACK_BPF_ENGINE_H
#define CPUTRACK_BPF_ENGINE_H

#include "cputrack_engine.h"

extern const struct engine_ops bpf_ops;
int bpf_can_run(char *why, size_t len);
bool bpf_may_count_cpus(void);

#endif /* CPUTRACK_BPF_ENGINE_H */
