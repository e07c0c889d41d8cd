/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --format's words as a command lists them, in its usage and its errors:
 * the formats of rows (formats.def), then those its sinks render.
 */
#ifndef FORMAT_WORDS_H
#define FORMAT_WORDS_H

#include <stddef.h>

#include "output.h"

/*
 * The words --format takes in tool, into buf (size bytes, cut short
 * where it is too small), sep between them but last before the last:
 * buf.
 */
char *format_words(enum out_tool tool, char *buf, size_t size, const char *sep,
    const char *last);
/* The same of the formats that write -r's summary of the runs. */
char *format_summary_words(
    char *buf, size_t size, const char *sep, const char *last);

#endif /* FORMAT_WORDS_H */
