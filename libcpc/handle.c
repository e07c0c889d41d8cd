/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The library handle: open, close, and what it caches about the machine.
 */
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpc_impl.h"

/*
 * The kernel has perf_event_open unless it says ENOSYS. Asked with an
 * attribute too short to be read, which opens nothing: a first event on
 * a thread would cost a caller that counts CPUs alone a grace period (see
 * cpclib_probe_open).
 */
static int
perf_available(void)
{
	struct perf_event_attr attr;
	int fd;

	cpclib_dummy_attr(&attr);
	attr.size = 1;
	if ((fd = cpclib_perf_open(&attr, 0, -1, -1)) >= 0) {
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
	if (perf_available() != 0)
		return NULL;
	if ((cpc = calloc(1, sizeof(*cpc))) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&cpc->lock, NULL);
	pthread_mutex_init(&cpc->models_lock, NULL);
	LIST_INIT(&cpc->sets);
	LIST_INIT(&cpc->bufs);
	cpc->probe_cpu = -1;
	cpclib_pmu_detect(cpc);
	return cpc;
}

int
cpc_close(cpc_t *cpc)
{
	cpc_set_t *set;
	cpc_buf_t *buf;

	if (cpc == NULL)
		return 0;
	LIST_FOREACH (set, &cpc->sets, link)
		if (set->bound != CPC_UNBOUND)
			(void)cpc_unbind(cpc, set);
	cpclib_pctx_release_all(cpc);
	while ((set = LIST_FIRST(&cpc->sets)) != NULL)
		(void)cpc_set_destroy(cpc, set);
	while ((buf = LIST_FIRST(&cpc->bufs)) != NULL)
		(void)cpc_buf_destroy(cpc, buf);
	cpclib_catalog_free(cpc);
	cpclib_events_free(cpc);
	pthread_mutex_destroy(&cpc->models_lock);
	pthread_mutex_destroy(&cpc->lock);
	free(cpc);
	return 0;
}

uint_t
cpc_npic(cpc_t *cpc)
{
	return cpclib_npic(cpc);
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
	cpclib_pmu_models(cpc);
	return cpc->cciname;
}

const char *
cpc_cpuref(cpc_t *cpc)
{
	cpclib_pmu_models(cpc);
	return cpc->cpuref;
}

void
cpc_terminate(cpc_t *cpc)
{
	cpclib_pctx_terminate_all(cpc);
}
