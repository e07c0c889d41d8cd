/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Seed 002, cpc_bind_event(3CPC) (obsolete v1 API), Example 1: "Use
 * hardware performance counters to measure events in a process."
 *
 * Changes to the example, and only these:
 * - the includes of seed_error.h (error(), _lwp_self()), seed_compute.h
 *   (compute()), <string.h> and <errno.h> (for strerror and errno);
 * - the computation: compute(iter), iter page faults and iter writes;
 * - the page's text rendering turned the "\n" of the printf format into
 *   "0"; it is "\n" again;
 * - "if (iter != 20)" after the loop is always true (the loop ends with
 *   iter == 21), so the example always failed; it is "iter != 21", as in
 *   cpc_bind_curlwp's Example 1;
 * - events come from PERFEVENTS as the page says; the test sets
 *   PERFEVENTS=pic0=page-faults,pic1=syscalls:sys_enter_write.
 */
#include "seed_error.h"
#include "seed_compute.h"
#include <string.h>
#include <errno.h>

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <libcpc.h>
int
main(int argc, char *argv[])
{
	int cpuver, iter;
	char *setting = NULL;
	cpc_event_t event;
	if (cpc_version(CPC_VER_CURRENT) != CPC_VER_CURRENT)
		error("application:library cpc version mismatch!");
	if ((cpuver = cpc_getcpuver()) == -1)
		error("no performance counter hardware!");
	if ((setting = getenv("PERFEVENTS")) == NULL)
		setting = "pic0=EC_ref,pic1=EC_hit";
	if (cpc_strtoevent(cpuver, setting, &event) != 0)
		error("can't measure '%s' on this processor", setting);
	setting = cpc_eventtostr(&event);
	if (cpc_access() == -1)
		error("can't access perf counters: %s", strerror(errno));
	if (cpc_bind_event(&event, 0) == -1)
		error("can't bind lwp%d: %s", _lwp_self(), strerror(errno));
	for (iter = 1; iter <= 20; iter++) {
		cpc_event_t before, after;
		if (cpc_take_sample(&before) == -1)
			break;
		/* ==> Computation to be measured goes here <== */
		compute(iter);
		if (cpc_take_sample(&after) == -1)
			break;
		(void)printf("%3d: %" PRId64 " %" PRId64 "\n", iter,
		    after.ce_pic[0] - before.ce_pic[0],
		    after.ce_pic[1] - before.ce_pic[1]);
	}
	if (iter != 21)
		error("can't sample '%s': %s", setting, strerror(errno));
	free(setting);
	return (0);
}
