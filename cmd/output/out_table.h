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

#endif /* OUT_TABLE_H */
