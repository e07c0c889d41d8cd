/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The event names nearest a misspelled one, for the line that refuses it:
 * "task-clok" is most likely task-clock.
 */
#ifndef NEAREST_H
#define NEAREST_H

#include <stddef.h>

#include "libcpc.h"

/* How many names a hint gives at most. */
#define NEAREST_MAX 3

/*
 * The names this machine can count nearest to name (letters compared
 * without case), as "a, b, c" in buf: the closest first, up to
 * NEAREST_MAX, each within a few edits of name (a letter added, dropped,
 * changed, or two swapped). buf is empty when none is that near.
 */
void nearest_events(cpc_t *cpc, const char *name, char *buf, size_t len);

/* The edits between a and b, letters compared without case. */
int nearest_distance(const char *a, const char *b);

#endif /* NEAREST_H */
