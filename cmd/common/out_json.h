/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON Lines, made by jansson: a head object, then an object a row.
 */
#ifndef OUT_JSON_H
#define OUT_JSON_H

#include "out_buf.h"
#include "out_run.h"

void out_json_head(const struct out_run *run, struct out_buf *b);
void out_json_row(const struct out_run *run, struct out_buf *b,
    const struct out_row *row, hrtime_t t);

#endif /* OUT_JSON_H */
