/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx capture: the refusals and their messages, every thread of a
 * running process attached (even one that keeps spawning threads), and
 * release, terminate or SIGINT leaving the process running, untraced and
 * not stopped.
 */
#include <sys/prctl.h>

#include "test_pctx.h"

static char errtext[256];

static void
errfn(const char *fn, const char *fmt, va_list ap)
{
	int n = snprintf(errtext, sizeof(errtext), "%s: ", fn);

	vsnprintf(errtext + n, sizeof(errtext) - (size_t)n, fmt, ap);
}

static void
expect_refusal(pid_t pid, const char *want)
{
	errtext[0] = '\0';
	CHECK(pctx_capture(pid, NULL, 0, errfn) == NULL);
	if (strcmp(errtext, want) != 0) {
		fprintf(stderr, "capture %d: got \"%s\", want \"%s\"\n",
		    (int)pid, errtext, want);
		check_failures++;
	}
}

/* The capture attempt of an unprivileged user, in a child; its message. */
static void
capture_as_nobody(pid_t pid, char *out, size_t len)
{
	int fds[2], status;
	ssize_t n;
	pid_t child;

	if (pipe(fds) != 0)
		exit(1);
	if ((child = fork()) == 0) {
		close(fds[0]);
		if (setresgid(65534, 65534, 65534) != 0 ||
		    setresuid(65534, 65534, 65534) != 0)
			_exit(1);
		errtext[0] = '\0';
		(void)pctx_capture(pid, NULL, 0, errfn);
		(void)write(fds[1], errtext, strlen(errtext));
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(child, &status, 0);
}

static void
test_refusals(void)
{
	char *argv[] = { (char *)wl("wl_idle"), "1", "0", NULL };
	char want[128], got[256];
	pctx_t *pctx;
	pid_t pid, zombie;

	expect_refusal(getpid(), "capture: cannot capture self!\n");
	expect_refusal(0x3ffffff0, "capture: pid 1073741808 doesn't exist\n");
	expect_refusal(2, "capture: pid 2 is a system process\n");
	if ((zombie = fork()) == 0)
		_exit(0);
	CHECK(wait_zombie(zombie));
	snprintf(
	    want, sizeof(want), "capture: pid %d is a zombie\n", (int)zombie);
	expect_refusal(zombie, want);
	waitpid(zombie, NULL, 0);

	pid = spawn_ready(argv);
	capture_as_nobody(pid, got, sizeof(got));
	snprintf(want, sizeof(want), "capture: pid %d: permission denied\n",
	    (int)pid);
	CHECK(strcmp(got, want) == 0);
	pctx = pctx_capture(pid, NULL, 0, errfn);
	CHECK(pctx != NULL);
	snprintf(want, sizeof(want),
	    "capture: pid %d is already being traced\n", (int)pid);
	expect_refusal(pid, want);
	pctx_release(pctx);
	CHECK(tracer_of(pid, pid) == 0);
	kill_reap(pid);
}

static void
expect_untraced_task(pid_t pid, pid_t tid, void *arg)
{
	char state = 0, path[64];
	FILE *f;

	(void)arg;
	CHECK(tracer_of(pid, tid) == 0 || tracer_of(pid, tid) == -1);
	snprintf(
	    path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
			state = 0;
		fclose(f);
	}
	CHECK(state != 't' && state != 'T');
}

static void
count_held_task(pid_t pid, pid_t tid, void *arg)
{
	char state = proc_state(tid);

	if (state == 't' || state == 'T' || tracer_of(pid, tid) > 0)
		(*(int *)arg)++;
}

/* Every thread of the process left its stop and its tracer. */
static bool
all_tasks_free(void *arg)
{
	int held = 0;

	(void)for_each_task(*(pid_t *)arg, count_held_task, &held);
	return held == 0;
}

/* After release: running on, no thread traced or stopped. */
static void
check_running_free(pid_t pid)
{
	CHECK(wait_for("every thread let go", all_tasks_free, &pid));
	CHECK(proc_state(pid) != 0 && proc_state(pid) != 'Z');
	(void)for_each_task(pid, expect_untraced_task, NULL);
}

/* A multithreaded process: all LWPs ticked, then released. */
static void
test_capture_release(void)
{
	char *argv[] = { (char *)wl("wl_idle"), "3", "0", NULL };
	unsigned long missed;
	struct lwprec *r;
	pctx_t *pctx;
	pid_t pid;
	id_t id;

	pid = spawn_ready(argv);
	pctx = pctx_capture(pid, NULL, 0, NULL);
	CHECK(pctx != NULL);
	if (pctx == NULL)
		return;
	CHECK(set_all_events(pctx) == 0);
	(void)proc_of(pid);
	CHECK_EQ_U64(pctx_run(pctx, 50, 3, t_tick), 0);
	CHECK_EQ_U64(count_lwps(pid, 0), 4);
	missed = pctx_missed_ticks(pctx);
	for (id = 1; id <= 4; id++) {
		r = lwp_rec(pid, 0, id);
		CHECK(r != NULL && r->inits == 1 && r->finis == 0 &&
		    r->creates == 0);
		/* Late deadlines are skipped, and count as samples. */
		if (r != NULL && r->ticks + missed != 3) {
			fprintf(stderr, "lwp %d: %d ticks, %lu missed\n",
			    (int)id, r->ticks, missed);
			check_failures++;
		}
		if (r != NULL)
			CHECK(sample(r->set) == 0);
	}
	CHECK(lwp_rec(pid, 0, 1) != NULL && lwp_rec(pid, 0, 1)->tid == pid);
	pctx_release(pctx);
	check_running_free(pid);
	kill_reap(pid);
}

/* A process whose threads come and go all the time. */
static int untraced_tasks;

static void
expect_traced_task(pid_t pid, pid_t tid, void *arg)
{
	pid_t t = tracer_of(pid, tid);

	(void)arg;
	if (t != getpid() && t != -1)
		untraced_tasks++;
}

static int spawner_ticks;

/* Threads of pid seen born, and of those, seen from birth to exit. */
static void
spawner_seen(pid_t pid, int *born, int *full)
{
	int i;

	*born = *full = 0;
	for (i = 0; i < nlwps; i++) {
		if (lwps[i].pid != pid || lwps[i].creates != 1)
			continue;
		(*born)++;
		if (lwps[i].finis == 1)
			(*full)++;
	}
}

/*
 * The run lasts until enough threads came and went, however slowly a
 * loaded machine runs the spawner (nsamples bounds it).
 */
static int
spawner_tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	int born, full;

	if (lwpid == 1 && ++spawner_ticks == 3)
		(void)for_each_task(pid, expect_traced_task, NULL);
	if (lwpid == 1 && spawner_ticks >= 6) {
		spawner_seen(pid, &born, &full);
		if (born > 10 && full > 10)
			pctx_terminate(pctx);
	}
	return t_tick(pctx, pid, lwpid, arg);
}

static void
test_capture_spawner(void)
{
	char *argv[] = { (char *)wl("wl_spawner"), "3", "2", NULL };
	struct lwprec *r;
	pctx_t *pctx;
	pid_t pid;
	int i, born = 0, full = 0;

	pid = spawn_ready(argv);
	sleep_ms(20); /* not a wait: threads come and go a while */
	pctx = pctx_capture(pid, NULL, 0, NULL);
	CHECK(pctx != NULL);
	if (pctx == NULL) {
		kill_reap(pid);
		return;
	}
	CHECK(set_all_events(pctx) == 0);
	(void)proc_of(pid);
	CHECK_EQ_U64(pctx_run(pctx, 50, 1200, spawner_tick), 0);
	CHECK_EQ_U64(untraced_tasks, 0);
	for (i = 0; i < nlwps; i++) {
		r = &lwps[i];
		if (r->pid != pid)
			continue;
		CHECK_EQ_U64(r->inits, 1);
		if (r->creates == 1 && r->finis == 1) {
			CHECK_EQ_U64(r->count, 2);
			CHECK_EQ_U64(r->exits, 1);
		}
	}
	spawner_seen(pid, &born, &full);
	CHECK(born > 10 && full > 10);
	pctx_release(pctx);
	check_running_free(pid);
	kill_reap(pid);
}

/* A pipe's write end: the first tick says on it that the run is on. */
static int run_started = -1;

static int
tick_says_started(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	if (run_started >= 0) {
		CHECK(write(run_started, "r", 1) == 1);
		close(run_started);
		run_started = -1;
	}
	return t_tick(pctx, pid, lwpid, arg);
}

/* SIGINT to the tracer: pctx_run returns 0, the target runs on. */
static void
test_sigint(void)
{
	char *argv[] = { (char *)wl("wl_idle"), "2", "0", NULL };
	pctx_t *pctx;
	pid_t pid, killer, me = getpid();
	int fds[2];
	char c;

	pid = spawn_ready(argv);
	pctx = pctx_capture(pid, NULL, 0, NULL);
	CHECK(pctx != NULL);
	if (pctx == NULL)
		return;
	CHECK(set_all_events(pctx) == 0);
	if (pipe(fds) != 0)
		exit(1);
	if ((killer = fork()) == 0) {
		close(fds[1]);
		/* Not at the end of a run that never ticked. */
		if (read(fds[0], &c, 1) == 1)
			kill(me, SIGINT);
		_exit(0);
	}
	close(fds[0]);
	run_started = fds[1];
	CHECK_EQ_U64(pctx_run(pctx, 50, 0, tick_says_started), 0);
	CHECK(run_started == -1);
	if (run_started >= 0)
		close(run_started);
	waitpid(killer, NULL, 0);
	CHECK(proc_state(pid) != 0);
	pctx_release(pctx);
	check_running_free(pid);
	kill_reap(pid);
}

/* pctx_terminate from a callback: the run returns 0, still traced. */
static void
test_terminate(void)
{
	char *argv[] = { (char *)wl("wl_idle"), "1", "0", NULL };
	pctx_t *pctx;
	pid_t pid;

	pid = spawn_ready(argv);
	pctx = pctx_capture(pid, NULL, 0, NULL);
	CHECK(pctx != NULL);
	if (pctx == NULL)
		return;
	CHECK_EQ_U64(pctx_run(pctx, 20, 0, terminate_tick), 0);
	CHECK(tracer_of(pid, pid) == getpid());
	pctx_release(pctx);
	check_running_free(pid);
	kill_reap(pid);
}

int
main(void)
{
	alarm_guard(100);
	open_cpc();
	test_refusals();
	test_capture_release();
	test_capture_spawner();
	test_sigint();
	test_terminate();
	cpc_close(cpc);
	return check_report("test_pctx_capture");
}
