/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef CAPS_H
#define CAPS_H

#include <stdbool.h>
#include <stdio.h>

#include "libcpc.h"

/* Print the -h capabilities listing: interface, events, attributes. */
void caps_print(cpc_t *cpc, FILE *out);

/*
 * --list[=GLOB]: every countable event whose name matches the fnmatch(3)
 * pattern glob (NULL: all), one per line: the name, a tab, its kind, a
 * tab, a one-line description; then the forms that take a parameter
 * (mem:ADDR[/LEN][:r|w|rw|x], ...). With json, each line is instead a
 * JSON object: {"name":..,"kind":..,"description":..}. Returns the
 * number of lines printed.
 */
int caps_list(cpc_t *cpc, const char *glob, bool json, FILE *out);

#endif /* CAPS_H */
