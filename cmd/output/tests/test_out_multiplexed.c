/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A row whose set counted for less time than it was enabled (the kernel
 * multiplexed it) says so beside its metrics: "(multiplexed)" in the
 * table, "metrics_multiplexed":true in JSON; a row that counted all the
 * time, or has no metric, says nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "out_format.h"
#include "out_written.h"

/* A row of the set task-clock,page-faults: 0.5 s, 10 faults. */
static struct out_row
row_of(const uint64_t *values, uint64_t enabled, uint64_t running)
{
	return (struct out_row) { .label = "exit",
		.pid = 42,
		.lwp = 1,
		.tid = 42,
		.cpu = -1,
		.ncpus = -1,
		.setno = 0,
		.values = values,
		.enabled_ns = enabled,
		.running_ns = running,
		.elapsed_ns = SEC,
		.child = -1 };
}

static void
check_format(
    const struct out_format_ops *ops, struct out_run *run, const char *mark)
{
	static const uint64_t v[] = { SEC / 2, 10 }, none[] = { 0, 0 };
	struct out_row row;
	char *t;

	row = row_of(v, SEC, SEC / 4);
	t = written(ops, run, &row);
	CHECK(t != NULL && strstr(t, mark) != NULL);
	free(t);
	row = row_of(v, SEC, SEC);
	t = written(ops, run, &row);
	CHECK(t != NULL && strstr(t, mark) == NULL);
	free(t);
	/* No metric (no task-clock, no elapsed time): no mark either. */
	row = row_of(none, SEC, SEC / 4);
	row.elapsed_ns = 0;
	t = written(ops, run, &row);
	CHECK(t != NULL && strstr(t, mark) == NULL);
	free(t);
}

int
main(void)
{
	struct out_config cfg = { .tool = OUT_CPUTRACK,
		.format = OUT_TABLE,
		.fd = -1,
		.metrics = true };
	struct out_run run;
	setgrp_t *specs;
	cpc_t *cpc;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	specs = setgrp_new(cpc);
	CHECK(
	    specs != NULL && setgrp_add(specs, "task-clock,page-faults") == 0);
	cfg.specs = specs;
	CHECK(out_run_init(&run, cpc, &cfg) == 0);
	check_format(&out_table_format, &run, "(multiplexed)");
	check_format(&out_json_format, &run, "\"metrics_multiplexed\":true");
	out_run_fini(&run);
	setgrp_free(specs);
	cpc_close(cpc);
	return check_report("test_out_multiplexed");
}
