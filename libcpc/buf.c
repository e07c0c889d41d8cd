/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sample buffers: one 64-bit value per request, plus the sample time and
 * the virtualized tick.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_impl.h"

cpc_buf_t *
cpc_buf_create(cpc_t *cpc, cpc_set_t *set)
{
	cpc_buf_t *buf;
	int i;

	if (set == NULL || set->cpc != cpc) {
		errno = EINVAL;
		return NULL;
	}
	buf = calloc(1, sizeof(*buf) + (size_t)set->nreqs * sizeof(uint64_t));
	if (buf == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	buf->cpc = cpc;
	buf->nreqs = set->nreqs;
	/*
	 * Written now, not left to calloc's fresh pages: a sample into it
	 * must not fault after its read, or a page-fault counter would
	 * count that fault in the caller's interval.
	 */
	for (i = 0; i < buf->nreqs; i++)
		((volatile uint64_t *)buf->data)[i] = 0;
	LIST_INSERT_HEAD(&cpc->bufs, buf, link);
	return buf;
}

int
cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf)
{
	if (buf == NULL || buf->cpc != cpc) {
		errno = EINVAL;
		return -1;
	}
	LIST_REMOVE(buf, link);
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
	if (ds->nreqs != a->nreqs || a->nreqs != b->nreqs)
		return;
	for (i = 0; i < ds->nreqs; i++)
		ds->data[i] = a->data[i] - b->data[i];
	ds->tick = a->tick - b->tick;
	ds->hrtime = later(a->hrtime, b->hrtime);
}

void
cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	int i;

	(void)cpc;
	if (ds->nreqs != a->nreqs || a->nreqs != b->nreqs)
		return;
	for (i = 0; i < ds->nreqs; i++)
		ds->data[i] = a->data[i] + b->data[i];
	ds->tick = a->tick + b->tick;
	ds->hrtime = later(a->hrtime, b->hrtime);
}

void
cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src)
{
	(void)cpc;
	if (ds->nreqs != src->nreqs)
		return;
	memcpy(ds->data, src->data, (size_t)ds->nreqs * sizeof(uint64_t));
	ds->hrtime = src->hrtime;
	ds->tick = src->tick;
}

void
cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf)
{
	(void)cpc;
	memset(buf->data, 0, (size_t)buf->nreqs * sizeof(uint64_t));
	buf->hrtime = 0;
	buf->tick = 0;
}
