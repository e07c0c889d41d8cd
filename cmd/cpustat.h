/*
 * cpustat: per-CPU system-wide counting.
 */
#ifndef CPUSTAT_H
#define CPUSTAT_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include "libcpc.h"
#include "output.h"
#include "spec.h"

struct cpustat;

/* One measured CPU: its sampling thread, its sets, and its soaker. */
struct cpu_worker {
	struct cpustat	*cs;
	int		 cpu;
	pthread_t	 thread;
	bool		 started;
	struct rotation	*rot;
	int		 status;	/* 0 ok, 3 bind or sample failed */
	uint64_t	 prev_enabled;	/* current slice, at the last sample */
	uint64_t	 prev_running;
	uint64_t	*tot_enabled;	/* per set: summed over its rows */
	uint64_t	*tot_running;
	pthread_t	 soaker;
	bool		 soaker_started;
	bool		 soak;		/* a system-only set is bound */
	bool		 soaker_exit;
	pthread_mutex_t	 soak_lock;
	pthread_cond_t	 soak_cv;
};

struct cpustat {
	cpc_t		*cpc;
	struct setgrp	 grp;
	struct output	 out;
	unsigned	 interval_ms;
	unsigned long	 count;		/* 0: unlimited */
	long		 rest_ms;	/* -p: rest after each cycle, or -1 */
	bool		 tick_col;
	bool		 no_title;
	bool		 soak;
	char		 timestamp;	/* 0, 'u' or 'd' */
	hrtime_t	 start;
	pthread_mutex_t	 out_lock;
	pthread_mutex_t	 stop_lock;
	pthread_cond_t	 stop_cv;
	bool		 stop;
	int		 running;	/* workers not yet finished */
	pthread_t	 main_thread;
	struct cpu_worker *workers;
	int		 nworkers;
	bool		 hint_given;
	bool		 write_failed;	/* stdout: said once, run stopped */
};

void *cpu_worker_main(void *arg);
void *cpu_soaker_main(void *arg);
bool cpustat_wait_until(struct cpustat *cs, const struct timespec *when);
void cpustat_check_output(struct cpustat *cs);

#endif /* CPUSTAT_H */
