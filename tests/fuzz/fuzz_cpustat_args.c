/*
 * libFuzzer target: cpustat's command line (parse_options and its
 * operands in cmd/cpustat.c, every -c through the spec parser, the CPU
 * list of --cpus), then apply_period. See fuzz_args.h.
 */
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_args.h"

#define main	cpustat_main
#define exit	fuzz_exit
#include "../../cmd/cpustat.c"
#undef main
#undef exit

static cpc_t *fuzz_cpc;
/* Static: their values must survive the longjmp of an exit. */
static struct cpustat cs;
static struct options opt;
static struct fuzz_argv args;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_cpc = fuzz_cpc_open("cpustat", cpustat_errhndlr);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_split(&args, "cpustat", data, size) != 0)
		return 0;
	memset(&cs, 0, sizeof(cs));
	cs.interval_ms = 5000;
	cs.rest_ms = -1;
	cs.cpc = fuzz_cpc;
	memset(&opt, 0, sizeof(opt));
	opt.format = OUT_TABLE;
	diag_set_debug(false);
	optind = 0;		/* glibc: start a new scan */
	if (setjmp(fuzz_exit_jmp) == 0) {
		parse_options(&cs, &opt, args.argc, args.argv);
		if (cs.grp.nspecs == 0 || cs.interval_ms == 0)
			abort();
		apply_period(&cs);
	} else if (fuzz_exit_status != 0 && fuzz_exit_status != 1 &&
	    fuzz_exit_status != 2) {
		abort();
	}
	setgrp_free(&cs.grp);
	free(args.buf);
	return 0;
}
