/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A growable byte buffer that a record is rendered into, and the text
 * escapes the formats share: every string they carry is valid UTF-8,
 * whatever bytes it came from, and every name is inert (safename.h).
 */
#ifndef OUT_BUF_H
#define OUT_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct out_buf {
	char *data;
	size_t len;
	size_t cap;
	bool failed; /* an allocation failed: the record is lost */
};

void out_buf_reset(struct out_buf *b);
/* Write b whole to fd: 0, or an errno (ENOMEM when b lost a record). */
int out_buf_write(const struct out_buf *b, int fd);
void out_buf_free(struct out_buf *b);
void out_buf_add(struct out_buf *b, const void *p, size_t n);
void out_buf_str(struct out_buf *b, const char *s);
void out_buf_printf(struct out_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * s as valid UTF-8: each byte that does not begin a well-formed sequence
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF)
 * becomes U+FFFD. The result is NUL-terminated in b.
 */
void out_buf_utf8(struct out_buf *b, const char *s);

/* s by the rule of safename.h: what a terminal may be shown. */
void out_buf_safe(struct out_buf *b, const char *s);

/*
 * s by the rule of safename.h, as one RFC 4180 field: quoted when it
 * holds a comma or a quote (a line end is escaped).
 */
void out_buf_csv(struct out_buf *b, const char *s);
/* The same, quoted when it holds sep too. */
void out_buf_csv_sep(struct out_buf *b, const char *s, char sep);

/*
 * s by the rule of safename.h, as an OpenMetrics label value, without
 * the quotes: the backslash of an escape is escaped too, so that the
 * value read back holds the escape's text.
 */
void out_buf_label(struct out_buf *b, const char *s);

/*
 * The JSON text from b's offset from on, with each character that
 * safename.h would escape and JSON leaves raw (DEL, C1, the
 * bidirectional controls, U+2028, U+2029) written as \uXXXX.
 */
void out_buf_json_inert(struct out_buf *b, size_t from);

#endif /* OUT_BUF_H */
