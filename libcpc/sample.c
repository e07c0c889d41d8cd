/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sampling: one read() of the group leader gives every count of a set.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

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
		if (e == 0) {
			set->readbuf[1] = rec[1];
			set->readbuf[2] = rec[2];
		}
	}
	set->readbuf[0] = (uint64_t)set->nevents;
	return 0;
}

/*
 * Read every count of a bound set into its readbuf. A group's layout: nr,
 * enabled, running, then per event value and id (and lost samples, for
 * sets that buffer overflow records).
 */
int
cpclib_set_read(cpc_set_t *set)
{
	ssize_t n;

	if (set->read_each)
		return read_members(set, false);
	n = read(set->fds[0], set->readbuf, set->readbuf_len);
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
	return 0;
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
	int i;

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
	set->enabled_ns = set->enabled_base + set->readbuf[1];
	set->running_ns = set->running_base + set->readbuf[2];
	for (i = 0; i < set->nreqs; i++)
		buf->data[i] = set->reqs[i].start +
		    (cpclib_read_value(set, i) - set->reqs[i].base);
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
