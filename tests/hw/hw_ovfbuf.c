/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hw_ovfbuf: CPC_OVF_BUFFERED on a hardware event. cycles (user mode)
 * overflows every PERIOD events over a known aarch64 loop; the records
 * are read back with cpc_set_sample_records and each PC is checked to be
 * one of the loop's two instructions. Prints
 *   hw_ovfbuf: records R expected E in_loop L lost X tid T
 * and exits 0, or 77 when buffered overflow cannot be bound here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>

#include "hw_loop.h"

HW_LOOP_DEFINE;

#define PERIOD 100000ull
#define LOOP_N 10000000ull /* 2e7 instructions */
#define MAXREC 1024

static cpc_ovf_record_t recs[MAXREC];

int
main(void)
{
	const char *event = getenv("EVENT") ? getenv("EVENT") : "cycles";
	cpc_t *cpc;
	cpc_set_t *set;
	uint64_t lost = 0;
	int n, i, in_loop = 0, tid_ok = 0;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL ||
	    (set = cpc_set_create(cpc)) == NULL) {
		printf("hw_ovfbuf: cpc_open: %s\n", strerror(errno));
		return 1;
	}
	if (cpc_set_add_request(cpc, set, event, UINT64_MAX - PERIOD + 1,
		CPC_COUNT_USER | CPC_OVF_BUFFERED, 0, NULL) != 0) {
		printf("hw_ovfbuf: add %s: %s\n", event, strerror(errno));
		return 1;
	}
	if (cpc_bind_curlwp(cpc, set, 0) != 0) {
		printf("hw_ovfbuf: bind: %s\n", strerror(errno));
		return errno == ENOTSUP ? 77 : 1;
	}
	hw_loop(LOOP_N);
	n = cpc_set_sample_records(cpc, set, recs, MAXREC, &lost);
	if (n < 0) {
		printf(
		    "hw_ovfbuf: cpc_set_sample_records: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		in_loop += (recs[i].cr_valid & CPC_REC_PC) &&
		    hw_in_loop(recs[i].cr_pc);
		tid_ok += recs[i].cr_tid == gettid();
		if (i < 3 || (!hw_in_loop(recs[i].cr_pc) && i < 20))
			printf("record %d: pc %#" PRIx64 " (loop %p-%p)\n", i,
			    recs[i].cr_pc, (void *)hw_loop_start,
			    (void *)hw_loop_end);
	}
	cpc_unbind(cpc, set);
	printf("hw_ovfbuf: records %d expected %llu in_loop %d lost %llu "
	       "tid %d\n",
	    n, 2 * LOOP_N / PERIOD, in_loop, (unsigned long long)lost, tid_ok);
	cpc_close(cpc);
	return 0;
}
