/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Periodic ticks: one timerfd for the whole run, armed with absolute
 * deadlines start + k * msec on CLOCK_MONOTONIC, so that late wakeups
 * never accumulate into drift. At each deadline every followed process
 * that ticks is served; a process followed later (a forked child) joins
 * the schedule, so the rows of all processes come at the same instants.
 * Nothing is stopped at a tick: the tick callback reads counters, which
 * the kernel keeps per thread. Threads that came with no clone event are
 * taken in first (workers.c).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "pctx_impl.h"

static int
timer_open(unsigned msec)
{
	struct itimerspec its = { 0 };
	struct epoll_event ev = { .events = EPOLLIN,
		.data.ptr = &pctxlib_tracer.timerfd };
	struct timespec now;
	int fd;

	if ((fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) <
	    0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	its.it_interval.tv_sec = msec / 1000;
	its.it_interval.tv_nsec = (long)(msec % 1000) * 1000000;
	its.it_value.tv_sec = now.tv_sec + its.it_interval.tv_sec;
	its.it_value.tv_nsec = now.tv_nsec + its.it_interval.tv_nsec;
	if (its.it_value.tv_nsec >= 1000000000) {
		its.it_value.tv_sec++;
		its.it_value.tv_nsec -= 1000000000;
	}
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) != 0 ||
	    epoll_ctl(pctxlib_tracer.epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		close(fd);
		return -1;
	}
	pctxlib_tracer.timerfd = fd;
	return 0;
}

/* The first process that ticks starts the run's timer, at its interval. */
int
pctxlib_tick_start(pctx_t *pctx)
{
	pctx->ticking = pctx->msec != 0;
	if (!pctx->ticking || pctxlib_tracer.timerfd >= 0)
		return 0;
	return timer_open(pctx->msec);
}

void
pctxlib_tick_close(void)
{
	if (pctxlib_tracer.timerfd >= 0)
		close(pctxlib_tracer.timerfd);
	pctxlib_tracer.timerfd = -1;
}

/*
 * Deadlines that passed unserved are skipped, counted, and (as in the
 * original) taken from the samples left, except the last one.
 */
static void
skip_missed(pctx_t *pctx, uint64_t expirations)
{
	uint64_t skipped = expirations - 1, take;

	pctx->missed += skipped;
	if (pctx->remaining == 0)
		return;
	take = skipped < pctx->remaining - 1 ? skipped : pctx->remaining - 1;
	pctx->remaining -= take;
}

/*
 * The deadlines passed since the last tick (the timerfd's count) are
 * served: every process that ticks, in the order they were created, has
 * its new threads taken in, then its LWPs' ticks in LWP order, then its
 * clients' end of the tick. Callbacks cannot remove LWPs here (a request
 * waits for the loop), so a plain walk is safe.
 */
void
pctxlib_tick_serve(void)
{
	uint64_t expirations;
	struct lwp *lwp;
	pctx_t *pctx;

	if (pctxlib_tracer.timerfd < 0 ||
	    read(pctxlib_tracer.timerfd, &expirations, sizeof(expirations)) !=
		sizeof(expirations))
		return; /* woken for nothing */
	TAILQ_FOREACH (pctx, &pctxlib_tracer.all, all_entry) {
		if (pctx->root != pctxlib_tracer.root || !pctx->ticking ||
		    !pctxlib_proc_live(pctx))
			continue;
		if (expirations > 1)
			skip_missed(pctx, expirations);
		pctxlib_workers_find(pctx);
		TAILQ_FOREACH (lwp, &pctx->order, order_entry)
			pctxlib_cb_tick(pctx, lwp);
		pctxlib_cb_tick_end(pctx);
		if (pctx->remaining != 0 && --pctx->remaining == 0)
			pctxlib_proc_request(pctx, PENDING_FINISH);
	}
}
