/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the record reader of --input (replay_stream), the
 * whole path from a line of JSON to a row written in a format. The first
 * byte chooses the command (bit 0: cputrack or cpustat), the format
 * (bits 1-2: table, CSV, JSON, trace) and -t (bit 3); the rest is the
 * record, written to /dev/null. A record is refused (2), read with a row
 * not counted (1), or read (0): any other status, a crash, a sanitizer's
 * report or a leak is a finding.
 */
#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cmd/cli/replay.h"
#include "diag.h"
#include "libcpc.h"
#include "sinks.h"

static cpc_t *fuzz_cpc;
/* Each command's sinks, made once as the command makes them. */
static struct out_config with_sinks[2];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setlocale(LC_NUMERIC, "C");
	diag_init("cputrack");
	if ((fuzz_cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		fprintf(stderr, "fuzz_record: cpc_open: %s\n", strerror(errno));
		exit(1);
	}
	(void)cpc_seterrhndlr(fuzz_cpc, diag_errhndlr);
	with_sinks[OUT_CPUTRACK].tool = OUT_CPUTRACK;
	with_sinks[OUT_CPUSTAT].tool = OUT_CPUSTAT;
	if (sinks_setup(&with_sinks[OUT_CPUTRACK]) != 0 ||
	    sinks_setup(&with_sinks[OUT_CPUSTAT]) != 0)
		exit(1);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum out_format formats[] = { OUT_TABLE, OUT_CSV, OUT_JSON,
		OUT_TRACE };
	struct cmdline cl = { .cpc = fuzz_cpc };
	FILE *in;
	int status;

	if (size < 2)
		return 0;
	cl.tool = (data[0] & 1) != 0 ? OUT_CPUSTAT : OUT_CPUTRACK;
	cl.out = (struct out_config) {
		.tool = cl.tool,
		.format = formats[(data[0] >> 1) & 3],
		.path = "/dev/null",
		.fd = -1,
		.title = true,
		.tsc = (data[0] & 8) != 0,
		.sinks = with_sinks[cl.tool].sinks,
		.nsinks = with_sinks[cl.tool].nsinks,
	};
	if ((cl.specs = setgrp_new(fuzz_cpc)) == NULL ||
	    (in = fmemopen((void *)(data + 1), size - 1, "r")) == NULL)
		abort();
	status = replay_stream(&cl, in, "fuzz");
	if (status != 0 && status != 1 && status != 2)
		abort();
	fclose(in);
	setgrp_free(cl.specs);
	return 0;
}
