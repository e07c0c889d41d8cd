/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bounded output queue and its writer (see out_queue.h).
 *
 * The queue is a ring of records, each one whole: its room (a size_t: its
 * own, the record's bytes, their padding to a multiple of 8), then the
 * bytes. A record that does not fit before the ring's end starts at its
 * beginning, and a room of WRAP where it would have been says so. head and tail
 * count the bytes ever put and ever taken; head - tail are waiting. Only the
 * writer moves tail, and it renders and writes without the lock held: the
 * records between tail and head are never touched by a producer, which copies
 * only into the free part beyond head.
 *
 * Rows come in bursts (a tick's rows, threads that are born and die), and
 * waking a sleeping writer is a cross-CPU wakeup paid on the command's own
 * time. So a writer that has just written naps (NAP_NS) instead of
 * sleeping until kicked: a kick wakes a sleeping writer, never a napping
 * one, which comes back on its own. More than a sixteenth of the queue
 * waiting wakes it either way: a burst of thousands of rows (a tick of
 * thousands of LWPs) is rendered while it is made, not stored whole.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "out_queue.h"

#define NAP_NS 10000000L /* what a row may wait in a burst: 10 ms */
#define BATCH  65536	 /* text rendered per write, about */
#define ALIGN  8
#define WRAP   SIZE_MAX /* the next record is at the ring's start */

struct out_queue {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the writer waits on it */
	pthread_cond_t room; /* a paced producer waits on it */
	char *ring;
	size_t cap; /* a multiple of ALIGN */
	uint64_t head;
	uint64_t tail;
	int fd;
	out_record_fn *render;
	out_replace_fn *replace;
	void *arg;
	struct out_buf text; /* the writer's: records rendered */
	bool replace_wanted;
	bool closing;
	bool waiting; /* the writer sleeps on wake */
	bool napping; /* the writer waits NAP_NS at most */
	bool paced;   /* a full queue holds the producer (out_queue_pace) */
	int err;
	pthread_t thread;
	bool started;
};

/* The writer's naps are timed on the monotonic clock. */
static void
init_wake(pthread_cond_t *wake)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(wake, &attr);
	pthread_condattr_destroy(&attr);
}

struct out_queue *
out_queue_new(int fd, size_t cap, out_record_fn *render,
    out_replace_fn *replace, void *arg)
{
	struct out_queue *q;

	cap -= cap % ALIGN;
	if ((q = calloc(1, sizeof(*q))) == NULL)
		return NULL;
	if (fd >= 0 && (q->ring = malloc(cap)) == NULL) {
		free(q);
		return NULL;
	}
	q->cap = fd >= 0 ? cap : 0;
	q->fd = fd;
	q->render = render;
	q->replace = replace;
	q->arg = arg;
	pthread_mutex_init(&q->lock, NULL);
	init_wake(&q->wake);
	pthread_cond_init(&q->room, NULL);
	return q;
}

void
out_queue_pace(struct out_queue *q)
{
	q->paced = true;
}

/*
 * Render the records from pos up to end, or until about BATCH bytes of
 * text are there; where it stopped.
 */
static uint64_t
render_records(struct out_queue *q, uint64_t pos, uint64_t end)
{
	size_t off, room;

	out_buf_reset(&q->text);
	while (pos != end && q->text.len < BATCH) {
		off = (size_t)(pos % q->cap);
		memcpy(&room, q->ring + off, sizeof(room));
		if (room == WRAP) {
			pos += q->cap - off;
			continue;
		}
		q->render(q->arg, q->ring + off + sizeof(room),
		    room - sizeof(room), &q->text);
		pos += room;
	}
	return pos;
}

/*
 * Render and write the waiting records, the lock held on entry and on
 * return, not while rendering and writing.
 */
static void
write_out(struct out_queue *q)
{
	uint64_t from, end;
	int err;

	while (q->head != q->tail && q->err == 0) {
		from = q->tail;
		end = q->head;
		pthread_mutex_unlock(&q->lock);
		end = render_records(q, from, end);
		err = out_buf_write(&q->text, q->fd);
		pthread_mutex_lock(&q->lock);
		q->tail = end;
		if (err != 0) {
			q->err = err;
			q->tail = q->head;
		}
		if (q->paced)
			pthread_cond_signal(&q->room);
	}
}

static void
replace_out(struct out_queue *q)
{
	int err;

	q->replace_wanted = false;
	pthread_mutex_unlock(&q->lock);
	err = q->replace(q->arg);
	pthread_mutex_lock(&q->lock);
	if (err != 0 && q->err == 0)
		q->err = err;
}

/* Wait NAP_NS, or less if woken; the lock held. */
static void
nap(struct out_queue *q)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += NAP_NS;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	q->napping = true;
	(void)pthread_cond_timedwait(&q->wake, &q->lock, &until);
	q->napping = false;
}

static void *
writer_main(void *arg)
{
	struct out_queue *q = arg;
	bool wrote = false;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (q->head != q->tail && q->err == 0) {
			write_out(q);
			wrote = true;
		} else if (q->replace_wanted && q->err == 0) {
			replace_out(q);
		} else if (q->closing) {
			break;
		} else if (wrote) {
			nap(q);
			wrote = false;
		} else {
			q->waiting = true;
			pthread_cond_wait(&q->wake, &q->lock);
			q->waiting = false;
		}
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int
out_queue_start(struct out_queue *q)
{
	sigset_t all, old;
	int err;

	if (q->started)
		return 0;
	/*
	 * The commands take their signals in their own threads. SIGPIPE
	 * stays open: a write to a pipe whose reader left raises it here,
	 * as it did in the command itself.
	 */
	sigfillset(&all);
	sigdelset(&all, SIGPIPE);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&q->thread, NULL, writer_main, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err == 0)
		q->started = true;
	return err;
}

/* Wake the writer if it sleeps or naps; the lock held. */
static void
wake(struct out_queue *q)
{
	if (q->waiting || q->napping)
		pthread_cond_signal(&q->wake);
}

/*
 * Where a record of need bytes goes (its offset, and the bytes skipped to
 * the ring's start before it), or false when it does not fit now; the
 * lock held.
 */
static bool
find_room(
    struct out_queue *q, size_t need, bool reserve, size_t *off, size_t *skip)
{
	size_t room;

	/* Empty: start again at the ring's start, in the pages in use. */
	if (q->head == q->tail)
		q->head = q->tail = 0;
	room = q->cap - (size_t)(q->head - q->tail);
	if (!reserve)
		room = room > q->cap / 4 ? room - q->cap / 4 : 0;
	*off = q->cap > 0 ? (size_t)(q->head % q->cap) : 0;
	*skip = q->cap - *off < need ? q->cap - *off : 0;
	return room >= *skip + need;
}

/*
 * A paced queue's producer waits for the writer to make room: a record
 * that could never fit, or a broken stream, does not wait. False: no
 * room will come. The lock held.
 */
static bool
wait_room(
    struct out_queue *q, size_t need, bool reserve, size_t *off, size_t *skip)
{
	while (!find_room(q, need, reserve, off, skip)) {
		if (!q->paced || q->err != 0 || need > q->cap / 2)
			return false;
		if (!q->started) {
			write_out(q); /* no writer thread: from here */
			continue;
		}
		pthread_cond_signal(&q->wake);
		pthread_cond_wait(&q->room, &q->lock);
	}
	return true;
}

bool
out_queue_put(
    struct out_queue *q, const struct iovec *parts, int n, bool reserve)
{
	size_t need = sizeof(size_t) + ALIGN - 1, off, skip;
	bool broken;
	char *at;
	int i;

	for (i = 0; i < n; i++)
		need += parts[i].iov_len;
	need -= need % ALIGN;
	pthread_mutex_lock(&q->lock);
	if (q->err != 0) {
		/* The stream is broken: the caller learns it from the error. */
		pthread_mutex_unlock(&q->lock);
		return true;
	}
	if (!wait_room(q, need, reserve, &off, &skip)) {
		/* Broken while it waited: the caller learns it the same way. */
		broken = q->err != 0;
		pthread_mutex_unlock(&q->lock);
		return broken;
	}
	if (skip > 0) {
		memcpy(q->ring + off, &(size_t) { WRAP }, sizeof(size_t));
		q->head += skip;
		off = 0;
	}
	memcpy(q->ring + off, &need, sizeof(need));
	for (i = 0, at = q->ring + off + sizeof(need); i < n; i++) {
		memcpy(at, parts[i].iov_base, parts[i].iov_len);
		at += parts[i].iov_len;
	}
	q->head += need;
	if (q->head - q->tail > q->cap / 16)
		wake(q);
	pthread_mutex_unlock(&q->lock);
	return true;
}

int
out_queue_kick(struct out_queue *q)
{
	int err;

	pthread_mutex_lock(&q->lock);
	if (q->head != q->tail && q->waiting)
		pthread_cond_signal(&q->wake);
	else if (!q->started)
		write_out(q); /* no writer thread: from here */
	err = q->err;
	pthread_mutex_unlock(&q->lock);
	return err;
}

void
out_queue_replace(struct out_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->replace_wanted = true;
	wake(q);
	pthread_mutex_unlock(&q->lock);
}

int
out_queue_error(struct out_queue *q)
{
	int err;

	pthread_mutex_lock(&q->lock);
	err = q->err;
	pthread_mutex_unlock(&q->lock);
	return err;
}

int
out_queue_finish(struct out_queue *q)
{
	int err;

	if (q == NULL)
		return 0;
	pthread_mutex_lock(&q->lock);
	q->closing = true;
	wake(q);
	pthread_mutex_unlock(&q->lock);
	if (q->started) {
		pthread_join(q->thread, NULL);
	} else {
		/* Never started: write what there is from here. */
		pthread_mutex_lock(&q->lock);
		if (q->head != q->tail)
			write_out(q);
		if (q->replace_wanted && q->err == 0)
			replace_out(q);
		pthread_mutex_unlock(&q->lock);
	}
	err = q->err;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->wake);
	pthread_cond_destroy(&q->room);
	free(q->ring);
	out_buf_free(&q->text);
	free(q);
	return err;
}
