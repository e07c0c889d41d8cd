/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The events a run counts when no -c names any: perf stat's default set,
 * as far as this machine and this user can count it. The software part
 * (task-clock or, per CPU, cpu-clock; context-switches, cpu-migrations,
 * page-faults) counts everywhere, context-switches and cpu-migrations
 * only where the kernel lets this user count in its context; the
 * hardware part (cycles, instructions, branches, branch-misses) only
 * where a PMU counts it. All count in the kernel too ("sys") where the
 * kernel lets this user, as perf stat's do.
 */
#ifndef DEFAULTS_H
#define DEFAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "libcpc.h"
#include "output.h"
#include "setgrp.h"

/*
 * The default spec for tool, written to text (len bytes, 256 is enough);
 * the number of events left out: those this machine has no PMU for, and
 * those the kernel counts only in its own context where it does not let
 * this user count there.
 */
int defaults_spec(cpc_t *cpc, enum out_tool tool, char *text, size_t len);

/*
 * Add the default spec to specs: setgrp_add's answer (0, or the status
 * to exit with); *note says what was left out and why, or is NULL.
 */
int defaults_add(
    setgrp_t *specs, cpc_t *cpc, enum out_tool tool, const char **note);

/* Whether the kernel lets this user count what runs in the kernel. */
bool defaults_kernel_countable(void);

/* -h's line: the default spec here, and what it leaves out and why. */
void defaults_print(cpc_t *cpc, enum out_tool tool, FILE *out);

#endif /* DEFAULTS_H */
