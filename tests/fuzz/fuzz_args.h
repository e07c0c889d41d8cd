/*
 * Shared by the command-line fuzz targets, which compile a command's own
 * source (cmd/cputrack.c, cmd/cpustat.c) into the target with its main()
 * renamed and exit() turned into a longjmp back here: what is fuzzed is
 * the production option parsing, its exits included, and nothing else
 * starts (no process, no counters).
 *
 * Input: the arguments after argv[0], one per line (at most MAX_ARGS).
 */
#ifndef FUZZ_ARGS_H
#define FUZZ_ARGS_H

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc.h"
#include "spec.h"

#define MAX_ARGS	64

static jmp_buf fuzz_exit_jmp;
static int fuzz_exit_status;

static void __attribute__((noreturn))
fuzz_exit(int status)
{
	fuzz_exit_status = status;
	fflush(stdout);
	longjmp(fuzz_exit_jmp, 1);
}

/*
 * -o FILE: no file is created. Paths that start "/nonexistent/" fail as
 * a missing directory would; the others write to /dev/null.
 */
static FILE * __attribute__((unused))
fuzz_fopen(const char *path, const char *mode)
{
	if (strncmp(path, "/nonexistent/", 13) == 0) {
		errno = ENOENT;
		return NULL;
	}
	return fopen("/dev/null", mode);
}

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
		fprintf(stderr, "fuzz %s: cpc_open: %s\n", prog,
		    strerror(errno));
		exit(1);
	}
	(void)cpc_seterrhndlr(cpc, handler);
	return cpc;
}

struct fuzz_argv {
	char	*buf;
	char	*argv[MAX_ARGS + 2];
	int	 argc;
};

static int
fuzz_split(struct fuzz_argv *a, const char *argv0, const uint8_t *data,
    size_t size)
{
	char *p, *line;

	if ((a->buf = malloc(size + 1)) == NULL)
		return -1;
	memcpy(a->buf, data, size);
	a->buf[size] = '\0';
	a->argc = 0;
	a->argv[a->argc++] = (char *)argv0;
	for (p = a->buf; a->argc <= MAX_ARGS &&
	    (line = strsep(&p, "\n")) != NULL;) {
		if (p == NULL && line[0] == '\0')
			break;		/* the newline that ends the file */
		a->argv[a->argc++] = line;
	}
	a->argv[a->argc] = NULL;
	return 0;
}

#endif /* FUZZ_ARGS_H */
