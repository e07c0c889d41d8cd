/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The BPF engine's adapter in a build without the engine (BPF_MISSING,
 * set by the build, says why): its row stays in the table, so that
 * --engine=bpf is known and auto passes over it, and its open says why.
 */
#include <stdio.h>

#include "cputrack_bpf_engine.h"

int
bpf_can_run(char *why, size_t len)
{
	snprintf(why, len, "%s", BPF_MISSING);
	return -1;
}

/*
 * No refusal of its own: --for-each-cgroup's check passes, and the open
 * then says that this build cannot count it at all.
 */
bool
bpf_may_count_cpus(void)
{
	return true;
}

static int
nobpf_open(struct cputrack *ct, bool for_auto, char *why, size_t len)
{
	(void)ct;
	(void)for_auto;
	return bpf_can_run(why, len) == 0 ? 0 : 2;
}

/* Unreachable: open never succeeds. */
static int
nobpf_track(struct cputrack *ct)
{
	(void)ct;
	return 2;
}

static void
nobpf_let_go(struct cputrack *ct)
{
	(void)ct;
}

const struct engine_ops bpf_ops = {
	.open = nobpf_open,
	.track = nobpf_track,
	.let_go = nobpf_let_go,
};
