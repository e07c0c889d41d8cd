/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef CPUS_H
#define CPUS_H

#include <sched.h>
#include <stdbool.h>

/* Online CPUs within the caller's affinity mask, and within want if set. */
int cpus_measurable(cpu_set_t *out, const cpu_set_t *want);
bool cpu_is_online(int cpu);
/* Parse a CPU list such as "0-3,6": 0, or -1 for a malformed list. */
int cpus_parse_list(const char *list, cpu_set_t *out);

#endif /* CPUS_H */
