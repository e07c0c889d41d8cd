/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Seed 002, cpc_bind_event(3CPC) (obsolete v1 API), Example 2: "Write a
 * signal handler to catch overflow signals." The page gives the handler
 * and the setup code, to be "placed after the code that selects the event
 * to be measured": that code is Example 1's, so main() below is Example
 * 1's opening followed by Example 2's setup, as the page says.
 *
 * Changes to the example, and only these:
 * - the includes (the page shows none for this example: Example 1's, plus
 *   <signal.h>, <strings.h> for bzero, <ucontext.h>, <string.h>,
 *   <errno.h>), and seed_error.h (error(), _lwp_self()) and
 *   seed_compute.h (compute());
 * - the ucontext register names: Solaris x86's PC and USP are REG_RIP
 *   and REG_RSP on Linux x86-64 (defined below);
 * - the page's text rendering turned the "\n" of both printf formats into
 *   "0"; they are "\n" again;
 * - the setup's "cpc_event_t event;" is Example 1's variable, declared
 *   once; "iter" is Example 1's too;
 * - events come from PERFEVENTS; the test sets
 *   PERFEVENTS=pic0=page-faults,pic1=syscalls:sys_enter_write;
 * - the computation: compute(1000), 1000 page faults per iteration, so
 *   that each of the 20 iterations takes one overflow of counter zero.
 */
#include "seed_error.h"
#include "seed_compute.h"
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <libcpc.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <ucontext.h>

#if defined(__x86_64__)
#define PC  REG_RIP
#define USP REG_RSP
#else
#error "the ucontext register names are given for x86-64 only"
#endif

#define PRESET0 (UINT64_MAX - UINT64_C(999))
#define PRESET1 0

void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	ucontext_t *uap = arg;
	cpc_event_t sample;
	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		psignal(sig, "example");
		psiginfo(sip, "example");
		return;
	}
	(void)printf("lwp%d - si_addr %p ucontext: %%pc %p %%sp %p\n",
	    _lwp_self(), (void *)sip->si_addr,
	    (void *)uap->uc_mcontext.gregs[PC],
	    (void *)uap->uc_mcontext.gregs[USP]);
	if (cpc_take_sample(&sample) == -1)
		error("can't sample: %s", strerror(errno));
	(void)printf("0x%" PRIx64 " 0x%" PRIx64 "\n", sample.ce_pic[0],
	    sample.ce_pic[1]);
	(void)fflush(stdout);
	sample.ce_pic[0] = PRESET0;
	sample.ce_pic[1] = PRESET1;
	if (cpc_bind_event(&sample, CPC_BIND_EMT_OVF) == -1)
		error("cannot bind lwp%d: %s", _lwp_self(), strerror(errno));
}

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

	struct sigaction act;

	act.sa_sigaction = emt_handler;
	bzero(&act.sa_mask, sizeof(act.sa_mask));
	act.sa_flags = SA_RESTART | SA_SIGINFO;
	if (sigaction(SIGEMT, &act, NULL) == -1)
		error("sigaction: %s", strerror(errno));
	event.ce_pic[0] = PRESET0;
	event.ce_pic[1] = PRESET1;
	if (cpc_bind_event(&event, CPC_BIND_EMT_OVF) == -1)
		error("cannot bind lwp%d: %s", _lwp_self(), strerror(errno));
	for (iter = 1; iter <= 20; iter++) {
		/* ==> Computation to be measured goes here <== */
		compute(1000);
	}
	cpc_bind_event(NULL, 0); /* done */
	return (0);
}
