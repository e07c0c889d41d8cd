/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * evscale.c: an event's scale and unit from the sysfs files of a
 * recorded 2-socket Ice Lake-X (tests/unit/sysfs-trees/intel-icelakex,
 * see its SOURCES.md): the memory controllers' CAS counts in MiB (the
 * kernel's scale 6.103515625e-5, 64 bytes per CAS over 2^20), RAPL's
 * energy in Joules (2^-32 J per count), and values worked out by hand.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "evscale.h"

#define ICX SOURCE_DIR "/tests/unit/sysfs-trees/intel-icelakex"

static bool
near(double got, double want)
{
	return fabs(got - want) <= 1e-12 * fabs(want);
}

int
main(void)
{
	struct evscale s;
	char unit[40];

	/* A PMU of boxes: a box's files, as every box has the same. */
	CHECK(evscale_read(ICX, "uncore_imc/cas_count_read/", &s));
	CHECK(s.scale == 6.103515625e-5 && strcmp(s.unit, "MiB") == 0);
	CHECK(evscale_read(ICX, "uncore_imc_1/cas_count_write/", &s));
	CHECK(strcmp(s.unit, "MiB") == 0);
	/* 16384 CAS of 64 bytes: 1 MiB; in half a second, 2 MiB/s. */
	CHECK(near(evscale_value(&s, 16384), 1.0));
	CHECK(near(evscale_rate(&s, 16384, 500000000), 2.0));
	evscale_rate_unit(&s, unit, sizeof(unit));
	CHECK(strcmp(unit, "MiB/s") == 0);

	/* 2^32 counts are one Joule; 3 J in 2 s, 1.5 W. */
	CHECK(evscale_read(ICX, "power/energy-pkg/", &s));
	CHECK(s.scale == 2.3283064365386962890625e-10);
	CHECK(strcmp(s.unit, "Joules") == 0);
	CHECK(near(evscale_value(&s, 3ULL << 32), 3.0));
	CHECK(near(evscale_rate(&s, 3ULL << 32, 2000000000), 1.5));
	evscale_rate_unit(&s, unit, sizeof(unit));
	CHECK(strcmp(unit, "W") == 0);
	CHECK(evscale_read(ICX, "power/energy-ram/:u", &s));

	/* No such files: no scale, the count as it is. */
	CHECK(!evscale_read(ICX, "uncore_imc/clockticks/", &s));
	CHECK(s.scale == 1 && s.unit[0] == '\0');
	CHECK(!evscale_read(ICX, "uncore_imc/event=0x04,umask=0x0f/", &s));
	CHECK(!evscale_read(ICX, "cpu-clock", &s));
	CHECK(!evscale_read(ICX, "nosuch/energy-pkg/", &s));
	return check_report("test_evscale");
}
