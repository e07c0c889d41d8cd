/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a counting engine outside libcpc needs from it: the perf attributes
 * of a set's requests, and the tick of the time its counters ran.
 */
#include <errno.h>

#include "cpc_impl.h"

/* Flags an engine that only counts can honour. */
#define ENGINE_FLAGS (CPC_COUNT_USER | CPC_COUNT_SYSTEM | CPC_COUNT_HV)
#define OVERFLOW_FLAGS \
	(CPC_OVF_NOTIFY_EMT | CPC_OVF_BUFFERED | CPC_OVF_CALLSTACK)

int
cpc_set_request_attr(
    cpc_t *cpc, cpc_set_t *set, int index, struct perf_event_attr *attr)
{
	static const char fn[] = "cpc_set_request_attr";
	const struct cpc_request *req;
	int subcode;

	if (set == NULL || attr == NULL || set->cpc != cpc || index < 0 ||
	    index >= set->nreqs) {
		errno = EINVAL;
		return -1;
	}
	req = &set->reqs[index];
	/* Overflow, and a derived count of several events: not one attr. */
	if ((req->flags & OVERFLOW_FLAGS) != 0 || req->enc.nterms != 1) {
		errno = ENOTSUP;
		return -1;
	}
	if ((req->flags & ~(uint_t)ENGINE_FLAGS) != 0) {
		cpclib_err_subcode(cpc, fn, CPC_REQ_INVALID_FLAGS);
		errno = EINVAL;
		return -1;
	}
	cpclib_request_to_attr(req, 0, attr);
	if ((subcode = cpclib_attr_apply(cpc, req, attr)) != 0) {
		cpclib_err_subcode(cpc, fn, subcode);
		errno = EINVAL;
		return -1;
	}
	/* Each counter is read alone, never as a group. */
	attr->read_format =
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return 0;
}

/*
 * A request counted on each core PMU of a hybrid CPU: one event per core
 * PMU, each weighed 1. Its event on core PMU core, or -1 with ENOENT where
 * that PMU has none, ENOTSUP for a request made otherwise.
 */
int
cpc_set_request_attr_core(cpc_t *cpc, cpc_set_t *set, int index, int core,
    struct perf_event_attr *attr)
{
	static const char fn[] = "cpc_set_request_attr_core";
	const struct cpc_request *req;
	int t, subcode, found = -1;

	if (set == NULL || attr == NULL || set->cpc != cpc || index < 0 ||
	    index >= set->nreqs || core < 0 || core >= cpc->ncore) {
		errno = EINVAL;
		return -1;
	}
	req = &set->reqs[index];
	if ((req->flags & OVERFLOW_FLAGS) != 0) {
		errno = ENOTSUP;
		return -1;
	}
	for (t = 0; t < req->enc.nterms; t++) {
		if (req->enc.term[t].sign != 1 ||
		    cpclib_core_of_attr(cpc, &req->enc.term[t].attr) < 0) {
			errno = ENOTSUP;
			return -1;
		}
		if (cpclib_core_of_attr(cpc, &req->enc.term[t].attr) != core)
			continue;
		if (found >= 0) {
			errno = ENOTSUP; /* a sum of events on one PMU */
			return -1;
		}
		found = t;
	}
	if (found < 0) {
		errno = ENOENT;
		return -1;
	}
	cpclib_request_to_attr(req, found, attr);
	if ((subcode = cpclib_attr_apply(cpc, req, attr)) != 0) {
		cpclib_err_subcode(cpc, fn, subcode);
		errno = EINVAL;
		return -1;
	}
	attr->read_format =
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return 0;
}

uint64_t
cpc_tick_of(cpc_t *cpc, uint64_t enabled_ns)
{
	return cpclib_tick_of(cpc, enabled_ns);
}
