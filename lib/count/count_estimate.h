/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A counter's estimate where it shared its hardware: what it counted,
 * scaled by how long it was enabled against how long it ran, rounded as
 * perf stat rounds. libcpc's scaled sets (sample.c) and the commands' set
 * rotation (cmd/common/setgrp.c) both add estimates up step by step, and
 * must agree to the count, so they share this one definition.
 * Header only: libcpc's objects and the commands include it, and neither
 * exports it.
 */
#ifndef COUNT_ESTIMATE_H
#define COUNT_ESTIMATE_H

#include <stdint.h>

static inline uint64_t
count_estimate(uint64_t count, uint64_t enabled, uint64_t running)
{
	if (enabled == running)
		return count;
#ifdef __SIZEOF_INT128__
	return (uint64_t)(((unsigned __int128)count * enabled + running / 2) /
	    running);
#else
	return (uint64_t)((long double)count * enabled / running + 0.5L);
#endif
}

#endif
