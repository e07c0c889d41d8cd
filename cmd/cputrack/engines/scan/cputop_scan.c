/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputop with no target, where the BPF engine cannot watch the whole
 * machine: the processes counted from outside, as perf stat -p counts
 * them. Each thread of each process watched has a perf group per {...}
 * group of each set, each count scaled by its own group's times (pid its
 * tid, any CPU, nothing inherited), opened without
 * ptrace: nothing is stopped, traced or slowed. A scan of /proc at each
 * tick finds the processes and threads that came, and those gone, whose
 * counters are read one last time, then closed. A thread or process that
 * starts and ends between two scans is never seen: what it counted comes
 * through its process's, or its parent's, sentinel (cputop_ended.c).
 *
 * A user watches their own processes, root every process. The
 * descriptors are bounded by RLIMIT_NOFILE: the busiest new processes
 * are counted first, each with its sentinel and its busiest threads, as
 * many as there is room for; what is left out is said, and a thread left
 * out has rows that say why.
 *
 * An adapter onto the tracking model (cputrack_track.c), as the other
 * engines are: it feeds each thread's counts as the BPF engine does
 * (TRACK_FED), with the sets' counters described by engine_sets.c.
 */
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cputop_scan.h"
#include "cputrack_engine.h"
#include "diag.h"
#include "engine_breakpoint.h"
#include "fdlimit.h"
#include "top.h"

/* Descriptors kept for the output, the terminal and /proc's reads. */
#define FDS_RESERVED 64

/* Why a thread is not counted, in its rows. */
static const char no_descriptors[] = "out of file descriptors";

/* What a scan read of a process. */
struct proc_stat {
	char comm[16];
	char state;
	unsigned long long cpu; /* utime + stime, for the busiest first */
	unsigned long long start;
	long nthreads;
};

static long
perf_open(struct perf_event_attr *attr, pid_t tid, int group)
{
	return syscall(
	    SYS_perf_event_open, attr, tid, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static void
close_set(int *fds, int n)
{
	int k;

	for (k = n - 1; k >= 0; k--)
		if (fds[k] >= 0)
			close(fds[k]);
}

/*
 * Set s's groups on thread tid, into fds (its nattrs of them, each
 * group's leader first): only the set in use counts. 0, or an errno.
 */
static int
open_set(struct scan_track *st, pid_t tid, int s, int *fds)
{
	const struct engine_counters *set = &st->eng[s];
	struct perf_event_attr attr;
	int k, leader, err;

	for (k = 0; k < set->nattrs; k++)
		fds[k] = -1;
	for (k = 0; k < set->nattrs; k++) {
		leader = engine_counters_leader(set, k);
		attr = set->attrs[k];
		attr.read_format = PERF_FORMAT_GROUP |
		    PERF_FORMAT_TOTAL_TIME_ENABLED |
		    PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr.inherit = 0;
		attr.disabled = k == leader && s != st->current;
		if ((fds[k] = (int)perf_open(
			 &attr, tid, k != leader ? fds[leader] : -1)) < 0) {
			err = errno;
			close_set(fds, k);
			return err;
		}
	}
	return 0;
}

/* Every set's counters on tid; 0, or an errno. */
static int
open_lwp(struct scan_track *st, pid_t tid, int *fds)
{
	int s, off = 0, err;

	for (s = 0; s < st->nsets; s++) {
		if ((err = open_set(st, tid, s, fds + off)) != 0) {
			close_set(fds, off);
			return err;
		}
		off += st->eng[s].nattrs;
	}
	return 0;
}

static int *
set_fds(const struct scan_track *st, const struct scan_lwp *l, int s)
{
	int i, off = 0;

	for (i = 0; i < s; i++)
		off += st->eng[i].nattrs;
	return l->fds + off;
}

/* Set s's leaders, each with its group, enabled or disabled (request). */
static void
set_ioctl(
    const struct scan_track *st, const int *fds, int s, unsigned long request)
{
	const struct engine_counters *set = &st->eng[s];
	int k;

	for (k = 0; k < set->nattrs; k++)
		if (engine_counters_leader(set, k) == k)
			(void)ioctl(fds[k], request, PERF_IOC_FLAG_GROUP);
}

/*
 * The group led by counter leader of set s: its counts into st->counts,
 * each at its counter's place, and its times. 0, or -1.
 */
static int
read_group(struct scan_track *st, const int *fds, int s, int leader)
{
	const struct engine_counters *set = &st->eng[s];
	uint64_t *b = st->readbuf;
	ssize_t len = (ssize_t)((3 + (size_t)set->nattrs) * sizeof(uint64_t));
	ssize_t got = read(fds[leader], b, (size_t)len);
	uint64_t i = 0;
	int k;

	if (got < 3 * (ssize_t)sizeof(uint64_t) ||
	    got != (ssize_t)((3 + b[0]) * sizeof(uint64_t)))
		return -1;
	for (k = leader; k < set->nattrs; k++)
		if (engine_counters_leader(set, k) == leader && i < b[0])
			st->counts[k] = b[3 + i++];
	if (i != b[0])
		return -1;
	st->times[engine_counters_group(set, leader)] =
	    (struct set_times) { b[1], b[2] };
	return 0;
}

/* Set s's counts since the thread's counters opened, into its record. */
static int
sample(struct scan_track *st, struct scan_lwp *l, int s, hrtime_t when)
{
	const struct engine_counters *set = &st->eng[s];
	const int *fds = set_fds(st, l, s);
	int k, g;

	for (k = 0; k < set->nattrs; k++)
		if (engine_counters_leader(set, k) == k &&
		    read_group(st, fds, s, k) != 0)
			return -1;
	/* A set opened as one group (joint): each group ran as it ran. */
	for (g = engine_counters_ngroups(set);
	     g < engine_sets_groups(st->sets, s); g++)
		st->times[g] = st->times[0];
	engine_sets_sample(
	    st->sets, l->base.grp, s, st->counts, st->times, when);
	return 0;
}

static struct scan_proc *
proc_of(const struct scan_lwp *l)
{
	return (struct scan_proc *)l->base.proc;
}

static void
lwp_free(struct scan_track *st, struct scan_lwp *l)
{
	if (l->fds != NULL) {
		close_set(l->fds, st->fds_per_lwp);
		st->fd_room += st->fds_per_lwp;
	}
	free(l->fds);
	scan_whole_free(l);
	track_lwp_free(&l->base);
}

/*
 * The thread's counts are final: its last read, into its process's
 * totals; an LWP but the leader of a process that goes on has its
 * lwp_exit row.
 */
static void
lwp_end(
    struct scan_track *st, struct scan_lwp *l, bool proc_goes_on, hrtime_t when)
{
	bool leader = l->base.who.tid == l->base.who.pid;

	if (l->fds != NULL && sample(st, l, st->current, when) == 0) {
		scan_count_before(st, l, when);
		track_lwp_final(&l->base);
		if (leader)
			proc_of(l)->leader = l->base.who;
		else if (proc_goes_on)
			track_lwp_exit(&l->base);
	} else if (l->left_out && proc_goes_on && !leader) {
		track_lwp_exit_uncounted(&l->base, no_descriptors);
	}
	lwp_free(st, l);
}

/* Room for one more in an array of pointers; false: no memory. */
static bool
grow(void *arrayp, size_t n, size_t *room, size_t size)
{
	void **array = arrayp, *grown;
	size_t more = *room * 2 + 16;

	if (n < *room)
		return true;
	if ((grown = reallocarray(*array, more, size)) == NULL)
		return false;
	*array = grown;
	*room = more;
	return true;
}

/* The thread's counters, if the descriptors allow: 0, or an errno. */
static int
lwp_open(struct scan_track *st, struct scan_lwp *l)
{
	int err;

	if (st->fd_room < st->fds_per_lwp)
		return EMFILE;
	if ((l->fds = calloc((size_t)st->fds_per_lwp, sizeof(int))) == NULL)
		return ENOMEM;
	if ((err = open_lwp(st, l->base.who.tid, l->fds)) != 0) {
		free(l->fds);
		l->fds = NULL;
		return err;
	}
	st->fd_room -= st->fds_per_lwp;
	st->ct->counted = true;
	return 0;
}

/* Its counters opened, the thread counts from when on. */
static void
lwp_start(struct scan_track *st, struct scan_lwp *l, hrtime_t when)
{
	static const struct set_times no_time;

	setgrp_set_current(l->base.grp, st->current);
	setgrp_started_at(l->base.grp, when);
	setgrp_sample_counts(l->base.grp, st->current,
	    engine_sets_zeros(st->sets), &no_time, when);
}

/* A thread found in p: counted if the descriptors allow, else not. */
static struct scan_lwp *
lwp_new(struct scan_track *st, struct scan_proc *p, pid_t tid, hrtime_t when)
{
	struct scan_lwp *l;
	int err;

	l = (struct scan_lwp *)track_lwp_new(
	    &p->base, ++p->next_lwpid, tid, TRACK_FED, sizeof(*l));
	if (l == NULL)
		return NULL;
	l->seen = true;
	if ((err = lwp_open(st, l)) == 0) {
		lwp_start(st, l, when);
		return l;
	}
	/*
	 * Not counted: for want of descriptors, said in its rows and its
	 * process's totals; a thread gone since the scan is only left out,
	 * and one its user may not count now (an exec or a change of
	 * credentials under way, a set-id program) is tried again at each
	 * scan.
	 */
	track_lwp_uncounted(&l->base);
	if (err == EMFILE || err == ENFILE || err == ENOMEM) {
		p->base.uncounted++;
		l->left_out = true;
		track_not_counted(st->ct, &l->base.who, no_descriptors);
	}
	l->retry = err == EACCES || err == EPERM;
	return l;
}

/*
 * A thread its user could not count at the last scan, tried again (its
 * sets come back from their master's free ones).
 */
static void
lwp_retry(struct scan_track *st, struct scan_lwp *l, hrtime_t when)
{
	if (track_lwp_recount(&l->base) != 0) {
		scan_no_memory(st);
		return;
	}
	if (lwp_open(st, l) != 0) {
		track_lwp_uncounted(&l->base);
		return;
	}
	l->retry = false;
	lwp_start(st, l, when);
}

/* /proc/PID/stat, read through fd. */
static bool
read_stat(int fd, struct proc_stat *ps)
{
	char buf[1024], *open, *close;
	ssize_t n;
	unsigned long long utime, stime;

	if ((n = pread(fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return false;
	buf[n] = '\0';
	if ((open = strchr(buf, '(')) == NULL ||
	    (close = strrchr(buf, ')')) == NULL || close < open)
		return false;
	*close = '\0';
	strlcpy(ps->comm, open + 1, sizeof(ps->comm));
	/* After the name: state, then fields 4 to 22 of proc_pid_stat(5). */
	return sscanf(close + 2,
		   "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu "
		   "%*d %*d %*d %*d %ld %*d %llu",
		   &ps->state, &utime, &stime, &ps->nthreads,
		   &ps->start) == 5 &&
	    (ps->cpu = utime + stime, true);
}

/* A thread found, with the CPU time it had, for the busiest first. */
struct new_thread {
	pid_t tid;
	unsigned long long cpu;
};

/* The threads /proc lists that p has no record of, n of them; or NULL. */
static struct new_thread *
new_threads(struct scan_proc *p, size_t *n)
{
	struct new_thread *t = NULL, *grown;
	struct scan_lwp *l;
	struct dirent *de;
	size_t room = 0;
	char path[64];
	DIR *d;
	pid_t tid;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->base.pid);
	if ((d = opendir(path)) == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = (pid_t)atoi(de->d_name);
		if ((l = scan_lwp_of(p, tid)) != NULL) {
			l->seen = true;
			continue;
		}
		if (*n == room) {
			room = room * 2 + 16;
			if ((grown = reallocarray(t, room, sizeof(*t))) == NULL)
				break;
			t = grown;
		}
		t[(*n)++] = (struct new_thread) { tid, 0 };
	}
	closedir(d);
	return t;
}

/*
 * A thread's CPU time so far, in ns, from /proc: schedstat's, which tells
 * a busy thread that has run a millisecond from idle ones (stat's clock
 * ticks give both 0 on a busy machine, where the busy one waited), else
 * stat's ticks. 0 once it is gone.
 */
static unsigned long long
thread_cpu(pid_t pid, pid_t tid)
{
	struct proc_stat ps;
	char path[64], text[96];
	ssize_t len;
	bool read_ok;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid,
	    (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		len = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (len > 0) {
			text[len] = '\0';
			return strtoull(text, NULL, 10);
		}
	}
	snprintf(
	    path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	read_ok = read_stat(fd, &ps);
	close(fd);
	return read_ok ? ps.cpu *
		(1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK)) :
			 0;
}

static int
busiest_thread_first(const void *a, const void *b)
{
	unsigned long long x = ((const struct new_thread *)a)->cpu,
			   y = ((const struct new_thread *)b)->cpu;

	return (x < y) - (x > y);
}

/*
 * The threads /proc lists now: those new, counted from now on; where the
 * descriptors do not allow them all, the busiest first.
 */
static void
find_lwps(struct scan_track *st, struct scan_proc *p, hrtime_t when)
{
	size_t i, n, room = (size_t)p->room;
	struct new_thread *t = new_threads(p, &n);
	struct scan_lwp *l;

	if (n > 0 && (long)n * st->fds_per_lwp > st->fd_room) {
		for (i = 0; i < n; i++)
			t[i].cpu = thread_cpu(p->base.pid, t[i].tid);
		qsort(t, n, sizeof(*t), busiest_thread_first);
	}
	for (i = 0; i < n && !st->ended_run; i++) {
		if (!grow(
			&p->lwps, (size_t)p->nlwps, &room, sizeof(*p->lwps)) ||
		    (l = lwp_new(st, p, t[i].tid, when)) == NULL) {
			scan_no_memory(st);
			break;
		}
		p->room = (int)room;
		p->lwps[p->nlwps++] = l;
	}
	free(t);
	if (n > 0)
		qsort(p->lwps, (size_t)p->nlwps, sizeof(*p->lwps), scan_by_tid);
}

/* Let go of the process: its counters, its sentinel, its stat closed. */
static void
proc_release(struct scan_track *st, struct scan_proc *p)
{
	int i;

	for (i = 0; i < p->nlwps; i++)
		lwp_free(st, p->lwps[i]);
	free(p->lwps);
	if (p->unseen != NULL) {
		scan_drop_parts(st, p);
		unseen_close(p->unseen);
		st->fd_room += st->unseen_fds;
	}
	close(p->stat_fd);
	st->fd_room++;
	track_proc_free(&p->base);
}

/* The process's end: each thread's last counts, then its exit row. */
static void
proc_end(struct scan_track *st, struct scan_proc *p, hrtime_t when)
{
	int i;

	for (i = 0; i < p->nlwps; i++)
		lwp_end(st, p->lwps[i], false, when);
	p->nlwps = 0;
	if (p->leader.pid == 0)
		p->leader = track_who(&p->base, 1, p->base.pid);
	track_exit(&p->base, &p->leader, 0);
	proc_release(st, p);
}

/* Whether p is gone (or a zombie), or its pid another's now. */
static bool
proc_gone(struct scan_proc *p, struct proc_stat *ps)
{
	return !read_stat(p->stat_fd, ps) || ps->state == 'Z' ||
	    ps->start != p->start;
}

static void open_sentinel(struct scan_track *st, struct scan_proc *p);

/*
 * A process known, before the sentinels are read: whether it is gone, and
 * which of its threads are (not seen); its new threads, counted from now
 * on. What could not be counted a moment ago for want of the right is
 * tried again.
 */
static void
proc_look(struct scan_track *st, struct scan_proc *p, hrtime_t when)
{
	struct proc_stat ps;
	int i;

	if ((p->gone = proc_gone(p, &ps)))
		return;
	if (strcmp(ps.comm, p->base.comm) != 0)
		track_rename(&p->base, ps.comm);
	if (p->unseen == NULL && p->retry)
		open_sentinel(st, p);
	for (i = 0; i < p->nlwps; i++)
		p->lwps[i]->seen = false;
	find_lwps(st, p, when);
}

/*
 * A process looked at, once the sentinels are read: its end, or its
 * threads' ends and the tick of those that go on. False when it is gone.
 */
static bool
proc_scan(struct scan_track *st, struct scan_proc *p, hrtime_t when)
{
	int i, n = 0;

	if (p->gone) {
		proc_end(st, p, when);
		return false;
	}
	for (i = 0; i < p->nlwps; i++) {
		struct scan_lwp *l = p->lwps[i];

		if (!l->seen) {
			lwp_end(st, l, true, when);
			continue;
		}
		p->lwps[n++] = l;
		if (l->fds == NULL && l->retry)
			lwp_retry(st, l, when);
		if (l->fds == NULL)
			continue;
		if (sample(st, l, st->current, when) != 0)
			continue; /* gone since the scan: its end is next */
		if (track_batch_add(&st->ticked, &l->base,
			setgrp_slice(l->base.grp, st->current), 1) != 0) {
			st->ended_run = true;
			st->status = 1;
			break;
		}
	}
	p->nlwps = n;
	return true;
}

/* Whether the process in /proc's entry name is one to watch. */
static bool
watched(const struct scan_track *st, int proc, const char *name, pid_t pid)
{
	struct stat sb;

	if (pid == getpid() || scan_proc_of(st, pid) != NULL)
		return false;
	if (st->everyone)
		return true;
	return fstatat(proc, name, &sb, 0) == 0 && sb.st_uid == st->uid;
}

/* A new process, not yet counted: its stat, kept open. NULL: gone. */
static struct scan_proc *
proc_found(int proc, const char *name, pid_t pid, struct proc_stat *ps)
{
	struct scan_proc *p;
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "%s/stat", name);
	if ((fd = openat(proc, path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	if (!read_stat(fd, ps) || ps->state == 'Z' ||
	    (p = calloc(1, sizeof(*p))) == NULL) {
		close(fd);
		return NULL;
	}
	p->base.pid = pid;
	p->stat_fd = fd;
	p->start = ps->start;
	p->cpu = ps->cpu;
	return p;
}

static int
busiest_first(const void *a, const void *b)
{
	unsigned long long x = (*(struct scan_proc *const *)a)->cpu,
			   y = (*(struct scan_proc *const *)b)->cpu;

	return (x < y) - (x > y);
}

/* A whole process left out, by its name. */
static void
left_out_proc(struct left_out *l, const char *comm)
{
	int i;

	l->procs++;
	for (i = 0; i < l->nnamed; i++)
		if (strcmp(l->named[i].comm, comm) == 0) {
			l->named[i].n++;
			return;
		}
	if (l->nnamed == NAMES_SAID)
		return;
	strlcpy(l->named[i].comm, comm, sizeof(l->named[i].comm));
	l->named[l->nnamed++].n = 1;
}

/* Those names: "sleep x5, timeout, ...". */
static void
left_out_names(const struct left_out *l, char *buf, size_t size)
{
	size_t n = 0, named = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < l->nnamed && n < size; i++) {
		named += l->named[i].n;
		n += (size_t)snprintf(buf + n, size - n,
		    l->named[i].n > 1 ? "%s%s x%zu" : "%s%s", i > 0 ? ", " : "",
		    l->named[i].comm, l->named[i].n);
	}
	if (named < l->procs && n < size)
		snprintf(buf + n, size - n, ", ...");
}

/* Its sentinel, where room is left for it and a thread (and said). */
static void
open_sentinel(struct scan_track *st, struct scan_proc *p)
{
	int err, fd;
	/*
	 * Edge-triggered: a ring whose thread has ended polls hung up until
	 * the next scan closes it, and that is said once.
	 */
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.ptr = p };

	if (!st->sentinels || st->fd_room < st->unseen_fds + st->fds_per_lwp)
		return;
	p->unseen =
	    unseen_open(st->eng, st->nsets, st->current, p->base.pid, &err);
	if (p->unseen == NULL) {
		/* The ring's pages are locked memory, bounded per user. */
		st->no_ring += err == ENOBUFS;
		p->retry = err == EACCES || err == EPERM;
		return;
	}
	p->retry = false;
	st->fd_room -= st->unseen_fds;
	fd = unseen_fd(p->unseen);
	(void)epoll_ctl(st->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * A found process becomes a model's record, with its sentinel and as many
 * of its threads counted as the descriptors allow, the busiest first; one
 * that has no room for a thread is left out, for a later scan.
 */
static bool
proc_take(struct scan_track *st, struct scan_proc *p, hrtime_t when)
{
	struct proc_stat ps;
	struct scan_proc *q;

	if (proc_gone(p, &ps)) {
		close(p->stat_fd);
		free(p);
		return false;
	}
	if (1 + st->fds_per_lwp > st->fd_room) {
		left_out_proc(&st->left, ps.comm);
		close(p->stat_fd);
		free(p);
		return false;
	}
	q = (struct scan_proc *)track_proc_new(
	    st->ct, p->base.pid, NULL, sizeof(*q));
	if (q == NULL) {
		close(p->stat_fd);
		free(p);
		scan_no_memory(st);
		return false;
	}
	/* Gone since its stat was read: the name that stat gave. */
	if (q->base.comm[0] == '\0')
		track_rename(&q->base, ps.comm);
	q->stat_fd = p->stat_fd;
	q->start = p->start;
	free(p);
	st->fd_room--;
	open_sentinel(st, q);
	find_lwps(st, q, when);
	st->procs[st->nprocs++] = q;
	return true;
}

/* The processes /proc lists that are not known yet, busiest first. */
static void
find_procs(struct scan_track *st, hrtime_t when)
{
	struct proc_stat ps;
	struct dirent *de;
	struct scan_proc *p;
	size_t i, before = st->nprocs;
	DIR *d;
	pid_t pid;

	if ((d = opendir("/proc")) == NULL)
		return;
	st->nfound = 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (!watched(st, dirfd(d), de->d_name, pid) ||
		    (p = proc_found(dirfd(d), de->d_name, pid, &ps)) == NULL)
			continue;
		if (!grow(&st->found, st->nfound, &st->found_room,
			sizeof(*st->found))) {
			close(p->stat_fd);
			free(p);
			scan_no_memory(st);
			break;
		}
		st->found[st->nfound++] = p;
	}
	closedir(d);
	qsort(st->found, st->nfound, sizeof(*st->found), busiest_first);
	memset(&st->left, 0, sizeof(st->left));
	for (i = 0; i < st->nfound; i++) {
		if (st->ended_run ||
		    !grow(&st->procs, st->nprocs, &st->room,
			sizeof(*st->procs))) {
			close(st->found[i]->stat_fd);
			free(st->found[i]);
			continue;
		}
		(void)proc_take(st, st->found[i], when);
	}
	if (st->nprocs > before)
		qsort(st->procs, st->nprocs, sizeof(*st->procs), scan_by_pid);
}

/* The processes counted in part: their threads left out, named. */
static void
count_partial(struct scan_track *st)
{
	struct left_out *l = &st->left;
	const struct scan_proc *p;
	size_t i, at;
	int j, n;

	l->partial = l->threads = 0;
	l->partial_names[0] = '\0';
	for (i = 0; i < st->nprocs; i++) {
		p = st->procs[i];
		for (j = n = 0; j < p->nlwps; j++)
			n += p->lwps[j]->left_out;
		if (n == 0)
			continue;
		l->threads += (size_t)n;
		at = strlen(l->partial_names);
		if (l->partial++ < NAMES_SAID)
			snprintf(l->partial_names + at,
			    sizeof(l->partial_names) - at,
			    "%s%d of %d threads of %s (%d)", at > 0 ? ", " : "",
			    n, p->nlwps, p->base.comm, (int)p->base.pid);
	}
}

/*
 * What is left out for want of descriptors, said when the processes it
 * takes change: the busiest are counted, each with its busiest threads.
 */
static void
say_left_out(struct scan_track *st)
{
	const struct left_out *l = &st->left;
	char names[128], whole[192] = "";

	if (l->procs == st->said.procs && l->partial == st->said.partial)
		return;
	st->said = *l;
	if (l->procs == 0 && l->partial == 0) {
		diag(NULL, "every process is counted now, each thread of it\n");
		return;
	}
	fd_limit_reached();
	left_out_names(l, names, sizeof(names));
	if (l->procs > 0)
		snprintf(whole, sizeof(whole), "%s%zu whole process%s (%s)",
		    l->partial > 0 ? "; " : "", l->procs,
		    l->procs == 1 ? "" : "es", names);
	diag(NULL,
	    "out of file descriptors: the busiest threads are counted; not "
	    "counted: %s%s\n",
	    l->partial_names, whole);
}

/*
 * What the sentinels cannot give, said once each: a process with no
 * room for its ring (locked memory), records the kernel had no room for.
 */
static void
say_unseen_limits(struct scan_track *st)
{
	if (st->no_ring > 0 && st->no_ring_said == 0)
		diag(NULL,
		    "no room for the kernel's buffers (locked memory: "
		    "kernel.perf_event_mlock_kb, ulimit -l): what some "
		    "processes start and end between two scans is not "
		    "counted\n");
	st->no_ring_said = st->no_ring;
	if (st->lost > st->lost_said)
		diag(NULL,
		    "the kernel lost %lu counts of tasks that ended "
		    "between two scans (its buffers were full, or a task's "
		    "came in part)\n",
		    st->lost);
	st->lost_said = st->lost;
}

/* With several sets, the next takes its turn on every thread counted. */
static void
hand_over(struct scan_track *st, int next)
{
	struct scan_lwp *l;
	size_t i;
	int j;

	for (i = 0; i < st->nprocs; i++)
		for (j = 0; j < st->procs[i]->nlwps; j++) {
			if ((l = st->procs[i]->lwps[j])->fds == NULL)
				continue;
			set_ioctl(st, set_fds(st, l, st->current), st->current,
			    PERF_EVENT_IOC_DISABLE);
			set_ioctl(st, set_fds(st, l, next), next,
			    PERF_EVENT_IOC_ENABLE);
			setgrp_set_current(l->base.grp, next);
		}
	for (i = 0; i < st->nprocs; i++)
		if (st->procs[i]->unseen != NULL)
			unseen_hand_over(
			    st->procs[i]->unseen, st->current, next);
	st->current = next;
}

/*
 * A scan: the ends since the last, found before the sentinels are read,
 * so that every record a task wrote at its end is in when its counters
 * are let go (a thread the scan counted has its whole life's record by
 * then, not taken again as one that ended unseen); then what the
 * sentinels say ended, the ends, the tick rows of the threads that go
 * on, and the processes that came (counted from now on). last: the
 * run's end, with no new processes.
 */
static void
scan(struct scan_track *st, bool last)
{
	hrtime_t when = output_now();
	size_t i, n = 0;

	for (i = 0; i < st->nprocs; i++)
		proc_look(st, st->procs[i], when);
	scan_read_ended(st, when);
	scan_read_settled(st, last);
	for (i = 0; i < st->nprocs; i++)
		if (proc_scan(st, st->procs[i], when))
			st->procs[n++] = st->procs[i];
	st->nprocs = n;
	if (last) {
		track_last_tick(&st->ticked);
		say_unseen_limits(st);
		return;
	}
	track_tick(&st->ticked);
	if (st->nsets > 1)
		hand_over(st, (st->current + 1) % st->nsets);
	find_procs(st, when);
	count_partial(st);
	say_left_out(st);
	say_unseen_limits(st);
	st->scanned_at = when;
}

/* Descriptors left to count with: the limit raised, less those open. */
static long
fds_available(void)
{
	struct rlimit rl;
	long open = 0;
	struct dirent *de;
	DIR *d;

	raise_fd_limit(false);
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1024 - FDS_RESERVED;
	if ((d = opendir("/proc/self/fd")) != NULL) {
		while ((de = readdir(d)) != NULL)
			open += de->d_name[0] != '.';
		closedir(d);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1ul << 30))
		rl.rlim_cur = 1ul << 30;
	return (long)rl.rlim_cur - open - FDS_RESERVED;
}

static void
scan_free(struct scan_track *st)
{
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->nprocs; i++)
		proc_release(st, st->procs[i]);
	if (st->tfd >= 0)
		close(st->tfd);
	if (st->sfd >= 0)
		close(st->sfd);
	if (st->epfd >= 0)
		close(st->epfd);
	scan_ended_free(st);
	free(st->procs);
	free(st->found);
	track_batch_free(&st->ticked);
	free(st->readbuf);
	free(st->counts);
	free(st->times);
	free(st->before);
	engine_sets_free(st->sets);
	free(st);
}

/*
 * Counting is refused to this user at all (a kernel's
 * perf_event_paranoid above 2 refuses every counter): the one line of
 * libcpc's that says why and what to do.
 */
static int
refused_here(struct scan_track *st)
{
	const struct spec *spec = setgrp_spec(st->ct->specs, 0);
	cpc_set_t *set = spec_build_set(st->ct->cpc, spec);

	if (set == NULL || cpc_set_check(st->ct->cpc, set, -1) == 0)
		diag(NULL, "cannot count your processes: %s\n",
		    strerror(EACCES));
	if (set != NULL)
		(void)cpc_set_destroy(st->ct->cpc, set);
	return 2;
}

/* Whether this user may count a thread at all, its own: 0 or an errno. */
static int
may_count(struct scan_track *st)
{
	int *fds = calloc((size_t)st->fds_per_lwp, sizeof(int));
	int err;

	if (fds == NULL)
		return ENOMEM;
	if ((err = open_lwp(st, (pid_t)syscall(SYS_gettid), fds)) == 0)
		close_set(fds, st->fds_per_lwp);
	free(fds);
	return err;
}

/* A thread counted from outside has no tracer to drop a lost trap. */
static const char breakpoint_advice[] =
    "a debug trap of a breakpoint that a hypervisor loses kills the task "
    "that hit it with SIGTRAP; only the ptrace engine, which counts a "
    "command (cputop COMMAND), drops that trap";

static int
scan_open(struct cputrack *ct, bool for_auto, char *why, size_t len)
{
	struct scan_track *st;
	int s, most = 0, err;

	(void)for_auto;
	if (engine_refuses_breakpoint(ct->specs, breakpoint_advice, why, len))
		return 2;
	if ((st = calloc(1, sizeof(*st))) == NULL) {
		diag(NULL, "no memory available\n");
		return 1;
	}
	*st = (struct scan_track) { .ct = ct,
		.tfd = -1,
		.sfd = -1,
		.epfd = -1,
		.nsets = setgrp_nsets(ct->specs),
		.uid = getuid(),
		.everyone = geteuid() == 0 };
	if ((st->sets = engine_sets_new(ct->cpc, ct->specs, false, why, len)) ==
	    NULL) {
		scan_free(st);
		return 2;
	}
	st->eng = engine_sets_counters(st->sets);
	st->unseen_fds = unseen_nfds(st->eng, st->nsets);
	for (s = 0; s < st->nsets; s++) {
		st->fds_per_lwp += st->eng[s].nattrs;
		if (st->eng[s].nattrs > most)
			most = st->eng[s].nattrs;
		if (engine_sets_groups(st->sets, s) > st->most_groups)
			st->most_groups = engine_sets_groups(st->sets, s);
	}
	st->readbuf = calloc(3 + (size_t)most, sizeof(uint64_t));
	st->counts = calloc((size_t)most, sizeof(uint64_t));
	st->times = calloc((size_t)st->most_groups, sizeof(*st->times));
	st->most_values = engine_sets_most(st->sets);
	st->before = calloc((size_t)st->most_values + 1, sizeof(uint64_t));
	if (st->readbuf == NULL || st->counts == NULL || st->times == NULL ||
	    st->before == NULL) {
		diag(NULL, "no memory available\n");
		scan_free(st);
		return 1;
	}
	if (may_count(st) != 0) {
		err = refused_here(st);
		scan_free(st);
		return err;
	}
	ct->engine_state = st;
	st->sentinels = unseen_possible();
	ct->engine_note = st->sentinels ?
	    "counted from outside: what starts and ends between two scans "
	    "counts in its process's line, or its parent's" :
	    "counted from outside: what starts and ends between two scans "
	    "is not counted (Linux 6.12 or later counts it)";
	return 0;
}

/*
 * The loop's descriptors: the ticks, the signals that end a run, and the
 * sentinels' rings, which say when one is half full.
 */
static int
open_loop(struct scan_track *st)
{
	unsigned ms = st->ct->opt.interval_ms;
	struct itimerspec its = { { ms / 1000, (long)(ms % 1000) * 1000000 },
		{ ms / 1000, (long)(ms % 1000) * 1000000 } };
	sigset_t set;

	cputrack_ending_signals(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 ||
	    (st->sfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0 ||
	    (st->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC)) < 0 ||
	    timerfd_settime(st->tfd, 0, &its, NULL) != 0 ||
	    (st->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		diag(NULL, "cannot set up the ticks - %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void
on_signal(struct scan_track *st)
{
	struct signalfd_siginfo si;

	if (read(st->sfd, &si, sizeof(si)) != sizeof(si))
		return;
	if (cputrack_signal(st->ct, (int)si.ssi_signo, si.ssi_code, false) == 0)
		return;
	scan(st, true);
	st->ended_run = true;
}

static void
on_tick(struct scan_track *st)
{
	uint64_t expirations;
	unsigned nsamples = st->ct->opt.nsamples;

	if (read(st->tfd, &expirations, sizeof(expirations)) !=
	    sizeof(expirations))
		return;
	scan(st, false);
	if (nsamples != 0 && ++st->ticks >= nsamples)
		st->ended_run = true;
}

/* A sentinel's ring is half full: what ended, read now. */
static void
on_ring(struct scan_track *st)
{
	struct epoll_event ev[16];

	while (epoll_wait(st->epfd, ev, 16, 0) == 16)
		continue;
	scan_read_ended(st, output_now());
}

static int
scan_track(struct cputrack *ct)
{
	struct scan_track *st = ct->engine_state;
	struct pollfd pfd[3];
	int ready;

	if (cputrack_early_signal() != 0 || open_loop(st) != 0)
		return 1;
	st->fd_room = fds_available();
	cputrack_title(ct);
	output_start_clock(ct->out);
	st->scanned_at = output_now();
	find_procs(st, st->scanned_at);
	count_partial(st);
	say_left_out(st);
	say_unseen_limits(st);
	pfd[0] = (struct pollfd) { .fd = st->sfd, .events = POLLIN };
	pfd[1] = (struct pollfd) { .fd = st->tfd, .events = POLLIN };
	pfd[2] = (struct pollfd) { .fd = st->epfd, .events = POLLIN };
	while (!st->ended_run) {
		cputrack_flush(ct);
		if (ct->reader_gone)
			break;
		if ((ready = poll(pfd, 3, scan_rings_wait_ms(st))) < 0) {
			if (errno == EINTR)
				continue;
			diag(NULL, "poll failed - %s\n", strerror(errno));
			return 1;
		}
		if (ready == 0)
			scan_read_ended(st, output_now());
		else if (pfd[0].revents & POLLIN)
			on_signal(st);
		else if (pfd[1].revents & POLLIN)
			on_tick(st);
		else if (pfd[2].revents & POLLIN)
			on_ring(st);
	}
	return st->status != 0 || ct->write_failed ? 1 : 0;
}

/*
 * --top with no target, where the BPF engine cannot watch the whole
 * machine: the processes counted from outside (cputop_scan.c).
 */
static bool
scan_instead(const struct cputrack *ct)
{
	return ct->opt.top_machine;
}

/* The processes still counted run on, as they ran: only closed. */
static void
scan_let_go(struct cputrack *ct)
{
	scan_free(ct->engine_state);
	ct->engine_state = NULL;
}

static const struct engine_ops scan_ops = {
	.open = scan_open,
	.track = scan_track,
	.let_go = scan_let_go,
};

/*
 * Its row of the engines' table (engines.def): cputop's own, with no
 * target, standing in where the others refuse the whole machine.
 */
const struct engine scan_engine = { .name = "scan",
	.says = "scan",
	.phase = "scan engine",
	.ops = &scan_ops,
	.stands_in = true,
	.instead = scan_instead };
