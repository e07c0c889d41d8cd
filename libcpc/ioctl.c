/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What is done to a bound set's counters as a whole, below the files that
 * open them (group.c) and arm their overflows (overflow.c), which both
 * use it.
 */
#include <sys/ioctl.h>

#include "cpc_impl.h"

/*
 * Apply an ioctl to every counter of a set (every group of it, where it
 * has several: see group.c). Inheriting sets are not one
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
	int e, l;

	for (l = 0; !set->read_each && request != PERF_EVENT_IOC_ENABLE &&
	     l < set->nleaders;
	     l++)
		if (ioctl(set->fds[set->leaders[l]], request,
			PERF_IOC_FLAG_GROUP) != 0)
			return -1;
	if (!set->read_each && request != PERF_EVENT_IOC_ENABLE)
		return 0;
	for (e = set->nevents - 1; e >= 0; e--)
		if (set->fds[e] >= 0 && ioctl(set->fds[e], request, 0) != 0)
			return -1;
	return 0;
}
