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
 *   handler the process is released (it runs on) and its run ends with 0; a failing exec handler releases
 *   it and the run returns -1. A failed execve is invisible without
 *   syscall stops: Solaris's fini/init of all LWPs around it does not
 *   happen. A set-id image exec'd under a tracer without CAP_SYS_PTRACE
 *   runs without its privileges: this is reported through the error
 *   function; control is never lost.
 *
 * - fork and vfork are followed only when a fork handler is set (for a
 *   created command or a forked child, set it before pctx_run). The child
 *   is traced by the same tracer, not by a forked controller: the fork
 *   callback gets a new pctx for it, inheriting arg, verbose and the error
 *   function but with default handlers. Inside the callback, the handler
 *   may call pctx_set_events and pctx_run on that pctx: pctx_run then does
 *   not block, it adds the child to the running loop with its own msec,
 *   nsamples and tick, calls init_lwp(1) before the child runs, and
 *   returns 0. A child not run so (or released in the callback) is
 *   detached and runs on untraced. Followed children are freed by the
 *   library when they exit or are released (libcpc is told); releasing
 *   the top-level pctx releases those still followed. pctx_run returns
 *   when no followed process is left; an error in a child ends only the
 *   child's tracking, and pctx_run's result is that of its own process.
 *
 * - Ticks come from one timerfd for the run, with absolute deadlines (no
 *   drift) at the interval of the first process that ticks; a process
 *   followed later joins that schedule. Ticks stop nothing. Deadlines missed are skipped, counted (pctx_missed_ticks) and,
 *   as on Solaris, taken from nsamples except the last one. After nsamples
 *   ticks the process is released (runs on) and pctx_run returns 0.
 *   msec 0: no ticks, unlimited samples.
 *
 * - Signals are delivered unchanged. Job control works: SIGSTOP, SIGTSTP,
 *   SIGTTIN, SIGTTOU stop the target and SIGCONT resumes it while the run
 *   goes on (Solaris ended the run with -1 on a job-control stop).
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

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __pctx pctx_t;

typedef void (pctx_errfn_t)(const char *fn, const char *fmt, va_list ap);

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
typedef void pctx_sysc_forkfn_t(pctx_t *, pid_t, id_t, pid_t, void *);
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

/* Internal link used by libcpc's cpc_bind_pctx. */
pid_t __pctx_lwp_tid(pctx_t *pctx, id_t lwpid);
int __pctx_lwp_held(pctx_t *pctx, id_t lwpid);

#ifdef __cplusplus
}
#endif

#endif /* LIBPCTX_H */
