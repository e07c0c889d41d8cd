/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the obsolete CPCv1 event syntax, cpc_strtoevent
 * (libcpc/v1_strtoevent.c). A spec that parses is printed back with
 * cpc_eventtostr, and that text must parse again to the same event.
 *
 * Input: the spec text (NULs end it early).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc.h"

static int cpuver;

/* Format the message, as a real error function would, but keep quiet. */
static void
quiet(const char *fn, const char *fmt, va_list ap)
{
	char buf[1024];

	(void)fn;
	(void)vsnprintf(buf, sizeof(buf), fmt, ap);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	cpc_seterrfn(quiet);
	if ((cpuver = cpc_getcpuver()) < 0) {
		fprintf(stderr, "fuzz_v1: no CPC library handle\n");
		exit(1);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cpc_event_t ev, again;
	char *text, *str;

	if ((text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (cpc_strtoevent(cpuver, text, &ev) == 0) {
		if ((str = cpc_eventtostr(&ev)) == NULL) {
			fprintf(
			    stderr, "cpc_eventtostr failed on '%s'\n", text);
			abort();
		}
		if (cpc_strtoevent(cpuver, str, &again) != 0 ||
		    again.ce_pes[0] != ev.ce_pes[0] ||
		    again.ce_pes[1] != ev.ce_pes[1]) {
			fprintf(stderr,
			    "'%s' -> '%s' does not parse back "
			    "the same\n",
			    text, str);
			abort();
		}
		free(str);
	}
	free(text);
	return 0;
}
