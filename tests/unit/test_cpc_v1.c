/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The obsolete CPCv1 API on the real kernel: the cpuver and its strings,
 * cpc_strtoevent's grammar and its original messages, round trips
 * through cpc_eventtostr, exact counts through cpc_bind_event and
 * cpc_take_sample, overflow through CPC_BIND_EMT_OVF, the in-place
 * user/system toggles, cpc_shared_* on a CPU and cpc_pctx_* on a
 * libpctx process.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "test_cpc.h"
#include "libpctx.h"

#define SPEC "pic0=syscalls:sys_enter_write,pic1=page-faults"

static int devnull = -1;
static int cpuver;

static void
writes(int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (write(devnull, "x", 1) != 1)
			abort();
}

/*
 * Not instrumented, and mapped by the system calls themselves: ASan's
 * stores and its mmap and munmap interceptors write the shadow of the
 * pages, and a shadow page touched first is one more page fault.
 */
static void __attribute__((no_sanitize_address)) touch_fresh_pages(int n)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)n * (size_t)pagesz;
	volatile char *p;
	int i;

	p = (volatile char *)syscall(SYS_mmap, NULL, len,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	for (i = 0; i < n; i++)
		p[(long)i * pagesz] = 1;
	(void)syscall(SYS_munmap, (void *)p, len);
}

/* The v1 error function's last message. */
static char v1_msg[512];
static char v1_fn[64];
static int v1_calls;

static void
v1_recorder(const char *fn, const char *fmt, va_list ap)
{
	v1_calls++;
	snprintf(v1_fn, sizeof(v1_fn), "%s", fn);
	vsnprintf(v1_msg, sizeof(v1_msg), fmt, ap);
}

static void
test_identity(void)
{
	CHECK_EQ_U64(cpc_version(CPC_VER_CURRENT), CPC_VER_CURRENT);
	CHECK_EQ_U64(cpc_version(CPC_VER_NONE), CPC_VER_CURRENT);
	CHECK_EQ_U64(cpc_version(CPC_VER_1), CPC_VER_1);
	CHECK_EQ_U64(cpc_version(7), CPC_VER_NONE);
	CHECK_EQ_U64(cpuver, CPC_LINUX_PERF);
	CHECK(strcmp(cpc_getcciname(cpuver), "Linux perf_event") == 0);
	CHECK(cpc_getcpuref(cpuver) != NULL);
	CHECK(strncmp(cpc_getusage(cpuver), "pic0=<event0>,pic1=<event1>",
		  27) == 0);
	CHECK_EQ_U64(cpc_getnpic(cpuver), 2);
	CHECK(cpc_getcciname(2002) == NULL);
	CHECK(cpc_getcpuref(-1) == NULL);
	CHECK(cpc_getusage(1000) == NULL);
	CHECK_EQ_U64(cpc_getnpic(2000), 0);
	CHECK_EQ_U64(cpc_access(), 0);
}

struct walked {
	int n;
	int next_code_ok;
	bool page_faults;
};

static void
walk_one(void *arg, int regno, const char *name, uint8_t bits)
{
	struct walked *w = arg;

	if (regno == 1 && bits == w->n)
		w->next_code_ok++;
	if (strcmp(name, "page-faults") == 0)
		w->page_faults = true;
	w->n++;
}

static void
test_walk_names(void)
{
	struct walked w;
	int none = 0;

	memset(&w, 0, sizeof(w));
	cpc_walk_names(cpuver, 1, &w, walk_one);
	CHECK(w.n > 0 && w.next_code_ok == w.n);
	CHECK(w.page_faults);
	cpc_walk_names(cpuver, 2, &none,
	    (void (*)(void *, int, const char *, uint8_t))abort);
	cpc_walk_names(2002, 0, &none,
	    (void (*)(void *, int, const char *, uint8_t))abort);
}

static void
round_trip(const char *spec, const char *canonical)
{
	cpc_event_t a, b;
	char *s1, *s2;

	CHECK_EQ_U64(cpc_strtoevent(cpuver, spec, &a), 0);
	s1 = cpc_eventtostr(&a);
	CHECK(s1 != NULL && strcmp(s1, canonical) == 0);
	if (s1 != NULL && strcmp(s1, canonical) != 0)
		fprintf(stderr, "  '%s' gave '%s', not '%s'\n", spec, s1,
		    canonical);
	CHECK_EQ_U64(cpc_strtoevent(cpuver, s1, &b), 0);
	CHECK(memcmp(a.ce_pes, b.ce_pes, sizeof(a.ce_pes)) == 0);
	s2 = cpc_eventtostr(&b);
	CHECK(s2 != NULL && s1 != NULL && strcmp(s1, s2) == 0);
	free(s1);
	free(s2);
}

static void
test_round_trips(void)
{
	cpc_event_t ev;

	round_trip(SPEC, SPEC);
	round_trip("page-faults,context-switches",
	    "pic0=page-faults,pic1=context-switches");
	round_trip("pic1=page-faults,sys,pic0=task-clock,nouser1",
	    "pic0=task-clock,pic1=page-faults,nouser1,sys");
	round_trip("pic0=page-faults,pic1=page-faults,noedge,int1,inv0,pc",
	    "pic0=page-faults,pic1=page-faults,noedge,int1,inv0,pc");
	round_trip("pic0=page-faults,pic1=task-clock,umask0=0x41,cmask1=3",
	    "pic0=page-faults,pic1=task-clock,cmask1=0x3,umask0=0x41");
	/* Event codes are accepted as numbers and printed by name. */
	CHECK_EQ_U64(cpc_strtoevent(cpuver, SPEC, &ev), 0);
	CHECK(ev.ce_cpuver == CPC_LINUX_PERF);
	CHECK((ev.ce_pes[0] & CPC_PES_USR) && !(ev.ce_pes[0] & CPC_PES_OS));
	CHECK(ev.ce_pic[0] == 0 && ev.ce_pic[1] == 0);
	CHECK(cpc_eventtostr(NULL) == NULL);
}

/* What cpc_strtoevent tells the v1 error function, exactly. */
static void
expect_error(const char *spec, int errors, const char *msg)
{
	cpc_event_t ev;

	v1_calls = 0;
	v1_msg[0] = '\0';
	CHECK_EQ_U64(cpc_strtoevent(cpuver, spec, &ev), errors);
	CHECK(strcmp(v1_fn, "strtoevent") == 0);
	CHECK(strcmp(v1_msg, msg) == 0);
	if (strcmp(v1_msg, msg) != 0)
		fprintf(
		    stderr, "  '%s': got '%s', want '%s'\n", spec, v1_msg, msg);
}

static void
test_strtoevent_errors(void)
{
	cpc_event_t ev;
	char out[256] = "";
	int pipefd[2], saved_stderr;
	ssize_t n;

	cpc_seterrfn(v1_recorder);
	expect_error(
	    "pic0=page-faults,pic1=page-faults,foo", 1, "bad token 'foo'\n");
	expect_error("pic0,pic1=page-faults", 1, "missing 'pic0' value\n");
	expect_error("pic0=page-faults", 1, "two events must be specified\n");
	expect_error("pic0=page-faults,pic1=task-clock,sys,sys", 1,
	    "repeated 'sys' token\n");
	expect_error(
	    "pic0=page-faults,pic1=task-clock,sys=1", 1, "bad arg to 'sys'\n");
	expect_error("pic0=page-faults,pic1=no_such_event", 1,
	    "PerfCtr1 cannot measure 'no_such_event' on this cpu\n");
	expect_error("pic0=255,pic1=page-faults", 1,
	    "PerfCtr0 cannot measure '255' on this cpu\n");
	expect_error("pic0=page-faults,pic1=task-clock,umask0=256", 1,
	    "bad 'umask0' value\n");
	expect_error("pic0=page-faults,pic1=task-clock,cmask1", 1,
	    "missing 'cmask1' value\n");
	expect_error("pic0=page-faults,pic1", 1, "missing 'pic1' value\n");
	CHECK_EQ_U64(cpc_strtoevent(cpuver, NULL, &ev), 1);
	CHECK(cpc_strtoevent(2002, SPEC, &ev) != 0);

	/* The default error function: "libcpc: strtoevent: ..." */
	cpc_seterrfn(NULL);
	if (pipe(pipefd) != 0)
		abort();
	saved_stderr = dup(2);
	dup2(pipefd[1], 2);
	CHECK_EQ_U64(
	    cpc_strtoevent(cpuver, "pic0=page-faults,pic1=x,bar", &ev), 2);
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	close(pipefd[1]);
	n = read(pipefd[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	CHECK(strcmp(out,
		  "libcpc: strtoevent: PerfCtr1 cannot measure 'x' "
		  "on this cpu\nlibcpc: strtoevent: bad token 'bar'\n") == 0);
}

static void
test_accum_diff(void)
{
	cpc_event_t a, b, d;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.ce_pic[0] = 10;
	a.ce_pic[1] = 20;
	a.ce_tsc = 30;
	a.ce_hrt = 5;
	b.ce_pic[0] = 1;
	b.ce_pic[1] = 2;
	b.ce_tsc = 3;
	b.ce_hrt = 9;
	cpc_event_diff(&d, &a, &b);
	CHECK(d.ce_pic[0] == 9 && d.ce_pic[1] == 18 && d.ce_tsc == 27);
	CHECK(d.ce_hrt == 5);
	cpc_event_accum(&a, &b);
	CHECK(a.ce_pic[0] == 11 && a.ce_pic[1] == 22 && a.ce_tsc == 33);
	CHECK(a.ce_hrt == 9);
}

static void
test_bind_and_sample(cpc_t *unused)
{
	cpc_event_t ev, before, after, diff;

	(void)unused;
	CHECK_EQ_U64(cpc_strtoevent(cpuver, SPEC, &ev), 0);
	CHECK(cpc_bind_event(&ev, 0) == 0);
	CHECK(cpc_take_sample(&before) == 0);
	writes(1000);
	touch_fresh_pages(50);
	CHECK(cpc_take_sample(&after) == 0);
	cpc_event_diff(&diff, &after, &before);
	CHECK_EQ_U64(diff.ce_pic[0], 1000);
	CHECK_EQ_U64(diff.ce_pic[1], 50);
	CHECK(after.ce_hrt > before.ce_hrt);
	CHECK(after.ce_cpuver == CPC_LINUX_PERF);
	CHECK(
	    after.ce_pes[0] == ev.ce_pes[0] && after.ce_pes[1] == ev.ce_pes[1]);

	/* User page faults stop while user counting is off. */
	CHECK(cpc_count_usr_events(0) == 0);
	CHECK(cpc_take_sample(&before) == 0);
	touch_fresh_pages(30);
	CHECK(cpc_take_sample(&after) == 0);
	CHECK_EQ_U64(after.ce_pic[1] - before.ce_pic[1], 0);
	CHECK(cpc_count_usr_events(1) == 0);
	touch_fresh_pages(30);
	CHECK(cpc_take_sample(&after) == 0);
	CHECK_EQ_U64(after.ce_pic[1] - before.ce_pic[1], 30);
	CHECK(cpc_count_sys_events(1) == 0);
	CHECK(cpc_take_sample(&after) == 0);
	CHECK(after.ce_pes[0] & CPC_PES_OS);

	CHECK(cpc_rele() == 0);
	errno = 0;
	CHECK(cpc_take_sample(&after) == -1 && errno == EINVAL);
	CHECK(cpc_count_usr_events(1) == -1 && errno == EINVAL);
	CHECK(cpc_bind_event(&ev, 0x40) == -1 && errno == EINVAL);
}

static volatile int emt_signals, emt_bad;

/* The seed 002 handler's pattern: sample, preset again, rebind. */
static void
on_emt(int sig, siginfo_t *si, void *uc)
{
	cpc_event_t sample;

	(void)uc;
	if (sig != SIGEMT || si->si_code != EMT_CPCOVF ||
	    cpc_take_sample(&sample) != 0 || sample.ce_pic[0] != 0) {
		emt_bad++;
		return;
	}
	emt_signals++;
	sample.ce_pic[0] = UINT64_MAX - 99;
	sample.ce_pic[1] = 0;
	if (cpc_bind_event(&sample, CPC_BIND_EMT_OVF) != 0)
		emt_bad++;
}

static long
writes_until_signal(void)
{
	int before = emt_signals + emt_bad;
	long n = 0;

	while (emt_signals + emt_bad == before && n < 100000) {
		writes(1);
		n++;
	}
	return n;
}

static void
test_overflow(cpc_t *unused)
{
	struct sigaction sa;
	cpc_event_t ev;
	int i;

	(void)unused;
	emt_signals = emt_bad = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_emt;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGEMT, &sa, NULL);
	CHECK_EQ_U64(cpc_strtoevent(cpuver, SPEC, &ev), 0);
	ev.ce_pic[0] = UINT64_MAX - 99;
	ev.ce_pic[1] = 0;
	CHECK(cpc_bind_event(&ev, CPC_BIND_EMT_OVF) == 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ_U64(writes_until_signal(), 100);
	CHECK_EQ_U64(emt_signals, 4);
	CHECK_EQ_U64(emt_bad, 0);
	cpc_bind_event(NULL, 0);

	/* int1: only pic1 interrupts; pic0 wraps silently. */
	CHECK_EQ_U64(
	    cpc_strtoevent(cpuver,
		"pic0=syscalls:sys_enter_write,pic1=page-faults,int1", &ev),
	    0);
	ev.ce_pic[0] = UINT64_MAX - 9;
	ev.ce_pic[1] = 0;
	CHECK(cpc_bind_event(&ev, CPC_BIND_EMT_OVF) == 0);
	writes(50);
	CHECK_EQ_U64(emt_signals + emt_bad, 4);
	cpc_rele();
	signal(SIGEMT, SIG_DFL);
}

/* cpc_shared_*: a CPU's counters, from a thread bound to it. */
static void
test_shared(void)
{
	cpu_set_t one, saved;
	cpc_event_t ev, before, after;
	int fd;

	CHECK(cpc_shared_open() == -1 && errno == EINVAL); /* unbound */
	sched_getaffinity(0, sizeof(saved), &saved);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	fd = cpc_shared_open();
	CHECK(fd >= 0);
	CHECK_EQ_U64(
	    cpc_strtoevent(cpuver,
		"pic0=syscalls:sys_enter_write,pic1=context-switches,sys", &ev),
	    0);
	CHECK(cpc_shared_bind_event(fd, &ev, 0) == 0);
	CHECK(cpc_shared_bind_event(fd, &ev, 1) == -1 && errno == EINVAL);
	CHECK(cpc_shared_take_sample(fd, &before) == 0);
	writes(500);
	CHECK(cpc_shared_take_sample(fd, &after) == 0);
	/* The CPU's writes: ours, and maybe a few of others'. */
	CHECK(after.ce_pic[0] - before.ce_pic[0] >= 500);
	CHECK(cpc_shared_rele(fd) == 0);
	CHECK(cpc_shared_take_sample(fd, &after) == -1 && errno == EINVAL);
	cpc_shared_close(fd);
	sched_setaffinity(0, sizeof(saved), &saved);
}

static int pctx_binds, pctx_finis;
static uint64_t pctx_writes;

static int
v1_init_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	cpc_event_t ev;

	(void)pid;
	(void)arg;
	if (cpc_strtoevent(cpuver, SPEC, &ev) == 0 &&
	    cpc_pctx_bind_event(pctx, lwpid, &ev, 0) == 0)
		pctx_binds++;
	return 0;
}

static int
v1_fini_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	cpc_event_t ev;

	(void)pid;
	(void)arg;
	if (cpc_pctx_take_sample(pctx, lwpid, &ev) == 0) {
		pctx_writes += ev.ce_pic[0];
		pctx_finis++;
	}
	CHECK(cpc_pctx_invalidate(pctx, lwpid) == 0);
	CHECK(cpc_pctx_take_sample(pctx, lwpid, &ev) == -1 && errno == EAGAIN);
	CHECK(cpc_pctx_rele(pctx, lwpid) == 0);
	CHECK(cpc_pctx_rele(pctx, lwpid) == -1 && errno == ESRCH);
	return 0;
}

/* cpc_pctx_*: an LWP of a libpctx process, counted exactly. */
static void
test_pctx(void)
{
	const char *dir = getenv("WORKLOADS");
	char path[512];
	char *argv[] = { path, "0", "0", "700", NULL };
	pctx_t *pctx;

	if (dir == NULL) {
		printf("cpc_pctx_*: WORKLOADS is not set; not tested\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/wl_threads", dir);
	/*
	 * A sanitizer build instruments the workload too, and LeakSanitizer
	 * cannot run under ptrace: its complaint would add writes.
	 */
	setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
	if ((pctx = pctx_create(path, argv, NULL, 0, NULL)) == NULL) {
		CHECK(!"pctx_create");
		return;
	}
	pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, v1_init_lwp,
	    PCTX_FINI_LWP_EVENT, v1_fini_lwp, PCTX_NULL_EVENT);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, NULL), 0);
	pctx_release(pctx);
	CHECK_EQ_U64(pctx_binds, 1);
	CHECK_EQ_U64(pctx_finis, 1);
	CHECK_EQ_U64(pctx_writes, 700);
}

int
main(void)
{
	require_tracefs();
	if ((devnull = open("/dev/null", O_WRONLY)) < 0)
		abort();
	if ((cpuver = cpc_getcpuver()) == -1)
		SKIP("cpc_getcpuver: no performance counters (%s)",
		    strerror(errno));
	test_identity();
	test_walk_names();
	test_round_trips();
	test_strtoevent_errors();
	test_accum_diff();
	test_bind_and_sample(NULL);
	test_overflow(NULL);
	test_shared();
	test_pctx();
	return check_report("test_cpc_v1");
}
