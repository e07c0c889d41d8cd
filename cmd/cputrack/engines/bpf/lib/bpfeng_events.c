/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The records from the BPF programs, turned into the caller's callbacks,
 * and the threads and processes announced so far: a tick reports only
 * announced threads, and a process's exit waits for its threads' ends.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfeng_impl.h"

static int
thread_cmp(const struct eng_thread *a, const struct eng_thread *b)
{
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int
proc_cmp(const struct eng_proc *a, const struct eng_proc *b)
{
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

RB_PROTOTYPE(eng_thread_tree, eng_thread, node, thread_cmp)
RB_PROTOTYPE(eng_proc_tree, eng_proc, node, proc_cmp)
RB_GENERATE(eng_thread_tree, eng_thread, node, thread_cmp)
RB_GENERATE(eng_proc_tree, eng_proc, node, proc_cmp)

uint64_t
eng_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct eng_thread *
eng_thread_find(struct bpfeng *eng, pid_t tid)
{
	struct eng_thread key = { .tid = tid };

	return RB_FIND(eng_thread_tree, &eng->threads, &key);
}

static struct eng_proc *
proc_find(struct bpfeng *eng, pid_t pid)
{
	struct eng_proc key = { .pid = pid };

	return RB_FIND(eng_proc_tree, &eng->procs, &key);
}

/*
 * The process, announced with the caller's record if it is not yet; comm:
 * its name where the engine knows it.
 */
static struct eng_proc *
announce_proc(struct bpfeng *eng, pid_t pid, const struct eng_proc *parent,
    const char *comm)
{
	struct eng_proc *p;

	if ((p = proc_find(eng, pid)) != NULL)
		return p;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->pid = pid;
	p->next_lwpid = 1;
	/* A target cgroup's ticks are the run's, not each process's. */
	p->samples_left = eng->flags & BPFENG_BY_CGROUP ? 0 : eng->nsamples;
	RB_INSERT(eng_proc_tree, &eng->procs, p);
	if (eng->ops->proc_create != NULL)
		p->proc = eng->ops->proc_create(
		    eng->arg, pid, parent != NULL ? parent->proc : NULL, comm);
	return p;
}

struct eng_proc *
eng_announce_proc(struct bpfeng *eng, pid_t pid, const struct eng_proc *parent)
{
	return announce_proc(eng, pid, parent, NULL);
}

void
eng_announce_started(struct bpfeng *eng, const char *comm)
{
	pid_t pid = eng->starting;

	eng->starting = 0;
	if (announce_proc(eng, pid, NULL, comm) == NULL) {
		eng->start_err = ENOMEM;
		return;
	}
	(void)eng_announce_thread(
	    eng, pid, pid, 0, BPFENG_LWP_FIRST, eng->starting_ns);
}

/* The record that names a started command's first image, or another. */
static void
announce_started(struct bpfeng *eng, const struct bpfeng_rec *r)
{
	char comm[BPFENG_COMM_LEN + 1];

	if (r->type != BPFENG_REC_BEGIN) {
		eng_announce_started(eng, NULL);
		return;
	}
	memcpy(comm, r->data, BPFENG_COMM_LEN);
	comm[BPFENG_COMM_LEN] = '\0';
	eng_announce_started(eng, comm);
}

/*
 * A thread's number as a capture by ptrace gives it: the leader 1, then
 * the others in the order /proc/PID/task lists them; 0 if it is not
 * there.
 */
static id_t
listed_lwpid(pid_t pid, pid_t tid)
{
	char path[64], *end;
	struct dirent *d;
	id_t n = 2, found = 0;
	long id;
	DIR *dir;

	if (tid == pid)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((dir = opendir(path)) == NULL)
		return 0;
	while (found == 0 && (d = readdir(dir)) != NULL) {
		id = strtol(d->d_name, &end, 10);
		if (*end != '\0' || id <= 0 || id == pid)
			continue;
		if (id == tid)
			found = n;
		n++;
	}
	closedir(dir);
	return found;
}

/*
 * A thread's number in its process: in the order they came, or for a
 * thread named at the attach, as /proc lists it, as a capture by ptrace
 * numbers it.
 */
static id_t
lwpid_of(const struct bpfeng *eng, struct eng_proc *p, pid_t tid)
{
	id_t listed;

	if (eng->named_only && (listed = listed_lwpid(p->pid, tid)) != 0)
		return listed;
	return p->next_lwpid++;
}

int
eng_announce_thread(struct bpfeng *eng, pid_t pid, pid_t tid, uint32_t gen,
    enum bpfeng_origin origin, uint64_t when_ns)
{
	struct eng_proc *p = proc_find(eng, pid);
	struct eng_thread *t;
	id_t lwpid;

	if (p == NULL || eng_thread_find(eng, tid) != NULL)
		return 0;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return -1;
	t->tid = tid;
	t->pid = pid;
	t->gen = gen;
	RB_INSERT(eng_thread_tree, &eng->threads, t);
	p->nthreads++;
	lwpid = lwpid_of(eng, p, tid);
	if (eng->ops->lwp_create != NULL)
		t->lwp = eng->ops->lwp_create(
		    eng->arg, p->proc, pid, tid, lwpid, origin, when_ns);
	return 0;
}

/* The caller's record goes back to it, and the process is forgotten. */
static void
proc_free(struct bpfeng *eng, struct eng_proc *p)
{
	RB_REMOVE(eng_proc_tree, &eng->procs, p);
	if (eng->ops->proc_end != NULL && p->proc != NULL)
		eng->ops->proc_end(eng->arg, p->proc);
	free(p);
}

static void
proc_end(struct bpfeng *eng, struct eng_proc *p, bool report)
{
	if (report && p->left && eng->ops->left != NULL)
		eng->ops->left(eng->arg, p->proc, p->pid, p->exit_ns);
	else if (report && !p->left && eng->ops->exit != NULL)
		eng->ops->exit(
		    eng->arg, p->proc, p->pid, p->status, p->exit_ns);
	proc_free(eng, p);
}

/* A thread's end: its process may end with it. */
static void
thread_end(struct bpfeng *eng, struct eng_thread *t)
{
	struct eng_proc *p = proc_find(eng, t->pid);

	RB_REMOVE(eng_thread_tree, &eng->threads, t);
	free(t);
	if (p != NULL && --p->nthreads == 0 && p->exited)
		proc_end(eng, p, true);
}

/* The counts a record carries, when they stand. */
static const struct bpfeng_counts *
record_counts(const struct bpfeng_rec *r, const __u64 *slots)
{
	if (r->flags & BPFENG_REC_NO_COUNTS)
		return NULL;
	return (const struct bpfeng_counts *)(const void *)slots;
}

static void
on_thread_exit(struct bpfeng *eng, const struct bpfeng_rec *r)
{
	struct eng_thread *t = eng_thread_find(eng, (pid_t)r->tid);

	if (t == NULL)
		return;
	/*
	 * A named thread that ended alone (its process's end, a fatal signal
	 * or an exec take them all, and the process's record says so) may
	 * leave its process none to count.
	 */
	if (eng->named_only && r->tid != r->pid && r->arg == 0 &&
	    !(r->flags & BPFENG_REC_BY_EXEC))
		eng->named_gone = true;
	if (eng->ops->lwp_exit != NULL)
		eng->ops->lwp_exit(eng->arg, t->lwp, (pid_t)r->pid,
		    (pid_t)r->tid,
		    ((r->flags & BPFENG_REC_BY_EXEC) ? BPFENG_EXIT_BY_EXEC :
						       0) |
			(r->arg != 0 ? BPFENG_EXIT_NONZERO : 0),
		    record_counts(r, r->data), r->when_ns);
	thread_end(eng, t);
}

/* A thread seen in the target cgroup: its process comes with it. */
static void
on_enter(struct bpfeng *eng, const struct bpfeng_rec *r)
{
	pid_t pid = (pid_t)r->pid, tid = (pid_t)r->tid;

	if (eng_announce_proc(eng, pid, NULL) != NULL)
		(void)eng_announce_thread(eng, pid, tid, r->gen,
		    tid == pid ? BPFENG_LWP_FIRST : BPFENG_LWP_FOUND,
		    r->when_ns);
}

/*
 * A thread the programs let go, or one userspace does (counts NULL: read
 * from the map, if the programs have not let it go meanwhile; they then
 * send it).
 */
static void
thread_left(struct bpfeng *eng, struct eng_thread *t, const __u64 *counts,
    uint64_t when_ns)
{
	uint32_t key = (uint32_t)t->tid;
	const struct bpfeng_thread *value = eng->read_value;

	if (counts == NULL) {
		if (bpf_map_lookup_elem(
			eng->threads_fd, &key, eng->read_value) != 0 ||
		    bpf_map_delete_elem(eng->threads_fd, &key) != 0)
			return;
		counts = value->slots;
	}
	if (eng->ops->lwp_exit != NULL)
		eng->ops->lwp_exit(eng->arg, t->lwp, t->pid, t->tid,
		    BPFENG_EXIT_LEFT,
		    (const struct bpfeng_counts *)(const void *)counts,
		    when_ns);
	thread_end(eng, t);
}

/*
 * A thread seen outside the target cgroup. The first of its process ends
 * the process's tracking: the others go now, and its end comes after them.
 */
static void
on_leave(struct bpfeng *eng, const struct bpfeng_rec *r)
{
	struct eng_thread *t = eng_thread_find(eng, (pid_t)r->tid), *u, *next;
	struct eng_proc *p = proc_find(eng, (pid_t)r->pid);
	pid_t pid = (pid_t)r->pid;

	if (p != NULL && (r->flags & BPFENG_REC_PROC_LEFT)) {
		p->left = p->exited = true;
		p->exit_ns = r->when_ns;
	}
	if (t != NULL)
		thread_left(eng, t, r->data, r->when_ns);
	if (!(r->flags & BPFENG_REC_PROC_LEFT))
		return;
	if (eng->read_value != NULL ||
	    (eng->read_value = malloc(eng->value_size)) != NULL)
		RB_FOREACH_SAFE (u, eng_thread_tree, &eng->threads, next)
			if (u->pid == pid)
				thread_left(eng, u, NULL, r->when_ns);
	/* None of its threads was announced: it ends all the same. */
	if ((p = proc_find(eng, pid)) != NULL && p->left && p->nthreads == 0)
		proc_end(eng, p, true);
}

static void
on_fork(struct bpfeng *eng, const struct bpfeng_rec *r)
{
	struct eng_thread *parent = eng_thread_find(eng, (pid_t)r->tid);
	struct eng_proc *p = proc_find(eng, (pid_t)r->pid);
	pid_t child = (pid_t)r->arg;

	/* A process untracked since. */
	if (p == NULL)
		return;
	if (eng->ops->fork != NULL)
		eng->ops->fork(eng->arg, p->proc,
		    parent != NULL ? parent->lwp : NULL, (pid_t)r->pid,
		    (pid_t)r->tid, child, r->when_ns);
	if ((r->flags & BPFENG_REC_FOLLOWED) &&
	    eng_announce_proc(eng, child, p) != NULL)
		(void)eng_announce_thread(
		    eng, child, child, r->gen, BPFENG_LWP_FIRST, r->when_ns);
}

/* psargs: NULs between arguments as spaces, other bytes as they are. */
static void
exec_args(const struct bpfeng_rec *r, char *args, size_t len)
{
	const unsigned char *raw = (const unsigned char *)r->data;
	size_t n = BPFENG_ARGS_LEN, i;

	while (n > 0 && raw[n - 1] == '\0')
		n--;
	if (n == 0 || raw[0] == '\0') {
		snprintf(args, len, "(unknown)");
		return;
	}
	for (i = 0; i < n && i + 1 < len; i++)
		args[i] = raw[i] == '\0' ? ' ' : (char)raw[i];
	args[i] = '\0';
}

static void
on_exec(struct bpfeng *eng, const struct bpfeng_rec *r)
{
	struct eng_thread *t = eng_thread_find(eng, (pid_t)r->tid);
	struct eng_proc *p = proc_find(eng, (pid_t)r->pid);
	bool followed = (r->flags & BPFENG_REC_FOLLOWED) != 0, keep = true;
	unsigned flags = (followed ? BPFENG_EXEC_FOLLOWED : 0) |
	    ((r->flags & BPFENG_REC_UNTRACEABLE) ? BPFENG_EXEC_UNTRACEABLE :
						   0) |
	    ((r->flags & BPFENG_REC_FIRST_IMAGE) ? BPFENG_EXEC_FIRST : 0);
	char args[BPFENG_ARGS_LEN + 1], comm[BPFENG_COMM_LEN + 1];

	if (p == NULL)
		return;
	exec_args(r, args, sizeof(args));
	memcpy(comm, &r->data[BPFENG_ARGS_WORDS], BPFENG_COMM_LEN);
	comm[BPFENG_COMM_LEN] = '\0';
	if (eng->ops->exec != NULL)
		keep = eng->ops->exec(eng->arg, p->proc,
		    t != NULL ? t->lwp : NULL, (pid_t)r->pid, (pid_t)r->tid,
		    args, comm, record_counts(r, r->data + BPFENG_EXEC_COUNTS),
		    flags, r->when_ns);
	if (t != NULL) {
		RB_REMOVE(eng_thread_tree, &eng->threads, t);
		free(t);
		p->nthreads--;
	}
	if (!followed) {
		/* No longer counted: it runs on, and close leaves it be. */
		if (p->pid == eng->child) {
			eng->child_released = true;
			eng_guard_dismiss(eng);
		}
		proc_end(eng, p, false);
		return;
	}
	if (!keep) {
		eng_untrack(eng, p->pid);
		return;
	}
	/* The new image's threads are numbered from 1 again. */
	p->next_lwpid = 1;
	(void)eng_announce_thread(
	    eng, p->pid, p->pid, r->gen, BPFENG_LWP_FIRST, r->when_ns);
}

static void
on_proc_exit(struct bpfeng *eng, const struct bpfeng_rec *r)
{
	struct eng_proc *p = proc_find(eng, (pid_t)r->pid);

	if (p == NULL)
		return;
	p->status = (int)r->arg;
	p->exit_ns = r->when_ns;
	p->exited = true;
	if (p->nthreads == 0)
		proc_end(eng, p, true);
}

static void
on_cgroup(struct bpfeng *eng, const struct bpfeng_rec *r)
{
	if (eng->ops->cgroup != NULL)
		eng->ops->cgroup(eng->arg, r->data[0],
		    (r->flags & BPFENG_REC_FOLDED) != 0, (pid_t)r->tid,
		    r->when_ns);
}

/* A cgroup's name, as the record holds it: NUL-terminated, however long. */
static void
on_cgroup_named(struct bpfeng *eng, const struct bpfeng_rec *r)
{
	char name[BPFENG_CGROUP_NAME_LEN];

	memcpy(name, &r->data[2], sizeof(name));
	name[sizeof(name) - 1] = '\0';
	if (eng->ops->cgroup_named != NULL)
		eng->ops->cgroup_named(eng->arg, r->data[0], r->data[1], name);
}

static bool
record_fits(const struct bpfeng *eng, const struct bpfeng_rec *r, size_t size)
{
	size_t counts = (size_t)eng->nslots * sizeof(uint64_t);

	switch (r->type) {
	case BPFENG_REC_LWP_EXIT:
	case BPFENG_REC_LEAVE:
		return size >= sizeof(*r) + counts;
	case BPFENG_REC_EXEC:
		return size >=
		    sizeof(*r) + BPFENG_ARGS_LEN + BPFENG_COMM_LEN + counts;
	case BPFENG_REC_CGROUP:
	case BPFENG_REC_CGROUP_GONE:
		return size >= sizeof(*r) + sizeof(uint64_t);
	case BPFENG_REC_CGROUP_NAMED:
		return size >=
		    sizeof(*r) + 2 * sizeof(uint64_t) + BPFENG_CGROUP_NAME_LEN;
	case BPFENG_REC_BEGIN:
		return size >= sizeof(*r) + BPFENG_COMM_LEN;
	default:
		return size >= sizeof(*r);
	}
}

static int
on_record(void *ctx, void *data, size_t size)
{
	struct bpfeng *eng = ctx;
	const struct bpfeng_rec *r = data;
	bool started = false;

	if (size < sizeof(*r) || !record_fits(eng, r, size) ||
	    (eng->discard != 0 && (pid_t)r->pid == eng->discard))
		return 0;
	/*
	 * A started command is announced at its first record (BEGIN, which
	 * names it); the records after it wait until the caller has it.
	 */
	if (eng->starting != 0 && (pid_t)r->pid == eng->starting) {
		announce_started(eng, r);
		started = true;
	}
	switch (r->type) {
	case BPFENG_REC_LWP_CREATE:
		(void)eng_announce_thread(eng, (pid_t)r->pid, (pid_t)r->tid,
		    r->gen, BPFENG_LWP_NEW, r->when_ns);
		break;
	case BPFENG_REC_FORK:
		on_fork(eng, r);
		break;
	case BPFENG_REC_LWP_EXIT:
		on_thread_exit(eng, r);
		break;
	case BPFENG_REC_EXEC:
		on_exec(eng, r);
		break;
	case BPFENG_REC_EXIT:
		on_proc_exit(eng, r);
		break;
	case BPFENG_REC_ENTER:
		on_enter(eng, r);
		break;
	case BPFENG_REC_LEAVE:
		on_leave(eng, r);
		break;
	case BPFENG_REC_CGROUP:
		on_cgroup(eng, r);
		break;
	case BPFENG_REC_CGROUP_NAMED:
		on_cgroup_named(eng, r);
		break;
	case BPFENG_REC_CGROUP_GONE:
		if (eng->ops->cgroup_gone != NULL)
			eng->ops->cgroup_gone(eng->arg, r->data[0]);
		break;
	default:
		break;
	}
	return started ? -EINTR : 0;
}

int
eng_events_open(struct bpfeng *eng, char *why, size_t whylen)
{
	struct epoll_event ev = { .events = EPOLLIN };

	eng->rb = ring_buffer__new(eng->records_fd, on_record, eng, NULL);
	if (eng->rb == NULL || (eng->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		eng_fd_reason(
		    "cannot read the BPF ring buffer", errno, why, whylen);
		return -1;
	}
	ev.data.fd = ring_buffer__epoll_fd(eng->rb);
	if (epoll_ctl(eng->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev) != 0) {
		eng_fd_reason(
		    "cannot poll the BPF ring buffer", errno, why, whylen);
		return -1;
	}
	return 0;
}

void
eng_events_close(struct bpfeng *eng)
{
	if (eng->rb != NULL)
		ring_buffer__free(eng->rb);
	eng->rb = NULL;
	if (eng->epfd >= 0)
		close(eng->epfd);
	eng->epfd = -1;
}

int
eng_events_drain(struct bpfeng *eng)
{
	return ring_buffer__consume(eng->rb) < 0 ? -1 : 0;
}

/*
 * Drop a process and its threads, with no callbacks; the threads are no
 * longer counted.
 */
void
eng_forget_proc(struct bpfeng *eng, pid_t pid)
{
	struct eng_thread *t, *next;
	struct eng_proc *p;
	uint32_t key;

	RB_FOREACH_SAFE (t, eng_thread_tree, &eng->threads, next) {
		if (t->pid != pid)
			continue;
		key = (uint32_t)t->tid;
		(void)bpf_map_delete_elem(eng->threads_fd, &key);
		RB_REMOVE(eng_thread_tree, &eng->threads, t);
		free(t);
	}
	if ((p = proc_find(eng, pid)) != NULL)
		proc_end(eng, p, false);
}

/* A process no longer tracked: it runs on, uncounted. */
void
eng_untrack(struct bpfeng *eng, pid_t pid)
{
	uint32_t key = (uint32_t)pid;

	/* The process first: it makes no tracked thread from now on. */
	(void)bpf_map_delete_elem(eng->procs_fd, &key);
	eng_forget_proc(eng, pid);
	if (pid == eng->child) {
		eng->child_released = true;
		eng_guard_dismiss(eng);
	}
}

void
eng_forget_all(struct bpfeng *eng)
{
	struct eng_thread *t, *tnext;
	struct eng_proc *p, *pnext;

	RB_FOREACH_SAFE (t, eng_thread_tree, &eng->threads, tnext) {
		RB_REMOVE(eng_thread_tree, &eng->threads, t);
		free(t);
	}
	RB_FOREACH_SAFE (p, eng_proc_tree, &eng->procs, pnext)
		proc_free(eng, p);
}

/* Missed deadlines are skipped, but for a process's last sample. */
static unsigned
samples_taken(unsigned left, uint64_t ticks)
{
	uint64_t skipped = ticks - 1;

	return (skipped < left - 1 ? (unsigned)skipped : left - 1) + 1;
}

void
bpfeng_count_ticks(struct bpfeng *eng, uint64_t ticks)
{
	struct eng_proc *p, *next;

	if (ticks == 0)
		return;
	if (eng->run_samples_left > 0 &&
	    (eng->run_samples_left -= ticks < eng->run_samples_left ?
		    (unsigned)ticks :
		    eng->run_samples_left) == 0)
		eng->samples_done = true;
	/* No limit and no named thread: no walk of every process. */
	if (eng->nsamples == 0 && !eng->named_only)
		return;
	RB_FOREACH_SAFE (p, eng_proc_tree, &eng->procs, next) {
		/* Named threads gone before they were announced leave none. */
		if (eng->named_only && p->nthreads == 0) {
			eng_untrack(eng, p->pid);
			continue;
		}
		if (p->samples_left == 0)
			continue;
		if ((p->samples_left -=
			samples_taken(p->samples_left, ticks)) == 0)
			eng_untrack(eng, p->pid);
	}
}

void
eng_let_go_unnamed(struct bpfeng *eng)
{
	struct eng_proc *p, *next;

	eng->named_gone = false;
	RB_FOREACH_SAFE (p, eng_proc_tree, &eng->procs, next)
		if (p->nthreads == 0)
			eng_untrack(eng, p->pid);
}

void
bpfeng_each_proc(
    struct bpfeng *eng, void (*fn)(void *arg, void *proc), void *arg)
{
	struct eng_proc *p, *next;

	RB_FOREACH_SAFE (p, eng_proc_tree, &eng->procs, next)
		if (p->proc != NULL)
			fn(arg, p->proc);
}
