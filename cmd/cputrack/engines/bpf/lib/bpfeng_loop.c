/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The run's loop: dispatch_event(next_event()) over the engine's records,
 * the caller's signals and its ticks, as pctx_run is the ptrace engine's.
 * A started command that stops itself, or that made its caller its
 * tracer, is seen to here; everything else is the caller's, through its
 * hooks.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfeng_impl.h"

int
bpfeng_loop_open(
    struct bpfeng *eng, unsigned interval_ms, const sigset_t *signals)
{
	struct itimerspec its = { 0 };

	if (sigprocmask(SIG_BLOCK, signals, NULL) != 0 ||
	    (eng->loop_sigfd =
		    signalfd(-1, signals, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		return -1;
	if (interval_ms == 0)
		return 0;
	/* Absolute deadlines: late wakeups never drift. */
	its.it_interval.tv_sec = interval_ms / 1000;
	its.it_interval.tv_nsec = (long)(interval_ms % 1000) * 1000000;
	its.it_value = its.it_interval;
	if ((eng->loop_timerfd = timerfd_create(
		 CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0 ||
	    timerfd_settime(eng->loop_timerfd, 0, &its, NULL) != 0)
		return -1;
	return 0;
}

/*
 * The command made its caller its tracer (PTRACE_TRACEME, as programs
 * that resist debuggers do). This engine traces nothing, and a tracee
 * stops at every signal and at its exec until its tracer resumes it: it
 * is let go at its first stop, with the signal it stopped for, as it
 * would have had it untraced; but for the trap that an exec sends only
 * to a tracee, which would kill it.
 */
static void
untrace_command(pid_t pid, int sig)
{
	siginfo_t si;

	if (sig == SIGTRAP && ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) == 0 &&
	    si.si_code == SI_USER && si.si_pid == pid)
		sig = 0;
	(void)ptrace(PTRACE_DETACH, pid, NULL, (void *)(intptr_t)sig);
}

/*
 * The signal the started command stopped itself with, as a suspend
 * command does, or 0. A stop sent to it alone from outside is not one.
 * Each stop is reported once, and not once the command continued: a stop
 * of the whole job, which the caller shared, is not taken for a new one
 * when it continues.
 */
static int
command_stop(struct bpfeng *eng)
{
	siginfo_t si;

	if (eng->child <= 0)
		return 0;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)eng->child, &si, WSTOPPED | WNOHANG) != 0 ||
	    si.si_pid == 0)
		return 0;
	if (si.si_code == CLD_TRAPPED) {
		untrace_command(si.si_pid, si.si_status);
		return 0;
	}
	return bpfeng_command_signaled(eng, si.si_status, eng->child, 0) ?
	    si.si_status :
	    0;
}

/* The signals that came; true when the caller's hook ends the loop. */
static bool
take_signals(struct bpfeng *eng, const struct bpfeng_loop_ops *ops, void *arg)
{
	struct signalfd_siginfo si;
	int sig;

	while (read(eng->loop_sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo != SIGCHLD) {
			if (ops->signal(arg, &si))
				return true;
			continue;
		}
		eng->child_signaled = true;
		if ((sig = command_stop(eng)) != 0)
			ops->command_stopped(arg, sig);
	}
	return false;
}

/* A tick the caller took counts against -N's samples once its rows are out. */
static void
take_tick(struct bpfeng *eng, const struct bpfeng_loop_ops *ops, void *arg)
{
	uint64_t expirations;

	if (read(eng->loop_timerfd, &expirations, sizeof(expirations)) ==
		(ssize_t)sizeof(expirations) &&
	    ops->tick(arg, expirations))
		bpfeng_count_ticks(eng, expirations);
}

int
bpfeng_loop(
    struct bpfeng *eng, const struct bpfeng_loop_ops *ops, void *arg, bool lazy)
{
	struct pollfd fds[3] = {
		{ .fd = bpfeng_fd(eng), .events = POLLIN },
		{ .fd = eng->loop_sigfd, .events = POLLIN },
		{ .fd = eng->loop_timerfd, .events = POLLIN },
	};
	char why[BPFENG_WHY_LEN];
	bool ended = false;

	while (!ended && !bpfeng_done(eng)) {
		if (poll(fds, 3, lazy ? -1 : BPFENG_READ_MS) < 0 &&
		    errno != EINTR) {
			eng_why(why, sizeof(why), "poll failed - %s",
			    strerror(errno));
			(void)ops->failed(arg, EIO, why);
			return -1;
		}
		if (fds[1].revents & POLLIN)
			ended = take_signals(eng, ops, arg);
		if (!ended && bpfeng_dispatch(eng, why, sizeof(why)) != 0)
			ended = ops->failed(arg, errno, why);
		if (!ended && (fds[2].revents & POLLIN))
			take_tick(eng, ops, arg);
		ended = !ops->idle(arg) || ended;
	}
	return 0;
}
