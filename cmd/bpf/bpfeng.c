/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's facade. Opening and closing it: checks, the layout of the
 * counts, the counters, loading and attaching the BPF programs; and the
 * dispatch of what its programs recorded.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfeng_impl.h"
#include "bpfeng.skel.h"

/*
 * Descriptors the engine takes besides its counters: maps, programs,
 * BTF, links, the ring's, and those libbpf's feature probes take for a
 * moment (a probe without one decides a feature is missing).
 */
#define ENGINE_FDS 40

#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

/* Tracked threads and processes alive at once, at most. */
#define MAX_THREADS	65536
#define MAX_PROCS	32768
/*
 * Records waiting for userspace: a thread's exit, with one set of four
 * events, takes 88 bytes, so this holds tens of thousands.
 */
#define RING_BYTES	(4u << 20)
/* Unread records that wake userspace before its next read: a quarter. */
#define RING_WAKE_BYTES (RING_BYTES / 4)

const char *
bpfeng_unavailable(void)
{
	return NULL;
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
	int s, i, c;

	eng->nsets = nsets;
	for (s = 0; s < nsets; s++) {
		eng->set_nreqs[s] = sets[s].nattrs;
		eng->set_first[s] = eng->ncounters;
		eng->set_slot[s] = eng->nslots;
		for (i = 0; i < sets[s].nattrs; i++) {
			c = eng->ncounters + i;
			eng->counter_core[c] =
			    sets[s].cores != NULL ? sets[s].cores[i] : -1;
			eng->sparse |= eng->counter_core[c] >= 0;
		}
		eng->ncounters += sets[s].nattrs;
		eng->nslots += BPFENG_SET_HEAD + sets[s].nattrs;
	}
	eng->value_size = sizeof(struct bpfeng_thread) +
	    (size_t)eng->nslots * sizeof(uint64_t);
	eng->joint = (eng->flags & BPFENG_JOINT_SETS) && nsets > 1 &&
	    lay_out_joint(eng, sets);
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
	if (eng_check_kernel(u.release, KERNEL_BTF, why, whylen) != 0)
		return -1;
	if (eng != NULL)
		eng->maps_grow = maps_grow(u.release);
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

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
	    rl.rlim_cur == RLIM_INFINITY ||
	    (left = (long)rl.rlim_cur - fds_open()) >= need)
		return 0;
	eng_why(why, whylen,
	    "the BPF engine needs %ld file descriptors (one "
	    "per CPU per event, and %d for itself), and the limit (ulimit -n, "
	    "%llu) leaves %ld",
	    need, ENGINE_FDS, (unsigned long long)rl.rlim_cur,
	    left < 0 ? 0 : left);
	errno = EMFILE;
	return -1;
}

/* The time since *since, as phase's; *since becomes now. */
static void
phase_done(struct bpfeng *eng, enum eng_phase phase, uint64_t *since)
{
	uint64_t now = eng_now_ns();

	eng->phase_ns[phase] = now - *since;
	*since = now;
}

static void
configure(struct bpfeng *eng)
{
	struct bpfeng_bpf *skel = eng->skel;
	int s, i;

	skel->rodata->ncpus = (uint32_t)eng->ncpus;
	skel->rodata->nsets = (uint32_t)eng->nsets;
	skel->rodata->nslots = (uint32_t)eng->nslots;
	skel->rodata->max_nreqs = 0;
	for (s = 0; s < eng->nsets; s++) {
		skel->rodata->set_first[s] = (uint32_t)eng->set_first[s];
		skel->rodata->set_nreqs[s] = (uint32_t)eng->set_nreqs[s];
		if (skel->rodata->max_nreqs < skel->rodata->set_nreqs[s])
			skel->rodata->max_nreqs = skel->rodata->set_nreqs[s];
		skel->rodata->set_slot[s] = (uint32_t)eng->set_slot[s];
		for (i = 0; eng->joint && i < eng->set_nreqs[s]; i++)
			skel->rodata->set_joint[s][i] =
			    (uint32_t)eng->joint_of[s][i];
	}
	skel->rodata->joint = eng->joint;
	skel->rodata->njoint = eng->joint ? (uint32_t)eng->ncounters : 0;
	skel->rodata->switch_counters = eng->switch_counters;
	skel->rodata->sparse = eng->sparse;
	skel->rodata->follow_fork = (eng->flags & BPFENG_FOLLOW_FORK) != 0;
	skel->rodata->follow_exec = (eng->flags & BPFENG_FOLLOW_EXEC) != 0;
	skel->rodata->by_cgroup = (eng->flags & BPFENG_BY_CGROUP) != 0;
	skel->rodata->each_cgroup = eng->cgroups_max != 0;
	skel->rodata->fold_depth = eng->fold_depth;
	skel->rodata->follow_untraceable = eng_may_trace_any();
	skel->rodata->caller_uid = (uint32_t)getuid();
	skel->rodata->caller_gid = (uint32_t)getgid();
	skel->rodata->caller_caps = eng_permitted_caps();
	skel->rodata->wake_bytes = RING_WAKE_BYTES;
	(void)bpf_map__set_max_entries(
	    skel->maps.counters, (uint32_t)(eng->ncounters * eng->ncpus));
	(void)bpf_map__set_value_size(
	    skel->maps.threads, (uint32_t)eng->value_size);
	(void)bpf_map__set_max_entries(skel->maps.threads, MAX_THREADS);
	(void)bpf_map__set_value_size(
	    skel->maps.fresh, (uint32_t)eng->value_size);
	(void)bpf_map__set_max_entries(skel->maps.procs, MAX_PROCS);
	(void)bpf_map__set_value_size(
	    skel->maps.cgroups, (uint32_t)eng->value_size);
	(void)bpf_map__set_max_entries(
	    skel->maps.cgroups, eng->cgroups_max != 0 ? eng->cgroups_max : 1);
	if (eng->cgroups_max == 0)
		(void)bpf_map__set_max_entries(skel->maps.folded, 1);
	if (eng->maps_grow) {
		(void)bpf_map__set_map_flags(skel->maps.cgroups,
		    bpf_map__map_flags(skel->maps.cgroups) | BPF_F_NO_PREALLOC);
		(void)bpf_map__set_map_flags(skel->maps.folded,
		    bpf_map__map_flags(skel->maps.folded) | BPF_F_NO_PREALLOC);
		(void)bpf_map__set_map_flags(skel->maps.threads,
		    bpf_map__map_flags(skel->maps.threads) | BPF_F_NO_PREALLOC);
		(void)bpf_map__set_map_flags(skel->maps.procs,
		    bpf_map__map_flags(skel->maps.procs) | BPF_F_NO_PREALLOC);
	}
	(void)bpf_map__set_max_entries(skel->maps.records, RING_BYTES);
	/* Run by hand, never attached. */
	bpf_program__set_autoattach(skel->progs.flush, false);
	bpf_program__set_autoattach(skel->progs.whoami, false);
}

/*
 * The kernel's types that the programs read (bpfeng_btf.c), picked out
 * in a thread of their own while the counters and the skeleton open.
 * The skeleton is opened with the path of the memfd they go to; libbpf
 * reads it only when it loads.
 */
struct types_job {
	pthread_t thread;
	bool started;
	int fd;
	int err; /* why they could not be picked out, or 0 */
	char path[32];
};

static void *
pick_types(void *arg)
{
	struct types_job *job = arg;

	if (eng_btf_small(KERNEL_BTF, job->fd) != 0)
		job->err = errno != 0 ? errno : EIO;
	return NULL;
}

/* No signal for the thread: the caller's take them as before. */
static void
types_start(struct types_job *job)
{
	sigset_t all, old;

	job->started = false;
	job->err = 0;
	if ((job->fd = memfd_create("cpctools-btf", MFD_CLOEXEC)) < 0) {
		job->err = errno;
		return;
	}
	snprintf(job->path, sizeof(job->path), "/proc/self/fd/%d", job->fd);
	sigfillset(&all);
	(void)pthread_sigmask(SIG_SETMASK, &all, &old);
	job->started = pthread_create(&job->thread, NULL, pick_types, job) == 0;
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!job->started)
		(void)pick_types(job);
}

static int
types_wait(struct types_job *job)
{
	if (job->started)
		(void)pthread_join(job->thread, NULL);
	job->started = false;
	return job->err;
}

static void
types_end(struct types_job *job)
{
	(void)types_wait(job);
	if (job->fd >= 0)
		close(job->fd);
	job->fd = -1;
}

static int
skel_open(struct bpfeng *eng, const char *types_path)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = types_path);

	if ((eng->skel = bpfeng_bpf__open_opts(&opts)) == NULL)
		return -1;
	configure(eng);
	return 0;
}

/*
 * The programs, relocated against the kernel's types that they read;
 * where those cannot be had, libbpf reads the kernel's BTF whole, and
 * -D says so.
 */
static int
load(struct bpfeng *eng, struct types_job *job, uint64_t *since, char *why,
    size_t whylen)
{
	const char *types = job->err == 0 ? job->path : NULL;
	int err = 0;

	if (skel_open(eng, types) != 0)
		err = errno;
	phase_done(eng, ENG_PHASE_OPEN, since);
	if ((eng->types_whole = types_wait(job)) != 0 && err == 0 &&
	    types != NULL) {
		bpfeng_bpf__destroy(eng->skel);
		eng->skel = NULL;
		if (skel_open(eng, NULL) != 0)
			err = errno;
	}
	phase_done(eng, ENG_PHASE_TYPES, since);
	if (err == 0 && bpfeng_bpf__load(eng->skel) != 0)
		err = errno;
	phase_done(eng, ENG_PHASE_LOAD, since);
	if (err != 0)
		eng_load_reason(eng_log_text(), err, why, whylen);
	if (err != 0) {
		errno = err;
		return -1;
	}
	eng->counters_fd = bpf_map__fd(eng->skel->maps.counters);
	eng->threads_fd = bpf_map__fd(eng->skel->maps.threads);
	eng->procs_fd = bpf_map__fd(eng->skel->maps.procs);
	eng->cgroups_fd = bpf_map__fd(eng->skel->maps.cgroups);
	eng->records_fd = bpf_map__fd(eng->skel->maps.records);
	eng->flush_fd = bpf_program__fd(eng->skel->progs.flush);
	eng->active_set = &eng->skel->bss->active_set;
	eng->lost_records = &eng->skel->bss->lost_records;
	eng->lost_threads = &eng->skel->bss->lost_threads;
	eng->read_errors = &eng->skel->bss->read_errors;
	eng->hidden_switches = &eng->skel->bss->hidden_switches;
	eng->command_pid = &eng->skel->bss->command_pid;
	eng->signal_sender = eng->skel->bss->signal_sender;
	eng->signal_count = eng->skel->bss->signal_count;
	eng->target_cgroup = &eng->skel->bss->target_cgroup;
	eng->target_level = &eng->skel->bss->target_level;
	return 0;
}

/*
 * The programs see pids as the initial pid namespace has them, and the
 * caller must speak of the same processes.
 */
static int
same_pids(struct bpfeng *eng, char *why, size_t whylen)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (bpf_prog_test_run_opts(
		bpf_program__fd(eng->skel->progs.whoami), &opts) != 0) {
		eng_why(why, whylen, "cannot run the BPF programs - %s",
		    strerror(errno));
		return -1;
	}
	if (eng->skel->bss->caller_pid != (uint32_t)getpid()) {
		eng_why(why, whylen,
		    "the BPF engine runs only in the initial "
		    "pid namespace (this one is a container's)");
		errno = EPERM;
		return -1;
	}
	return 0;
}

static int
attach(struct bpfeng *eng, char *why, size_t whylen)
{
	int err = 0;

	if (bpfeng_bpf__attach(eng->skel) != 0) {
		err = errno;
		eng_fd_reason("cannot attach the BPF programs to the "
			      "scheduler's tracepoints",
		    err, why, whylen);
	}
	errno = err;
	return err != 0 ? -1 : 0;
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
	eng->cgroups_max =
	    config->flags & BPFENG_EACH_CGROUP ? config->cgroups_max : 0;
	eng->fold_depth = eng->cgroups_max != 0 ? config->fold_depth : 0;
	if (eng->fold_depth > BPFENG_CGROUP_DEPTH)
		eng->fold_depth = BPFENG_CGROUP_DEPTH;
	eng->ops = ops != NULL ? ops : &no_ops;
	eng->arg = arg;
	eng->epfd = -1;
	eng->child_fd = -1;
	eng->counters_fd = eng->threads_fd = eng->procs_fd = -1;
	eng->cgroups_fd = -1;
	eng->records_fd = -1;
	eng->flush_fd = -1;
	RB_INIT(&eng->threads);
	RB_INIT(&eng->procs);
	return eng;
}

static int
open_checked(struct bpfeng *eng, const struct bpfeng_set *sets,
    struct types_job *job, char *why, size_t whylen)
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
	types_start(job);
	phase_done(eng, ENG_PHASE_CHECKS, &t);
	if (eng_counters_open(eng, sets, why, whylen) != 0)
		return -1;
	phase_done(eng, ENG_PHASE_COUNTERS, &t);
	if (load(eng, job, &t, why, whylen) != 0 ||
	    same_pids(eng, why, whylen) != 0)
		return -1;
	phase_done(eng, ENG_PHASE_PIDS, &t);
	if (eng_counters_fill(eng, why, whylen) != 0)
		return -1;
	phase_done(eng, ENG_PHASE_FILL, &t);
	if (eng_events_open(eng, why, whylen) != 0)
		return -1;
	phase_done(eng, ENG_PHASE_RING, &t);
	if (attach(eng, why, whylen) != 0)
		return -1;
	phase_done(eng, ENG_PHASE_ATTACH, &t);
	return 0;
}

struct bpfeng *
bpfeng_open(cpc_t *cpc, const struct bpfeng_set *sets, int nsets,
    const struct bpfeng_config *config, const struct bpfeng_ops *ops, void *arg,
    char *why, size_t whylen)
{
	struct types_job job = { .fd = -1 };
	struct bpfeng *eng;
	int err, rc;

	eng_why(why, whylen, "no error");
	if (cpc == NULL || sets == NULL || config == NULL ||
	    check_sets(sets, nsets, why, whylen) != 0) {
		errno = EINVAL;
		return NULL;
	}
	/* Every task of the cgroups counts: only for who may count any. */
	if ((config->flags & BPFENG_EACH_CGROUP) && !eng_may_trace_any()) {
		eng_why(why, whylen,
		    "counting each cgroup apart counts every process there: "
		    "it needs CAP_SYS_PTRACE");
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
	rc = open_checked(eng, sets, &job, why, whylen);
	types_end(&job);
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
	eng_reap_child(eng, false);
	return eng_lost_check(eng, why, whylen);
}

/*
 * The records before the tick first: a thread that ended before it has
 * its end reported, not a tick row.
 */
int
bpfeng_tick(struct bpfeng *eng, int next_set, bpfeng_tick_fn *fn, void *arg,
    char *why, size_t whylen)
{
	if (next_set < 0 || next_set >= eng->nsets) {
		eng_why(why, whylen, "no set %d", next_set);
		errno = EINVAL;
		return -1;
	}
	if (bpfeng_dispatch(eng, why, whylen) != 0)
		return -1;
	return eng_tick(eng, next_set, fn, arg, why, whylen);
}

void
bpfeng_untrack(struct bpfeng *eng, pid_t pid)
{
	eng_untrack(eng, pid);
}

bool
bpfeng_done(const struct bpfeng *eng)
{
	return eng->target != 0 && !eng->by_cgroup && RB_EMPTY(&eng->procs) &&
	    (eng->child <= 0 || eng->child_released);
}

void
bpfeng_programs(const struct bpfeng *eng, char *buf, size_t len)
{
	const struct bpf_object_skeleton *s = eng->skel->skeleton;
	int i, loaded = 0, attached = 0;
	size_t at = 0;
	bool ok;

	buf[0] = '\0';
	for (i = 0; i < s->prog_cnt; i++) {
		ok = bpf_program__fd(*s->progs[i].prog) >= 0;
		loaded += ok;
		attached += *s->progs[i].link != NULL;
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0,
		    "%s%s%s", i > 0 ? " " : "", ok ? "" : "!",
		    s->progs[i].name);
	}
	(void)snprintf(buf + at, at < len ? len - at : 0,
	    "; %d loaded, %d attached", loaded, attached);
}

void
bpfeng_phases(const struct bpfeng *eng, char *buf, size_t len)
{
	static const char *const names[ENG_NPHASES] = {
		[ENG_PHASE_CHECKS] = "checks",
		[ENG_PHASE_COUNTERS] = "counters",
		[ENG_PHASE_OPEN] = "open",
		[ENG_PHASE_TYPES] = "kernel types (the rest)",
		[ENG_PHASE_LOAD] = "load (maps, relocations, verifier)",
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

const struct bpfeng_set_counts *
bpfeng_set_counts(
    const struct bpfeng *eng, const struct bpfeng_counts *counts, int set)
{
	const uint64_t *slots = (const uint64_t *)(const void *)counts;

	if (counts == NULL || set < 0 || set >= eng->nsets)
		return NULL;
	return (const struct bpfeng_set_counts *)(const void *)(slots +
	    eng->set_slot[set]);
}

void
bpfeng_close(struct bpfeng *eng)
{
	if (eng == NULL)
		return;
	/* Programs first: nothing may count into what goes away next. */
	if (eng->skel != NULL)
		bpfeng_bpf__detach(eng->skel);
	eng_kill_child(eng);
	eng_events_close(eng);
	if (eng->skel != NULL)
		bpfeng_bpf__destroy(eng->skel);
	eng_counters_close(eng);
	eng_forget_all(eng);
	if (eng->nofile_raised)
		(void)setrlimit(RLIMIT_NOFILE, &eng->nofile);
	free(eng->batch_keys);
	free(eng->batch_values);
	free(eng->cgroup_keys);
	free(eng->cgroup_values);
	free(eng->zero_value);
	free(eng->read_value);
	free(eng);
}
