/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hw_ovf: Example 2 of the Solaris cpc_bind_curlwp(3CPC) page (seed 000),
 * "Write a signal handler to catch overflow signals", made to run: a
 * request preset 1000 counts short of overflowing, with
 * CPC_OVF_NOTIFY_EMT; the SIGEMT handler prints the PC the overflow
 * interrupted (si_addr and the ucontext's pc and sp), samples the set,
 * presets the request again and restarts the counters. The computation
 * is Example 1's 20 iterations, here each a known aarch64 loop.
 *
 * The event is $EVENT, default cycles (QEMU delivers instruction
 * overflows late, at the next timer tick). Prints a summary line
 *   hw_ovf: signals S expected E in_loop L wrong W
 * and exits 0, or 77 when this libcpc or kernel cannot notify overflows.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <libcpc.h>

#include "hw_loop.h"

HW_LOOP_DEFINE;

#define PRESET (UINT64_MAX - 999ull)
#define ITERS  20
#define LOOP_N 5000 /* 10000 instructions each */

static cpc_t *cpc;
static cpc_set_t *set;
static cpc_buf_t *buf;
static int ind;
static volatile int signals, in_loop, wrong;

static void __attribute__((noreturn, format(printf, 1, 2)))
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	ucontext_t *uap = arg;
	uint64_t val;

	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		psignal(sig, "example");
		wrong++;
		return;
	}
	signals++;
	in_loop += hw_in_loop((uint64_t)(uintptr_t)sip->si_addr) &&
	    sip->si_addr == (void *)uap->uc_mcontext.pc;
	if (signals <= 3)
		(void)printf("lwp%d - si_addr %p ucontext: %%pc %p %%sp %p\n",
		    (int)gettid(), (void *)sip->si_addr,
		    (void *)uap->uc_mcontext.pc, (void *)uap->uc_mcontext.sp);
	if (cpc_set_sample(cpc, set, buf) != 0)
		error("cannot sample: %s", strerror(errno));
	cpc_buf_get(cpc, buf, ind, &val);
	if (signals <= 3) {
		(void)printf("0x%" PRIx64 "\n", val);
		(void)fflush(stdout);
	}
	if (cpc_request_preset(cpc, ind, PRESET) != 0)
		error("cannot set preset for request %d: %s", ind,
		    strerror(errno));
	if (cpc_set_restart(cpc, set) != 0)
		error(
		    "cannot restart lwp%d: %s", (int)gettid(), strerror(errno));
}

int
main(void)
{
	const char *event = getenv("EVENT") ? getenv("EVENT") : "cycles";
	struct sigaction act;
	int iter, expected;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		error("perf counters unavailable: %s", strerror(errno));
	if ((set = cpc_set_create(cpc)) == NULL)
		error("could not create set: %s", strerror(errno));

	memset(&act, 0, sizeof(act));
	act.sa_sigaction = emt_handler;
	act.sa_flags = SA_RESTART | SA_SIGINFO;
	if (sigaction(SIGEMT, &act, NULL) == -1)
		error("sigaction: %s", strerror(errno));

	if ((ind = cpc_set_add_request(cpc, set, event, PRESET,
		 CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL)) != 0)
		error("cannot add request to set: %s", strerror(errno));
	if ((buf = cpc_buf_create(cpc, set)) == NULL)
		error("cannot create buffer: %s", strerror(errno));
	if (cpc_bind_curlwp(cpc, set, 0) == -1) {
		if (errno == ENOTSUP) {
			printf("hw_ovf: overflow notification not supported "
			       "here: %s\n",
			    strerror(errno));
			return 77;
		}
		error("cannot bind lwp%d: %s", (int)gettid(), strerror(errno));
	}

	for (iter = 1; iter <= ITERS; iter++)
		hw_loop(LOOP_N); /* the computation measured */

	cpc_unbind(cpc, set); /* done */

	/* One overflow per 1000 events of 20 x 10000 in the loop. */
	expected = ITERS * 2 * LOOP_N / 1000;
	printf("hw_ovf: signals %d expected %d in_loop %d wrong %d\n", signals,
	    expected, in_loop, wrong);
	cpc_close(cpc);
	return 0;
}
