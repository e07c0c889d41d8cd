/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef MGROUPS_LIST_H
#define MGROUPS_LIST_H

#include <stdbool.h>
#include <stdio.h>

#include "caps.h"
#include "libcpc.h"

/*
 * --list[=GLOB]'s metric groups whose name matches glob (NULL: all), one
 * line each (caps.h's list_line): the name, "metric group", the
 * description and whether this machine counts it (the variant, or why
 * not); in JSON an object with its variants too. Returns the number of
 * lines printed.
 */
int mgroups_list(
    cpc_t *cpc, const char *glob, struct list_style *style, FILE *out);

#endif /* MGROUPS_LIST_H */
