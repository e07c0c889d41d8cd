/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hw_groups [fit|cpu C] N: libcpc's sets of several perf groups on a
 * real PMU.
 * Three groups of four user-mode instructions requests, twelve events
 * where the emulated PMU has six event counters, so that the kernel takes
 * turns with the groups; or, with "fit", two groups of instructions and
 * cycles, four events that all count at once. The set is scaled
 * (cpc_set_scale) and bound to this thread, and hw_loop(N) retires 2N
 * instructions between two samples. Prints, for the span between them,
 * one line per request and one for the set:
 *
 *	request I group G value V enabled E running R
 *	set enabled E running R
 *
 * With "cpu C" the set of three groups is bound to CPU C instead
 * (cpc_bind_cpu, which shares their counters: they cannot all be pinned)
 * and sampled N times 20 ms apart, each sample's span said as above,
 * after a line "sample K".
 *
 * and exits 0; 1 on a failure, said; 77 where there is no PMU.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libcpc.h>

#include "hw_loop.h"

HW_LOOP_DEFINE;

static void
die(const char *what)
{
	fprintf(stderr, "hw_groups: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Request i's event and group, in the layout fit asks for. */
static const char *
event_of(int i, bool fit, int *group)
{
	*group = fit ? 1 + i / 2 : 1 + i / 4;
	return fit && i % 2 == 1 ? "cycles" : "instructions";
}

/* The span between samples a and b, request by request, then the set's. */
static void
print_span(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *a, cpc_buf_t *b, cpc_buf_t *d,
    int n, bool fit)
{
	uint64_t v, en, ru;
	int i, g;

	cpc_buf_sub(cpc, d, b, a);
	for (i = 0; i < n; i++) {
		(void)event_of(i, fit, &g);
		if (cpc_buf_get(cpc, d, i, &v) != 0 ||
		    cpc_buf_get_times(cpc, d, i, &en, &ru) != 0)
			die("cpc_buf_get_times");
		printf("request %d group %d value %" PRIu64 " enabled %" PRIu64
		       " running %" PRIu64 "\n",
		    i, g, v, en, ru);
	}
	if (cpc_set_times(cpc, set, &en, &ru) != 0)
		die("cpc_set_times");
	printf("set enabled %" PRIu64 " running %" PRIu64 "\n", en, ru);
}

/* count samples of a CPU's set, 20 ms apart, each span said. */
static void
sample_cpu(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *a, cpc_buf_t *b, cpc_buf_t *d,
    int cpu, uint64_t count, int n)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	uint64_t k;

	if (cpc_bind_cpu(cpc, cpu, set, 0) != 0)
		die("cpc_bind_cpu");
	if (cpc_set_sample(cpc, set, a) != 0)
		die("cpc_set_sample");
	for (k = 1; k <= count; k++) {
		(void)nanosleep(&pause, NULL); /* not a wait: a span */
		if (cpc_set_sample(cpc, set, k % 2 ? b : a) != 0)
			die("cpc_set_sample");
		printf("sample %" PRIu64 "\n", k);
		print_span(cpc, set, k % 2 ? a : b, k % 2 ? b : a, d, n, false);
	}
}

int
main(int argc, char **argv)
{
	bool fit = argc > 2 && strcmp(argv[1], "fit") == 0;
	int i, g, n = fit ? 4 : 12, cpu = -1;
	cpc_buf_t *a, *b, *d;
	cpc_set_t *set;
	const char *ev;
	uint64_t loops;
	cpc_t *cpc;

	if (argc > 3 && strcmp(argv[1], "cpu") == 0)
		cpu = atoi(argv[2]);
	if (argc < 2 || (loops = strtoull(argv[argc - 1], NULL, 10)) == 0) {
		fprintf(stderr, "usage: hw_groups [fit|cpu C] N\n");
		return 1;
	}
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		die("cpc_open");
	if (cpc_pmu_name(cpc) == NULL) {
		printf("hw_groups: no hardware PMU\n");
		return 77;
	}
	if ((set = cpc_set_create(cpc)) == NULL)
		die("cpc_set_create");
	for (i = 0; i < n; i++) {
		ev = event_of(i, fit, &g);
		if (cpc_set_add_request(
			cpc, set, ev, 0, CPC_COUNT_USER, 0, NULL) != i ||
		    cpc_set_group(cpc, set, i, g) != 0)
			die(ev);
	}
	if (cpc_set_scale(cpc, set, 1) != 0 ||
	    (a = cpc_buf_create(cpc, set)) == NULL ||
	    (b = cpc_buf_create(cpc, set)) == NULL ||
	    (d = cpc_buf_create(cpc, set)) == NULL)
		die("cpc_set_scale");
	if (cpu >= 0) {
		sample_cpu(cpc, set, a, b, d, cpu, loops, n);
		(void)cpc_close(cpc);
		return 0;
	}
	if (cpc_bind_curlwp(cpc, set, 0) != 0)
		die("cpc_bind_curlwp");
	if (cpc_set_sample(cpc, set, a) != 0)
		die("cpc_set_sample");
	hw_loop(loops);
	if (cpc_set_sample(cpc, set, b) != 0)
		die("cpc_set_sample");
	print_span(cpc, set, a, b, d, n, fit);
	(void)cpc_close(cpc);
	return 0;
}
