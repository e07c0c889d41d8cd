/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Exclusivity is system-wide: a CPU binding anywhere (a cpustat run by
 * another test) invalidates this process's per-LWP sets mid-scenario, and
 * their samples then fail with EAGAIN, as on Solaris. Such a scenario
 * proves nothing: it is run again, its checks forgotten. The CPU binders
 * move the generation counter in CPC_LOCK_DIR, which tells.
 */
#ifndef TEST_CPC_OVF_RERUN_H
#define TEST_CPC_OVF_RERUN_H

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "test_cpc.h"

static inline uint64_t
excl_generation(void)
{
	uint64_t gen = 0;
	int fd;

	if ((fd = open(CPC_LOCK_DIR "/generation", O_RDONLY)) >= 0) {
		if (read(fd, &gen, sizeof(gen)) != (ssize_t)sizeof(gen))
			gen = 0;
		close(fd);
	}
	return gen;
}

#define RUN(scenario, cpc)	run_scenario(#scenario, scenario, cpc)

static inline void
run_scenario(const char *name, void (*scenario)(cpc_t *), cpc_t *cpc)
{
	int failures, count, tries;
	uint64_t gen;

	for (tries = 0; tries < 20; tries++) {
		failures = check_failures;
		count = check_count;
		gen = excl_generation();
		scenario(cpc);
		if (excl_generation() == gen)
			return;
		check_failures = failures;
		check_count = count;
		fprintf(stderr, "%s: a CPU binding came in between; the "
		    "checks above are discarded, running it again\n", name);
		sleep_ms(100);
	}
	CHECK(!"every run was invalidated by CPU bindings");
}

#endif /* TEST_CPC_OVF_RERUN_H */
