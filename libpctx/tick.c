/*
 * Periodic ticks: one timerfd per followed process, armed with absolute
 * deadlines start + k * msec on CLOCK_MONOTONIC, so that late wakeups never
 * accumulate into drift. Nothing is stopped at a tick: the tick callback
 * reads counters, which the kernel keeps per thread.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "pctx_impl.h"

int
tick_start(pctx_t *pctx)
{
	struct itimerspec its = { 0 };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = pctx };
	struct timespec now;
	int fd;

	if (pctx->msec == 0)
		return 0;
	if ((fd = timerfd_create(CLOCK_MONOTONIC,
	    TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	its.it_interval.tv_sec = pctx->msec / 1000;
	its.it_interval.tv_nsec = (long)(pctx->msec % 1000) * 1000000;
	its.it_value.tv_sec = now.tv_sec + its.it_interval.tv_sec;
	its.it_value.tv_nsec = now.tv_nsec + its.it_interval.tv_nsec;
	if (its.it_value.tv_nsec >= 1000000000) {
		its.it_value.tv_sec++;
		its.it_value.tv_nsec -= 1000000000;
	}
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) != 0 ||
	    epoll_ctl(tracer.epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		close(fd);
		return -1;
	}
	pctx->timerfd = fd;
	return 0;
}

void
tick_stop(pctx_t *pctx)
{
	if (pctx->timerfd < 0)
		return;
	close(pctx->timerfd);
	pctx->timerfd = -1;
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

void
tick_fire(pctx_t *pctx)
{
	uint64_t expirations;
	struct lwp *lwp;
	id_t next = 1;

	if (pctx->timerfd < 0 || read(pctx->timerfd, &expirations,
	    sizeof(expirations)) != sizeof(expirations) || expirations == 0)
		return;
	if (expirations > 1)
		skip_missed(pctx, expirations);
	while (pctx->tick != NULL && pctx->state == PROC_ACTIVE &&
	    (lwp = lwp_at_or_after(pctx, next)) != NULL) {
		next = lwp->lwpid + 1;
		if ((lwp->flags & LWP_INITED) &&
		    pctx->tick(pctx, pctx->pid, lwp->lwpid, pctx->arg) != 0 &&
		    pctx->state == PROC_ACTIVE) {
			proc_fail(pctx);
			return;
		}
	}
	if (pctx->state == PROC_ACTIVE && pctx->remaining != 0 &&
	    --pctx->remaining == 0)
		proc_finish(pctx);
}
