/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The traced side of cpc_enable, cpc_disable and the v1 mode switches: a
 * process whose LWP has no counters of its own asks its tracer (pctx.c
 * serves the request there). Below the binding code, which calls it, and
 * below pctx.c.
 */
#include <errno.h>

#include "cpc_impl.h"

/*
 * In a traced process with no counters of its own: have the controller
 * act on those it bound to this LWP. EINVAL when there are none.
 */
static int
ask(int what)
{
	if (pctx_request(CPCLIB_REQ_FAMILY | what) >= 0)
		return 0;
	if (errno == ENOTSUP)
		errno = EINVAL;
	return -1;
}

int
cpclib_pctx_ask_counting(bool on)
{
	return ask(on ? CPCLIB_REQ_ENABLE : CPCLIB_REQ_DISABLE);
}

int
cpclib_pctx_ask_mode(uint_t flag, bool on)
{
	if (flag == CPC_COUNT_USER)
		return ask(on ? CPCLIB_REQ_USER_ON : CPCLIB_REQ_USER_OFF);
	return ask(on ? CPCLIB_REQ_SYSTEM_ON : CPCLIB_REQ_SYSTEM_OFF);
}
