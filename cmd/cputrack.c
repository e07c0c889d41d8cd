/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack: count CPU performance events per process and per LWP of a
 * command or a running process, interval by interval.
 *
 * Signals. SIGHUP, SIGINT, SIGQUIT and SIGTERM that are ignored when
 * cputrack starts stay ignored. Otherwise one of them ends the run: a
 * captured process's LWPs get a last tick row (what they counted since
 * the last tick), it is let go and runs on, and cputrack exits 0; a command
 * cputrack started is sent the same signal, unless it has it already
 * (from the terminal, or pending), and is tracked until it exits, its
 * rows printed; a second signal kills it. cputrack then dies of the first
 * signal (SIGQUIT without a core), so that its parent sees the run cut
 * short. SIGPIPE
 * (the reader of the rows went away) lets everything go and exits 0.
 */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

/* As the original: HUP, INT, QUIT and TERM unless ignored, and PIPE. */
static void
install_signals(void)
{
	static const int maybe_ignored[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = note_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(maybe_ignored) / sizeof(int); i++) {
		if (sigaction(maybe_ignored[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(maybe_ignored[i], &sa, NULL);
	}
	/* A handler, not SIG_IGN: a command started must not inherit it. */
	sigaction(SIGPIPE, &sa, NULL);
}

/*
 * The rows' destination: stdout, -o's file, --output-fd's descriptor (none
 * of them left open in a command), and --listen's socket. The rows are
 * queued and written by the output's own thread, whenever the tracer has
 * handled the events at hand: they appear the moment they are due, in a
 * pipe too, and a slow reader never holds the tracer up.
 */
static int
open_output(struct cputrack *ct)
{
	struct out_config cfg = ct->opt.out;

	cfg.specs = ct->specs;
	cfg.pid = ct->opt.follow_fork;
	ct->out = output_open(ct->cpc, &cfg);
	return ct->out != NULL ? 0 : -1;
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
	if (ct->opt.pid != 0)
		return 1;
	if (ct->stop_signal == 0)
		ct->stop_signal = sig;
	if (ct->stop_count++ > 0)
		(void)kill(ct->target, SIGKILL);
	else if (!target_has_it && !got_it_too(ct->target, sig, si_code))
		(void)kill(ct->target, sig);
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

/*
 * The engine first (the BPF engine may refuse, or auto fall back to
 * ptrace), then the rows' stream, then the target.
 */
static int
run(struct cputrack *ct)
{
	int status = 0;

	if (ct->opt.engine != ENGINE_PTRACE)
		status = bpf_track_open(ct, ct->opt.engine == ENGINE_AUTO);
	if (status != 0 && ct->opt.engine == ENGINE_BPF)
		return status;
	if (open_output(ct) != 0)
		return 1;
	install_signals();
	return ct->bpf != NULL ? bpf_track(ct) : ptrace_track(ct);
}

/*
 * Die of the signal, so that the parent sees WIFSIGNALED (a shell ends a
 * loop only then), with everything written. The engines keep the signals
 * that end a run blocked (they read them from a descriptor): it is
 * raised, then let through. SIGQUIT dumps no core: the process is made
 * undumpable first. 128 + sig only if it somehow survives.
 */
static int
die_of(int sig)
{
	sigset_t set;

	fflush(NULL);
	if (sig == SIGQUIT)
		(void)prctl(PR_SET_DUMPABLE, 0);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	raise(sig);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
	return 128 + sig;
}

/*
 * Let everything go, in order: the processes still tracked (they run on),
 * whose records hold sets of the handle, then the handle and the rows.
 */
static int
finish(struct cputrack *ct, int status)
{
	int written;

	ptrace_let_go(ct);
	bpf_let_go(ct);
	if (ct->out != NULL) {
		cputrack_flush(ct);
		/* Rows not counted, partial or dropped change the status. */
		written = output_close(ct->out);
		if (status == 0)
			status = written;
	}
	/* A process not followed leaves the run's counts incomplete. */
	if (status == 0 && ct->uncounted)
		status = 1;
	/* A run that failed says so; one that did not may be transparent. */
	if (status == 0 && ct->opt.pass_status && ct->command_status >= 0)
		status = ct->command_status;
	setgrp_free(ct->specs);
	cpc_close(ct->cpc);
	if (ct->stop_signal != 0 && !ct->reader_gone)
		status = die_of(ct->stop_signal);
	return status;
}

int
main(int argc, char **argv)
{
	struct cputrack ct = {
		.opt = { .interval_ms = 1000 },
		.command_status = -1,
	};
	int status;

	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	diag_init(argv[0]);
	if ((ct.cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		diag(NULL, "cannot access performance counter library - %s\n",
		    strerror(errno));
		return 1;
	}
	(void)cpc_seterrhndlr(ct.cpc, diag_errhndlr);
	if ((ct.specs = setgrp_new(ct.cpc)) == NULL) {
		diag(NULL, "no memory available\n");
		return finish(&ct, 1);
	}
	if (!cputrack_options(&ct, argc, argv, &status))
		return finish(&ct, status);
	ct.nsets = setgrp_nsets(ct.specs);
	/* Every request is tried before a command starts or a pid is taken. */
	if (setgrp_check(ct.specs, -1) > 0)
		return finish(&ct, 2);
	return finish(&ct, run(&ct));
}
