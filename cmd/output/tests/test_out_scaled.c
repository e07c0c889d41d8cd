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
#include "out_written.h"

int
main(void)
{
	struct out_config cfg = {
		.tool = OUT_CPUSTAT, .format = OUT_TABLE, .fd = -1
	};
	/* 3 J of 2^-32 J counts in 2 s: 3.000 Joules, 1.500 W. */
	static const uint64_t v[] = { 2 * SEC, 3ULL << 32 };
	struct out_row row = cpu_tick_row(v, 2 * SEC, 2 * SEC, 2 * SEC);
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
	t = written(&out_table_format, &run, &row);
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
	t = written(&out_table_format, &run, &row);
	check_has(
	    t, " 12884901888  # 3.000 Joules page-faults (1.500 W)", true);
	free(t);
	t = written(&out_json_format, &run, &row);
	check_has(t,
	    "\"counters\":{\"task-clock\":2000000000,"
	    "\"page-faults\":12884901888}",
	    true);
	check_has(t, "\"scaled\":{\"page-faults\":3.0}", true);
	check_has(t, "\"scaled_per_s\":{\"page-faults\":1.5}", true);
	free(t);
	t = written(&out_json_format, &run, NULL);
	check_has(t,
	    "{\"name\":\"page-faults\",\"unit\":\"count\","
	    "\"scale\":2.3283064365387e-10,"
	    "\"scaled_unit\":\"Joules\"}",
	    true);
	free(t);
	/* Not counted: no value, no rate; never 0. */
	row.not_counted = "the set was not scheduled";
	t = written(&out_json_format, &run, &row);
	check_has(t, "\"scaled\":{\"page-faults\":null}", true);
	free(t);
	out_run_fini(&run);
	setgrp_free(specs);
	cpc_close(cpc);
	return check_report("test_out_scaled");
}
