/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * out_buf.c: the record buffer and the escapes every machine format
 * relies on. Whatever bytes a process name or an argument holds, a CSV
 * field, a JSON string or an OpenMetrics label made of it is valid UTF-8
 * (RFC 3629: each byte that does not begin a well-formed sequence is
 * U+FFFD in JSON, \xNN elsewhere), a CSV field is one RFC 4180 field, a
 * label value keeps its quotes and backslashes escaped, and no control
 * character or bidirectional control is left raw (safename.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "out_buf.h"

#define FFFD "\xef\xbf\xbd"

/* What fn makes of s, compared with want; said in full when they differ. */
static void
expect(void (*fn)(struct out_buf *, const char *), const char *fname,
    const char *s, const char *want)
{
	struct out_buf b = { 0 };

	fn(&b, s);
	check_count++;
	/* Nothing to add may leave an empty buffer unallocated. */
	if (b.data == NULL && *want == '\0' && !b.failed)
		return;
	if (b.failed || b.data == NULL || b.len != strlen(want) ||
	    memcmp(b.data, want, b.len) != 0 || b.data[b.len] != '\0') {
		check_failures++;
		fprintf(stderr,
		    "%s(\"%s\"): got \"%.*s\" (%zu bytes), "
		    "expected \"%s\"\n",
		    fname, s, (int)b.len, b.data != NULL ? b.data : "", b.len,
		    want);
	}
	out_buf_free(&b);
}

#define UTF8(s, want)  expect(out_buf_utf8, "out_buf_utf8", s, want)
#define CSV(s, want)   expect(out_buf_csv, "out_buf_csv", s, want)
#define LABEL(s, want) expect(out_buf_label, "out_buf_label", s, want)
#define SAFE(s, want)  expect(out_buf_safe, "out_buf_safe", s, want)

/* Well-formed text of every length of sequence passes unchanged. */
static void
test_utf8_well_formed(void)
{
	UTF8("", "");
	UTF8("plain ascii ~", "plain ascii ~");
	UTF8("caf\xc3\xa9", "caf\xc3\xa9");	      /* U+00E9 */
	UTF8("\xc2\x80", "\xc2\x80");		      /* U+0080 */
	UTF8("\xdf\xbf", "\xdf\xbf");		      /* U+07FF */
	UTF8("\xe0\xa0\x80", "\xe0\xa0\x80");	      /* U+0800 */
	UTF8("\xe2\x82\xac", "\xe2\x82\xac");	      /* U+20AC */
	UTF8("\xed\x9f\xbf", "\xed\x9f\xbf");	      /* U+D7FF */
	UTF8("\xee\x80\x80", "\xee\x80\x80");	      /* U+E000 */
	UTF8("\xef\xbf\xbf", "\xef\xbf\xbf");	      /* U+FFFF */
	UTF8("\xf0\x90\x80\x80", "\xf0\x90\x80\x80"); /* U+10000 */
	UTF8("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"); /* U+10FFFF */
	/* Not a format's business: line ends and quotes stay as they are. */
	UTF8("a\"b\nc\\", "a\"b\nc\\");
}

/*
 * RFC 3629's exclusions, each byte that begins no well-formed sequence
 * replaced on its own, and what follows it read afresh.
 */
static void
test_utf8_ill_formed(void)
{
	UTF8("\x80", FFFD); /* a lone continuation */
	UTF8("a\xbf"
	     "b",
	    "a" FFFD "b");
	UTF8("\xc0\xaf", FFFD FFFD);		       /* overlong '/' */
	UTF8("\xc1\xbf", FFFD FFFD);		       /* overlong U+007F */
	UTF8("\xe0\x80\xaf", FFFD FFFD FFFD);	       /* overlong, 3 bytes */
	UTF8("\xe0\x9f\xbf", FFFD FFFD FFFD);	       /* U+07FF in 3 bytes */
	UTF8("\xf0\x8f\xbf\xbf", FFFD FFFD FFFD FFFD); /* U+FFFF in 4 */
	UTF8("\xed\xa0\x80", FFFD FFFD FFFD);	       /* surrogate U+D800 */
	UTF8("\xed\xbf\xbf", FFFD FFFD FFFD);	       /* surrogate U+DFFF */
	UTF8("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD); /* U+110000 */
	UTF8("\xf5\x80\x80\x80", FFFD FFFD FFFD FFFD); /* no such lead */
	UTF8("\xfe\xff", FFFD FFFD);
	/* Cut short, by the string's end or by another character. */
	UTF8("\xe2\x82", FFFD FFFD);
	UTF8("\xe2\x82z", FFFD FFFD "z");
	UTF8("\xf0\x90\x80", FFFD FFFD FFFD);
	UTF8("\xc3"
	     "\xc3\xa9",
	    FFFD "\xc3\xa9");
	/* A well-formed sequence right after a bad byte is kept. */
	UTF8("\xff\xe2\x82\xac", FFFD "\xe2\x82\xac");
}

/* RFC 4180: quoted only when needed, a quote doubled inside the quotes. */
static void
test_csv_fields(void)
{
	CSV("", "");
	CSV("plain", "plain");
	CSV("with space", "with space");
	CSV("a,b", "\"a,b\"");
	CSV("say \"hi\"", "\"say \"\"hi\"\"\"");
	CSV("\"", "\"\"\"\"");
	/* Line ends and other controls escaped: one line, no quotes. */
	CSV("two\nlines", "two\\x0alines");
	CSV("cr\rhere", "cr\\x0dhere");
	CSV("tab\there", "tab\\x09here");
	/* Bad bytes are escaped, in quoted fields too. */
	CSV("x\xff", "x\\xff");
	CSV("x\xff,y", "\"x\\xff,y\"");
	CSV("caf\xc3\xa9,\"", "\"caf\xc3\xa9,\"\"\"");
	/* A right-to-left override, and CSI as C1. */
	CSV("a\xe2\x80\xae"
	    "b",
	    "a\\xe2\\x80\\xae"
	    "b");
	CSV("\xc2\x9b"
	    "2J",
	    "\\xc2\\x9b"
	    "2J");
}

/* OpenMetrics label values: backslash, quote and line feed escaped. */
static void
test_label_values(void)
{
	LABEL("", "");
	LABEL("comm", "comm");
	LABEL("a\"b", "a\\\"b");
	LABEL("back\\slash", "back\\\\slash");
	/* Controls and bad bytes as \xNN, its backslash escaped. */
	LABEL("two\nlines", "two\\\\x0alines");
	LABEL("\\\"\n", "\\\\\\\"\\\\x0a");
	LABEL("a,b=c{}", "a,b=c{}");
	LABEL("caf\xc3\xa9", "caf\xc3\xa9");
	LABEL("\xc0\"", "\\\\xc0\\\"");
	LABEL("\x1b[31m", "\\\\x1b[31m");
}

/* The rule of safename.h: names a terminal may be shown. */
static void
test_safe_text(void)
{
	SAFE("", "");
	SAFE("caf\xc3\xa9 \xe2\x82\xac ~", "caf\xc3\xa9 \xe2\x82\xac ~");
	SAFE("dev-disk-by\\x2duuid", "dev-disk-by\\x2duuid");
	SAFE("\x1b]0;x\x07", "\\x1b]0;x\\x07");
	SAFE("\x7f\xc2\x80\xc2\x9f\xc2\xa0",
	    "\\x7f\\xc2\\x80\\xc2\\x9f\xc2\xa0");
	SAFE("\xd8\x9c\xe2\x80\x8e\xe2\x80\x8f",
	    "\\xd8\\x9c\\xe2\\x80\\x8e\\xe2\\x80\\x8f");
	SAFE("\xe2\x81\xa6x\xe2\x81\xa9", "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");
	SAFE("\xe2\x80\xa8\xe2\x80\xa9", "\\xe2\\x80\\xa8\\xe2\\x80\\xa9");
	SAFE("\xed\xa0\x80", "\\xed\\xa0\\x80");
	SAFE("\xe2\x82", "\\xe2\\x82");
}

/* What out_buf_json_inert makes of JSON text s, from its start. */
static void
json_inert(struct out_buf *b, const char *s)
{
	out_buf_str(b, s);
	out_buf_json_inert(b, 0);
}

/* JSON: what jansson leaves raw, as \uXXXX; the rest untouched. */
static void
test_json_inert(void)
{
	struct out_buf b = { 0 };

	expect(json_inert, "json_inert", "{\"a\":\"caf\xc3\xa9\"}",
	    "{\"a\":\"caf\xc3\xa9\"}");
	expect(json_inert, "json_inert", "[\"\x7f\xc2\x9b\xe2\x80\xae\"]",
	    "[\"\\u007f\\u009b\\u202e\"]");
	expect(json_inert, "json_inert", "\"\xe2\x81\xa9\xd8\x9c\"",
	    "\"\\u2069\\u061c\"");
	/* Only from the offset on. */
	out_buf_str(&b, "\x7f|");
	out_buf_str(&b, "\"\x7f\"");
	out_buf_json_inert(&b, 2);
	CHECK(b.data != NULL && strcmp(b.data, "\x7f|\"\\u007f\"") == 0);
	out_buf_free(&b);
}

/* The buffer grows as needed, keeps what it holds, and stays terminated. */
static void
test_growth(void)
{
	struct out_buf b = { 0 };
	char want[5000], *p = want;
	int i;

	for (i = 0; i < 1000; i++) {
		out_buf_printf(&b, "%d,", i);
		p += sprintf(p, "%d,", i);
	}
	CHECK(!b.failed);
	CHECK_EQ_U64(b.len, strlen(want));
	CHECK(b.data != NULL && strcmp(b.data, want) == 0);
	CHECK(b.cap > b.len);
	/* A reset keeps the memory and starts again, printf first. */
	out_buf_reset(&b);
	CHECK(b.len == 0 && !b.failed);
	out_buf_printf(&b, "%s-%llu", "x", 18446744073709551615ULL);
	CHECK(strcmp(b.data, "x-18446744073709551615") == 0);
	/* Exactly at the room left: 255 bytes and the NUL in 256. */
	out_buf_free(&b);
	memset(want, 'y', 255);
	want[255] = '\0';
	out_buf_str(&b, "");
	CHECK(b.cap == 256);
	out_buf_printf(&b, "%s", want);
	CHECK(b.len == 255 && b.cap == 256 && strcmp(b.data, want) == 0);
	out_buf_add(&b, "z", 1);
	CHECK(b.len == 256 && b.cap == 512 && b.data[254] == 'y' &&
	    b.data[255] == 'z' && b.data[256] == '\0');
	/* Binary bytes, NULs included, are added as they are. */
	out_buf_reset(&b);
	out_buf_add(&b, "a\0b", 3);
	CHECK(b.len == 3 && memcmp(b.data, "a\0b", 4) == 0);
	out_buf_free(&b);
	CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
}

/* What a buffer writes to fd is what it holds; a lost record is ENOMEM. */
static void
test_write(void)
{
	char path[] = "/tmp/test_out_buf.XXXXXX", back[200000];
	struct out_buf b = { 0 };
	ssize_t n, got = 0;
	int fd, i;

	for (i = 0; i < 20000; i++)
		out_buf_printf(&b, "%05d\n", i);
	CHECK(b.len == 120000);
	if ((fd = mkstemp(path)) < 0) {
		CHECK(!"mkstemp");
		return;
	}
	unlink(path);
	CHECK(out_buf_write(&b, fd) == 0);
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, back + got, sizeof(back) - (size_t)got)) > 0)
		got += n;
	CHECK(got == 120000 && memcmp(back, b.data, 120000) == 0);
	b.failed = true;
	CHECK(out_buf_write(&b, fd) == ENOMEM);
	CHECK(lseek(fd, 0, SEEK_END) == 120000);
	close(fd);
	/* A descriptor that cannot be written: its errno. */
	b.failed = false;
	CHECK(out_buf_write(&b, fd) == EBADF);
	out_buf_free(&b);
}

/* An allocation that fails marks the record lost, and nothing after it. */
static void
test_failed_allocation(void)
{
	struct out_buf b = { 0 };

	out_buf_str(&b, "kept");
	/* More than any allocator gives: realloc fails, the record is lost. */
	out_buf_add(&b, "", SIZE_MAX / 2);
	CHECK(b.failed);
	out_buf_str(&b, "more");
	CHECK(b.failed && b.len == 4 && strcmp(b.data, "kept") == 0);
	out_buf_reset(&b);
	CHECK(!b.failed);
	out_buf_str(&b, "again");
	CHECK(!b.failed && strcmp(b.data, "again") == 0);
	out_buf_free(&b);
}

int
main(void)
{
	test_utf8_well_formed();
	test_utf8_ill_formed();
	test_csv_fields();
	test_label_values();
	test_safe_text();
	test_json_inert();
	test_growth();
	test_write();
	test_failed_allocation();
	return check_report("test_out_buf");
}
