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
#include "safename.h"

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

/*
 * Each byte of the n at p as \xNN (safename.h), its backslash escaped
 * too where backslashes are (a label value's).
 */
static void
escape_bytes(struct out_buf *b, const char *p, size_t n, bool backslashed)
{
	size_t i;

	for (i = 0; i < n; i++)
		out_buf_printf(b, "%s%02x", backslashed ? "\\\\x" : "\\x",
		    (unsigned char)p[i]);
}

/*
 * Copy s: as valid UTF-8, each bad byte U+FFFD (raw), or by the rule of
 * safename.h (!raw), with the escape for the ASCII characters in special:
 * a backslash before them, or a quote before a quote (csv).
 */
static void
copy_text(
    struct out_buf *b, const char *s, bool raw, const char *special, bool csv)
{
	size_t n;
	uint32_t cp;
	bool shown;

	for (; *s != '\0'; s += n) {
		n = safename_char(s, &cp, &shown);
		if (cp == SAFENAME_BAD && raw)
			out_buf_add(b, REPLACEMENT, 3);
		else if (!shown && !raw)
			escape_bytes(b, s, n, strchr(special, '\\') != NULL);
		else if (n == 1 && strchr(special, *s) != NULL) {
			out_buf_add(b, csv ? "\"" : "\\", 1);
			out_buf_add(b, s, 1);
		} else
			out_buf_add(b, s, n);
	}
}

void
out_buf_utf8(struct out_buf *b, const char *s)
{
	out_buf_add(b, "", 0);
	copy_text(b, s, true, "", true);
}

void
out_buf_safe(struct out_buf *b, const char *s)
{
	out_buf_add(b, "", 0);
	copy_text(b, s, false, "", false);
}

void
out_buf_csv(struct out_buf *b, const char *s)
{
	out_buf_csv_sep(b, s, ',');
}

void
out_buf_csv_sep(struct out_buf *b, const char *s, char sep)
{
	/* Line ends are escaped: only a separator or a quote needs quotes. */
	if (strchr(s, '"') == NULL && strchr(s, sep) == NULL) {
		copy_text(b, s, false, "", true);
		return;
	}
	out_buf_add(b, "\"", 1);
	copy_text(b, s, false, "\"", true);
	out_buf_add(b, "\"", 1);
}

void
out_buf_label(struct out_buf *b, const char *s)
{
	copy_text(b, s, false, "\\\"", false);
}

/* Whether the text at s holds a character that JSON leaves raw and a terminal
 * acts on. */
static bool
json_has_raw(const char *s)
{
	uint32_t cp;
	bool shown;

	while (*s != '\0') {
		s += safename_char(s, &cp, &shown);
		if (!shown && cp != SAFENAME_BAD)
			return true;
	}
	return false;
}

void
out_buf_json_inert(struct out_buf *b, size_t from)
{
	struct out_buf raw = { 0 };
	const char *s;
	uint32_t cp;
	size_t n;
	bool shown;

	if (b->failed || b->data == NULL || from >= b->len ||
	    !json_has_raw(b->data + from))
		return;
	out_buf_add(&raw, b->data + from, b->len - from);
	if (raw.failed) {
		b->failed = true;
		return;
	}
	b->len = from;
	/* Such a character is never structural: it is in a string. */
	for (s = raw.data; *s != '\0'; s += n) {
		n = safename_char(s, &cp, &shown);
		if (!shown && cp != SAFENAME_BAD)
			out_buf_printf(b, "\\u%04x", (unsigned)cp);
		else
			out_buf_add(b, s, n);
	}
	out_buf_free(&raw);
}
