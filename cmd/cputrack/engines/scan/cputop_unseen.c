/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sentinels of cputop's processes counted from outside (see
 * cputop_unseen.h). A sentinel is a dummy software event on the thread
 * (the ring's owner), and each set's counters, in perf groups as the
 * scan's own are, inherited, each writing its records into the dummy's
 * ring. Only the
 * set counting now is enabled, as on the scan's own counters; the kernel
 * enables and disables the inherited copies with their original.
 *
 * A task's records (one per counter, each with the original counter's id)
 * come together at its exit, though another task's may come between: a
 * read gathers them per task and set before it hands them on. The kernel
 * writes them one at a time, and a ring half full wakes its reader while
 * the task that filled it is still writing the rest: a read may see a
 * task's first records only. A task is handed on once every counter of
 * its set has said it; its part kept until then, or until no more can
 * come (records lost).
 *
 * The ring is a task's, but the tasks that inherited the sentinel write
 * into it from every CPU at once (perf's own tools never let inherited
 * counters share a task's ring: an inherited counter may not be mapped).
 * The kernel's ring code expects one CPU at a time, and on x86 its
 * counters of nested writers are not atomic across CPUs: two tasks that
 * end together can leave the ring never publishing its head again, its
 * records written whole past the head the reader sees. A read therefore
 * also looks past the head, and takes what an earlier read, at least
 * UNSEEN_PAST_WAIT_NS before, saw there (written whole by then). The
 * ring's pages are the kernel's to write alone: a copy of what was read
 * at each place tells a lap's old records from new ones. Two such tasks
 * may also be given the same place: one task's records are then lost in
 * part, said as lost, never counted as 0.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cputop_unseen.h"

/*
 * On a context switch between two tasks whose perf contexts are clones
 * (a parent and the child it forked, counted alike), the kernel swaps the
 * contexts rather than the counters, and swaps the counts of inherit_stat
 * counters back, pairing the two contexts' counters by their place in
 * each list. A context that holds another tool's counters (perf stat's
 * on a command it started) may list them in another order than its
 * clones do: a sentinel's count and the other tool's were swapped, and
 * perf stat printed cputop's task-clock as its count of writes. A
 * counter inherited with PERF_SAMPLE_READ keeps the kernel from that
 * swap in every context it is in (Linux 6.12 and later; earlier ones
 * refuse it, and unseen_possible says no).
 */
#define UNSHARED (PERF_SAMPLE_READ | PERF_SAMPLE_TID)

/*
 * The ring's data pages, a power of two: the most it takes, and the
 * fewest, where the user's locked memory is short. Its reader is woken
 * at each page written.
 */
#define RING_PAGES_MOST	  4
#define RING_PAGES_FEWEST 2
#define RECORD_MAX	  256

/* PERF_RECORD_READ as read_format ID|TOTAL_TIME_ENABLED|_RUNNING has it. */
struct read_record {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t value, enabled_ns, running_ns, id;
};

struct lost_record {
	struct perf_event_header header;
	uint64_t id, lost;
};

/* A task's counts in a set, gathered from its records. */
struct gathered {
	struct unseen_task task;
	uint64_t *values;
	struct set_times *times;
	int nrecords;
	hrtime_t since; /* when a read first found it in part; 0: not yet */
};

/* Records past the published head: where they ended, when first seen. */
struct sighting {
	uint64_t end;
	hrtime_t seen; /* 0: none */
};

struct unseen {
	const struct engine_counters *sets;
	int nsets, ncounters;
	int ring_fd;
	int *fds;      /* each set's counters, in order */
	uint64_t *ids; /* ...and their ids */
	struct perf_event_mmap_page *meta;
	size_t map_len;
	uint64_t taken; /* where the reader has read to */
	char *was_read; /* the ring's data as it was read, place by place */
	struct sighting past[2]; /* records past the head: older, newer */
	bool busy;		 /* the last read found records */
	struct gathered *got;	 /* a read's tasks */
	int ngot, got_room;
};

static long
perf_open(struct perf_event_attr *attr, pid_t tid, int group)
{
	return syscall(
	    SYS_perf_event_open, attr, tid, -1, group, PERF_FLAG_FD_CLOEXEC);
}

bool
unseen_possible(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.disabled = 1,
		.exclude_kernel = 1,
		.inherit = 1,
		.inherit_stat = 1,
		.sample_type = UNSHARED,
	};
	long fd = perf_open(&attr, 0, -1);

	if (fd < 0)
		return errno != EINVAL;
	close((int)fd);
	return true;
}

int
unseen_nfds(const struct engine_counters *sets, int nsets)
{
	int s, n = 1;

	for (s = 0; s < nsets; s++)
		n += sets[s].nattrs;
	return n;
}

/* The ring: a dummy event on tid, mapped. 0, or an errno. */
static int
open_ring(struct unseen *u, pid_t tid)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1,
		.watermark = 1,
	};
	long page = sysconf(_SC_PAGESIZE), pages = RING_PAGES_MOST;
	void *map;

	attr.wakeup_watermark = (uint32_t)page;
	if ((u->ring_fd = (int)perf_open(&attr, tid, -1)) < 0)
		return errno;
	for (;;) {
		u->map_len = (size_t)((1 + pages) * page);
		map = mmap(NULL, u->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		    u->ring_fd, 0);
		if (map != MAP_FAILED)
			break;
		if (errno != EPERM && errno != ENOMEM)
			return errno;
		if ((pages /= 2) < RING_PAGES_FEWEST)
			return ENOBUFS;
	}
	u->meta = map;
	if ((u->was_read = calloc(1, (size_t)u->meta->data_size)) == NULL)
		return ENOMEM;
	return 0;
}

/* Set s's counters on tid, inherited, writing into the ring. */
static int
open_set(struct unseen *u, int s, int first, int current, pid_t tid)
{
	const struct engine_counters *set = &u->sets[s];
	struct perf_event_attr attr;
	int k, leader, *fd = u->fds + first;

	for (k = 0; k < set->nattrs; k++) {
		leader = engine_counters_leader(set, k);
		attr = set->attrs[k];
		attr.read_format = PERF_FORMAT_ID |
		    PERF_FORMAT_TOTAL_TIME_ENABLED |
		    PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr.inherit = 1;
		attr.inherit_stat = 1;
		attr.sample_type |= UNSHARED;
		attr.disabled = k == leader && s != current;
		if ((fd[k] = (int)perf_open(
			 &attr, tid, k != leader ? fd[leader] : -1)) < 0 ||
		    ioctl(fd[k], PERF_EVENT_IOC_SET_OUTPUT, u->ring_fd) != 0 ||
		    ioctl(fd[k], PERF_EVENT_IOC_ID, &u->ids[first + k]) != 0)
			return errno;
	}
	return 0;
}

struct unseen *
unseen_open(const struct engine_counters *sets, int nsets, int current,
    pid_t tid, int *err)
{
	struct unseen *u = calloc(1, sizeof(*u));
	int s, first = 0, i;

	if (u == NULL) {
		*err = ENOMEM;
		return NULL;
	}
	u->sets = sets;
	u->nsets = nsets;
	u->ncounters = unseen_nfds(sets, nsets) - 1;
	u->ring_fd = -1;
	u->fds = malloc((size_t)u->ncounters * sizeof(*u->fds));
	u->ids = calloc((size_t)u->ncounters, sizeof(*u->ids));
	if (u->fds == NULL || u->ids == NULL) {
		*err = ENOMEM;
		unseen_close(u);
		return NULL;
	}
	for (i = 0; i < u->ncounters; i++)
		u->fds[i] = -1;
	*err = open_ring(u, tid);
	for (s = 0; s < nsets && *err == 0; s++) {
		*err = open_set(u, s, first, current, tid);
		first += sets[s].nattrs;
	}
	if (*err == 0)
		return u;
	unseen_close(u);
	return NULL;
}

void
unseen_close(struct unseen *u)
{
	int i;

	if (u == NULL)
		return;
	for (i = u->ncounters - 1; u->fds != NULL && i >= 0; i--)
		if (u->fds[i] >= 0)
			close(u->fds[i]);
	if (u->meta != NULL)
		munmap(u->meta, u->map_len);
	if (u->ring_fd >= 0)
		close(u->ring_fd);
	for (i = 0; i < u->ngot; i++) {
		free(u->got[i].values);
		free(u->got[i].times);
	}
	free(u->got);
	free(u->was_read);
	free(u->fds);
	free(u->ids);
	free(u);
}

int
unseen_fd(const struct unseen *u)
{
	return u->ring_fd;
}

/* The first counter of set s, in fds. */
static int
first_of(const struct unseen *u, int s)
{
	int i, first = 0;

	for (i = 0; i < s; i++)
		first += u->sets[i].nattrs;
	return first;
}

/* Set s's leaders, each with its group, enabled or disabled (request). */
static void
set_ioctl(const struct unseen *u, int s, unsigned long request)
{
	const struct engine_counters *set = &u->sets[s];
	int k, first = first_of(u, s);

	for (k = 0; k < set->nattrs; k++)
		if (engine_counters_leader(set, k) == k)
			(void)ioctl(
			    u->fds[first + k], request, PERF_IOC_FLAG_GROUP);
}

void
unseen_hand_over(struct unseen *u, int current, int next)
{
	set_ioctl(u, current, PERF_EVENT_IOC_DISABLE);
	set_ioctl(u, next, PERF_EVENT_IOC_ENABLE);
}

/* The set and counter of an id: false for none of this sentinel's. */
static bool
counter_of(const struct unseen *u, uint64_t id, int *set, int *k)
{
	int i, s = 0, first = 0;

	for (i = 0; i < u->ncounters; i++) {
		while (i >= first + u->sets[s].nattrs)
			first += u->sets[s++].nattrs;
		if (u->ids[i] == id) {
			*set = s;
			*k = i - first;
			return true;
		}
	}
	return false;
}

/* The gathered counts of tid in set s, made empty when new; or NULL. */
static struct gathered *
gathered_of(struct unseen *u, const struct read_record *r, int s)
{
	struct gathered *g, *grown;
	int i, n = u->sets[s].nattrs;

	for (i = u->ngot - 1; i >= 0; i--)
		if (u->got[i].task.tid == (pid_t)r->tid &&
		    u->got[i].task.set == s)
			return &u->got[i];
	if (u->ngot == u->got_room) {
		grown = reallocarray(
		    u->got, (size_t)u->got_room * 2 + 8, sizeof(*grown));
		if (grown == NULL)
			return NULL;
		u->got = grown;
		u->got_room = u->got_room * 2 + 8;
	}
	g = &u->got[u->ngot];
	g->values = calloc((size_t)n, sizeof(uint64_t));
	g->times = calloc(
	    (size_t)engine_counters_ngroups(&u->sets[s]), sizeof(*g->times));
	if (g->values == NULL || g->times == NULL) {
		free(g->values);
		free(g->times);
		return NULL;
	}
	u->ngot++;
	g->nrecords = 0;
	g->since = 0;
	g->task = (struct unseen_task) { .pid = (pid_t)r->pid,
		.tid = (pid_t)r->tid,
		.set = s,
		.values = g->values,
		.times = g->times };
	return g;
}

/* A counter's record of a task that ended: into its task's counts. */
static void
gather(struct unseen *u, const struct read_record *r)
{
	struct gathered *g;
	struct set_times *t;
	int s, k;

	if (!counter_of(u, r->id, &s, &k) || (g = gathered_of(u, r, s)) == NULL)
		return;
	g->values[k] = r->value;
	g->nrecords++;
	/*
	 * A group's counters run together: its leader's times are its, and
	 * a member's stand in until the leader's come.
	 */
	t = &g->times[engine_counters_group(&u->sets[s], k)];
	if (engine_counters_leader(&u->sets[s], k) == k ||
	    (t->enabled_ns == 0 && t->running_ns == 0))
		*t = (struct set_times) { r->enabled_ns, r->running_ns };
}

/* The record at offset at of the ring's data, copied whole into rec. */
static void
copy_record(const struct unseen *u, uint64_t at, char *rec, size_t len)
{
	const char *data = (const char *)u->meta + u->meta->data_offset;
	uint64_t size = u->meta->data_size;
	size_t off = (size_t)(at % size), first = size - off;

	if (first > len)
		first = len;
	memcpy(rec, data + off, first);
	memcpy(rec + first, data, len - first);
}

/* The ring's bytes from..to, read: kept as they were, place by place. */
static void
keep_read(const struct unseen *u, uint64_t from, uint64_t to)
{
	const char *data = (const char *)u->meta + u->meta->data_offset;
	uint64_t size = u->meta->data_size;
	size_t off, len;

	while (from < to) {
		off = (size_t)(from % size);
		len = (size_t)(to - from < size - off ? to - from : size - off);
		memcpy(u->was_read + off, data + off, len);
		from += len;
	}
}

/* Whether the record of len bytes at at is what was read there a lap ago. */
static bool
read_before(const struct unseen *u, uint64_t at, const char *rec, size_t len)
{
	uint64_t size = u->meta->data_size;
	size_t off = (size_t)(at % size), first = size - off;

	if (first > len)
		first = len;
	return memcmp(u->was_read + off, rec, first) == 0 &&
	    memcmp(u->was_read, rec + first, len - first) == 0;
}

/* Whether the record at at is one the sentinel's counters write. */
static bool
ours(const struct unseen *u, uint64_t at, uint64_t *size)
{
	struct perf_event_header h;
	struct read_record r;
	int s, k;

	copy_record(u, at, (char *)&h, sizeof(h));
	*size = h.size;
	if (h.type == PERF_RECORD_LOST)
		return h.size == sizeof(struct lost_record);
	if (h.type != PERF_RECORD_READ || h.size != sizeof(r))
		return false;
	copy_record(u, at, (char *)&r, sizeof(r));
	return r.tid != 0 && counter_of(u, r.id, &s, &k) &&
	    !read_before(u, at, (const char *)&r, sizeof(r));
}

/*
 * Where the whole records past the published head end: from, where none
 * are. Never more than a ring's length past what was read.
 */
static uint64_t
past_head_end(const struct unseen *u, uint64_t from)
{
	uint64_t at = from, size;

	while (
	    at - u->taken + sizeof(struct read_record) <= u->meta->data_size &&
	    ours(u, at, &size))
		at += size;
	return at;
}

/* The records from..to, gathered; the records lost. */
static unsigned long
gather_records(struct unseen *u, uint64_t from, uint64_t to)
{
	struct perf_event_header h;
	unsigned long lost = 0;
	uint64_t rec[RECORD_MAX / sizeof(uint64_t)];

	while (from < to) {
		copy_record(u, from, (char *)&h, sizeof(h));
		if (h.size < sizeof(h))
			break; /* not a record: the ring is not what we wrote */
		if (h.size <= sizeof(rec)) {
			copy_record(u, from, (char *)rec, h.size);
			if (h.type == PERF_RECORD_READ &&
			    h.size >= sizeof(struct read_record))
				gather(u, (const struct read_record *)rec);
			else if (h.type == PERF_RECORD_LOST &&
			    h.size >= sizeof(struct lost_record))
				lost += ((const struct lost_record *)rec)->lost;
		}
		from += h.size;
	}
	return lost;
}

/* The end of the records past the head seen long enough ago, or to. */
static uint64_t
ripe_end(const struct unseen *u, uint64_t to, uint64_t end, hrtime_t now)
{
	int i;

	for (i = 1; i >= 0; i--)
		if (u->past[i].seen != 0 &&
		    now - u->past[i].seen >= UNSEEN_PAST_WAIT_NS &&
		    u->past[i].end > to && u->past[i].end <= end)
			return u->past[i].end;
	return to;
}

/*
 * The sightings, once the reader has read to: those read let go, and what
 * this read saw past the head (to end) kept as the newer.
 */
static void
note_sighting(struct unseen *u, uint64_t to, uint64_t end, hrtime_t now)
{
	int i;

	for (i = 0; i < 2; i++)
		if (u->past[i].end <= to)
			u->past[i] = (struct sighting) { 0, 0 };
	if (u->past[0].seen == 0) {
		u->past[0] = u->past[1];
		u->past[1] = (struct sighting) { 0, 0 };
	}
	if (end <= to || end == u->past[u->past[1].seen != 0].end)
		return;
	u->past[u->past[0].seen != 0] = (struct sighting) { end, now };
}

/*
 * The ring's records, gathered: those the head publishes, and those past
 * it that a read UNSEEN_PAST_WAIT_NS or more before this one (now) saw
 * there already; the records lost.
 */
static unsigned long
read_ring(struct unseen *u, hrtime_t now)
{
	uint64_t head = __atomic_load_n(&u->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t from = u->taken, to, end, ripe;
	unsigned long lost;

	to = head > from ? head : from;
	lost = gather_records(u, from, to);
	end = past_head_end(u, to);
	if ((ripe = ripe_end(u, to, end, now)) > to) {
		lost += gather_records(u, to, ripe);
		to = ripe;
	}
	note_sighting(u, to, end, now);
	keep_read(u, from, to);
	u->busy = end > from;
	u->taken = to;
	__atomic_store_n(&u->meta->data_tail, to, __ATOMIC_RELEASE);
	return lost;
}

/* Whether a task's counts are whole. */
static bool
whole(const struct unseen *u, const struct gathered *g)
{
	return g->nrecords >= u->sets[g->task.set].nattrs;
}

/* Whether a task's part has waited for the rest as long as it may. */
static bool
waited(struct gathered *g, hrtime_t now)
{
	if (g->since == 0)
		g->since = now;
	return now - g->since >= UNSEEN_PART_WAIT_NS;
}

unsigned long
unseen_read(struct unseen *u, hrtime_t now,
    void (*fn)(void *arg, const struct unseen_task *t), void *arg)
{
	unsigned long lost = read_ring(u, now);
	int i, kept = 0;

	for (i = 0; i < u->ngot; i++) {
		struct gathered *g = &u->got[i];

		if (!whole(u, g) && !waited(g, now)) {
			u->got[kept++] = *g;
			continue;
		}
		g->task.missing = u->sets[g->task.set].nattrs - g->nrecords;
		fn(arg, &g->task);
		free(u->got[i].values);
		free(u->got[i].times);
	}
	u->ngot = kept;
	return lost;
}

void
unseen_drop_parts(struct unseen *u,
    void (*fn)(void *arg, const struct unseen_task *t), void *arg)
{
	int i;

	for (i = 0; i < u->ngot; i++) {
		u->got[i].task.missing =
		    u->sets[u->got[i].task.set].nattrs - u->got[i].nrecords;
		fn(arg, &u->got[i].task);
		free(u->got[i].values);
		free(u->got[i].times);
	}
	u->ngot = 0;
}

bool
unseen_pending(const struct unseen *u)
{
	return u->past[0].seen != 0;
}

bool
unseen_busy(const struct unseen *u)
{
	return u->busy || unseen_pending(u);
}
