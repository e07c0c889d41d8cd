/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An event summed over the boxes of a PMU keeps each box's count: JSON
 * rows show them as "parts" under the boxes' names, and in the event's
 * sysfs unit as "scaled_parts"; the table and CSV show the sum alone.
 * This VM has no uncore PMU: libcpc reads the PMUs of a recorded 2-socket
 * Ice Lake-X (tests/unit/sysfs-trees/intel-icelakex), whose memory
 * controllers are the boxes uncore_imc_0 and uncore_imc_1, each CAS
 * count 64 bytes, 64 / 2^20 MiB; RAPL's energy-pkg counts 2^-32 J. What
 * the kernel counts there is for a machine that has them: a row's counts
 * are given here, as a sample of the run's sets lays them out (spec.h).
 * A recorded 2-socket Genoa (amd-genoa-2s) has a PMU for each memory
 * controller, amd_umc_0 .. 11 counting on CPU 0, 12 .. 23 on CPU 96:
 * a row holds the boxes its CPUs count. A recorded Alder Lake's core
 * PMUs' parts follow the same rule: cpu_core counts on CPUs 0-15,
 * cpu_atom on 16-23. The three trees are read by one process, so no
 * machine's model is the host's: libpfm4 has none (recorded.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "out_format.h"
#include "out_written.h"
#include "recorded.h"
#include "../../../libcpc/cpc_impl.h"

#define TREES SOURCE_DIR "/tests/unit/sysfs-trees/"

/* A run of one spec on this handle, its output in fmt. */
static bool
run_of(cpc_t *cpc, const char *spec, enum out_format fmt, setgrp_t **specs,
    struct out_run *run)
{
	struct out_config cfg = {
		.tool = OUT_CPUSTAT, .format = fmt, .fd = -1
	};

	*specs = setgrp_new(cpc);
	CHECK(*specs != NULL && setgrp_add(*specs, spec) == 0);
	if (*specs == NULL)
		return false;
	cfg.specs = *specs;
	CHECK(out_run_init(run, cpc, &cfg) == 0);
	return true;
}

/*
 * cas_count_read: 16384 CAS on uncore_imc_0 (1 MiB) and 49152 on
 * uncore_imc_1 (3 MiB), 65536 in all (4 MiB, 2 MiB/s over 2 s); its
 * parts after the three values, as the spec lays them out.
 */
static void
test_boxes(cpc_t *cpc)
{
	static const uint64_t v[] = { 2 * SEC, 65536, 3ULL << 32, 16384,
		49152 };
	struct out_row row = cpu_tick_row(v, 2 * SEC, 2 * SEC, 2 * SEC);
	const struct spec *spec;
	struct out_run run;
	setgrp_t *specs;
	char *t;

	if (!run_of(cpc,
		"cpu-clock,uncore_imc/cas_count_read/,power/energy-pkg/",
		OUT_JSON, &specs, &run))
		return;
	spec = run.specs[0];
	CHECK(spec->nreqs == 3 && spec->nparts == 0 && spec->nboxes == 2 &&
	    spec_nvalues(spec) == 5);
	CHECK(spec->reqs[1].nboxes == 2 && spec->reqs[1].box_first == 3);
	CHECK(spec->reqs[0].nboxes == 0 && spec->reqs[2].nboxes == 0);
	t = written(&out_json_format, &run, &row);
	check_has(t,
	    "\"counters\":{\"cpu-clock\":2000000000,"
	    "\"uncore_imc/cas_count_read/\":65536,"
	    "\"power/energy-pkg/\":12884901888}",
	    true);
	check_has(t,
	    "\"scaled\":{\"uncore_imc/cas_count_read/\":4.0,"
	    "\"power/energy-pkg/\":3.0}",
	    true);
	check_has(t,
	    "\"scaled_per_s\":{\"uncore_imc/cas_count_read/\":2.0,"
	    "\"power/energy-pkg/\":1.5}",
	    true);
	check_has(t,
	    "\"parts\":{\"uncore_imc/cas_count_read/\":"
	    "{\"uncore_imc_0\":16384,\"uncore_imc_1\":49152}}",
	    true);
	check_has(t,
	    "\"scaled_parts\":{\"uncore_imc/cas_count_read/\":"
	    "{\"uncore_imc_0\":1.0,\"uncore_imc_1\":3.0}}",
	    true);
	free(t);
	/* The sum alone in the table and in CSV. */
	t = written(&out_table_format, &run, &row);
	check_has(t,
	    " 65536 12884901888  # 4.000 MiB uncore_imc/cas_count_read/ "
	    "(2.000 MiB/s)",
	    true);
	check_has(t, "uncore_imc_0", false);
	check_has(t, "16384", false);
	free(t);
	t = written(&out_csv_format, &run, &row);
	check_has(t, "65536", true);
	check_has(t, "uncore_imc_", false);
	check_has(t, "16384", false);
	free(t);
	/* Not counted: no part, never 0. */
	row.not_counted = "the set was not scheduled";
	t = written(&out_json_format, &run, &row);
	check_has(t,
	    "\"parts\":{\"uncore_imc/cas_count_read/\":"
	    "{\"uncore_imc_0\":null,\"uncore_imc_1\":null}}",
	    true);
	check_has(t,
	    "\"scaled_parts\":{\"uncore_imc/cas_count_read/\":"
	    "{\"uncore_imc_0\":null,\"uncore_imc_1\":null}}",
	    true);
	free(t);
	out_run_fini(&run);
	setgrp_free(specs);
}

/*
 * A box named by its number, RAPL's one PMU and a software event have
 * no parts: JSON rows have neither "parts" nor "scaled_parts".
 */
static void
test_no_boxes(cpc_t *cpc)
{
	static const uint64_t v[] = { 2 * SEC, 16384, 3ULL << 32 };
	struct out_row row = cpu_tick_row(v, 2 * SEC, 2 * SEC, 2 * SEC);
	struct out_run run;
	setgrp_t *specs;
	char *t;

	if (!run_of(cpc,
		"cpu-clock,uncore_imc_0/cas_count_read/,power/energy-pkg/",
		OUT_JSON, &specs, &run))
		return;
	CHECK(run.specs[0]->nboxes == 0 && spec_nvalues(run.specs[0]) == 3);
	t = written(&out_json_format, &run, &row);
	check_has(t, "\"uncore_imc_0/cas_count_read/\":16384", true);
	check_has(t, "\"scaled\":{\"uncore_imc_0/cas_count_read/\":1.0", true);
	check_has(t, "\"parts\"", false);
	check_has(t, "\"scaled_parts\"", false);
	free(t);
	out_run_fini(&run);
	setgrp_free(specs);
}

/* Whether JSON text's parts hold amd_umc_k for k in [from, to] alone. */
static void
check_umc_parts(const char *text, int from, int to)
{
	char name[32];
	int k;

	for (k = 0; k < 24; k++) {
		snprintf(name, sizeof(name), "\"amd_umc_%d\":", k);
		check_has(text, name, k >= from && k <= to);
	}
}

/*
 * A row as a command writes it: queued to the output's writer thread,
 * which renders it (the CPUs it holds travel with it), into a file.
 */
static char *
through_output(cpc_t *cpc, setgrp_t *specs, const struct out_row *row)
{
	struct out_config cfg = {
		.tool = OUT_CPUSTAT, .format = OUT_JSON, .specs = specs
	};
	struct output *o;
	FILE *f = tmpfile();
	char *text;
	long len;

	CHECK(f != NULL);
	if (f == NULL)
		return strdup("");
	cfg.fd = fileno(f);
	o = output_open(cpc, &cfg);
	CHECK(o != NULL);
	if (o != NULL) {
		output_row(o, row);
		CHECK(output_close(o) == 0);
	}
	/* The output wrote through the descriptor, past this stream. */
	(void)fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	if (len < 0 || (text = calloc(1, (size_t)len + 1)) == NULL)
		text = strdup("");
	else
		CHECK(fread(text, 1, (size_t)len, f) == (size_t)len);
	fclose(f);
	return text;
}

/*
 * Genoa's reads, 1000 CAS on each controller of socket 0 and 2000 on
 * each of socket 1: CPU 96's row (and socket 1's) holds boxes 12 .. 23,
 * the total all 24, a CPU of neither no parts at all.
 */
static void
test_socket_boxes(cpc_t *cpc)
{
	uint64_t v[1 + 24] = { 0 };
	struct out_row row = cpu_tick_row(v, 2 * SEC, 2 * SEC, 2 * SEC);
	cpu_set_t cpus;
	struct out_run run;
	setgrp_t *specs;
	char *t;
	int k;

	if (!run_of(cpc, "amd_umc/event=0x0a,rdwrmask=0x1/", OUT_JSON, &specs,
		&run))
		return;
	CHECK(run.specs[0]->nboxes == 24);
	for (k = 0; k < 24; k++)
		v[1 + k] = k < 12 ? 0 : 2000;
	v[0] = 12 * 2000;
	CPU_ZERO(&cpus);
	CPU_SET(96, &cpus);
	row.cpus = &cpus;
	t = written(&out_json_format, &run, &row);
	check_has(t, "\"amd_umc_12\":2000,\"amd_umc_13\":2000", true);
	check_umc_parts(t, 12, 23);
	free(t);
	t = through_output(cpc, specs, &row);
	check_has(t, "\"amd_umc_12\":2000,\"amd_umc_13\":2000", true);
	check_umc_parts(t, 12, 23);
	free(t);
	for (k = 0; k < 12; k++)
		v[1 + k] = 1000;
	v[0] += 12 * 1000;
	CPU_SET(0, &cpus);
	t = written(&out_json_format, &run, &row);
	check_has(t, "{\"amd_umc_0\":1000,\"amd_umc_1\":1000", true);
	check_umc_parts(t, 0, 23);
	free(t);
	CPU_ZERO(&cpus);
	CPU_SET(5, &cpus);
	t = written(&out_json_format, &run, &row);
	check_has(t, "\"parts\"", false);
	free(t);
	out_run_fini(&run);
	setgrp_free(specs);
}

/*
 * instructions on Alder Lake: 3000 on a P-core, 1000 on an E-core. CPU
 * 3's row holds cpu_core's part alone, CPU 20's cpu_atom's, a row of
 * both (a total) both; a thread's row (no CPUs) both.
 */
static void
test_core_parts(cpc_t *cpc)
{
	uint64_t v[] = { 3000, 3000, 0 };
	struct out_row row = cpu_tick_row(v, 2 * SEC, 2 * SEC, 2 * SEC);
	struct out_run run;
	setgrp_t *specs;
	cpu_set_t cpus;
	char *t;

	if (!run_of(cpc, "instructions", OUT_JSON, &specs, &run))
		return;
	CHECK(run.specs[0]->nparts == 2);
	CPU_ZERO(&cpus);
	CPU_SET(3, &cpus);
	row.cpus = &cpus;
	t = written(&out_json_format, &run, &row);
	check_has(t, "\"parts\":{\"instructions\":{\"cpu_core\":3000}}", true);
	free(t);
	v[0] = v[2] = 1000;
	v[1] = 0;
	CPU_ZERO(&cpus);
	CPU_SET(20, &cpus);
	t = written(&out_json_format, &run, &row);
	check_has(t, "\"parts\":{\"instructions\":{\"cpu_atom\":1000}}", true);
	free(t);
	v[0] = 4000;
	v[1] = 3000;
	CPU_SET(3, &cpus);
	t = written(&out_json_format, &run, &row);
	check_has(t,
	    "\"parts\":{\"instructions\":{\"cpu_core\":3000,"
	    "\"cpu_atom\":1000}}",
	    true);
	free(t);
	row.cpus = NULL;
	t = written(&out_json_format, &run, &row);
	check_has(t, "\"cpu_core\":3000,\"cpu_atom\":1000", true);
	free(t);
	out_run_fini(&run);
	setgrp_free(specs);
}

int
main(void)
{
	cpc_t *cpc;

	recorded_no_model();
	cpclib_set_sysfs_root(TREES "intel-icelakex", 1);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	test_boxes(cpc);
	test_no_boxes(cpc);
	cpc_close(cpc);
	cpclib_set_sysfs_root(TREES "amd-genoa-2s", 1);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	test_socket_boxes(cpc);
	cpc_close(cpc);
	cpclib_set_sysfs_root(TREES "intel-alderlake-hybrid", 1);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	test_core_parts(cpc);
	cpc_close(cpc);
	return check_report("test_out_boxes");
}
