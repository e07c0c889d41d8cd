/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Exclusivity is the kernel's, and only for hardware counters
 * (docs/architecture.md, "Exclusivity"). Software events and tracepoints
 * exclude nobody: another process's CPU bindings of the same CPU, made
 * before, during and after ours, neither fail nor disturb a per-LWP set,
 * which counts its write(2) calls exactly throughout.
 *
 * Where a hardware PMU is present, a CPU binding of a hardware event holds
 * the counters it needs (pinned): a second one binds beside it, and one
 * with CPC_BIND_EXCLUSIVE, which wants the whole PMU, fails with EAGAIN,
 * leaves the caller's affinity alone and tells the error handler why
 * (CPC_COUNTERS_HELD). A CPC_BIND_EXCLUSIVE binding holds the whole PMU:
 * every other binding of a hardware event fails so, and CPC_BIND_SHARED
 * binds beside it. The two flags together are EINVAL. Without a PMU
 * (these VMs) that part says so and is proved by the QEMU suite
 * (tests/hw).
 *
 * The other process is a forked child that binds the CPU through its own
 * handle, says so through a pipe, then waits for the pipe to close.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include "test_cpc.h"

#define HELD_CPU 0
#define WRITES	 1000

struct holder {
	pid_t pid;
	int cmd;   /* test -> holder: closed to end it */
	int reply; /* holder -> test: 0 or the bind's errno */
};

static cpc_set_t *
one_request_set(cpc_t *cpc, const char *event, uint_t modes)
{
	cpc_set_t *set = cpc_set_create(cpc);

	CHECK(cpc_set_add_request(cpc, set, event, 0, modes, 0, NULL) == 0);
	return set;
}

/* The child: bind CPU cpu with event, report, hold until told. */
static void
holder_main(const char *event, uint_t flags, int cmd, int out)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	int err = 0;
	char c;

	if (cpc == NULL ||
	    cpc_bind_cpu(cpc, HELD_CPU,
		one_request_set(cpc, event, CPC_COUNT_USER | CPC_COUNT_SYSTEM),
		flags) != 0)
		err = errno != 0 ? errno : EINVAL;
	if (write(out, &err, sizeof(err)) != (ssize_t)sizeof(err))
		_exit(9);
	while (read(cmd, &c, 1) > 0)
		;
	cpc_close(cpc);
	_exit(0);
}

/* 0 when the holder bound the CPU, else the errno its bind failed with. */
static int
start_holder(struct holder *h, const char *event, uint_t flags)
{
	int to_child[2], from_child[2], err = EIO;

	if (pipe2(to_child, O_CLOEXEC) != 0 ||
	    pipe2(from_child, O_CLOEXEC) != 0)
		return errno;
	fflush(NULL);
	if ((h->pid = fork()) == 0) {
		close(to_child[1]);
		close(from_child[0]);
		holder_main(event, flags, to_child[0], from_child[1]);
	}
	close(to_child[0]);
	close(from_child[1]);
	h->cmd = to_child[1];
	h->reply = from_child[0];
	if (h->pid < 0 ||
	    read(h->reply, &err, sizeof(err)) != (ssize_t)sizeof(err))
		err = EIO;
	return err;
}

static void
stop_holder(struct holder *h)
{
	int status;

	close(h->cmd);
	close(h->reply);
	CHECK(waitpid(h->pid, &status, 0) == h->pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void
do_writes(int fd, int n)
{
	char c = 'x';
	int i;

	for (i = 0; i < n; i++)
		if (write(fd, &c, 1) != 1)
			abort();
}

static uint64_t
writes_counted(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	uint64_t v = 0;

	CHECK(cpc_set_sample(cpc, set, buf) == 0);
	CHECK(cpc_buf_get(cpc, buf, 0, &v) == 0);
	return v;
}

/*
 * A per-LWP set bound before another process binds the CPU, counting on
 * through that binding, its end, and a binding of our own.
 */
static void
software_excludes_nobody(cpc_t *cpc)
{
	cpc_set_t *writes = one_request_set(
	    cpc, "syscalls:sys_enter_write", CPC_COUNT_USER | CPC_COUNT_SYSTEM);
	cpc_set_t *mine = one_request_set(cpc, "task-clock", CPC_COUNT_USER);
	cpc_set_t *late = one_request_set(
	    cpc, "context-switches", CPC_COUNT_USER | CPC_COUNT_SYSTEM);
	cpc_buf_t *buf = cpc_buf_create(cpc, writes);
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct holder h;
	uint64_t before;

	CHECK(cpc_bind_curlwp(cpc, writes, 0) == 0);
	before = writes_counted(cpc, writes, buf);
	CHECK(start_holder(&h, "task-clock", 0) == 0);
	/* Held by another process: nothing is refused or spoiled. */
	do_writes(devnull, WRITES);
	CHECK_EQ_U64(writes_counted(cpc, writes, buf) - before, WRITES);
	CHECK(cpc_bind_cpu(cpc, HELD_CPU, mine, 0) == 0);
	CHECK(cpc_enable(cpc) == -1 && errno == EINVAL); /* already on */
	CHECK(cpc_disable(cpc) == 0 && cpc_enable(cpc) == 0);
	do_writes(devnull, WRITES);
	CHECK_EQ_U64(writes_counted(cpc, writes, buf) - before, 2 * WRITES);
	CHECK(cpc_unbind(cpc, mine) == 0);
	/* A second process binding the same CPU's software events. */
	{
		struct holder h2;

		CHECK(start_holder(&h2, "context-switches", 0) == 0);
		stop_holder(&h2);
	}
	stop_holder(&h);
	do_writes(devnull, WRITES);
	CHECK_EQ_U64(writes_counted(cpc, writes, buf) - before, 3 * WRITES);
	CHECK(cpc_unbind(cpc, writes) == 0);
	/* A bind made while nobody holds anything, as before. */
	CHECK(cpc_bind_curlwp(cpc, late, CPC_BIND_LWP_INHERIT) == 0);
	CHECK(cpc_unbind(cpc, late) == 0);
	close(devnull);
	printf("software events: bindings of cpu%d by two processes and "
	       "ours excluded nobody; %d writes counted exactly\n",
	    HELD_CPU, 3 * WRITES);
}

/* Whether a CPU binding of a hardware event can be made here at all. */
static bool
pmu_present(cpc_t *cpc)
{
	cpc_set_t *set;
	bool ok;

	if (cpc_pmu_name(cpc) == NULL)
		return false;
	set = cpc_set_create(cpc);
	ok = cpc_set_add_request(
		 cpc, set, "PAPI_tot_ins", 0, CPC_COUNT_USER, 0, NULL) == 0 &&
	    cpc_bind_cpu(cpc, HELD_CPU, set, CPC_BIND_SHARED) == 0;
	if (ok)
		(void)cpc_unbind(cpc, set);
	(void)cpc_set_destroy(cpc, set);
	return ok;
}

/* What the error handler was told last. */
static int held_subcode;
static char held_text[512];

static void
record_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn;
	held_subcode = subcode;
	vsnprintf(held_text, sizeof(held_text), fmt, ap);
}

/*
 * A bind of set on HELD_CPU with flags fails with EAGAIN, leaves the
 * affinity as it was, and names the cause (want: a part of the text).
 */
static void
refused_held(cpc_t *cpc, cpc_set_t *set, uint_t flags, const char *want)
{
	cpu_set_t before, after;

	CHECK(sched_getaffinity(0, sizeof(before), &before) == 0);
	held_subcode = 0;
	held_text[0] = '\0';
	errno = 0;
	CHECK(cpc_bind_cpu(cpc, HELD_CPU, set, flags) == -1 && errno == EAGAIN);
	CHECK(sched_getaffinity(0, sizeof(after), &after) == 0);
	CHECK(CPU_EQUAL(&before, &after));
	CHECK(held_subcode == CPC_COUNTERS_HELD);
	if (strstr(held_text, want) == NULL)
		fprintf(stderr, "told '%s', want '%s'\n", held_text, want);
	CHECK(strstr(held_text, want) != NULL);
}

/* Whether a bind of set on HELD_CPU with flags succeeds; unbound after. */
static bool
binds(cpc_t *cpc, cpc_set_t *set, uint_t flags)
{
	if (cpc_bind_cpu(cpc, HELD_CPU, set, flags) != 0)
		return false;
	return cpc_unbind(cpc, set) == 0;
}

/* HELD_CPU's counters taken by another process, then its whole PMU. */
static void
hardware_holds(cpc_t *cpc)
{
	cpc_set_t *second =
	    one_request_set(cpc, "PAPI_tot_ins", CPC_COUNT_USER);
	struct holder h;
	int err;
	char cause[64];

	CHECK(cpc_bind_cpu(cpc, HELD_CPU, second,
		  CPC_BIND_SHARED | CPC_BIND_EXCLUSIVE) == -1 &&
	    errno == EINVAL);
	if ((err = start_holder(&h, "PAPI_tot_ins", 0)) != 0) {
		/* Someone outside the test holds every counter. */
		printf("note: cpu%d's counters cannot be held here (%s); the "
		       "hardware checks are left to the QEMU suite\n",
		    HELD_CPU, strerror(err));
		stop_holder(&h);
		return;
	}
	(void)cpc_seterrhndlr(cpc, record_errhndlr);
	/* Pinned beside pinned; the whole PMU is not to be had. */
	CHECK(binds(cpc, second, 0));
	snprintf(
	    cause, sizeof(cause), "holding the whole PMU of cpu%d", HELD_CPU);
	refused_held(cpc, second, CPC_BIND_EXCLUSIVE, cause);
	stop_holder(&h);
	/* Held whole: nothing else goes on, but a shared binding is made. */
	CHECK(start_holder(&h, "PAPI_tot_ins", CPC_BIND_EXCLUSIVE) == 0);
	refused_held(cpc, second, 0, "the set needs 1 hardware counter of");
	refused_held(cpc, second, CPC_BIND_EXCLUSIVE, cause);
	CHECK(binds(cpc, second, CPC_BIND_SHARED));
	stop_holder(&h);
	CHECK(binds(cpc, second, CPC_BIND_EXCLUSIVE));
	(void)cpc_seterrhndlr(cpc, NULL);
	printf("hardware events: a binding of cpu%d's counters beside "
	       "another; the whole PMU refused beside it with EAGAIN and "
	       "its cause; held whole, everything but a shared binding "
	       "refused\n",
	    HELD_CPU);
}

int
main(void)
{
	cpc_t *cpc;

	if (geteuid() != 0)
		SKIP("not root: CPU-wide counting needs root or CAP_PERFMON");
	require_tracefs();
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	software_excludes_nobody(cpc);
	if (pmu_present(cpc))
		hardware_holds(cpc);
	else
		printf("note: no hardware PMU here (%s): the hardware "
		       "exclusivity checks run in the QEMU suite, tests/hw\n",
		    cpc_pmu_name(cpc) == NULL ?
			"no core PMU" :
			"PAPI_tot_ins cannot be bound to a CPU");
	cpc_close(cpc);
	return check_report("test_cpc_exclusive");
}
