/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guard of a started command: a cputrack killed with SIGKILL kills
 * the command it still tracks, as the ptrace engine's PTRACE_O_EXITKILL
 * does, while a command the engine let go runs on after it.
 *
 * The command's own parent-death signal cannot make that difference: it
 * outlives the exec, no one but the command can take it back, and it
 * comes at every end of its parent (a command let go at an exec, at -N
 * or at SIGPIPE must run on after a cputrack that exits). The guard is a
 * small process of its own session, no child of cputrack's (its parent
 * exits at once), that holds the command's pidfd and one end of a socket
 * pair only cputrack writes to: "r" dismisses it; the end of the socket
 * without it, that is cputrack gone without letting the command go,
 * makes it kill the command through the pidfd, which names that process
 * and no later one of the same pid, then end. A dismissed guard's end
 * closing tells cputrack that it has gone: nothing of the run outlives
 * the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfeng_impl.h"

/* Every descriptor but a and b. */
static void
close_all_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, fd;
	struct rlimit rl;

	if ((lo == 0 || syscall(SYS_close_range, 0U, lo - 1, 0U) == 0) &&
	    (hi == lo + 1 ||
		syscall(SYS_close_range, lo + 1, hi - 1, 0U) == 0) &&
	    syscall(SYS_close_range, hi + 1, ~0U, 0U) == 0)
		return;
	/* Before Linux 5.9: one at a time, up to the limit. */
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur > 1 << 20)
		rl.rlim_cur = 1 << 20;
	for (fd = 0; fd < (int)rl.rlim_cur; fd++)
		if (fd != a && fd != b)
			(void)close(fd);
}

/*
 * Only system calls: the fork of a threaded process may hold a lock of
 * malloc's or stdio's.
 */
static void __attribute__((noreturn)) guard_main(int life, int pidfd)
{
	sigset_t none;
	char byte = 0;
	ssize_t n;
	int sig;

	close_all_but(life, pidfd);
	/* Out of the job: no terminal signal or job-control stop. */
	(void)setsid();
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)signal(sig, SIG_DFL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)prctl(PR_SET_NAME, "cputrack-guard", 0, 0, 0);
	while ((n = read(life, &byte, 1)) < 0 && errno == EINTR)
		;
	if (n == 0)
		(void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0U);
	_exit(0);
}

int
eng_guard_start(struct bpfeng *eng)
{
	int life[2], status = -1, err;
	pid_t mid;

	/* Without pidfds (before Linux 5.3), no kill could be sure. */
	if (eng->child_fd < 0)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, life) != 0)
		return -1;
	if ((mid = fork()) < 0) {
		err = errno;
		close(life[0]);
		close(life[1]);
		errno = err;
		return -1;
	}
	if (mid == 0) {
		/* The guard's parent ends at once: cputrack has no more
		 * children than the command. */
		pid_t guard = fork();

		if (guard == 0)
			guard_main(life[0], eng->child_fd);
		_exit(guard < 0 ? 1 : 0);
	}
	close(life[0]);
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		close(life[1]);
		errno = EAGAIN;
		return -1;
	}
	eng->guard_fd = life[1];
	eng->guard_dismissed = false;
	return 0;
}

/*
 * Its end: it reads "r" and exits, which closes its end of the pair.
 * Dismissed when the command ends or is let go, it exits while the run
 * ends; bpfeng_close waits for it (eng_guard_gone).
 */
#define GUARD_END_MS 1000

void
eng_guard_dismiss(struct bpfeng *eng)
{
	if (eng->guard_fd < 0 || eng->guard_dismissed)
		return;
	/* A guard gone already has nothing to be dismissed of. */
	eng->guard_dismissed = true;
	if (send(eng->guard_fd, "r", 1, MSG_NOSIGNAL) != 1) {
		close(eng->guard_fd);
		eng->guard_fd = -1;
	}
}

void
eng_guard_gone(struct bpfeng *eng)
{
	struct pollfd pfd = { .fd = eng->guard_fd, .events = POLLIN };
	char byte;
	int n;

	if (eng->guard_fd < 0)
		return;
	eng_guard_dismiss(eng);
	/* It never writes: what ends the wait is its end's close. */
	while (eng->guard_fd >= 0 && (n = poll(&pfd, 1, GUARD_END_MS)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || read(eng->guard_fd, &byte, 1) <= 0)
			break;
	}
	if (eng->guard_fd >= 0)
		close(eng->guard_fd);
	eng->guard_fd = -1;
}
