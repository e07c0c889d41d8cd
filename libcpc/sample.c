/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sampling: one read() of the group leader gives every count of a set
 * (one per group, where a set has several: group.c).
 *
 * Each event's times are kept with its value (struct cpc_ev_state): its
 * group's, or on a thread of a hybrid CPU those of its request group's
 * groups on all core PMUs together, of which one counts at a time. A set
 * of several request groups adds up its running time span by span, from
 * sample to sample, as its least counted group's; a scaled set
 * (cpc_set_scale) adds up each event's estimate the same way.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "count_estimate.h"
#include "cpc_impl.h"

/*
 * Read a set's events one fd at a time. Without PERF_FORMAT_GROUP a read
 * gives value, enabled, running, id (and lost samples, for sets that
 * buffer overflow records). A group the kernel took apart (taking a CPU
 * offline detaches the members of its groups) reads as groups of one:
 * nr, enabled, running, value, id (and lost); reading each keeps what
 * they counted up to then.
 */
static int
read_members(cpc_set_t *set, bool groups_of_one)
{
	int e, stride = set->read_stride, at = groups_of_one ? 3 : 0;
	size_t words =
	    groups_of_one ? 3 + (size_t)stride : (set->lost_format ? 5 : 4);
	uint64_t rec[6];
	ssize_t n;

	for (e = 0; e < set->nevents; e++) {
		if ((n = read(set->fds[e], rec, words * sizeof(uint64_t))) < 0)
			return -1;
		if (n != (ssize_t)(words * sizeof(uint64_t)) ||
		    (groups_of_one && rec[0] != 1)) {
			errno = EIO;
			return -1;
		}
		set->readbuf[3 + stride * e] = rec[at];
		if (set->lost_format)
			set->readbuf[5 + stride * e] = rec[words - 1];
		set->evs[e].enabled = set->evs[e].enabled_base + rec[1];
		set->evs[e].running = set->evs[e].running_base + rec[2];
		if (e == 0) {
			set->readbuf[1] = rec[1];
			set->readbuf[2] = rec[2];
		}
	}
	set->readbuf[0] = (uint64_t)set->nevents;
	return 0;
}

/*
 * Read group l of a set that has several, or events not opened, into
 * readbuf: its events' values in their places; its times. False, errno
 * EIO, for a group the kernel put in error state or took apart.
 */
static bool
read_group(cpc_set_t *set, int l, uint64_t *enabled, uint64_t *running)
{
	int leader = set->leaders[l], key = set->group_key[leader];
	int stride = set->read_stride, e, k = 0;
	ssize_t n = read(set->fds[leader], set->groupbuf, set->readbuf_len);

	if (n <= 0) {
		if (n == 0)
			errno = EIO;
		return false;
	}
	for (e = leader; e < set->nevents; e++) {
		if (set->group_key[e] != key)
			continue;
		if ((size_t)n <
		    (3 + (size_t)stride * (size_t)(k + 1)) * sizeof(uint64_t)) {
			errno = EIO;
			return false;
		}
		memcpy(&set->readbuf[3 + stride * e],
		    &set->groupbuf[3 + stride * k],
		    (size_t)stride * sizeof(uint64_t));
		k++;
	}
	*enabled = set->leader_times[2 * l] = set->groupbuf[1];
	*running = set->leader_times[2 * l + 1] = set->groupbuf[2];
	if ((uint64_t)k != set->groupbuf[0]) {
		errno = EIO;
		return false;
	}
	return true;
}

/*
 * A set of several groups: a thread's on a hybrid CPU, one per core PMU
 * (slot: its index + 1) and one of its software events (slot 0), or a
 * CPU's with events of a PMU with a cpumask, one group each (socket
 * keys); of one request group (the times of several are sample.c's
 * step_times). Each group was enabled as long as the others; the hardware
 * counted while the thread ran on some core, each core PMU's group while
 * on its own, so the set's running time is theirs summed. A set of
 * software events alone ran all its enabled time. A socket PMU's event
 * that ran less than that (the kernel took turns with its events) makes
 * the set's running time its own, so that the set says it was
 * multiplexed. Events not opened (another core PMU's, on a CPU; a socket
 * PMU's, on a CPU not in its cpumask) count 0.
 */
static int
read_scattered(cpc_set_t *set)
{
	uint64_t enabled = 0, running = 0, en, ru, hw_running = 0;
	uint64_t socket_running = UINT64_MAX;
	bool hardware = false, software = false;
	int l, key;

	memset(set->readbuf, 0, set->readbuf_len);
	for (l = 0; l < set->nleaders; l++) {
		if (!read_group(set, l, &en, &ru))
			return -1;
		if (en > enabled)
			enabled = en;
		key = set->group_key[set->leaders[l]];
		if (cpclib_key_socket(key)) {
			if (ru < en && ru < socket_running)
				socket_running = ru; /* by turns */
		} else if (cpclib_key_slot(key) > 0) {
			hardware = true;
			hw_running += ru;
		} else {
			software = true;
			running = ru;
		}
	}
	if (hardware)
		running = hw_running < enabled ? hw_running : enabled;
	else if (!software)
		running = enabled;
	if (socket_running < running)
		running = socket_running;
	set->readbuf[0] = (uint64_t)set->nevents;
	set->readbuf[1] = enabled;
	set->readbuf[2] = running;
	return 0;
}

/*
 * Each event's times from its group's, where the set has several: a
 * unit's times (group.c: the groups of a request group on the core PMUs
 * of a hybrid CPU, on a thread) are the longest enabled of them and
 * their running times summed, as the thread runs on one core type at a
 * time. An event not opened has none.
 */
static void
scattered_times(cpc_set_t *set)
{
	uint64_t en[set->nleaders], ru[set->nleaders];
	const uint64_t *lt = set->leader_times;
	struct cpc_ev_state *ev;
	int l, u, e;

	for (l = 0; l < set->nleaders; l++)
		en[l] = ru[l] = 0;
	for (l = 0; l < set->nleaders; l++) {
		u = set->leader_unit[l];
		if (lt[2 * l] > en[u])
			en[u] = lt[2 * l];
		ru[u] += lt[2 * l + 1];
	}
	for (e = 0; e < set->nevents; e++) {
		ev = &set->evs[e];
		if ((l = set->ev_leader[e]) < 0) {
			ev->enabled = ev->running = 0;
			continue;
		}
		u = set->leader_unit[l];
		ev->enabled = ev->enabled_base + en[u];
		ev->running =
		    ev->running_base + (ru[u] < en[u] ? ru[u] : en[u]);
	}
}

/* Every event's times: its one group's. */
static void
group_times(cpc_set_t *set)
{
	int e;

	for (e = 0; e < set->nevents; e++) {
		set->evs[e].enabled =
		    set->evs[e].enabled_base + set->readbuf[1];
		set->evs[e].running =
		    set->evs[e].running_base + set->readbuf[2];
	}
}

/* One read of a set of one group. */
static int
read_whole(cpc_set_t *set)
{
	ssize_t n = read(set->fds[0], set->readbuf, set->readbuf_len);

	if (n == 0) {
		/* A group the kernel put in error state: not counted. */
		errno = EIO;
		return -1;
	}
	if (n > 0 && set->readbuf[0] == 1 && set->nevents > 1)
		return read_members(set, true);
	if (n != (ssize_t)set->readbuf_len ||
	    set->readbuf[0] != (uint64_t)set->nevents) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	group_times(set);
	return 0;
}

/*
 * Read every count of a bound set into its readbuf, and each event's
 * times. A group's layout: nr, enabled, running, then per event value
 * and id (and lost samples, for sets that buffer overflow records).
 */
int
cpclib_set_read(cpc_set_t *set)
{
	if (set->read_each)
		return read_members(set, false);
	if (!set->scatter)
		return read_whole(set);
	if (read_scattered(set) != 0)
		return -1;
	scattered_times(set);
	return 0;
}

/*
 * Each event's estimate, up to the last read: what it counted since its
 * last step, scaled by its times since then. An event that has not run
 * since waits, its span growing until it does.
 */
static void
step_estimates(cpc_set_t *set)
{
	struct cpc_ev_state *ev;
	uint64_t raw;
	int e;

	for (e = 0; e < set->nevents; e++) {
		ev = &set->evs[e];
		if (set->fds[e] < 0 || ev->running <= ev->running0)
			continue;
		raw = set->readbuf[3 + set->read_stride * e];
		ev->estimate += count_estimate(raw - ev->raw0,
		    ev->enabled - ev->enabled0, ev->running - ev->running0);
		ev->raw0 = raw;
		ev->enabled0 = ev->enabled;
		ev->running0 = ev->running;
	}
}

/*
 * A set of several groups: its times over the span since the previous
 * step, added up. Enabled, the longest of its events'; running, that
 * less the longest wait of one of them, or none where one was enabled
 * and never ran.
 */
static void
step_times(cpc_set_t *set)
{
	struct cpc_ev_state *ev;
	uint64_t enabled = 0, wait = 0, en, ru;
	bool unrun = false;
	int e;

	for (e = 0; e < set->nevents; e++) {
		ev = &set->evs[e];
		if (set->fds[e] < 0)
			continue;
		en = ev->enabled - ev->enabled_prev;
		ru = ev->running - ev->running_prev;
		if (en > enabled)
			enabled = en;
		if (en > ru && en - ru > wait)
			wait = en - ru;
		unrun |= en > 0 && ru == 0;
		ev->enabled_prev = ev->enabled;
		ev->running_prev = ev->running;
	}
	set->acc_enabled += enabled;
	if (!unrun)
		set->acc_running += enabled - wait;
}

void
cpclib_set_step(cpc_set_t *set)
{
	if (set->scale)
		step_estimates(set);
	if (set->ngroups > 1)
		step_times(set);
}

/*
 * A scaled set restarted (cpc_set_restart), after a read: its estimates
 * start again, from the counters as they are (0 where they were reset).
 */
void
cpclib_estimates_restart(cpc_set_t *set)
{
	struct cpc_ev_state *ev;
	int e;

	for (e = 0; e < set->nevents; e++) {
		ev = &set->evs[e];
		ev->estimate = 0;
		ev->raw0 =
		    set->read_each ? set->readbuf[3 + set->read_stride * e] : 0;
		ev->enabled0 = ev->enabled;
		ev->running0 = ev->running;
	}
}

/*
 * The count of request i in the last read: its event's, or for a derived
 * request the weighted sum of its events' (modulo 2^64, as counters wrap).
 */
uint64_t
cpclib_read_value(const cpc_set_t *set, int i)
{
	const struct cpc_request *req = &set->reqs[i];
	const uint64_t *value =
	    &set->readbuf[3 + set->read_stride * req->first_event];
	uint64_t v = 0;
	int t;

	for (t = 0; t < req->enc.nterms; t++)
		v += (uint64_t)(int64_t)req->enc.term[t].sign *
		    value[set->read_stride * t];
	return v;
}

/* Request i's value in a sample: its preset, and what was counted since. */
uint64_t
cpclib_request_value(const cpc_set_t *set, int i)
{
	const struct cpc_request *req = &set->reqs[i];
	uint64_t v = 0;
	int t;

	if (!set->scale)
		return req->start + (cpclib_read_value(set, i) - req->base);
	for (t = 0; t < req->enc.nterms; t++)
		v += (uint64_t)(int64_t)req->enc.term[t].sign *
		    set->evs[req->first_event + t].estimate;
	return req->start + v;
}

/* What event e counted: the last read's count, or a scaled set's estimate. */
static uint64_t
event_value(const cpc_set_t *set, int e)
{
	return set->scale ? set->evs[e].estimate :
			    set->readbuf[3 + set->read_stride * e];
}

/*
 * Request i's parts in the last read, each core PMU's (parts, ncore of
 * them): what its events on that PMU counted, weighed as in its value.
 */
static void
read_parts(const cpc_set_t *set, int i, uint64_t *parts, int ncore)
{
	const struct cpc_request *req = &set->reqs[i];
	int t, c;

	memset(parts, 0, (size_t)ncore * sizeof(uint64_t));
	for (t = 0; t < req->enc.nterms; t++)
		if ((c = cpclib_core_of_attr(
			 set->cpc, &req->enc.term[t].attr)) >= 0 &&
		    c < ncore)
			parts[c] += (uint64_t)(int64_t)req->enc.term[t].sign *
			    event_value(set, req->first_event + t);
}

/*
 * Request i's box parts in the last read (parts, one per term of an
 * event summed over the boxes of a PMU): each box's count, weighed as in
 * its value.
 */
static void
read_boxes(const cpc_set_t *set, int i, uint64_t *parts, int nboxes)
{
	const struct cpc_request *req = &set->reqs[i];
	int t;

	for (t = 0; t < nboxes && t < req->enc.nterms; t++)
		parts[t] = (uint64_t)(int64_t)req->enc.term[t].sign *
		    event_value(set, req->first_event + t);
}

/*
 * Request i's times: its group's, or of its events' groups (the boxes of
 * a PMU) the longest enabled, less the longest wait, and no running time
 * where one never ran. None for a request not counted here (another
 * core PMU's, on a CPU).
 */
static void
request_times(const cpc_set_t *set, int i, uint64_t *times)
{
	const struct cpc_request *req = &set->reqs[i];
	const struct cpc_ev_state *ev;
	uint64_t enabled = 0, wait = 0;
	bool unrun = false;
	int t;

	for (t = 0; t < req->enc.nterms; t++) {
		if (set->fds[req->first_event + t] < 0)
			continue;
		ev = &set->evs[req->first_event + t];
		if (ev->enabled > enabled)
			enabled = ev->enabled;
		if (ev->enabled - ev->running > wait)
			wait = ev->enabled - ev->running;
		unrun |= ev->enabled > 0 && ev->running == 0;
	}
	times[0] = enabled;
	times[1] = unrun ? 0 : enabled - wait;
}

/* Samples of request i the kernel had no ring room for, last read. */
uint64_t
cpclib_read_lost(const cpc_set_t *set, int i)
{
	return set->lost_format ?
	    set->readbuf[5 + 3 * set->reqs[i].first_event] :
	    0;
}

int
cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	uint64_t *boxes;
	int i, n;

	if (set == NULL || buf == NULL || set->cpc != cpc ||
	    set->bound == CPC_UNBOUND || buf->nreqs != set->nreqs) {
		errno = EINVAL;
		return -1;
	}
	/* A CPU's set is read by the thread that bound it. */
	if (set->bound == CPC_BOUND_CPU && set->binder != gettid()) {
		errno = EAGAIN;
		return -1;
	}
	if (cpclib_set_read(set) != 0)
		return -1;
	cpclib_set_step(set);
	if (set->ngroups > 1) {
		set->enabled_ns = set->acc_enabled;
		set->running_ns = set->acc_running;
	} else {
		set->enabled_ns = set->enabled_base + set->readbuf[1];
		set->running_ns = set->running_base + set->readbuf[2];
	}
	for (i = 0; i < set->nreqs; i++)
		buf->data[i] = cpclib_request_value(set, i);
	for (i = 0; buf->ncore > 0 && i < set->nreqs; i++)
		read_parts(set, i, &buf->data[buf->nreqs + i * buf->ncore],
		    buf->ncore);
	for (i = 0; buf->nboxes > 0 && i < set->nreqs; i++)
		if ((n = cpclib_buf_boxes(buf, i, &boxes)) > 0)
			read_boxes(set, i, boxes, n);
	for (i = 0; i < set->nreqs; i++)
		request_times(set, i, cpclib_buf_times(buf, i));
	buf->hrtime = cpclib_gethrtime();
	buf->tick = cpclib_tick_of(cpc, set->enabled_ns);
	return 0;
}

int
cpc_set_times(
    cpc_t *cpc, cpc_set_t *set, uint64_t *enabled_ns, uint64_t *running_ns)
{
	if (set == NULL || set->cpc != cpc) {
		errno = EINVAL;
		return -1;
	}
	*enabled_ns = set->enabled_ns;
	*running_ns = set->running_ns;
	return 0;
}
