/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Requests from a traced LWP to its controller (pctx_request), served
 * while the LWP waits, so that they take effect before it goes on.
 *
 * The LWP queues itself a signal carrying the request: REQUEST_SIGNAL,
 * with an si_code that only a process can give a signal to itself, the
 * request code in si_errno, and in si_value the address of its answer.
 * The tracer sees the signal-delivery-stop, asks the pctx's clients,
 * writes the answer into the LWP, and restarts it without the signal.
 *
 * The LWP sends it only when its tracer is a libpctx controller, one that
 * owns the abstract socket name beacon_name(its pid): any other tracer
 * would hand the signal on. SIGURG is ignored by default, so that even
 * then (a tracer that dies in between) it does no harm.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pctx_impl.h"

#define REQUEST_SIGNAL SIGURG
#define REQUEST_CODE   0x70637478 /* "pctx"; > 0: only to oneself */
#define NO_ANSWER      (-0x7fffffffL)

static socklen_t
beacon_name(pid_t tracer, struct sockaddr_un *sun)
{
	int n;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	/* Abstract: sun_path starts with a NUL and nothing is created. */
	n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1,
	    "cpctools/libpctx/%d", (int)tracer);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* The tracer's beacon, held while pctx_run runs; -1 if it cannot be. */
int
pctxlib_beacon_open(void)
{
	struct sockaddr_un sun;
	socklen_t len = beacon_name(getpid(), &sun);
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sun, len) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether a libpctx controller holds its beacon (the name is taken). */
static bool
beacon_lit(pid_t tracer)
{
	struct sockaddr_un sun;
	socklen_t len = beacon_name(tracer, &sun);
	bool lit;
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return false;
	lit =
	    bind(fd, (struct sockaddr *)&sun, len) != 0 && errno == EADDRINUSE;
	close(fd);
	return lit;
}

static int
send_request(int code, volatile long *answer)
{
	sigset_t only, old;
	siginfo_t si;
	int rc;

	memset(&si, 0, sizeof(si));
	si.si_signo = REQUEST_SIGNAL;
	si.si_code = REQUEST_CODE;
	si.si_errno = code;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_ptr = (void *)answer;
	/* A blocked signal would not stop the LWP until later. */
	sigemptyset(&only);
	sigaddset(&only, REQUEST_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &only, &old);
	rc = (int)syscall(
	    SYS_rt_tgsigqueueinfo, getpid(), gettid(), REQUEST_SIGNAL, &si);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int
pctx_request(int code)
{
	volatile long answer = NO_ANSWER;
	pid_t tracer;

	if (pctxlib_procfs_ids(gettid(), NULL, NULL, &tracer) != 0 ||
	    tracer <= 0 || !beacon_lit(tracer)) {
		errno = ENOTSUP;
		return -1;
	}
	if (send_request(code, &answer) != 0)
		return -1;
	if (answer == NO_ANSWER) {
		errno = ENOTSUP;
		return -1;
	}
	if (answer < 0) {
		errno = (int)-answer;
		return -1;
	}
	return (int)answer;
}

/* Whether the held LWP's signal-delivery-stop is a request; si gets it. */
bool
pctxlib_is_request(const struct lwp *lwp, siginfo_t *si)
{
	if (WSTOPSIG(lwp->held_status) != REQUEST_SIGNAL ||
	    ptrace(PTRACE_GETSIGINFO, lwp->tid, 0, si) != 0)
		return false;
	return si->si_code == REQUEST_CODE && lwp->proc != NULL &&
	    si->si_pid == lwp->proc->pid;
}

static long
ask_clients(pctx_t *pctx, id_t lwpid, int code)
{
	int i, rc;

	for (i = 0; i < MAX_CLIENTS && pctx->clients[i].ops != NULL; i++) {
		if (pctx->clients[i].ops->request == NULL)
			continue;
		rc = pctx->clients[i].ops->request(
		    pctx, lwpid, code, pctx->clients[i].arg);
		if (rc != -ENOSYS)
			return rc;
	}
	return -ENOSYS;
}

/*
 * Answer a request; the signal that carried it is dropped, so the LWP
 * goes on as if it had never sent it.
 */
void
pctxlib_serve_request(struct lwp *lwp, const siginfo_t *si)
{
	long answer = ask_clients(lwp->proc, lwp->lwpid, si->si_errno);
	struct iovec local = { &answer, sizeof(answer) };
	struct iovec remote = { si->si_value.sival_ptr, sizeof(answer) };

	if (process_vm_writev(lwp->tid, &local, 1, &remote, 1, 0) !=
	    (ssize_t)sizeof(answer))
		(void)ptrace(PTRACE_POKEDATA, lwp->tid, si->si_value.sival_ptr,
		    (void *)answer);
	lwp->held_status &= ~0xff00;
}
