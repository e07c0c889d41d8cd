/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the formats' unit tests share: the text a format writes for one
 * row, a CPU's row of counts, and a check that a text holds a string.
 */
#ifndef OUT_WRITTEN_H
#define OUT_WRITTEN_H

#include <stdbool.h>
#include <stdint.h>

#include "out_format.h"

#define SEC 1000000000ULL

/*
 * The text format ops writes for row, or its head where row is NULL;
 * the row's --metrics values worked out first, as the output does.
 */
char *written(const struct out_format_ops *ops, struct out_run *run,
    const struct out_row *row);

/* A tick of CPU 0 over elapsed_ns, its sets' values as given. */
struct out_row cpu_tick_row(const uint64_t *values, uint64_t enabled_ns,
    uint64_t running_ns, uint64_t elapsed_ns);

/* A check that text holds want (has), or does not. */
void check_has(const char *text, const char *want, bool has);

#endif /* OUT_WRITTEN_H */
