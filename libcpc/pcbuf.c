/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Buffered overflow (CPC_OVF_BUFFERED): the in-kernel buffering that
 * seed 004 proposed, on a perf ring buffer. Each overflow of a buffered
 * request writes a PERF_RECORD_SAMPLE into the set's ring (one ring per
 * set: later buffered requests are redirected into the first one's). The
 * kernel wakes a poller every CPC_PCBUF_SIZE records; for sets that asked
 * for CPC_OVF_NOTIFY_EMT a libcpc watcher thread waits for that wakeup and
 * queues SIGEMT (si_code EMT_CPCOVF) to the thread that bound the set.
 * Records the ring had no room for are counted by the kernel
 * (PERF_RECORD_LOST) and reported, never dropped silently.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpc_impl.h"

#define DEFAULT_PAGES	    16	  /* 64 KiB: >= 2 * CPC_PCBUF_SIZE PCs */
#define DEFAULT_STACK_PAGES 256	  /* records with call stacks */
#define RECORD_MAX	    65536 /* header.size is 16 bits */

#define PLAIN_SAMPLE_TYPE                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR)

struct cpc_ring {
	int fd; /* the event that owns the mapping */
	struct perf_event_mmap_page *meta;
	size_t map_len;
	unsigned char *data;
	size_t data_size;	    /* a power of two */
	pid_t notify_tid;	    /* gets SIGEMT, or 0 */
	_Atomic uint64_t consumed;  /* samples the reader took */
	_Atomic uint64_t acked;	    /* signals the reader has answered */
	_Atomic uint64_t signalled; /* signals sent (the watcher's count) */
	uint64_t lost_seen;	    /* losses already reported */
	unsigned char record[RECORD_MAX];
	struct cpc_ring *next_watched;
};

static pthread_once_t phys_once = PTHREAD_ONCE_INIT;
static bool phys_allowed;

/* The kernel gives physical addresses to privileged callers only. */
static void
probe_phys(void)
{
	struct perf_event_attr attr;
	int fd;

	cpclib_dummy_attr(&attr);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_PHYS_ADDR;
	if ((fd = cpclib_perf_open(&attr, 0, -1, -1)) >= 0) {
		phys_allowed = true;
		close(fd);
	}
}

/* What every record of a buffered request carries, and when it wakes. */
void
cpclib_ring_attr(const struct cpc_request *req, struct perf_event_attr *attr)
{
	pthread_once(&phys_once, probe_phys);
	attr->sample_type = PLAIN_SAMPLE_TYPE;
	if (phys_allowed)
		attr->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	if (req->flags & CPC_OVF_CALLSTACK) {
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr->exclude_callchain_kernel = 1;
		attr->sample_max_stack = CPC_OVF_MAX_STACK;
	}
	attr->wakeup_events = CPC_PCBUF_SIZE;
}

/*
 * Open a buffered hardware event as precisely as the PMU allows, so that
 * its records carry the PC of the instruction that caused the event.
 */
int
cpclib_ring_perf_open(struct cpc_request *req, struct perf_event_attr *attr,
    pid_t pid, int cpu, int group_fd)
{
	int fd, precise;

	req->precise_ip = 0;
	if (!(req->flags & CPC_OVF_BUFFERED) || !req->enc.hardware ||
	    attr->sample_period == 0)
		return cpclib_perf_open(attr, pid, cpu, group_fd);
	for (precise = 2; precise > 0; precise--) {
		attr->precise_ip = (unsigned)precise;
		if ((fd = cpclib_perf_open(attr, pid, cpu, group_fd)) >= 0) {
			req->precise_ip = precise;
			return fd;
		}
	}
	attr->precise_ip = 0;
	return cpclib_perf_open(attr, pid, cpu, group_fd);
}

/* Copy len bytes at offset off of the ring, which may wrap. */
static void
ring_copy(const struct cpc_ring *ring, uint64_t off, void *dst, size_t len)
{
	size_t at = (size_t)(off & (ring->data_size - 1));
	size_t first = ring->data_size - at;

	if (first >= len) {
		memcpy(dst, ring->data + at, len);
	} else {
		memcpy(dst, ring->data + at, first);
		memcpy((unsigned char *)dst + first, ring->data, len - first);
	}
}

/*
 * The watcher: one thread per process, started with the first ring that
 * notifies. It holds every signal blocked, so the program's signals go
 * to the program's threads.
 */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cpc_ring *watched;
static int watch_fd = -1;
static int poke_fd = -1; /* eventfd: a reader took records */

/*
 * The watcher cannot queue SIGEMT with si_code EMT_CPCOVF to another
 * thread (the kernel lets a thread forge a positive si_code only to
 * itself), so it queues a SIGTRAP that carries this address instead, and
 * the thread's own handler (overflow.c) turns it into SIGEMT.
 */
const char cpclib_emt_carrier = 'E';

/* Have the bound thread send itself SIGEMT. */
static void
notify(const struct cpc_ring *ring)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	info.si_signo = SIGTRAP;
	info.si_code = SI_QUEUE;
	info.si_pid = getpid();
	info.si_uid = getuid();
	info.si_value.sival_ptr = (void *)&cpclib_emt_carrier;
	(void)syscall(
	    SYS_rt_tgsigqueueinfo, getpid(), ring->notify_tid, SIGTRAP, &info);
}

/*
 * Sample records waiting in the ring. The kernel also wakes pollers
 * when the ring is half full, so a wakeup alone does not mean that
 * CPC_PCBUF_SIZE records wait: count them. Only headers are read, up to
 * the head the kernel published; a size that makes no sense ends the
 * count (the reader may be consuming at the same moment).
 */
static uint64_t
waiting_samples(const struct cpc_ring *ring)
{
	struct perf_event_header hdr;
	uint64_t head, tail, n = 0;

	head = __atomic_load_n(&ring->meta->data_head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&ring->meta->data_tail, __ATOMIC_ACQUIRE);
	while (tail < head && head - tail <= ring->data_size) {
		ring_copy(ring, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			break;
		if (hdr.type == PERF_RECORD_SAMPLE)
			n++;
		tail += hdr.size;
	}
	return n;
}

/*
 * One SIGEMT per CPC_PCBUF_SIZE samples recorded, each sent once the
 * reader has answered the one before: pending signals merge, and the
 * kernel's wakeups merge too, so neither is counted on.
 */
static void
maybe_notify(struct cpc_ring *ring)
{
	uint64_t produced;

	if (atomic_load(&ring->acked) < ring->signalled)
		return;
	produced = atomic_load(&ring->consumed) + waiting_samples(ring);
	if (produced >= (ring->signalled + 1) * CPC_PCBUF_SIZE) {
		ring->signalled++;
		notify(ring);
	}
}

static void *
watch_loop(void *arg)
{
	struct epoll_event ev[16];
	struct cpc_ring *ring;
	uint64_t pokes;

	(void)arg;
	for (;;) {
		if (epoll_wait(watch_fd, ev, 16, -1) < 0)
			continue; /* EINTR: nothing else can fail */
		if (read(poke_fd, &pokes, sizeof(pokes)) < 0)
			pokes = 0; /* EAGAIN: not poked this time */
		pthread_mutex_lock(&watch_lock);
		for (ring = watched; ring != NULL; ring = ring->next_watched)
			maybe_notify(ring);
		pthread_mutex_unlock(&watch_lock);
	}
	return NULL;
}

/* The reader took records: the watcher may owe the next signal. */
static void
poke_watcher(struct cpc_ring *ring)
{
	uint64_t one = 1;

	if (ring->notify_tid == 0)
		return;
	atomic_store(&ring->acked, ring->signalled);
	/* Only a full eventfd counter fails, and that still wakes it. */
	if (write(poke_fd, &one, sizeof(one)) == -1)
		return;
}

/* Called with watch_lock held. */
static int
start_watcher(void)
{
	struct epoll_event ev;
	sigset_t all, old;
	pthread_t t;
	int rc;

	if (watch_fd >= 0)
		return 0;
	if ((watch_fd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return -1;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	if ((poke_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    epoll_ctl(watch_fd, EPOLL_CTL_ADD, poke_fd, &ev) != 0) {
		if (poke_fd >= 0)
			close(poke_fd);
		close(watch_fd);
		watch_fd = poke_fd = -1;
		return -1;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, NULL, watch_loop, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(watch_fd);
		close(poke_fd);
		watch_fd = poke_fd = -1;
		errno = rc;
		return -1;
	}
	pthread_detach(t);
	return 0;
}

static int
watch(struct cpc_ring *ring)
{
	struct epoll_event ev;
	int rc = -1;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = ring;
	pthread_mutex_lock(&watch_lock);
	if (start_watcher() == 0 &&
	    epoll_ctl(watch_fd, EPOLL_CTL_ADD, ring->fd, &ev) == 0) {
		ring->next_watched = watched;
		watched = ring;
		rc = 0;
	}
	pthread_mutex_unlock(&watch_lock);
	return rc;
}

static void
unwatch(struct cpc_ring *ring)
{
	struct cpc_ring **rp;

	pthread_mutex_lock(&watch_lock);
	for (rp = &watched; *rp != NULL; rp = &(*rp)->next_watched) {
		if (*rp == ring) {
			*rp = ring->next_watched;
			(void)epoll_ctl(
			    watch_fd, EPOLL_CTL_DEL, ring->fd, NULL);
			break;
		}
	}
	pthread_mutex_unlock(&watch_lock);
}

static bool
power_of_two(size_t n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

int
cpc_set_ring_pages(cpc_t *cpc, cpc_set_t *set, size_t pages)
{
	if (set == NULL || set->cpc != cpc || set->bound != CPC_UNBOUND ||
	    !power_of_two(pages) || pages > 65536) {
		errno = EINVAL;
		return -1;
	}
	set->ring_pages = pages;
	return 0;
}

static size_t
ring_pages(const cpc_set_t *set)
{
	int i;

	if (set->ring_pages != 0)
		return set->ring_pages;
	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].flags & CPC_OVF_CALLSTACK)
			return DEFAULT_STACK_PAGES;
	return DEFAULT_PAGES;
}

static bool
buffered(const struct cpc_request *req)
{
	return (req->flags & CPC_OVF_BUFFERED) && req->period != 0;
}

/*
 * Touch every page of the mapping now: the kernel may map them at first
 * touch, and that page fault would count in a page-fault set's records.
 */
static void
prefault(const struct cpc_ring *ring)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile const unsigned char *p;
	size_t off;

	p = (volatile const unsigned char *)ring->meta;
	for (off = 0; off < ring->map_len; off += (size_t)page)
		(void)p[off];
	/* The control page is written too: a first write faults again. */
	__atomic_store_n(&ring->meta->data_tail, 0, __ATOMIC_RELEASE);
}

/* Map the ring on the first buffered request, send the others there. */
static int
map_ring(cpc_set_t *set, struct cpc_ring *ring)
{
	long page = sysconf(_SC_PAGESIZE);
	bool notifies = false;
	int i, fd;

	for (i = 0; i < set->nreqs; i++) {
		fd = set->fds[set->reqs[i].first_event];
		if (!buffered(&set->reqs[i]))
			continue;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &set->reqs[i].id) != 0)
			return -1;
		if (set->reqs[i].flags & CPC_OVF_NOTIFY_EMT)
			notifies = true;
		if (ring->fd < 0) {
			ring->fd = fd;
			ring->data_size = ring_pages(set) * (size_t)page;
			ring->map_len = ring->data_size + (size_t)page;
			ring->meta = mmap(NULL, ring->map_len,
			    PROT_READ | PROT_WRITE, MAP_SHARED, ring->fd, 0);
			if (ring->meta == MAP_FAILED) {
				ring->meta = NULL;
				return -1;
			}
			ring->data = (unsigned char *)ring->meta + page;
			prefault(ring);
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) !=
		    0) {
			return -1;
		}
	}
	ring->notify_tid = notifies ? gettid() : 0;
	return 0;
}

int
cpclib_ring_open(cpc_set_t *set)
{
	struct cpc_ring *ring;
	int saved;

	/*
	 * Touched now (calloc may hand out untouched pages): a first use of
	 * the record scratch while draining would itself be a page fault.
	 */
	if ((ring = malloc(sizeof(*ring))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memset(ring, 0, sizeof(*ring));
	ring->fd = -1;
	set->ring = ring;
	if (map_ring(set, ring) != 0 ||
	    (ring->notify_tid != 0 && watch(ring) != 0)) {
		saved = errno;
		cpclib_ring_close(set);
		errno = saved;
		return -1;
	}
	return 0;
}

void
cpclib_ring_close(cpc_set_t *set)
{
	struct cpc_ring *ring = set->ring;

	if (ring == NULL)
		return;
	if (ring->notify_tid != 0)
		unwatch(ring);
	if (ring->meta != NULL)
		munmap(ring->meta, ring->map_len);
	free(ring);
	set->ring = NULL;
}

static int
request_of(const cpc_set_t *set, uint64_t id)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		if (buffered(&set->reqs[i]) && set->reqs[i].id == id)
			return i;
	return -1;
}

/* Take the next u64 of a record, if the record is long enough. */
static bool
take(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	if ((size_t)(end - *p) < sizeof(*v))
		return false;
	memcpy(v, *p, sizeof(*v));
	*p += sizeof(*v);
	return true;
}

static void
decode_stack(
    const unsigned char **p, const unsigned char *end, cpc_ovf_record_t *rec)
{
	uint64_t nr, ip, i;

	if (!take(p, end, &nr))
		return;
	rec->cr_valid |= CPC_REC_STACK;
	for (i = 0; i < nr && take(p, end, &ip); i++) {
		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			continue; /* a context marker, not a frame */
		if (rec->cr_nstack < CPC_OVF_MAX_STACK)
			rec->cr_stack[rec->cr_nstack++] = ip;
	}
}

/* Decode a PERF_RECORD_SAMPLE in the order the kernel writes fields. */
static int
decode_sample(const cpc_set_t *set, const unsigned char *p,
    const unsigned char *end, cpc_ovf_record_t *rec)
{
	const struct cpc_request *req;
	uint64_t v, id;

	memset(rec, 0, offsetof(cpc_ovf_record_t, cr_stack));
	if (!take(&p, end, &id) || (rec->cr_index = request_of(set, id)) < 0)
		return -1;
	req = &set->reqs[rec->cr_index];
	if (take(&p, end, &v)) {
		rec->cr_pc = v;
		rec->cr_valid |= CPC_REC_PC;
		if (req->precise_ip > 0) {
			rec->cr_precise_pc = v;
			rec->cr_valid |= CPC_REC_PRECISE_PC;
		}
	}
	if (take(&p, end, &v)) {
		rec->cr_pid = (pid_t)(uint32_t)v;
		rec->cr_tid = (pid_t)(uint32_t)(v >> 32);
		rec->cr_valid |= CPC_REC_TID;
	}
	if (take(&p, end, &v)) {
		rec->cr_time = (hrtime_t)v;
		rec->cr_valid |= CPC_REC_TIME;
	}
	if (take(&p, end, &v) && v != 0) {
		rec->cr_vaddr = v;
		rec->cr_valid |= CPC_REC_VADDR;
	}
	if (req->sample_type & PERF_SAMPLE_CALLCHAIN)
		decode_stack(&p, end, rec);
	if ((req->sample_type & PERF_SAMPLE_PHYS_ADDR) && take(&p, end, &v) &&
	    v != 0) {
		rec->cr_paddr = v;
		rec->cr_valid |= CPC_REC_PADDR;
	}
	return 0;
}

/*
 * Consume up to max samples from the ring into recs (or only count them
 * when recs is NULL and pcs gets the PCs).
 */
static int
drain(cpc_set_t *set, cpc_ovf_record_t *recs, uint64_t *pcs, int max)
{
	struct cpc_ring *ring = set->ring;
	struct perf_event_header hdr;
	cpc_ovf_record_t one;
	uint64_t head, tail;
	int n = 0;

	head = __atomic_load_n(&ring->meta->data_head, __ATOMIC_ACQUIRE);
	tail = ring->meta->data_tail;
	while (tail < head && n < max) {
		ring_copy(ring, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			break; /* cannot happen; never spin on it */
		ring_copy(ring, tail + sizeof(hdr), ring->record,
		    hdr.size - sizeof(hdr));
		/* PERF_RECORD_LOST comes late; losses are read instead. */
		if (hdr.type == PERF_RECORD_SAMPLE &&
		    decode_sample(set, ring->record,
			ring->record + hdr.size - sizeof(hdr),
			recs != NULL ? &recs[n] : &one) == 0) {
			if (pcs != NULL)
				pcs[n] = one.cr_pc;
			n++;
		}
		tail += hdr.size;
	}
	__atomic_store_n(&ring->meta->data_tail, tail, __ATOMIC_RELEASE);
	atomic_fetch_add(&ring->consumed, (uint64_t)n);
	poke_watcher(ring);
	return n;
}

/* Records lost since the last call, from the kernel's own count. */
static int
new_losses(cpc_set_t *set, uint64_t *lost)
{
	uint64_t total = 0;
	int i;

	if (cpclib_set_read(set) != 0)
		return -1;
	for (i = 0; i < set->nreqs; i++)
		total += cpclib_read_lost(set, i);
	*lost = total - set->ring->lost_seen;
	set->ring->lost_seen = total;
	return 0;
}

static int
check_buffered(cpc_t *cpc, cpc_set_t *set)
{
	if (set == NULL || set->cpc != cpc || set->bound == CPC_UNBOUND ||
	    set->ring == NULL) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/*
 * The proposal's call: copy out and consume up to CPC_PCBUF_SIZE PCs, in
 * the order they were recorded, and sample the counters into buf (which
 * may be NULL). Returns how many PCs were copied. Records lost since the
 * last call are reported through the error handler.
 */
int
cpc_set_sample_pcbuf(
    cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf, uint64_t *pcbuf)
{
	uint64_t lost;
	int n;

	if (check_buffered(cpc, set) != 0 || pcbuf == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (buf != NULL && cpc_set_sample(cpc, set, buf) != 0)
		return -1;
	n = drain(set, NULL, pcbuf, CPC_PCBUF_SIZE);
	if (new_losses(set, &lost) != 0)
		return -1;
	if (lost != 0) {
		cpclib_err(cpc, "cpc_set_sample_pcbuf", CPC_OVF_RECORDS_LOST,
		    "%llu overflow records lost: the ring filled before it "
		    "was read (see cpc_set_ring_pages)\n",
		    (unsigned long long)lost);
	}
	return n;
}

/*
 * The extension: copy out and consume up to nrecs whole records; *lost
 * (if not NULL) gets the number of records lost since the last call.
 */
int
cpc_set_sample_records(cpc_t *cpc, cpc_set_t *set, cpc_ovf_record_t *recs,
    int nrecs, uint64_t *lost)
{
	int n;

	if (check_buffered(cpc, set) != 0 || recs == NULL || nrecs < 0) {
		errno = EINVAL;
		return -1;
	}
	n = drain(set, recs, NULL, nrecs);
	if (lost != NULL && new_losses(set, lost) != 0)
		return -1;
	return n;
}
