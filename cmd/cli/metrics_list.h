/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef METRICS_LIST_H
#define METRICS_LIST_H

#include <stdbool.h>
#include <stdio.h>

#include "caps.h"
#include "libcpc.h"
#include "output.h"

/*
 * --list[=GLOB]'s metric groups and metrics, of this CPU's model (and of
 * the names older perf releases gave it, and perf's metrics of every
 * CPU), whose name matches glob (NULL: all): one line each, the name, a
 * tab, "metric group" or "metric", a tab, what it holds (the group's
 * metrics; the metric's groups and unit) and whether this machine counts
 * it for tool's rows, or why not, written as style says (list_line);
 * as JSON, an object each, with its model and source, and a metric's
 * formula, threshold and events. Returns the number of lines printed.
 */
int metrics_list(cpc_t *cpc, enum out_tool tool, const char *glob,
    struct list_style *style, FILE *out);

#endif /* METRICS_LIST_H */
