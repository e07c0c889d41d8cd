/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx: Solaris-style process control on Linux ptrace(2).
 *
 * A controller creates or captures a process and is called back at every
 * LWP (thread) creation and exit, fork, exec, exit, and at fixed ticks.
 *
 * How it works on Linux, and where it differs from Solaris:
 *
 * - One tracer thread (the one calling pctx_run) runs one event loop.
 *   While it runs, SIGCHLD, SIGINT, SIGTERM and SIGHUP are blocked and
 *   read from a signalfd; the signal mask and SIGCHLD's disposition are
 *   restored afterwards (SIGCHLD is set to SIG_DFL for the run if it was
 *   ignored or had SA_NOCLDSTOP). SIGINT, SIGTERM and SIGHUP arriving
 *   during pctx_run are not delivered to handlers: they act as
 *   pctx_terminate, and pctx_run returns 0. pctx_run reaps with
 *   waitpid(-1): a child of the caller that is not traced and exits during
 *   the run is reaped too (as with Solaris, which ignored SIGCHLD).
 *
 * - LWP ids: 1 is the first thread (for a captured process the leader,
 *   then the other threads in /proc/PID/task order), then creation order.
 *   After an exec, numbering restarts at 1. pctx_lwp_tid gives the tid.
 *
 * - A new thread is stopped before its first instruction; init_lwp and
 *   then lwp_create are called for it then, so that counters bound in
 *   init_lwp count from its start. After its death, fini_lwp then lwp_exit
 *   (counters stay readable with final values). A thread killed with the
 *   process (exit_group with a non-zero status, a fatal signal) gets
 *   fini_lwp only, as on Solaris; Linux cannot tell a thread killed by
 *   exit(0), or by another thread's exec, from one that called
 *   pthread_exit: those get lwp_exit too.
 *
 * - Process exit: fini_lwp for every LWP left, then exit(status), where
 *   status is the exit() argument, or 128 + the signal number for a death
 *   by signal (pctx_run still returns 0 for it).
 *
 * - exec (also by a thread other than the leader): fini_lwp for every
 *   LWP, exec(lwpid 1, the new argument string, at most 80 characters,
 *   control characters shown as '?'), then init_lwp(1). Without an exec
 *   handler the process is released (it runs on) and its run ends with 0; a
 * failing exec handler releases it and the run returns -1. A failed execve is
 * invisible without syscall stops: Solaris's fini/init of all LWPs around it
 * does not happen. A set-id image exec'd under a tracer without CAP_SYS_PTRACE
 *   runs without its privileges: this is reported through the error
 *   function; control is never lost.
 *
 * - fork and vfork are followed only when a fork handler is set (for a
 *   created command or a forked child, set it before pctx_run). The
 *   handler is called as (pctx, parent pid, child pid, lwpid, arg), the
 *   order in which the Solaris libpctx calls it and its cputrack relies
 *   on; the Solaris header's typedef names lwpid third. pctx is a new pctx
 *   for the child, inheriting arg, verbose and the error function but
 *   with default handlers. How the handler runs is the fork model
 *   (pctx_set_fork_model):
 *   PCTX_FORK_COPY, the default, as on Solaris: the handler runs in a
 *   copy of the controller (a fork of it) that has become the child's
 *   tracer; pctx_run on the child's pctx there blocks until the child is
 *   done, and when the handler returns the copy releases the child and
 *   exits with _exit(0). The controller itself goes on tracing the
 *   parent. Available on x86-64 and arm64; elsewhere the handler runs as
 *   with PCTX_FORK_ADOPT.
 *   PCTX_FORK_ADOPT: the handler runs in the controller, and pctx_run on
 *   the child's pctx does not block: it adds the child to the running
 *   loop with its own msec, nsamples and tick, calls init_lwp(1) before
 *   the child runs, and returns 0. pctx_run then returns when no followed
 *   process is left; an error in a child ends only the child's tracking,
 *   and pctx_run's result is that of its own process. Followed children
 *   are freed by the library when they exit or are released; releasing
 *   the top-level pctx releases those still followed.
 *   In both models a child not run (or released in the handler) is
 *   detached and runs on untraced.
 *
 * - Ticks come from one timerfd for the run, with absolute deadlines (no
 *   drift) at the interval of the first process that ticks; a process
 *   followed later joins that schedule. Ticks stop nothing. Deadlines missed
 * are skipped, counted (pctx_missed_ticks) and, as on Solaris, taken from
 * nsamples except the last one. After nsamples ticks the process is released
 * (runs on) and pctx_run returns 0. msec 0: no ticks, unlimited samples.
 *
 * - Signals are delivered unchanged. Job control works: SIGSTOP, SIGTSTP,
 *   SIGTTIN, SIGTTOU stop every thread of the target and SIGCONT resumes
 *   them while the run goes on (Solaris ended the run with -1 on a
 *   job-control stop).
 *
 * - The controller's own signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT that
 *   are not ignored when pctx_run starts are taken by the run (they reach
 *   no handler meanwhile): each ends the run as pctx_terminate does, or is
 *   handed to the signal hook (pctx_set_signal_hook). Ignored ones stay
 *   ignored, as under nohup. SIGTSTP, SIGTTIN and SIGTTOU, when not
 *   ignored, stop the
 *   controller as they would without libpctx, but first every captured
 *   process is let go, so that a stopped controller never holds up its
 *   targets: they run untraced until the controller continues and takes
 *   them back (their counters count on meanwhile; threads born and dead
 *   in between are reported when it does, forks made in between are not
 *   followed). A created command stays traced: it runs until it next
 *   needs the tracer (a new thread, fork, exec or signal) and waits
 *   there. A created command, the controller's own child, that stops
 *   itself (a stop signal it sent its own process) stops the controller
 *   in the same way, once stopped in every thread, with the same signal:
 *   its shell sees the job stop, as it would untraced.
 *
 * - A non-zero return from init_lwp, lwp_create, exec or tick releases
 *   the process (it runs on) and pctx_run returns -1; except that a failed
 *   init_lwp at the start of pctx_run leaves it traced and held, so that a
 *   created command still dies with the controller unless released.
 *
 * - pctx_release detaches every thread (the process runs on, created or
 *   captured; a job-control-stopped one stays stopped) and frees the pctx.
 *   pctx_terminate makes pctx_run return 0; the processes stay traced
 *   until released. If the controller dies, a created command (and its
 *   followed children) is killed (PTRACE_O_EXITKILL), a captured process
 *   runs on.
 */
#ifndef LIBPCTX_H
#define LIBPCTX_H

#include <stdarg.h>
#include <sys/types.h>

/*
 * id_t is POSIX (XSI): strict C modes (-std=c99, -std=c11 without feature
 * macros) leave it undeclared, and Solaris code includes nothing else.
 */
#if defined(__GLIBC__) && !defined(__id_t_defined)
typedef __id_t id_t;
#define __id_t_defined
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __pctx pctx_t;

typedef void(pctx_errfn_t)(const char *fn, const char *fmt, va_list ap);

typedef enum {
	PCTX_NULL_EVENT = 0,
	PCTX_SYSC_EXEC_EVENT,
	PCTX_SYSC_FORK_EVENT,
	PCTX_SYSC_EXIT_EVENT,
	PCTX_SYSC_LWP_CREATE_EVENT,
	PCTX_INIT_LWP_EVENT,
	PCTX_FINI_LWP_EVENT,
	PCTX_SYSC_LWP_EXIT_EVENT
} pctx_event_t;

typedef int pctx_sysc_execfn_t(pctx_t *, pid_t, id_t, char *, void *);
/* (pctx, parent pid, child pid, lwpid, arg): see "fork and vfork" above. */
typedef void pctx_sysc_forkfn_t(pctx_t *, pid_t, pid_t, id_t, void *);
typedef void pctx_sysc_exitfn_t(pctx_t *, pid_t, id_t, int, void *);
typedef int pctx_sysc_lwp_createfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_init_lwpfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_fini_lwpfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_sysc_lwp_exitfn_t(pctx_t *, pid_t, id_t, void *);

pctx_t *pctx_create(const char *filename, char *const *argv, void *arg,
    int verbose, pctx_errfn_t *errfn);
pctx_t *pctx_capture(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn);
int pctx_set_events(pctx_t *pctx, ...);
int pctx_run(pctx_t *pctx, unsigned int msec, unsigned int nsamples,
    int (*tick)(pctx_t *, pid_t, id_t, void *));
void pctx_release(pctx_t *pctx);
void pctx_terminate(pctx_t *pctx);

/*
 * Linux extensions.
 */

/* Kernel thread id of an LWP of the process, or -1 (ESRCH). */
pid_t pctx_lwp_tid(pctx_t *pctx, id_t lwpid);

/* The process id the pctx controls (changes never; exec keeps the pid). */
pid_t pctx_pid(pctx_t *pctx);

/* Ticks whose deadline had passed and that were skipped. */
unsigned long pctx_missed_ticks(pctx_t *pctx);

/*
 * Whether an LWP has begun to exit, or is gone: its counters can no longer
 * be opened, and the error then says little (ESRCH, or ENODEV late in the
 * exit). 1 or 0.
 */
int pctx_lwp_exiting(pctx_t *pctx, id_t lwpid);

/*
 * Call idle(arg) whenever the tracer has handled every event at hand and
 * is about to wait for more: the moment to flush buffered output. NULL
 * removes the hook.
 */
void pctx_set_idle(void (*idle)(void *arg), void *arg);

/*
 * Called, in the loop, for each SIGINT, SIGTERM, SIGHUP or SIGQUIT the
 * controller gets during pctx_run, with the signal and who sent it
 * (si_code: SI_USER for kill(2), SI_KERNEL from the terminal, ...; pid:
 * the sender, or 0). Nonzero ends the run as pctx_terminate does; 0 goes
 * on (the hook may release or kill processes meanwhile). NULL, the
 * default: every such signal ends the run.
 */
void pctx_set_signal_hook(
    int (*hook)(int sig, int si_code, pid_t pid, void *arg), void *arg);

/*
 * Data of the caller's own, one record per process and per LWP. Once set,
 * it is what callbacks receive as their last argument in place of the arg
 * given to pctx_create or pctx_capture: the LWP's data for init_lwp's
 * successors about that LWP (lwp_create, tick, fini_lwp, lwp_exit), the
 * process's data for the others (init_lwp, exec, exit, fork), each
 * falling back to the process's data, then to arg (so a caller that
 * hangs data on LWPs hangs some on every LWP, in init_lwp, to always know
 * what it receives). free_data (may be
 * NULL) is called when the record goes: an LWP's after its last callback
 * (lwp_exit, or fini_lwp at an exec, a process exit or a release), a
 * process's when its pctx is freed. Setting new data frees the old.
 * 0, or -1 with errno ESRCH for an unknown LWP.
 */
typedef void(pctx_free_t)(void *data);
int pctx_set_proc_data(pctx_t *pctx, void *data, pctx_free_t *free_data);
int pctx_set_lwp_data(
    pctx_t *pctx, id_t lwpid, void *data, pctx_free_t *free_data);

/* How a fork callback runs: see "fork and vfork" above. */
typedef enum { PCTX_FORK_COPY = 0, PCTX_FORK_ADOPT } pctx_fork_model_t;
int pctx_set_fork_model(pctx_t *pctx, pctx_fork_model_t model);

/*
 * Private interfaces, from here to their end below: the seams between
 * libpctx and libcpc, and cputrack's ptrace engine. libpctx.so.1
 * exports them at the version node LIBPCTX_PRIVATE, outside the stable
 * ABI of LIBPCTX_1: they may change in any release, and a program
 * outside cpctools should not call them.
 *
 * Libraries built on libpctx (libcpc's cpc_bind_pctx), and cputrack's
 * ptrace engine, register as clients of a pctx: gone is called when the
 * pctx goes away (released, exited, freed), request when one of its LWPs
 * calls pctx_request, tick_end at the end of each of its ticks. A client
 * is registered once per (client, arg); at most a few per pctx; any of
 * its functions may be NULL.
 * request returns an answer >= 0, or -errno: -ENOSYS for a code that is
 * not its own, so that the next client is asked.
 * tick_end is called once per deadline at which the process ticks, after
 * the tick callbacks of all its LWPs at that deadline, even where one of
 * them failed (the LWPs after it then had none): so that a client that
 * gathers an LWP's counts in each tick callback handles the tick's as
 * one, while every LWP is still there.
 */
typedef struct pctx_client {
	void (*gone)(pctx_t *pctx, void *arg);
	int (*request)(pctx_t *pctx, id_t lwpid, int code, void *arg);
	void (*tick_end)(pctx_t *pctx, void *arg);
} pctx_client_t;
int pctx_add_client(pctx_t *pctx, const pctx_client_t *client, void *arg);

/*
 * Whether an LWP is held in a ptrace-stop for the controller, so that
 * counters opened for it now start when it goes on: 1 or 0. A new LWP
 * whose first stop is still due is not held (it is already running in
 * the kernel on its way there); libpctx calls init_lwp for it at that
 * stop, where it is held.
 */
int pctx_lwp_held(pctx_t *pctx, id_t lwpid);

/*
 * Have root's pctx_run follow pctx too, as a process of the run's own
 * beside root, not as a child of it: so a controller follows several
 * captured processes in one loop. Both are captured or created, and not
 * run yet; pctx was joined by no other. The run follows each with its
 * msec, nsamples and tick, and each process's forks as its fork handler
 * says; it starts them all or none (a failed init_lwp of any leaves them
 * all held and traced), returns when no followed process is left, and
 * returns -1 when a callback of any of them failed. pctx is freed by
 * the library when it exits or is let go; pctx_release of root lets go
 * of every process joined to it, pctx_terminate of either ends the run.
 * 0, or -1 with errno EINVAL (not as said), EBUSY (inside pctx_run).
 */
int pctx_join(pctx_t *pctx, pctx_t *root);

/*
 * From a callback inside the run: stop following pctx once the event at
 * hand is handled, and let it run on untraced, as when its samples are
 * done. No further callback of it is called; the run's result is not
 * changed, and the processes joined to it (or it to) go on. A joined or
 * forked pctx is freed then; a root stays until pctx_release. Outside
 * the run it is let go at once. 0, or -1 with errno EINVAL (NULL).
 */
int pctx_let_go(pctx_t *pctx);

/*
 * Called in a traced process: ask the controller, if it is a libpctx
 * controller, to serve request code for the calling LWP, synchronously.
 * The answer (>= 0), or -1 with errno: ENOTSUP when no libpctx controller
 * traces the caller, else what the controller's client answered.
 */
int pctx_request(int code);

/*
 * For a controller that counts hardware breakpoints (perf's
 * PERF_TYPE_BREAKPOINT) in pctx's threads: a debug trap of theirs
 * (SIGTRAP with si_code TRAP_BRKPT or TRAP_HWBKPT) is dropped, not
 * delivered. The kernel sends one for a debug exception no handler
 * claimed, which a breakpoint counter's own exception becomes where a
 * hypervisor loses the guest's DR6 (KVM on Intel before Linux 6.14): it
 * would kill the thread. x86 only, where nothing else sends one but an
 * INT1 instruction; elsewhere (arm64's BRK) it does nothing. 0, or -1
 * with errno EINVAL (NULL).
 */
int pctx_drop_debug_traps(pctx_t *pctx);

/* End of the private interfaces. */

#ifdef __cplusplus
}
#endif

#endif /* LIBPCTX_H */
