/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Seed 000, cpc_bind_curlwp(3CPC), Example 2: "Write a signal handler to
 * catch overflow signals." The page gives the handler and the setup code
 * "after the code that opens the CPC library and creates a set"; that
 * code is Example 1's, so main() below is Example 1's opening followed by
 * Example 2's setup, as the page says.
 *
 * Changes to the example, and only these:
 * - the includes (the page shows none for this example: Example 1's, plus
 *   <signal.h>, <strings.h> for bzero, <ucontext.h>, <string.h>), and
 *   seed_error.h (error(), _lwp_self()) and seed_compute.h (compute());
 * - the ucontext register names: Solaris's gregs[PC] and gregs[SP] are
 *   gregs[REG_RIP] and gregs[REG_RSP] on Linux x86-64, and the pc and sp
 *   fields of uc_mcontext on Linux aarch64 (UC_PC and UC_SP, below);
 * - the handler's last statement lost its "if" and named variables that
 *   do not exist (ind1, val1); it is "if (cpc_request_preset(cpc, index,
 *   PRESET) != 0)", which is what its comment describes;
 * - the event comes from EVENT0 (the setup uses "event" without saying
 *   where it comes from); the test sets EVENT0=page-faults; main()
 *   declares "event" and Example 1's "iter";
 * - the global "index" is renamed by a macro after the includes: glibc's
 *   <string.h> declares index(3), and a variable of that name clashes;
 * - the computation: compute(1000), 1000 page faults per iteration, so
 *   that each of the 20 iterations takes one overflow.
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

#define index request_index

#if defined(__x86_64__)
#define UC_PC(uap) ((uap)->uc_mcontext.gregs[REG_RIP])
#define UC_SP(uap) ((uap)->uc_mcontext.gregs[REG_RSP])
#elif defined(__aarch64__)
#define UC_PC(uap) ((uap)->uc_mcontext.pc)
#define UC_SP(uap) ((uap)->uc_mcontext.sp)
#else
#error "the ucontext register names are given for x86-64 and aarch64 only"
#endif

cpc_t *cpc;
cpc_set_t *set;
cpc_buf_t *buf;
int index;

#define PRESET (UINT64_MAX - 999ull)

void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	ucontext_t *uap = arg;
	uint64_t val;

	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		psignal(sig, "example");
		psiginfo(sip, "example");
		return;
	}

	(void)printf("lwp%d - si_addr %p ucontext: %%pc %p %%sp %p\n",
	    _lwp_self(), (void *)sip->si_addr, (void *)UC_PC(uap),
	    (void *)UC_SP(uap));

	if (cpc_set_sample(cpc, set, buf) != 0)
		error("cannot sample: %s", strerror(errno));

	cpc_buf_get(cpc, buf, index, &val);

	(void)printf("0x%" PRIx64 "\n", val);
	(void)fflush(stdout);

	/*
	 * Update a request's preset and restart the counters. Counters which
	 * have not been preset with cpc_request_preset() will resume counting
	 * from their current value.
	 */
	if (cpc_request_preset(cpc, index, PRESET) != 0)
		error("cannot set preset for request %d: %s", index,
		    strerror(errno));
	if (cpc_set_restart(cpc, set) != 0)
		error("cannot restart lwp%d: %s", _lwp_self(), strerror(errno));
}

int
main(int argc, char *argv[])
{
	int iter;
	char *event;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		error("perf counters unavailable: %s", strerror(errno));

	if ((event = getenv("EVENT0")) == NULL)
		event = "EC_ref";

	if ((set = cpc_set_create(cpc)) == NULL)
		error("could not create set: %s", strerror(errno));

	struct sigaction act;

	act.sa_sigaction = emt_handler;
	bzero(&act.sa_mask, sizeof(act.sa_mask));
	act.sa_flags = SA_RESTART | SA_SIGINFO;
	if (sigaction(SIGEMT, &act, NULL) == -1)
		error("sigaction: %s", strerror(errno));

	if ((index = cpc_set_add_request(cpc, set, event, PRESET,
		 CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL)) != 0)
		error("cannot add request to set: %s", strerror(errno));

	if ((buf = cpc_buf_create(cpc, set)) == NULL)
		error("cannot create buffer: %s", strerror(errno));

	if (cpc_bind_curlwp(cpc, set, 0) == -1)
		error("cannot bind lwp%d: %s", _lwp_self(), strerror(errno));

	for (iter = 1; iter <= 20; iter++) {
		/* ==> Computation to be measured goes here <== */
		compute(1000);
	}

	cpc_unbind(cpc, set); /* done */

	return (0);
}
