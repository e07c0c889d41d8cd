/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one rule by which names reach a terminal (see safename.h).
 */
#include <string.h>

#include "safename.h"

#define ESCAPE_LEN 4 /* \xNN */

/* The length of the well-formed UTF-8 sequence at s, or 0; its code point. */
static size_t
utf8_sequence(const unsigned char *s, uint32_t *cp)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
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
	/* A NUL ends the string: it is no continuation byte. */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

/* Whether a terminal shows code point c as a character, in its place. */
static bool
shown_as_is(uint32_t c)
{
	if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
		return false; /* C0, DEL, C1 */
	if (c == 0x061c || c == 0x200e || c == 0x200f)
		return false; /* the bidirectional marks */
	if (c >= 0x2028 && c <= 0x202e)
		return false; /* separators, embeddings and overrides */
	if (c >= 0x2066 && c <= 0x2069)
		return false; /* isolates */
	return true;
}

size_t
safename_char(const char *s, uint32_t *cp, bool *shown)
{
	size_t n = utf8_sequence((const unsigned char *)s, cp);

	if (n == 0) {
		*cp = SAFENAME_BAD;
		*shown = false;
		return 1;
	}
	*shown = shown_as_is(*cp);
	return n;
}

bool
safename_inert(const char *s)
{
	uint32_t cp;
	bool shown;

	while (*s != '\0') {
		s += safename_char(s, &cp, &shown);
		if (!shown)
			return false;
	}
	return true;
}

/* The escape of byte c: \xNN, without a NUL. */
static void
escape_byte(unsigned char c, char out[ESCAPE_LEN])
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 0xf];
}

/* Append n bytes of p to out at *at, unless they, or anything before, did not
 * fit. */
static void
put(char *out, size_t size, size_t *at, bool *full, const char *p, size_t n)
{
	if (*full || *at + n >= size) {
		*full = true;
		return;
	}
	memcpy(out + *at, p, n);
	*at += n;
}

size_t
safename(char *out, size_t size, const char *s)
{
	char esc[ESCAPE_LEN];
	size_t n, i, at = 0, len = 0;
	bool shown, full = false;
	uint32_t cp;

	for (; *s != '\0'; s += n) {
		n = safename_char(s, &cp, &shown);
		if (shown) {
			put(out, size, &at, &full, s, n);
			len += n;
			continue;
		}
		for (i = 0; i < n; i++) {
			escape_byte((unsigned char)s[i], esc);
			put(out, size, &at, &full, esc, ESCAPE_LEN);
			len += ESCAPE_LEN;
		}
	}
	if (size > 0)
		out[at] = '\0';
	return len;
}

void
safename_fputs(const char *s, FILE *f)
{
	char esc[ESCAPE_LEN];
	size_t n, i;
	bool shown;
	uint32_t cp;

	for (; *s != '\0'; s += n) {
		n = safename_char(s, &cp, &shown);
		if (shown) {
			(void)fwrite(s, 1, n, f);
			continue;
		}
		for (i = 0; i < n; i++) {
			escape_byte((unsigned char)s[i], esc);
			(void)fwrite(esc, 1, ESCAPE_LEN, f);
		}
	}
}
