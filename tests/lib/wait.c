/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The C tests' one wait and the waits built on it (see wait.h).
 */
#include "wait.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_STEP_MS 1

static long
wait_bound_s(void)
{
	const char *env = getenv("WAIT_BOUND_S");
	long s = env != NULL ? atol(env) : 0;

	return s > 0 ? s : 30;
}

static double
seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool
wait_for(const char *what, bool (*ready)(void *arg), void *arg)
{
	long bound = wait_bound_s();
	double end = seconds_now() + (double)bound;

	while (!ready(arg)) {
		if (seconds_now() >= end) {
			fprintf(stderr, "waited %ld s in vain for: %s\n", bound,
			    what);
			return false;
		}
		sleep_ms(WAIT_STEP_MS); /* the library's wait */
	}
	return true;
}

static bool
ended(void *arg)
{
	pid_t pid = *(pid_t *)arg;
	siginfo_t si;

	/* WNOWAIT: it stays its parent's to reap. */
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | WNOHANG) != 0)
		return false;
	return si.si_pid == pid;
}

bool
wait_zombie(pid_t pid)
{
	char what[64];

	snprintf(what, sizeof(what), "process %d to end", (int)pid);
	return wait_for(what, ended, &pid);
}

struct state_want {
	pid_t tid;
	const char *states;
};

static bool
in_state(void *arg)
{
	const struct state_want *w = arg;
	char state = proc_state(w->tid);

	return state != 0 && strchr(w->states, state) != NULL;
}

bool
wait_state(pid_t tid, const char *states)
{
	struct state_want w = { tid, states };
	char what[96];

	snprintf(what, sizeof(what), "thread %d in state %s", (int)tid, states);
	return wait_for(what, in_state, &w);
}

bool
wait_running(pid_t pid)
{
	/* Running, sleeping or in a disk wait: on its way. */
	return wait_state(pid, "RSD");
}

char
proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL)
		return 0;
	return p[2];
}

void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	int rc;

	do
		rc = nanosleep(&ts, &ts); /* the library's wait */
	while (rc != 0 && errno == EINTR);
}
