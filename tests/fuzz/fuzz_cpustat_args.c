/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: cpustat's command line (cpustat_options: every -c
 * through the spec parser, the CPU list of --cpus, the operands and -p's
 * period). See fuzz_args.h.
 */
#include "fuzz_args.h"
#include "metric_plan.h"
#include "../../cmd/cpustat/cpustat.h"

static cpc_t *fuzz_cpc;
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
	struct cpustat cs = {
		.cpc = fuzz_cpc,
		.opt = { .interval_ms = 5000, .rest_ms = -1 },
	};
	int status;

	if (fuzz_split(&args, "cpustat", data, size) != 0)
		return 0;
	if ((cs.specs = setgrp_new(fuzz_cpc)) == NULL)
		abort();
	diag_set_debug(false);
	optind = 0; /* glibc: start a new scan */
	if (cpustat_options(&cs, args.argc, args.argv, &status)) {
		if (setgrp_nsets(cs.specs) == 0 || cs.opt.interval_ms == 0)
			abort();
	} else if (status != 0 && status != 1 && status != 2) {
		abort();
	}
	/* The commands keep -M's plan for the whole run; here it ends. */
	metric_plan_free(cs.opt.out.metric_plan);
	setgrp_free(cs.specs);
	free(args.buf);
	return 0;
}
