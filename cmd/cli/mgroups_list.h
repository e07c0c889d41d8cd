/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef MGROUPS_LIST_H
#define MGROUPS_LIST_H

#include <stdbool.h>
#include <stdio.h>

#include "libcpc.h"

/*
 * --list[=GLOB]'s metric groups whose name matches glob (NULL: all), one
 * line each: the name, a tab, "metric group", a tab, the description and
 * whether this machine counts it (the variant, or why not); with json a
 * JSON object instead. Returns the number of lines printed.
 */
int mgroups_list(cpc_t *cpc, const char *glob, bool json, FILE *out);

#endif /* MGROUPS_LIST_H */
