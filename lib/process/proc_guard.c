/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guard of a started command (see proc_guard.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc_guard.h"

#define GUARD_END_MS   1000    /* for a dismissed guard to go */
#define GUARD_TREE_MAX 4096    /* processes of a tree, the command's first */
#define GUARD_ROUNDS   200     /* looks for more below them, at most */
#define GUARD_QUIET    3       /* looks that find none: the tree is whole */
#define GUARD_PAUSE_NS 1000000 /* between looks: for the stops to land */
#define DIRENT_BUF     8192

/*
 * The processes found, each named by a descriptor of its /proc directory
 * (or -1: by its pid only).
 */
struct tree {
	pid_t pid[GUARD_TREE_MAX];
	int fd[GUARD_TREE_MAX];
	int n;
};

/*
 * By the descriptor, which names that process and no later one of its
 * pid; by the pid only where there is none, or no pidfd_send_signal
 * (before Linux 5.1).
 */
static void
guard_signal(const struct tree *t, int i, int sig)
{
	if (t->fd[i] >= 0 &&
	    (syscall(SYS_pidfd_send_signal, t->fd[i], sig, NULL, 0U) == 0 ||
		errno != ENOSYS))
		return;
	(void)kill(t->pid[i], sig);
}

/* "/proc/PID" into path, with system calls' means alone; its length. */
static int
proc_path(pid_t pid, char path[32])
{
	char digits[12];
	int n = 0, at;

	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) > 0);
	memcpy(path, "/proc/", 6);
	for (at = 6; n > 0; at++)
		path[at] = digits[--n];
	path[at] = '\0';
	return at;
}

int
proc_guard_open(pid_t pid)
{
	char path[32];

	(void)proc_path(pid, path);
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static bool
in_tree(const struct tree *t, pid_t pid)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->pid[i] == pid)
			return true;
	return false;
}

/*
 * The parent of pid, from /proc/PID/stat ("pid (comm) state ppid ...",
 * comm may hold anything: the fields follow its last ')'); 0 if gone.
 */
static pid_t
parent_of(pid_t pid)
{
	char path[32], text[512], *p, *paren = NULL;
	ssize_t n;
	pid_t ppid = 0;
	int fd;

	memcpy(path + proc_path(pid, path), "/stat", 6);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	(void)close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	for (p = text; *p != '\0'; p++)
		if (*p == ')')
			paren = p;
	/* ") S ppid" */
	if (paren == NULL || paren[1] != ' ' || paren[2] == '\0' ||
	    paren[3] != ' ')
		return 0;
	for (p = paren + 4; *p >= '0' && *p <= '9'; p++)
		ppid = ppid * 10 + (*p - '0');
	return ppid;
}

/*
 * Take pid, a child of a process of the tree: named by a descriptor of
 * its /proc directory taken while its parent, stopped, still is that (a
 * pid used again since would have another parent), and stopped. Whether
 * it was taken.
 */
static bool
take(struct tree *t, pid_t pid)
{
	int fd;

	if (t->n == GUARD_TREE_MAX)
		return false;
	fd = proc_guard_open(pid);
	if (!in_tree(t, parent_of(pid))) {
		if (fd >= 0)
			(void)close(fd);
		return false;
	}
	t->pid[t->n] = pid;
	t->fd[t->n] = fd;
	guard_signal(t, t->n, SIGSTOP);
	t->n++;
	return true;
}

/* One look through /proc for children of the tree: how many were taken. */
static int
look(struct tree *t)
{
	char buf[DIRENT_BUF];
	struct dirent64_head {
		uint64_t ino;
		int64_t off;
		unsigned short reclen;
		unsigned char type;
		char name[];
	} * d;
	long n, at;
	pid_t pid;
	int dir, taken = 0;
	const char *c;

	if ((dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (at = 0; at < n; at += d->reclen) {
			d = (struct dirent64_head *)(void *)(buf + at);
			pid = 0;
			for (c = d->name; *c >= '0' && *c <= '9'; c++)
				pid = pid * 10 + (*c - '0');
			if (*c != '\0' || pid <= 0 || in_tree(t, pid))
				continue;
			if (in_tree(t, parent_of(pid)) && take(t, pid))
				taken++;
		}
	}
	(void)close(dir);
	return taken;
}

/*
 * The processes of the tree stopped (the command, and those the owner
 * handed over), then each process below them, found by its parent and
 * stopped as it is found, until some looks in a row find none, then all
 * killed.
 */
static void
kill_tree(struct tree *t)
{
	struct timespec pause = { 0, GUARD_PAUSE_NS };
	int round, quiet = 0;

	for (round = 0; round < t->n; round++)
		guard_signal(t, round, SIGSTOP);
	for (round = 0; round < GUARD_ROUNDS && quiet < GUARD_QUIET; round++) {
		quiet = look(t) > 0 ? 0 : quiet + 1;
		(void)nanosleep(&pause, NULL);
	}
	for (round = 0; round < t->n; round++)
		guard_signal(t, round, SIGKILL);
}

/* What the owner says: 'r', dismissed; '+', a process handed over. */
struct word {
	char what;
	pid_t pid; /* '+': its pid, its descriptor with it */
};

/*
 * What the owner says next, in *w: 1; 0 at the end of the socket, -1 on
 * an error. The descriptor of a process handed over comes in *fd, else
 * -1.
 */
static int
hear(int life, struct word *w, int *fd)
{
	union {
		struct cmsghdr align;
		char space[CMSG_SPACE(sizeof(int))];
	} control;
	struct iovec iov = { .iov_base = w, .iov_len = sizeof(*w) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	memset(w, 0, sizeof(*w));
	msg.msg_control = control.space;
	msg.msg_controllen = sizeof(control.space);
	while (
	    (n = recvmsg(life, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (n <= 0)
		return (int)n;
	c = CMSG_FIRSTHDR(&msg);
	if (c != NULL && c->cmsg_level == SOL_SOCKET &&
	    c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 1;
}

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
static void __attribute__((noreturn))
guard_main(int life, int pidfd, pid_t pid, bool tree)
{
	static struct tree t; /* the forked guard's own */
	struct word w;
	sigset_t none;
	int sig, fd, n;

	close_all_but(life, pidfd);
	/* Out of the job: no terminal signal or job-control stop. */
	(void)setsid();
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)signal(sig, SIG_DFL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	/*
	 * The system call, not prctl(3): a sanitizer's prctl names the
	 * thread under a lock that another thread may have held at the fork,
	 * and the guard waited for it for ever.
	 */
	(void)syscall(SYS_prctl, PR_SET_NAME, "cputrack-guard", 0UL, 0UL, 0UL);
	t.pid[0] = pid;
	t.fd[0] = pidfd;
	t.n = 1;
	while ((n = hear(life, &w, &fd)) > 0 && w.what != 'r') {
		if (fd < 0)
			continue;
		if (w.what != '+' || w.pid <= 0 || t.n == GUARD_TREE_MAX) {
			(void)close(fd);
			continue;
		}
		t.pid[t.n] = w.pid;
		t.fd[t.n++] = fd;
	}
	if (n == 0 && tree)
		kill_tree(&t);
	else if (n == 0)
		guard_signal(&t, 0, SIGKILL);
	_exit(0);
}

void
proc_guard_init(struct proc_guard *g)
{
	g->fd = -1;
	g->dismissed = false;
}

int
proc_guard_start(struct proc_guard *g, int pidfd, pid_t pid, bool tree)
{
	int life[2], status = -1, err;
	pid_t mid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, life) != 0)
		return -1;
	if ((mid = fork()) < 0) {
		err = errno;
		(void)close(life[0]);
		(void)close(life[1]);
		errno = err;
		return -1;
	}
	if (mid == 0) {
		/* The guard's parent ends at once: the owner has no more
		 * children than the command. */
		pid_t guard = fork();

		if (guard == 0)
			guard_main(life[0], pidfd, pid, tree);
		_exit(guard < 0 ? 1 : 0);
	}
	(void)close(life[0]);
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		(void)close(life[1]);
		errno = EAGAIN;
		return -1;
	}
	g->fd = life[1];
	g->dismissed = false;
	return 0;
}

void
proc_guard_add(struct proc_guard *g, pid_t pid)
{
	union {
		struct cmsghdr align;
		char space[CMSG_SPACE(sizeof(int))];
	} control;
	struct word w = { .what = '+', .pid = pid };
	struct iovec iov = { .iov_base = &w, .iov_len = sizeof(w) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	int fd;

	if (g->fd < 0 || g->dismissed || (fd = proc_guard_open(pid)) < 0)
		return;
	memset(&control, 0, sizeof(control));
	msg.msg_control = control.space;
	msg.msg_controllen = sizeof(control.space);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	(void)sendmsg(g->fd, &msg, MSG_NOSIGNAL);
	(void)close(fd);
}

/*
 * Its end: it reads "r" and exits, which closes its end of the pair.
 * Dismissed when the command ends or is let go, it exits while the run
 * ends; proc_guard_gone waits for it.
 */
void
proc_guard_dismiss(struct proc_guard *g)
{
	if (g->fd < 0 || g->dismissed)
		return;
	/* A guard gone already has nothing to be dismissed of. */
	g->dismissed = true;
	if (send(g->fd, &(struct word) { .what = 'r' }, sizeof(struct word),
		MSG_NOSIGNAL) != (ssize_t)sizeof(struct word)) {
		(void)close(g->fd);
		g->fd = -1;
	}
}

void
proc_guard_gone(struct proc_guard *g)
{
	struct pollfd pfd = { .fd = g->fd, .events = POLLIN };
	char byte;
	int n;

	if (g->fd < 0)
		return;
	proc_guard_dismiss(g);
	/* It never writes: what ends the wait is its end's close. */
	while (g->fd >= 0 && (n = poll(&pfd, 1, GUARD_END_MS)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || read(g->fd, &byte, 1) <= 0)
			break;
	}
	if (g->fd >= 0)
		(void)close(g->fd);
	g->fd = -1;
}
