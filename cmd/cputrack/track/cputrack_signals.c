/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The signals of a run, and the flush of its rows (a reader gone away is
 * a signal too), for main and both engines.
 *
 * SIGHUP, SIGINT, SIGQUIT and SIGTERM that are ignored when cputrack
 * starts stay ignored. Otherwise one of them ends the run: a captured
 * process's LWPs (a cgroup's) get a last tick row (what they counted
 * since the last tick), they are let go and run on, and cputrack exits 0; a
 * command cputrack started is sent the same signal, unless it has it already
 * (from the terminal, or pending), and is tracked until it exits, its
 * rows printed, which is said (the sign that it has the signal); a
 * second signal kills it. cputrack then dies of the first signal (SIGQUIT
 * without a core; main's die_of), so that its parent sees the run cut
 * short. SIGPIPE (the reader of the rows went away) lets
 * everything go and exits 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cputrack.h"
#include "diag.h"

/* A signal that came before the run, when nothing else could take it. */
static volatile sig_atomic_t early_signal;
static volatile sig_atomic_t pipe_broken;

static void
note_signal(int sig)
{
	if (sig == SIGPIPE)
		pipe_broken = 1;
	else if (early_signal == 0)
		early_signal = sig;
}

static const int maybe_ignored[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };

static bool
is_ignored(int sig)
{
	struct sigaction old;

	return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
}

/* As the original: HUP, INT, QUIT and TERM unless ignored, and PIPE. */
void
cputrack_install_signals(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = note_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(maybe_ignored) / sizeof(int); i++)
		if (!is_ignored(maybe_ignored[i]))
			sigaction(maybe_ignored[i], &sa, NULL);
	/* A handler, not SIG_IGN: a command started must not inherit it. */
	sigaction(SIGPIPE, &sa, NULL);
}

/*
 * The signals that end a run and are not ignored. An engine blocks them
 * before it looks for an early one, and reads them from a descriptor
 * from then on: one that came between the look and the loop would
 * otherwise go to the handler, where nothing would see it again.
 */
void
cputrack_ending_signals(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < sizeof(maybe_ignored) / sizeof(int); i++)
		if (!is_ignored(maybe_ignored[i]))
			sigaddset(set, maybe_ignored[i]);
}

/* Whether a created command got the signal too: pending, or from the tty. */
static bool
got_it_too(pid_t pid, int sig, int si_code)
{
	char path[64], line[256];
	unsigned long long mask;
	bool got = false;
	FILE *f;

	if (si_code == SI_KERNEL && getpgid(pid) == getpgrp())
		return true;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (!got && fgets(line, sizeof(line), f) != NULL)
		if ((sscanf(line, "SigPnd: %llx", &mask) == 1 ||
			sscanf(line, "ShdPnd: %llx", &mask) == 1) &&
		    (mask & (1ULL << (sig - 1))))
			got = true;
	fclose(f);
	return got;
}

/* SIGHUP, SIGINT, SIGQUIT or SIGTERM during the run: see the top. */
int
cputrack_signal(struct cputrack *ct, int sig, int si_code, bool target_has_it)
{
	ct->cut_short = true;
	/* Only a command cputrack started is its to signal. */
	if (ct->opt.command == NULL)
		return 1;
	if (ct->stop_signal == 0)
		ct->stop_signal = sig;
	if (ct->stop_count++ > 0) {
		(void)kill(ct->target, SIGKILL);
		return 0;
	}
	if (!target_has_it && !got_it_too(ct->target, sig, si_code))
		(void)kill(ct->target, sig);
	/*
	 * Said once the command has the signal: the run goes on until it
	 * ends, which a command that handles the signal may not do soon.
	 */
	diag(NULL,
	    "SIG%s: waiting for the command to end; a second signal "
	    "kills it\n",
	    sigabbrev_np(sig));
	return 0;
}

int
cputrack_early_signal(void)
{
	return early_signal;
}

/*
 * Have the rows written; a reader gone away ends the run. A write error
 * (a full disk) is said by the output, once, and ends the run too, as it
 * ends cpustat's: a process captured with -p is let go at once rather
 * than traced, uncounted, until it exits.
 */
void
cputrack_flush(struct cputrack *ct)
{
	if (output_flush(ct->out) == 0)
		return;
	ct->reader_gone = true;
	if (errno != EPIPE && !pipe_broken)
		ct->write_failed = true;
}

void
cputrack_title(struct cputrack *ct)
{
	output_title(ct->out);
	cputrack_flush(ct);
}
