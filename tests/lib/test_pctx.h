/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by the libpctx tests: real processes, real ptrace, and a libcpc
 * set counting syscalls:sys_enter_write bound to every LWP at init_lwp and
 * read at fini_lwp, so every LWP's exact number of write(2) calls is known.
 * The helpers are compiled once, in test_pctx.c (the helper library).
 */
#ifndef TEST_PCTX_H
#define TEST_PCTX_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "libcpc.h"
#include "libpctx.h"
#include "wait.h"

#define WRITE_EVENT "syscalls:sys_enter_write"
#define MAXLWPS	    8192
#define MAXPROCS    256

/* One LWP of one image of one process. */
struct lwprec {
	pid_t pid;
	int image; /* execs the process had done before */
	id_t lwpid;
	pid_t tid;
	cpc_set_t *set;
	uint64_t count; /* final, read at fini_lwp */
	int inits, finis, creates, exits, ticks;
	bool bind_failed;
	bool held;  /* at init_lwp: pctx_lwp_held() said so */
	char state; /* at init_lwp: its state in /proc */
	int order;  /* event sequence number of init_lwp */
};

struct procrec {
	pid_t pid;
	pid_t parent; /* 0 for the process the test started */
	id_t fork_lwpid;
	int images; /* exec events seen */
	int exits;
	int exit_status;
	id_t exit_lwpid;
	char cmd[96];	/* of the last exec event */
	int exit_order; /* event sequence number of exit */
	int last_fini_order;
};

/* What the callbacks recorded, and what the tests set before a run. */
extern struct lwprec lwps[MAXLWPS];
extern int nlwps;
extern struct procrec procs[MAXPROCS];
extern int nprocs;
extern cpc_t *cpc;
extern int seq;		  /* orders the callbacks */
extern bool follow_forks; /* the fork callback runs the child */
extern unsigned run_msec, run_nsamples;
extern int tick_fail_at; /* tick number that returns -1, 0: none */
extern int nticks;
extern int execs_allowed;

/* The path of a workload in $WORKLOADS (eight kept at a time). */
const char *wl(const char *name);
/* tracefs must be mounted for the tracepoint; skip when it cannot be. */
void need_tracefs(void);
void no_leak_check_in_workloads(void);
/* All three, then the handle (cpc); skip when it cannot be opened. */
void open_cpc(void);

struct procrec *proc_of(pid_t pid);
/* The LWP record of the current image, newest first. */
struct lwprec *find_lwp(pid_t pid, id_t lwpid);
struct lwprec *lwp_rec(pid_t pid, int image, id_t lwpid);
/* The set's first value, or UINT64_MAX. */
uint64_t sample(cpc_set_t *set);

/* The callbacks, which fill lwps and procs. */
int t_init(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg);
int t_fini(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg);
int t_lwp_create(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg);
int t_lwp_exit(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg);
int t_exec(pctx_t *pctx, pid_t pid, id_t lwpid, char *cmd, void *arg);
void t_exit(pctx_t *pctx, pid_t pid, id_t lwpid, int status, void *arg);
void t_fork(pctx_t *child, pid_t ppid, pid_t cpid, id_t lwpid, void *arg);
int t_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg);
/* A tick handler that ends the run with pctx_terminate: it returns 0. */
int terminate_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg);
int set_all_events(pctx_t *pctx);
/* A pctx for a workload, its events set. */
pctx_t *create_wl(char *const *argv);

/* The LWPs recorded for one image of a process. */
int count_lwps(pid_t pid, int image);
/* Every LWP recorded was opened once, held, closed once, and counted. */
void check_all_paired(void);
/* TracerPid of a thread, -1 if it is gone. */
pid_t tracer_of(pid_t pid, pid_t tid);
/* Apply fn to every thread of a process; the number of threads. */
int for_each_task(pid_t pid, void (*fn)(pid_t pid, pid_t tid, void *), void *a);
/* Start a workload untraced with stdout on a pipe; wait for "ready". */
pid_t spawn_ready(char *const *argv);
/* Kill a process the test started and reap it if it is still ours. */
void kill_reap(pid_t pid);
void alarm_guard(unsigned seconds);

#endif /* TEST_PCTX_H */
