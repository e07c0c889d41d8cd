/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_signals K [fatal]
 *
 * Sends itself K times each: SIGUSR1 (handled), SIGUSR2 (ignored) and
 * SIGRTMIN+1 with sigqueue values 1..K (handled, queued, so each one
 * counts). After each round it makes one one-byte write(2) call to
 * /dev/null: K writes in all. It then prints one line to stdout with what
 * the handlers saw, e.g. "usr1=K rt=K rtsum=S" (one more write(2)), and
 * exits 0 if everything arrived as it should, 3 if not. With "fatal" it
 * ends by raising SIGTERM (default action) instead of exiting.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t usr1, rt;
static volatile long rtsum;

static void
on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static void
on_rt(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	rt++;
	rtsum += si->si_value.sival_int;
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	union sigval v;
	char line[96];
	long i, k;
	int devnull, len;

	if (argc < 2)
		return 2;
	k = atol(argv[1]);
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 1, &sa, NULL);
	for (i = 1; i <= k; i++) {
		kill(getpid(), SIGUSR1);
		kill(getpid(), SIGUSR2);
		v.sival_int = (int)i;
		sigqueue(getpid(), SIGRTMIN + 1, v);
		(void)write(devnull, "x", 1);
	}
	len = snprintf(line, sizeof(line), "usr1=%d rt=%d rtsum=%ld\n",
	    (int)usr1, (int)rt, (long)rtsum);
	(void)write(1, line, (size_t)len);
	if (argc > 2 && strcmp(argv[2], "fatal") == 0)
		raise(SIGTERM);
	return usr1 == k && rt == k && rtsum == k * (k + 1) / 2 ? 0 : 3;
}
