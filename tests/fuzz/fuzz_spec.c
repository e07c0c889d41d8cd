/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the -c event specification parser (spec_parse in
 * cmd/common/strtoset.c), then what the commands do with a parsed spec:
 * build the set, print the column header, and a set group of two specs.
 *
 * Input: the spec text (NULs end it early, as argv would).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "setgrp.h"
#include "spec.h"

static cpc_t *cpc;
static FILE *devnull;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	diag_init((*argv)[0]);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL ||
	    (devnull = fopen("/dev/null", "w")) == NULL) {
		perror("fuzz_spec: cpc_open");
		exit(1);
	}
	(void)cpc_seterrhndlr(cpc, diag_errhndlr);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum spec_error err;
	setgrp_t *grp;
	struct spec *spec;
	cpc_set_t *set;
	char *text;

	if ((text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if ((spec = spec_parse(cpc, text, &err)) != NULL) {
		if (err != SPEC_OK) {
			fprintf(stderr, "spec_parse returned a spec and %d\n",
			    (int)err);
			abort();
		}
		spec_header(spec, devnull);
		if ((set = spec_build_set(cpc, spec)) != NULL)
			(void)cpc_set_destroy(cpc, set);
		spec_free(spec);
	} else if (err == SPEC_OK) {
		fprintf(stderr, "spec_parse returned NULL and SPEC_OK\n");
		abort();
	}
	/* The same text twice in a group, as two -c options would be. */
	if ((grp = setgrp_new(cpc)) == NULL)
		abort();
	if (setgrp_add(grp, text) == 0)
		(void)setgrp_add(grp, text);
	setgrp_free(grp);
	free(text);
	return 0;
}
