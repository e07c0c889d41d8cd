/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sets and their requests.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_impl.h"

cpc_set_t *
cpc_set_create(cpc_t *cpc)
{
	cpc_set_t *set;

	if ((set = calloc(1, sizeof(*set))) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	set->cpc = cpc;
	set->cpu = -1;
	pthread_mutex_lock(&cpc->lock);
	LIST_INSERT_HEAD(&cpc->sets, set, link);
	pthread_mutex_unlock(&cpc->lock);
	return set;
}

static void
request_free(struct cpc_request *req)
{
	uint_t i;

	for (i = 0; i < req->nattrs; i++)
		free(req->attrs[i].ca_name);
	free(req->attrs);
	free(req->event);
}

int
cpc_set_destroy(cpc_t *cpc, cpc_set_t *set)
{
	int i;

	if (set == NULL || set->cpc != cpc) {
		errno = EINVAL;
		return -1;
	}
	if (set->bound != CPC_UNBOUND)
		(void)cpc_unbind(cpc, set);
	pthread_mutex_lock(&cpc->lock);
	LIST_REMOVE(set, link);
	pthread_mutex_unlock(&cpc->lock);
	for (i = 0; i < set->nreqs; i++)
		request_free(&set->reqs[i]);
	free(set->reqs);
	free(set->fds);
	free(set->group_key);
	free(set->leaders);
	free(set->leader_times);
	free(set->leader_unit);
	free(set->ev_leader);
	free(set->evs);
	free(set->readbuf);
	free(set->groupbuf);
	free(set);
	return 0;
}

static int
copy_attrs(struct cpc_request *req, uint_t nattrs, const cpc_attr_t *attrs)
{
	uint_t i;

	if (nattrs == 0)
		return 0;
	if ((req->attrs = calloc(nattrs, sizeof(cpc_attr_t))) == NULL)
		return -1;
	for (i = 0; i < nattrs; i++) {
		req->attrs[i].ca_val = attrs[i].ca_val;
		if ((req->attrs[i].ca_name = strdup(attrs[i].ca_name)) == NULL)
			return -1;
		req->nattrs = i + 1;
		if (strcmp(attrs[i].ca_name, "picnum") == 0)
			req->picnum = (int)attrs[i].ca_val;
	}
	return 0;
}

/* Check the attributes in the order Solaris does; 0 or a subcode. */
static int
check_attrs(cpc_t *cpc, uint_t nattrs, const cpc_attr_t *attrs)
{
	uint_t i;

	for (i = 0; i < nattrs; i++) {
		if (attrs[i].ca_name == NULL || attrs[i].ca_name[0] == '\0' ||
		    strlen(attrs[i].ca_name) >= CPC_MAX_ATTR_LEN ||
		    !cpclib_attr_known(cpc, attrs[i].ca_name))
			return CPC_INVALID_ATTRIBUTE;
		if (strcmp(attrs[i].ca_name, "picnum") == 0 &&
		    attrs[i].ca_val >= cpclib_npic(cpc))
			return CPC_INVALID_PICNUM;
	}
	return 0;
}

int
cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event,
    uint64_t preset, uint_t flags, uint_t nattrs, const cpc_attr_t *attrs)
{
	static const char fn[] = "cpc_set_add_request";
	struct cpc_event_enc enc;
	struct cpc_request *reqs, *req;
	char why[320];
	int subcode;

	if (set == NULL || set->cpc != cpc || set->bound != CPC_UNBOUND ||
	    (nattrs > 0 && attrs == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if (cpclib_event_encode(cpc, event, &enc, why, sizeof(why)) != 0) {
		if (cpc_event_status(cpc, event, NULL, 0) == CPC_EVENT_UNKNOWN)
			cpclib_err_subcode(cpc, fn, CPC_INVALID_EVENT);
		else
			cpclib_err(cpc, fn, CPC_INVALID_EVENT, "%s\n", why);
		errno = EINVAL;
		return -1;
	}
	if ((subcode = check_attrs(cpc, nattrs, attrs)) != 0) {
		cpclib_err_subcode(cpc, fn, subcode);
		errno = EINVAL;
		return -1;
	}
	reqs = reallocarray(set->reqs, (size_t)set->nreqs + 1, sizeof(*reqs));
	if (reqs == NULL) {
		errno = ENOMEM;
		return -1;
	}
	set->reqs = reqs;
	req = &reqs[set->nreqs];
	memset(req, 0, sizeof(*req));
	req->picnum = -1;
	req->preset = preset;
	req->flags = flags;
	req->enc = enc;
	if ((req->event = strdup(event)) == NULL ||
	    copy_attrs(req, nattrs, attrs) != 0) {
		request_free(req);
		errno = ENOMEM;
		return -1;
	}
	set->asks_overflow |= (flags & CPC_OVF_FLAGS) != 0;
	set->prepared = false;
	return set->nreqs++;
}

int
cpc_set_group(cpc_t *cpc, cpc_set_t *set, int index, int group)
{
	if (set == NULL || set->cpc != cpc || set->bound != CPC_UNBOUND ||
	    index < 0 || index >= set->nreqs || group < 0 ||
	    group >= CPC_SET_MAX_REQS) {
		errno = EINVAL;
		return -1;
	}
	set->reqs[index].group = group;
	set->prepared = false;
	return 0;
}

int
cpc_set_scale(cpc_t *cpc, cpc_set_t *set, int on)
{
	if (set == NULL || set->cpc != cpc || set->bound != CPC_UNBOUND) {
		errno = EINVAL;
		return -1;
	}
	set->scale = on != 0;
	return 0;
}

void
cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
    void (*action)(void *arg, int index, const char *event, uint64_t preset,
	uint_t flags, int nattrs, const cpc_attr_t *attrs))
{
	int i;

	(void)cpc;
	for (i = set->nreqs - 1; i >= 0; i--)
		action(arg, i, set->reqs[i].event, set->reqs[i].preset,
		    set->reqs[i].flags, (int)set->reqs[i].nattrs,
		    set->reqs[i].attrs);
}
