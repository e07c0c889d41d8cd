/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * out_queue.c: the bounded queue between the commands and their output,
 * with its real writer thread and real descriptors. Records put by many
 * threads at once come out whole, once each, in each thread's order,
 * however often the ring wraps; the last quarter is kept for records that
 * may use the reserve; a record that does not fit before the ring's end
 * starts at its beginning; the writer takes no signal but SIGPIPE; a
 * reader gone away is EPIPE, said to the command, never a crash; and the
 * replacement job runs once however often it is asked for. A paced queue
 * (--input's) holds its producer while the reader does not read, and
 * refuses nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "check.h"
#include "out_queue.h"
#include "wait.h"

/* A record as the tests put it: who, which, and a payload of len bytes. */
struct rec {
	uint32_t producer;
	uint32_t seq;
	uint32_t len;
	uint32_t pad;
};

/* The payload of a record: bytes that say whose and which it is. */
static void
payload(char *p, uint32_t producer, uint32_t seq, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)('a' + (producer * 7 + seq * 3 + i) % 26);
}

static uint32_t
payload_len(uint32_t producer, uint32_t seq)
{
	return (seq * 37 + producer * 11) % 181;
}

static bool
put(struct out_queue *q, uint32_t producer, uint32_t seq, uint32_t len,
    bool reserve)
{
	struct rec r = { producer, seq, len, 0 };
	char text[4096];
	struct iovec parts[2] = { { &r, sizeof(r) }, { text, len } };

	payload(text, producer, seq, len);
	return out_queue_put(q, parts, 2, reserve);
}

/* A record rendered as "producer seq payload\n". */
static void
render_line(void *arg, const void *data, size_t len, struct out_buf *text)
{
	const struct rec *r = data;

	(void)arg;
	if (len < sizeof(*r) + r->len) {
		out_buf_str(text, "TORN\n");
		return;
	}
	out_buf_printf(text, "%u %u ", r->producer, r->seq);
	out_buf_add(text, (const char *)(r + 1), r->len);
	out_buf_str(text, "\n");
}

static int
no_replace(void *arg)
{
	(void)arg;
	return 0;
}

/* Everything read from a descriptor until its end. */
struct drain {
	int fd;
	char *data;
	size_t len;
	pthread_t thread;
};

static void *
drain_main(void *arg)
{
	struct drain *d = arg;
	size_t cap = 0;
	ssize_t n;

	for (;;) {
		if (cap - d->len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			if ((d->data = realloc(d->data, cap)) == NULL)
				abort();
		}
		if ((n = read(d->fd, d->data + d->len, cap - d->len - 1)) <= 0)
			break;
		d->len += (size_t)n;
	}
	d->data[d->len] = '\0';
	return NULL;
}

/*
 * Each line of text is the next record of its producer, with its own
 * payload (of payload_len bytes when sized); each producer's records are
 * all there. Failures said once.
 */
static void
check_lines(char *text, int nproducers, const uint32_t *want, bool sized)
{
	uint32_t next[16] = { 0 }, producer, seq, len;
	char *line, *save = NULL, expect[4096];
	int n, bad = 0, p;

	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%u %u %n", &producer, &seq, &n) != 2 ||
		    producer >= (uint32_t)nproducers) {
			if (bad++ == 0)
				fprintf(stderr, "not a record: \"%s\"\n", line);
			continue;
		}
		len = sized ? payload_len(producer, seq) :
			      (uint32_t)strlen(line + n);
		payload(expect, producer, seq, len);
		if (seq != next[producer] || strlen(line + n) != len ||
		    memcmp(line + n, expect, len) != 0) {
			if (bad++ == 0)
				fprintf(stderr,
				    "producer %u: record %u came "
				    "where %u was due, or changed: \"%s\"\n",
				    producer, seq, next[producer], line);
		}
		next[producer] = seq + 1;
	}
	CHECK(bad == 0);
	for (p = 0; p < nproducers; p++)
		CHECK_EQ_U64(next[p], want[p]);
}

#define NPRODUCERS   4
#define PER_PRODUCER 20000

struct producer {
	struct out_queue *q;
	uint32_t id;
	unsigned long refused;
	pthread_t thread;
};

/* Put every record, waiting for room when the queue is full. */
static void *
producer_main(void *arg)
{
	struct producer *p = arg;
	uint32_t seq;

	for (seq = 0; seq < PER_PRODUCER; seq++)
		while (!put(
		    p->q, p->id, seq, payload_len(p->id, seq), seq % 5 == 0)) {
			p->refused++;
			(void)out_queue_kick(p->q);
			sched_yield();
		}
	return NULL;
}

static sigset_t writer_mask;
static atomic_int writer_mask_taken;

static void
render_noting_mask(void *arg, const void *rec, size_t len, struct out_buf *text)
{
	if (atomic_exchange(&writer_mask_taken, 1) == 0)
		pthread_sigmask(SIG_BLOCK, NULL, &writer_mask);
	render_line(arg, rec, len, text);
}

/*
 * Four threads put 20,000 records each into a ring of 4 KiB, which wraps
 * and fills again and again, while the writer renders them into a pipe
 * that a fifth thread reads.
 */
static void
test_many_producers(void)
{
	struct producer prod[NPRODUCERS];
	uint32_t want[NPRODUCERS];
	struct drain d = { 0 };
	struct out_queue *q;
	unsigned long refused = 0;
	int fds[2], i;

	if (pipe(fds) != 0) {
		CHECK(!"pipe");
		return;
	}
	d.fd = fds[0];
	q = out_queue_new(fds[1], 4096, render_noting_mask, no_replace, NULL);
	CHECK(q != NULL);
	if (q == NULL)
		return;
	CHECK(out_queue_start(q) == 0);
	pthread_create(&d.thread, NULL, drain_main, &d);
	for (i = 0; i < NPRODUCERS; i++) {
		prod[i] = (struct producer) { .q = q, .id = (uint32_t)i };
		want[i] = PER_PRODUCER;
		pthread_create(&prod[i].thread, NULL, producer_main, &prod[i]);
	}
	for (i = 0; i < NPRODUCERS; i++) {
		pthread_join(prod[i].thread, NULL);
		refused += prod[i].refused;
	}
	CHECK(out_queue_finish(q) == 0);
	close(fds[1]);
	pthread_join(d.thread, NULL);
	close(fds[0]);
	printf("many producers: %d records, %lu times refused for room, "
	       "%zu bytes written\n",
	    NPRODUCERS * PER_PRODUCER, refused, d.len);
	check_lines(d.data, NPRODUCERS, want, true);
	free(d.data);
	/* The writer blocks every signal the commands take, not SIGPIPE. */
	CHECK(writer_mask_taken);
	CHECK(sigismember(&writer_mask, SIGINT) == 1);
	CHECK(sigismember(&writer_mask, SIGTERM) == 1);
	CHECK(sigismember(&writer_mask, SIGCHLD) == 1);
	CHECK(sigismember(&writer_mask, SIGHUP) == 1);
	CHECK(sigismember(&writer_mask, SIGPIPE) == 0);
}

/* A private file to write into, already unlinked. */
static int
scratch_file(void)
{
	char path[] = "/tmp/test_out_queue.XXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

static char *
read_back(int fd)
{
	struct drain d = { .fd = fd };

	lseek(fd, 0, SEEK_SET);
	drain_main(&d);
	return d.data;
}

/* The room a record takes: its size_t, its bytes, padded to 8. */
static size_t
room_of(uint32_t len)
{
	return (sizeof(size_t) + sizeof(struct rec) + len + 7) / 8 * 8;
}

/*
 * Without a writer: records that may not use the reserve fill the queue
 * up to three quarters, those that may fill it up; then nothing fits, and
 * the queue written out from the caller's thread has all that it took.
 */
static void
test_reserve(void)
{
	const size_t cap = 1024;
	uint32_t len = 24, seq = 0, want[1];
	size_t need = room_of(len);
	struct out_queue *q;
	unsigned plain = 0, reserved = 0;
	char *text;
	int fd = scratch_file();

	q = out_queue_new(fd, cap, render_line, no_replace, NULL);
	CHECK(fd >= 0 && q != NULL);
	if (q == NULL)
		return;
	while (put(q, 0, seq, len, false))
		seq++, plain++;
	while (put(q, 0, seq, len, true))
		seq++, reserved++;
	CHECK_EQ_U64(plain, (cap - cap / 4) / need);
	CHECK_EQ_U64(plain + reserved, cap / need);
	CHECK(!put(q, 0, seq, 0, true));
	CHECK(out_queue_error(q) == 0);
	/* Written out from here, as there is no writer. */
	CHECK(out_queue_finish(q) == 0);
	want[0] = seq;
	text = read_back(fd);
	check_lines(text, 1, want, false);
	free(text);
	close(fd);
}

/* A record larger than the whole queue is refused, reserve or not. */
static void
test_too_large(void)
{
	struct out_queue *q;
	int fd = scratch_file();
	char *text;

	q = out_queue_new(fd, 256, render_line, no_replace, NULL);
	CHECK(q != NULL);
	if (q == NULL)
		return;
	CHECK(!put(q, 0, 0, 300, true));
	CHECK(put(q, 0, 0, 100, false));
	CHECK(out_queue_kick(q) == 0); /* no writer: from here */
	text = read_back(fd);
	CHECK(text != NULL && strncmp(text, "0 0 ", 4) == 0 &&
	    strlen(text) == 4 + 100 + 1);
	free(text);
	CHECK(out_queue_finish(q) == 0);
	close(fd);
}

/*
 * The writer held inside the rendering of a record, so that the test
 * decides what is queued while it renders.
 */
static sem_t entered, go;
static const void *rendered_at[8];
static int nrendered;

static void
render_held(void *arg, const void *rec, size_t len, struct out_buf *text)
{
	rendered_at[nrendered++ % 8] = rec;
	sem_post(&entered);
	while (sem_wait(&go) != 0 && errno == EINTR)
		;
	render_line(arg, rec, len, text);
}

/*
 * A record that does not fit between the ring's last record and its end
 * starts at the ring's start, behind the records still being written,
 * and comes out after them.
 */
static void
test_wrap(void)
{
	const size_t cap = 1024;
	uint32_t a = 600, b = 300, c = 300, want[1] = { 3 };
	struct out_queue *q;
	int fd = scratch_file();
	char *text;

	sem_init(&entered, 0, 0);
	sem_init(&go, 0, 0);
	q = out_queue_new(fd, cap, render_held, no_replace, NULL);
	CHECK(q != NULL && out_queue_start(q) == 0);
	if (q == NULL)
		return;
	CHECK(put(q, 0, 0, a, true)); /* [0, 640) */
	sem_wait(&entered);	      /* the writer renders A */
	CHECK(put(q, 0, 1, b, true)); /* [640, 960) */
	sem_post(&go);		      /* A written */
	sem_wait(&entered);	      /* the writer renders B */
	/* C needs 336 bytes: 64 are left at the end, 640 at the start. */
	CHECK(room_of(c) > cap - room_of(a) - room_of(b));
	CHECK(put(q, 0, 2, c, true));
	sem_post(&go);	    /* B written */
	sem_wait(&entered); /* the writer renders C */
	sem_post(&go);
	CHECK(out_queue_finish(q) == 0);
	CHECK(nrendered == 3);
	/* C lies before B in the ring: it wrapped. */
	CHECK(rendered_at[2] < rendered_at[1]);
	CHECK(rendered_at[2] == (const char *)rendered_at[0]);
	text = read_back(fd);
	check_lines(text, 1, want, false);
	free(text);
	close(fd);
	sem_destroy(&entered);
	sem_destroy(&go);
}

/* A queue and what its kick said last. */
struct kicked {
	struct out_queue *q;
	int err;
};

/* The writer has tried: kick says what came of it. */
static bool
writer_failed(void *arg)
{
	struct kicked *k = arg;

	k->err = out_queue_kick(k->q);
	return k->err != 0;
}

/*
 * A reader gone away: the writer's write fails with EPIPE (SIGPIPE
 * ignored, as a command that handles it), the command learns it from
 * kick and error, later records are taken and dropped, and finish says it.
 */
static void
test_reader_gone(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	struct kicked k = { NULL, 0 };
	struct out_queue *q;
	int fds[2];

	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	if (pipe(fds) != 0) {
		CHECK(!"pipe");
		return;
	}
	close(fds[0]);
	q = out_queue_new(fds[1], 4096, render_line, no_replace, NULL);
	CHECK(q != NULL && out_queue_start(q) == 0);
	if (q == NULL)
		return;
	CHECK(put(q, 0, 0, 10, false));
	k.q = q;
	CHECK(wait_for("the writer to meet EPIPE", writer_failed, &k));
	CHECK_EQ_U64(k.err, EPIPE);
	CHECK(out_queue_error(q) == EPIPE);
	CHECK(put(q, 0, 1, 10, false)); /* taken, and dropped */
	CHECK(out_queue_finish(q) == EPIPE);
	close(fds[1]);
	sigaction(SIGPIPE, &old, NULL);
}

static atomic_int replaced;
static int replace_error;

static bool
queue_failed(void *q)
{
	return out_queue_error(q) != 0;
}

static int
count_replace(void *arg)
{
	(void)arg;
	atomic_fetch_add(&replaced, 1);
	return replace_error;
}

/*
 * The replacement job (the metrics file): run once however often it was
 * asked for since it last ran, also by a queue with no stream, and its
 * failure is the queue's error.
 */
static void
test_replace(void)
{
	struct out_queue *q;

	/* No stream (fd -1): no record fits, the job still runs. */
	q = out_queue_new(-1, 4096, render_line, count_replace, NULL);
	CHECK(q != NULL);
	if (q == NULL)
		return;
	CHECK(!put(q, 0, 0, 1, true));
	out_queue_replace(q);
	out_queue_replace(q);
	out_queue_replace(q);
	CHECK(replaced == 0); /* no writer: at finish */
	CHECK(out_queue_finish(q) == 0);
	CHECK(replaced == 1);

	/* With the writer: asked, it runs; its failure is said. */
	replaced = 0;
	replace_error = EIO;
	q = out_queue_new(-1, 4096, render_line, count_replace, NULL);
	CHECK(q != NULL && out_queue_start(q) == 0);
	if (q == NULL)
		return;
	out_queue_replace(q);
	CHECK(wait_for("the replacement job to fail", queue_failed, q));
	CHECK(replaced == 1);
	CHECK(out_queue_error(q) == EIO);
	CHECK(out_queue_kick(q) == EIO);
	/* A failed queue runs no more jobs. */
	out_queue_replace(q);
	CHECK(out_queue_finish(q) == EIO);
	CHECK(replaced == 1);
	replace_error = 0;
	CHECK(out_queue_finish(NULL) == 0);
}

/* A paced producer: its records, how many it has put, and its thread. */
struct paced {
	struct out_queue *q;
	uint32_t n;
	atomic_uint put;
	atomic_uint refused;
	atomic_int tid;
	pthread_t thread;
};

static void *
paced_main(void *arg)
{
	struct paced *p = arg;
	uint32_t seq;

	p->tid = (int)syscall(SYS_gettid);
	for (seq = 0; seq < p->n; seq++) {
		if (!put(p->q, 0, seq, payload_len(0, seq), false))
			p->refused++;
		p->put = seq + 1;
	}
	return NULL;
}

/* The producer sleeps with records left to put: the queue holds it. */
static bool
producer_held(void *arg)
{
	struct paced *p = arg;

	return p->tid != 0 && p->put < p->n && proc_state(p->tid) == 'S';
}

/*
 * A reader that has not begun: the pipe and the queue fill, and the
 * producer waits instead of being refused; once the reader reads, every
 * record comes, in order. Without a writer thread, a paced queue writes
 * from the producer's own.
 */
static void
test_paced(void)
{
	struct paced p = { .n = 6000 };
	struct drain d = { 0 };
	uint32_t want[1] = { 6000 };
	char *text;
	int fds[2], fd;

	if (pipe(fds) != 0) {
		CHECK(!"pipe");
		return;
	}
	d.fd = fds[0];
	p.q = out_queue_new(fds[1], 4096, render_line, no_replace, NULL);
	CHECK(p.q != NULL);
	if (p.q == NULL)
		return;
	out_queue_pace(p.q);
	CHECK(out_queue_start(p.q) == 0);
	pthread_create(&p.thread, NULL, paced_main, &p);
	CHECK(wait_for("the producer held by a full queue", producer_held, &p));
	pthread_create(&d.thread, NULL, drain_main, &d);
	pthread_join(p.thread, NULL);
	CHECK(out_queue_finish(p.q) == 0);
	close(fds[1]);
	pthread_join(d.thread, NULL);
	close(fds[0]);
	CHECK_EQ_U64(p.refused, 0);
	check_lines(d.data, 1, want, true);
	free(d.data);

	fd = scratch_file();
	p = (struct paced) { .n = 2000 };
	want[0] = 2000;
	p.q = out_queue_new(fd, 1024, render_line, no_replace, NULL);
	CHECK(fd >= 0 && p.q != NULL);
	if (p.q == NULL)
		return;
	out_queue_pace(p.q);
	paced_main(&p);
	CHECK_EQ_U64(p.refused, 0);
	CHECK(out_queue_finish(p.q) == 0);
	text = read_back(fd);
	check_lines(text, 1, want, true);
	free(text);
	close(fd);
}

int
main(void)
{
	test_many_producers();
	test_reserve();
	test_too_large();
	test_wrap();
	test_reader_gone();
	test_replace();
	test_paced();
	return check_report("test_out_queue");
}
