/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The table: the layout of the Solaris commands.
 */
#ifndef OUT_TABLE_H
#define OUT_TABLE_H

#include "out_buf.h"
#include "out_run.h"

void out_table_title(const struct out_run *run, struct out_buf *b);
/* A row at t ns after the start. */
void out_table_row(const struct out_run *run, struct out_buf *b,
    const struct out_row *row, hrtime_t t);
/* cpustat -T u|d: the time, or the date, on a line of its own. */
void out_table_summary(const struct out_run *run, struct out_buf *b,
    const struct out_summary *sum);
void out_table_timestamp(const struct out_run *run, struct out_buf *b);

#endif /* OUT_TABLE_H */
