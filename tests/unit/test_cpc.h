/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the libcpc unit tests (test_cpc_*.c).
 *
 * Exclusivity is system-wide by design: while any process (another test,
 * a cpustat run) holds a CPU binding, per-LWP binds fail with EAGAIN and
 * per-LWP sets are invalidated. The tests therefore retry an operation
 * that got EAGAIN for a bounded time; a lock that is never released still
 * fails the test.
 */
#ifndef TEST_CPC_H
#define TEST_CPC_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

#include "check.h"
#include "wait.h"

static inline double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Tracepoints need tracefs; mount it where the kernel expects it. */
static inline bool
tracefs_ready(void)
{
	struct stat st;

	if (stat("/sys/kernel/tracing/events", &st) == 0)
		return true;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0)
		return false;
	return stat("/sys/kernel/tracing/events", &st) == 0;
}

static inline void
require_tracefs(void)
{
	if (!tracefs_ready())
		SKIP("tracefs is not mounted at /sys/kernel/tracing and "
		     "mounting it failed (%s): tracepoints cannot be counted",
		    strerror(errno));
}

/* What the last call of the recording error handler saw. */
struct recorded_error {
	int calls;
	char fn[64];
	int subcode;
	char msg[512];
};

static struct recorded_error last_error;

/* Records the error, then clobbers errno as a careless handler would. */
static inline void
recording_handler(const char *fn, int subcode, const char *fmt, va_list ap)
{
	last_error.calls++;
	snprintf(last_error.fn, sizeof(last_error.fn), "%s", fn);
	last_error.subcode = subcode;
	vsnprintf(last_error.msg, sizeof(last_error.msg), fmt, ap);
	errno = ENOTTY;
}

static inline void
forget_error(void)
{
	memset(&last_error, 0, sizeof(last_error));
}

#endif /* TEST_CPC_H */
