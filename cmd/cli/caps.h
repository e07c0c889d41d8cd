/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef CAPS_H
#define CAPS_H

#include <stdbool.h>
#include <stdio.h>

#include "libcpc.h"

/* Print the -h capabilities listing: interface, events, attributes. */
void caps_print(cpc_t *cpc, FILE *out);

/*
 * How --list writes its lines: as text, the name, a tab, its kind, a tab,
 * a one-line description; as CSV (--format=csv, -x), the same three
 * fields, sep between them, under a header line that names them; as
 * JSON Lines (--format=json, -j), one object per line.
 */
enum list_format { LIST_TEXT, LIST_CSV, LIST_JSON };

struct list_style {
	enum list_format format;
	char sep;    /* CSV's */
	bool headed; /* CSV: the header line is out */
};

/* One line of the listing: an event's, a form's, a metric group's. */
void list_line(FILE *out, struct list_style *style, const char *name,
    const char *kind, const char *desc);

/*
 * --list[=GLOB]: every countable event whose name matches the fnmatch(3)
 * pattern glob (NULL: all), one per line (list_line); then the forms that
 * take a parameter (mem:ADDR[/LEN][:r|w|rw|x], ...). In JSON each line is
 * an object: {"name":..,"kind":..,"description":..}. Returns the number
 * of lines printed.
 */
int caps_list(
    cpc_t *cpc, const char *glob, struct list_style *style, FILE *out);

#endif /* CAPS_H */
