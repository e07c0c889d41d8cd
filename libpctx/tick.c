/*
 * Periodic ticks: one timerfd for the whole run, armed with absolute
 * deadlines start + k * msec on CLOCK_MONOTONIC, so that late wakeups
 * never accumulate into drift. At each deadline every followed process
 * that ticks is served; a process followed later (a forked child) joins
 * the schedule, so the rows of all processes come at the same instants.
 * Nothing is stopped at a tick: the tick callback reads counters, which
 * the kernel keeps per thread.
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
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &tracer.timerfd };
	struct timespec now;
	int fd;

	if ((fd = timerfd_create(CLOCK_MONOTONIC,
	    TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
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
	    epoll_ctl(tracer.epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		close(fd);
		return -1;
	}
	tracer.timerfd = fd;
	return 0;
}

/* The first process that ticks starts the run's timer, at its interval. */
int
tick_start(pctx_t *pctx)
{
	pctx->ticking = pctx->msec != 0;
	if (!pctx->ticking || tracer.timerfd >= 0)
		return 0;
	return timer_open(pctx->msec);
}

void
tick_stop(pctx_t *pctx)
{
	pctx->ticking = false;
}

void
tick_close(void)
{
	if (tracer.timerfd >= 0)
		close(tracer.timerfd);
	tracer.timerfd = -1;
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

static void
tick_process(pctx_t *pctx, uint64_t expirations)
{
	struct lwp *lwp, *next;

	if (expirations > 1)
		skip_missed(pctx, expirations);
	/* Records a callback lets go of wait in the graveyard: next holds. */
	for (lwp = RB_MIN(lwpid_tree, &pctx->lwps); lwp != NULL &&
	    pctx->tick != NULL && pctx->state == PROC_ACTIVE; lwp = next) {
		next = RB_NEXT(lwpid_tree, &pctx->lwps, lwp);
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

void
tick_fire(void)
{
	uint64_t expirations;
	pctx_t *pctx, *next;

	if (tracer.timerfd < 0 || read(tracer.timerfd, &expirations,
	    sizeof(expirations)) != sizeof(expirations) || expirations == 0)
		return;
	LIST_FOREACH_SAFE(pctx, &tracer.all, all_entry, next) {
		if (tracer.root->terminate)
			return;
		if (pctx->root == tracer.root && pctx->state == PROC_ACTIVE &&
		    pctx->ticking)
			tick_process(pctx, expirations);
	}
}
