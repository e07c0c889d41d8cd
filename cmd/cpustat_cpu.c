/*
 * cpustat's per-CPU threads: each binds its CPU's sets, samples on an
 * absolute schedule, and prints a row per sample. A soaker thread keeps
 * the CPU busy in user mode while a system-only set is bound.
 */
#include <errno.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"
#include "cpustat.h"

#define NSEC	1000000000LL

static void
timespec_add_ms(struct timespec *ts, long ms)
{
	long long ns = (long long)ts->tv_nsec + (long long)ms * 1000000LL;

	ts->tv_sec += (time_t)(ns / NSEC);
	ts->tv_nsec = (long)(ns % NSEC);
}

static bool
timespec_passed(const struct timespec *ts)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > ts->tv_sec ||
	    (now.tv_sec == ts->tv_sec && now.tv_nsec > ts->tv_nsec);
}

static void
set_soak(struct cpu_worker *w, bool on)
{
	if (!w->soaker_started)
		return;
	pthread_mutex_lock(&w->soak_lock);
	w->soak = on;
	pthread_cond_signal(&w->soak_cv);
	pthread_mutex_unlock(&w->soak_lock);
}

void *
cpu_soaker_main(void *arg)
{
	struct cpu_worker *w = arg;
	struct sched_param none = { 0 };
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(w->cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		diag(NULL, "couldn't bind soaker thread to cpu%d: %s\n",
		    w->cpu, strerror(errno));
	if (sched_setscheduler(0, SCHED_IDLE, &none) != 0)
		diag(NULL, "couldn't put soaker thread in the idle "
		    "scheduling class: %s\n", strerror(errno));
	for (;;) {
		pthread_mutex_lock(&w->soak_lock);
		while (!w->soak && !w->soaker_exit)
			pthread_cond_wait(&w->soak_cv, &w->soak_lock);
		pthread_mutex_unlock(&w->soak_lock);
		if (w->soaker_exit)
			return NULL;
		while (__atomic_load_n(&w->soak, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&w->soaker_exit, __ATOMIC_RELAXED))
			;
	}
}

static void
print_timestamp(struct cpustat *cs)
{
	char buf[128];
	time_t now = time(NULL);
	struct tm tm;

	if (cs->timestamp == 'u') {
		printf("%lld\n", (long long)now);
	} else if (cs->timestamp == 'd') {
		localtime_r(&now, &tm);
		if (strftime(buf, sizeof(buf), nl_langinfo(_DATE_FMT), &tm) > 0)
			printf("%s\n", buf);
	}
}

static void
print_table_row(struct cpustat *cs, const struct out_row *row,
    const struct spec *spec)
{
	int i;

	printf("%7.3f %3d %5s ", row->time, row->cpu, row->label);
	if (cs->tick_col)
		printf("%9lld ", (long long)row->tick);
	for (i = 0; i < spec->nreqs; i++)
		printf("%9lld ", (long long)row->values[i]);
	if (cs->grp.nspecs > 1)
		printf(" # %s", spec->text);
	putchar('\n');
}

/* The row of one sample; enabled and running are the set's times now. */
static void
emit_tick(struct cpu_worker *w, int setno, uint64_t enabled,
    uint64_t running)
{
	struct cpustat *cs = w->cs;
	cpc_buf_t *delta = w->rot->delta[setno];
	const struct spec *spec = cs->grp.specs[setno];
	uint64_t values[spec->nreqs > 0 ? spec->nreqs : 1];
	struct out_row row = {
		.pid = -1, .lwp = -1, .tid = -1, .cpu = w->cpu,
		.label = "tick", .setno = setno, .values = values,
		.has_tick = cs->tick_col,
	};
	int i;

	for (i = 0; i < spec->nreqs; i++)
		(void)cpc_buf_get(cs->cpc, delta, i, &values[i]);
	row.time = (double)(cpc_buf_hrtime(cs->cpc, delta) - cs->start) / 1e9;
	row.tick = cpc_buf_tick(cs->cpc, delta);
	row.enabled_ns = enabled - w->prev_enabled;
	row.running_ns = running - w->prev_running;
	w->prev_enabled = enabled;
	w->prev_running = running;
	w->tot_enabled[setno] += row.enabled_ns;
	w->tot_running[setno] += row.running_ns;
	pthread_mutex_lock(&cs->out_lock);
	if (cs->out.format == OUT_TABLE) {
		print_timestamp(cs);
		print_table_row(cs, &row, spec);
		output_note_multiplex(&cs->out, &row);
	} else {
		output_row(&cs->out, &row);
	}
	fflush(stdout);
	cpustat_check_output(cs);
	pthread_mutex_unlock(&cs->out_lock);
}

static int
bind_current(struct cpu_worker *w)
{
	struct cpustat *cs = w->cs;
	int c = w->rot->current;

	if (cpc_bind_cpu(cs->cpc, w->cpu, w->rot->sets[c], 0) != 0)
		return -1;
	w->prev_enabled = 0;
	w->prev_running = 0;
	set_soak(w, cs->soak && cs->grp.specs[c]->system_only);
	return 0;
}

static void
report_cpu_error(struct cpu_worker *w)
{
	struct cpustat *cs = w->cs;
	int err = errno, paranoid = -9;
	FILE *f;

	pthread_mutex_lock(&cs->out_lock);
	diag(NULL, "cpu%d - %s\n", w->cpu, strerror(err));
	if ((err == EACCES || err == EPERM) && !cs->hint_given) {
		cs->hint_given = true;
		if ((f = fopen("/proc/sys/kernel/perf_event_paranoid", "r")) !=
		    NULL) {
			if (fscanf(f, "%d", &paranoid) != 1)
				paranoid = -9;
			fclose(f);
		}
		diag(NULL, "system-wide counting needs root, CAP_PERFMON or "
		    "CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 0 "
		    "(it is %d)\n", paranoid);
	}
	pthread_mutex_unlock(&cs->out_lock);
	w->status = 3;
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
take_sample(struct cpu_worker *w, uint64_t *enabled, uint64_t *running)
{
	struct cpustat *cs = w->cs;

	if (rotation_sample(cs->cpc, w->rot) != 0)
		return cpu_lost(w, errno) ? 1 : -1;
	(void)cpc_set_times(cs->cpc, w->rot->sets[w->rot->current], enabled,
	    running);
	if (*enabled == w->prev_enabled)
		return cpu_lost(w, EIO) ? 1 : -1;
	return 0;
}

/*
 * After a rest (-p), move on to the next set. The next set is bound
 * before the old one is let go, so the CPU is never free for another
 * cpustat in between. A single set stays bound and counting: a sample
 * taken now makes the next row start here, so the rest is not counted.
 */
static int
rotate(struct cpu_worker *w, int measured)
{
	struct cpustat *cs = w->cs;
	struct rotation *rot = w->rot;
	uint64_t enabled, running;
	int r, err;

	if (cs->grp.nspecs == 1) {
		if ((r = take_sample(w, &enabled, &running)) != 0)
			return r;
		w->prev_enabled = enabled;
		w->prev_running = running;
		set_soak(w, cs->soak && cs->grp.specs[0]->system_only);
		return 0;
	}
	rotation_next(cs->cpc, rot);
	if (bind_current(w) != 0) {
		err = errno;
		(void)cpc_unbind(cs->cpc, rot->sets[measured]);
		return cpu_lost(w, err) ? 1 : -1;
	}
	return cpc_unbind(cs->cpc, rot->sets[measured]);
}

/*
 * One sample and its row; 1 ends the loop quietly, -1 with an error.
 * After the last sample there is no rest and no next set.
 */
static int
sample_once(struct cpu_worker *w, struct timespec *next,
    unsigned long *in_cycle, bool last)
{
	struct cpustat *cs = w->cs;
	struct rotation *rot = w->rot;
	int measured = rot->current, r;
	uint64_t enabled, running;

	if ((r = take_sample(w, &enabled, &running)) != 0)
		return r;
	rotation_accumulate(cs->cpc, rot);
	emit_tick(w, measured, enabled, running);
	if (last || (cs->grp.nspecs == 1 && cs->rest_ms <= 0))
		return 0;
	if (cs->rest_ms > 0 && ++*in_cycle == (unsigned long)cs->grp.nspecs) {
		*in_cycle = 0;
		set_soak(w, false);
		timespec_add_ms(next, cs->rest_ms);
		if (cpustat_wait_until(cs, next))
			return 1;
	} else if (cs->grp.nspecs == 1) {
		return 0;
	}
	return rotate(w, measured);
}

static void
sampling_loop(struct cpu_worker *w)
{
	struct cpustat *cs = w->cs;
	struct timespec next;
	unsigned long samples = 0, in_cycle = 0;
	bool last;
	int r;

	/*
	 * Every CPU keeps the same schedule, from the common start: a thread
	 * that started late has a shorter first interval, not rows out of
	 * step with the others.
	 */
	next.tv_sec = (time_t)(cs->start / NSEC);
	next.tv_nsec = (long)(cs->start % NSEC);
	for (;;) {
		timespec_add_ms(&next, (long)cs->interval_ms);
		if (timespec_passed(&next)) {
			/* Overloaded: skip this sample, as the original does. */
			if (cs->count != 0 && ++samples >= cs->count)
				break;
			continue;
		}
		if (cpustat_wait_until(cs, &next))
			break;
		last = cs->count != 0 && samples + 1 >= cs->count;
		if ((r = sample_once(w, &next, &in_cycle, last)) != 0) {
			if (r < 0)
				report_cpu_error(w);
			return;
		}
		if (cs->count != 0 && ++samples >= cs->count)
			break;
	}
}

void *
cpu_worker_main(void *arg)
{
	struct cpu_worker *w = arg;
	struct cpustat *cs = w->cs;
	int c;

	if (bind_current(w) != 0) {
		if (errno != ENOSYS || !cpu_lost(w, errno))
			report_cpu_error(w);
	} else {
		sampling_loop(w);
		c = w->rot->current;
		set_soak(w, false);
		if (cpc_unbind(cs->cpc, w->rot->sets[c]) != 0 && errno != EINVAL)
			diag(NULL, "error unbinding on cpu %d - %s\n", w->cpu,
			    strerror(errno));
	}
	pthread_mutex_lock(&cs->stop_lock);
	if (--cs->running == 0)
		pthread_kill(cs->main_thread, SIGUSR1);
	pthread_mutex_unlock(&cs->stop_lock);
	return NULL;
}

/* Sleep until an absolute time; true if the run was asked to stop. */
bool
cpustat_wait_until(struct cpustat *cs, const struct timespec *when)
{
	bool stop;

	pthread_mutex_lock(&cs->stop_lock);
	while (!cs->stop &&
	    pthread_cond_timedwait(&cs->stop_cv, &cs->stop_lock, when) == 0)
		;
	stop = cs->stop;
	pthread_mutex_unlock(&cs->stop_lock);
	return stop;
}
