/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_busyidle NBUSY NIDLE
 *
 * Starts NIDLE threads that wait, named idle, and then NBUSY threads that
 * spin in user mode, named busy, and runs until it is killed: a process
 * of many threads whose busiest are few, and known by their names. Exit
 * status 1 if a thread cannot be created.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

static void *
idle(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "idle");
	for (;;)
		pause();
	return NULL;
}

static void *
busy(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	prctl(PR_SET_NAME, "busy");
	for (;;)
		n++;
	return NULL;
}

static int
start(long n, void *(*fn)(void *))
{
	pthread_attr_t attr;
	pthread_t t;
	long i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++)
		if (pthread_create(&t, &attr, fn, NULL) != 0)
			return -1;
	pthread_attr_destroy(&attr);
	return 0;
}

int
main(int argc, char **argv)
{
	long nbusy = argc > 1 ? atol(argv[1]) : 1;
	long nidle = argc > 2 ? atol(argv[2]) : 0;

	if (start(nidle, idle) != 0 || start(nbusy, busy) != 0)
		return 1;
	for (;;)
		pause();
}
