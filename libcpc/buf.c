/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sample buffers: one 64-bit value per request, plus the sample time and
 * the virtualized tick; on a machine with several core PMUs, each
 * request's part counted on each of them after the values; then, for
 * each request summed over the boxes of a PMU (uncore_imc_0 ..
 * uncore_imc_N), each box's part; then each request's enabled and
 * running time. Being values too, the parts and the times are
 * subtracted, added and copied with them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_impl.h"

/* After the values: per request, where its parts are. */
struct buf_req {
	bool parted;   /* it counts on core PMUs */
	int nboxes;    /* its boxes, or 0 */
	int box_first; /* the first one's value */
};

static struct buf_req *
req_layout(cpc_buf_t *buf)
{
	return (struct buf_req *)(buf->data + buf->nvalues);
}

static bool
counts_on_cores(const cpc_t *cpc, const struct cpc_request *req)
{
	int t;

	for (t = 0; req->enc.hardware && t < req->enc.nterms; t++)
		if (cpclib_core_of_attr(cpc, &req->enc.term[t].attr) >= 0)
			return true;
	return false;
}

static void
lay_out(const cpc_t *cpc, const cpc_set_t *set, cpc_buf_t *buf)
{
	struct buf_req *layout = req_layout(buf);
	int i, next = buf->nreqs * (1 + buf->ncore);

	for (i = 0; i < buf->nreqs; i++) {
		layout[i].parted = counts_on_cores(cpc, &set->reqs[i]);
		layout[i].nboxes =
		    set->reqs[i].enc.boxes ? set->reqs[i].enc.nterms : 0;
		layout[i].box_first = next;
		next += layout[i].nboxes;
	}
}

cpc_buf_t *
cpc_buf_create(cpc_t *cpc, cpc_set_t *set)
{
	cpc_buf_t *buf;
	int i, nboxes = 0;

	if (set == NULL || set->cpc != cpc) {
		errno = EINVAL;
		return NULL;
	}
	int ncore = cpc->ncore > 1 ? cpc->ncore : 0;

	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].enc.boxes)
			nboxes += set->reqs[i].enc.nterms;
	int nvalues = set->nreqs * (3 + ncore) + nboxes;

	buf = calloc(1,
	    sizeof(*buf) + (size_t)nvalues * sizeof(uint64_t) +
		(size_t)set->nreqs * sizeof(struct buf_req));
	if (buf == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	buf->cpc = cpc;
	buf->nreqs = set->nreqs;
	buf->ncore = ncore;
	buf->nboxes = nboxes;
	buf->nvalues = nvalues;
	/*
	 * Written now, not left to calloc's fresh pages: a sample into it
	 * must not fault after its read, or a page-fault counter would
	 * count that fault in the caller's interval.
	 */
	for (i = 0; i < buf->nvalues; i++)
		((volatile uint64_t *)buf->data)[i] = 0;
	lay_out(cpc, set, buf);
	pthread_mutex_lock(&cpc->lock);
	LIST_INSERT_HEAD(&cpc->bufs, buf, link);
	pthread_mutex_unlock(&cpc->lock);
	return buf;
}

int
cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf)
{
	if (buf == NULL || buf->cpc != cpc) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&cpc->lock);
	LIST_REMOVE(buf, link);
	pthread_mutex_unlock(&cpc->lock);
	free(buf);
	return 0;
}

/* As on Solaris, no bounds check: the index comes from add_request. */
int
cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val)
{
	(void)cpc;
	*val = buf->data[index];
	return 0;
}

int
cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val)
{
	(void)cpc;
	buf->data[index] = val;
	return 0;
}

int
cpc_buf_get_part(cpc_t *cpc, cpc_buf_t *buf, int index, int core, uint64_t *val)
{
	if (buf == NULL || buf->cpc != cpc || val == NULL || index < 0 ||
	    index >= buf->nreqs || core < 0 ||
	    core >= (buf->ncore > 0 ? buf->ncore : 1) || core >= cpc->ncore) {
		errno = EINVAL;
		return -1;
	}
	if (!req_layout(buf)[index].parted) {
		errno = ENOENT;
		return -1;
	}
	*val = buf->ncore > 0 ?
	    buf->data[buf->nreqs + index * buf->ncore + core] :
	    buf->data[index];
	return 0;
}

int
cpc_buf_get_box(cpc_t *cpc, cpc_buf_t *buf, int index, int box, uint64_t *val)
{
	const struct buf_req *req;

	if (buf == NULL || buf->cpc != cpc || val == NULL || index < 0 ||
	    index >= buf->nreqs || box < 0) {
		errno = EINVAL;
		return -1;
	}
	req = &req_layout(buf)[index];
	if (req->nboxes == 0) {
		errno = ENOENT;
		return -1;
	}
	if (box >= req->nboxes) {
		errno = EINVAL;
		return -1;
	}
	*val = buf->data[req->box_first + box];
	return 0;
}

/* Where request index's times are in data, after every part. */
uint64_t *
cpclib_buf_times(cpc_buf_t *buf, int index)
{
	return &buf->data[buf->nvalues - 2 * (buf->nreqs - index)];
}

int
cpc_buf_get_times(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *enabled_ns,
    uint64_t *running_ns)
{
	const uint64_t *times;

	if (buf == NULL || buf->cpc != cpc || index < 0 ||
	    index >= buf->nreqs || enabled_ns == NULL || running_ns == NULL) {
		errno = EINVAL;
		return -1;
	}
	times = cpclib_buf_times(buf, index);
	*enabled_ns = times[0];
	*running_ns = times[1];
	return 0;
}

/* Where request index's box parts are in data, and how many: sample.c. */
int
cpclib_buf_boxes(cpc_buf_t *buf, int index, uint64_t **first)
{
	struct buf_req *req = &req_layout(buf)[index];

	*first = &buf->data[req->box_first];
	return req->nboxes;
}

hrtime_t
cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf)
{
	(void)cpc;
	return buf->hrtime;
}

uint64_t
cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf)
{
	(void)cpc;
	return buf->tick;
}

static hrtime_t
later(hrtime_t a, hrtime_t b)
{
	return a > b ? a : b;
}

void
cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	int i;

	(void)cpc;
	if (ds->nvalues != a->nvalues || a->nvalues != b->nvalues)
		return;
	for (i = 0; i < ds->nvalues; i++)
		ds->data[i] = a->data[i] - b->data[i];
	ds->tick = a->tick - b->tick;
	ds->hrtime = later(a->hrtime, b->hrtime);
}

void
cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	int i;

	(void)cpc;
	if (ds->nvalues != a->nvalues || a->nvalues != b->nvalues)
		return;
	for (i = 0; i < ds->nvalues; i++)
		ds->data[i] = a->data[i] + b->data[i];
	ds->tick = a->tick + b->tick;
	ds->hrtime = later(a->hrtime, b->hrtime);
}

void
cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src)
{
	(void)cpc;
	if (ds->nvalues != src->nvalues)
		return;
	memcpy(ds->data, src->data, (size_t)ds->nvalues * sizeof(uint64_t));
	ds->hrtime = src->hrtime;
	ds->tick = src->tick;
}

void
cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf)
{
	(void)cpc;
	memset(buf->data, 0, (size_t)buf->nvalues * sizeof(uint64_t));
	buf->hrtime = 0;
	buf->tick = 0;
}
