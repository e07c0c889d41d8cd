/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Record buffers and text escapes (see out_buf.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out_buf.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD in UTF-8 */

void
out_buf_reset(struct out_buf *b)
{
	b->len = 0;
	b->failed = false;
}

int
out_buf_write(const struct out_buf *b, int fd)
{
	size_t done = 0;
	ssize_t w;

	if (b->failed)
		return ENOMEM;
	while (done < b->len) {
		w = write(fd, b->data + done, b->len - done);
		if (w < 0 && errno != EINTR)
			return errno;
		if (w > 0)
			done += (size_t)w;
	}
	return 0;
}

void
out_buf_free(struct out_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

static bool
reserve(struct out_buf *b, size_t n)
{
	size_t cap;
	char *grown;

	if (b->failed)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	/* No record is that long; doubling up to it would wrap around. */
	if (n >= SIZE_MAX / 4 - b->len) {
		b->failed = true;
		return false;
	}
	for (cap = b->cap ? b->cap : 256; cap < b->len + n + 1; cap *= 2)
		;
	if ((grown = realloc(b->data, cap)) == NULL) {
		b->failed = true;
		return false;
	}
	b->data = grown;
	b->cap = cap;
	return true;
}

void
out_buf_add(struct out_buf *b, const void *p, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
out_buf_str(struct out_buf *b, const char *s)
{
	out_buf_add(b, s, strlen(s));
}

void
out_buf_printf(struct out_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->data != NULL ? b->data + b->len : NULL,
	    b->data != NULL ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if (b->data != NULL && b->len + (size_t)n < b->cap) {
		b->len += (size_t)n;
		return;
	}
	if (!reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	(void)vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* The length of the well-formed UTF-8 sequence at s, or 0. */
static size_t
utf8_length(const unsigned char *s)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return n;
}

/*
 * Copy s as valid UTF-8, with the escape for the ASCII characters in
 * special: a backslash before them, or a quote before a quote (CSV).
 */
static void
copy_utf8(struct out_buf *b, const char *s, const char *special, bool csv)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; *p != '\0'; p += n) {
		if ((n = utf8_length(p)) == 0) {
			out_buf_add(b, REPLACEMENT, 3);
			n = 1;
		} else if (n == 1 && *p == '\n' && !csv) {
			out_buf_add(b, "\\n", 2);
		} else if (n == 1 && strchr(special, *p) != NULL) {
			out_buf_add(b, csv ? "\"" : "\\", 1);
			out_buf_add(b, p, 1);
		} else {
			out_buf_add(b, p, n);
		}
	}
}

void
out_buf_utf8(struct out_buf *b, const char *s)
{
	out_buf_add(b, "", 0);
	copy_utf8(b, s, "", true);
}

void
out_buf_csv(struct out_buf *b, const char *s)
{
	out_buf_csv_sep(b, s, ',');
}

void
out_buf_csv_sep(struct out_buf *b, const char *s, char sep)
{
	if (strpbrk(s, ",\"\r\n") == NULL && strchr(s, sep) == NULL) {
		copy_utf8(b, s, "", true);
		return;
	}
	out_buf_add(b, "\"", 1);
	copy_utf8(b, s, "\"", true);
	out_buf_add(b, "\"", 1);
}

void
out_buf_label(struct out_buf *b, const char *s)
{
	copy_utf8(b, s, "\\\"", false);
}
