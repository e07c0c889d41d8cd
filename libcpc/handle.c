/*
 * The library handle: open, close, and what it caches about the machine.
 */
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpc_impl.h"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

/* Every open handle, so that libpctx can say when a process is gone. */
static LIST_HEAD(, __cpc) open_handles = LIST_HEAD_INITIALIZER(open_handles);
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;

static void
pfm_init_once(void)
{
	pfm_status = pfm_initialize();
}

/* The kernel has perf_event_open unless it says ENOSYS. */
static int
perf_available(void)
{
	struct perf_event_attr attr;
	int fd;

	cpc_dummy_attr(&attr);
	if ((fd = cpc_perf_open(&attr, 0, -1, -1)) >= 0) {
		close(fd);
		return 0;
	}
	return errno == ENOSYS ? -1 : 0;
}

cpc_t *
cpc_open(int ver)
{
	cpc_t *cpc;

	if (ver != CPC_VER_CURRENT) {
		errno = EINVAL;
		return NULL;
	}
	pthread_once(&pfm_once, pfm_init_once);
	if (pfm_status != PFM_SUCCESS) {
		errno = ENOSYS;
		return NULL;
	}
	if (perf_available() != 0)
		return NULL;
	if ((cpc = calloc(1, sizeof(*cpc))) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	LIST_INIT(&cpc->sets);
	LIST_INIT(&cpc->bufs);
	cpc->any_cpu_fd = -1;
	cpc->tsc_per_ns = 0.0;
	cpc_pmu_detect(cpc);
	pthread_mutex_lock(&handles_lock);
	LIST_INSERT_HEAD(&open_handles, cpc, link);
	pthread_mutex_unlock(&handles_lock);
	return cpc;
}

/* Release each libpctx process once, however many sets refer to it. */
static void
release_pctxs(cpc_t *cpc)
{
	cpc_set_t *set, *other;
	pctx_t *pctx;

	LIST_FOREACH(set, &cpc->sets, link) {
		if ((pctx = set->pctx) == NULL)
			continue;
		LIST_FOREACH(other, &cpc->sets, link)
			if (other->pctx == pctx)
				other->pctx = NULL;
		if (pctx_release != NULL)
			pctx_release(pctx);
	}
}

int
cpc_close(cpc_t *cpc)
{
	cpc_set_t *set;
	cpc_buf_t *buf;

	if (cpc == NULL)
		return 0;
	pthread_mutex_lock(&handles_lock);
	LIST_REMOVE(cpc, link);
	pthread_mutex_unlock(&handles_lock);
	LIST_FOREACH(set, &cpc->sets, link)
		if (set->bound != CPC_UNBOUND)
			(void)cpc_unbind(cpc, set);
	release_pctxs(cpc);
	while ((set = LIST_FIRST(&cpc->sets)) != NULL)
		(void)cpc_set_destroy(cpc, set);
	while ((buf = LIST_FIRST(&cpc->bufs)) != NULL)
		(void)cpc_buf_destroy(cpc, buf);
	cpc_catalog_free(cpc);
	cpc_events_free(cpc);
	if (cpc->any_cpu_fd >= 0)
		close(cpc->any_cpu_fd);
	free(cpc);
	return 0;
}

uint_t
cpc_npic(cpc_t *cpc)
{
	return cpc->npic;
}

uint_t
cpc_caps(cpc_t *cpc)
{
	(void)cpc;
	return CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE;
}

const char *
cpc_cciname(cpc_t *cpc)
{
	return cpc->cciname;
}

const char *
cpc_cpuref(cpc_t *cpc)
{
	return cpc->cpuref;
}

void
cpc_terminate(cpc_t *cpc)
{
	cpc_set_t *set;

	cpc->terminated = true;
	if (pctx_terminate == NULL)
		return;
	LIST_FOREACH(set, &cpc->sets, link)
		if (set->pctx != NULL)
			pctx_terminate(set->pctx);
}

/* Called by libpctx when a pctx is released: forget every use of it. */
void
__cpc_pctx_gone(pctx_t *pctx)
{
	cpc_t *cpc;
	cpc_set_t *set;

	pthread_mutex_lock(&handles_lock);
	LIST_FOREACH(cpc, &open_handles, link)
		LIST_FOREACH(set, &cpc->sets, link)
			if (set->pctx == pctx)
				set->pctx = NULL;
	pthread_mutex_unlock(&handles_lock);
}
