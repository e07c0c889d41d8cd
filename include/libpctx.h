/*
 * libpctx: Solaris-style process control on Linux ptrace(2).
 *
 * A controller creates or captures a process and is called back at every
 * LWP (thread) creation and exit, fork, exec, exit, and at fixed ticks.
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

/* Internal link used by libcpc's cpc_bind_pctx. */
pid_t __pctx_lwp_tid(pctx_t *pctx, id_t lwpid);

#ifdef __cplusplus
}
#endif

#endif /* LIBPCTX_H */
