/*
 * libFuzzer target: cputrack's command line (parse_options in
 * cmd/cputrack.c, with every -c through the spec parser), then the
 * templates main() builds from the parsed specs. See fuzz_args.h.
 */
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fuzz_args.h"

#define main	cputrack_main
#define exit	fuzz_exit
#define fopen	fuzz_fopen
#include "../../cmd/cputrack.c"
#undef main
#undef exit
#undef fopen

static cpc_t *fuzz_cpc;
/* Static: their values must survive the longjmp of an exit. */
static struct cputrack ct;
static struct options opt;
static struct fuzz_argv args;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_cpc = fuzz_cpc_open("cputrack", diag_errhndlr);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int s;

	if (fuzz_split(&args, "cputrack", data, size) != 0)
		return 0;
	memset(&ct, 0, sizeof(ct));
	ct.interval_ms = 1000;
	ct.log_name = "stdout";
	ct.log = stdout;
	ct.cpc = fuzz_cpc;
	RB_INIT(&ct.procs);
	memset(&opt, 0, sizeof(opt));
	opt.format = OUT_TABLE;
	diag_set_debug(false);
	optind = 0;		/* glibc: start a new scan */
	if (setjmp(fuzz_exit_jmp) == 0) {
		parse_options(&ct, &opt, args.argc, args.argv);
		/* Parsed: a spec, and a command or a pid, not both. */
		if (ct.grp.nspecs == 0 || opt.bad ||
		    (optind < args.argc) == (opt.pid != 0))
			abort();
		if (make_templates(&ct) != 0)
			abort();
		for (s = 0; s < ct.grp.nspecs; s++)
			if (ct.templates[s] != NULL)
				(void)cpc_set_destroy(ct.cpc, ct.templates[s]);
		free(ct.templates);
	} else if (fuzz_exit_status != 0 && fuzz_exit_status != 1 &&
	    fuzz_exit_status != 2) {
		abort();
	}
	setgrp_free(&ct.grp);
	/* A failed -o leaves it NULL: cputrack exits then. */
	if (ct.log != NULL && ct.log != stdout)
		fclose(ct.log);
	free(args.buf);
	return 0;
}
