/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spec.c: the names a set's counters go by in rows. Each is unique in its
 * set, so that no CSV column, JSON key or metrics series stands for two
 * counters; an event counted once keeps its own name. The specs are
 * parsed by the real libcpc, on the kernel's software events and
 * tracepoints.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "spec.h"

static cpc_t *cpc;

/* The names of the spec's counters, as "a b c", or why there are none. */
static const char *
names(const char *text)
{
	static char got[512];
	enum spec_error err;
	struct spec *spec;
	size_t at = 0;
	int i;

	if ((spec = spec_parse(cpc, text, &err)) == NULL) {
		snprintf(got, sizeof(got), "(error %d)", (int)err);
		return got;
	}
	got[0] = '\0';
	for (i = 0; i < spec->nreqs; i++)
		at += (size_t)snprintf(got + at, sizeof(got) - at, "%s%s",
		    i > 0 ? " " : "", spec->reqs[i].name);
	spec_free(spec);
	return got;
}

#define CHECK_NAMES(text, want)                                        \
	do {                                                           \
		const char *got_ = names(text);                        \
		check_count++;                                         \
		if (strcmp(got_, (want)) != 0) {                       \
			check_failures++;                              \
			fprintf(stderr,                                \
			    "%s:%d: '%s' names '%s', expected '%s'\n", \
			    __FILE__, __LINE__, (text), got_, (want)); \
		}                                                      \
	} while (0)

int
main(void)
{
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	if (cpc_npic(cpc) < 3)
		SKIP("%u counters: three are needed", cpc_npic(cpc));
	/* Each event once: its own name, whatever its modes. */
	CHECK_NAMES("page-faults,task-clock,sys1", "page-faults task-clock");
	CHECK_NAMES(
	    "page-faults:k,page-faults:u", "page-faults:k page-faults:u");
	/* Twice, in other modes: the modes tell them apart. */
	CHECK_NAMES("page-faults,page-faults,nouser1,sys1",
	    "page-faults:u page-faults:k");
	CHECK_NAMES("page-faults,page-faults,sys",
	    "page-faults:uk#pic0 page-faults:uk#pic1");
	CHECK_NAMES("page-faults,page-faults,page-faults,nouser1,sys1,sys2",
	    "page-faults:u page-faults:k page-faults:uk");
	/* The same modes too: the counter, on each of them. */
	CHECK_NAMES("pic1=page-faults,pic2=page-faults",
	    "page-faults:u#pic1 page-faults:u#pic2");
	CHECK_NAMES("page-faults,page-faults,page-faults,sys2",
	    "page-faults:u#pic0 page-faults:u#pic1 page-faults:uk");
	/* Other events beside them keep their names. */
	CHECK_NAMES("syscalls:sys_enter_write,task-clock,"
		    "syscalls:sys_enter_write,sys2",
	    "syscalls:sys_enter_write:u task-clock syscalls:sys_enter_write:uk");
	/* perf's aliases go by the names they stand for, modifiers kept. */
	CHECK_NAMES("cs,faults,migrations",
	    "context-switches page-faults cpu-migrations");
	CHECK_NAMES("cs:k,page-faults", "context-switches:k page-faults");
	/* One event spelled two ways is one event counted twice. */
	CHECK_NAMES(
	    "faults,page-faults,nouser1,sys1", "page-faults:u page-faults:k");
	CHECK_NAMES("cs,context-switches",
	    "context-switches:u#pic0 context-switches:u#pic1");
	cpc_close(cpc);
	return check_report("test_spec_names");
}
