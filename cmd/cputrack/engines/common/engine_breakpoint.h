/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rule by which an engine that traces no task refuses a breakpoint
 * (mem:) event: on x86 a breakpoint's debug trap that a hypervisor loses
 * reaches the task that hit it as a SIGTRAP that kills it, and only a
 * tracer (the ptrace engine) can drop that trap (docs/events.md). Other
 * CPUs take no lost trap for an INT1, as auto's rule says.
 */
#ifndef ENGINE_BREAKPOINT_H
#define ENGINE_BREAKPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include "setgrp.h"

/*
 * Whether specs count a breakpoint an engine with no tracer must refuse;
 * then why says "EVENT: ADVICE", EVENT the first such event, ADVICE the
 * engine's own words: what the trap does under it and what to run instead.
 */
bool engine_refuses_breakpoint(
    const setgrp_t *specs, const char *advice, char *why, size_t len);

#endif /* ENGINE_BREAKPOINT_H */
