/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpustat: per-CPU system-wide counting.
 *
 *	cpustat.c	main: wires the pieces together, and the totals
 *	cpustat_opts.c	the command line
 *	cpustat_cpu.c	a thread per CPU: its sets, its samples, its soaker,
 *			and the run's schedule
 *	cpustat_stop.c	the run's stop, and the rows' flush
 *	cpustat_units.c	--per-*: the CPUs' rows summed per unit
 */
#ifndef CPUSTAT_H
#define CPUSTAT_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include "libcpc.h"
#include "output.h"
#include "setgrp.h"

/* The command line. */
struct cpustat_opts {
	unsigned interval_ms;
	bool interval_given; /* -I: the operands are a count */
	unsigned long count; /* intervals (-p: cycles); 0: no end */
	long rest_ms;	     /* -p: rest after each cycle, or -1 */
	bool soak;
	bool system_wide; /* -a: perf's, so operands may be its command */
	char timestamp;	  /* 0, 'u' or 'd' */
	/* -n, -t, --format, --output, --output-fd, --listen */
	struct out_config out;
	bool have_cpus;
	cpu_set_t cpus;	 /* --cpus, -C */
	uint_t hold;	 /* CPC_BIND_SHARED (--shared), _EXCLUSIVE or 0 */
	int per_unit;	 /* --per-*: enum topo_unit, or 0 */
	int cache_level; /* --per-cache's; 0: each CPU's highest */
};

struct cpustat;
struct cpu_unit;

/* One measured CPU: its sampling thread, its sets, and its soaker. */
struct cpu_worker {
	struct cpustat *cs;
	int cpu;
	cpu_set_t self; /* cpu alone: its rows' CPUs */
	pthread_t thread;
	bool started;
	setgrp_t *grp;
	int status; /* 0 ok, 3 bind or sample failed */
	int err;    /* the errno it failed with */
	pthread_t soaker;
	bool soaker_started;
	bool soak; /* a system-only set is bound */
	bool soaker_exit;
	pthread_mutex_t soak_lock;
	pthread_cond_t soak_cv;
	struct cpu_unit *unit; /* --per-*: the unit it is summed into */
	bool unit_arrived;     /* its row is in the unit's pending row */
};

struct cpustat {
	cpc_t *cpc;
	setgrp_t *specs; /* the -c specs (master group) */
	struct cpustat_opts opt;
	struct output *out;
	hrtime_t start; /* the samples' common schedule starts */
	pthread_mutex_t out_lock;
	pthread_mutex_t stop_lock;
	pthread_cond_t stop_cv;
	bool stop;
	int running; /* workers not yet finished */
	pthread_t main_thread;
	struct cpu_worker *workers;
	int nworkers;
	struct cpu_unit *units; /* --per-*, or NULL */
	int nunits;
	int unit_due; /* the unit whose row is written next */
	bool hint_given;
	bool write_failed; /* said once, run stopped */
};

/*
 * cpustat_opts.c: the command line (false when the run is over, with
 * *status to exit with), and libcpc's errors.
 */
bool cpustat_options(struct cpustat *cs, int argc, char **argv, int *status);

/*
 * Library errors; permission problems get cpustat's own hint instead, and
 * why a CPU could not be bound is kept, per thread, for that CPU's line.
 */
void cpustat_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap);
const char *cpustat_bind_why(void);
void cpustat_bind_why_clear(void);

/* cpustat_cpu.c: the threads. */
void *cpu_worker_main(void *arg);
void *cpu_soaker_main(void *arg);

/*
 * cpustat_stop.c: sleeping until a sample time (true when the run was
 * asked to stop); having the rows written after a row (out_lock held, or
 * one thread), a write error stopping the run.
 */
bool cpustat_wait_until(struct cpustat *cs, hrtime_t when);
void cpustat_flush(struct cpustat *cs);

/*
 * cpustat_units.c (--per-*): each worker's unit, read from sysfs before
 * the workers start (-1: said); a CPU's row handed to its unit, and its
 * leaving the unit when it stops sampling (both out_lock held).
 */
int cpustat_units_check(const struct cpustat *cs, const cpu_set_t *cpus);
int cpustat_units_build(struct cpustat *cs);
void cpustat_units_free(struct cpustat *cs);
void cpustat_unit_add(struct cpu_worker *w, int s, unsigned long n);
void cpustat_unit_leave(struct cpu_worker *w);

#endif /* CPUSTAT_H */
