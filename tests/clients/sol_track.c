/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sol_track: a small controller written the way Solaris programs use
 * libcpc and libpctx. It includes only <libcpc.h>, keeps one global state
 * with a set per LWP indexed by LWP id, and follows forks the Solaris
 * way: the fork handler, running in a copy of the controller, starts
 * the child's state afresh, sets the child's events, and runs it to its
 * end with pctx_run before it returns. The copy's memory is its own, so
 * starting afresh there must not disturb the parent's tracking.
 *
 * sol_track [-f] [-T msec] EVENT command [args ...]
 *
 * One line per event, written whole:
 *	PID LWPID tick COUNT		the LWP's count since its last tick
 *	PID LWPID lwp_exit COUNT	the LWP's total
 *	PID LWPID exit COUNT		the process's total, of ended LWPs
 *	PPID LWPID fork CHILD
 *	PID 0 run RESULT		pctx_run's result, when it returns
 */
#include <errno.h>
#include <libcpc.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>

#define MAXLWPS 4096

static struct state {
	cpc_t *cpc;
	const char *event;
	unsigned msec;
	int follow;
	cpc_set_t *sets[MAXLWPS]; /* by LWP id - 1 */
	uint64_t last[MAXLWPS];	  /* at the last tick */
	uint64_t total;		  /* of the LWPs that ended */
} state;

static int ptick(pctx_t *, pid_t, id_t, void *);

static uint64_t
sample(cpc_set_t *set)
{
	cpc_buf_t *buf = cpc_buf_create(state.cpc, set);
	uint64_t v = 0;

	if (buf == NULL || cpc_set_sample(state.cpc, set, buf) != 0) {
		fprintf(stderr, "sol_track: %d: sample: %s\n", (int)getpid(),
		    strerror(errno));
		exit(3);
	}
	(void)cpc_buf_get(state.cpc, buf, 0, &v);
	(void)cpc_buf_destroy(state.cpc, buf);
	return v;
}

static int
pinit_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	cpc_set_t *set;

	(void)pid;
	(void)arg;
	if (lwpid < 1 || lwpid > MAXLWPS ||
	    (set = cpc_set_create(state.cpc)) == NULL ||
	    cpc_set_add_request(
		state.cpc, set, state.event, 0, CPC_COUNT_USER, 0, NULL) < 0 ||
	    cpc_bind_pctx(state.cpc, pctx, lwpid, set, 0) != 0)
		return -1;
	state.sets[lwpid - 1] = set;
	state.last[lwpid - 1] = 0;
	return 0;
}

static int
pfini_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	cpc_set_t *set = state.sets[lwpid - 1];
	uint64_t v;

	(void)pctx;
	(void)arg;
	v = sample(set);
	state.total += v;
	(void)cpc_set_destroy(state.cpc, set);
	state.sets[lwpid - 1] = NULL;
	printf("%d %d lwp_exit %llu\n", (int)pid, (int)lwpid,
	    (unsigned long long)v);
	return 0;
}

static int
ptick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	uint64_t v = sample(state.sets[lwpid - 1]);

	(void)pctx;
	(void)arg;
	printf("%d %d tick %llu\n", (int)pid, (int)lwpid,
	    (unsigned long long)(v - state.last[lwpid - 1]));
	state.last[lwpid - 1] = v;
	return 0;
}

static void
pexit(pctx_t *pctx, pid_t pid, id_t lwpid, int status, void *arg)
{
	(void)pctx;
	(void)status;
	(void)arg;
	printf("%d %d exit %llu\n", (int)pid, (int)lwpid,
	    (unsigned long long)state.total);
}

static void pfork(pctx_t *, pid_t, pid_t, id_t, void *);

static int
set_events(pctx_t *pctx)
{
	return pctx_set_events(pctx, PCTX_SYSC_FORK_EVENT,
	    state.follow ? pfork : NULL, PCTX_SYSC_EXIT_EVENT, pexit,
	    PCTX_INIT_LWP_EVENT, pinit_lwp, PCTX_FINI_LWP_EVENT, pfini_lwp,
	    PCTX_NULL_EVENT);
}

/*
 * In the copy of the controller: the child's own state, from nothing, as
 * Solaris cputrack's fork handler does; the parent's is not ours.
 */
static void
pfork(pctx_t *pctx, pid_t ppid, pid_t pid, id_t lwpid, void *arg)
{
	int rc;

	(void)arg;
	printf("%d %d fork %d\n", (int)ppid, (int)lwpid, (int)pid);
	memset(state.sets, 0, sizeof(state.sets));
	memset(state.last, 0, sizeof(state.last));
	state.total = 0;
	if (set_events(pctx) != 0)
		exit(4);
	rc = pctx_run(pctx, state.msec, 0, ptick);
	printf("%d 0 run %d\n", (int)pid, rc);
}

int
main(int argc, char **argv)
{
	pctx_t *pctx;
	int i = 1, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (i < argc && strcmp(argv[i], "-f") == 0) {
		state.follow = 1;
		i++;
	}
	if (i + 1 < argc && strcmp(argv[i], "-T") == 0) {
		state.msec = (unsigned)atoi(argv[i + 1]);
		i += 2;
	}
	if (i + 1 >= argc)
		return 2;
	state.event = argv[i];
	if ((state.cpc = cpc_open(CPC_VER_CURRENT)) == NULL ||
	    (pctx = pctx_create(argv[i + 1], &argv[i + 1], NULL, 0, NULL)) ==
		NULL ||
	    set_events(pctx) != 0)
		return 1;
	rc = pctx_run(pctx, state.msec, 0, ptick);
	printf("%d 0 run %d\n", (int)pctx_pid(pctx), rc);
	pctx_release(pctx);
	(void)cpc_close(state.cpc);
	return rc == 0 ? 0 : 1;
}
