/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack: count CPU performance events per process and per LWP of a
 * command or a running process, interval by interval. This file wires
 * the pieces together: the options, the engine, the output, the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cputrack_engine.h"
#include "cputrack_opts.h"
#include "cputrack_tty.h"
#include "diag.h"
#include "exec_refuse.h"
#include "metrics_option.h"
#include "pmumask.h"
#include "procname.h"
#include "startup.h"
#include "top.h"

/*
 * The rows' destination: stdout, -o's file, --output-fd's descriptor (none
 * of them left open in a command), and --listen's socket. The rows are
 * queued and written by the output's own thread, whenever the tracer has
 * handled the events at hand: they appear the moment they are due, in a
 * pipe too, and a slow reader never holds the tracer up.
 */

/* Whether --tid names threads of more than one process. */
static bool
tids_span_procs(const struct cputrack *ct)
{
	size_t i;

	for (i = 1; i < ct->opt.ntids; i++)
		if (ct->tid_procs[i] != ct->tid_procs[0])
			return true;
	return false;
}

static int
open_output(struct cputrack *ct)
{
	struct out_config cfg = ct->opt.out;

	cfg.specs = ct->specs;
	/* Rows of more than one process say whose they are. */
	cfg.pid = ct->opt.follow_fork || ct->opt.cgroup != NULL ||
	    ct->opt.npids > 1 || tids_span_procs(ct);
	cfg.engine = ct->engine->name;
	ct->out = output_open(ct->cpc, &cfg);
	return ct->out != NULL ? 0 : -1;
}

/*
 * --tid's threads, each with its process, looked up once for both
 * engines: the processes they take, and the rows' pid column. A thread
 * not there is said, and fails the run.
 */
static int
tids_resolve(struct cputrack *ct)
{
	const struct cputrack_opts *o = &ct->opt;
	size_t i;

	if (o->ntids == 0)
		return 0;
	if ((ct->tid_procs = calloc(o->ntids, sizeof(pid_t))) == NULL) {
		diag(NULL, "no memory available\n");
		return -1;
	}
	for (i = 0; i < o->ntids; i++)
		if ((ct->tid_procs[i] = proc_tgid(o->tids[i])) <= 0) {
			diag(NULL, "tid %d doesn't exist\n", (int)o->tids[i]);
			diag(NULL, "failed to capture tid %d\n",
			    (int)o->tids[i]);
			return -1;
		}
	return 0;
}

/*
 * The requests were tried on CPUs: now on a thread, as counted, with the
 * tests of their events there too. 0, or the status to exit with.
 */
static int
check_on_thread(struct cputrack *ct)
{
	if (ct->probe_cpu < 0)
		return 0;
	engine_probe_on_thread(ct);
	return setgrp_check(ct->specs, -1) > 0 ? 2 : 0;
}

/*
 * The engine that stands in for a refused run (cputop's processes counted
 * from outside, thread by thread).
 */
static int
open_instead(struct cputrack *ct)
{
	char why[ENGINE_WHY_LEN] = "";
	int status;

	if ((status = check_on_thread(ct)) != 0)
		return status;
	ct->engine = ct->opt.instead;
	status = ct->engine->ops->open(ct, false, why, sizeof(why));
	if (status != 0 && why[0] != '\0')
		diag(NULL, "%s\n", why);
	return status;
}

/*
 * Why engine e did not open: for auto, which counts with the next engine,
 * only under -v (or -D); else as the refusal.
 */
static void
say_refused(const struct cputrack *ct, const struct engine *e,
    const struct engine *next, const char *why)
{
	if (next != NULL && ct->opt.verbose)
		diag(NULL, "--engine=auto: counting with %s: %s\n", next->name,
		    why);
	else if (next != NULL)
		diag_debug("the %s engine cannot count here (%s): counting "
			   "with %s\n",
		    e->says, why, next->name);
	else
		diag(NULL, "--engine=%s: %s\n", e->name, why);
}

/*
 * Engine e, open, or the status to exit with: an engine that counts on
 * threads has the requests checked there first; one that refuses may
 * leave cputop's whole machine to the scan. For auto, next is the engine
 * a refusal passes the run to.
 */
static int
open_one(struct cputrack *ct, const struct engine *e, bool for_auto,
    const struct engine *next)
{
	char why[ENGINE_WHY_LEN] = "";
	int status;

	if (!e->counts_on_cpus && (status = check_on_thread(ct)) != 0)
		return status;
	if ((status = e->ops->open(ct, for_auto, why, sizeof(why))) == 0) {
		ct->engine = e;
		return 0;
	}
	/* The view's header says why: the rows would not. */
	if (why[0] != '\0' && !engine_instead(ct, why))
		say_refused(ct, e, next, why);
	return ct->opt.instead != NULL ? open_instead(ct) : status;
}

/*
 * Auto: the engines in the table's order, each refusal passing the run to
 * the next; a program that asks its tracer goes to an engine that serves
 * it.
 */
static int
open_auto(struct cputrack *ct)
{
	const struct engine *e = engine_next(NULL), *next;
	char why[ENGINE_WHY_LEN];
	int status;

	if (engine_auto_skips(ct, why, sizeof(why))) {
		while (e != NULL && !e->serves_requests)
			e = engine_next(e);
		if (e == NULL)
			return 2;
		if (ct->opt.verbose)
			diag(NULL, "--engine=auto: counting with %s: %s\n",
			    e->name, why);
		else
			diag_debug("counting with %s: %s\n", e->name, why);
		return open_one(ct, e, true, NULL);
	}
	for (; e != NULL; e = next) {
		next = engine_next(e);
		status = open_one(ct, e, true, next);
		if (status == 0 && e == engine_next(NULL) && ct->opt.verbose)
			diag(NULL,
			    "--engine=auto: counting with the %s engine\n",
			    e->says);
		if (status == 0 || ct->opt.instead != NULL || next == NULL)
			return status;
	}
	return 2;
}

/* The run's engine, open: --engine's, or auto's choice. */
static int
open_engine(struct cputrack *ct)
{
	if (ct->opt.instead != NULL)
		return open_instead(ct);
	if (ct->opt.engine == NULL)
		return open_auto(ct);
	return open_one(ct, ct->opt.engine, false, NULL);
}

/* What the run's engine still tracks runs on. */
static void
let_go(struct cputrack *ct)
{
	if (ct->engine != NULL)
		ct->engine->ops->let_go(ct);
	ct->engine = NULL;
}

/*
 * --top on a screen: a command it starts writes on a terminal of its own,
 * made before an engine forks it, and the view draws on the terminal.
 */
static int
own_terminal(struct cputrack *ct)
{
	if (!ct->opt.top || ct->opt.top_batch || ct->opt.command == NULL)
		return 0;
	if (cputrack_tty_open(ct->tty) != 0)
		return -1;
	ct->opt.out.fd = cputrack_tty_view(ct->tty);
	ct->opt.view->command_fd = ct->tty->master;
	return 0;
}

/* The engine first, then the rows' stream, then the target. */
static int
run(struct cputrack *ct)
{
	int status;

	if (tids_resolve(ct) != 0)
		return 1;
	if (ct->opt.out.fd >= 0 && output_check_fd(ct->opt.out.fd) != 0)
		return 1;
	/* Ours alone, before an engine forks the command while it loads. */
	if (ct->opt.out.fd > STDERR_FILENO)
		(void)fcntl(ct->opt.out.fd, F_SETFD, FD_CLOEXEC);
	if (own_terminal(ct) != 0)
		return 1;
	if ((status = open_engine(ct)) != 0)
		return status;
	/* The engine says how it counts; the view's settings are not its. */
	if (ct->opt.view != NULL) {
		ct->opt.view->note = ct->engine_note;
		ct->opt.view->outside =
		    ct->opt.instead != NULL ? ct->opt.instead_why : NULL;
	}
	startup_mark(ct->engine->phase);
	if (ct->out == NULL && open_output(ct) != 0)
		return 1;
	cputrack_install_signals();
	return ct->engine->ops->track(ct);
}

/*
 * -r: the command's runs, one after another on one stream, each let go
 * of before the next; a run that fails or is cut short ends them. Then
 * the summary of the runs that ended.
 */
static int
run_repeated(struct cputrack *ct)
{
	unsigned i;
	int status = 0;

	if ((ct->repeat = repeat_new(ct->specs)) == NULL) {
		diag(NULL, "no memory available\n");
		return 1;
	}
	for (i = 0; i < ct->opt.repeat; i++) {
		status = run(ct);
		let_go(ct);
		if (ct->stop_signal != 0 || ct->reader_gone)
			break;
		repeat_end_run(ct->repeat);
		if (status != 0)
			break;
	}
	if (ct->out != NULL)
		repeat_write(ct->repeat, ct->out);
	return status;
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
 * The view's command died of a signal that ends a run (q's SIGINT,
 * SIGTERM or SIGKILL, or another's): cputop, which stands where the
 * command would, dies of it too, so that a shell drops the rest of its
 * line as after Ctrl-C.
 */
static bool
view_command_killed(const struct cputrack *ct)
{
	int sig = ct->command_status - 128;

	return ct->opt.top && ct->opt.pass_status && ct->stop_signal == 0 &&
	    (sig == SIGINT || sig == SIGTERM || sig == SIGKILL);
}

/*
 * Let everything go, in order: the processes still tracked (they run on),
 * whose records hold sets of the handle, then the handle and the rows.
 */
static int
finish(struct cputrack *ct, int status)
{
	int written;

	startup_mark("counting");
	let_go(ct);
	if (ct->out != NULL) {
		cputrack_flush(ct);
		if (!ct->cut_short)
			output_linger(ct->out);
		/* The view's last words go where cputrack's would. */
		cputrack_tty_restore(ct->tty);
		row_sets_unturned(ct);
		/*
		 * Rows not counted, partial or dropped change the status, as
		 * does a write error met by this last flush.
		 */
		written = output_close(ct->out);
		if (status == 0)
			status = ct->write_failed ? 1 : written;
	}
	cputrack_tty_restore(ct->tty);
	cputrack_tty_close(ct->tty);
	/* -M's plan, which the output read until it closed. */
	metrics_option_free(&ct->opt.out);
	/* A process not followed leaves the run's counts incomplete. */
	if (status == 0 && ct->uncounted)
		status = 1;
	/* A run that failed says so; one that did not may be transparent. */
	if (status == 0 && ct->opt.pass_status && ct->command_status >= 0)
		status = ct->command_status;
	setgrp_free(ct->specs);
	cpc_close(ct->cpc);
	free(ct->opt.cgroup);
	free(ct->opt.kubelet_root);
	free(ct->opt.pids);
	free(ct->opt.tids);
	free(ct->tid_procs);
	repeat_free(ct->repeat);
	free(ct->set_counted);
	startup_report();
	if (ct->stop_signal != 0 && !ct->reader_gone)
		status = die_of(ct->stop_signal);
	if (view_command_killed(ct))
		status = die_of(ct->command_status - 128);
	return status;
}

int
main(int argc, char **argv)
{
	struct cputrack_tty tty;
	struct cputrack ct = {
		.opt = { .interval_ms = 1000 },
		.command_status = -1,
		.probe_cpu = -1,
		.tty = &tty,
	};
	const struct engine *engine;
	int status;

	startup_begin();
	cputrack_tty_init(&tty);
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	diag_init(argv[0]);
	startup_mark("locale");
	if ((ct.cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		diag_cpc_open(errno);
		return 1;
	}
	startup_mark("libcpc (PMUs)");
	(void)cpc_seterrhndlr(ct.cpc, diag_errhndlr);
	if (engine_default(&engine) == 0)
		engine_probe_where(&ct, engine);
	if ((ct.specs = setgrp_new(ct.cpc)) == NULL) {
		diag(NULL, "no memory available\n");
		return finish(&ct, 1);
	}
	if (!cputrack_options(&ct, argc, argv, &status))
		return finish(&ct, status);
	startup_mark("options and spec");
	ct.nsets = setgrp_nsets(ct.specs);
	if (row_sets_init(&ct) != 0) {
		diag(NULL, "no memory available\n");
		return finish(&ct, 1);
	}
	/*
	 * Every request is tried before a command starts or a pid is taken,
	 * as the run may count it: on a CPU by the BPF engine.
	 */
	if (pmumask_refuse_threads(ct.cpc, ct.specs) ||
	    setgrp_check(ct.specs, engine_check_cpu(&ct)) > 0)
		return finish(&ct, 2);
	startup_mark("spec check");
	/*
	 * Before any thread starts. Hardening only: a kernel or a profile
	 * that refuses it changes nothing.
	 */
	if (ct.opt.command == NULL)
		(void)exec_refuse();
	return finish(&ct, ct.opt.repeat != 0 ? run_repeated(&ct) : run(&ct));
}
