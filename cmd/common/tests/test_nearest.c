/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nearest.c: the edits between two names, and the names this machine
 * counts that are nearest a misspelled one (the kernel's software events
 * and tracepoints, listed by the real libcpc).
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "nearest.h"

static cpc_t *cpc;

static void
check_near(const char *name, const char *want)
{
	char got[512];

	nearest_events(cpc, name, got, sizeof(got));
	check_count++;
	if (strcmp(got, want) != 0) {
		check_failures++;
		fprintf(stderr, "nearest '%s': '%s', expected '%s'\n", name,
		    got, want);
	}
}

static void
test_distance(void)
{
	CHECK_EQ_U64(nearest_distance("task-clock", "task-clock"), 0);
	CHECK_EQ_U64(nearest_distance("task-clok", "task-clock"), 1);
	CHECK_EQ_U64(nearest_distance("task-clockk", "task-clock"), 1);
	CHECK_EQ_U64(nearest_distance("tsak-clock", "task-clock"), 1);
	CHECK_EQ_U64(nearest_distance("TASK-CLOCK", "task-clock"), 0);
	CHECK_EQ_U64(nearest_distance("page-fualts", "page-faults"), 1);
	CHECK_EQ_U64(nearest_distance("", "abc"), 3);
	CHECK_EQ_U64(nearest_distance("abc", ""), 3);
	CHECK_EQ_U64(nearest_distance("kitten", "sitting"), 3);
}

int
main(void)
{
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	test_distance();
	check_near("task-clok", "task-clock");
	check_near("Task-Clock", "task-clock");
	check_near("pagefaults", "page-faults");
	check_near("cpu-clok", "cpu-clock");
	/* Too short, or too far, for any name to be near. */
	check_near("foo", "");
	check_near("0", "");
	check_near("completely-unlike-any-event", "");
	/* A tracepoint: its own subsystem's nearest names, closest first. */
	check_near("sched:sched_swich", "sched:sched_switch");
	cpc_close(cpc);
	return check_report("test_nearest");
}
