/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Threads that come with no clone event.
 *
 * The kernel makes some threads of a process itself: io_uring's io-wq
 * workers (iou-wrk-TID) and submission-queue pollers (iou-sqp-TID) are
 * made by create_io_thread() with CLONE_UNTRACED, outside clone(2), and
 * a program may ask clone(2) for CLONE_UNTRACED too. Such a thread is
 * not attached to the tracer and no PTRACE_EVENT_CLONE names it, but it
 * is a thread like others otherwise: it can be seized, it stops, it is
 * counted, and its death is reported.
 *
 * So at each tick, before the tick's rows, the kernel's thread count of a
 * followed process is compared with the LWPs known (one fstat(2)); only
 * when the kernel has more is
 * /proc/PID/task read, and the unknown threads are seized and opened as
 * new LWPs (init_lwp, lwp_create). Such a thread is counted from then on:
 * what it did before it was found is not.
 *
 * The same reading of /proc/PID/task takes in every thread of a process
 * captured by pid (capture.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pctx_impl.h"

/*
 * Seize the threads of pctx that are not known yet, and with announce_them
 * open each as a new LWP; the number seized, or -1 if the process is
 * gone or a record cannot be made.
 */
int
pctxlib_seize_unknown_threads(pctx_t *pctx, bool announce_them)
{
	char path[64];
	struct dirent *de;
	const char *errstr;
	struct lwp *lwp;
	DIR *dir;
	pid_t tid;
	int seized = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pctx->pid);
	if ((dir = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(dir)) != NULL) {
		tid = (pid_t)strtonum(de->d_name, 1, INT32_MAX, &errstr);
		if (errstr != NULL || pctxlib_lwp_by_tid(tid) != NULL)
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0, (long)pctx->opts) != 0)
			continue; /* gone (ESRCH) or ours already (EPERM) */
		if ((lwp = pctxlib_lwp_add(pctx, tid, LWP_ANNOUNCED)) == NULL) {
			(void)ptrace(PTRACE_DETACH, tid, 0, 0);
			closedir(dir);
			return -1;
		}
		seized++;
		if (announce_them) {
			pctxlib_cb_init_lwp(pctx, lwp);
			pctxlib_cb_lwp_create(pctx, lwp);
		}
	}
	closedir(dir);
	return seized;
}

/*
 * At a tick: take in the threads that came with no clone event, once the
 * kernel counts more threads than are known. The kernel's count is the
 * link count of /proc/PID/task (2, and 1 per thread), which fstat(2)
 * gives without reading or walking anything; the directory stays open. A
 * count that a reading found nothing to seize for (a thread on its way in
 * or out, another tracer's) is not read for again until it changes. The
 * directory is closed with the pctx (pctxlib_proc_dispose).
 */
void
pctxlib_workers_find(pctx_t *pctx)
{
	char path[64];
	struct stat st;
	long n;

	if (pctx->threads_fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/task", pctx->pid);
		if ((pctx->threads_fd =
			    open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			return;
	}
	n = fstat(pctx->threads_fd, &st) == 0 ? (long)st.st_nlink - 2 : 0;
	if (n <= (long)pctx->nlwps) {
		pctx->threads_unseized = 0;
		return;
	}
	if (n == pctx->threads_unseized)
		return;
	pctx->threads_unseized = n;
	if (pctxlib_seize_unknown_threads(pctx, true) > 0)
		pctx->threads_unseized = 0;
}
