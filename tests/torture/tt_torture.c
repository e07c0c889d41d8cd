/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tt_torture SEED RECORD [NODE DEPTH QUIET]
 *
 * A random but reproducible process behaviour, drawn from SEED: threads,
 * nested forks, vfork, exec (also from a thread that is not the leader,
 * and a failing one first), signals handled, ignored, fatal and real-time,
 * to a process and to one thread, SIGSTOP/SIGCONT by the parent and by the
 * process itself, job control of a multithreaded child that handles
 * SIGTSTP, early exits (from a non-main thread, with threads still
 * blocked), kill -9 of a child, children running side by side, a look at
 * the environment it was given (limits, signal mask and dispositions,
 * open fds, process group), and a tracer stopped and continued under it.
 *
 * Every process image appends one line "PID WRITES THREADS NODE HOW" to
 * the file RECORD: the write(2) calls it made (that line's included), the
 * threads it created, and how it ends: exit, exec or signal. Every write goes
 * through tt_write, which counts it; nothing else writes (no stdio). Processes
 * run one after another except in the side-by-side action, whose subtrees print
 * nothing, so what is printed on standard output, and the exit status, depend
 * on SEED only.
 *
 * NODE, DEPTH and QUIET are for the program's own execs: the node of the
 * behaviour tree to run, how deep it is, and whether it may print.
 *
 * The first process only forks the tree's root, and prints how it ended
 * ("n999999: root: exit N" or "... signal N") as the last line; its exit
 * status is the root's (128 + N for a signal).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEPTH    3
#define MAX_THREADS  4
#define RT_SIG	     (SIGRTMIN + 2)
#define WRAPPER_NODE 999999

static uint64_t seed;
static const char *record_path;
static const char *self;
static uint64_t node;
static int depth;
static bool quiet;
static int devnull, recfd;
static atomic_long nwrites;
static atomic_int nthreads;
static uint64_t rng;

static uint64_t
mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned
draw(unsigned n)
{
	rng += 0x9e3779b97f4a7c15ULL;
	return (unsigned)(mix(rng) % n);
}

static void
start_node(uint64_t n, int d)
{
	node = n;
	depth = d;
	rng = mix(seed ^ mix(n + 1));
	atomic_store(&nwrites, 0);
	atomic_store(&nthreads, 0);
}

static void
tt_write(int fd, const void *buf, size_t len)
{
	atomic_fetch_add(&nwrites, 1);
	(void)write(fd, buf, len);
}

static void
burn(unsigned n)
{
	while (n-- > 0)
		tt_write(devnull, "x", 1);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	if (quiet)
		return;
	n = snprintf(buf, sizeof(buf), "n%" PRIu64 ": ", node);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	tt_write(1, buf, (size_t)n);
}

/*
 * The image's line; extra: writes still to come after it; how: how the
 * image will end (exit, exec or signal).
 */
static void
record(int extra, const char *how)
{
	char buf[128];
	int n;

	n = snprintf(buf, sizeof(buf), "%ld %ld %d %" PRIu64 " %s\n",
	    (long)syscall(SYS_getpid), atomic_load(&nwrites) + 1 + extra,
	    atomic_load(&nthreads), node, how);
	tt_write(recfd, buf, (size_t)n);
}

static void __attribute__((noreturn)) die(const char *what)
{
	char buf[128];
	int n = snprintf(
	    buf, sizeof(buf), "tt_torture: %s: %s\n", what, strerror(errno));

	(void)write(2, buf, (size_t)n);
	_exit(120);
}

static const char *
describe(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "signal %d", WTERMSIG(st));
	else
		snprintf(buf, len, "status %#x", st);
	return buf;
}

static int
reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return st;
}

static void __attribute__((noreturn)) run_node(void);

/* This program again, as node n: for exec. */
static void
exec_node(uint64_t n, int d, bool q)
{
	char sseed[32], snode[32], sdepth[16];
	char *argv[] = { (char *)self, sseed, (char *)record_path, snode,
		sdepth, q ? "1" : "0", NULL };

	snprintf(sseed, sizeof(sseed), "%" PRIu64, seed);
	snprintf(snode, sizeof(snode), "%" PRIu64, n);
	snprintf(sdepth, sizeof(sdepth), "%d", d);
	execv(self, argv);
}

/* A child process running node n of the tree; its parent's counts go. */
static pid_t
fork_node(uint64_t n, bool q)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		quiet = quiet || q;
		start_node(n, depth + 1);
		run_node();
	}
	return pid;
}

/* --- threads --- */

struct burner {
	pthread_t t;
	unsigned n;
};

static void *
burner_main(void *arg)
{
	burn(((struct burner *)arg)->n);
	return NULL;
}

/* Counted first: the new thread may write the record at once. */
static void
spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
	atomic_fetch_add(&nthreads, 1);
	if (pthread_create(t, NULL, fn, arg) != 0)
		die("pthread_create");
}

static void
act_threads(void)
{
	struct burner b[MAX_THREADS];
	unsigned i, n = 1 + draw(MAX_THREADS);

	for (i = 0; i < n; i++) {
		b[i].n = draw(40);
		spawn(&b[i].t, burner_main, &b[i]);
	}
	for (i = 0; i < n; i++)
		pthread_join(b[i].t, NULL);
	say("%u threads joined\n", n);
}

/* --- signals --- */

static atomic_int handled;

static void
on_signal(int sig)
{
	(void)sig;
	tt_write(devnull, "s", 1);
	atomic_fetch_add(&handled, 1);
}

static void
handle(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void
act_signal_handled(void)
{
	atomic_store(&handled, 0);
	handle(SIGUSR1, on_signal);
	raise(SIGUSR1);
	kill(getpid(), SIGUSR1);
	handle(SIGUSR1, SIG_DFL);
	say("SIGUSR1 handled %d times\n", atomic_load(&handled));
}

static void
act_signal_ignored(void)
{
	handle(SIGUSR2, SIG_IGN);
	raise(SIGUSR2);
	kill(getpid(), SIGUSR2);
	handle(SIGUSR2, SIG_DFL);
	say("SIGUSR2 ignored\n");
}

static void
act_signal_rt(void)
{
	union sigval v = { .sival_int = 0 };
	sigset_t set, old;
	unsigned i, n = 1 + draw(5);

	atomic_store(&handled, 0);
	handle(RT_SIG, on_signal);
	sigemptyset(&set);
	sigaddset(&set, RT_SIG);
	sigprocmask(SIG_BLOCK, &set, &old);
	for (i = 0; i < n; i++) {
		v.sival_int = (int)i;
		if (sigqueue(getpid(), RT_SIG, v) != 0)
			die("sigqueue");
	}
	sigprocmask(SIG_SETMASK, &old, NULL); /* all n are delivered */
	handle(RT_SIG, SIG_DFL);
	say("%u real-time signals queued, %d handled\n", n,
	    atomic_load(&handled));
}

/* A signal sent to one thread, which waits for it in sigsuspend. */
static void *
waiter_main(void *arg)
{
	sigset_t none;

	(void)arg;
	sigemptyset(&none);
	while (atomic_load(&handled) == 0)
		sigsuspend(&none);
	burn(3);
	return NULL;
}

static void
act_signal_thread(void)
{
	sigset_t set, old;
	pthread_t t;

	atomic_store(&handled, 0);
	handle(SIGUSR1, on_signal);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, &old); /* the thread inherits it */
	spawn(&t, waiter_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	handle(SIGUSR1, SIG_DFL);
	say("thread got SIGUSR1\n");
}

/* --- what it was given --- */

static void
limit_text(rlim_t v, char *buf, size_t len)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* The open descriptors, by number, but the directory's own. */
static void
fds_text(char *buf, size_t len)
{
	struct dirent *e;
	size_t used = 0;
	DIR *d;
	int self_fd;

	buf[0] = '\0';
	if ((d = opendir("/proc/self/fd")) == NULL)
		return;
	self_fd = dirfd(d);
	while ((e = readdir(d)) != NULL && used + 8 < len)
		if (e->d_name[0] != '.' && atoi(e->d_name) != self_fd)
			used += (size_t)snprintf(
			    buf + used, len - used, " %s", e->d_name);
	closedir(d);
}

static char
disposition(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa) != 0)
		return '?';
	if (sa.sa_handler == SIG_IGN)
		return 'i';
	return sa.sa_handler == SIG_DFL ? 'd' : 'h';
}

/*
 * What a process sees of what it was given: the same with cputrack
 * around it as without. The run starts the workload with limits and
 * ignored signals of its own, which must reach every process as they are.
 */
static void
act_environment(void)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP,
		SIGTTIN, SIGTTOU, SIGPIPE, SIGUSR2, SIGCHLD };
	char soft[24], hard[24], fds[128], disp[16];
	unsigned long long blocked = 0;
	struct rlimit rl;
	sigset_t mask;
	size_t i;
	int sig;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("getrlimit");
	limit_text(rl.rlim_cur, soft, sizeof(soft));
	limit_text(rl.rlim_max, hard, sizeof(hard));
	sigprocmask(SIG_BLOCK, NULL, &mask);
	for (sig = 1; sig < 64; sig++)
		if (sigismember(&mask, sig) == 1)
			blocked |= 1ULL << (sig - 1);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		disp[i] = disposition(sigs[i]);
	disp[i] = '\0';
	fds_text(fds, sizeof(fds));
	say("given: nofile %s/%s, blocked %#llx, dispositions %s, fds%s, %s\n",
	    soft, hard, blocked, disp, fds,
	    getpgrp() == getpgid(getppid()) ? "parent's group" : "own group");
}

/* The tracer, if any: stopped a while, as a user's Ctrl-Z of it would. */
static pid_t
tracer_pid(void)
{
	char line[128];
	long pid = 0;
	FILE *f;

	if ((f = fopen("/proc/self/status", "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "TracerPid: %ld", &pid) == 1)
			break;
	fclose(f);
	return (pid_t)pid;
}

static void
pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void
act_stall_tracer(void)
{
	pid_t tracer = tracer_pid();

	if (tracer > 0) {
		kill(tracer, SIGTSTP);
		pause_ms(100);
		kill(tracer, SIGCONT);
	}
	burn(draw(10));
	say("went on past a stalled tracer\n");
}

/* --- children --- */

static void
act_fork(unsigned i)
{
	char buf[64];
	pid_t pid = fork_node(node * 64 + i + 1, false);

	say("child %u: %s\n", i, describe(reap(pid), buf, sizeof(buf)));
}

/*
 * vfork: the child shares this memory, so it counts its writes itself
 * and does not touch nwrites; then it execs node i or exits.
 */
static void
act_vfork(unsigned i)
{
	char line[128], buf[64];
	unsigned k = draw(10), j;
	bool exec = depth < MAX_DEPTH && draw(2);
	int code = (int)draw(8), n;
	pid_t pid;

	pid = vfork();
	if (pid < 0)
		die("vfork");
	if (pid == 0) {
		for (j = 0; j < k; j++)
			(void)write(devnull, "v", 1);
		n = snprintf(line, sizeof(line), "%ld %u 0 v%" PRIu64 " %s\n",
		    (long)syscall(SYS_getpid), k + 1, node * 64 + i + 1,
		    exec ? "exec" : "exit");
		(void)write(recfd, line, (size_t)n);
		if (exec)
			exec_node(node * 64 + i + 1, depth + 1, quiet);
		_exit(code);
	}
	say("vfork child %u: %s\n", i, describe(reap(pid), buf, sizeof(buf)));
}

/* A child that ends by a signal it does not handle. */
static void
act_fatal(unsigned i)
{
	static const int sigs[] = { SIGTERM, SIGUSR1, SIGHUP, SIGALRM,
		SIGUSR2 };
	int sig = sigs[draw(5)];
	char buf[64];
	pid_t pid;

	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		start_node(node * 64 + i + 1, depth + 1);
		burn(draw(20));
		record(0, "signal");
		handle(sig, SIG_DFL);
		raise(sig);
		_exit(121);
	}
	say("fatal child %u: %s\n", i, describe(reap(pid), buf, sizeof(buf)));
}

/* A child killed with SIGKILL once it has said it is ready. */
static void
act_kill9(unsigned i)
{
	char c, buf[64];
	int p[2];
	pid_t pid;

	if (pipe(p) != 0)
		die("pipe");
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		start_node(node * 64 + i + 1, depth + 1);
		close(p[0]);
		burn(draw(20));
		record(1, "signal");
		tt_write(p[1], "r", 1);
		for (;;)
			pause();
	}
	close(p[1]);
	while (read(p[0], &c, 1) < 0 && errno == EINTR)
		;
	close(p[0]);
	kill(pid, SIGKILL);
	say("killed child %u: %s\n", i, describe(reap(pid), buf, sizeof(buf)));
}

/*
 * SIGSTOP and SIGCONT: the parent stops the child (or the child stops
 * itself), sees it stopped, continues it and sees it continued.
 */
static void
act_stopcont(unsigned i)
{
	bool self_stop = draw(2);
	char c, buf[64];
	int up[2], down[2], st;
	pid_t pid;

	if (pipe(up) != 0 || pipe(down) != 0)
		die("pipe");
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		start_node(node * 64 + i + 1, depth + 1);
		close(up[0]);
		close(down[1]);
		burn(draw(10));
		if (self_stop)
			raise(SIGSTOP);
		else
			tt_write(up[1], "r", 1);
		/* Until the parent has seen it continued. */
		while (read(down[0], &c, 1) < 0 && errno == EINTR)
			;
		burn(draw(10));
		record(0, "exit");
		_exit((int)draw(5));
	}
	close(up[1]);
	close(down[0]);
	if (!self_stop) {
		while (read(up[0], &c, 1) < 0 && errno == EINTR)
			;
		kill(pid, SIGSTOP);
	}
	while (waitpid(pid, &st, WUNTRACED) < 0)
		if (errno != EINTR)
			die("waitpid");
	say("child %u %s: %s\n", i, self_stop ? "stopped itself" : "stopped",
	    WIFSTOPPED(st) ? strsignal(WSTOPSIG(st)) : "NOT STOPPED");
	kill(pid, SIGCONT);
	while (waitpid(pid, &st, WCONTINUED) < 0)
		if (errno != EINTR)
			die("waitpid");
	say("child %u %s\n", i,
	    WIFCONTINUED(st) ? "continued" : "NOT CONTINUED");
	tt_write(down[1], "g", 1);
	close(up[0]);
	close(down[1]);
	say("child %u: %s\n", i, describe(reap(pid), buf, sizeof(buf)));
}

/*
 * Job control of a multithreaded child that handles SIGTSTP, as less and
 * vim do: its handler stops it with SIGSTOP. Every thread must stop (its
 * spinners use no CPU time while it is stopped), and SIGCONT resumes it.
 */
static atomic_int spin_done;

static void *
spinner_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&spin_done))
		;
	return NULL;
}

static void
on_tstp(int sig)
{
	(void)sig;
	tt_write(devnull, "t", 1);
	raise(SIGSTOP);
}

/* Whether every thread of pid is stopped, within 2 s. */
static bool
all_stopped(pid_t pid)
{
	char path[64], line[512], *state;
	struct dirent *e;
	bool all = false;
	int tries;
	FILE *f;
	DIR *d;

	for (tries = 0; tries < 200 && !all; tries++) {
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		if ((d = opendir(path)) == NULL)
			return false;
		all = true;
		while (all && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(line, sizeof(line), "/proc/%d/task/%s/stat",
			    (int)pid, e->d_name);
			if ((f = fopen(line, "re")) == NULL)
				continue;
			if (fgets(line, sizeof(line), f) == NULL ||
			    (state = strrchr(line, ')')) == NULL ||
			    (state[2] != 'T' && state[2] != 't'))
				all = false;
			fclose(f);
		}
		closedir(d);
		if (!all)
			pause_ms(10);
	}
	return all;
}

/* User and system clock ticks of the whole process. */
static unsigned long long
cpu_ticks(pid_t pid)
{
	char path[64], line[1024], *p;
	unsigned long long utime = 0, stime = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	if (fgets(line, sizeof(line), f) != NULL &&
	    (p = strrchr(line, ')')) != NULL)
		(void)sscanf(p + 2,
		    "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
		    "%*u %llu %llu",
		    &utime, &stime);
	fclose(f);
	return utime + stime;
}

static void __attribute__((noreturn))
jobstop_child(unsigned i, int up, int down)
{
	pthread_t t[2];
	char c;

	start_node(node * 64 + i + 1, depth + 1);
	atomic_store(&spin_done, 0);
	spawn(&t[0], spinner_main, NULL);
	spawn(&t[1], spinner_main, NULL);
	handle(SIGTSTP, on_tstp);
	burn(draw(10));
	tt_write(up, "r", 1);
	while (read(down, &c, 1) < 0 && errno == EINTR)
		;
	atomic_store(&spin_done, 1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	record(0, "exit");
	_exit((int)draw(5));
}

static void
act_jobstop(unsigned i)
{
	unsigned long long before;
	int up[2], down[2], st;
	char c, buf[64];
	bool stopped;
	pid_t pid;

	if (pipe(up) != 0 || pipe(down) != 0)
		die("pipe");
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		jobstop_child(i, up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	while (read(up[0], &c, 1) < 0 && errno == EINTR)
		;
	kill(pid, SIGTSTP);
	while (waitpid(pid, &st, WUNTRACED) < 0)
		if (errno != EINTR)
			die("waitpid");
	stopped = WIFSTOPPED(st) && all_stopped(pid);
	before = cpu_ticks(pid);
	pause_ms(200);
	say("job child %u: %s, %s, %s\n", i,
	    WIFSTOPPED(st) ? strsignal(WSTOPSIG(st)) : "NOT STOPPED",
	    stopped ? "every thread stopped" : "NOT EVERY THREAD STOPPED",
	    cpu_ticks(pid) == before ? "no CPU time while stopped" :
				       "CPU TIME WHILE STOPPED");
	kill(pid, SIGCONT);
	while (waitpid(pid, &st, WCONTINUED) < 0)
		if (errno != EINTR)
			die("waitpid");
	say("job child %u %s\n", i,
	    WIFCONTINUED(st) ? "continued" : "NOT CONTINUED");
	tt_write(down[1], "g", 1);
	close(up[0]);
	close(down[1]);
	say("job child %u: %s\n", i, describe(reap(pid), buf, sizeof(buf)));
}

/* Children side by side; they and theirs print nothing. */
static void
act_parallel(unsigned i)
{
	pid_t pids[4];
	char buf[64];
	unsigned j, n = 2 + draw(3);

	for (j = 0; j < n; j++)
		pids[j] = fork_node(node * 64 + 8 + i * 4 + j, true);
	for (j = 0; j < n; j++)
		say("parallel child %u.%u: %s\n", i, j,
		    describe(reap(pids[j]), buf, sizeof(buf)));
}

/* --- endings --- */

static void __attribute__((noreturn)) end_exit(void)
{
	int code = (int)draw(10);

	say("exit %d\n", code);
	record(0, "exit");
	_exit(code);
}

static void __attribute__((noreturn)) end_exec(void)
{
	uint64_t next = node * 64 + 63;

	say("exec n%" PRIu64 "\n", next);
	if (draw(2)) {
		/* A failing exec first: invisible, nothing changes. */
		char *argv[] = { "/nonexistent/tt_torture", NULL };

		execv(argv[0], argv);
	}
	record(0, "exec");
	exec_node(next, depth + 1, quiet);
	die("exec");
}

static uint64_t exec_next;

static void *
execer_main(void *arg)
{
	(void)arg;
	burn(draw(20));
	record(0, "exec");
	exec_node(exec_next, depth + 1, quiet);
	die("exec");
}

/* exec from a thread that is not the leader, which blocks meanwhile. */
static void __attribute__((noreturn)) end_exec_nonleader(void)
{
	pthread_t t;

	exec_next = node * 64 + 62;
	say("exec n%" PRIu64 " from a thread\n", exec_next);
	spawn(&t, execer_main, NULL);
	for (;;)
		pause();
}

/* Threads that have made their writes and block, for an early end. */
static atomic_int parked;

static void *__attribute__((noreturn)) parker_main(void *arg)
{
	burn(((struct burner *)arg)->n);
	atomic_fetch_add(&parked, 1);
	for (;;)
		pause();
}

static int exit_code;

static void *
exiter_main(void *arg)
{
	burn(((struct burner *)arg)->n);
	record(0, "exit");
	exit(exit_code);
}

/*
 * An early exit: some threads are blocked, and the process ends either
 * from the main thread or from another thread while main waits.
 */
static void __attribute__((noreturn)) end_early(void)
{
	static struct burner b[MAX_THREADS + 1];
	unsigned i, n = 1 + draw(MAX_THREADS - 1);
	bool from_thread = draw(2);

	exit_code = (int)draw(10);
	say("early exit %d from %s with %u threads blocked\n", exit_code,
	    from_thread ? "a thread" : "main", n);
	atomic_store(&parked, 0);
	for (i = 0; i < n; i++) {
		b[i].n = draw(20);
		spawn(&b[i].t, parker_main, &b[i]);
	}
	while (atomic_load(&parked) < (int)n)
		sched_yield();
	if (from_thread) {
		b[n].n = draw(20);
		spawn(&b[n].t, exiter_main, &b[n]);
		pthread_join(b[n].t, NULL);
	}
	record(0, "exit");
	_exit(exit_code);
}

static void __attribute__((noreturn)) run_node(void)
{
	unsigned i, nact = 1 + draw(depth == 0 ? 4 : 3), a;

	burn(draw(10));
	for (i = 0; i < nact; i++) {
		/*
		 * Children (8 and up) only above the deepest level; side by
		 * side (14) only at the root: a bounded tree.
		 */
		a = draw(depth == 0 ? 15 : depth < MAX_DEPTH ? 14 : 8);
		switch (a) {
		case 0:
			act_threads();
			break;
		case 1:
			act_signal_handled();
			break;
		case 2:
			act_signal_ignored();
			break;
		case 3:
			act_signal_rt();
			break;
		case 4:
			act_signal_thread();
			break;
		case 5:
			burn(draw(50));
			break;
		case 6:
			act_environment();
			break;
		case 7:
			act_stall_tracer();
			break;
		case 8:
			act_fork(i);
			break;
		case 9:
			act_vfork(i);
			break;
		case 10:
			act_fatal(i);
			break;
		case 11:
			act_kill9(i);
			break;
		case 12:
			act_stopcont(i);
			break;
		case 13:
			act_jobstop(i);
			break;
		default:
			act_parallel(i);
			break;
		}
	}
	switch (depth < MAX_DEPTH ? draw(6) : draw(2) * 3) {
	case 1:
		end_exec();
	case 2:
		end_exec_nonleader();
	case 3:
		end_early();
	default:
		end_exit();
	}
}

static void
on_chld(int sig)
{
	(void)sig;
}

int
main(int argc, char **argv)
{
	char buf[64];
	pid_t pid;
	int st;

	if (argc != 3 && argc != 6) {
		fprintf(stderr, "usage: tt_torture SEED RECORD\n");
		return 2;
	}
	self = "/proc/self/exe";
	seed = strtoull(argv[1], NULL, 10);
	record_path = argv[2];
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0 ||
	    (recfd = open(record_path,
		 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0)
		die("open");
	/* SIGCHLD interrupts (and restarts) the waits. */
	handle(SIGCHLD, on_chld);
	if (argc == 6) {
		quiet = argv[5][0] == '1';
		start_node(strtoull(argv[3], NULL, 10), atoi(argv[4]));
		run_node();
	}
	/*
	 * The first process forks the tree's root and passes on how it
	 * ended: a tracer does not pass on its command's exit status, so
	 * the last line of the output says it.
	 */
	start_node(WRAPPER_NODE, -1);
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		start_node(0, 0);
		run_node();
	}
	st = reap(pid);
	say("root: %s\n", describe(st, buf, sizeof(buf)));
	record(0, "exit");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
