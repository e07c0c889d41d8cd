/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by the command-line fuzz targets, which link the commands' own
 * option parsing (cmd/cputrack/cputrack_opts.c, cmd/cpustat/cpustat_opts.c):
 * what is fuzzed is the production parser, which never exits (the commands'
 * main does), and nothing else starts (no process, no counters, no file).
 *
 * Input: the arguments after argv[0], one per line (at most MAX_ARGS).
 */
#ifndef FUZZ_ARGS_H
#define FUZZ_ARGS_H

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "libcpc.h"

#define MAX_ARGS 64

/*
 * The handle a target parses with, set up as the command's main() does:
 * messages under the command's name, numbers in the C locale.
 */
static cpc_t *
fuzz_cpc_open(const char *prog, cpc_errhndlr_t *handler)
{
	cpc_t *cpc;

	setlocale(LC_NUMERIC, "C");
	diag_init(prog);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		fprintf(
		    stderr, "fuzz %s: cpc_open: %s\n", prog, strerror(errno));
		exit(1);
	}
	(void)cpc_seterrhndlr(cpc, handler);
	return cpc;
}

struct fuzz_argv {
	char *buf;
	char *argv[MAX_ARGS + 2];
	int argc;
};

static int
fuzz_split(
    struct fuzz_argv *a, const char *argv0, const uint8_t *data, size_t size)
{
	char *p, *line;

	if ((a->buf = malloc(size + 1)) == NULL)
		return -1;
	memcpy(a->buf, data, size);
	a->buf[size] = '\0';
	a->argc = 0;
	a->argv[a->argc++] = (char *)argv0;
	for (p = a->buf;
	     a->argc <= MAX_ARGS && (line = strsep(&p, "\n")) != NULL;) {
		if (p == NULL && line[0] == '\0')
			break; /* the newline that ends the file */
		a->argv[a->argc++] = line;
	}
	a->argv[a->argc] = NULL;
	return 0;
}

#endif /* FUZZ_ARGS_H */
