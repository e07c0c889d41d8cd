/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * safename.c: the rule by which names reach a terminal. Every byte 0-255,
 * alone and after a lead byte, every bidirectional control and both
 * separators: what comes out is valid UTF-8 with no control character and
 * no bidirectional control, each escaped byte is \xNN, and what needs no
 * escape is left as it is. A cut result is NUL-terminated, never holds
 * half an escape, and says the length the whole would have.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "safename.h"

/* Whether out is inert: valid UTF-8, no control, no bidi control. */
static bool
inert(const char *out)
{
	return safename_inert(out);
}

/* s by the rule, compared with want. */
static void
expect(const char *s, const char *want)
{
	char out[256];
	size_t n;

	n = safename(out, sizeof(out), s);
	check_count++;
	if (n != strlen(want) || strcmp(out, want) != 0) {
		check_failures++;
		fprintf(stderr, "safename: got \"%s\" (%zu), expected \"%s\"\n",
		    out, n, want);
	}
	CHECK(inert(out));
}

/* Each byte alone: ASCII printables as they are, the rest \xNN. */
static void
test_every_byte(void)
{
	char in[2], out[16], want[8];
	int c;

	for (c = 1; c < 256; c++) {
		in[0] = (char)c;
		in[1] = '\0';
		if (c >= 0x20 && c < 0x7f)
			snprintf(want, sizeof(want), "%c", c);
		else
			snprintf(want, sizeof(want), "\\x%02x", c);
		(void)safename(out, sizeof(out), in);
		CHECK(strcmp(out, want) == 0);
		CHECK(inert(out));
		CHECK(safename_inert(in) == (c >= 0x20 && c < 0x7f));
	}
}

/*
 * Each byte after each lead byte of two-byte sequences: U+0080-U+009F
 * (C1) and U+061C escaped, the rest of U+0080-U+07FF as they are, and a
 * lead byte before a byte that is no continuation escaped on its own.
 */
static void
test_after_lead(void)
{
	char in[3], out[32];
	unsigned lead, c;
	bool c1, cont;

	for (lead = 0xc2; lead <= 0xdf; lead++) {
		for (c = 1; c < 256; c++) {
			in[0] = (char)lead;
			in[1] = (char)c;
			in[2] = '\0';
			(void)safename(out, sizeof(out), in);
			CHECK(inert(out));
			cont = (c & 0xc0) == 0x80;
			/* C1, and U+061C, the Arabic letter mark. */
			c1 = cont &&
			    ((lead == 0xc2 && c < 0xa0) ||
				(lead == 0xd8 && c == 0x9c));
			if (cont && !c1)
				CHECK(strcmp(out, in) == 0);
			else if (cont)
				CHECK(out[0] == '\\' && strlen(out) == 8);
			else
				CHECK(strncmp(out, "\\x", 2) == 0);
		}
	}
}

/* The bidirectional controls and the separators: escaped, each byte. */
static void
test_bidi(void)
{
	static const char *const bidi[] = {
		"\xd8\x9c",	/* U+061C ALM */
		"\xe2\x80\x8e", /* U+200E LRM */
		"\xe2\x80\x8f", /* U+200F RLM */
		"\xe2\x80\xa8", /* U+2028 LINE SEPARATOR */
		"\xe2\x80\xa9", /* U+2029 PARAGRAPH SEPARATOR */
		"\xe2\x80\xaa", /* U+202A LRE */
		"\xe2\x80\xab", /* U+202B RLE */
		"\xe2\x80\xac", /* U+202C PDF */
		"\xe2\x80\xad", /* U+202D LRO */
		"\xe2\x80\xae", /* U+202E RLO */
		"\xe2\x81\xa6", /* U+2066 LRI */
		"\xe2\x81\xa7", /* U+2067 RLI */
		"\xe2\x81\xa8", /* U+2068 FSI */
		"\xe2\x81\xa9", /* U+2069 PDI */
	};
	char want[32], out[32];
	const unsigned char *p;
	size_t i, at;

	for (i = 0; i < sizeof(bidi) / sizeof(bidi[0]); i++) {
		at = 0;
		for (p = (const unsigned char *)bidi[i]; *p != '\0'; p++)
			at += (size_t)snprintf(
			    want + at, sizeof(want) - at, "\\x%02x", *p);
		(void)safename(out, sizeof(out), bidi[i]);
		CHECK(strcmp(out, want) == 0);
		CHECK(!safename_inert(bidi[i]));
	}
	/* Their neighbours are characters like others. */
	expect("\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa",
	    "\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");
}

/* Names as they come, and the ill-formed sequences of RFC 3629. */
static void
test_names(void)
{
	expect("", "");
	expect("nginx: worker", "nginx: worker");
	expect("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x90\xa7",
	    "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x90\xa7");
	expect("system-getty.slice/dev-disk-by\\x2duuid",
	    "system-getty.slice/dev-disk-by\\x2duuid");
	expect("evil\x1b[2J\x07", "evil\\x1b[2J\\x07");
	expect("\xc2\x9b"
	       "31m",
	    "\\xc2\\x9b"
	    "31m");
	expect("a\tb\nc\r", "a\\x09b\\x0ac\\x0d");
	expect("\xc0\xaf", "\\xc0\\xaf");
	expect("\xed\xa0\x80", "\\xed\\xa0\\x80");
	expect("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	expect("\xe2\x82", "\\xe2\\x82");
	expect("\xff\xe2\x82\xac", "\\xff\xe2\x82\xac");
}

/* A result cut short: whole characters and escapes, and the full length. */
static void
test_cut(void)
{
	char out[8];

	CHECK(safename(out, sizeof(out), "abcdefghij") == 10);
	CHECK(strcmp(out, "abcdefg") == 0);
	CHECK(safename(out, sizeof(out), "ab\x1b\x1b") == 10);
	CHECK(strcmp(out, "ab\\x1b") == 0);
	CHECK(safename(out, sizeof(out), "abcde\xc3\xa9") == 7);
	CHECK(strcmp(out, "abcde\xc3\xa9") == 0);
	CHECK(safename(out, sizeof(out), "abcdef\xc3\xa9") == 8);
	CHECK(strcmp(out, "abcdef") == 0);
	CHECK(safename(out, 1, "abc") == 3 && out[0] == '\0');
	CHECK(safename(NULL, 0, "\x01") == 4);
}

/* safename_fputs writes what safename makes. */
static void
test_fputs(void)
{
	char buf[64], want[64];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (f == NULL) {
		CHECK(!"fmemopen");
		return;
	}
	safename_fputs("x\x1b\xe2\x80\xaey\xff", f);
	fclose(f);
	(void)safename(want, sizeof(want), "x\x1b\xe2\x80\xaey\xff");
	CHECK(strcmp(buf, want) == 0);
}

int
main(void)
{
	test_every_byte();
	test_after_lead();
	test_bidi();
	test_names();
	test_cut();
	test_fputs();
	return check_report("test_safename");
}
