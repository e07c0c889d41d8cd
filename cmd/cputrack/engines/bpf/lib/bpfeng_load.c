/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Loading the engine's programs: the kernel's types they read, their
 * maps, and the programs themselves, and attaching them.
 *
 * The kernel's verifier is most of the engine's start, and it checks one
 * program at a time in the thread that loads it. Where the engine may use
 * two CPUs, a second instance of the same object loads some programs in
 * a thread of its own while the first loads the rest; both use one set
 * of maps, made before either loads.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfeng_impl.h"
#include "bpfeng.skel.h"
#include "bpfeng_plain.skel.h"

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

/* The object's maps, and more. */
#define MAX_MAPS 16

/*
 * The programs the second instance loads: about half of the verifier's
 * time (its log's "verification time" for each), the first instance
 * loading the rest. Any program may be on either side. With the cgroup
 * paths, on_switch alone takes as long as on_exec and flush together;
 * in the plain object, on_exec alone takes as long as all the others.
 */
static const char *const second_programs[] = { "on_exec", "flush" };
#define NSECOND (sizeof(second_programs) / sizeof(second_programs[0]))
static const char *const second_plain_programs[] = { "on_exec" };
#define NSECOND_PLAIN \
	(sizeof(second_plain_programs) / sizeof(second_plain_programs[0]))

static void
configure(struct bpfeng *eng, struct bpfeng_bpf *skel)
{
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
		for (i = 0; eng->multi_group && i < eng->set_nreqs[s]; i++)
			skel->rodata->counter_group[eng->set_first[s] + i] =
			    (uint32_t)eng->counter_group[eng->set_first[s] + i];
		for (i = 0; eng->joint && i < eng->set_nreqs[s]; i++)
			skel->rodata->set_joint[s][i] =
			    (uint32_t)eng->joint_of[s][i];
	}
	skel->rodata->joint = eng->joint;
	skel->rodata->multi_group = eng->multi_group;
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
}

/* Run by hand, never attached. */
static void
configure_attach(struct bpfeng_bpf *skel)
{
	bpf_program__set_autoattach(skel->progs.flush, false);
	bpf_program__set_autoattach(skel->progs.whoami, false);
}

/*
 * The hooks of a tracked process's threads, forks, execs and exits, and
 * of a started command's signals. Each cgroup counted apart tracks no
 * thread and starts no command (BPFENG_EACH_CGROUP): each of these would
 * find its process in no map and return, and the verifier would check
 * it, at length, at every start.
 */
static const char *const thread_programs[] = { "on_signal", "on_fork",
	"on_newtask", "on_exec", "on_exit" };
#define NTHREAD_PROGRAMS (sizeof(thread_programs) / sizeof(thread_programs[0]))

static bool
unused_program(const struct bpfeng *eng, const char *name)
{
	size_t i;

	/* Only a started command's signals are counted. */
	if (eng->command == NULL && strcmp(name, "on_signal") == 0)
		return true;
	if (eng->cgroups_max == 0)
		return false;
	for (i = 0; i < NTHREAD_PROGRAMS; i++)
		if (strcmp(name, thread_programs[i]) == 0)
			return true;
	return false;
}

/* What the run has no use for is not loaded, nor verified. */
static void
leave_unused(const struct bpfeng *eng, struct bpfeng_bpf *skel)
{
	struct bpf_program *prog;

	bpf_object__for_each_program (prog, skel->obj)
		if (unused_program(eng, bpf_program__name(prog)))
			(void)bpf_program__set_autoload(prog, false);
}

static void *
pick_types(void *arg)
{
	struct eng_types *job = arg;

	if (eng_btf_small(ENG_KERNEL_BTF, job->fd) != 0)
		job->err = errno != 0 ? errno : EIO;
	return NULL;
}

/* A thread that takes no signal: the caller's take them as before. */
static bool
start_quiet_thread(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	bool started;

	sigfillset(&all);
	(void)pthread_sigmask(SIG_SETMASK, &all, &old);
	started = pthread_create(thread, NULL, fn, arg) == 0;
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	return started;
}

void
eng_types_start(struct eng_types *job)
{
	job->started = false;
	job->err = 0;
	if ((job->fd = memfd_create("cpctools-btf", MFD_CLOEXEC)) < 0) {
		job->err = errno;
		return;
	}
	snprintf(job->path, sizeof(job->path), "/proc/self/fd/%d", job->fd);
	job->started = start_quiet_thread(&job->thread, pick_types, job);
	if (!job->started)
		(void)pick_types(job);
}

static int
types_wait(struct eng_types *job)
{
	if (job->started)
		(void)pthread_join(job->thread, NULL);
	job->started = false;
	return job->err;
}

void
eng_types_end(struct eng_types *job)
{
	(void)types_wait(job);
	if (job->fd >= 0)
		close(job->fd);
	job->fd = -1;
}

/*
 * A run of one-group sets and no cgroup: the plain object's programs are
 * the full one's as the verifier would leave them, with less to read.
 */
static bool
plain_run(const struct bpfeng *eng)
{
	return !eng->multi_group && !(eng->flags & BPFENG_BY_CGROUP) &&
	    eng->cgroups_max == 0;
}

/*
 * The plain object, opened through the full one's skeleton, whose layout
 * the build checks it shares (same_layout.sh).
 */
static struct bpfeng_bpf *
open_plain(const struct bpf_object_open_opts *opts)
{
	struct bpfeng_bpf *skel = calloc(1, sizeof(*skel));
	int err;

	if (skel == NULL)
		return NULL;
	if ((err = bpfeng_bpf__create_skeleton(skel)) == 0) {
		skel->skeleton->data =
		    bpfeng_plain_bpf__elf_bytes(&skel->skeleton->data_sz);
		err = bpf_object__open_skeleton(skel->skeleton, opts);
	}
	if (err == 0)
		return skel;
	bpfeng_bpf__destroy(skel);
	errno = err < 0 ? -err : err;
	return NULL;
}

/*
 * An instance of the object. The second's data and maps are the first's
 * (use_made_maps): only the first's are configured.
 */
static struct bpfeng_bpf *
skel_open(struct bpfeng *eng, const char *types_path, bool first)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = types_path);
	struct bpfeng_bpf *skel;

	if (plain_run(eng))
		skel = open_plain(&opts);
	else
		skel = bpfeng_bpf__open_opts(&opts);
	if (skel == NULL)
		return NULL;
	if (first)
		configure(eng, skel);
	configure_attach(skel);
	leave_unused(eng, skel);
	return skel;
}

static bool
loaded_second(const struct bpfeng *eng, const struct bpf_program *prog)
{
	const char *const *names =
	    plain_run(eng) ? second_plain_programs : second_programs;
	size_t i, n = plain_run(eng) ? NSECOND_PLAIN : NSECOND;

	for (i = 0; i < n; i++)
		if (strcmp(bpf_program__name(prog), names[i]) == 0)
			return true;
	return false;
}

/* An instance's share of the programs: the first's, or the second's. */
static void
choose_programs(const struct bpfeng *eng, struct bpfeng_bpf *skel, bool second)
{
	struct bpf_program *prog;

	bpf_object__for_each_program (prog, skel->obj) {
		/* One opened not to load ("?") is loaded apart, if at all. */
		if (bpf_program__autoload(prog))
			(void)bpf_program__set_autoload(
			    prog, loaded_second(eng, prog) == second);
	}
}

/*
 * A map as libbpf makes it at a load: the global data's filled in from
 * what the instance holds, and the read-only data's frozen, so that the
 * verifier takes its values as constants.
 */
static int
make_map(const struct bpf_map *map)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts,
	    .map_flags = bpf_map__map_flags(map),
	    .map_extra = bpf_map__map_extra(map));
	const void *data;
	size_t size;
	int fd, key = 0;

	fd = bpf_map_create(bpf_map__type(map), bpf_map__name(map),
	    bpf_map__key_size(map), bpf_map__value_size(map),
	    bpf_map__max_entries(map), &opts);
	if (fd < 0)
		return -1;
	data = bpf_map__initial_value((struct bpf_map *)map, &size);
	if (data != NULL &&
	    (bpf_map_update_elem(fd, &key, data, 0) != 0 ||
		((opts.map_flags & BPF_F_RDONLY_PROG) &&
		    bpf_map_freeze(fd) != 0))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * What a load takes: the maps, made before the kernel's types are there
 * (they need none), and the second instance, if there is one.
 */
struct loading {
	int map_fds[MAX_MAPS]; /* the maps, in the object's order */
	int nmaps;
	struct bpfeng_bpf *second;
	pthread_t thread;
	bool started;
	int second_err;
};

static void
close_made_maps(struct loading *l)
{
	while (l->nmaps > 0)
		close(l->map_fds[--l->nmaps]);
}

/*
 * The first instance's maps, as its load would make them. False, with
 * nothing made, where one cannot be made: its load then makes them, and
 * says why it cannot.
 */
static bool
make_maps(struct bpfeng *eng, struct loading *l)
{
	struct bpf_map *map;
	int fd;

	bpf_object__for_each_map (map, eng->skel->obj) {
		if (l->nmaps == MAX_MAPS || (fd = make_map(map)) < 0) {
			close_made_maps(l);
			return false;
		}
		l->map_fds[l->nmaps++] = fd;
	}
	return true;
}

static int
use_made_maps(struct bpfeng_bpf *skel, const struct loading *l)
{
	struct bpf_map *map;
	int i = 0;

	bpf_object__for_each_map (map, skel->obj) {
		if (i == l->nmaps ||
		    bpf_map__reuse_fd(map, l->map_fds[i++]) != 0)
			return errno != 0 ? errno : EINVAL;
	}
	return 0;
}

/* Whether the engine may run on more than one CPU. */
static bool
several_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 &&
	    CPU_COUNT(&set) > 1;
}

/*
 * The instances, opened with the kernel's types at types_path (read at
 * the load), each with its share of the programs: a second one where
 * there are maps made for both, two CPUs and the descriptors for it.
 */
static int
open_instances(struct bpfeng *eng, struct loading *l, const char *types_path)
{
	bpfeng_bpf__destroy(l->second);
	bpfeng_bpf__destroy(eng->skel);
	l->second = NULL;
	if ((eng->skel = skel_open(eng, types_path, true)) == NULL)
		return errno != 0 ? errno : ENOMEM;
	if (l->nmaps == 0 &&
	    !(eng->fd_spare >= ENG_SECOND_FDS && several_cpus() &&
		make_maps(eng, l)))
		return 0;
	if ((l->second = skel_open(eng, types_path, false)) == NULL)
		return errno != 0 ? errno : ENOMEM;
	choose_programs(eng, eng->skel, false);
	choose_programs(eng, l->second, true);
	return 0;
}

static void *
load_second(void *arg)
{
	struct loading *l = arg;

	if (bpfeng_bpf__load(l->second) != 0)
		l->second_err = errno != 0 ? errno : EINVAL;
	return NULL;
}

/* The second instance's programs in a thread while this loads the first's. */
static int
load_instances(struct bpfeng *eng, struct loading *l)
{
	int err = 0;

	if (l->nmaps > 0 &&
	    ((err = use_made_maps(eng->skel, l)) != 0 ||
		(err = use_made_maps(l->second, l)) != 0))
		return err;
	if (l->second != NULL)
		l->started = start_quiet_thread(&l->thread, load_second, l);
	if (bpfeng_bpf__load(eng->skel) != 0)
		err = errno != 0 ? errno : EINVAL;
	if (l->started)
		(void)pthread_join(l->thread, NULL);
	else if (l->second != NULL && err == 0)
		(void)load_second(l);
	return err != 0 ? err : l->second_err;
}

/*
 * An earlier run's instance of the object, where one of this run's is
 * kept (bpfeng_keep.c): the object is opened to name it, and loaded only
 * where none is.
 */
static int
take_kept(struct bpfeng *eng)
{
	struct bpfeng_bpf *skel;

	if (!eng_keep_wanted(eng) ||
	    (skel = skel_open(eng, NULL, true)) == NULL)
		return -1;
	if (eng_keep_take(eng, skel) == 0) {
		eng->skel = skel;
		return 0;
	}
	bpfeng_bpf__destroy(skel);
	return -1;
}

static int
map_fd_of(const struct bpfeng *eng, const struct bpf_map *map)
{
	const struct bpf_map *m;
	int i = 0;

	if (eng->kept == NULL)
		return bpf_map__fd(map);
	bpf_object__for_each_map (m, eng->skel->obj) {
		if (m == map)
			return eng_keep_map_fd(eng, i);
		i++;
	}
	return -1;
}

static int
map_fd_at(const struct bpfeng *eng, int i)
{
	const struct bpf_map *map;

	bpf_object__for_each_map (map, eng->skel->obj)
		if (i-- == 0)
			return map_fd_of(eng, map);
	return -1;
}

static const struct bpf_prog_skeleton *program_at(
    const struct bpfeng *eng, int i);

static int
program_fd_at(const struct bpfeng *eng, int i)
{
	if (i < 0 || i >= eng->skel->skeleton->prog_cnt)
		return -1;
	if (eng->kept != NULL)
		return eng_keep_program_fd(eng, i);
	return bpf_program__fd(*program_at(eng, i)->prog);
}

static int
program_fd_of(const struct bpfeng *eng, const struct bpf_program *prog)
{
	int i;

	for (i = 0; i < eng->skel->skeleton->prog_cnt; i++)
		if (*eng->skel->skeleton->progs[i].prog == prog)
			return program_fd_at(eng, i);
	return -1;
}

static struct bpfeng_bpf__bss *
bss_of(const struct bpfeng *eng)
{
	return eng->kept != NULL ? eng_keep_bss(eng) : eng->skel->bss;
}

/* What the rest of the engine reads and writes of the loaded instance. */
static void
bind_instance(struct bpfeng *eng)
{
	struct bpfeng_bpf__bss *bss = bss_of(eng);

	eng->counters_fd = map_fd_of(eng, eng->skel->maps.counters);
	eng->threads_fd = map_fd_of(eng, eng->skel->maps.threads);
	eng->procs_fd = map_fd_of(eng, eng->skel->maps.procs);
	eng->cgroups_fd = map_fd_of(eng, eng->skel->maps.cgroups);
	eng->records_fd = map_fd_of(eng, eng->skel->maps.records);
	eng->flush_fd = program_fd_of(eng, eng->skel->progs.flush);
	eng->active_set = &bss->active_set;
	eng->lost_records = &bss->lost_records;
	eng->lost_threads = &bss->lost_threads;
	eng->read_errors = &bss->read_errors;
	eng->hidden_switches = &bss->hidden_switches;
	eng->command_pid = &bss->command_pid;
	eng->signal_sender = bss->signal_sender;
	eng->signal_count = bss->signal_count;
	eng->target_cgroup = &bss->target_cgroup;
	eng->target_level = &bss->target_level;
}

/*
 * The programs, relocated against the kernel's types that they read;
 * where those cannot be had, libbpf reads the kernel's BTF whole, and
 * -D says so. None where an earlier run's are taken.
 */
int
eng_load(struct bpfeng *eng, struct eng_types *types, uint64_t *since,
    char *why, size_t whylen)
{
	struct loading l = { .nmaps = 0 };
	const char *path;
	int err;

	if (take_kept(eng) == 0) {
		/* Its command is forked as they are attached. */
		eng_phase_done(eng, ENG_PHASE_OPEN, since);
		bind_instance(eng);
		return 0;
	}
	eng_types_start(types);
	path = types->err == 0 ? types->path : NULL;
	err = open_instances(eng, &l, path);
	eng_phase_done(eng, ENG_PHASE_OPEN, since);
	/* While the types are picked: nothing of it needs them. */
	if (err == 0)
		eng_command_prepare(eng, eng->command);
	eng_phase_done(eng, ENG_PHASE_COMMAND, since);
	if ((eng->types_whole = types_wait(types)) != 0 && err == 0 &&
	    path != NULL)
		err = open_instances(eng, &l, NULL);
	eng_phase_done(eng, ENG_PHASE_TYPES, since);
	if (err == 0)
		err = load_instances(eng, &l);
	if (err == 0)
		eng_migrate_load(eng, path);
	eng->second = l.second;
	close_made_maps(&l);
	eng_phase_done(eng, ENG_PHASE_LOAD, since);
	if (err != 0) {
		eng_load_reason(eng_log_text(), err, why, whylen);
		errno = err;
		return -1;
	}
	bind_instance(eng);
	return 0;
}

int
eng_whoami_fd(const struct bpfeng *eng)
{
	return program_fd_of(eng, eng->skel->progs.whoami);
}

uint32_t
eng_caller_pid(const struct bpfeng *eng)
{
	return bss_of(eng)->caller_pid;
}

static void *
attach_kept(void *arg)
{
	struct bpfeng *eng = arg;

	eng->attach_err = 0;
	if (eng_keep_attach(eng, eng->skel) != 0)
		eng->attach_err = errno != 0 ? errno : EINVAL;
	return NULL;
}

/*
 * Programs taken from an earlier run are attached in a thread of their
 * own while the caller forks the command and maps the ring: the kernel
 * patches each tracepoint's calls, and the first program on a tracepoint
 * whose last one went within an RCU grace period (the run before's, just
 * ended) waits for the rest of it. eng_attach, or eng_detach, joins it.
 */
void
eng_attach_begin(struct bpfeng *eng)
{
	if (eng->kept != NULL)
		eng->attaching =
		    start_quiet_thread(&eng->attach_thread, attach_kept, eng);
}

static void
attach_join(struct bpfeng *eng)
{
	if (eng->attaching)
		(void)pthread_join(eng->attach_thread, NULL);
	eng->attaching = false;
}

/* The taken programs, attached: 0, or why not. */
static int
attach_taken(struct bpfeng *eng)
{
	if (!eng->attaching)
		attach_kept(eng);
	attach_join(eng);
	return eng->attach_err;
}

int
eng_attach(struct bpfeng *eng, char *why, size_t whylen)
{
	int err = 0;

	if (eng->kept != NULL)
		err = attach_taken(eng);
	else if (bpfeng_bpf__attach(eng->skel) != 0 ||
	    (eng->second != NULL && bpfeng_bpf__attach(eng->second) != 0))
		err = errno != 0 ? errno : EINVAL;
	if (err != 0)
		eng_fd_reason("cannot attach the BPF programs to the "
			      "scheduler's tracepoints",
		    err, why, whylen);
	else {
		eng_migrate_attach(eng);
		/* Kept at its end, for the next run, where they may be. */
		eng->keep_after = eng->keep_name[0] != '\0';
	}
	errno = err;
	return err != 0 ? -1 : 0;
}

/* Programs first: nothing may count into what goes away after. */
void
eng_detach(struct bpfeng *eng)
{
	attach_join(eng);
	if (eng->kept != NULL)
		eng_keep_detach(eng);
	else if (eng->skel != NULL)
		bpfeng_bpf__detach(eng->skel);
	if (eng->second != NULL)
		bpfeng_bpf__detach(eng->second);
	eng_migrate_detach(eng);
}

/* The run's maps and programs, kept for the next run, or let go. */
static void
keep_or_let_go(struct bpfeng *eng)
{
	struct eng_loaded loaded = { .nmaps = 0 };

	while (loaded.nmaps < ENG_MAX_OBJECTS &&
	    (loaded.map_fd[loaded.nmaps] = map_fd_at(eng, loaded.nmaps)) >= 0)
		loaded.nmaps++;
	for (loaded.nprogs = 0; loaded.nprogs < ENG_MAX_OBJECTS &&
	     loaded.nprogs < eng->skel->skeleton->prog_cnt;
	     loaded.nprogs++)
		loaded.prog_fd[loaded.nprogs] =
		    program_fd_at(eng, loaded.nprogs);
	eng_keep_leave(eng, &loaded);
}

void
eng_unload(struct bpfeng *eng)
{
	eng_migrate_unload(eng);
	if (eng->skel != NULL)
		keep_or_let_go(eng);
	bpfeng_bpf__destroy(eng->second);
	bpfeng_bpf__destroy(eng->skel);
	eng->second = NULL;
	eng->skel = NULL;
	eng_keep_publish(eng);
}

/* Program i of the skeleton, from the instance that loaded it. */
static const struct bpf_prog_skeleton *
program_at(const struct bpfeng *eng, int i)
{
	const struct bpf_prog_skeleton *first = &eng->skel->skeleton->progs[i];

	if (eng_migrate_program(eng, first->name))
		return &eng->migrate->skeleton->progs[i];
	if (eng->second != NULL && !bpf_program__autoload(*first->prog))
		return &eng->second->skeleton->progs[i];
	return first;
}

void
bpfeng_programs(const struct bpfeng *eng, char *buf, size_t len)
{
	const struct bpf_prog_skeleton *p;
	int i, loaded = 0, attached = 0;
	size_t at = 0;
	bool ok;

	buf[0] = '\0';
	for (i = 0; i < eng->skel->skeleton->prog_cnt; i++) {
		p = program_at(eng, i);
		if (eng_migrate_unused(eng, p->name) ||
		    unused_program(eng, p->name))
			continue;
		ok = program_fd_at(eng, i) >= 0;
		loaded += ok;
		attached += eng->kept != NULL ? eng_keep_attached(eng, i) :
						*p->link != NULL;
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0,
		    "%s%s%s", at > 0 ? " " : "", ok ? "" : "!", p->name);
	}
	(void)snprintf(buf + at, at < len ? len - at : 0,
	    "; %d loaded, %d attached; %s", loaded, attached,
	    eng->kept != NULL	    ? "kept loaded from an earlier run" :
		eng->second != NULL ? "two threads loaded them" :
				      "one thread loaded them");
}
