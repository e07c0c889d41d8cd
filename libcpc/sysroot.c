/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where libcpc reads the kernel's descriptions of its PMUs: /sys, or, for
 * the unit tests alone, a recorded tree of another machine's (a hybrid
 * CPU's, a server's), with what that machine's kernel would accept. No
 * environment variable or file chooses it: only a test program linked
 * with the library's objects can, before its first cpc_open.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cpc_impl.h"

static const char *sysfs_root = "/sys";
static int recorded_extended_type = -1;

/*
 * root: a recorded tree's /sys, or NULL for the machine's own;
 * extended_hw_type: whether that machine's kernel opens a generic event
 * on a core PMU it names (0 or 1), or -1 for a tree of this machine's
 * own PMU types (a test's, standing for a host it is not), whose events
 * this kernel is asked about as the machine's own are.
 */
void
cpclib_set_sysfs_root(const char *root, int extended_hw_type)
{
	sysfs_root = root != NULL ? root : "/sys";
	recorded_extended_type = root != NULL && extended_hw_type >= 0 ?
	    (extended_hw_type != 0) :
	    -1;
}

/* Whether the PMUs are a recorded machine's: no kernel to ask then. */
bool
cpclib_sysfs_recorded(void)
{
	return recorded_extended_type >= 0;
}

/* For a recorded tree, whether its kernel takes extended types; else -1. */
int
cpclib_recorded_extended_type(void)
{
	return recorded_extended_type;
}

/* The path of fmt below the PMUs' directory; false when it is too long. */
bool
cpclib_pmu_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, len, "%s/bus/event_source/devices", sysfs_root);
	if (n < 0 || (size_t)n >= len)
		return false;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return m >= 0 && (size_t)m < len - (size_t)n;
}
