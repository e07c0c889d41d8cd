/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_selfstop NTHREADS K [usr1]
 *
 * NTHREADS threads spin in user mode while the main thread makes K
 * one-byte write(2) calls to /dev/null, stops its own process with
 * SIGTSTP (kill(getpid(), SIGTSTP), as a program's own suspend command
 * does), and once continued makes K more; then every thread ends and it
 * exits 0. With usr1, the main thread spins until a SIGUSR1 is sent to
 * it instead of stopping, so that it can be stopped from outside in
 * between. The threads' CPU time says whether all of it is stopped.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int done;

static void *
spin(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	while (!atomic_load_explicit(&done, memory_order_relaxed))
		n++;
	return NULL;
}

static void
writes(int fd, long k)
{
	while (k-- > 0)
		(void)write(fd, "x", 1);
}

int
main(int argc, char **argv)
{
	long i, n, k;
	pthread_t *t;
	sigset_t usr1, got;
	int devnull;

	if (argc < 3)
		return 2;
	n = atol(argv[1]);
	k = atol(argv[2]);
	/* Blocked in every thread: it waits, pending, to be seen. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if ((t = calloc((size_t)n + 1, sizeof(*t))) == NULL ||
	    (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, spin, NULL) != 0)
			return 1;
	writes(devnull, k);
	if (argc > 3)
		while (sigpending(&got) == 0 && !sigismember(&got, SIGUSR1))
			;
	else
		(void)kill(getpid(), SIGTSTP);
	writes(devnull, k);
	atomic_store(&done, 1);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
