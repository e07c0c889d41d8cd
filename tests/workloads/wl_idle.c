/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_idle NTHREADS K [exit|SIGNAME]
 *
 * The main thread and NTHREADS more threads each make K one-byte write(2)
 * calls to /dev/null, then all sleep until the process is killed. When every
 * thread has written, "ready\n" goes to stdout (one write(2) by the main
 * thread, not counted in K). With a third argument the process then ends
 * itself, every thread still there: exit(0) from the main thread, or that
 * signal (TERM, KILL, SEGV, ...) sent to itself.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int devnull;
static long k;
static pthread_barrier_t all_written;

static void
writes(long n)
{
	while (n-- > 0)
		(void)write(devnull, "x", 1);
}

static void *
worker(void *arg)
{
	(void)arg;
	writes(k);
	pthread_barrier_wait(&all_written);
	for (;;)
		pause();
	return NULL;
}

/* The process's end, every thread alive: exit(0), or a signal. */
static void
end(const char *how)
{
	int sig;

	if (strcmp(how, "exit") == 0)
		exit(0);
	for (sig = 1; sig < NSIG; sig++)
		if (sigabbrev_np(sig) != NULL &&
		    strcmp(sigabbrev_np(sig), how) == 0)
			kill(getpid(), sig);
	exit(2);
}

int
main(int argc, char **argv)
{
	pthread_t t;
	long i, n;

	if (argc < 3)
		return 2;
	n = atol(argv[1]);
	k = atol(argv[2]);
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0 ||
	    pthread_barrier_init(&all_written, NULL, (unsigned)n + 1) != 0)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, worker, NULL) != 0)
			return 1;
	writes(k);
	pthread_barrier_wait(&all_written);
	(void)write(1, "ready\n", 6);
	if (argc > 3)
		end(argv[3]);
	for (;;)
		pause();
}
