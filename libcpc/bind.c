/*
 * Binding a set to the calling LWP, to an LWP of a libpctx process, or to
 * a CPU. A bound set owns one perf group: fds[0] leads, the others follow
 * in request order, and one read() returns them all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cpc_impl.h"

static void
report_open_error(cpc_t *cpc, const char *fn, const struct cpc_request *req,
    int index, pid_t pid)
{
	int paranoid = -9;
	FILE *f;

	switch (errno) {
	case EACCES:
	case EPERM:
		if ((f = fopen("/proc/sys/kernel/perf_event_paranoid", "r")) !=
		    NULL) {
			if (fscanf(f, "%d", &paranoid) != 1)
				paranoid = -9;
			fclose(f);
		}
		/* Root passes the paranoid checks: the target refused. */
		if (pid > 0 && geteuid() == 0)
			cpc_err(cpc, fn, CPC_ATTR_REQUIRES_PRIVILEGE,
			    "%s: Permission denied (the process hides itself "
			    "from tracers: a set-id or unreadable program?)\n",
			    req->event);
		else
			cpc_err(cpc, fn, CPC_ATTR_REQUIRES_PRIVILEGE,
			    "%s: Permission denied (kernel.perf_event_paranoid "
			    "is %d; needs CAP_PERFMON or root, or a lower "
			    "kernel.perf_event_paranoid)\n", req->event,
			    paranoid);
		errno = EACCES;
		break;
	case EINVAL:
		/* The PMU could not fit this member into the group. */
		if (index > 0 && req->enc.hardware) {
			cpc_err_subcode(cpc, fn, CPC_RESOURCE_UNAVAIL);
		} else if (req->nattrs > 0) {
			cpc_err_subcode(cpc, fn, CPC_ATTRIBUTE_OUT_OF_RANGE);
		}
		break;
	case ENOENT:
	case EOPNOTSUPP:
		cpc_err(cpc, fn, CPC_INVALID_EVENT,
		    "%s: not supported by this kernel\n", req->event);
		errno = EINVAL;
		break;
	default:
		break;
	}
}

static bool
picnums_unique(const cpc_set_t *set)
{
	int i, j;

	for (i = 0; i < set->nreqs; i++)
		for (j = i + 1; j < set->nreqs; j++)
			if (set->reqs[i].picnum >= 0 &&
			    set->reqs[i].picnum == set->reqs[j].picnum)
				return false;
	return true;
}

void
cpc_set_close_counters(cpc_set_t *set)
{
	int i;

	for (i = set->nreqs - 1; i >= 0; i--)
		if (set->fds[i] >= 0)
			close(set->fds[i]);
	for (i = 0; i < set->nreqs; i++)
		set->fds[i] = -1;
}

/*
 * A group is started by hand once whole, an inheriting set at once. A
 * group on a thread that libpctx holds stopped, or whose first stop is
 * still due, starts whole when the thread next runs, so it needs no start
 * by hand (one syscall and one cross-CPU call less per thread a command
 * follows).
 */
static bool
starts_disabled(const cpc_set_t *set)
{
	if (cpc_set_samples(set))
		return true;
	return set->nreqs > 1 && !set->target_held;
}

/*
 * A sampling event the kernel refuses where the same counting event
 * opens: the hardware has no overflow interrupt (ENOTSUP, as Solaris).
 */
static bool
overflow_unsupported(struct perf_event_attr *attr, pid_t pid, int cpu,
    int group_fd)
{
	int saved = errno, fd;

	if (saved != EOPNOTSUPP && saved != EINVAL)
		return false;
	attr->sample_period = 0;
	attr->sigtrap = 0;
	attr->remove_on_exec = 0;
	attr->sample_type = 0;
	attr->wakeup_events = 0;
	if ((fd = cpc_perf_open(attr, pid, cpu, group_fd)) < 0) {
		errno = saved;
		return false;
	}
	close(fd);
	errno = ENOTSUP;
	return true;
}

static int
open_one(cpc_t *cpc, cpc_set_t *set, int i, pid_t pid, int cpu, bool inherit,
    const char *fn)
{
	struct perf_event_attr attr;
	int subcode;

	cpc_request_to_attr(&set->reqs[i], &attr);
	if ((subcode = cpc_attr_apply(cpc, &set->reqs[i], &attr)) != 0) {
		cpc_err_subcode(cpc, fn, subcode);
		errno = EINVAL;
		return -1;
	}
	cpc_ovf_attr(set, &set->reqs[i], &attr);
	if (inherit) {
		attr.inherit = 1;
		attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
	} else if (i == 0 && starts_disabled(set)) {
		/*
		 * Members that join a group whose leader already counts are
		 * not scheduled until the context is next rescheduled (a CPU
		 * context may wait long for that), and overflow records need
		 * their ring first: start the leader disabled and enable it
		 * once the group is whole and armed.
		 */
		attr.disabled = 1;
	}
	set->fds[i] = cpc_ring_perf_open(&set->reqs[i], &attr, pid, cpu,
	    inherit || i == 0 ? -1 : set->fds[0]);
	if (set->fds[i] < 0) {
		if (attr.sample_period != 0 && overflow_unsupported(&attr,
		    pid, cpu, inherit || i == 0 ? -1 : set->fds[0]))
			return -1;
		report_open_error(cpc, fn, &set->reqs[i], i, pid);
		return -1;
	}
	set->reqs[i].period = attr.sample_period;
	set->reqs[i].sample_type = attr.sample_type;
	return 0;
}

/*
 * Size the fd array and the read buffer for the requests the set has
 * now: requests may be added between an unbind and the next bind.
 */
static int
size_for_requests(cpc_set_t *set)
{
	size_t need = (3 + (size_t)cpc_read_stride(set) *
	    (size_t)set->nreqs) * sizeof(uint64_t);
	uint64_t *readbuf;
	int *fds;

	if (set->fds != NULL && set->readbuf_len == need)
		return 0;
	if ((fds = reallocarray(set->fds, (size_t)set->nreqs,
	    sizeof(int))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	set->fds = fds;
	if ((readbuf = realloc(set->readbuf, need)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	set->readbuf = readbuf;
	set->readbuf_len = need;
	return 0;
}

/* Request flags are checked at bind, as the Solaris kernel does. */
static bool
request_flags_valid(const cpc_set_t *set)
{
	const uint_t known = CPC_OVF_NOTIFY_EMT | CPC_COUNT_USER |
	    CPC_COUNT_SYSTEM | CPC_COUNT_HV | CPC_OVF_BUFFERED | CPC_OVF_CALLSTACK;
	int i;

	for (i = 0; i < set->nreqs; i++)
		if ((set->reqs[i].flags & ~known) != 0)
			return false;
	return true;
}

/*
 * Whether the PMU can schedule the set's hardware requests together.
 * The group is opened with its leader disabled, and some drivers
 * (armv8_pmuv3's validate_group) leave a disabled leader out when they
 * check that a new member fits: a group one counter too big then opens
 * and never runs. So a group of two or more hardware events is first
 * opened once on the calling thread with its leader enabled and counting
 * nothing (every mode excluded), where the driver checks every member.
 */
static bool
group_fits_probe(cpc_t *cpc, const cpc_set_t *set)
{
	struct perf_event_attr attr;
	int fds[set->nreqs], n;
	bool fits = true;

	for (n = 0; n < set->nreqs; n++) {
		cpc_request_to_attr(&set->reqs[n], &attr);
		if (cpc_attr_apply(cpc, &set->reqs[n], &attr) != 0)
			break;		/* the real open reports it */
		attr.exclude_user = attr.exclude_kernel = attr.exclude_hv = 1;
		if ((fds[n] = cpc_perf_open(&attr, 0, -1,
		    n == 0 ? -1 : fds[0])) < 0) {
			fits = !(errno == EINVAL && n > 0 &&
			    set->reqs[n].enc.hardware);
			break;
		}
	}
	while (n-- > 0)
		close(fds[n]);
	return fits;
}

/* One step of FNV-1a over a 64-bit value. */
static uint64_t
fnv_step(uint64_t h, uint64_t v)
{
	return (h ^ v) * 1099511628211ULL;
}

/* What identifies a set's requests to the PMU, for the answer cache. */
static uint64_t
set_signature(const cpc_set_t *set)
{
	uint64_t h = 1469598103934665603ULL;	/* the FNV offset basis */
	const struct cpc_request *r;
	uint_t a;
	int i;

	for (i = 0; i < set->nreqs; i++) {
		r = &set->reqs[i];
		h = fnv_step(h, r->enc.type);
		h = fnv_step(h, r->enc.config);
		h = fnv_step(h, r->enc.config1);
		h = fnv_step(h, r->flags);
		for (a = 0; a < r->nattrs; a++)
			h = fnv_step(h, r->attrs[a].ca_val);
	}
	return fnv_step(h, (uint64_t)set->nreqs);
}

/*
 * The commands bind the same sets to every thread they follow, so the
 * answer for a set's requests is kept and the probe opens are spent once.
 */
static bool
group_fits(cpc_t *cpc, const cpc_set_t *set)
{
	struct cpc_fits *c;
	uint64_t sig;
	int i, hw = 0;

	for (i = 0; i < set->nreqs; i++)
		hw += set->reqs[i].enc.hardware;
	if (hw < 2)
		return true;
	sig = set_signature(set);
	for (i = 0; i < CPC_FITS_CACHE; i++)
		if (cpc->fits[i].valid && cpc->fits[i].signature == sig)
			return cpc->fits[i].fits;
	c = &cpc->fits[cpc->fits_next++ % CPC_FITS_CACHE];
	c->signature = sig;
	c->fits = group_fits_probe(cpc, set);
	c->valid = true;
	return c->fits;
}

/* Open the set's group for a thread (pid) or a CPU (pid -1). */
int
cpc_set_open_counters(cpc_t *cpc, cpc_set_t *set, pid_t pid, int cpu,
    bool inherit, const char *fn)
{
	int i, saved;

	if (set->nreqs == 0 || set->nreqs > (int)cpc->npic ||
	    !picnums_unique(set)) {
		errno = EINVAL;
		return -1;
	}
	if (!request_flags_valid(set)) {
		cpc_err_subcode(cpc, fn, CPC_REQ_INVALID_FLAGS);
		errno = EINVAL;
		return -1;
	}
	set->lost_format = cpc_set_buffers(set);
	if (size_for_requests(set) != 0)
		return -1;
	for (i = 0; i < set->nreqs; i++) {
		set->fds[i] = -1;
		set->reqs[i].start = set->reqs[i].preset;
		set->reqs[i].base = 0;
		set->reqs[i].period = 0;
	}
	set->read_each = inherit;
	if (!inherit && !group_fits(cpc, set)) {
		cpc_err_subcode(cpc, fn, CPC_RESOURCE_UNAVAIL);
		errno = EINVAL;
		return -1;
	}
	if (cpc_ovf_prepare(cpc, set, pid, inherit, fn) != 0)
		return -1;
	for (i = 0; i < set->nreqs; i++)
		if (open_one(cpc, set, i, pid, cpu, inherit, fn) != 0)
			goto fail;
	if (cpc_ovf_arm(cpc, set, fn) != 0)
		goto fail;
	if (!inherit && starts_disabled(set) &&
	    ioctl(set->fds[0], PERF_EVENT_IOC_ENABLE, 0) != 0)
		goto fail;
	set->enabled_ns = set->running_ns = 0;
	set->disabled = false;
	return 0;

fail:
	saved = errno;
	cpc_ovf_disarm(set);
	cpc_set_close_counters(set);
	errno = saved;
	return -1;
}

/* The set bound to the calling LWP through cpc_bind_curlwp, if any. */
cpc_set_t *
cpc_curlwp_set(cpc_t *cpc)
{
	pid_t self = gettid();
	cpc_set_t *set;

	LIST_FOREACH(set, &cpc->sets, link)
		if (set->bound == CPC_BOUND_CURLWP && set->tid == self)
			return set;
	return NULL;
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
	if ((old = cpc_curlwp_set(cpc)) != NULL)
		(void)cpc_unbind(cpc, old);
	/*
	 * Note the generation before looking for CPU bindings: a CPU
	 * binder that comes after the look then invalidates this set.
	 */
	set->generation = cpc_excl_generation();
	if (cpc_excl_lwp_allowed(cpc) != 0)
		return -1;
	set->target_held = false;
	if (cpc_set_open_counters(cpc, set, 0, -1,
	    (flags & CPC_BIND_LWP_INHERIT) != 0, "cpc_bind_curlwp") != 0)
		return -1;
	set->bound = CPC_BOUND_CURLWP;
	set->tid = gettid();
	return 0;
}

int
cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set, uint_t flags)
{
	pid_t tid;

	if (set == NULL || set->cpc != cpc || flags != 0 || pctx == NULL ||
	    set->nreqs == 0) {
		errno = EINVAL;
		return -1;
	}
	if (__pctx_lwp_tid == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if ((tid = __pctx_lwp_tid(pctx, id)) <= 0) {
		errno = ESRCH;
		return -1;
	}
	if (cpc_ovf_check(set, tid, false) != 0)
		return -1;
	if (set->bound != CPC_UNBOUND)
		(void)cpc_unbind(cpc, set);
	set->generation = cpc_excl_generation();
	if (cpc_excl_lwp_allowed(cpc) != 0)
		return -1;
	set->target_held = __pctx_lwp_held != NULL &&
	    __pctx_lwp_held(pctx, id);
	if (cpc_set_open_counters(cpc, set, tid, -1, false,
	    "cpc_bind_pctx") != 0)
		return -1;
	set->bound = CPC_BOUND_PCTX;
	set->tid = tid;
	set->pctx = pctx;
	set->lwpid = id;
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
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
	    id);
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

	if (sched_getaffinity(0, sizeof(set->saved_affinity),
	    &set->saved_affinity) != 0)
		CPU_ZERO(&set->saved_affinity);
	CPU_ZERO(&one);
	CPU_SET(id, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0) {
		cpc_err_subcode(cpc, "cpc_bind_cpu", CPC_PBIND_FAILED);
		return -1;
	}
	return 0;
}

int
cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags)
{
	int saved;

	if (set == NULL || set->cpc != cpc || flags != 0 || set->nreqs == 0) {
		errno = EINVAL;
		return -1;
	}
	if (set->bound != CPC_UNBOUND)
		(void)cpc_unbind(cpc, set);
	if (check_cpu(id) != 0 || cpc_ovf_check(set, -1, false) != 0)
		return -1;
	if (cpc_excl_cpu_acquire(cpc, id, &set->cpu_lock_fd) != 0)
		return -1;
	if (pin_to_cpu(cpc, set, id) != 0)
		goto fail_lock;
	set->target_held = false;
	if (cpc_set_open_counters(cpc, set, -1, id, false,
	    "cpc_bind_cpu") != 0)
		goto fail_pin;
	set->bound = CPC_BOUND_CPU;
	set->cpu = id;
	set->binder = gettid();
	return 0;

fail_pin:
	saved = errno;
	if (CPU_COUNT(&set->saved_affinity) > 0)
		(void)sched_setaffinity(0, sizeof(set->saved_affinity),
		    &set->saved_affinity);
	errno = saved;
fail_lock:
	saved = errno;
	cpc_excl_cpu_release(cpc, set->cpu_lock_fd);
	set->cpu_lock_fd = -1;
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
	cpc_ovf_disarm(set);
	cpc_set_close_counters(set);
	if (set->bound == CPC_BOUND_CPU) {
		if (CPU_COUNT(&set->saved_affinity) > 0 &&
		    set->binder == gettid())
			(void)sched_setaffinity(0, sizeof(set->saved_affinity),
			    &set->saved_affinity);
		cpc_excl_cpu_release(cpc, set->cpu_lock_fd);
		set->cpu_lock_fd = -1;
		set->cpu = -1;
	}
	set->bound = CPC_UNBOUND;
	return 0;
}

/*
 * Apply an ioctl to every counter of a set. Inheriting sets are not one
 * perf group (the kernel reads inherited groups badly on old kernels), so
 * their counters are reached one by one. A group is enabled members
 * first, leader last: enabling it through the leader with
 * PERF_IOC_FLAG_GROUP left a tracepoint member idle until the thread's
 * next context switch (measured on 6.18), whereas members switched on
 * behind a stopped leader start with it, together.
 */
static int
set_ioctl(cpc_set_t *set, unsigned long request)
{
	int i;

	if (!set->read_each && request != PERF_EVENT_IOC_ENABLE)
		return ioctl(set->fds[0], request, PERF_IOC_FLAG_GROUP);
	for (i = set->nreqs - 1; i >= 0; i--)
		if (ioctl(set->fds[i], request, 0) != 0)
			return -1;
	return 0;
}

static int
curlwp_ioctl(cpc_t *cpc, unsigned long request, bool want_disabled)
{
	cpc_set_t *set = cpc_curlwp_set(cpc);

	if (set == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* An invalidated context says so before anything else. */
	if (set->generation != cpc_excl_generation()) {
		errno = EAGAIN;
		return -1;
	}
	if (set->disabled == want_disabled) {
		errno = EINVAL;
		return -1;
	}
	if (set_ioctl(set, request) != 0)
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
	cpc_set_t *set = cpc_curlwp_set(cpc);

	if (set == NULL || index < 0 || index >= set->nreqs) {
		errno = EINVAL;
		return -1;
	}
	set->reqs[index].preset = preset;
	return 0;
}

/* Whether some counter of the bound set was opened to interrupt. */
static bool
has_periods(const cpc_set_t *set)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].period != 0)
			return true;
	return false;
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
	if (has_periods(set) && (set_ioctl(set, PERF_EVENT_IOC_DISABLE) != 0 ||
	    cpc_ovf_reload(set) != 0))
		return -1;
	if (set->read_each) {
		if (cpc_set_read(set) != 0)
			return -1;
	} else if (ioctl(set->fds[0], PERF_EVENT_IOC_RESET,
	    PERF_IOC_FLAG_GROUP) != 0)
		return -1;
	for (i = 0; i < set->nreqs; i++) {
		set->reqs[i].start = set->reqs[i].preset;
		set->reqs[i].base = set->read_each ?
		    cpc_read_value(set, i) : 0;
	}
	set->frozen = false;
	if (set_ioctl(set, PERF_EVENT_IOC_ENABLE) != 0)
		return -1;
	set->disabled = false;
	return 0;
}
