/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_calls THREADS CALLS [FORKS [exec]]
 *
 * Calls the function wl_target an exactly known number of times per LWP,
 * for breakpoint (mem:ADDR:x) and uprobe counts; each call stores to
 * wl_calls_made once (mem:ADDR/8:w). It is built without PIE, so that
 * the address nm(1) gives is the one it runs at.
 *
 * The main thread calls wl_target CALLS times, then starts THREADS
 * threads; thread i (1, 2, ...) calls it (i + 1) * CALLS times. Once they
 * are joined, FORKS children are forked one after the other; each calls
 * it CALLS times and exits. With "exec", the process then execs itself
 * as "wl_calls 0 CALLS", which calls it CALLS times more.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Written once per call, by one plain store (threads race on its value,
 * which nothing reads: what is counted is the store).
 */
volatile unsigned long wl_calls_made;

/*
 * No locked instruction at its start: uprobes cannot be placed on one.
 */
__attribute__((noinline)) void
wl_target(void)
{
	wl_calls_made = wl_calls_made + 1;
	__asm__ volatile("" ::: "memory");
}

static long calls;

static void
call_times(long n)
{
	long i;

	for (i = 0; i < n; i++)
		wl_target();
}

static void *
worker(void *arg)
{
	call_times(((long)(intptr_t)arg + 1) * calls);
	return NULL;
}

int
main(int argc, char **argv)
{
	long nthreads, forks = 0, i;
	pthread_t *t;
	char count[32];
	pid_t pid;
	int status;

	if (argc < 3)
		return 2;
	nthreads = atol(argv[1]);
	calls = atol(argv[2]);
	if (argc > 3)
		forks = atol(argv[3]);
	call_times(calls);
	if ((t = calloc(nthreads > 0 ? (size_t)nthreads : 1, sizeof(*t))) ==
	    NULL)
		return 1;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(
			&t[i], NULL, worker, (void *)(intptr_t)(i + 1)) != 0)
			return 1;
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	free(t);
	for (i = 0; i < forks; i++) {
		if ((pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			call_times(calls);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			return 1;
	}
	if (argc > 4 && strcmp(argv[4], "exec") == 0) {
		snprintf(count, sizeof(count), "%ld", calls);
		execl("/proc/self/exe", argv[0], "0", count, (char *)NULL);
		return 1;
	}
	return 0;
}
