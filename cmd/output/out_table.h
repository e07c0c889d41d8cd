/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The table: the layout of the Solaris commands.
 */
#ifndef OUT_TABLE_H
#define OUT_TABLE_H

#include "out_buf.h"
#include "out_run.h"

/* cpustat -T u|d: the time, or the date, on a line of its own. */
void out_table_timestamp(const struct out_run *run, struct out_buf *b);

/*
 * -M's metrics (out_table_metrics.c): the lines after a row of counts;
 * with --metric-only, the columns' titles, and a row's values.
 */
void out_table_metric_lines(
    const struct out_run *run, struct out_buf *b, const struct out_row *row);
void out_table_metric_title(const struct out_run *run, struct out_buf *b);
void out_table_metric_values(
    const struct out_run *run, struct out_buf *b, const struct out_row *row);

#endif /* OUT_TABLE_H */
