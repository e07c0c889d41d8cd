/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proc_tgid: a process is its own, a running thread is its process's,
 * and a process reaped, or an id of none, has none.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "proc_tgid.h"

struct waiter {
	int started[2]; /* the thread's tid, once it runs */
	int release[2]; /* any byte ends it */
};

static void *
waiting(void *arg)
{
	struct waiter *w = arg;
	pid_t tid = gettid();
	char byte;

	if (write(w->started[1], &tid, sizeof(tid)) == (ssize_t)sizeof(tid))
		(void)read(w->release[0], &byte, 1);
	return NULL;
}

static void
test_thread(void)
{
	struct waiter w;
	pthread_t t;
	pid_t tid = 0;

	CHECK(pipe(w.started) == 0 && pipe(w.release) == 0);
	CHECK(pthread_create(&t, NULL, waiting, &w) == 0);
	CHECK(read(w.started[0], &tid, sizeof(tid)) == (ssize_t)sizeof(tid));
	CHECK(tid > 0 && tid != getpid());
	CHECK(proc_tgid(tid) == getpid());
	CHECK(write(w.release[1], "e", 1) == 1);
	CHECK(pthread_join(t, NULL) == 0);
	close(w.started[0]);
	close(w.started[1]);
	close(w.release[0]);
	close(w.release[1]);
}

static void
test_gone(void)
{
	pid_t child = fork();

	if (child == 0)
		_exit(0);
	CHECK(child > 0);
	CHECK(waitpid(child, NULL, 0) == child);
	CHECK(proc_tgid(child) == -1);
	CHECK(proc_tgid(0) == -1);
}

int
main(void)
{
	CHECK(proc_tgid(getpid()) == getpid());
	test_thread();
	test_gone();
	return check_report("test_proc_tgid");
}
