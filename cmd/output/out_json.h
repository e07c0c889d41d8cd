/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON Lines, made by jansson: a head object, then an object a row. The
 * trace format (out_trace.c) builds its objects from the same pieces.
 */
#ifndef OUT_JSON_H
#define OUT_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "out_buf.h"
#include "out_run.h"

/* Building one object; ok turns false when anything could not be made. */
struct out_json_obj {
	json_t *json;
	bool ok;
};

/* Add key: value, the value's reference taken in every case. */
void out_json_put(struct out_json_obj *o, const char *key, json_t *value);
/* The same, with a key from outside made valid UTF-8 first. */
void out_json_put_clean(struct out_json_obj *o, const char *key, json_t *value);

/*
 * The object, compact, onto b (which fails when the object did), and
 * let go.
 */
void out_json_emit(struct out_json_obj *o, struct out_buf *b);

/* s, made valid UTF-8, as a JSON string; NULL when memory ran out. */
json_t *out_json_text(const char *s);
/* The head's "sets": each set's spec and events with their units. */
json_t *out_json_sets(const struct out_run *run);

/*
 * The head's "machine" (NULL: not known) and -M's
 * "metrics" list; a row's -M values into metrics, and its marks (a row
 * of -M's set: out_row_plan).
 */
json_t *out_json_machine(const struct out_run *run);
json_t *out_json_metric_list(const struct out_run *run);
void out_json_plan_values(const struct out_run *run,
    struct out_json_obj *metrics, struct out_json_obj *row,
    const struct out_row *r);

#endif /* OUT_JSON_H */
