/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checking a set before anything starts: every request is opened as its
 * bind would open it (modes, attributes, on a thread or on a CPU), once,
 * disabled, and closed again; each one refused is told through the
 * handle's error handler with its true cause. The commands run this
 * before they start a command or capture a process, so that a set that
 * cannot count is a usage error, not a failure half way.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "evname.h"

static const char fn[] = "cpc_set_check";

static const char *
event_kind(cpc_t *cpc, const struct cpc_request *req)
{
	const char *kind = cpc_event_kind(cpc, req->event);

	return kind != NULL ? kind : "non-hardware";
}

/* Which attribute of a request its event cannot take, and why. */
static void
bad_attribute(cpc_t *cpc, const struct cpc_request *req,
    const struct perf_event_attr *attr)
{
	const struct cpc_attr_field *f;
	struct perf_event_attr copy;
	uint_t i;

	for (i = 0; i < req->nattrs; i++) {
		const cpc_attr_t *a = &req->attrs[i];

		if (strcmp(a->ca_name, "picnum") == 0)
			continue;
		if (cpclib_core_of_type(cpc, attr->type) < 0) {
			cpclib_err(cpc, fn, CPC_ATTRIBUTE_OUT_OF_RANGE,
			    "%s: %s=%#" PRIx64 " is a hardware event attribute "
			    "(a field of the core PMU's event select), and %s "
			    "is a %s event; give the attribute to hardware "
			    "events only (%sN=%#" PRIx64 " for counter N)\n",
			    req->event, a->ca_name, a->ca_val, req->event,
			    event_kind(cpc, req), a->ca_name, a->ca_val);
			return;
		}
		copy = *attr;
		if ((f = cpclib_pmu_attr_field(a->ca_name)) == NULL ||
		    !cpclib_deposit(f->config, f->mask, a->ca_val, &copy)) {
			cpclib_err(cpc, fn, CPC_ATTRIBUTE_OUT_OF_RANGE,
			    "%s: %s=%#" PRIx64 " does not fit the attribute's "
			    "bits of the event select\n",
			    req->event, a->ca_name, a->ca_val);
			return;
		}
	}
	cpclib_err_subcode(cpc, fn, CPC_ATTRIBUTE_OUT_OF_RANGE);
}

static int
subcode_of(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return CPC_ATTR_REQUIRES_PRIVILEGE;
	case ENOSPC:
	case EBUSY:
		return CPC_RESOURCE_UNAVAIL;
	default:
		return CPC_INVALID_EVENT;
	}
}

/*
 * Whether some event of a request counts on cpuid's core PMU, on a hybrid
 * CPU; said if none does.
 */
static bool
on_cpu_core(cpc_t *cpc, const struct cpc_request *req, int cpuid)
{
	int t, c = cpclib_core_of_cpu(cpc, cpuid), core;
	char where[256];

	if (cpuid < 0 || cpc->ncore < 2 || !req->enc.hardware)
		return true;
	for (t = 0; t < req->enc.nterms; t++)
		if ((core = cpclib_core_of_attr(cpc, &req->enc.term[t].attr)) <
			0 ||
		    core == c ||
		    cpclib_socket_pmu(cpc, &req->enc.term[t].attr) != NULL)
			return true;
	cpclib_request_cores(cpc, req, where, sizeof(where));
	cpclib_err(cpc, fn, CPC_INVALID_EVENT,
	    "%s: the core PMU of cpu%d (%s) has no such event; it counts on "
	    "%s only\n",
	    req->event, cpuid, c >= 0 ? cpc->core[c].name : "none", where);
	return false;
}

/* 0 if the request can count; -1, reported, if not. */
static int
check_request(cpc_t *cpc, const struct cpc_request *req, int cpuid)
{
	struct perf_event_attr attr;
	const struct sysfs_pmu *socket;
	char why[EV_WHY_LEN];
	pid_t pid = cpuid >= 0 ? -1 : 0;
	int t, fd, err;

	if (req->enc.nterms > 1 && cpclib_ovf_period(req) != 0) {
		cpclib_err(cpc, fn, CPC_INVALID_EVENT,
		    "%s: counted as the sum "
		    "of %d events, so it has no single counter to overflow; "
		    "ask overflow of one of them instead\n",
		    req->event, req->enc.nterms);
		return -1;
	}
	if (!on_cpu_core(cpc, req, cpuid) ||
	    (cpuid < 0 && cpclib_socket_refused_on_thread(cpc, req, fn)))
		return -1;
	for (t = 0; t < req->enc.nterms; t++) {
		cpclib_request_to_attr(req, t, &attr);
		if (cpuid >= 0 && cpc->ncore > 1 &&
		    cpclib_core_of_attr(cpc, &attr) >= 0 &&
		    cpclib_core_of_attr(cpc, &attr) !=
			cpclib_core_of_cpu(cpc, cpuid))
			continue; /* another core type's: not opened there */
		if (cpuid >= 0 && (socket = cpclib_socket_pmu(cpc, &attr)) &&
		    !CPU_ISSET(cpuid, &socket->cpus))
			continue; /* its socket's: counted on its cpumask's */
		if (cpclib_attr_apply(cpc, req, &attr) != 0) {
			bad_attribute(cpc, req, &attr);
			return -1;
		}
		attr.disabled = 1;
		if ((fd = cpclib_perf_open(&attr, pid, cpuid, -1)) >= 0) {
			close(fd);
			continue;
		}
		if ((err = errno) == EMFILE || err == ENFILE)
			continue; /* says nothing of the event */
		cpclib_explain_open_error(
		    cpc, req, err, pid, cpuid, why, sizeof(why));
		cpclib_err(
		    cpc, fn, subcode_of(err), "%s: %s\n", req->event, why);
		return -1;
	}
	return 0;
}

/* Close the first n of fds. */
static void
close_all(int *fds, int n)
{
	while (n-- > 0)
		close(fds[n]);
}

/*
 * Whether the hardware events of one group (key k of cpclib_group_layout)
 * fit the PMU together: opened as one group with the leader enabled and
 * counting nothing, where the driver checks every member (see group.c).
 */
static int
check_hardware_fit(
    cpc_t *cpc, const cpc_set_t *set, int cpuid, const int *key, int k)
{
	struct perf_event_attr attr;
	int fds[CPC_MAX_TERMS * set->nreqs], n = 0, i, t, e = 0, rc = 0;
	pid_t pid = cpuid >= 0 ? -1 : 0;
	char whose[48];

	if (cpclib_set_has_groups(set))
		snprintf(whose, sizeof(whose), "group %d's", k / CPC_KEY_SLOTS);
	else
		strlcpy(whose, "the set's", sizeof(whose));

	for (i = 0; i < set->nreqs; i++) {
		const struct cpc_request *req = &set->reqs[i];

		for (t = 0; t < req->enc.nterms; t++, e++) {
			if (!req->enc.hardware || key[e] != k)
				continue;
			cpclib_request_to_attr(req, t, &attr);
			(void)cpclib_attr_apply(cpc, req, &attr);
			attr.exclude_user = attr.exclude_kernel = 1;
			attr.exclude_hv = 1;
			if ((fds[n] = cpclib_perf_open(&attr, pid, cpuid,
				 n == 0 ? -1 : fds[0])) >= 0) {
				n++;
				continue;
			}
			if (errno == EINVAL && n > 0) {
				cpclib_err(cpc, fn, CPC_RESOURCE_UNAVAIL,
				    "%s: %s %d hardware events do not fit "
				    "the PMU's counters together; put some in "
				    "another %s\n",
				    req->event, whose, n + 1,
				    cpclib_set_has_groups(set) ?
					"group" :
					"set (another -c)");
				rc = -1;
			}
			close_all(fds, n);
			return rc;
		}
	}
	close_all(fds, n);
	return 0;
}

/*
 * One group of the set opened at once, as its bind opens it: what only
 * shows together, such as more breakpoints than the CPU has debug
 * registers.
 */
static int
check_together(
    cpc_t *cpc, const cpc_set_t *set, int cpuid, const int *key, int k)
{
	struct perf_event_attr attr;
	char why[EV_WHY_LEN];
	int fds[CPC_MAX_TERMS * set->nreqs], n = 0, i, t, e = 0, err;
	pid_t pid = cpuid >= 0 ? -1 : 0;

	for (i = 0; i < set->nreqs; i++) {
		const struct cpc_request *req = &set->reqs[i];

		for (t = 0; t < req->enc.nterms; t++, e++) {
			if (key[e] != k)
				continue;
			cpclib_request_to_attr(req, t, &attr);
			(void)cpclib_attr_apply(cpc, req, &attr);
			attr.disabled = n == 0;
			if ((fds[n] = cpclib_perf_open(&attr, pid, cpuid,
				 n == 0 ? -1 : fds[0])) >= 0) {
				n++;
				continue;
			}
			if ((err = errno) == EMFILE || err == ENFILE)
				break;
			cpclib_explain_open_error(
			    cpc, req, err, pid, cpuid, why, sizeof(why));
			cpclib_err(cpc, fn, subcode_of(err),
			    "%s: with the "
			    "set's other events: %s\n",
			    req->event, why);
			close_all(fds, n);
			return -1;
		}
	}
	close_all(fds, n);
	return 0;
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

/* Group k of the set: 0, or -1 once its refusal is said. */
static int
check_key(cpc_t *cpc, const cpc_set_t *set, int cpuid, const int *key, int k)
{
	int i, t, e, hw, n;

	for (i = e = hw = n = 0; i < set->nreqs; i++)
		for (t = 0; t < set->reqs[i].enc.nterms; t++, e++)
			if (key[e] == k) {
				n++;
				hw += set->reqs[i].enc.hardware;
			}
	if ((hw >= 2 && check_hardware_fit(cpc, set, cpuid, key, k) != 0) ||
	    (n >= 2 && check_together(cpc, set, cpuid, key, k) != 0))
		return -1;
	return 0;
}

/* Each group of the set, as its bind on cpuid (-1: a thread) makes it. */
static int
check_group(cpc_t *cpc, cpc_set_t *set, int cpuid)
{
	int nevents = 0, i, e;

	if (cpclib_set_has_groups(set) && cpclib_check_sizes(cpc, set, fn) != 0)
		return -1;
	for (i = 0; i < set->nreqs; i++)
		nevents += set->reqs[i].enc.nterms;
	if (nevents < 2)
		return 0;
	{
		int key[nevents];

		(void)cpclib_group_layout(cpc, set, cpuid, key);
		for (e = 0; e < nevents; e++)
			if (first_of_key(key, e) &&
			    check_key(cpc, set, cpuid, key, key[e]) != 0)
				return -1;
	}
	return 0;
}

/*
 * Whether some event of a request counts on core PMU core; with core -1,
 * whether none counts on a core PMU.
 */
static bool
request_on_core(cpc_t *cpc, const struct cpc_request *req, int core)
{
	int t, c;
	bool on_any = false;

	for (t = 0; t < req->enc.nterms; t++) {
		c = cpclib_core_of_attr(cpc, &req->enc.term[t].attr);
		if (core >= 0 && c == core)
			return true;
		on_any |= c >= 0;
	}
	return core < 0 && !on_any;
}

/* Whether some request of the set counts on core PMU core. */
static bool
set_on_core(cpc_t *cpc, const cpc_set_t *set, int core)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		if (request_on_core(cpc, &set->reqs[i], core))
			return true;
	return false;
}

/*
 * A request as bindings on every CPU count it: on a CPU of each core PMU
 * it has events of, or on the probe CPU.
 */
static int
check_request_cpus(cpc_t *cpc, const struct cpc_request *req)
{
	int c;

	if (cpc->ncore < 2 || request_on_core(cpc, req, -1))
		return check_request(cpc, req, cpc->probe_cpu);
	for (c = 0; c < cpc->ncore; c++)
		if (request_on_core(cpc, req, c) &&
		    check_request(cpc, req, cpclib_core_probe_cpu(cpc, c)) != 0)
			return -1;
	return 0;
}

/* The set's groups as bindings on every CPU make them: one per core PMU. */
static int
check_group_cpus(cpc_t *cpc, cpc_set_t *set)
{
	int c;
	bool checked = false;

	for (c = 0; c < cpc->ncore && cpc->ncore > 1; c++) {
		if (!set_on_core(cpc, set, c))
			continue;
		if (check_group(cpc, set, cpclib_core_probe_cpu(cpc, c)) != 0)
			return -1;
		checked = true;
	}
	return checked ? 0 : check_group(cpc, set, cpc->probe_cpu);
}

int
cpc_set_check_cpus(cpc_t *cpc, cpc_set_t *set)
{
	int i, bad = 0;

	if (cpc == NULL || set == NULL || set->cpc != cpc ||
	    cpc->probe_cpu < 0) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < set->nreqs; i++)
		if (check_request_cpus(cpc, &set->reqs[i]) != 0)
			bad++;
	if (bad == 0 && check_group_cpus(cpc, set) != 0)
		bad++;
	return bad;
}

int
cpc_set_check(cpc_t *cpc, cpc_set_t *set, int cpuid)
{
	int i, bad = 0;

	if (set == NULL || set->cpc != cpc || cpuid < -1) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < set->nreqs; i++)
		if (check_request(cpc, &set->reqs[i], cpuid) != 0)
			bad++;
	if (bad == 0 && check_group(cpc, set, cpuid) != 0)
		bad++;
	return bad;
}
