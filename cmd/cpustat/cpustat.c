/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpustat: count CPU performance events on every CPU, system-wide.
 */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"
#include "cpustat.h"
#include "diag.h"
#include "exec_refuse.h"
#include "fdlimit.h"
#include "metrics_option.h"
#include "pmumask.h"
#include "startup.h"
#include "topology.h"

/*
 * The rows' destination: stdout, --output's file or --output-fd's
 * descriptor, and --listen's socket. Rows are queued and written by the
 * output's own thread as each comes: a slow reader never holds a CPU's
 * samples up.
 */

static int
open_output(struct cpustat *cs)
{
	struct out_config cfg = cs->opt.out;

	cfg.specs = cs->specs;
	cfg.timestamp = cs->opt.timestamp;
	cs->out = output_open(cs->cpc, &cfg);
	return cs->out != NULL ? 0 : -1;
}

static int
start_workers(struct cpustat *cs, const cpu_set_t *cpus)
{
	struct cpu_worker *w;
	int cpu, n = 0;

	cs->workers = calloc((size_t)CPU_COUNT(cpus), sizeof(*cs->workers));
	if (cs->workers == NULL)
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, cpus))
			continue;
		w = &cs->workers[n++];
		w->cs = cs;
		w->cpu = cpu;
		CPU_ZERO(&w->self);
		CPU_SET(cpu, &w->self);
		pthread_mutex_init(&w->soak_lock, NULL);
		pthread_cond_init(&w->soak_cv, NULL);
		if ((w->grp = setgrp_clone(cs->specs)) == NULL)
			return -1;
	}
	cs->nworkers = n;
	cs->running = n;
	if (cs->opt.out.per_unit != 0 && cpustat_units_build(cs) != 0)
		return -2; /* said */
	for (n = 0; n < cs->nworkers; n++) {
		w = &cs->workers[n];
		if (cs->opt.soak &&
		    pthread_create(&w->soaker, NULL, cpu_soaker_main, w) == 0)
			w->soaker_started = true;
	}
	for (n = 0; n < cs->nworkers; n++) {
		w = &cs->workers[n];
		if (pthread_create(&w->thread, NULL, cpu_worker_main, w) != 0) {
			diag(NULL, "cannot create thread for cpu%d\n", w->cpu);
			w->status = 4;
			pthread_mutex_lock(&cs->stop_lock);
			cs->running--;
			pthread_mutex_unlock(&cs->stop_lock);
			if (w->unit != NULL) {
				pthread_mutex_lock(&cs->out_lock);
				cpustat_unit_leave(w);
				pthread_mutex_unlock(&cs->out_lock);
			}
			continue;
		}
		w->started = true;
	}
	return 0;
}

/* Wait for the workers, or for a signal that asks them to stop. */
static void
wait_for_workers(struct cpustat *cs, const sigset_t *sigs)
{
	int sig;

	for (;;) {
		pthread_mutex_lock(&cs->stop_lock);
		if (cs->running == 0) {
			pthread_mutex_unlock(&cs->stop_lock);
			break;
		}
		pthread_mutex_unlock(&cs->stop_lock);
		if ((sig = sigwaitinfo(sigs, NULL)) < 0 || sig == SIGUSR1)
			continue;
		pthread_mutex_lock(&cs->stop_lock);
		cs->stop = true;
		pthread_cond_broadcast(&cs->stop_cv);
		pthread_mutex_unlock(&cs->stop_lock);
	}
}

/* How many CPUs counted set s, at least once, and which. */
static int
cpus_counting(const struct cpustat *cs, int s, cpu_set_t *cpus)
{
	int w, n = 0;

	CPU_ZERO(cpus);
	for (w = 0; w < cs->nworkers; w++)
		if (cs->workers[w].grp != NULL &&
		    setgrp_sampled(cs->workers[w].grp, s)) {
			CPU_SET(cs->workers[w].cpu, cpus);
			n++;
		}
	return n;
}

/*
 * How many CPUs had set s enabled: a set of a socket PMU's events alone
 * counts on its cpumask's CPUs, and on the others has nothing enabled.
 */
static int
cpus_timed(const struct cpustat *cs, int s)
{
	int w, n = 0;

	for (w = 0; w < cs->nworkers; w++)
		if (cs->workers[w].grp != NULL &&
		    setgrp_total(cs->workers[w].grp, s)->times.enabled_ns > 0)
			n++;
	return n;
}

/* Whether a CPU failed with err. */
static bool
some_cpu_failed_with(const struct cpustat *cs, int err)
{
	int w;

	for (w = 0; w < cs->nworkers; w++)
		if (cs->workers[w].status == 3 && cs->workers[w].err == err)
			return true;
	return false;
}

/* Whether a signal stopped the run with every CPU still counting. */
static bool
stopped_by_signal(const struct cpustat *cs)
{
	int w;

	if (!cs->stop || cs->write_failed)
		return false;
	for (w = 0; w < cs->nworkers; w++)
		if (cs->workers[w].status != 0)
			return false;
	return true;
}

/* Why no CPU counted set s. */
static const char *
never_counted(const struct cpustat *cs, int s)
{
	cpu_set_t cpus;
	int other;

	for (other = 0; other < setgrp_nsets(cs->specs); other++)
		if (other != s && cpus_counting(cs, other, &cpus) > 0)
			return "the run ended before the set's turn";
	if (some_cpu_failed_with(cs, EACCES) || some_cpu_failed_with(cs, EPERM))
		return "permission denied";
	if (some_cpu_failed_with(cs, EAGAIN))
		return "the counters it needs are held by others";
	return "no CPU could be counted";
}

/*
 * A total row per set: the sum over the CPUs that counted it, and how
 * many did. A set that no CPU counted has no values, with the reason; a
 * total that leaves CPUs out says so.
 */
static void
print_totals(struct cpustat *cs)
{
	setgrp_t *acc = setgrp_accumulator(cs->specs);
	struct out_row row = {
		.label = "total",
		.pid = -1,
		.lwp = -1,
		.tid = -1,
		.cpu = -1,
	};
	const struct set_counts *total;
	cpu_set_t counted;
	char partial[64];
	bool stopped = stopped_by_signal(cs);
	int s, w, timed;

	if (acc == NULL) {
		diag(NULL, "no memory available\n");
		return;
	}
	for (w = 0; w < cs->nworkers; w++)
		if (cs->workers[w].grp != NULL)
			setgrp_accumulate(acc, cs->workers[w].grp);
	for (s = 0; s < setgrp_nsets(acc); s++) {
		row.setno = s;
		row.ncpus = cpus_counting(cs, s, &counted);
		row.cpus = &counted;
		row.stopped_early = row.ncpus == 0 && stopped;
		row.not_counted = row.stopped_early ?
		    "the run was stopped before the set's first interval ended" :
		    row.ncpus == 0 ? never_counted(cs, s) :
				     NULL;
		row.partial = NULL;
		if (row.ncpus > 0 && row.ncpus < cs->nworkers) {
			snprintf(partial, sizeof(partial),
			    "%d of %d CPUs not "
			    "counted",
			    cs->nworkers - row.ncpus, cs->nworkers);
			row.partial = partial;
		}
		total = setgrp_total(acc, s);
		row.when = total->when;
		row.values = total->values;
		row.tick = total->tick;
		row.enabled_ns = total->times.enabled_ns;
		row.running_ns = total->times.running_ns;
		/* Each CPU's enabled time is wall time: their mean. */
		timed = cpus_timed(cs, s);
		row.elapsed_ns =
		    timed > 0 ? total->times.enabled_ns / (uint64_t)timed : 0;
		output_row(cs->out, &row);
	}
	cpustat_flush(cs);
	setgrp_free(acc);
}

static void
stop_soaker(struct cpu_worker *w)
{
	pthread_mutex_lock(&w->soak_lock);
	__atomic_store_n(&w->soaker_exit, true, __ATOMIC_RELAXED);
	pthread_cond_signal(&w->soak_cv);
	pthread_mutex_unlock(&w->soak_lock);
	pthread_join(w->soaker, NULL);
}

static int
finish(struct cpustat *cs)
{
	struct cpu_worker *w;
	int i, status = 0;

	for (i = 0; i < cs->nworkers; i++) {
		w = &cs->workers[i];
		if (w->started)
			pthread_join(w->thread, NULL);
		if (w->soaker_started)
			stop_soaker(w);
		if (w->status != 0)
			status = 1;
	}
	print_totals(cs);
	if (cs->write_failed)
		status = 1;
	/* Stopped early only by a signal or a write error: not to linger. */
	if (!cs->stop) {
		cpustat_flush(cs);
		output_linger(cs->out);
	}
	for (i = 0; i < cs->nworkers; i++)
		setgrp_free(cs->workers[i].grp);
	free(cs->workers);
	cpustat_units_free(cs);
	return status;
}

/*
 * The signals that end the run are taken by the main thread, in turn:
 * SIGINT, SIGTERM and SIGHUP, each unless it was ignored when cpustat
 * started (nohup, a script's background job). Those stay ignored: a
 * blocked signal would be taken even so. SIGUSR1 is the workers' word
 * that they are done.
 */
static void
block_signals(sigset_t *sigs)
{
	static const int ending[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction was;
	size_t i;

	sigemptyset(sigs);
	for (i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
		if (sigaction(ending[i], NULL, &was) != 0 ||
		    was.sa_handler != SIG_IGN)
			sigaddset(sigs, ending[i]);
	sigaddset(sigs, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, sigs, NULL);
}

static int
run(struct cpustat *cs)
{
	pthread_condattr_t cattr;
	cpu_set_t cpus;
	sigset_t sigs;
	struct pmumask_use sockets;
	int cpu, status, measurable;

	/*
	 * A per-socket PMU's events count on the CPUs of its cpumask alone:
	 * a run of them alone binds those CPUs, and one beside other events
	 * every CPU, libcpc opening them where the cpumask says.
	 */
	pmumask_scan(cs->cpc, cs->specs, &sockets);
	measurable =
	    cpus_measurable(&cpus, cs->opt.have_cpus ? &cs->opt.cpus : NULL);
	if (measurable == 0 &&
	    pmumask_refuse_mixed(
		&sockets, cs->opt.out.per_unit == TOPO_SOCKET, &cpus))
		return 2;
	if (measurable == 0 && sockets.socket_reqs > 0 && sockets.cpu_reqs == 0)
		CPU_AND(&cpus, &cpus, &sockets.cpus);
	if (measurable != 0 || CPU_COUNT(&cpus) == 0) {
		diag(NULL,
		    "no CPU to measure: none is online and in this "
		    "process's affinity mask%s%s\n",
		    cs->opt.have_cpus ? " and --cpus" : "",
		    sockets.socket_reqs > 0 ? " and the PMU's cpumask" : "");
		return 1;
	}
	/* Every request is tried on a CPU to be measured, before any bind. */
	for (cpu = 0; !CPU_ISSET(cpu, &cpus); cpu++)
		;
	(void)cpc_seterrhndlr(cs->cpc, diag_errhndlr);
	startup_mark("options and spec");
	if (setgrp_check(cs->specs, cpu) > 0 ||
	    cpustat_units_check(cs, &cpus) != 0)
		return 2;
	startup_mark("spec check");
	/* Before any thread starts; a refusal changes nothing. */
	(void)exec_refuse();
	(void)cpc_seterrhndlr(cs->cpc, cpustat_errhndlr);
	if (open_output(cs) != 0)
		return 1;
	pthread_mutex_init(&cs->out_lock, NULL);
	pthread_mutex_init(&cs->stop_lock, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&cs->stop_cv, &cattr);
	block_signals(&sigs);
	cs->main_thread = pthread_self();
	output_title(cs->out);
	cpustat_flush(cs);
	cs->start = output_start_clock(cs->out);
	if ((status = start_workers(cs, &cpus)) != 0) {
		if (status == -1)
			diag(NULL, "no memory available\n");
		return 1;
	}
	startup_started("CPUs' workers started");
	wait_for_workers(cs, &sigs);
	return finish(cs);
}

int
main(int argc, char **argv)
{
	struct cpustat cs = {
		.opt = { .interval_ms = 5000, .rest_ms = -1 },
	};
	int status, written;

	startup_begin();
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	diag_init(argv[0]);
	raise_fd_limit(true);
	startup_mark("locale");
	if ((cs.cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		diag_cpc_open(errno);
		return 1;
	}
	startup_mark("libcpc (PMUs)");
	(void)cpc_seterrhndlr(cs.cpc, cpustat_errhndlr);
	if ((cs.specs = setgrp_new(cs.cpc)) == NULL)
		status = 1;
	else if (cpustat_options(&cs, argc, argv, &status))
		status = run(&cs);
	startup_mark("counting");
	/* Values not counted, partial totals or rows dropped: the status. */
	written = output_close(cs.out);
	if (status == 0)
		status = written;
	/* -M's plan, which the output read until it closed. */
	metrics_option_free(&cs.opt.out);
	setgrp_free(cs.specs);
	cpc_close(cs.cpc);
	startup_report();
	return status;
}
