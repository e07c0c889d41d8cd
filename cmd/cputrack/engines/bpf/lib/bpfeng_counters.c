/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The per-CPU counters: each perf group of a set (one, or each {...} of
 * several) is a perf group on each online CPU (pid -1), so that its
 * requests are scheduled together and share their enabled and running
 * times, and the kernel takes turns with the groups where the counters
 * are short. Only the set in use is enabled, except for the moment a tick
 * hands over from one set to the next. Joint sets are one group on each
 * CPU, of their distinct requests, always enabled. On a hybrid CPU a
 * counter of one core PMU is opened on its CPUs only, and a group on a
 * CPU is led by its first counter there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfeng_impl.h"

static int
perf_open(struct perf_event_attr *attr, int cpu, int group_fd)
{
	return (int)syscall(
	    SYS_perf_event_open, attr, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Mark the CPUs named by a list such as "0-3,6,8-9" as online. */
static void
parse_online(bool *online, int ncpus, const char *list)
{
	const char *p = list;
	char *end;
	long lo, hi, c;

	while (*p != '\0' && *p != '\n') {
		lo = strtol(p, &end, 10);
		hi = lo;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (c = lo; c <= hi && c < ncpus; c++)
			if (c >= 0)
				online[c] = true;
		if (*end != ',')
			break;
		p = end + 1;
	}
}

/* Each online CPU's core PMU, from libcpc's lists of their CPUs. */
static int
find_cores(struct bpfeng *eng)
{
	bool *on;
	const char *cpus;
	int k, c;

	if ((eng->cpu_core = malloc((size_t)eng->ncpus * sizeof(int))) ==
		NULL ||
	    (on = calloc((size_t)eng->ncpus, sizeof(bool))) == NULL)
		return -1;
	for (c = 0; c < eng->ncpus; c++)
		eng->cpu_core[c] = -1;
	for (k = 0; eng->sparse && cpc_core_pmu(eng->cpc, k, &cpus) != NULL;
	     k++) {
		memset(on, 0, (size_t)eng->ncpus * sizeof(bool));
		parse_online(on, eng->ncpus, cpus);
		for (c = 0; c < eng->ncpus; c++)
			if (on[c])
				eng->cpu_core[c] = k;
	}
	free(on);
	return 0;
}

/* Whether counter c counts on cpu: its core PMU's, or every CPU's. */
static bool
counts_on(const struct bpfeng *eng, int c, int cpu)
{
	return eng->counter_core[c] < 0 ||
	    eng->counter_core[c] == eng->cpu_core[cpu];
}

static int
find_online(struct bpfeng *eng)
{
	char list[4096];
	FILE *f;
	int c;

	if ((eng->online = calloc((size_t)eng->ncpus, sizeof(bool))) == NULL)
		return -1;
	if ((f = fopen("/sys/devices/system/cpu/online", "r")) != NULL &&
	    fgets(list, sizeof(list), f) != NULL) {
		parse_online(eng->online, eng->ncpus, list);
	} else {
		for (c = 0; c < eng->ncpus; c++)
			eng->online[c] = true;
	}
	if (f != NULL)
		fclose(f);
	return 0;
}

static void
open_error(const struct bpfeng_set *set, int s, int r, bool member, int cpu,
    int err, char *why, size_t whylen)
{
	char name[96];

	if (set->names != NULL && set->names[r] != NULL)
		snprintf(name, sizeof(name), "%s", set->names[r]);
	else
		snprintf(name, sizeof(name), "set %d, request %d", s, r);
	switch (err) {
	case EACCES:
	case EPERM:
		eng_why(why, whylen,
		    "%s: permission denied counting on every "
		    "CPU (needs CAP_PERFMON or root)",
		    name);
		break;
	case EMFILE:
	case ENFILE:
		eng_why(why, whylen,
		    "%s: too many open files (one counter per "
		    "CPU per event)",
		    name);
		break;
	case EINVAL:
		if (member) {
			eng_why(why, whylen,
			    "%s: cannot be counted together "
			    "with its group's other events on cpu%d",
			    name, cpu);
			break;
		}
		/* FALLTHROUGH */
	default:
		eng_why(why, whylen, "%s: cannot count on cpu%d - %s", name,
		    cpu, strerror(err));
		break;
	}
	errno = err;
}

/*
 * Set s's groups on one CPU, each leader disabled until its group is
 * whole: members that join a leader already counting would wait for the
 * CPU's context to be scheduled again. Set 0 counts at once, the others
 * wait.
 */
static int
open_groups(struct bpfeng *eng, const struct bpfeng_set *set, int s, int cpu,
    char *why, size_t whylen)
{
	struct perf_event_attr attr;
	int leaders[BPFENG_MAX_SET_REQS];
	int r, c, g, leader, fd;

	for (g = 0; g < BPFENG_MAX_SET_REQS; g++)
		leaders[g] = -1;
	for (r = 0; r < set->nattrs; r++) {
		c = eng->set_first[s] + r;
		if (!eng->joint && !counts_on(eng, c, cpu))
			continue;
		g = eng->joint ? 0 : eng->counter_group[c];
		leader = leaders[g];
		attr = set->attrs[r];
		attr.size = sizeof(attr);
		attr.disabled = leader < 0;
		attr.inherit = 0;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
		    PERF_FORMAT_TOTAL_TIME_RUNNING;
		if ((fd = perf_open(&attr, cpu, leader)) < 0) {
			open_error(
			    set, s, r, leader >= 0, cpu, errno, why, whylen);
			return -1;
		}
		eng->fds[c * eng->ncpus + cpu] = fd;
		if (leader < 0)
			eng->leader[c * eng->ncpus + cpu] = leaders[g] = fd;
	}
	for (r = 0; s == 0 && r < set->nattrs; r++) {
		fd = eng->leader[(eng->set_first[s] + r) * eng->ncpus + cpu];
		if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
			open_error(set, s, r, false, cpu, errno, why, whylen);
			return -1;
		}
	}
	return 0;
}

/* The joint group's requests: each distinct one, where it first comes. */
static void
joint_set(const struct bpfeng *eng, const struct bpfeng_set *sets,
    struct perf_event_attr *attrs, const char **names)
{
	int s, i, j;

	for (s = eng->nsets - 1; s >= 0; s--)
		for (i = sets[s].nattrs - 1; i >= 0; i--) {
			j = eng->joint_of[s][i];
			attrs[j] = sets[s].attrs[i];
			names[j] =
			    sets[s].names != NULL ? sets[s].names[i] : NULL;
		}
}

int
eng_counters_open(
    struct bpfeng *eng, const struct bpfeng_set *sets, char *why, size_t whylen)
{
	size_t n = (size_t)eng->ncounters * (size_t)eng->ncpus, i;
	struct perf_event_attr attrs[BPFENG_MAX_SET_REQS];
	const char *names[BPFENG_MAX_SET_REQS];
	struct bpfeng_set joint = { attrs, names, eng->ncounters, NULL, NULL };
	int s, cpu, nsets = eng->joint ? 1 : eng->nsets;

	if ((eng->fds = malloc(n * sizeof(int))) == NULL ||
	    (eng->leader = malloc(n * sizeof(int))) == NULL ||
	    find_online(eng) != 0 || find_cores(eng) != 0) {
		eng_why(why, whylen, "no memory available");
		return -1;
	}
	for (i = 0; i < n; i++)
		eng->fds[i] = eng->leader[i] = -1;
	if (eng->joint)
		joint_set(eng, sets, attrs, names);
	for (s = 0; s < nsets; s++)
		for (cpu = 0; cpu < eng->ncpus; cpu++)
			if (eng->online[cpu] &&
			    open_groups(eng, eng->joint ? &joint : &sets[s], s,
				cpu, why, whylen) != 0)
				return -1;
	return 0;
}

/* Hand the counters to the BPF programs. */
int
eng_counters_fill(struct bpfeng *eng, char *why, size_t whylen)
{
	int map = eng->counters_fd;
	uint32_t i, n = (uint32_t)(eng->ncounters * eng->ncpus);

	for (i = 0; i < n; i++) {
		if (eng->fds[i] < 0)
			continue;
		if (bpf_map_update_elem(map, &i, &eng->fds[i], BPF_ANY) != 0) {
			eng_why(why, whylen,
			    "cannot give counters to the BPF "
			    "program - %s",
			    strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * Enable or disable set s on every CPU: one ioctl per group leader. The
 * joint group is set 0's.
 */
int
eng_counters_enable(struct bpfeng *eng, int set, bool on)
{
	int first = eng->joint ? 0 : eng->set_first[set];
	int last = eng->joint ? eng->ncounters : first + eng->set_nreqs[set];
	int c, cpu, fd, ret = 0;

	for (c = first; c < last; c++)
		for (cpu = 0; cpu < eng->ncpus; cpu++) {
			fd = eng->leader[c * eng->ncpus + cpu];
			if (fd >= 0 &&
			    ioctl(fd,
				on ? PERF_EVENT_IOC_ENABLE :
				     PERF_EVENT_IOC_DISABLE,
				0) != 0)
				ret = -1;
		}
	return ret;
}

void
eng_counters_close(struct bpfeng *eng)
{
	size_t n = (size_t)eng->ncounters * (size_t)eng->ncpus, i;

	if (eng->fds != NULL)
		for (i = n; i-- > 0;)
			if (eng->fds[i] >= 0)
				close(eng->fds[i]);
	free(eng->fds);
	free(eng->online);
	free(eng->cpu_core);
	free(eng->leader);
	eng->fds = NULL;
	eng->online = NULL;
	eng->cpu_core = NULL;
	eng->leader = NULL;
}
