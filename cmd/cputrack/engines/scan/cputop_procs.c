/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputop's records of the processes and threads it counts from outside
 * (cputop_scan.h), as both the scan and what counts the tasks that ended
 * between two scans find them: a process by its pid, a thread by its tid,
 * in the arrays the scan keeps sorted.
 */
#include <stdlib.h>

#include "cputop_scan.h"
#include "diag.h"

int
scan_by_tid(const void *a, const void *b)
{
	pid_t x = (*(struct scan_lwp *const *)a)->base.who.tid,
	      y = (*(struct scan_lwp *const *)b)->base.who.tid;

	return (x > y) - (x < y);
}

int
scan_by_pid(const void *a, const void *b)
{
	pid_t x = (*(struct scan_proc *const *)a)->base.pid,
	      y = (*(struct scan_proc *const *)b)->base.pid;

	return (x > y) - (x < y);
}

struct scan_lwp *
scan_lwp_of(const struct scan_proc *p, pid_t tid)
{
	struct scan_lwp key, *k = &key, **found;

	key.base.who.tid = tid;
	found = p->nlwps == 0 ? NULL :
				bsearch(&k, p->lwps, (size_t)p->nlwps,
				    sizeof(*p->lwps), scan_by_tid);
	return found != NULL ? *found : NULL;
}

struct scan_proc *
scan_proc_of(const struct scan_track *st, pid_t pid)
{
	struct scan_proc key, *k = &key, **found;

	key.base.pid = pid;
	found = st->nprocs == 0 ?
	    NULL :
	    bsearch(&k, st->procs, st->nprocs, sizeof(*st->procs), scan_by_pid);
	return found != NULL ? *found : NULL;
}

void
scan_no_memory(struct scan_track *st)
{
	diag(NULL, "no memory available\n");
	st->ended_run = true;
	st->status = 1;
}
