/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A counter whose event sysfs gives a scale and a unit shows its value
 * in that unit and per second beside the raw count: after "#" in the
 * table, "scaled" and "scaled_per_s" in JSON rows, "scale" and
 * "scaled_unit" in JSON's head; "counters" keep the raw count. This VM
 * has no RAPL PMU: the scale and unit of a recorded Ice Lake-X's
 * power/events/energy-pkg.{scale,unit} (2^-32, Joules) are given to the
 * run's entry for page-faults, a real event that a row can hold any
 * count of.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "out_format.h"

#define SEC 1000000000ULL

/* What format writes for a row (head: the stream's head instead). */
static char *
written(const struct out_format_ops *ops, const struct out_run *run,
    const struct out_row *row, bool head)
{
	struct out_buf b = { 0 };
	void *state = ops->state_new != NULL ? ops->state_new(run) : NULL;
	char *text;

	if (head)
		ops->head(state, run, &b);
	else
		ops->row(state, run, &b, row, 0);
	if (ops->state_free != NULL)
		ops->state_free(state);
	out_buf_str(&b, "");
	text = strndup(b.data != NULL ? b.data : "", b.len);
	out_buf_free(&b);
	return text;
}

static void
check_has(const char *text, const char *want)
{
	check_count++;
	if (text == NULL || strstr(text, want) == NULL) {
		check_failures++;
		fprintf(stderr, "expected '%s' in: %s\n", want,
		    text != NULL ? text : "(null)");
	}
}

int
main(void)
{
	struct out_config cfg = {
		.tool = OUT_CPUSTAT, .format = OUT_TABLE, .fd = -1
	};
	/* 3 J of 2^-32 J counts in 2 s: 3.000 Joules, 1.500 W. */
	static const uint64_t v[] = { 2 * SEC, 3ULL << 32 };
	struct out_row row = { .label = "tick",
		.pid = -1,
		.lwp = -1,
		.tid = -1,
		.cpu = 0,
		.ncpus = -1,
		.setno = 0,
		.values = v,
		.enabled_ns = 2 * SEC,
		.running_ns = 2 * SEC,
		.elapsed_ns = 2 * SEC,
		.child = -1 };
	struct out_run run;
	setgrp_t *specs;
	cpc_t *cpc;
	char *t;
	int e;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	specs = setgrp_new(cpc);
	CHECK(
	    specs != NULL && setgrp_add(specs, "task-clock,page-faults") == 0);
	cfg.specs = specs;
	CHECK(out_run_init(&run, cpc, &cfg) == 0);
	/* This machine's sysfs scales neither. */
	CHECK(!run.events[0].scaled && !run.events[1].scaled);
	t = written(&out_table_format, &run, &row, false);
	CHECK(t != NULL && strchr(t, '#') == NULL);
	free(t);

	e = out_run_event(&run, "page-faults");
	CHECK(e >= 0);
	if (e < 0)
		return check_report("test_out_scaled");
	/* RAPL's energy-pkg as the recorded Ice Lake-X's sysfs scales it. */
	run.events[e].scaled = true;
	run.events[e].scale.scale = 2.3283064365386962890625e-10;
	snprintf(run.events[e].scale.unit, sizeof(run.events[e].scale.unit),
	    "Joules");
	run.any_scaled = true;
	t = written(&out_table_format, &run, &row, false);
	check_has(t, " 12884901888  # 3.000 Joules page-faults (1.500 W)");
	free(t);
	t = written(&out_json_format, &run, &row, false);
	check_has(t,
	    "\"counters\":{\"task-clock\":2000000000,"
	    "\"page-faults\":12884901888}");
	check_has(t, "\"scaled\":{\"page-faults\":3.0}");
	check_has(t, "\"scaled_per_s\":{\"page-faults\":1.5}");
	free(t);
	t = written(&out_json_format, &run, &row, true);
	check_has(t,
	    "{\"name\":\"page-faults\",\"unit\":\"count\","
	    "\"scale\":2.3283064365387e-10,"
	    "\"scaled_unit\":\"Joules\"}");
	free(t);
	/* Not counted: no value, no rate; never 0. */
	row.not_counted = "the set was not scheduled";
	t = written(&out_json_format, &run, &row, false);
	check_has(t, "\"scaled\":{\"page-faults\":null}");
	free(t);
	out_run_fini(&run);
	setgrp_free(specs);
	cpc_close(cpc);
	return check_report("test_out_scaled");
}
