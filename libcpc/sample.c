/*
 * Sampling: one read() of the group leader gives every count of a set.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cpc_impl.h"

/*
 * One fd read without PERF_FORMAT_GROUP: value, enabled, running, id,
 * and lost samples for sets that buffer overflow records.
 */
static int
read_each(cpc_set_t *set)
{
	size_t len = (set->lost_format ? 5 : 4) * sizeof(uint64_t);
	uint64_t rec[5];
	int i;

	for (i = 0; i < set->nreqs; i++) {
		if (read(set->fds[i], rec, len) != (ssize_t)len)
			return -1;
		set->readbuf[3 + cpc_read_stride(set) * i] = rec[0];
		if (set->lost_format)
			set->readbuf[5 + 3 * i] = rec[4];
		if (i == 0) {
			set->readbuf[1] = rec[1];
			set->readbuf[2] = rec[2];
		}
	}
	set->readbuf[0] = (uint64_t)set->nreqs;
	return 0;
}

/*
 * Group layout: nr, enabled, running, then per member value and id (and
 * lost samples, for sets that buffer overflow records).
 */
static int
read_group(cpc_set_t *set)
{
	ssize_t n = read(set->fds[0], set->readbuf, set->readbuf_len);

	if (n == 0) {
		/* A group the kernel put in error state: not counted. */
		errno = EIO;
		return -1;
	}
	if (n != (ssize_t)set->readbuf_len ||
	    set->readbuf[0] != (uint64_t)set->nreqs) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

int
cpc_read_stride(const cpc_set_t *set)
{
	return set->lost_format ? 3 : 2;
}

/* The count of request i in the last read. */
uint64_t
cpc_read_value(const cpc_set_t *set, int i)
{
	return set->readbuf[3 + cpc_read_stride(set) * i];
}

/* Samples of request i the kernel had no ring room for, last read. */
uint64_t
cpc_read_lost(const cpc_set_t *set, int i)
{
	return set->lost_format ? set->readbuf[5 + 3 * i] : 0;
}

/* Read every count of a bound set into its readbuf. */
int
cpc_set_read(cpc_set_t *set)
{
	return set->read_each ? read_each(set) : read_group(set);
}

static bool
invalidated(const cpc_set_t *set)
{
	if (set->bound == CPC_BOUND_CPU)
		return false;
	return set->generation != cpc_excl_generation();
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
	if (invalidated(set) ||
	    (set->bound == CPC_BOUND_CPU && set->binder != gettid())) {
		errno = EAGAIN;
		return -1;
	}
	if (cpc_set_read(set) != 0)
		return -1;
	set->enabled_ns = set->readbuf[1];
	set->running_ns = set->readbuf[2];
	for (i = 0; i < set->nreqs; i++)
		buf->data[i] = set->reqs[i].start +
		    (cpc_read_value(set, i) - set->reqs[i].base);
	buf->hrtime = cpc_gethrtime();
	if (cpc->tsc_per_ns == 0.0)
		cpc->tsc_per_ns = cpc_tsc_per_ns();
	buf->tick = (uint64_t)((double)set->enabled_ns * cpc->tsc_per_ns);
	return 0;
}

int
cpc_set_times(cpc_t *cpc, cpc_set_t *set, uint64_t *enabled_ns,
    uint64_t *running_ns)
{
	if (set == NULL || set->cpc != cpc) {
		errno = EINVAL;
		return -1;
	}
	*enabled_ns = set->enabled_ns;
	*running_ns = set->running_ns;
	return 0;
}
