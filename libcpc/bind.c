/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Binding a set to the calling LWP, to an LWP of a libpctx process, or to
 * a CPU, and what can be done to a bound set: restart, enable, disable,
 * switch. A bound set owns its perf groups (group.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cpc_impl.h"

/* What a walk of the handle's sets reads of a set's binding. */
void
cpclib_set_binding(cpc_set_t *set, enum cpc_bind_kind bound, pid_t tid)
{
	pthread_mutex_lock(&set->cpc->lock);
	set->bound = bound;
	set->tid = tid;
	pthread_mutex_unlock(&set->cpc->lock);
}

/* The set bound to the calling LWP through cpc_bind_curlwp, if any. */
cpc_set_t *
cpclib_curlwp_set(cpc_t *cpc)
{
	pid_t self = gettid();
	cpc_set_t *set;

	pthread_mutex_lock(&cpc->lock);
	LIST_FOREACH (set, &cpc->sets, link)
		if (set->bound == CPC_BOUND_CURLWP && set->tid == self)
			break;
	pthread_mutex_unlock(&cpc->lock);
	return set;
}

/* Sets that take turns: per-thread or per-CPU counting sets only. */
static bool
standby_allowed(const cpc_set_t *set, uint_t flags)
{
	return !(flags & CPC_BIND_STANDBY) || !set->asks_overflow;
}

int
cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags)
{
	cpc_set_t *old;

	if (set == NULL || set->cpc != cpc ||
	    (flags & ~(uint_t)CPC_BIND_LWP_INHERIT) != 0 || set->nreqs == 0) {
		errno = EINVAL;
		return -1;
	}
	if (set->bound != CPC_UNBOUND)
		(void)cpc_unbind(cpc, set);
	if ((old = cpclib_curlwp_set(cpc)) != NULL)
		(void)cpc_unbind(cpc, old);
	set->target_held = false;
	set->hold = CPC_HOLD_NONE;
	set->standby = false;
	if (cpclib_group_open(cpc, set, 0, -1,
		(flags & CPC_BIND_LWP_INHERIT) != 0, "cpc_bind_curlwp") != 0)
		return -1;
	cpclib_set_binding(set, CPC_BOUND_CURLWP, gettid());
	return 0;
}

/* EINVAL for a CPU that does not exist, ENOSYS for one that is offline. */
static int
check_cpu(processorid_t id)
{
	char path[96];
	FILE *f;
	int online = 1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", id);
	if (id < 0 || id >= CPU_SETSIZE || access(path, F_OK) != 0) {
		errno = EINVAL;
		return -1;
	}
	snprintf(
	    path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", id);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%d", &online) != 1)
			online = 1;
		fclose(f);
	}
	if (!online) {
		errno = ENOSYS;
		return -1;
	}
	return 0;
}

static int
pin_to_cpu(cpc_t *cpc, cpc_set_t *set, processorid_t id)
{
	cpu_set_t one;

	if (sched_getaffinity(
		0, sizeof(set->saved_affinity), &set->saved_affinity) != 0)
		CPU_ZERO(&set->saved_affinity);
	CPU_ZERO(&one);
	CPU_SET(id, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0) {
		cpclib_err_subcode(cpc, "cpc_bind_cpu", CPC_PBIND_FAILED);
		return -1;
	}
	return 0;
}

/* Whether the set counts anything on the CPU's hardware PMU. */
static bool
needs_pmu(const cpc_set_t *set)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].enc.hardware)
			return true;
	return false;
}

/* What the flags ask to hold of the PMU, for this set. */
static enum cpc_pmu_hold
hold_asked(const cpc_set_t *set, uint_t flags)
{
	if (!needs_pmu(set) || (flags & CPC_BIND_SHARED))
		return CPC_HOLD_NONE;
	return (flags & CPC_BIND_EXCLUSIVE) ? CPC_HOLD_EXCLUSIVE :
					      CPC_HOLD_PINNED;
}

static bool
cpu_flags_valid(const cpc_set_t *set, uint_t flags)
{
	const uint_t known =
	    CPC_BIND_STANDBY | CPC_BIND_SHARED | CPC_BIND_EXCLUSIVE;

	return (flags & ~known) == 0 &&
	    (flags & (CPC_BIND_SHARED | CPC_BIND_EXCLUSIVE)) !=
	    (CPC_BIND_SHARED | CPC_BIND_EXCLUSIVE) &&
	    standby_allowed(set, flags);
}

int
cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags)
{
	int saved;

	if (set == NULL || set->cpc != cpc || set->nreqs == 0 ||
	    !cpu_flags_valid(set, flags)) {
		errno = EINVAL;
		return -1;
	}
	if (set->bound != CPC_UNBOUND)
		(void)cpc_unbind(cpc, set);
	if (check_cpu(id) != 0 ||
	    (set->asks_overflow && cpclib_ovf_check(set, -1, false) != 0))
		return -1;
	if (pin_to_cpu(cpc, set, id) != 0)
		return -1;
	set->target_held = false;
	set->standby = (flags & CPC_BIND_STANDBY) != 0;
	set->hold = hold_asked(set, flags);
	if (cpclib_group_open(cpc, set, -1, id, false, "cpc_bind_cpu") != 0)
		goto fail;
	if (set->hold != CPC_HOLD_NONE && !set->standby &&
	    cpclib_group_on_pmu(set) != 0) {
		saved = errno;
		cpclib_group_close(set);
		errno = saved;
		if (errno == EAGAIN)
			cpclib_report_held(cpc, set, id);
		goto fail;
	}
	cpclib_set_binding(set, CPC_BOUND_CPU, set->tid);
	set->cpu = id;
	set->binder = gettid();
	return 0;

fail:
	saved = errno;
	if (CPU_COUNT(&set->saved_affinity) > 0)
		(void)sched_setaffinity(
		    0, sizeof(set->saved_affinity), &set->saved_affinity);
	errno = saved;
	return -1;
}

int
cpc_unbind(cpc_t *cpc, cpc_set_t *set)
{
	if (set == NULL || set->cpc != cpc || set->bound == CPC_UNBOUND) {
		errno = EINVAL;
		return -1;
	}
	cpclib_group_close(set);
	if (set->bound == CPC_BOUND_CPU) {
		if (CPU_COUNT(&set->saved_affinity) > 0 &&
		    set->binder == gettid())
			(void)sched_setaffinity(0, sizeof(set->saved_affinity),
			    &set->saved_affinity);
		set->cpu = -1;
	}
	cpclib_set_binding(set, CPC_UNBOUND, set->tid);
	return 0;
}

static int
curlwp_ioctl(cpc_t *cpc, unsigned long request, bool want_disabled)
{
	cpc_set_t *set = cpclib_curlwp_set(cpc);

	/* None of its own: maybe its controller bound some (cputrack). */
	if (set == NULL)
		return cpclib_pctx_ask_counting(!want_disabled);
	if (set->disabled == want_disabled) {
		errno = EINVAL;
		return -1;
	}
	if (cpclib_group_ioctl(set, request) != 0)
		return -1;
	set->disabled = want_disabled;
	return 0;
}

int
cpc_enable(cpc_t *cpc)
{
	return curlwp_ioctl(cpc, PERF_EVENT_IOC_ENABLE, false);
}

int
cpc_disable(cpc_t *cpc)
{
	return curlwp_ioctl(cpc, PERF_EVENT_IOC_DISABLE, true);
}

int
cpc_request_preset(cpc_t *cpc, int index, uint64_t preset)
{
	cpc_set_t *set = cpclib_curlwp_set(cpc);

	if (set == NULL || index < 0 || index >= set->nreqs) {
		errno = EINVAL;
		return -1;
	}
	set->reqs[index].preset = preset;
	return 0;
}

/*
 * Counts restart from the presets. A group's counters are reset in the
 * kernel. An inheriting set's are not: a reset does not reach what
 * threads that already exited counted, so its current values become the
 * new origin instead. Like the Solaris kernel, a restart also resumes a
 * set that cpc_disable stopped, or that an overflow froze; an
 * interrupting set is stopped first, so that its periods start afresh.
 */
int
cpc_set_restart(cpc_t *cpc, cpc_set_t *set)
{
	int i;

	if (set == NULL || set->cpc != cpc || set->bound == CPC_UNBOUND) {
		errno = EINVAL;
		return -1;
	}
	if (set->sampling && cpclib_ovf_reload(set) != 0)
		return -1;
	/* A scaled set's estimates start again from the times of now. */
	if (set->read_each || set->scale) {
		if (cpclib_set_read(set) != 0)
			return -1;
	}
	if (!set->read_each &&
	    cpclib_group_ioctl(set, PERF_EVENT_IOC_RESET) != 0)
		return -1;
	for (i = 0; i < set->nreqs; i++) {
		set->reqs[i].start = set->reqs[i].preset;
		set->reqs[i].base =
		    set->read_each ? cpclib_read_value(set, i) : 0;
	}
	if (set->scale)
		cpclib_estimates_restart(set);
	set->frozen = false;
	if (!set->standby &&
	    cpclib_group_ioctl(set, PERF_EVENT_IOC_ENABLE) != 0)
		return -1;
	set->disabled = false;
	return 0;
}

static bool
same_target(const cpc_set_t *a, const cpc_set_t *b)
{
	if (a->bound != b->bound)
		return false;
	if (a->bound == CPC_BOUND_CPU)
		return a->cpu == b->cpu;
	return a->bound == CPC_BOUND_PCTX && a->tid == b->tid;
}

/* Start `to`, then stop `from`: no event falls between them. */
static int
overlap_switch(cpc_set_t *from, cpc_set_t *to)
{
	int saved;

	if (cpclib_group_leader(to, true) != 0)
		return -1;
	if (cpclib_group_leader(from, false) != 0) {
		saved = errno;
		(void)cpclib_group_leader(to, false);
		errno = saved;
		return -1;
	}
	return 0;
}

/*
 * Groups pinned on a CPU's PMU need their counters while they count, and
 * two of them may not fit together (two that each want the PMU alone
 * never do): stop `from` first. If `to` cannot go on (another took its
 * counters in between), `from` counts on and the switch fails with
 * EAGAIN.
 */
static int
handover_switch(cpc_set_t *from, cpc_set_t *to)
{
	int saved;

	if (cpclib_group_leader(from, false) != 0)
		return -1;
	if (cpclib_group_leader(to, true) == 0 && cpclib_group_on_pmu(to) == 0)
		return 0;
	if (errno == EAGAIN && to->bound == CPC_BOUND_CPU)
		cpclib_report_held(to->cpc, to, to->cpu);
	saved = errno;
	(void)cpclib_group_leader(to, false);
	(void)cpclib_group_leader(from, true);
	errno = saved;
	return -1;
}

/* Hand counting from one set to another bound to the same LWP or CPU. */
int
cpc_set_switch(cpc_t *cpc, cpc_set_t *from, cpc_set_t *to)
{
	if (from == NULL || to == NULL || from->cpc != cpc || to->cpc != cpc ||
	    from == to || from->standby || !to->standby ||
	    !same_target(from, to)) {
		errno = EINVAL;
		return -1;
	}
	/* A pair turned off by their LWP (cpc_disable) stays off. */
	if (!from->disabled &&
	    ((from->hold != CPC_HOLD_NONE || to->hold != CPC_HOLD_NONE) ?
		    handover_switch(from, to) :
		    overlap_switch(from, to)) != 0)
		return -1;
	to->disabled = from->disabled;
	to->standby = false;
	from->standby = true;
	return 0;
}
