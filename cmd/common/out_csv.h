/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CSV: a header line, then the run's facts as "meta" rows, then a line a
 * row.
 */
#ifndef OUT_CSV_H
#define OUT_CSV_H

#include "out_buf.h"
#include "out_run.h"

void out_csv_head(const struct out_run *run, struct out_buf *b);
void out_csv_row(const struct out_run *run, struct out_buf *b,
    const struct out_row *row, hrtime_t t);
void out_csv_summary(const struct out_run *run, struct out_buf *b,
    const struct out_summary *sum);

#endif /* OUT_CSV_H */
