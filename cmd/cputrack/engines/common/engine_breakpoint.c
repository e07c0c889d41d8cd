/* SPDX-License-Identifier: BSD-2-Clause */
/* The breakpoint rule of the engines that trace no task. */
#include <stdio.h>

#include "engine_breakpoint.h"

/* Only x86 takes a trap whose cause was lost for an INT1, and kills. */
static const char *
refused_breakpoint(const setgrp_t *specs)
{
#if defined(__x86_64__) || defined(__i386__)
	return setgrp_first_breakpoint(specs);
#else
	(void)specs;
	return NULL;
#endif
}

bool
engine_refuses_breakpoint(
    const setgrp_t *specs, const char *advice, char *why, size_t len)
{
	const char *event = refused_breakpoint(specs);

	if (event == NULL)
		return false;
	snprintf(why, len, "%s: %s", event, advice);
	return true;
}
