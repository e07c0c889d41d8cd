/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_iouring [-s] [-w] [-g] [-h] [-t NTHREADS] PAGES
 *
 * Makes the kernel run work in io_uring's own threads of this process,
 * with no library but the raw system calls. Each of NTHREADS threads
 * (default 1) sets up its own ring and reads PAGES pages of /dev/zero into
 * a fresh, never touched anonymous mapping, with one IORING_OP_READ:
 *
 *  - by default with IOSQE_ASYNC, so that an io-wq worker (iou-wrk-TID)
 *    of that thread does the read; the ring allows the thread one worker,
 *    which stays until the thread ends;
 *  - with -s on an IORING_SETUP_SQPOLL ring, whose poller (iou-sqp-TID),
 *    there from the ring's setup on, issues the read.
 *
 * Whichever thread copies the zeros takes exactly one kernel-mode page
 * fault per page (exceptions:page_fault_kernel, or page-faults counted in
 * system mode), and the read completes once there (io_uring:
 * io_uring_complete) for an io-wq worker: PAGES faults for each io_uring
 * thread, none for the submitter.
 *
 * -w  each thread first reads one page the same way, so that its io_uring
 *     thread exists (and has taken that one fault) before the gate;
 * -g  the main thread prints "ready\n" once every ring is set up (and
 *     warmed up), then reads stdin up to a newline or end of file (the
 *     gate); only then are the PAGES reads made;
 * -h  once every PAGES read is done, the main thread prints "done\n" and
 *     reads stdin again up to a newline or end of file before the threads
 *     end (and with them, their io_uring threads).
 *
 * At the end, for each thread, "reads TID N": the reads it submitted for
 * its PAGES. That is one, unless the kernel ended a read early (a read
 * of /dev/zero stops at a page when its thread has a signal or, issued
 * without blocking, when the CPU is wanted) and the rest was asked for
 * again: each read completes once, in whichever thread did it.
 *
 * So with -w -g, a tool that attached, or found the io_uring threads,
 * before the gate counts exactly PAGES per io_uring thread; with -g -h
 * and no -w, the io-wq workers are born after the gate, do all their work
 * at once, and then idle until the second line.
 *
 * Exit status: 0 done; 1 a failure; 2 usage; 3 io_uring is not available
 * here (disabled, not built, or refused), with the reason on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXIT_NO_URING 3

struct ring {
	int fd;
	unsigned entries_mask;
	unsigned *sq_tail;
	unsigned *sq_array;
	unsigned *sq_flags;
	unsigned *cq_head;
	unsigned *cq_tail;
	unsigned cq_mask;
	struct io_uring_cqe *cqes;
	struct io_uring_sqe *sqes;
	unsigned setup_flags;
};

/* One submitting thread: who it is, and the reads of its PAGES. */
struct submitter {
	pthread_t thread;
	pid_t tid;
	long reads;
};

static int zero_fd;
static long npages;
static bool sqpoll, warm, gated, hold;
static pthread_barrier_t ready, gate, done, release;
static long page_size;

static void *
map_ring(int fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, fd, off);

	return p == MAP_FAILED ? NULL : p;
}

static int
ring_open(struct ring *r)
{
	struct io_uring_params p;
	unsigned limits[2] = { 1, 1 };
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	if (sqpoll) {
		p.flags = IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 10; /* ms: it sleeps soon, not to spin */
	}
	if ((r->fd = (int)syscall(__NR_io_uring_setup, 4, &p)) < 0)
		return -1;
	r->setup_flags = p.flags;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sq_len = cq_len = sq_len > cq_len ? sq_len : cq_len;
	if ((sq = map_ring(r->fd, sq_len, IORING_OFF_SQ_RING)) == NULL)
		return -1;
	cq = (p.features & IORING_FEAT_SINGLE_MMAP) ?
	    sq :
	    map_ring(r->fd, cq_len, IORING_OFF_CQ_RING);
	r->sqes = map_ring(
	    r->fd, p.sq_entries * sizeof(struct io_uring_sqe), IORING_OFF_SQES);
	if (cq == NULL || r->sqes == NULL)
		return -1;
	r->entries_mask = *(unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->sq_flags = (unsigned *)(sq + p.sq_off.flags);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = *(unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	/* One io-wq worker per thread, so that the tests know how many. */
	if (!sqpoll &&
	    syscall(__NR_io_uring_register, r->fd,
		IORING_REGISTER_IOWQ_MAX_WORKERS, limits, 2) != 0)
		return -1;
	return 0;
}

/* One read of /dev/zero through the ring; the bytes read, or -1. */
static long
ring_read_once(struct ring *r, void *buf, size_t len)
{
	unsigned tail = *r->sq_tail, idx = tail & r->entries_mask, head;
	struct io_uring_sqe *sqe = &r->sqes[idx];
	unsigned enter_flags = IORING_ENTER_GETEVENTS;
	struct io_uring_cqe cqe;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = zero_fd;
	sqe->addr = (uintptr_t)buf;
	sqe->len = (unsigned)len;
	sqe->flags = sqpoll ? 0 : IOSQE_ASYNC;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (sqpoll &&
	    (__atomic_load_n(r->sq_flags, __ATOMIC_ACQUIRE) &
		IORING_SQ_NEED_WAKEUP))
		enter_flags |= IORING_ENTER_SQ_WAKEUP;
	if (syscall(__NR_io_uring_enter, r->fd, sqpoll ? 0 : 1, 1, enter_flags,
		NULL, 0) < 0)
		return -1;
	head = *r->cq_head;
	while (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		if (syscall(__NR_io_uring_enter, r->fd, 0, 1,
			IORING_ENTER_GETEVENTS, NULL, 0) < 0)
			return -1;
	cqe = r->cqes[head & r->cq_mask];
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	if (cqe.res <= 0) {
		errno = cqe.res < 0 ? -cqe.res : EIO;
		return -1;
	}
	return cqe.res;
}

/*
 * Read len bytes into buf. A read issued without blocking (the poller's)
 * may stop early, at a page boundary, when the CPU is wanted elsewhere:
 * the rest is asked for again, and each page is still faulted in once.
 * The reads it took, or -1.
 */
static long
ring_read(struct ring *r, char *buf, size_t len)
{
	long n, reads = 0;

	while (len > 0) {
		if ((n = ring_read_once(r, buf, len)) < 0)
			return -1;
		reads++;
		buf += n;
		len -= (size_t)n;
	}
	return reads;
}

/* Fresh anonymous pages, in small pages only: one fault per page. */
static void *
fresh_pages(long n)
{
	size_t len = (size_t)n * (size_t)page_size;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

/* Read n fresh pages; the reads that took, or -1. */
static long
read_fresh(struct ring *r, long n)
{
	void *buf;

	if (n == 0)
		return 0;
	if ((buf = fresh_pages(n)) == NULL)
		return -1;
	return ring_read(r, buf, (size_t)n * (size_t)page_size);
}

static void *
submitter(void *arg)
{
	struct submitter *self = arg;
	struct ring r;
	intptr_t rc = 0;

	self->tid = (pid_t)syscall(SYS_gettid);
	if (ring_open(&r) != 0) {
		fprintf(stderr, "wl_iouring: io_uring: %s\n", strerror(errno));
		rc = errno == ENOSYS || errno == EPERM || errno == EACCES ?
		    EXIT_NO_URING :
		    1;
	} else if (warm && read_fresh(&r, 1) < 0) {
		fprintf(stderr, "wl_iouring: read: %s\n", strerror(errno));
		rc = 1;
	}
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&gate);
	if (rc == 0 && (self->reads = read_fresh(&r, npages)) < 0) {
		fprintf(stderr, "wl_iouring: read: %s\n", strerror(errno));
		rc = 1;
	}
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&release);
	return (void *)rc;
}

/* Say where we are, then wait for a line (or end of file) on stdin. */
static int
say_and_wait(const char *word)
{
	char c;

	if (write(1, word, strlen(word)) != (ssize_t)strlen(word))
		return -1;
	while (read(0, &c, 1) == 1 && c != '\n')
		;
	return 0;
}

/* Both sides of a step: the main thread's turn comes in between. */
static int
step(pthread_barrier_t *before, pthread_barrier_t *after, bool wait,
    const char *word)
{
	int rc = 0;

	pthread_barrier_wait(before);
	if (wait)
		rc = say_and_wait(word);
	pthread_barrier_wait(after);
	return rc;
}

static int
usage(void)
{
	fprintf(stderr,
	    "usage: wl_iouring [-s] [-w] [-g] [-h] [-t nthreads] "
	    "pages\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct submitter *t;
	long i, nthreads = 1;
	void *rc;
	int c, status = 0;

	while ((c = getopt(argc, argv, "swght:")) != -1) {
		switch (c) {
		case 's':
			sqpoll = true;
			break;
		case 'w':
			warm = true;
			break;
		case 'g':
			gated = true;
			break;
		case 'h':
			hold = true;
			break;
		case 't':
			nthreads = atol(optarg);
			break;
		default:
			return usage();
		}
	}
	if (argc - optind != 1 || nthreads < 1)
		return usage();
	npages = atol(argv[optind]);
	page_size = sysconf(_SC_PAGESIZE);
	if (npages < 0 || (zero_fd = open("/dev/zero", O_RDONLY)) < 0 ||
	    (t = calloc((size_t)nthreads, sizeof(*t))) == NULL ||
	    pthread_barrier_init(&ready, NULL, (unsigned)nthreads + 1) != 0 ||
	    pthread_barrier_init(&gate, NULL, (unsigned)nthreads + 1) != 0 ||
	    pthread_barrier_init(&done, NULL, (unsigned)nthreads + 1) != 0 ||
	    pthread_barrier_init(&release, NULL, (unsigned)nthreads + 1) != 0)
		return 1;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&t[i].thread, NULL, submitter, &t[i]) != 0)
			return 1;
	if (step(&ready, &gate, gated, "ready\n") != 0 ||
	    step(&done, &release, hold, "done\n") != 0)
		return 1;
	for (i = 0; i < nthreads; i++) {
		pthread_join(t[i].thread, &rc);
		if ((intptr_t)rc != 0 && status == 0)
			status = (int)(intptr_t)rc;
		printf("reads %d %ld\n", (int)t[i].tid, t[i].reads);
	}
	free(t);
	return status;
}
