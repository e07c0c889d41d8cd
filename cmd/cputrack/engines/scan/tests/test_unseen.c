/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A sentinel (cputop_unseen.c) read as cputop reads it, beside a process
 * that starts children two at a time, each with a thread that ends as its
 * process does: tasks that end together on two CPUs, whose records go to
 * one ring. On x86 the kernel may then stop publishing the ring's head;
 * every task must still come whole, or be said to have come in part,
 * round after round; none may go unsaid.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cputop_unseen.h"

#define CHILDREN  160
#define AT_ONCE	  2
#define ROUNDS	  20
#define PROCESSES (1 + CHILDREN)     /* the starter and each child */
#define TASKS	  (1 + 2 * CHILDREN) /* ...and each child's thread */

/*
 * The tasks said, and the processes among them (a sanitizer's runtime
 * may start threads of its own in each: there are TASKS or more).
 */
struct tally {
	int whole, in_part, processes;
};

static hrtime_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *
touch_pages(void *arg)
{
	volatile char *p = malloc(64 * 4096);

	for (int i = 0; p != NULL && i < 64; i++)
		p[i * 4096] = 1;
	free((void *)p);
	return arg;
}

/* A child: a thread that ends, then the child itself. */
static void
child(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, touch_pages, NULL) == 0)
		pthread_join(t, NULL);
	touch_pages(NULL);
	_exit(0);
}

/* The starter: CHILDREN children, AT_ONCE at a time. */
static void
starter(void)
{
	int i, running = 0;
	pid_t pid;

	for (i = 0; i < CHILDREN; i++) {
		if (running == AT_ONCE && wait(NULL) > 0)
			running--;
		if ((pid = fork()) == 0)
			child();
		running += pid > 0;
	}
	while (wait(NULL) > 0)
		continue;
	_exit(0);
}

static void
count(void *arg, const struct unseen_task *t)
{
	struct tally *c = arg;

	c->processes += t->tid == t->pid;
	if (t->missing > 0)
		c->in_part++;
	else
		c->whole++;
}

/*
 * Read as cputop does: every few ms while the starter runs, then until
 * what was seen past the head is taken.
 */
static unsigned long
read_round(struct unseen *u, pid_t starter_pid, struct tally *c)
{
	struct pollfd pfd = { .fd = unseen_fd(u), .events = POLLIN };
	struct timespec settle = { 0, UNSEEN_PAST_WAIT_NS };
	unsigned long lost = 0;
	int tries;

	while (waitpid(starter_pid, NULL, WNOHANG) == 0) {
		(void)poll(&pfd, 1, 5);
		lost += unseen_read(u, now_ns(), count, c);
	}
	lost += unseen_read(u, now_ns(), count, c);
	for (tries = 0; tries < 3 && unseen_pending(u); tries++) {
		nanosleep(&settle, NULL); /* not a wait: records age first */
		lost += unseen_read(u, now_ns(), count, c);
	}
	unseen_drop_parts(u, count, c);
	return lost;
}

static const int groups[] = { 0, 0, 1, 1 };

static void
one_round(int round)
{
	static const uint64_t configs[] = { PERF_COUNT_SW_TASK_CLOCK,
		PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_PAGE_FAULTS_MIN,
		PERF_COUNT_SW_PAGE_FAULTS };
	struct perf_event_attr attrs[4];
	struct engine_counters set = {
		.attrs = attrs, .nattrs = 4, .groups = groups
	};
	struct tally c = { 0, 0, 0 };
	struct unseen *u;
	unsigned long lost;
	pid_t pid;
	int k, err;

	memset(attrs, 0, sizeof(attrs));
	for (k = 0; k < 4; k++) {
		attrs[k].size = sizeof(attrs[k]);
		attrs[k].type = PERF_TYPE_SOFTWARE;
		attrs[k].config = configs[k];
		attrs[k].exclude_kernel = 1;
	}
	u = unseen_open(&set, 1, 0, (pid_t)syscall(SYS_gettid), &err);
	if (u == NULL) {
		fprintf(stderr, "unseen_open: %s\n", strerror(err));
		CHECK(u != NULL);
		return;
	}
	if ((pid = fork()) == 0)
		starter();
	lost = read_round(u, pid, &c);
	unseen_close(u);
	if (c.processes != PROCESSES || c.whole + c.in_part < TASKS ||
	    lost != 0 || c.in_part > 2)
		fprintf(stderr,
		    "round %d: %d whole, %d in part (%d processes), %lu lost\n",
		    round, c.whole, c.in_part, c.processes, lost);
	CHECK_EQ_U64(c.processes, PROCESSES);
	CHECK(c.whole + c.in_part >= TASKS);
	CHECK_EQ_U64(lost, 0);
	CHECK(c.in_part <= 2);
}

int
main(void)
{
	int r;

	if (!unseen_possible())
		SKIP("this kernel refuses inherited counters with "
		     "PERF_SAMPLE_READ (Linux 6.12 or later takes them)");
	for (r = 0; r < ROUNDS; r++)
		one_round(r);
	return check_report("test_unseen");
}
