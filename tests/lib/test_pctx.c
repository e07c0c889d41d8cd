/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The libpctx tests' shared records and callbacks (see test_pctx.h).
 */
#include "test_pctx.h"

struct lwprec lwps[MAXLWPS];
int nlwps;
struct procrec procs[MAXPROCS];
int nprocs;
cpc_t *cpc;
int seq;	   /* orders the callbacks */
bool follow_forks; /* the fork callback runs the child */
unsigned run_msec, run_nsamples;
int tick_fail_at; /* tick number that returns -1, 0: none */
int nticks;
int execs_allowed = 1000;

const char *
wl(const char *name)
{
	static char path[8][PATH_MAX];
	static int slot;
	const char *dir = getenv("WORKLOADS");
	char *p = path[slot++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", dir != NULL ? dir : ".", name);
	return p;
}

/* tracefs must be mounted for the tracepoint; skip when it cannot be. */
void
need_tracefs(void)
{
	struct stat st;

	if (stat("/sys/kernel/tracing/events", &st) == 0)
		return;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0 ||
	    stat("/sys/kernel/tracing/events", &st) != 0)
		SKIP("tracefs is not mounted and cannot be: %s",
		    strerror(errno));
}

/*
 * In a sanitizer build the workloads are instrumented too, and
 * LeakSanitizer cannot run under ptrace: it would fail at their exit and
 * write about it, spoiling the counts. The test itself keeps it.
 */
void
no_leak_check_in_workloads(void)
{
	const char *old = getenv("ASAN_OPTIONS");
	char opts[512];

	snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0",
	    old != NULL ? old : "", old != NULL && *old != '\0' ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
}

void
open_cpc(void)
{
	need_tracefs();
	no_leak_check_in_workloads();
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
}

struct procrec *
proc_of(pid_t pid)
{
	int i;

	for (i = nprocs - 1; i >= 0; i--)
		if (procs[i].pid == pid)
			return &procs[i];
	if (nprocs == MAXPROCS)
		abort();
	procs[nprocs].pid = pid;
	return &procs[nprocs++];
}

/* The LWP record of the current image, newest first. */
struct lwprec *
find_lwp(pid_t pid, id_t lwpid)
{
	int image = proc_of(pid)->images, i;

	for (i = nlwps - 1; i >= 0; i--)
		if (lwps[i].pid == pid && lwps[i].lwpid == lwpid &&
		    lwps[i].image == image)
			return &lwps[i];
	return NULL;
}

struct lwprec *
lwp_rec(pid_t pid, int image, id_t lwpid)
{
	int i;

	for (i = 0; i < nlwps; i++)
		if (lwps[i].pid == pid && lwps[i].lwpid == lwpid &&
		    lwps[i].image == image)
			return &lwps[i];
	return NULL;
}

uint64_t
sample(cpc_set_t *set)
{
	cpc_buf_t *buf;
	uint64_t v = UINT64_MAX;

	if ((buf = cpc_buf_create(cpc, set)) == NULL)
		return v;
	if (cpc_set_sample(cpc, set, buf) != 0 ||
	    cpc_buf_get(cpc, buf, 0, &v) != 0)
		v = UINT64_MAX;
	cpc_buf_destroy(cpc, buf);
	return v;
}

int
t_init(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwprec *r;

	(void)arg;
	if (nlwps == MAXLWPS)
		abort();
	r = &lwps[nlwps++];
	r->pid = pid;
	r->image = proc_of(pid)->images;
	r->lwpid = lwpid;
	r->tid = pctx_lwp_tid(pctx, lwpid);
	r->held = pctx_lwp_held(pctx, lwpid);
	r->state = proc_state(r->tid);
	r->inits++;
	r->order = ++seq;
	r->count = UINT64_MAX;
	if ((r->set = cpc_set_create(cpc)) == NULL ||
	    cpc_set_add_request(
		cpc, r->set, WRITE_EVENT, 0, CPC_COUNT_USER, 0, NULL) < 0 ||
	    cpc_bind_pctx(cpc, pctx, lwpid, r->set, 0) != 0) {
		fprintf(stderr, "bind %d/%d: %s\n", (int)pid, (int)lwpid,
		    strerror(errno));
		r->bind_failed = true;
	}
	return 0;
}

int
t_fini(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwprec *r = find_lwp(pid, lwpid);

	(void)pctx;
	(void)arg;
	if (r == NULL) {
		fprintf(stderr, "fini of unknown lwp %d/%d\n", (int)pid,
		    (int)lwpid);
		check_failures++;
		return 0;
	}
	r->finis++;
	proc_of(pid)->last_fini_order = ++seq;
	if (r->set != NULL) {
		r->count = sample(r->set);
		cpc_set_destroy(cpc, r->set);
		r->set = NULL;
	}
	return 0;
}

int
t_lwp_create(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwprec *r = find_lwp(pid, lwpid);

	(void)pctx;
	(void)arg;
	if (r != NULL)
		r->creates++;
	return 0;
}

int
t_lwp_exit(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwprec *r = find_lwp(pid, lwpid);

	(void)pctx;
	(void)arg;
	if (r != NULL)
		r->exits++;
	return 0;
}

int
t_exec(pctx_t *pctx, pid_t pid, id_t lwpid, char *cmd, void *arg)
{
	struct procrec *p = proc_of(pid);

	(void)pctx;
	(void)lwpid;
	(void)arg;
	p->images++;
	strlcpy(p->cmd, cmd, sizeof(p->cmd));
	return p->images > execs_allowed ? -1 : 0;
}

void
t_exit(pctx_t *pctx, pid_t pid, id_t lwpid, int status, void *arg)
{
	struct procrec *p = proc_of(pid);

	(void)pctx;
	(void)arg;
	p->exits++;
	p->exit_status = status;
	p->exit_lwpid = lwpid;
	p->exit_order = ++seq;
}

int
set_all_events(pctx_t *pctx)
{
	/* The records are this process's: children join its own loop. */
	if (pctx_set_fork_model(pctx, PCTX_FORK_ADOPT) != 0)
		return -1;
	return pctx_set_events(pctx, PCTX_SYSC_EXEC_EVENT, t_exec,
	    PCTX_SYSC_FORK_EVENT, t_fork, PCTX_SYSC_EXIT_EVENT, t_exit,
	    PCTX_SYSC_LWP_CREATE_EVENT, t_lwp_create, PCTX_INIT_LWP_EVENT,
	    t_init, PCTX_FINI_LWP_EVENT, t_fini, PCTX_SYSC_LWP_EXIT_EVENT,
	    t_lwp_exit, PCTX_NULL_EVENT);
}

void
t_fork(pctx_t *child, pid_t ppid, pid_t cpid, id_t lwpid, void *arg)
{
	struct procrec *p = proc_of(cpid);

	(void)arg;
	p->parent = ppid;
	p->fork_lwpid = lwpid;
	if (!follow_forks)
		return;
	CHECK(set_all_events(child) == 0);
	CHECK(pctx_run(child, run_msec, run_nsamples, t_tick) == 0);
}

int
t_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwprec *r = find_lwp(pid, lwpid);

	(void)pctx;
	(void)arg;
	if (r != NULL)
		r->ticks++;
	nticks++;
	return tick_fail_at != 0 && nticks == tick_fail_at ? -1 : 0;
}

/* A pctx for a workload, its events set. */
pctx_t *
create_wl(char *const *argv)
{
	pctx_t *pctx = pctx_create(argv[0], argv, NULL, 0, NULL);

	if (pctx == NULL) {
		fprintf(stderr, "pctx_create %s failed\n", argv[0]);
		exit(1);
	}
	CHECK(set_all_events(pctx) == 0);
	(void)proc_of(pctx_pid(pctx));
	return pctx;
}

/* The LWPs recorded for one image of a process. */
int
count_lwps(pid_t pid, int image)
{
	int i, n = 0;

	for (i = 0; i < nlwps; i++)
		if (lwps[i].pid == pid && lwps[i].image == image)
			n++;
	return n;
}

/* Every LWP recorded was opened once, held, closed once, and counted. */
void
check_all_paired(void)
{
	int i;

	for (i = 0; i < nlwps; i++) {
		/*
		 * Counters bound at init_lwp start with the LWP's first
		 * instruction only if it is really stopped then (tracing
		 * stop, "t"), a new thread too.
		 */
		if (lwps[i].inits == 1 && lwps[i].finis == 1 &&
		    !lwps[i].bind_failed && lwps[i].count != UINT64_MAX &&
		    lwps[i].held && lwps[i].state == 't')
			continue;
		fprintf(stderr,
		    "lwp %d/%d image %d: inits %d finis %d "
		    "bind_failed %d count %llu held %d state %c\n",
		    (int)lwps[i].pid, (int)lwps[i].lwpid, lwps[i].image,
		    lwps[i].inits, lwps[i].finis, lwps[i].bind_failed,
		    (unsigned long long)lwps[i].count, lwps[i].held,
		    lwps[i].state != 0 ? lwps[i].state : '?');
		check_failures++;
	}
}

/* TracerPid of a thread, -1 if it is gone. */
pid_t
tracer_of(pid_t pid, pid_t tid)
{
	char path[96], buf[4096], *p;
	ssize_t n;
	int fd;

	snprintf(
	    path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strstr(buf, "TracerPid:")) == NULL)
		return -1;
	return (pid_t)atoi(p + 10);
}

/* Apply fn to every thread of a process; the number of threads. */
int
for_each_task(pid_t pid, void (*fn)(pid_t pid, pid_t tid, void *), void *a)
{
	char path[64];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((dir = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		n++;
		if (fn != NULL)
			fn(pid, (pid_t)atoi(de->d_name), a);
	}
	closedir(dir);
	return n;
}

/* Start a workload untraced with stdout on a pipe; wait for "ready". */
pid_t
spawn_ready(char *const *argv)
{
	char buf[16];
	int fds[2];
	pid_t pid;

	if (pipe(fds) != 0)
		exit(1);
	if ((pid = fork()) == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	if (read(fds[0], buf, sizeof(buf)) <= 0) {
		fprintf(stderr, "%s did not get ready\n", argv[0]);
		exit(1);
	}
	close(fds[0]);
	return pid;
}

/* Kill a process the test started and reap it if it is still ours. */
void
kill_reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

void
alarm_guard(unsigned seconds)
{
	signal(SIGALRM, SIG_DFL);
	alarm(seconds);
}

int
terminate_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	(void)pid;
	(void)lwpid;
	(void)arg;
	pctx_terminate(pctx);
	return 0;
}
