/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Exclusivity between processes (DESIGN.md, "Exclusivity"): one CPU
 * binding per CPU system-wide; while any exists, per-LWP binds fail with
 * EAGAIN and per-LWP sets bound earlier are invalidated; a holder killed
 * mid-hold, one that unbinds and one that just closes its handle all
 * leave nothing locked.
 *
 * The holder is a forked child of this test that binds a CPU through its
 * own handle, says so through a pipe, then obeys one-letter commands
 * (U unbind, C close the handle, F fork a child that lingers).
 * The test never forks while it holds a CPU binding itself, because a
 * forked child would share its lock.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>

#include "test_cpc.h"

#define HELD_CPU	0

struct holder {
	pid_t	pid;
	int	cmd;	/* test -> holder */
	int	reply;	/* holder -> test */
};

static cpc_set_t *
one_request_set(cpc_t *cpc, const char *event)
{
	cpc_set_t *set = cpc_set_create(cpc);

	CHECK(cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER, 0,
	    NULL) == 0);
	return set;
}

static void
reply(int fd, char what, int err)
{
	char msg[2] = { what, (char)err };

	if (write(fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		_exit(9);
}

/* The child: bind CPU cpu, report, then do as told. */
static void
holder_main(int cpu, int cmd, int out)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set;
	pid_t lingering = -1;
	char c;

	if (cpc == NULL) {
		reply(out, 'F', errno);
		_exit(1);
	}
	set = one_request_set(cpc, "task-clock");
	if (bind_cpu_patiently(cpc, cpu, set) != 0) {
		reply(out, 'F', errno);
		_exit(1);
	}
	reply(out, 'R', 0);
	while (read(cmd, &c, 1) == 1) {
		switch (c) {
		case 'U':
			reply(out, 'u', cpc_unbind(cpc, set) == 0 ? 0 : errno);
			break;
		case 'C':
			cpc_close(cpc);
			reply(out, 'c', 0);
			break;
		case 'F':
			/* A child that outlives the binding, holding copies. */
			if ((lingering = fork()) == 0) {
				pause();
				_exit(0);
			}
			reply(out, 'f', lingering > 0 ? 0 : errno);
			break;
		default:
			c = 0;
			break;
		}
		if (c == 0)
			break;
	}
	if (lingering > 0) {
		kill(lingering, SIGKILL);
		waitpid(lingering, NULL, 0);
	}
	_exit(0);
}

static bool
expect_reply(struct holder *h, char want)
{
	char msg[2] = { 0, 0 };

	if (read(h->reply, msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
		fprintf(stderr, "holder %d said nothing\n", (int)h->pid);
		return false;
	}
	if (msg[0] != want) {
		fprintf(stderr, "holder %d replied %c (%s)\n", (int)h->pid,
		    msg[0], strerror(msg[1]));
		return false;
	}
	return msg[1] == 0;
}

static bool
start_holder(struct holder *h, int cpu)
{
	int to_child[2], from_child[2];

	if (pipe2(to_child, O_CLOEXEC) != 0 ||
	    pipe2(from_child, O_CLOEXEC) != 0)
		return false;
	fflush(NULL);
	if ((h->pid = fork()) == 0) {
		close(to_child[1]);
		close(from_child[0]);
		holder_main(cpu, to_child[0], from_child[1]);
	}
	close(to_child[0]);
	close(from_child[1]);
	h->cmd = to_child[1];
	h->reply = from_child[0];
	return h->pid > 0 && expect_reply(h, 'R');
}

static void
command(struct holder *h, char c, char want)
{
	CHECK(write(h->cmd, &c, 1) == 1);
	CHECK(expect_reply(h, want));
}

static void
stop_holder(struct holder *h, int sig)
{
	int status;

	if (sig != 0)
		kill(h->pid, sig);
	close(h->cmd);
	close(h->reply);
	CHECK(waitpid(h->pid, &status, 0) == h->pid);
	if (sig == SIGKILL)
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	else
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Nobody holds the CPU's lock, nor the shared lock of CPU binders. */
static bool
unlocked(const char *name)
{
	char path[128];
	int fd;
	bool free_now;

	snprintf(path, sizeof(path), "%s/%s", CPC_LOCK_DIR, name);
	if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return errno == ENOENT;
	free_now = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return free_now;
}

struct lwp_bind {
	cpc_t		*cpc;
	cpc_set_t	*set;
	uint_t		 flags;
	int		 rc, err;
};

static void *
lwp_bind_thread(void *arg)
{
	struct lwp_bind *b = arg;

	b->rc = cpc_bind_curlwp(b->cpc, b->set, b->flags);
	b->err = errno;
	if (b->rc == 0)
		cpc_unbind(b->cpc, b->set);
	return NULL;
}

/*
 * Bind a set to a new thread, so that this thread's bound set stays:
 * a bind replaces the set bound to the calling LWP.
 */
static int
bind_on_new_thread(cpc_t *cpc, cpc_set_t *set, uint_t flags)
{
	struct lwp_bind b = { cpc, set, flags, -1, 0 };
	pthread_t t;

	if (pthread_create(&t, NULL, lwp_bind_thread, &b) != 0)
		return -1;
	pthread_join(t, NULL);
	errno = b.err;
	return b.rc;
}

/*
 * Wait for a lock to be free: other tests or a cpustat may hold CPUs for
 * a while, but a lock left by a dead holder would never come free.
 */
static bool
comes_free(const char *name)
{
	double deadline = now_seconds() + EXCL_WAIT_SECONDS;

	while (!unlocked(name)) {
		if (now_seconds() > deadline)
			return false;
		sleep_ms(50);
	}
	return true;
}

/* A second binding of the held CPU, from this process. */
static void
second_binding_refused(cpc_t *cpc, int cpu)
{
	cpc_set_t *set = one_request_set(cpc, "task-clock");
	cpu_set_t before, after;

	CHECK(sched_getaffinity(0, sizeof(before), &before) == 0);
	errno = 0;
	CHECK(cpc_bind_cpu(cpc, cpu, set, 0) == -1 && errno == EAGAIN);
	CHECK(sched_getaffinity(0, sizeof(after), &after) == 0);
	CHECK(CPU_EQUAL(&before, &after));
	cpc_set_destroy(cpc, set);
}

/* Another CPU is still free to bind; and its binding blocks our LWPs. */
static void
other_cpu_free(cpc_t *cpc, int held)
{
	cpc_set_t *set = one_request_set(cpc, "task-clock");
	cpc_set_t *lwp = one_request_set(cpc, "page-faults");
	int other = held == 0 ? 1 : 0;
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", other);
	if (access(path, F_OK) != 0) {
		printf("note: a single CPU; no other CPU to bind\n");
		return;
	}
	CHECK(bind_cpu_patiently(cpc, other, set) == 0);
	CHECK(bind_on_new_thread(cpc, lwp, 0) == -1 && errno == EAGAIN);
	CHECK(cpc_unbind(cpc, set) == 0);
	cpc_set_destroy(cpc, set);
	cpc_set_destroy(cpc, lwp);
}

/* With a holder on the CPU: (a), (b), (c) of the brief. */
static void
while_held(cpc_t *cpc, cpc_set_t *early, int cpu)
{
	cpc_t *fresh = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *lwp = one_request_set(cpc, "page-faults");
	cpc_set_t *lwp2 = one_request_set(fresh, "page-faults");
	cpc_buf_t *buf = cpc_buf_create(cpc, early);
	struct stat st;

	CHECK(stat(CPC_LOCK_DIR, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & 07777) == 01777);
	CHECK(!unlocked("any.lock"));

	/* The set bound before the holder came is invalidated. */
	errno = 0;
	CHECK(cpc_set_sample(cpc, early, buf) == -1 && errno == EAGAIN);
	CHECK(cpc_disable(cpc) == -1 && errno == EAGAIN);
	CHECK(cpc_enable(cpc) == -1 && errno == EAGAIN);
	CHECK(cpc_set_sample(cpc, early, buf) == -1 && errno == EAGAIN);

	second_binding_refused(cpc, cpu);
	second_binding_refused(fresh, cpu);
	/* New LWP binds are refused, through an old or a new handle. */
	errno = 0;
	CHECK(bind_on_new_thread(cpc, lwp, 0) == -1 && errno == EAGAIN);
	CHECK(bind_on_new_thread(fresh, lwp2, CPC_BIND_LWP_INHERIT) == -1 &&
	    errno == EAGAIN);
	CHECK(cpc_bind_curlwp(fresh, lwp2, 0) == -1 && errno == EAGAIN);
	other_cpu_free(cpc, cpu);
	cpc_close(fresh);
	cpc_set_destroy(cpc, lwp);
	cpc_buf_destroy(cpc, buf);
}

/* Once the holder is gone, everything binds again. */
static void
after_release(cpc_t *cpc, cpc_set_t *early, int cpu)
{
	cpc_set_t *lwp = one_request_set(cpc, "page-faults");
	cpc_set_t *cpuset = one_request_set(cpc, "task-clock");
	cpc_buf_t *buf = cpc_buf_create(cpc, early);
	char lockname[32];

	snprintf(lockname, sizeof(lockname), "cpu%d.lock", cpu);
	CHECK(comes_free(lockname));
	CHECK(comes_free("any.lock"));
	/* Invalidation lasts until the set is bound again. */
	CHECK(cpc_set_sample(cpc, early, buf) == -1 && errno == EAGAIN);
	CHECK(cpc_disable(cpc) == -1 && errno == EAGAIN);
	CHECK(bind_curlwp_patiently(cpc, lwp, 0) == 0);
	/* (EAGAIN only if some other process bound a CPU meanwhile.) */
	CHECK(cpc_set_sample(cpc, lwp, buf) == 0 || errno == EAGAIN);
	CHECK(cpc_unbind(cpc, lwp) == 0);

	CHECK(bind_cpu_patiently(cpc, cpu, cpuset) == 0);
	/* Our own CPU binding also keeps LWP binds out. */
	CHECK(cpc_bind_curlwp(cpc, lwp, 0) == -1 && errno == EAGAIN);
	CHECK(cpc_unbind(cpc, cpuset) == 0);

	CHECK(bind_curlwp_patiently(cpc, early, 0) == 0);
	CHECK(cpc_set_sample(cpc, early, buf) == 0 || errno == EAGAIN);
	cpc_set_destroy(cpc, lwp);
	cpc_set_destroy(cpc, cpuset);
	cpc_buf_destroy(cpc, buf);
}

enum ending { KILLED, UNBOUND, CLOSED, UNBOUND_AFTER_FORK };

static void
round_trip(enum ending how)
{
	static const char *const names[] = { "SIGKILL", "unbind", "close",
	    "unbind with a forked child alive" };
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *early = one_request_set(cpc, "page-faults");
	cpc_buf_t *buf = cpc_buf_create(cpc, early);
	struct holder h;

	CHECK(bind_curlwp_patiently(cpc, early, 0) == 0);
	CHECK(cpc_set_sample(cpc, early, buf) == 0 || errno == EAGAIN);
	if (!start_holder(&h, HELD_CPU)) {
		CHECK(!"holder could not bind the CPU");
		if (h.pid > 0)
			stop_holder(&h, SIGKILL);
		cpc_close(cpc);
		return;
	}
	while_held(cpc, early, HELD_CPU);
	switch (how) {
	case KILLED:
		stop_holder(&h, SIGKILL);
		break;
	case UNBOUND:
		command(&h, 'U', 'u');
		break;
	case CLOSED:
		command(&h, 'C', 'c');
		break;
	case UNBOUND_AFTER_FORK:
		command(&h, 'F', 'f');
		command(&h, 'U', 'u');
		break;
	}
	after_release(cpc, early, HELD_CPU);
	if (how != KILLED)
		stop_holder(&h, 0);
	printf("holder ended by %s: nothing left locked\n", names[how]);
	cpc_close(cpc);
}

int
main(void)
{
	if (geteuid() != 0)
		SKIP("not root: CPU-wide counting needs root or CAP_PERFMON");
	round_trip(KILLED);
	round_trip(UNBOUND);
	round_trip(CLOSED);
	round_trip(UNBOUND_AFTER_FORK);
	return check_report("test_cpc_exclusive");
}
