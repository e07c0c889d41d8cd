/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: cputrack's command line (cputrack_options, with every
 * -c through the spec parser into the run's set group). See fuzz_args.h.
 */
#include "fuzz_args.h"
#include "metric_plan.h"
#include "../../cmd/cputrack/cputrack_opts.h"

static cpc_t *fuzz_cpc;
static struct fuzz_argv args;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_cpc = fuzz_cpc_open("cputrack", diag_errhndlr);
	return 0;
}

/* Each pid a process id, none listed twice. */
static bool
pids_distinct(const struct cputrack_opts *o)
{
	size_t i, j;

	for (i = 0; i < o->npids; i++) {
		if (o->pids[i] <= 0)
			return false;
		for (j = 0; j < i; j++)
			if (o->pids[i] == o->pids[j])
				return false;
	}
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cputrack ct = {
		.cpc = fuzz_cpc,
		.opt = { .interval_ms = 1000 },
	};
	int status;

	if (fuzz_split(&args, "cputrack", data, size) != 0)
		return 0;
	if ((ct.specs = setgrp_new(fuzz_cpc)) == NULL)
		abort();
	diag_set_debug(false);
	optind = 0; /* glibc: start a new scan */
	if (cputrack_options(&ct, args.argc, args.argv, &status)) {
		/* Parsed: a spec, and one target: a command, pids or a
		 * cgroup; pids each a process, listed once. */
		if (setgrp_nsets(ct.specs) == 0 ||
		    (ct.opt.command != NULL) + (ct.opt.npids != 0) +
			    (ct.opt.cgroup != NULL) !=
			1)
			abort();
		if (!pids_distinct(&ct.opt))
			abort();
	} else if (status != 0 && status != 1 && status != 2) {
		abort();
	}
	/* The commands keep -M's plan for the whole run; here it ends. */
	metric_plan_free(ct.opt.out.metric_plan);
	setgrp_free(ct.specs);
	free(ct.opt.cgroup);
	free(ct.opt.pids);
	free(args.buf);
	return 0;
}
