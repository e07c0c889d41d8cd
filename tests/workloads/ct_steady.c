/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ct_steady NTHREADS K PERIOD_MS ROUNDS [DONEFILE]
 *
 * Starts NTHREADS threads; each makes K one-byte write(2) calls to
 * /dev/null, then sleeps PERIOD_MS milliseconds, ROUNDS times (forever if
 * ROUNDS is 0), and exits. The main thread writes nothing: it joins the
 * threads and then, if DONEFILE is given, creates it (open(2) with
 * O_CREAT, no write(2)), and exits 0. A steady, exactly known pace of
 * writes per thread, for ticks and for tests that the target outlives
 * cputrack.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int devnull;
static long k, period_ms, rounds;

static void *
worker(void *arg)
{
	struct timespec ts = { period_ms / 1000, (period_ms % 1000) * 1000000 };
	long r, n;

	(void)arg;
	for (r = 0; rounds == 0 || r < rounds; r++) {
		for (n = 0; n < k; n++)
			(void)write(devnull, "x", 1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t *t;
	long i, n;
	int fd;

	if (argc < 5)
		return 2;
	n = atol(argv[1]);
	k = atol(argv[2]);
	period_ms = atol(argv[3]);
	rounds = atol(argv[4]);
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0 ||
	    (t = calloc(n > 0 ? n : 1, sizeof(*t))) == NULL)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (argc > 5) {
		if ((fd = open(argv[5], O_WRONLY | O_CREAT | O_TRUNC, 0644)) <
		    0)
			return 1;
		close(fd);
	}
	return 0;
}
