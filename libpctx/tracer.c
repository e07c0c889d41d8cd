/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tracer: the one state shared by every pctx of this process, and by
 * every file of libpctx (pctx_impl.h says what is in it).
 */
#include "pctx_impl.h"

struct tracer pctxlib_tracer = {
	.tids = RB_INITIALIZER(&pctxlib_tracer.tids),
	.all = TAILQ_HEAD_INITIALIZER(pctxlib_tracer.all),
	.pending = LIST_HEAD_INITIALIZER(pctxlib_tracer.pending),
	.epfd = -1,
	.sigfd = -1,
	.timerfd = -1,
	.beacon = -1,
	.spare = -1,
	.lwp_graves = SLIST_HEAD_INITIALIZER(pctxlib_tracer.lwp_graves),
	.pctx_graves = SLIST_HEAD_INITIALIZER(pctxlib_tracer.pctx_graves),
};
