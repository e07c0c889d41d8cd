/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpustat's per-CPU threads: each binds its CPU's sets (all of them: they
 * take turns with no gap between), samples on an absolute schedule, and
 * prints a row per sample. A soaker thread keeps the CPU busy in user
 * mode while a system-only set counts.
 *
 * A sample time that passes while the thread cannot run (cpustat was
 * stopped, or not scheduled in time) is missed. The sample taken when it
 * runs again is a gap row: it holds all the intervals since the CPU's
 * previous row and says how many, and each of them counts against the
 * count. No tick row ever holds more than its own interval.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"
#include "cpustat.h"
#include "diag.h"

#define MSEC 1000000LL

/* A CPU's schedule: the sample time awaited, and where in a -p cycle. */
struct schedule {
	hrtime_t next;
	unsigned long in_cycle; /* sample times of this cycle so far */
};

/*
 * On to the sample time after next: an interval later, and after the
 * rest of -p first when a cycle of the sets ends at next. True then.
 */
static bool
schedule_advance(const struct cpustat *cs, struct schedule *sch)
{
	bool rest = cs->opt.rest_ms > 0 &&
	    ++sch->in_cycle == (unsigned long)setgrp_nsets(cs->specs);

	if (rest) {
		sch->in_cycle = 0;
		sch->next += cs->opt.rest_ms * MSEC;
	}
	sch->next += (hrtime_t)cs->opt.interval_ms * MSEC;
	return rest;
}

/*
 * The sample time awaited has passed, and the sample was read at read.
 * The intervals it stands for: 1, and 1 more for each later sample time
 * that had passed as well by then (at most left), the schedule moved on
 * to the last of them.
 */
static unsigned long
schedule_catch_up(const struct cpustat *cs, struct schedule *sch,
    unsigned long left, hrtime_t read)
{
	struct schedule later = *sch;
	unsigned long n = 1;

	while (n < left) {
		(void)schedule_advance(cs, &later);
		if (later.next > read)
			break;
		*sch = later;
		n++;
	}
	return n;
}

/*
 * Called at every sample: only a change wakes the soaker, which else
 * would run at each one, in the user-mode slices it is to keep out of.
 */
static void
set_soak(struct cpu_worker *w, bool on)
{
	if (!w->soaker_started)
		return;
	pthread_mutex_lock(&w->soak_lock);
	if (w->soak != on) {
		/* Atomic: the soaker's spin reads it without the lock. */
		__atomic_store_n(&w->soak, on, __ATOMIC_RELAXED);
		pthread_cond_signal(&w->soak_cv);
	}
	pthread_mutex_unlock(&w->soak_lock);
}

/* The soaker runs while the set counting now counts system mode only. */
static void
soak_for_current(struct cpu_worker *w)
{
	struct cpustat *cs = w->cs;
	int c = setgrp_current(w->grp);

	set_soak(w, cs->opt.soak && setgrp_spec(cs->specs, c)->system_only);
}

void *
cpu_soaker_main(void *arg)
{
	struct cpu_worker *w = arg;
	struct sched_param none = { 0 };
	cpu_set_t one;
	bool exiting;

	CPU_ZERO(&one);
	CPU_SET(w->cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		diag(NULL, "couldn't bind soaker thread to cpu%d: %s\n", w->cpu,
		    strerror(errno));
	if (sched_setscheduler(0, SCHED_IDLE, &none) != 0)
		diag(NULL,
		    "couldn't put soaker thread in the idle "
		    "scheduling class: %s\n",
		    strerror(errno));
	for (;;) {
		pthread_mutex_lock(&w->soak_lock);
		while (!w->soak && !w->soaker_exit)
			pthread_cond_wait(&w->soak_cv, &w->soak_lock);
		exiting = w->soaker_exit;
		pthread_mutex_unlock(&w->soak_lock);
		if (exiting)
			return NULL;
		while (__atomic_load_n(&w->soak, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&w->soaker_exit, __ATOMIC_RELAXED))
			;
	}
}

/*
 * The row of the sample just taken of set s, standing for n intervals:
 * a tick, or a gap row after sample times were missed.
 */
static void
emit_row(struct cpu_worker *w, int s, unsigned long n)
{
	struct cpustat *cs = w->cs;
	const struct set_counts *c = setgrp_slice(w->grp, s);
	struct out_row row = {
		.label = n > 1 ? "gap" : "tick",
		.pid = -1,
		.lwp = -1,
		.tid = -1,
		.cpu = w->cpu,
		.cpus = &w->self,
		.ncpus = -1,
		.setno = s,
		.intervals = n,
		.when = c->when,
		.values = c->values,
		.tick = c->tick,
		.enabled_ns = c->times.enabled_ns,
		.running_ns = c->times.running_ns,
		/* A CPU's counters are enabled all along: wall time. */
		.elapsed_ns = c->times.enabled_ns,
	};

	pthread_mutex_lock(&cs->out_lock);
	if (w->unit != NULL) {
		cpustat_unit_add(w, s, n);
	} else {
		output_timestamp(cs->out);
		output_row(cs->out, &row);
		cpustat_flush(cs);
	}
	pthread_mutex_unlock(&cs->out_lock);
}

/* A number from a /proc/sys file, or fallback. */
static int
sysctl_int(const char *path, int fallback)
{
	FILE *f;
	int v;

	if ((f = fopen(path, "re")) == NULL)
		return fallback;
	if (fscanf(f, "%d", &v) != 1)
		v = fallback;
	fclose(f);
	return v;
}

/* What the user can do about a CPU that cannot be bound, said once. */
static void
hint_cpu_error(struct cpustat *cs, int err)
{
	if (cs->hint_given)
		return;
	if (err == EACCES || err == EPERM) {
		diag(NULL,
		    "system-wide counting needs root, CAP_PERFMON or "
		    "CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 0 "
		    "(it is %d)\n",
		    sysctl_int("/proc/sys/kernel/perf_event_paranoid", -9));
	} else if (err == EAGAIN) {
		diag(NULL, "%s\n",
		    cs->opt.hold == CPC_BIND_EXCLUSIVE ?
			"without --exclusive, cpustat counts beside them" :
			"fewer events in a set, or --shared (counted in "
			"turns with the others, multiplexed), count beside "
			"them");
	} else
		return;
	cs->hint_given = true;
}

static void
report_cpu_error(struct cpu_worker *w)
{
	struct cpustat *cs = w->cs;
	int err = errno;

	const char *why = cpustat_bind_why();

	pthread_mutex_lock(&cs->out_lock);
	if (err == EAGAIN && why[0] != '\0')
		diag(NULL, "cpu%d - %s: %s\n", w->cpu, strerror(err), why);
	else if (why[0] != '\0')
		diag(NULL, "cpu%d - %s\n", w->cpu, why);
	else
		diag(NULL, "cpu%d - %s\n", w->cpu, strerror(err));
	cpustat_bind_why_clear();
	hint_cpu_error(cs, err);
	pthread_mutex_unlock(&cs->out_lock);
	w->status = 3;
	w->err = err;
}

/*
 * Taking a CPU offline detaches its counters for good: the kernel does
 * not bring them back when the CPU returns. A group's read then fails
 * with EIO, a lone counter's enabled time stands still, and binding the
 * CPU again fails with ENOSYS. Any of these, after the CPU was measured,
 * means it went offline (perhaps only briefly): say so once, and go on
 * with the other CPUs.
 */
static bool
cpu_lost(struct cpu_worker *w, int err)
{
	if (err != EIO && err != ENOSYS && cpu_is_online(w->cpu)) {
		errno = err;
		return false;
	}
	pthread_mutex_lock(&w->cs->out_lock);
	diag(NULL, "cpu%d went offline; it is no longer measured\n", w->cpu);
	pthread_mutex_unlock(&w->cs->out_lock);
	return true;
}

/* Sample the current set; 1: the CPU went offline, -1: an error. */
static int
take_sample(struct cpu_worker *w)
{
	const struct set_counts *c;

	if ((c = setgrp_sample(w->grp)) == NULL)
		return cpu_lost(w, errno) ? 1 : -1;
	if (c->times.enabled_ns == 0)
		return cpu_lost(w, EIO) ? 1 : -1;
	return 0;
}

/*
 * After a cycle of the sets (-p), rest until the rest's end, just before
 * the next sample time: the next set has taken over at once, and what it
 * counts in the rest is left out by a sample when the rest ends. A rest
 * that ran past the sample time after next (cpustat was stopped) is part
 * of the gap that follows, and is kept in its row; one that ended late,
 * but in time for a tick, is left out all the same: a tick holds no more
 * than its own interval. 1 when the run was asked to stop meanwhile.
 */
static int
rest(struct cpu_worker *w, const struct schedule *sch)
{
	struct cpustat *cs = w->cs;
	struct schedule after = *sch;

	set_soak(w, false);
	if (cpustat_wait_until(
		cs, sch->next - (hrtime_t)cs->opt.interval_ms * MSEC))
		return 1;
	(void)schedule_advance(cs, &after);
	if (output_now() < after.next && setgrp_rebase(w->grp) != 0)
		return cpu_lost(w, errno) ? 1 : -1;
	soak_for_current(w);
	return 0;
}

/*
 * One sample and its row, standing for the intervals whose sample times
 * had passed when it was read (taken from *left), then the next set's
 * turn; 1 ends the loop quietly, -1 with an error. After the last sample
 * nothing follows. The intervals are counted from the read, not from
 * the wake-up before it: a stop in between is in the row, which is then
 * a gap row. The next set takes over before the row is written: a row
 * waits for the output, which the other CPUs' rows share, and the set
 * just read would count meanwhile into its next turn.
 */
static int
sample_once(struct cpu_worker *w, struct schedule *sch, unsigned long *left)
{
	int measured = setgrp_current(w->grp), r, err;
	unsigned long n;
	bool resting;

	if ((r = take_sample(w)) != 0)
		return r;
	n = schedule_catch_up(
	    w->cs, sch, *left, setgrp_slice(w->grp, measured)->when);
	if (w->cs->opt.count != 0)
		*left -= n;
	if (*left == 0) {
		emit_row(w, measured, n);
		return 0;
	}
	resting = schedule_advance(w->cs, sch);
	err = setgrp_rotate(w->grp) != 0 ? errno : 0;
	emit_row(w, measured, n);
	if (err != 0)
		return cpu_lost(w, err) ? 1 : -1;
	if (resting)
		return rest(w, sch);
	soak_for_current(w);
	return 0;
}

/*
 * Every CPU keeps the same schedule, from the common start: a thread
 * that started late has a shorter first interval, not rows out of step
 * with the others. The count counts intervals, missed ones too. A stop
 * after a sample time still takes that sample: a thread that woke late
 * counts the interval the other CPUs counted, and the totals hold every
 * CPU.
 */
static void
sampling_loop(struct cpu_worker *w)
{
	struct cpustat *cs = w->cs;
	struct schedule sch = {
		.next = cs->start + (hrtime_t)cs->opt.interval_ms * MSEC,
	};
	unsigned long left = cs->opt.count != 0 ? cs->opt.count : ULONG_MAX;
	bool stop;
	int r;

	for (;;) {
		stop = cpustat_wait_until(cs, sch.next);
		if (stop && output_now() < sch.next)
			return;
		if ((r = sample_once(w, &sch, &left)) != 0) {
			if (r < 0)
				report_cpu_error(w);
			return;
		}
		if (left == 0 || stop)
			return;
	}
}

void *
cpu_worker_main(void *arg)
{
	struct cpu_worker *w = arg;
	struct cpustat *cs = w->cs;

	if (setgrp_bind_cpu(w->grp, w->cpu, cs->opt.hold) != 0) {
		if (errno != ENOSYS || !cpu_lost(w, errno))
			report_cpu_error(w);
	} else {
		soak_for_current(w);
		sampling_loop(w);
		set_soak(w, false);
		setgrp_unbind(w->grp);
	}
	if (w->unit != NULL) {
		pthread_mutex_lock(&cs->out_lock);
		cpustat_unit_leave(w);
		pthread_mutex_unlock(&cs->out_lock);
	}
	pthread_mutex_lock(&cs->stop_lock);
	if (--cs->running == 0)
		pthread_kill(cs->main_thread, SIGUSR1);
	pthread_mutex_unlock(&cs->stop_lock);
	return NULL;
}
