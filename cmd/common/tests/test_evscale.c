/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * evscale.c: what scaled counts come to, worked out by hand, for the
 * scales and units that a recorded 2-socket Ice Lake-X's sysfs gives
 * (tests/unit/sysfs-trees/intel-icelakex; libcpc's reading of them is
 * tests/unit/test_uncore.c's): the memory controllers' CAS counts in MiB
 * (6.103515625e-5, 64 bytes per CAS over 2^20), RAPL's energy in Joules
 * (2^-32 J per count).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "evscale.h"

static bool
near(double got, double want)
{
	return fabs(got - want) <= 1e-12 * fabs(want);
}

int
main(void)
{
	struct evscale s = { .scale = 6.103515625e-5, .unit = "MiB" };
	char unit[40];

	/* 16384 CAS of 64 bytes: 1 MiB; in half a second, 2 MiB/s. */
	CHECK(near(evscale_value(&s, 16384), 1.0));
	CHECK(near(evscale_rate(&s, 16384, 500000000), 2.0));
	evscale_rate_unit(&s, unit, sizeof(unit));
	CHECK(strcmp(unit, "MiB/s") == 0);

	/* 2^32 counts are one Joule; 3 J in 2 s, 1.5 W. */
	s.scale = 2.3283064365386962890625e-10;
	snprintf(s.unit, sizeof(s.unit), "Joules");
	CHECK(near(evscale_value(&s, 3ULL << 32), 3.0));
	CHECK(near(evscale_rate(&s, 3ULL << 32, 2000000000), 1.5));
	evscale_rate_unit(&s, unit, sizeof(unit));
	CHECK(strcmp(unit, "W") == 0);

	/* No unit: counts per second. */
	s.scale = 1;
	s.unit[0] = '\0';
	evscale_rate_unit(&s, unit, sizeof(unit));
	CHECK(strcmp(unit, "counts/s") == 0);
	return check_report("test_evscale");
}
