/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The target: a command the engine starts, which waits until it is
 * tracked and then execs, or a running process whose threads the engine
 * finds in /proc and counts from then on. Nothing is stopped or traced.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfeng_impl.h"
#include "proc_tgid.h"

/* Passes over /proc/PID/task before a process that never stops making
 * threads is given up on. */
#define ATTACH_PASSES 1000
/*
 * How long a started command's first record may take: it is sent within
 * the exec that the caller has seen succeed, so only a lost one waits.
 */
#define BEGIN_WAIT_MS 1000

int
eng_track_proc(struct bpfeng *eng, pid_t pid, uint32_t flags)
{
	struct bpfeng_proc proc = { .flags = flags };
	uint32_t key = (uint32_t)pid;

	return bpf_map_update_elem(eng->procs_fd, &key, &proc, BPF_ANY);
}

static void
untrack_proc(struct bpfeng *eng, pid_t pid)
{
	uint32_t key = (uint32_t)pid;

	(void)bpf_map_delete_elem(eng->procs_fd, &key);
}

/*
 * Insert a thread with zero counts, counting nothing from before start_ns;
 * EEXIST when BPF tracks it already.
 */
static int
track_thread(
    struct bpfeng *eng, pid_t pid, pid_t tid, uint32_t flags, uint64_t start_ns)
{
	struct bpfeng_thread *t;
	uint32_t key = (uint32_t)tid;

	if (eng->zero_value == NULL &&
	    (eng->zero_value = calloc(1, eng->value_size)) == NULL)
		return -1;
	t = eng->zero_value;
	t->pid = (uint32_t)pid;
	t->flags = flags;
	t->start_ns = start_ns;
	return bpf_map_update_elem(eng->threads_fd, &key, t, BPF_NOEXIST);
}

/*
 * The child's end wakes the caller's poll. Without pidfds (Linux 5.3) its
 * exit record does, and dispatch reaps it all the same.
 */
static void
watch_child(struct bpfeng *eng)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (eng->child_fd < 0)
		return;
	ev.data.fd = eng->child_fd;
	if (epoll_ctl(eng->epfd, EPOLL_CTL_ADD, eng->child_fd, &ev) != 0) {
		close(eng->child_fd);
		eng->child_fd = -1;
	}
}

/*
 * The command is announced at its first image's record, which comes
 * before any other of its own and names it as it was at its exec: /proc
 * may already name its next image. Without the record (the command was
 * killed within its exec), it is named from /proc.
 */
static int
await_first_image(struct bpfeng *eng, pid_t pid, uint64_t begun)
{
	struct epoll_event ev;
	int n;

	eng->starting = pid;
	eng->starting_ns = begun;
	eng->start_err = 0;
	for (;;) {
		(void)ring_buffer__consume(eng->rb);
		if (eng->starting == 0)
			break;
		n = epoll_wait(eng->epfd, &ev, 1, BEGIN_WAIT_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || ev.data.fd == eng->child_fd) {
			(void)ring_buffer__consume(eng->rb);
			break;
		}
	}
	if (eng->starting != 0)
		eng_announce_started(eng, NULL);
	return eng->start_err;
}

/* The child never ran the command: drop whatever it left behind. */
static void
abandon_child(struct bpfeng *eng, pid_t pid)
{
	eng->child = pid;
	eng_kill_child(eng);
	eng->discard = pid;
	(void)eng_events_drain(eng);
	eng->discard = 0;
	untrack_proc(eng, pid);
	eng_forget_all(eng);
}

/*
 * The command forked while the programs loaded, with its pidfd and its
 * guard; or forked now.
 */
static int
command_forked(struct bpfeng *eng, char *const argv[], struct eng_command *c,
    bool *guarded)
{
	*guarded = eng_command_take(eng, argv, c);
	if (*guarded)
		return 0;
	if (eng_command_fork(eng, argv, c) != 0)
		return -1;
	eng->child_fd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	return 0;
}

pid_t
bpfeng_start(struct bpfeng *eng, char *const argv[], char *why, size_t whylen)
{
	struct eng_command c;
	uint64_t begun;
	bool guarded;
	pid_t pid;
	int err;

	if (eng->target != 0 || argv == NULL || argv[0] == NULL) {
		eng_why(why, whylen, "the engine has a target already");
		errno = EINVAL;
		return -1;
	}
	if (command_forked(eng, argv, &c, &guarded) != 0) {
		err = errno;
		eng_why(why, whylen, "cannot fork, program '%s' - %s", argv[0],
		    strerror(err));
		errno = err;
		return -1;
	}
	pid = c.pid;
	watch_child(eng);
	*eng->command_pid = (uint32_t)pid;
	if ((!guarded && eng_guard_start(eng, pid) != 0) ||
	    eng_track_proc(eng, pid,
		(eng->flags & BPFENG_FOLLOW_START_EXEC) ?
		    BPFENG_PROC_FOLLOW_EXEC :
		    0) != 0 ||
	    track_thread(eng, pid, pid, BPFENG_THREAD_AWAIT_EXEC, 0) != 0) {
		err = errno;
		eng_command_close(&c);
		abandon_child(eng, pid);
		eng_why(why, whylen, "cannot track program '%s' - %s", argv[0],
		    strerror(err));
		errno = err;
		return -1;
	}
	/* Counted from its exec, after this: its rows' spans hold it all. */
	begun = eng_now_ns();
	err = eng_command_go(&c);
	if (err == 0 && await_first_image(eng, pid, begun) != 0) {
		abandon_child(eng, pid);
		eng_why(why, whylen, "cannot track program '%s' - %s", argv[0],
		    strerror(ENOMEM));
		errno = ENOMEM;
		return -1;
	}
	if (err != 0) {
		abandon_child(eng, pid);
		/* As the ptrace engine (libpctx) says it. */
		if (err == ENOENT)
			eng_why(
			    why, whylen, "cannot find program '%s'", argv[0]);
		else
			eng_why(why, whylen, "cannot execute program '%s': %s",
			    argv[0], strerror(err));
		errno = err;
		return -1;
	}
	eng->child = eng->target = pid;
	return pid;
}

/* A wait report of the child's end, not of a stop. */
static bool
ended(const siginfo_t *si)
{
	return si->si_code == CLD_EXITED || si->si_code == CLD_KILLED ||
	    si->si_code == CLD_DUMPED;
}

/*
 * Whether the child has ended, and is reaped. A command that made
 * cputrack its tracer (PTRACE_TRACEME) has its stops reported to any
 * wait, whatever it asks for: a look here leaves them to cputrack, which
 * lets it go at its first (a stop taken here would leave it stopped for
 * good). A blocking wait, for a child killed, takes them until its end.
 */
static bool
child_reaped(pid_t child, bool wait)
{
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)child, &si,
			WEXITED | (wait ? 0 : WNOHANG | WNOWAIT)) != 0) {
			if (errno == EINTR)
				continue;
			return true; /* ECHILD: there is none to wait for */
		}
		if (si.si_pid == 0 || (!wait && !ended(&si)))
			return false;
		if (!ended(&si))
			continue;
		if (!wait)
			while (waitid(P_PID, (id_t)child, &si, WEXITED) != 0 &&
			    errno == EINTR)
				;
		return true;
	}
}

void
eng_reap_child(struct bpfeng *eng, bool wait)
{
	if (eng->child <= 0 || !child_reaped(eng->child, wait))
		return;
	eng->child = 0;
	eng_guard_dismiss(eng);
	if (eng->child_fd >= 0) {
		(void)epoll_ctl(eng->epfd, EPOLL_CTL_DEL, eng->child_fd, NULL);
		close(eng->child_fd);
	}
	eng->child_fd = -1;
}

void
eng_kill_child(struct bpfeng *eng)
{
	if (eng->child <= 0)
		return;
	if (!eng->child_released)
		(void)kill(eng->child, SIGKILL);
	else if (eng->child_fd >= 0) {
		/* It runs on, untracked: not ours to wait for. */
		eng_guard_dismiss(eng);
		close(eng->child_fd);
		eng->child_fd = -1;
		eng->child = 0;
		return;
	}
	eng_reap_child(eng, true);
}

/* A task's state letter and flags from its stat file in /proc. */
static int
read_stat(const char *path, char *state, unsigned long *flags)
{
	char text[1024], *p;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	if ((p = strrchr(text, ')')) == NULL ||
	    sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", state, flags) != 2)
		return -1;
	return 0;
}

/* The thread's state letter from /proc; 0 when it is gone. */
static char
thread_state(pid_t pid, pid_t tid)
{
	char path[64], state;
	unsigned long flags;

	snprintf(
	    path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	return read_stat(path, &state, &flags) == 0 ? state : 0;
}

int
bpfeng_capturable(pid_t pid, char *why, size_t whylen)
{
	char path[64], state;
	unsigned long flags;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pid == getpid())
		eng_why(why, whylen, "cannot capture self!");
	else if (pid <= 0 || read_stat(path, &state, &flags) != 0)
		eng_why(why, whylen, "pid %d doesn't exist", (int)pid);
	else if (flags & BPFENG_PF_KTHREAD)
		eng_why(why, whylen, "pid %d is a system process", (int)pid);
	else if (state == 'Z' || state == 'X')
		eng_why(why, whylen, "pid %d is a zombie", (int)pid);
	else
		return 0;
	return -1;
}

/*
 * Track one thread found in /proc, from now: a CPU's counts from before
 * are not its, even if it runs there now. A thread that ended meanwhile
 * is untracked again, unless BPF saw its end first (its record is on its
 * way, so it is announced). EEXIST: BPF saw it start, and announces it.
 */
static int
adopt_thread(struct bpfeng *eng, pid_t pid, pid_t tid)
{
	uint32_t key = (uint32_t)tid;
	uint64_t now;
	char state;

	if (eng_thread_find(eng, tid) != NULL)
		return 0;
	/* Counted from its entry on: its rows' spans start before it. */
	now = eng_now_ns();
	if (track_thread(eng, pid, tid, 0, now) != 0)
		return errno == EEXIST ? 0 : -1;
	state = thread_state(pid, tid);
	if ((state == 0 || state == 'Z' || state == 'X') &&
	    bpf_map_delete_elem(eng->threads_fd, &key) == 0)
		return 0;
	return eng_announce_thread(eng, pid, tid, 0,
	    tid == pid ? BPFENG_LWP_FIRST : BPFENG_LWP_FOUND, now);
}

/* One pass over /proc/PID/task: the number of threads newly adopted. */
static int
adopt_pass(struct bpfeng *eng, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	long tid;
	int added = 0;
	char *end;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((dir = opendir(path)) == NULL) {
		/*
		 * No such directory: the process is gone (ESRCH from kill),
		 * or there but hidden from this user (hidepid): ENOENT stays.
		 */
		if (errno == ENOENT)
			(void)kill(pid, 0);
		return -1;
	}
	while ((d = readdir(dir)) != NULL) {
		tid = strtol(d->d_name, &end, 10);
		if (*end != '\0' || tid <= 0 || tid == pid ||
		    eng_thread_find(eng, (pid_t)tid) != NULL)
			continue;
		if (adopt_thread(eng, pid, (pid_t)tid) != 0) {
			closedir(dir);
			return -1;
		}
		added++;
	}
	closedir(dir);
	return added;
}

static int
check_process(pid_t pid, char *why, size_t whylen)
{
	pid_t tgid = proc_tgid(pid);

	if (tgid <= 0) {
		eng_why(why, whylen, "pid %d: no such process", (int)pid);
		errno = ESRCH;
		return -1;
	}
	if (tgid != pid) {
		eng_why(why, whylen,
		    "pid %d is a thread of process %d, not a "
		    "process",
		    (int)pid, (int)tgid);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* The process of thread tid; -1 (why) when there is none. */
static pid_t
thread_process(pid_t tid, char *why, size_t whylen)
{
	pid_t tgid = proc_tgid(tid);

	if (tgid <= 0) {
		eng_why(why, whylen, "tid %d: no such thread", (int)tid);
		errno = ESRCH;
		return -1;
	}
	return tgid;
}

/*
 * Track pid and every thread it has, found in /proc, from now on; its
 * leader FIRST. 0 or -1 (errno).
 */
int
eng_adopt_process(struct bpfeng *eng, pid_t pid)
{
	int pass, added;

	/* The process first: threads it makes from now on are tracked. */
	if (eng_track_proc(eng, pid, 0) != 0 ||
	    eng_announce_proc(eng, pid, NULL) == NULL ||
	    adopt_thread(eng, pid, pid) != 0)
		return -1;
	for (pass = 0; pass < ATTACH_PASSES; pass++) {
		if ((added = adopt_pass(eng, pid)) < 0)
			return -1;
		if (added == 0)
			break;
	}
	return 0;
}

/* Those of pids adopted before pids[failed], and it, are let go. */
static void
attach_undo(struct bpfeng *eng, const pid_t *pids, size_t failed)
{
	size_t i;

	for (i = 0; i <= failed; i++)
		eng_untrack(eng, pids[i]);
}

int
bpfeng_attach(struct bpfeng *eng, const pid_t *pids, size_t npids, char *why,
    size_t whylen)
{
	size_t i;

	if (eng->target != 0 || npids == 0) {
		eng_why(why, whylen,
		    npids == 0 ? "no pid to attach to" :
				 "the engine has a target already");
		errno = EINVAL;
		return -1;
	}
	/* Every pid is looked at before any is counted. */
	for (i = 0; i < npids; i++)
		if (check_process(pids[i], why, whylen) != 0)
			return -1;
	for (i = 0; i < npids; i++)
		if (eng_adopt_process(eng, pids[i]) != 0) {
			eng_why(why, whylen, "cannot attach to pid %d - %s",
			    (int)pids[i], strerror(errno));
			attach_undo(eng, pids, i);
			return -1;
		}
	eng->target = pids[0];
	/*
	 * A thread on a CPU now counts from that CPU's flush, not from its
	 * next switch.
	 */
	return eng_flush(eng, why, whylen);
}

/* Track one named thread of pid, and pid, for the threads named only. */
static int
adopt_named(struct bpfeng *eng, pid_t pid, pid_t tid)
{
	if (eng_track_proc(eng, pid, BPFENG_PROC_NAMED_ONLY) != 0 ||
	    eng_announce_proc(eng, pid, NULL) == NULL)
		return -1;
	return adopt_thread(eng, pid, tid);
}

int
bpfeng_attach_threads(struct bpfeng *eng, const pid_t *tids, size_t ntids,
    char *why, size_t whylen)
{
	pid_t *pids;
	size_t i;
	int rc = -1;

	if (eng->target != 0 || ntids == 0) {
		eng_why(why, whylen,
		    ntids == 0 ? "no thread to attach to" :
				 "the engine has a target already");
		errno = EINVAL;
		return -1;
	}
	if ((pids = calloc(ntids, sizeof(*pids))) == NULL) {
		eng_why(why, whylen, "no memory available");
		return -1;
	}
	/* Every thread is looked at before any is counted. */
	for (i = 0; i < ntids; i++)
		if ((pids[i] = thread_process(tids[i], why, whylen)) < 0)
			goto out;
	eng->named_only = true;
	for (i = 0; i < ntids; i++)
		if (adopt_named(eng, pids[i], tids[i]) != 0) {
			eng_why(why, whylen, "cannot attach to tid %d - %s",
			    (int)tids[i], strerror(errno));
			attach_undo(eng, pids, i);
			goto out;
		}
	eng->target = pids[0];
	rc = eng_flush(eng, why, whylen);
out:
	free(pids);
	return rc;
}

int
bpfeng_follow_exec(struct bpfeng *eng, pid_t pid, bool follow)
{
	struct bpfeng_proc proc = { .flags =
					follow ? BPFENG_PROC_FOLLOW_EXEC : 0 };
	uint32_t key = (uint32_t)pid;

	return bpf_map_update_elem(eng->procs_fd, &key, &proc, BPF_EXIST);
}

bool
bpfeng_command_signaled(struct bpfeng *eng, int sig, pid_t sender, int wait_ms)
{
	const struct timespec ms = { 0, 1000000 };
	uint32_t count;
	int waited;

	if (eng->child <= 0 || sig <= 0 || sig >= BPFENG_NSIG)
		return false;
	for (waited = 0;; waited++) {
		count =
		    __atomic_load_n(&eng->signal_count[sig], __ATOMIC_ACQUIRE);
		if (count != eng->signals_seen[sig])
			break;
		if (waited >= wait_ms)
			return false;
		(void)nanosleep(&ms, NULL);
	}
	eng->signals_seen[sig] = count;
	return eng->signal_sender[sig] == (uint32_t)sender;
}
