/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PAPI's preset tables as libcpc holds them (cpclib_papi_presets, made at
 * build time by libcpc/papi_presets.awk) are exactly the data file
 * libcpc/papi_presets.tsv: every line, in order, each field the same, and
 * nothing more. The data file names where its facts come from and which
 * PAPI version they follow.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "../../libcpc/evname.h"

#ifndef PAPI_PRESETS_TSV
#error "PAPI_PRESETS_TSV must name libcpc/papi_presets.tsv"
#endif

/* A "# key: value" comment of the data file's header. */
static bool
header_value(const char *line, const char *key, char *value, size_t len)
{
	size_t klen = strlen(key);

	if (strncmp(line, "# ", 2) != 0 || strncmp(line + 2, key, klen) != 0 ||
	    line[2 + klen] != ':')
		return false;
	line += 2 + klen + 1;
	while (*line == ' ')
		line++;
	snprintf(value, len, "%s", line);
	value[strcspn(value, "\n")] = '\0';
	return true;
}

/* A 40-digit hexadecimal git commit id somewhere in s. */
static bool
has_commit_id(const char *s)
{
	size_t run = 0;

	for (; *s != '\0'; s++) {
		run = isxdigit((unsigned char)*s) ? run + 1 : 0;
		if (run == 40 && !isxdigit((unsigned char)s[1]))
			return true;
	}
	return false;
}

static void
compare_entry(size_t i, const char *field[3], const char *where)
{
	const struct papi_preset *p = &cpclib_papi_presets[i];

	if (strcmp(p->preset, field[0]) != 0 ||
	    strcmp(p->pmus, field[1]) != 0 || strcmp(p->expr, field[2]) != 0) {
		check_failures++;
		fprintf(stderr,
		    "%s: the table's entry %zu is\n"
		    "  %s | %s | %s\nnot the data's\n  %s | %s | %s\n",
		    where, i, p->preset, p->pmus, p->expr, field[0], field[1],
		    field[2]);
	}
	check_count++;
}

int
main(void)
{
	char line[4096], where[64], source[512] = "", version[512] = "";
	const char *field[3];
	size_t n = 0, lineno = 0;
	FILE *f;

	f = fopen(PAPI_PRESETS_TSV, "r");
	if (f == NULL) {
		perror(PAPI_PRESETS_TSV);
		return 1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		snprintf(where, sizeof(where), "papi_presets.tsv:%zu", lineno);
		CHECK(strchr(line, '\n') != NULL);
		if (line[0] == '#') {
			header_value(line, "source", source, sizeof(source));
			header_value(line, "version", version, sizeof(version));
			continue;
		}
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0')
			continue;
		field[0] = strtok(line, "\t");
		field[1] = strtok(NULL, "\t");
		field[2] = strtok(NULL, "\t");
		if (field[2] == NULL || strtok(NULL, "\t") != NULL) {
			check_failures++;
			fprintf(stderr, "%s: not three fields\n", where);
			continue;
		}
		if (n < cpclib_npapi_presets)
			compare_entry(n, field, where);
		n++;
	}
	fclose(f);

	/* As many entries as data lines: none dropped, none added. */
	CHECK_EQ_U64(cpclib_npapi_presets, n);
	CHECK(n > 900);

	/* The source and the PAPI version, pinned to a commit. */
	CHECK(strstr(source, "papi_events.csv") != NULL);
	CHECK(strncmp(version, "PAPI ", 5) == 0);
	CHECK(has_commit_id(version));
	printf("%zu presets; source: %s; version: %s\n", n, source, version);
	return check_report("test_papi_table");
}
