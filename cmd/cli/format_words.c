/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --format's words as a command lists them (see format_words.h): read
 * from the output's table and the sinks', never written out here.
 */
#include <stdio.h>

#include "format_words.h"
#include "sinks.h"

/* More than formats.def and the sinks will ever list. */
#define MAX_WORDS 32

/* What goes before word i of n: nothing, sep, or last before the last. */
static const char *
before(size_t i, size_t n, const char *sep, const char *last)
{
	if (i == 0)
		return "";
	return i + 1 == n ? last : sep;
}

static char *
join(const char **words, size_t n, char *buf, size_t size, const char *sep,
    const char *last)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    before(i, n, sep, last), words[i]);
	return buf;
}

/* The formats of rows, those that summarize alone if summary_only. */
static size_t
row_formats(const char **words, bool summary_only)
{
	const char *word;
	bool summarizes;
	size_t i, n = 0;

	for (i = 0; (word = output_format_word(i, &summarizes)) != NULL &&
	     n < MAX_WORDS;
	     i++)
		if (summarizes || !summary_only)
			words[n++] = word;
	return n;
}

char *
format_words(enum out_tool tool, char *buf, size_t size, const char *sep,
    const char *last)
{
	const char *words[MAX_WORDS];
	size_t n = row_formats(words, false);

	n = sinks_formats(tool, words, n, MAX_WORDS);
	return join(words, n, buf, size, sep, last);
}

char *
format_summary_words(char *buf, size_t size, const char *sep, const char *last)
{
	const char *words[MAX_WORDS];
	size_t n = row_formats(words, true);

	return join(words, n, buf, size, sep, last);
}
