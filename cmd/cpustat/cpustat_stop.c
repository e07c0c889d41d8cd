/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpustat's run, as its threads share it: the stop that a signal or a
 * write error asks for, the sleep until a sample time that it cuts short,
 * and the flush after each row that asks for it on a write error.
 */
#include <time.h>

#include "cpustat.h"

#define NSEC 1000000000LL

/*
 * After a row (out_lock held, or one thread): a write error (a full disk,
 * /dev/full), said once by the output, stops the run, exit 1.
 */
void
cpustat_flush(struct cpustat *cs)
{
	if (output_flush(cs->out) == 0 || cs->write_failed)
		return;
	cs->write_failed = true;
	pthread_mutex_lock(&cs->stop_lock);
	cs->stop = true;
	pthread_cond_broadcast(&cs->stop_cv);
	pthread_mutex_unlock(&cs->stop_lock);
}

/*
 * Sleep until an absolute time (CLOCK_MONOTONIC ns); true if the run was
 * asked to stop.
 */
bool
cpustat_wait_until(struct cpustat *cs, hrtime_t when)
{
	struct timespec ts = {
		.tv_sec = (time_t)(when / NSEC),
		.tv_nsec = (long)(when % NSEC),
	};
	bool stop;

	pthread_mutex_lock(&cs->stop_lock);
	while (!cs->stop &&
	    pthread_cond_timedwait(&cs->stop_cv, &cs->stop_lock, &ts) == 0)
		;
	stop = cs->stop;
	pthread_mutex_unlock(&cs->stop_lock);
	return stop;
}
