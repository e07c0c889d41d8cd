/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The perf group of a bound set: one perf event per request (several for
 * a derived preset, or for an event counted on each core PMU), in request
 * order, the first leading, opened on a thread or on a CPU and read with
 * one read(). Counting needs nothing more. Where a thread counts on
 * several core PMUs (a hybrid CPU), an event of one cannot be in a group
 * of another's, and software events in a group of one would count only
 * while the thread runs on its cores: the set is then a group per core
 * PMU and one of its software events, all read at each sample. A set
 * whose requests ask for overflow notification or buffering is handed to
 * overflow.c; that is known from its requests, before the group opens.
 *
 * What only the requests decide (the checks, each event's place, whether
 * the PMU takes them together, the read buffer) is worked out at a set's
 * first bind and kept until a request is added or changed: the commands
 * bind the same sets to thread after thread.
 *
 * A set whose requests were put in several groups (cpc_set_group) is one
 * perf group per request group, each laid out as a set of one would be
 * (a group per core PMU of a thread's on a hybrid CPU, and each socket
 * PMU's event alone), all read at each sample; the kernel takes turns
 * with them where they need more counters than the PMU has.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cpc_impl.h"
#include "evname.h"

/* A counter number names a counter of the request's own group. */
static bool
picnums_unique(const cpc_set_t *set)
{
	int i, j;

	for (i = 0; i < set->nreqs; i++)
		for (j = i + 1; j < set->nreqs; j++)
			if (set->reqs[i].picnum >= 0 &&
			    set->reqs[i].picnum == set->reqs[j].picnum &&
			    set->reqs[i].group == set->reqs[j].group)
				return false;
	return true;
}

/* Request flags are checked at bind, as the Solaris kernel does. */
static bool
request_flags_valid(const cpc_set_t *set)
{
	const uint_t known = CPC_OVF_NOTIFY_EMT | CPC_COUNT_USER |
	    CPC_COUNT_SYSTEM | CPC_COUNT_HV | CPC_OVF_BUFFERED |
	    CPC_OVF_CALLSTACK;
	int i;

	for (i = 0; i < set->nreqs; i++)
		if ((set->reqs[i].flags & ~known) != 0)
			return false;
	return true;
}

bool
cpclib_set_has_groups(const cpc_set_t *set)
{
	int i;

	for (i = 1; i < set->nreqs; i++)
		if (set->reqs[i].group != set->reqs[0].group)
			return true;
	return false;
}

/* How many groups the requests are in, and how many have hardware. */
static int
count_groups(const cpc_set_t *set, int *hardware)
{
	int i, j, n = 0;
	bool hw;

	*hardware = 0;
	for (i = 0; i < set->nreqs; i++) {
		for (j = 0; j < i; j++)
			if (set->reqs[j].group == set->reqs[i].group)
				break;
		if (j < i)
			continue;
		n++;
		for (j = i, hw = false; j < set->nreqs; j++)
			hw |= set->reqs[j].group == set->reqs[i].group &&
			    set->reqs[j].enc.hardware;
		*hardware += hw;
	}
	return n;
}

/* The first request group of more than npic requests, or -1. */
static int
group_too_big(cpc_t *cpc, const cpc_set_t *set, int *n)
{
	int i, j;

	for (i = 0; i < set->nreqs; i++) {
		for (j = *n = 0; j < set->nreqs; j++)
			*n += set->reqs[j].group == set->reqs[i].group;
		if (*n > (int)cpclib_npic(cpc))
			return set->reqs[i].group;
	}
	return -1;
}

/*
 * A set of one group holds npic requests at most, as on Solaris; a set
 * of several, CPC_SET_MAX_REQS, each group npic.
 */
int
cpclib_check_sizes(cpc_t *cpc, const cpc_set_t *set, const char *fn)
{
	int g, n;

	if (!cpclib_set_has_groups(set))
		return set->nreqs > (int)cpclib_npic(cpc) ? -1 : 0;
	if (set->nreqs > CPC_SET_MAX_REQS)
		return -1;
	if ((g = group_too_big(cpc, set, &n)) >= 0) {
		cpclib_err(cpc, fn, CPC_RESOURCE_UNAVAIL,
		    "group %d: %d requests, more than the %u a group "
		    "holds\n",
		    g, n, cpclib_npic(cpc));
		return -1;
	}
	return 0;
}

static int
check_requests(cpc_t *cpc, const cpc_set_t *set, const char *fn)
{
	if (set->nreqs == 0 || cpclib_check_sizes(cpc, set, fn) != 0 ||
	    !picnums_unique(set)) {
		errno = EINVAL;
		return -1;
	}
	if (!request_flags_valid(set)) {
		cpclib_err_subcode(cpc, fn, CPC_REQ_INVALID_FLAGS);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/*
 * Number the perf events, every request knowing its first one, and make
 * room for their descriptors.
 */
/* Room for n of size bytes at *p; false, *p kept, for no memory. */
static bool
grow(void *p, size_t n, size_t size)
{
	void **at = p, *grown;

	if ((grown = reallocarray(*at, n, size)) == NULL)
		return false;
	*at = grown;
	return true;
}

static int
layout_events(cpc_set_t *set)
{
	int i, n = 0;
	size_t z;

	for (i = 0; i < set->nreqs; i++) {
		set->reqs[i].first_event = n;
		n += set->reqs[i].enc.nterms;
	}
	z = (size_t)n;
	if (!grow(&set->fds, z, sizeof(int)) ||
	    !grow(&set->group_key, z, sizeof(int)) ||
	    !grow(&set->leaders, z, sizeof(int)) ||
	    !grow(&set->leader_unit, z, sizeof(int)) ||
	    !grow(&set->ev_leader, z, sizeof(int)) ||
	    !grow(&set->leader_times, 2 * z, sizeof(uint64_t)) ||
	    !grow(&set->evs, z, sizeof(struct cpc_ev_state))) {
		errno = ENOMEM;
		return -1;
	}
	set->nevents = n;
	for (i = 0; i < n; i++)
		set->fds[i] = -1;
	memset(set->evs, 0, z * sizeof(struct cpc_ev_state));
	return 0;
}

/*
 * The group key of event e (request req, term t): see cpclib_group_layout.
 * A PMU with a cpumask (uncore, RAPL) joins no group of another PMU's
 * events, and the kernel takes turns with its events when they outnumber
 * its counters (amd_df's 4, say): each of them is a group of its own, on
 * the CPUs its cpumask names alone, as every other CPU would count the
 * same socket again.
 */
static int
event_key(cpc_t *cpc, const struct cpc_request *req, int t, int e, int cpu)
{
	const struct perf_event_attr *attr = &req->enc.term[t].attr;
	const struct sysfs_pmu *socket = cpclib_socket_pmu(cpc, attr);
	int core = cpclib_core_of_attr(cpc, attr), g = req->group;

	if (socket != NULL)
		return cpu >= 0 && !CPU_ISSET(cpu, &socket->cpus) ?
		    -1 :
		    CPC_SOCKET_KEY(e);
	if (cpc->ncore < 2 || core < 0)
		return CPC_KEY(g, 0);
	if (cpu >= 0)
		return core == cpclib_core_of_cpu(cpc, cpu) ? CPC_KEY(g, 0) :
							      -1;
	return CPC_KEY(g, core + 1);
}

/* Whether event e is the first of its group (key[e] >= 0). */
static bool
first_of_key(const int *key, int e)
{
	int i;

	for (i = 0; i < e; i++)
		if (key[i] == key[e])
			return false;
	return key[e] >= 0;
}

/*
 * The groups of a binding on cpu (-1: a thread's), in key, one per event:
 * one per request group (cpc_set_group), but where there are several core
 * PMUs or a PMU with a cpumask. A thread's request group is then one
 * group of its software events (slot 0) and one per core PMU (slot: its
 * index + 1); a CPU's, one group of its software events and its core
 * PMU's events (slot 0), and -1 for the events of the other core PMUs,
 * which cannot count there. An event of a PMU with a cpumask is a group
 * of its own (CPC_SOCKET_KEY), or -1 on a CPU its cpumask does not name.
 * Returns how many groups.
 */
int
cpclib_group_layout(cpc_t *cpc, const cpc_set_t *set, int cpu, int *key)
{
	int i, t, e = 0, n = 0;

	for (i = 0; i < set->nreqs; i++)
		for (t = 0; t < set->reqs[i].enc.nterms; t++, e++) {
			key[e] = event_key(cpc, &set->reqs[i], t, e, cpu);
			n += first_of_key(key, e);
		}
	return n;
}

/*
 * Whether two groups' times are one's: a thread's groups of one request
 * group on the core PMUs of a hybrid CPU, of which one counts at a time
 * (see sample.c).
 */
static bool
same_unit(int a, int b)
{
	return a == b ||
	    (cpclib_key_slot(a) > 0 && cpclib_key_slot(b) > 0 &&
		a / CPC_KEY_SLOTS == b / CPC_KEY_SLOTS);
}

/*
 * The leaders of a binding's groups, each its key's first event, and
 * each leader's unit: the first leader whose times are also its own.
 */
static void
find_leaders(cpc_t *cpc, cpc_set_t *set, int cpu)
{
	int e, l, u;

	(void)cpclib_group_layout(cpc, set, cpu, set->group_key);
	set->nleaders = 0;
	for (e = 0; e < set->nevents; e++)
		if (first_of_key(set->group_key, e))
			set->leaders[set->nleaders++] = e;
	set->scatter = set->nleaders > 1;
	for (e = 0; e < set->nevents; e++)
		set->scatter |= set->group_key[e] < 0;
	for (l = 0; l < set->nleaders; l++) {
		for (u = 0; !same_unit(set->group_key[set->leaders[u]],
			 set->group_key[set->leaders[l]]);
		     u++)
			;
		set->leader_unit[l] = u;
	}
	for (e = 0; e < set->nevents; e++)
		for (set->ev_leader[e] = -1, l = 0;
		     l < set->nleaders && set->group_key[e] >= 0; l++)
			if (set->group_key[set->leaders[l]] ==
			    set->group_key[e])
				set->ev_leader[e] = l;
}

/* The leader of event e's group. */
static int
leader_of(const cpc_set_t *set, int e)
{
	int l;

	for (l = 0; l < set->nleaders; l++)
		if (set->group_key[set->leaders[l]] == set->group_key[e])
			return set->leaders[l];
	return -1;
}

/*
 * Size the read buffer for the events the set has now: requests may be
 * added between an unbind and the next bind, and a set that buffers
 * overflow records reads its losses too.
 */
static int
size_readbuf(cpc_set_t *set)
{
	size_t need;
	uint64_t *readbuf, *groupbuf;

	/* Per event: value and id, and lost samples where those are read. */
	set->read_stride = set->lost_format ? 3 : 2;
	need = (3 + (size_t)set->read_stride * (size_t)set->nevents) *
	    sizeof(uint64_t);

	if (set->readbuf != NULL && set->groupbuf != NULL &&
	    set->readbuf_len == need)
		return 0;
	if ((readbuf = realloc(set->readbuf, need)) != NULL)
		set->readbuf = readbuf;
	if ((groupbuf = realloc(set->groupbuf, need)) != NULL)
		set->groupbuf = groupbuf;
	if (readbuf == NULL || groupbuf == NULL) {
		errno = ENOMEM;
		return -1;
	}
	/* Touched now: a sample must not fault in its pages after its read. */
	memset(readbuf, 0, need);
	memset(groupbuf, 0, need);
	set->readbuf_len = need;
	return 0;
}

/*
 * What a sample does besides its read, done once per handle before its
 * first counters open: its first run would fault in pages (the clock's
 * vDSO data, the tick rate's perf page), and a
 * page-fault counter would count that in the caller's first interval.
 */
static void
warm_sample_path(cpc_t *cpc)
{
	(void)cpclib_gethrtime();
	(void)cpclib_tick_of(cpc, 0);
	cpc->sample_warm = true;
}

/*
 * A group is started by hand once whole, an inheriting set at once. A
 * group on a thread that libpctx holds stopped starts whole when the
 * thread next runs, so it needs no start by hand (one syscall and one
 * cross-CPU call less per thread a command follows). A group in standby
 * waits for cpc_set_switch.
 */
static bool
starts_disabled(const cpc_set_t *set)
{
	if (set->standby || set->sampling)
		return true;
	return set->nevents > 1 && !set->target_held;
}

/*
 * Whether key a is one of the probe's: the same key, or with together,
 * the same core PMU's slot of any request group.
 */
static bool
in_probe(int a, int k, bool together)
{
	if (!together || cpclib_key_socket(a) || cpclib_key_socket(k))
		return a == k;
	return cpclib_key_slot(a) == cpclib_key_slot(k);
}

/*
 * Whether the events of one group (key k) fit together; with together,
 * those of every request group's group on k's core PMU.
 */
static bool
key_fits(cpc_t *cpc, const cpc_set_t *set, const int *key, int k, bool together)
{
	struct perf_event_attr attr;
	const struct cpc_request *req;
	int fds[set->nevents], n = 0, i, t, e = 0;
	bool fits = true;

	for (i = 0; i < set->nreqs && fits; i++) {
		req = &set->reqs[i];
		for (t = 0; t < req->enc.nterms; t++, e++) {
			if (!in_probe(key[e], k, together))
				continue;
			cpclib_request_to_attr(req, t, &attr);
			if (cpclib_attr_apply(cpc, req, &attr) != 0)
				goto done; /* the real open reports it */
			attr.exclude_user = attr.exclude_kernel = 1;
			attr.exclude_hv = 1;
			if ((fds[n] = cpclib_perf_open(
				 &attr, 0, -1, n == 0 ? -1 : fds[0])) < 0) {
				fits = !(errno == EINVAL && n > 0 &&
				    req->enc.hardware);
				goto done;
			}
			n++;
		}
	}
done:
	while (n-- > 0)
		close(fds[n]);
	return fits;
}

/*
 * Whether the PMU can schedule the hardware requests of each group of a
 * set together (together: of all of them as one): the request group of
 * one that it cannot, or -1. A socket PMU's events are groups of one,
 * which always fit. The group is opened with its leader disabled, and some
 * drivers (armv8_pmuv3's validate_group) leave a disabled leader out when they
 * check that a new member fits: a group one counter too big then opens
 * and never runs. So a group of two or more hardware events is first
 * opened once on the calling thread with its leader enabled and counting
 * nothing (every mode excluded), where the driver checks every member:
 * each group of a thread's, where it has one per core PMU.
 */
static int
unfit_request_group(cpc_t *cpc, const cpc_set_t *set, bool together)
{
	int key[set->nevents], e, slot;
	bool probed[CPC_KEY_SLOTS] = { false };

	(void)cpclib_group_layout(cpc, set, -1, key);
	for (e = 0; e < set->nevents; e++) {
		if (!first_of_key(key, e) || cpclib_key_socket(key[e]))
			continue;
		slot = cpclib_key_slot(key[e]);
		if (together && probed[slot])
			continue;
		probed[slot] = true;
		if (!key_fits(cpc, set, key, key[e], together))
			return key[e] / CPC_KEY_SLOTS;
	}
	return -1;
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
	uint64_t h = 1469598103934665603ULL; /* the FNV offset basis */
	const struct cpc_request *r;
	const struct perf_event_attr *a;
	uint_t k;
	int i, t;

	for (i = 0; i < set->nreqs; i++) {
		r = &set->reqs[i];
		for (t = 0; t < r->enc.nterms; t++) {
			a = &r->enc.term[t].attr;
			h = fnv_step(h, a->type);
			h = fnv_step(h, a->config);
			h = fnv_step(h, a->config1);
		}
		h = fnv_step(h, r->flags);
		h = fnv_step(h, (uint64_t)r->group);
		for (k = 0; k < r->nattrs; k++)
			h = fnv_step(h, r->attrs[k].ca_val);
	}
	return fnv_step(h, (uint64_t)set->nevents);
}

/*
 * The commands bind the same sets to every thread they follow, so the
 * answer for a set's requests is kept and the probe opens are spent once:
 * whether each group fits, and whether all of them fit as one (what a CPU
 * binding can pin: cpclib_group_open).
 */
static void
group_fits(cpc_t *cpc, cpc_set_t *set)
{
	struct cpc_fits *c;
	uint64_t sig;
	int i, hw = 0;

	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].enc.hardware)
			hw += set->reqs[i].enc.nterms;
	set->fits = set->fits_together = true;
	if (hw < 2)
		return;
	sig = set_signature(set);
	pthread_mutex_lock(&cpc->lock);
	for (i = 0; i < CPC_FITS_CACHE; i++)
		if (cpc->fits[i].valid && cpc->fits[i].signature == sig)
			break;
	if (i < CPC_FITS_CACHE) {
		c = &cpc->fits[i];
	} else {
		c = &cpc->fits[cpc->fits_next++ % CPC_FITS_CACHE];
		c->signature = sig;
		c->unfit = unfit_request_group(cpc, set, false);
		c->together = c->unfit < 0 &&
		    (!cpclib_set_has_groups(set) ||
			unfit_request_group(cpc, set, true) < 0);
		c->valid = true;
	}
	set->unfit = c->unfit;
	set->fits = c->unfit < 0;
	set->fits_together = c->together;
	pthread_mutex_unlock(&cpc->lock);
}

/*
 * What opening a set needs that only its requests decide, worked out
 * once: see the top. The errors are the ones Solaris gives at bind.
 */
static int
prepare(cpc_t *cpc, cpc_set_t *set, const char *fn)
{
	if (check_requests(cpc, set, fn) != 0 || layout_events(set) != 0)
		return -1;
	set->ngroups = count_groups(set, &set->hw_groups);
	group_fits(cpc, set);
	set->lost_format = set->asks_overflow && cpclib_set_buffers(set);
	if (size_readbuf(set) != 0)
		return -1;
	if (!cpc->sample_warm)
		warm_sample_path(cpc);
	set->prepared = true;
	return 0;
}

/* Open term t of request i; its fd goes to fds[req->first_event + t]. */
static int
open_event(cpc_t *cpc, cpc_set_t *set, int i, int t, pid_t pid, int cpu,
    bool inherit, const char *fn)
{
	struct cpc_request *req = &set->reqs[i];
	int e = req->first_event + t, leader = leader_of(set, e), group;
	struct perf_event_attr attr;
	bool explained = false;
	int subcode;

	if (leader < 0)
		return 0; /* not on this CPU (another core PMU's, a socket's) */
	group = inherit || leader == e ? -1 : set->fds[leader];
	cpclib_request_to_attr(req, t, &attr);
	if ((subcode = cpclib_attr_apply(cpc, req, &attr)) != 0) {
		cpclib_err_subcode(cpc, fn, subcode);
		errno = EINVAL;
		return -1;
	}
	if (leader == e && set->hold != CPC_HOLD_NONE) {
		attr.pinned = 1;
		attr.exclusive = set->hold == CPC_HOLD_EXCLUSIVE;
	}
	if (inherit) {
		attr.inherit = 1;
		attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
	} else if (leader == e && starts_disabled(set)) {
		/*
		 * Members that join a group whose leader already counts are
		 * not scheduled until the context is next rescheduled (a CPU
		 * context may wait long for that), and overflow records need
		 * their ring first: start the leader disabled and enable it
		 * once the group is whole and armed.
		 */
		attr.disabled = 1;
	}
	if (set->sampling)
		set->fds[e] = cpclib_ovf_open(
		    set, req, &attr, pid, cpu, group, &explained);
	else
		set->fds[e] = cpclib_perf_open(&attr, pid, cpu, group);
	if (set->fds[e] < 0) {
		if (!explained)
			cpclib_report_open_error(cpc, fn, req, e, pid);
		return -1;
	}
	return 0;
}

/*
 * A request none of whose events can count on cpu (a CPU binding on a
 * hybrid CPU, of an event its core type lacks): said, ENOENT. A socket
 * PMU's event is opened on the CPUs its cpumask names and on no other,
 * as meant: a CPU's set beside it counts there without it.
 */
static int
check_on_cpu(cpc_t *cpc, const cpc_set_t *set, int cpu, const char *fn)
{
	const struct cpc_request *req;
	int i, t, on, c = cpclib_core_of_cpu(cpc, cpu);
	char where[256];

	for (i = 0; cpu >= 0 && i < set->nreqs; i++) {
		req = &set->reqs[i];
		for (t = on = 0; t < req->enc.nterms; t++)
			on += set->group_key[req->first_event + t] >= 0 ||
			    cpclib_socket_pmu(cpc, &req->enc.term[t].attr) !=
				NULL;
		if (on > 0)
			continue;
		cpclib_request_cores(cpc, req, where, sizeof(where));
		cpclib_err(cpc, fn, CPC_INVALID_EVENT,
		    "%s: the core PMU of cpu%d (%s) has no such event; it "
		    "counts on %s only\n",
		    req->event, cpu, c >= 0 ? cpc->core[c].name : "none",
		    where);
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* A thread's binding of a socket PMU's event: said, EINVAL. */
static int
check_on_thread(cpc_t *cpc, const cpc_set_t *set, const char *fn)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		if (cpclib_socket_refused_on_thread(cpc, &set->reqs[i], fn))
			return -1;
	return 0;
}

/* Start every group whole: members first, each leader last. */
static int
enable_leaders(const cpc_set_t *set)
{
	int l;

	for (l = 0; l < set->nleaders; l++)
		if (ioctl(set->fds[set->leaders[l]], PERF_EVENT_IOC_ENABLE,
			0) != 0)
			return -1;
	return 0;
}

/* Open every event, each request counting from its preset. */
static int
open_all(cpc_t *cpc, cpc_set_t *set, pid_t pid, int cpu, bool inherit,
    const char *fn)
{
	struct cpc_request *req;
	int i, t;

	for (i = 0; i < set->nreqs; i++) {
		req = &set->reqs[i];
		req->start = req->preset;
		req->base = 0;
		req->period = 0;
		req->sample_type = 0;
		for (t = 0; t < req->enc.nterms; t++)
			if (open_event(cpc, set, i, t, pid, cpu, inherit, fn) !=
			    0)
				return -1;
	}
	return 0;
}

/* The hardware events of request group g, counted as its counters. */
static int
group_hardware(const cpc_set_t *set, int g)
{
	int i, n = 0;

	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].group == g && set->reqs[i].enc.hardware)
			n += set->reqs[i].enc.nterms;
	return n;
}

/* A group of the set that the PMU cannot take: which, where it has more. */
static void
report_unfit(cpc_t *cpc, const cpc_set_t *set, const char *fn)
{
	if (set->ngroups < 2) {
		cpclib_err_subcode(cpc, fn, CPC_RESOURCE_UNAVAIL);
		return;
	}
	cpclib_err(cpc, fn, CPC_RESOURCE_UNAVAIL,
	    "group %d: its %d hardware events do not fit the PMU's "
	    "counters together\n",
	    set->unfit, group_hardware(set, set->unfit));
}

/*
 * What a CPU binding of several groups holds: pinned, as a set of one,
 * where the PMU takes all their hardware events at once; otherwise
 * nothing, as CPC_BIND_SHARED, for the kernel to take turns with the
 * groups (pinned groups that do not fit would be put in error state).
 * Groups cannot each hold the PMU alone.
 */
static int
choose_hold(cpc_t *cpc, cpc_set_t *set, const char *fn)
{
	if (set->hw_groups < 2)
		return 0;
	if (set->hold == CPC_HOLD_EXCLUSIVE) {
		cpclib_err(cpc, fn, CPC_INVALID_EVENT,
		    "the set has hardware events in %d groups, and only one "
		    "group can hold the whole PMU\n",
		    set->hw_groups);
		errno = EINVAL;
		return -1;
	}
	if (set->hold == CPC_HOLD_PINNED && !set->fits_together)
		set->hold = CPC_HOLD_NONE;
	return 0;
}

/*
 * Open the set's group for a thread (pid; 0 is the caller) or a CPU (pid
 * -1). The set's standby and target_held say how it starts.
 */
int
cpclib_group_open(cpc_t *cpc, cpc_set_t *set, pid_t pid, int cpu, bool inherit,
    const char *fn)
{
	int saved;

	if (!set->prepared && prepare(cpc, set, fn) != 0)
		return -1;
	if (!inherit && !set->fits) {
		report_unfit(cpc, set, fn);
		errno = EINVAL;
		return -1;
	}
	if (choose_hold(cpc, set, fn) != 0)
		return -1;
	set->read_each = inherit;
	set->sampling = set->asks_overflow;
	find_leaders(cpc, set, cpu);
	if (check_on_cpu(cpc, set, cpu, fn) != 0 ||
	    (pid != -1 && check_on_thread(cpc, set, fn) != 0))
		return -1;
	if (set->sampling && set->ngroups > 1) {
		cpclib_err(cpc, fn, CPC_INVALID_EVENT,
		    "a set that asks for overflow counts in one group; "
		    "this one has %d\n",
		    set->ngroups);
		errno = EINVAL;
		return -1;
	}
	if (set->sampling && set->scatter) {
		cpclib_err(cpc, fn, CPC_INVALID_EVENT,
		    "a set that asks for overflow counts on one core PMU of "
		    "this hybrid CPU in one group: name its PMU, as in "
		    "%s/cycles/, and leave software events out\n",
		    cpc->core[0].name);
		errno = EINVAL;
		return -1;
	}
	if ((set->sampling &&
		cpclib_ovf_prepare(cpc, set, pid, inherit) != 0) ||
	    (pid == 0 && cpclib_trap_guard(set) != 0))
		return -1;
	if (open_all(cpc, set, pid, cpu, inherit, fn) != 0 ||
	    (set->sampling && cpclib_ovf_arm(set) != 0) ||
	    (!inherit && starts_disabled(set) && !set->standby &&
		enable_leaders(set) != 0))
		goto fail;
	set->enabled_ns = set->running_ns = 0;
	set->enabled_base = set->running_base = 0;
	set->acc_enabled = set->acc_running = 0;
	memset(set->evs, 0, (size_t)set->nevents * sizeof(*set->evs));
	set->disabled = false;
	return 0;

fail:
	saved = errno;
	cpclib_group_close(set);
	errno = saved;
	return -1;
}

/*
 * Open a bound set's group again, for request flags that changed: what
 * it counted so far becomes where it goes on from, times included. A set
 * turned off stays off.
 */
int
cpclib_group_reopen(cpc_t *cpc, cpc_set_t *set, pid_t pid, const char *fn)
{
	uint64_t start[set->nreqs], enabled, running, acc_enabled, acc_running;
	struct cpc_ev_state kept[set->nevents];
	bool standby = set->standby, disabled = set->disabled;
	int i, e;

	if (cpclib_set_read(set) != 0)
		return -1;
	cpclib_set_step(set);
	for (i = 0; i < set->nreqs; i++)
		start[i] = cpclib_request_value(set, i);
	enabled = set->enabled_base + set->readbuf[1];
	running = set->running_base + set->readbuf[2];
	acc_enabled = set->acc_enabled;
	acc_running = set->acc_running;
	memcpy(kept, set->evs, sizeof(kept));
	cpclib_group_close(set);
	set->standby = standby || disabled;
	if (cpclib_group_open(cpc, set, pid, -1, false, fn) != 0)
		return -1;
	set->standby = standby;
	set->disabled = disabled;
	for (i = 0; i < set->nreqs; i++)
		set->reqs[i].start = start[i];
	set->enabled_base = enabled;
	set->running_base = running;
	set->acc_enabled = acc_enabled;
	set->acc_running = acc_running;
	/* Each event's times go on from where they were. */
	for (e = 0; e < set->nevents; e++) {
		set->evs[e].enabled_base = set->evs[e].enabled0 =
		    set->evs[e].enabled_prev = kept[e].enabled;
		set->evs[e].running_base = set->evs[e].running0 =
		    set->evs[e].running_prev = kept[e].running;
	}
	return 0;
}

/*
 * Whether the kernel put a set's pinned groups on the PMU. It tries at
 * once when a group is enabled; a pinned group it could not place (the counters
 * it needs are taken, or another group holds the PMU alone) is put in
 * error state, and reads as end of file from then on.
 */
int
cpclib_group_on_pmu(cpc_set_t *set)
{
	ssize_t n;
	int l;

	for (l = 0; l < set->nleaders; l++) {
		if (l > 0 && cpclib_key_socket(set->group_key[set->leaders[l]]))
			continue; /* the kernel takes turns with those */
		n = read(
		    set->fds[set->leaders[l]], set->groupbuf, set->readbuf_len);
		if (n > 0)
			continue;
		if (n == 0)
			errno = EAGAIN;
		return -1;
	}
	return 0;
}

/* Close the group, members before the leader. */
void
cpclib_group_close(cpc_set_t *set)
{
	int e;

	if (set->sampling)
		cpclib_ovf_disarm(set);
	for (e = set->nevents - 1; e >= 0; e--) {
		if (set->fds[e] >= 0)
			close(set->fds[e]);
		set->fds[e] = -1;
	}
	cpclib_trap_unguard(set);
}

/*
 * Start or stop the groups through their leaders alone: the members stay
 * enabled, and they count exactly while their leader does.
 */
int
cpclib_group_leader(cpc_set_t *set, bool on)
{
	int l;

	for (l = 0; l < set->nleaders; l++)
		if (ioctl(set->fds[set->leaders[l]],
			on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
			0) != 0)
			return -1;
	return 0;
}
