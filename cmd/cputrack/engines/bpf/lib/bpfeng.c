/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's facade. Opening and closing it: checks, the layout of the
 * counts, the counters, then the BPF programs (bpfeng_load.c); and the
 * dispatch of what its programs recorded.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfeng_impl.h"

/*
 * Descriptors the engine takes besides its counters: maps, programs,
 * BTF, links, the ring's, and those libbpf's feature probes take for a
 * moment (a probe without one decides a feature is missing).
 */
#define ENGINE_FDS 40

/* Each counter's group is one of the set's: fewer than its counters. */
static bool
groups_in_range(const struct bpfeng_set *set)
{
	int i;

	for (i = 0; set->groups != NULL && i < set->nattrs; i++)
		if (set->groups[i] < 0 || set->groups[i] >= set->nattrs)
			return false;
	return true;
}

static int
check_sets(const struct bpfeng_set *sets, int nsets, char *why, size_t whylen)
{
	int s, total = 0;

	if (nsets < 1 || nsets > BPFENG_MAX_SETS) {
		eng_why(why, whylen, "the BPF engine counts 1 to %d sets",
		    BPFENG_MAX_SETS);
		return -1;
	}
	for (s = 0; s < nsets; s++) {
		if (sets[s].nattrs < 1 ||
		    sets[s].nattrs > BPFENG_MAX_SET_REQS) {
			eng_why(why, whylen,
			    "the BPF engine counts 1 to %d "
			    "events per set",
			    BPFENG_MAX_SET_REQS);
			return -1;
		}
		total += sets[s].nattrs;
		if (!groups_in_range(&sets[s])) {
			eng_why(why, whylen,
			    "set %d's groups are numbered beyond its events",
			    s);
			return -1;
		}
	}
	if (total > BPFENG_MAX_COUNTERS) {
		eng_why(why, whylen,
		    "the BPF engine counts at most %d events "
		    "in all sets together",
		    BPFENG_MAX_COUNTERS);
		return -1;
	}
	return 0;
}

/*
 * Joint sets (BPFENG_JOINT_SETS): each distinct request of every set is
 * one counter, in order of first appearance, as one group fits at most
 * BPFENG_MAX_SET_REQS. False when they do not fit: the sets then have
 * counters of their own.
 */
static bool
lay_out_joint(struct bpfeng *eng, const struct bpfeng_set *sets)
{
	const struct perf_event_attr *seen[BPFENG_MAX_SET_REQS];
	int s, i, j, n = 0;

	for (s = 0; s < eng->nsets; s++)
		for (i = 0; i < sets[s].nattrs; i++) {
			for (j = 0; j < n; j++)
				if (memcmp(seen[j], &sets[s].attrs[i],
					sizeof(*seen[j])) == 0)
					break;
			if (j == n && n == BPFENG_MAX_SET_REQS)
				return false;
			if (j == n)
				seen[n++] = &sets[s].attrs[i];
			eng->joint_of[s][i] = j;
		}
	eng->ncounters = n;
	return true;
}

/*
 * Whether the PMU may multiplex set s: it has an event that takes a
 * hardware counter. Software events and tracepoints never wait for one.
 */
static bool
may_multiplex(const struct bpfeng_set *set)
{
	int i;

	for (i = 0; i < set->nattrs; i++)
		if (set->attrs[i].type != PERF_TYPE_SOFTWARE &&
		    set->attrs[i].type != PERF_TYPE_TRACEPOINT)
			return true;
	return false;
}

/*
 * The counters that count context switches, where the kernel counts every
 * one, after the programs' hook: the programs give each switch to the
 * task that switched (bpfeng.bpf.c). That is in kernel mode (in user mode
 * alone it never counts one), in a set the PMU never takes off (one of
 * hardware events may be off at the switch, and then the switch goes to
 * the next task, as the counter counts it).
 */
static uint64_t
switch_counters(const struct bpfeng *eng, const struct bpfeng_set *sets)
{
	const struct perf_event_attr *a;
	uint64_t mask = 0;
	int s, i, c;

	for (s = 0; s < eng->nsets; s++) {
		if (!eng->joint && may_multiplex(&sets[s]))
			continue;
		for (i = 0; i < sets[s].nattrs; i++) {
			a = &sets[s].attrs[i];
			c = eng->joint ? eng->joint_of[s][i] :
					 eng->set_first[s] + i;
			if (a->type == PERF_TYPE_SOFTWARE &&
			    a->config == PERF_COUNT_SW_CONTEXT_SWITCHES &&
			    !a->exclude_kernel && c < 64)
				mask |= 1ULL << c;
		}
	}
	return mask;
}

/* Where each set's counts lie in a thread's value (bpfeng_abi.h). */
static void
lay_out(struct bpfeng *eng, const struct bpfeng_set *sets, int nsets)
{
	int s, i, c, njoint;

	eng->nsets = nsets;
	eng->joint = (eng->flags & BPFENG_JOINT_SETS) && nsets > 1 &&
	    lay_out_joint(eng, sets);
	njoint = eng->ncounters;
	eng->ncounters = 0;
	for (s = 0; s < nsets; s++) {
		eng->set_nreqs[s] = sets[s].nattrs;
		eng->set_first[s] = eng->ncounters;
		eng->set_slot[s] = eng->nslots;
		eng->set_ngroups[s] = 1;
		for (i = 0; i < sets[s].nattrs; i++) {
			c = eng->ncounters + i;
			eng->counter_core[c] =
			    sets[s].cores != NULL ? sets[s].cores[i] : -1;
			eng->sparse |= eng->counter_core[c] >= 0;
			eng->counter_group[c] =
			    sets[s].groups != NULL && !eng->joint ?
			    sets[s].groups[i] :
			    0;
			if (eng->counter_group[c] >= eng->set_ngroups[s])
				eng->set_ngroups[s] = eng->counter_group[c] + 1;
		}
		eng->multi_group |= eng->set_ngroups[s] > 1;
		eng->ncounters += sets[s].nattrs;
		eng->nslots +=
		    BPFENG_SET_HEAD * eng->set_ngroups[s] + sets[s].nattrs;
	}
	if (eng->joint)
		eng->ncounters = njoint;
	eng->value_size = sizeof(struct bpfeng_thread) +
	    (size_t)eng->nslots * sizeof(uint64_t);
	eng->switch_counters = switch_counters(eng, sets);
}

/*
 * Whether the kernel lets tracing programs use hash maps that allocate
 * an entry when it is added (Linux 6.1). Before, it warns at each load
 * that they are unsafe there, and the maps allocate every entry they may
 * hold when they are made: 6 MB or so for the threads, which the kernel
 * zeroes while the command waits to start.
 */
static bool
maps_grow(const char *release)
{
	int major = 0, minor = 0;

	return sscanf(release, "%d.%d", &major, &minor) == 2 &&
	    (major > 6 || (major == 6 && minor >= 1));
}

static int
preflight(struct bpfeng *eng, char *why, size_t whylen)
{
	struct utsname u;

	if (eng_check_privilege(why, whylen) != 0)
		return -1;
	if (uname(&u) != 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	if (eng_check_kernel(u.release, ENG_KERNEL_BTF, why, whylen) != 0)
		return -1;
	/*
	 * A cgroup whose threads are tracked (a service, the whole machine)
	 * makes and ends them as fast as what runs there, and no command
	 * waits for the maps: they are made whole (11 MB of the kernel's),
	 * so that a new thread allocates nothing. Counted cgroup by cgroup,
	 * no thread is tracked.
	 */
	if (eng != NULL)
		eng->maps_grow = maps_grow(u.release) &&
		    (eng->flags & (BPFENG_BY_CGROUP | BPFENG_EACH_CGROUP)) !=
			BPFENG_BY_CGROUP;
	return 0;
}

int
bpfeng_can_run(char *why, size_t whylen)
{
	return preflight(NULL, why, whylen);
}

/* A counter per CPU per request: as many descriptors as may be had. */
static void
raise_nofile(struct bpfeng *eng)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &eng->nofile) != 0 ||
	    eng->nofile.rlim_cur >= eng->nofile.rlim_max)
		return;
	rl = eng->nofile;
	rl.rlim_cur = rl.rlim_max;
	eng->nofile_raised = setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

/* Descriptors open now. */
static int
fds_open(void)
{
	struct dirent *d;
	DIR *dir;
	int n = 0;

	if ((dir = opendir("/proc/self/fd")) == NULL)
		return 0;
	while ((d = readdir(dir)) != NULL)
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n - 1; /* the directory's own */
}

/*
 * Whether the descriptor limit leaves room for the engine: said before
 * anything is opened, rather than as whatever step first finds none.
 */
static int
fd_room(struct bpfeng *eng, char *why, size_t whylen)
{
	long need = (long)eng->ncounters * eng->ncpus + ENGINE_FDS, left;
	struct rlimit rl;

	eng->fd_spare = LONG_MAX;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if ((left = (long)rl.rlim_cur - fds_open()) >= need) {
		eng->fd_spare = left - need;
		return 0;
	}
	eng_why(why, whylen,
	    "the BPF engine needs %ld file descriptors (one "
	    "per CPU per event, and %d for itself), and the limit (ulimit -n, "
	    "%llu) leaves %ld",
	    need, ENGINE_FDS, (unsigned long long)rl.rlim_cur,
	    left < 0 ? 0 : left);
	errno = EMFILE;
	return -1;
}

/*
 * The programs see pids as the initial pid namespace has them, and the
 * caller must speak of the same processes. Each cgroup apart speaks of
 * none: a container's pid namespace will do.
 */
static int
same_pids(struct bpfeng *eng, char *why, size_t whylen)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (eng->cgroups_max != 0)
		return 0;
	if (bpf_prog_test_run_opts(eng_whoami_fd(eng), &opts) != 0) {
		eng_why(why, whylen, "cannot run the BPF programs - %s",
		    strerror(errno));
		return -1;
	}
	if (eng_caller_pid(eng) != (uint32_t)getpid()) {
		eng_why(why, whylen,
		    "the BPF engine runs only in the initial "
		    "pid namespace (this one is a container's)");
		errno = EPERM;
		return -1;
	}
	return 0;
}

static struct bpfeng *
engine_new(cpc_t *cpc, const struct bpfeng_config *config,
    const struct bpfeng_ops *ops, void *arg)
{
	static const struct bpfeng_ops no_ops;
	struct bpfeng *eng = calloc(1, sizeof(*eng));

	if (eng == NULL)
		return NULL;
	eng->cpc = cpc;
	eng->flags = config->flags;
	eng->nsamples = config->nsamples;
	eng->run_samples_left =
	    config->flags & BPFENG_BY_CGROUP ? config->nsamples : 0;
	eng->cgroups_max =
	    config->flags & BPFENG_EACH_CGROUP ? config->cgroups_max : 0;
	eng->fold_depth = eng->cgroups_max != 0 ? config->fold_depth : 0;
	if (eng->fold_depth > BPFENG_CGROUP_DEPTH)
		eng->fold_depth = BPFENG_CGROUP_DEPTH;
	eng->ops = ops != NULL ? ops : &no_ops;
	eng->arg = arg;
	eng->epfd = -1;
	eng->loop_sigfd = eng->loop_timerfd = -1;
	eng->child_fd = -1;
	proc_guard_init(&eng->guard);
	exec_gate_init(&eng->ready.gate);
	eng->ready_argv = NULL;
	eng->command = config->command;
	eng->counters_fd = eng->threads_fd = eng->procs_fd = -1;
	eng->cgroups_fd = -1;
	eng->records_fd = -1;
	eng->flush_fd = -1;
	eng->keep_dfd = -1;
	RB_INIT(&eng->threads);
	RB_INIT(&eng->procs);
	return eng;
}

static int
open_checked(struct bpfeng *eng, const struct bpfeng_set *sets,
    struct eng_types *types, char *why, size_t whylen)
{
	uint64_t t = eng_now_ns();
	int ncpus;

	if (preflight(eng, why, whylen) != 0)
		return -1;
	if ((ncpus = libbpf_num_possible_cpus()) <= 0) {
		eng_why(why, whylen, "cannot tell the number of CPUs");
		return -1;
	}
	eng->ncpus = ncpus;
	raise_nofile(eng);
	if (fd_room(eng, why, whylen) != 0)
		return -1;
	eng_phase_done(eng, ENG_PHASE_CHECKS, &t);
	if (eng_counters_open(eng, sets, why, whylen) != 0)
		return -1;
	eng_phase_done(eng, ENG_PHASE_COUNTERS, &t);
	if (eng_load(eng, types, &t, why, whylen) != 0 ||
	    same_pids(eng, why, whylen) != 0)
		return -1;
	eng_phase_done(eng, ENG_PHASE_PIDS, &t);
	if (eng_counters_fill(eng, why, whylen) != 0)
		return -1;
	eng_phase_done(eng, ENG_PHASE_FILL, &t);
	/* Taken programs: their attaching goes on beside the next steps. */
	eng_attach_begin(eng);
	if (eng->kept != NULL) {
		eng_command_prepare(eng, eng->command);
		eng_phase_done(eng, ENG_PHASE_COMMAND, &t);
	}
	if (eng_events_open(eng, why, whylen) != 0)
		return -1;
	eng_phase_done(eng, ENG_PHASE_RING, &t);
	if (eng_attach(eng, why, whylen) != 0)
		return -1;
	eng_phase_done(eng, ENG_PHASE_ATTACH, &t);
	return 0;
}

struct bpfeng *
bpfeng_open(cpc_t *cpc, const struct bpfeng_set *sets, int nsets,
    const struct bpfeng_config *config, const struct bpfeng_ops *ops, void *arg,
    char *why, size_t whylen)
{
	struct eng_types types = { .fd = -1 };
	struct bpfeng *eng;
	int err, rc;

	eng_why(why, whylen, "no error");
	if (cpc == NULL || sets == NULL || config == NULL ||
	    check_sets(sets, nsets, why, whylen) != 0) {
		errno = EINVAL;
		return NULL;
	}
	/* Every task of the cgroups counts, as CPU-wide counters would. */
	if ((config->flags & BPFENG_EACH_CGROUP) && !bpfeng_may_count_cpus()) {
		eng_why(why, whylen,
		    "counting each cgroup apart counts whole CPUs: "
		    "it needs CAP_PERFMON");
		errno = EPERM;
		return NULL;
	}
	if ((eng = engine_new(cpc, config, ops, arg)) == NULL) {
		eng_why(why, whylen, "no memory available");
		errno = ENOMEM;
		return NULL;
	}
	lay_out(eng, sets, nsets);
	/* What libbpf says is kept, not printed (bpfeng_check.c). */
	eng_log_begin();
	rc = open_checked(eng, sets, &types, why, whylen);
	eng_types_end(&types);
	eng_log_end();
	if (rc == 0)
		return eng;
	err = errno != 0 ? errno : EINVAL;
	bpfeng_close(eng);
	errno = err;
	return NULL;
}

int
bpfeng_dispatch(struct bpfeng *eng, char *why, size_t whylen)
{
	if (eng_events_drain(eng) != 0) {
		eng_why(why, whylen, "cannot read the BPF ring buffer - %s",
		    strerror(errno));
		return -1;
	}
	if (eng->named_gone)
		eng_let_go_unnamed(eng);
	/*
	 * The command's end comes with a SIGCHLD; with no process left to
	 * count, it is looked for at every turn. Not a waitid a tick.
	 */
	if (eng->child_signaled || RB_EMPTY(&eng->procs)) {
		eng->child_signaled = false;
		eng_reap_child(eng, false);
	}
	return eng_lost_check(eng, why, whylen);
}

int
bpfeng_tick(struct bpfeng *eng, int next_set, struct bpfeng_tick_batch *batch,
    char *why, size_t whylen)
{
	if (next_set < 0 || next_set >= eng->nsets) {
		eng_why(why, whylen, "no set %d", next_set);
		errno = EINVAL;
		return -1;
	}
	return eng_tick(eng, next_set, batch, why, whylen);
}

void
bpfeng_untrack(struct bpfeng *eng, pid_t pid)
{
	eng_untrack(eng, pid);
}

bool
bpfeng_done(const struct bpfeng *eng)
{
	if (eng->samples_done)
		return true;
	return eng->target != 0 && !eng->by_cgroup && RB_EMPTY(&eng->procs) &&
	    (eng->child <= 0 || eng->child_released);
}

void
bpfeng_phases(const struct bpfeng *eng, char *buf, size_t len)
{
	static const char *const names[ENG_NPHASES] = {
		[ENG_PHASE_CHECKS] = "checks",
		[ENG_PHASE_COUNTERS] = "counters",
		[ENG_PHASE_OPEN] = "open (with two threads, the maps too)",
		[ENG_PHASE_COMMAND] = "the command's fork and its guard's",
		[ENG_PHASE_TYPES] = "kernel types (the rest)",
		[ENG_PHASE_LOAD] =
		    "load (relocations, verifier; with one thread, the maps)",
		[ENG_PHASE_PIDS] = "pid check",
		[ENG_PHASE_FILL] = "counter map",
		[ENG_PHASE_RING] = "ring",
		[ENG_PHASE_ATTACH] = "attach",
	};
	uint64_t total = 0;
	size_t at;
	int p;

	for (p = 0; p < ENG_NPHASES; p++)
		total += eng->phase_ns[p];
	at = (size_t)snprintf(buf, len, "%.1f ms", total / 1e6);
	for (p = 0; p < ENG_NPHASES; p++)
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0,
		    "%s %s %.1f ms", p == 0 ? ":" : ",", names[p],
		    eng->phase_ns[p] / 1e6);
	if (eng->types_whole != 0)
		(void)snprintf(buf + at, at < len ? len - at : 0,
		    "; libbpf read the kernel's BTF whole (its types could "
		    "not be picked out: %s)",
		    strerror(eng->types_whole));
}

int
bpfeng_fd(const struct bpfeng *eng)
{
	return eng->epfd;
}

uint64_t
bpfeng_flush_ns(const struct bpfeng *eng)
{
	return eng->flush_ns;
}

uint64_t
bpfeng_handover_ns(const struct bpfeng *eng)
{
	return eng->handover_ns;
}

void
bpfeng_close(struct bpfeng *eng)
{
	if (eng == NULL)
		return;
	eng_detach(eng);
	eng_command_abandon(eng);
	eng_kill_child(eng);
	eng_events_close(eng);
	if (eng->loop_sigfd >= 0)
		close(eng->loop_sigfd);
	if (eng->loop_timerfd >= 0)
		close(eng->loop_timerfd);
	eng_unload(eng);
	eng_counters_close(eng);
	eng_forget_all(eng);
	if (eng->nofile_raised)
		(void)setrlimit(RLIMIT_NOFILE, &eng->nofile);
	free(eng->batch_keys);
	free(eng->batch_values);
	free(eng->ticked);
	free(eng->cgroup_keys);
	free(eng->cgroup_values);
	free(eng->zero_value);
	free(eng->read_value);
	eng_guard_gone(eng);
	free(eng);
}
