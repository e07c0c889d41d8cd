/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What is done to a bound set's counters as a whole, below the files that
 * open them (group.c) and arm their overflows (overflow.c), which both
 * use it.
 */
#include <sys/ioctl.h>

#include "cpc_impl.h"

/*
 * Apply an ioctl to every counter of a set. Inheriting sets are not one
 * perf group (the kernel reads inherited groups badly on old kernels), so
 * their counters are reached one by one. A group is enabled members
 * first, leader last: enabling it through the leader with
 * PERF_IOC_FLAG_GROUP left a tracepoint member idle until the thread's
 * next context switch (measured on 6.18), whereas members switched on
 * behind a stopped leader start with it, together.
 */
int
cpclib_group_ioctl(cpc_set_t *set, unsigned long request)
{
	int e;

	if (!set->read_each && request != PERF_EVENT_IOC_ENABLE)
		return ioctl(set->fds[0], request, PERF_IOC_FLAG_GROUP);
	for (e = set->nevents - 1; e >= 0; e--)
		if (ioctl(set->fds[e], request, 0) != 0)
			return -1;
	return 0;
}
