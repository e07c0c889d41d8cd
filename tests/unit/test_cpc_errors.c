/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libcpc errors: the subcodes and their exact default texts, the error
 * handler (and errno surviving it), the default handler's output,
 * every errno case of the reference (section 5) that Linux can produce,
 * and a seccomp filter's refusal told as such, not as a security
 * module's.
 */
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "test_cpc.h"

static const char *const subcode_texts[] = {
	NULL,
	"Unknown event",
	"Invalid counter number",
	"Unknown attribute",
	"Attribute out of range",
	"Hardware resource unavailable",
	"Counter cannot count requested event",
	"Invalid flags in a request",
	"Requests conflict with each other",
	"Attribute requires the cpc_cpu privilege",
	"Couldn't bind LWP to requested processor",
	"Hypervisor event access denied",
};

static void
default_texts(void)
{
	int i;

	for (i = 1; i <= 11; i++) {
		const char *got = cpc_subcode_text(i);

		CHECK(got != NULL && strcmp(got, subcode_texts[i]) == 0);
	}
	CHECK(cpc_subcode_text(0) == NULL);
	CHECK(cpc_subcode_text(12) == NULL);
	CHECK(cpc_subcode_text(-1) == NULL);
	CHECK_EQ_U64(CPC_INVALID_EVENT, 1);
	CHECK_EQ_U64(CPC_HV_NO_ACCESS, 11);
}

/* add_request fails with EINVAL and reports one subcode. */
static void
expect_add_fails(cpc_t *cpc, cpc_set_t *set, const char *event, uint_t nattrs,
    const cpc_attr_t *attrs, int subcode)
{
	forget_error();
	errno = 0;
	CHECK(cpc_set_add_request(
		  cpc, set, event, 0, CPC_COUNT_USER, nattrs, attrs) == -1);
	/* The recording handler set ENOTTY; libcpc must restore EINVAL. */
	CHECK(errno == EINVAL);
	CHECK(last_error.calls == 1);
	CHECK(last_error.subcode == subcode);
	CHECK(strcmp(last_error.fn, "cpc_set_add_request") == 0);
	if (last_error.subcode != subcode)
		fprintf(stderr, "%s: subcode %d, message '%s'\n", event,
		    last_error.subcode, last_error.msg);
}

static void
request_errors(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_attr_t bad_attr = { "nonsense_attr", 1 };
	cpc_attr_t empty_attr = { "", 1 };
	cpc_attr_t pic_high = { "picnum", cpc_npic(cpc) };
	cpc_attr_t pic_ok = { "picnum", cpc_npic(cpc) - 1 };
	char longname[CPC_MAX_EVENT_LEN + 8];

	expect_add_fails(
	    cpc, set, "nonsense_event", 0, NULL, CPC_INVALID_EVENT);
	CHECK(strcmp(last_error.msg, "Unknown event\n") == 0);
	expect_add_fails(
	    cpc, set, "PAPI_no_such_thing", 0, NULL, CPC_INVALID_EVENT);
	CHECK(strcmp(last_error.msg, "Unknown event\n") == 0);
	expect_add_fails(cpc, set, "", 0, NULL, CPC_INVALID_EVENT);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	expect_add_fails(cpc, set, longname, 0, NULL, CPC_INVALID_EVENT);
	/* The event is checked before the attributes. */
	expect_add_fails(
	    cpc, set, "nonsense_event", 1, &bad_attr, CPC_INVALID_EVENT);

	expect_add_fails(
	    cpc, set, "page-faults", 1, &bad_attr, CPC_INVALID_ATTRIBUTE);
	CHECK(strcmp(last_error.msg, "Unknown attribute\n") == 0);
	expect_add_fails(
	    cpc, set, "page-faults", 1, &empty_attr, CPC_INVALID_ATTRIBUTE);
	expect_add_fails(
	    cpc, set, "page-faults", 1, &pic_high, CPC_INVALID_PICNUM);
	CHECK(strcmp(last_error.msg, "Invalid counter number\n") == 0);
	CHECK(cpc_set_add_request(
		  cpc, set, "page-faults", 0, CPC_COUNT_USER, 1, &pic_ok) == 0);

	/* No message for misuse without a subcode. */
	forget_error();
	CHECK(cpc_set_add_request(
		  cpc, set, "page-faults", 0, CPC_COUNT_USER, 1, NULL) == -1 &&
	    errno == EINVAL);
	CHECK(cpc_set_add_request(
		  cpc, NULL, "page-faults", 0, CPC_COUNT_USER, 0, NULL) == -1 &&
	    errno == EINVAL);
	CHECK(last_error.calls == 0);
}

/* The default handler prints "libcpc: <fn>: <text>" to stderr. */
static void
default_handler(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	char out[512];
	int fds[2], saved;
	ssize_t n;

	CHECK(pipe(fds) == 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fds[1], 2);
	CHECK(cpc_seterrhndlr(cpc, NULL) == 0);
	errno = 0;
	CHECK(cpc_set_add_request(cpc, set, "nonsense_event", 0, CPC_COUNT_USER,
		  0, NULL) == -1);
	CHECK(errno == EINVAL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	n = read(fds[0], out, sizeof(out) - 1);
	close(fds[0]);
	out[n > 0 ? n : 0] = '\0';
	CHECK(strcmp(out, "libcpc: cpc_set_add_request: Unknown event\n") == 0);
	if (strcmp(out, "libcpc: cpc_set_add_request: Unknown event\n") != 0)
		fprintf(stderr, "default handler printed '%s'\n", out);
	CHECK(cpc_seterrhndlr(cpc, recording_handler) == 0);
	CHECK(cpc_set_destroy(cpc, set) == 0);
}

static void
open_errors(void)
{
	CHECK(cpc_open(CPC_VER_NONE) == NULL && errno == EINVAL);
	CHECK(cpc_open(1) == NULL && errno == EINVAL);
	CHECK(cpc_open(3) == NULL && errno == EINVAL);
}

/*
 * cpc_probe_cpu: a CPU below -1 or beyond CPU_SETSIZE is refused; a
 * handle that tests on CPU 0 finds what root may count there, and a
 * set's check on it passes, on CPU 0 and on every CPU
 * (cpc_set_check_cpus), which refuses a handle with no probe CPU and
 * tells a request that cannot count.
 */
static void
probe_cpu_errors(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_attr_t cmask = { "cmask", 1 };
	cpc_set_t *set;

	CHECK(cpc != NULL);
	if (cpc == NULL)
		return;
	CHECK(cpc_probe_cpu(NULL, 0) == -1 && errno == EINVAL);
	CHECK(cpc_probe_cpu(cpc, -2) == -1 && errno == EINVAL);
	CHECK(cpc_probe_cpu(cpc, CPU_SETSIZE) == -1 && errno == EINVAL);
	if (geteuid() == 0) {
		CHECK(cpc_probe_cpu(cpc, 0) == 0);
		CHECK(cpc_event_status(cpc, "task-clock", NULL, 0) ==
		    CPC_EVENT_COUNTABLE);
		set = cpc_set_create(cpc);
		CHECK(set != NULL &&
		    cpc_set_add_request(cpc, set, "task-clock", 0,
			CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL) == 0 &&
		    cpc_set_check(cpc, set, 0) == 0);
		CHECK(set != NULL && cpc_set_check_cpus(cpc, set) == 0);
		CHECK(cpc_set_check_cpus(NULL, set) == -1 && errno == EINVAL);
		CHECK(cpc_set_check_cpus(cpc, NULL) == -1 && errno == EINVAL);
		/* An attribute the event cannot take: told, on every CPU. */
		CHECK(cpc_seterrhndlr(cpc, recording_handler) == 0);
		forget_error();
		CHECK(set != NULL &&
		    cpc_set_add_request(cpc, set, "context-switches", 0,
			CPC_COUNT_USER, 1, &cmask) == 1 &&
		    cpc_set_check_cpus(cpc, set) == 1 &&
		    strstr(last_error.msg, "context-switches: cmask=") != NULL);
		if (set != NULL)
			CHECK(cpc_set_destroy(cpc, set) == 0);
	}
	CHECK(cpc_probe_cpu(cpc, -1) == 0);
	set = cpc_set_create(cpc);
	CHECK(set != NULL && cpc_set_check_cpus(cpc, set) == -1 &&
	    errno == EINVAL);
	if (set != NULL)
		CHECK(cpc_set_destroy(cpc, set) == 0);
	cpc_close(cpc);
}

static void
count_walk(void *arg, uint_t picno, const char *event)
{
	(void)picno;
	(void)event;
	(*(int *)arg)++;
}

static void
set_and_bind_errors(cpc_t *cpc)
{
	cpc_t *other = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *empty = cpc_set_create(cpc);
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_set_t *foreign = cpc_set_create(other);
	int walked = 0;

	CHECK(cpc_set_add_request(
		  cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, NULL) == 0);
	CHECK(cpc_set_add_request(other, foreign, "page-faults", 0,
		  CPC_COUNT_USER, 0, NULL) == 0);

	CHECK(cpc_bind_curlwp(cpc, empty, 0) == -1 && errno == EINVAL);
	CHECK(cpc_bind_curlwp(cpc, set, CPC_BIND_EMT_OVF) == -1 &&
	    errno == EINVAL);
	CHECK(cpc_bind_curlwp(cpc, set, 0x80) == -1 && errno == EINVAL);
	CHECK(cpc_bind_curlwp(cpc, foreign, 0) == -1 && errno == EINVAL);
	CHECK(cpc_bind_cpu(cpc, 0, set, 1) == -1 && errno == EINVAL);
	CHECK(cpc_bind_cpu(cpc, 0, empty, 0) == -1 && errno == EINVAL);
	CHECK(cpc_bind_cpu(cpc, 4096, set, 0) == -1 && errno == EINVAL);
	CHECK(cpc_bind_cpu(cpc, -1, set, 0) == -1 && errno == EINVAL);
	CHECK(cpc_unbind(cpc, set) == -1 && errno == EINVAL);
	CHECK(cpc_unbind(cpc, foreign) == -1 && errno == EINVAL);
	CHECK(cpc_set_destroy(cpc, foreign) == -1 && errno == EINVAL);
	CHECK(cpc_set_destroy(cpc, NULL) == -1 && errno == EINVAL);
	CHECK(cpc_request_preset(cpc, 0, 5) == -1 && errno == EINVAL);
	CHECK(cpc_set_restart(cpc, set) == -1 && errno == EINVAL);

	errno = 0;
	cpc_walk_events_pic(cpc, cpc_npic(cpc), &walked, count_walk);
	CHECK(errno == EINVAL && walked == 0);
	errno = 0;
	cpc_walk_generic_events_pic(
	    cpc, cpc_npic(cpc) + 5, &walked, count_walk);
	CHECK(errno == EINVAL && walked == 0);

	/* A bound set takes no more requests. */
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	CHECK(cpc_set_add_request(
		  cpc, set, "task-clock", 0, CPC_COUNT_USER, 0, NULL) == -1 &&
	    errno == EINVAL);
	CHECK(cpc_unbind(cpc, set) == 0);
	CHECK(cpc_unbind(cpc, set) == -1 && errno == EINVAL);
	cpc_close(other);
}

/* Bind-time EINVALs: flags, too many requests, duplicate picnums. */
static void
bind_time_errors(cpc_t *cpc)
{
	cpc_set_t *flags = cpc_set_create(cpc);
	cpc_set_t *many = cpc_set_create(cpc);
	cpc_set_t *dup = cpc_set_create(cpc);
	cpc_attr_t pic0 = { "picnum", 0 };
	uint_t i;

	/* Flags are not checked when the request is added... */
	CHECK(cpc_set_add_request(cpc, flags, "page-faults", 0,
		  CPC_COUNT_USER | 0x100, 0, NULL) == 0);
	/* ...but at bind, with their subcode. */
	forget_error();
	CHECK(cpc_bind_curlwp(cpc, flags, 0) == -1 && errno == EINVAL);
	CHECK(last_error.subcode == CPC_REQ_INVALID_FLAGS);
	CHECK(strcmp(last_error.fn, "cpc_bind_curlwp") == 0);
	CHECK(strcmp(last_error.msg, "Invalid flags in a request\n") == 0);

	for (i = 0; i <= cpc_npic(cpc); i++)
		CHECK(cpc_set_add_request(cpc, many, "task-clock", 0,
			  CPC_COUNT_USER, 0, NULL) == (int)i);
	CHECK(cpc_bind_curlwp(cpc, many, 0) == -1 && errno == EINVAL);

	CHECK(cpc_set_add_request(
		  cpc, dup, "task-clock", 0, CPC_COUNT_USER, 1, &pic0) == 0);
	CHECK(cpc_set_add_request(
		  cpc, dup, "page-faults", 0, CPC_COUNT_USER, 1, &pic0) == 1);
	CHECK(cpc_bind_curlwp(cpc, dup, 0) == -1 && errno == EINVAL);
}

/* Hardware events on a kernel without a PMU: known, but not countable. */
static void
no_pmu_events(cpc_t *cpc)
{
	static const char *const hw[] = {
		"cycles",
		"PAPI_tot_ins",
		"0xc0",
		"Cycle_cnt",
		"instructions",
		"PAPI_tot_cyc",
		"Instr_cnt",
	};
	cpc_set_t *set = cpc_set_create(cpc);
	char why[512];
	size_t i;

	if (cpc_pmu_name(cpc) != NULL) {
		printf("note: this kernel has a PMU (%s); the no-PMU "
		       "checks do not apply\n",
		    cpc_pmu_name(cpc));
		for (i = 0; i < sizeof(hw) / sizeof(hw[0]); i++)
			CHECK(cpc_event_status(cpc, hw[i], NULL, 0) ==
			    CPC_EVENT_COUNTABLE);
		return;
	}
	for (i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		CHECK(cpc_event_status(cpc, hw[i], why, sizeof(why)) ==
		    CPC_EVENT_NO_PMU);
		CHECK(strstr(why, "no PMU") != NULL);
		expect_add_fails(cpc, set, hw[i], 0, NULL, CPC_INVALID_EVENT);
		CHECK(strstr(last_error.msg, "no hardware counters") != NULL);
		CHECK(strstr(last_error.msg, "no PMU") != NULL);
		CHECK(strncmp(last_error.msg, hw[i], strlen(hw[i])) == 0);
		CHECK(last_error.msg[strlen(last_error.msg) - 1] == '\n');
	}
}

static void
unmapped_events(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	char why[512];

	/* UltraSPARC names map to their nearest Linux event, or say why not. */
	CHECK(cpc_event_status(cpc, "EC_ref", why, sizeof(why)) ==
	    (cpc_pmu_name(cpc) != NULL ? CPC_EVENT_COUNTABLE :
					 CPC_EVENT_NO_PMU));
	CHECK(strstr(why, "cache-references") != NULL);
	CHECK(cpc_event_status(cpc, "Dispatch0_mispred", why, sizeof(why)) ==
	    CPC_EVENT_NO_EQUIVALENT);
	CHECK(strstr(why, "no equivalent") != NULL);
	expect_add_fails(
	    cpc, set, "Dispatch0_mispred", 0, NULL, CPC_INVALID_EVENT);
	CHECK(strstr(last_error.msg, "branch-misses") != NULL);

	CHECK(cpc_event_status(cpc, "nonsense_event", why, sizeof(why)) ==
	    CPC_EVENT_UNKNOWN);
	CHECK(cpc_event_status(cpc, "page-faults", why, sizeof(why)) ==
	    CPC_EVENT_COUNTABLE);
	if (!tracefs_ready()) {
		printf("note: tracefs unavailable, tracepoint status "
		       "checks skipped\n");
		return;
	}
	CHECK(cpc_event_status(cpc, "sched:no_such_tracepoint", why,
		  sizeof(why)) == CPC_EVENT_UNKNOWN);
	CHECK(strstr(why, "no such tracepoint") != NULL);
	CHECK(cpc_event_status(cpc, "no_such_subsystem:event", NULL, 0) ==
	    CPC_EVENT_UNKNOWN);
	expect_add_fails(
	    cpc, set, "sched:no_such_tracepoint", 0, NULL, CPC_INVALID_EVENT);
	CHECK(strcmp(last_error.msg, "Unknown event\n") == 0);
	CHECK(cpc_event_status(cpc, "syscalls:sys_enter_write", NULL, 0) ==
	    CPC_EVENT_COUNTABLE);
}

static int
read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = -9;

	if (f == NULL)
		return -9;
	if (fscanf(f, "%d", &level) != 1)
		level = -9;
	fclose(f);
	return level;
}

/* What the unprivileged child saw, sent back through a pipe. */
struct child_report {
	int user_rc; /* user-mode page-faults: allowed */
	int sys_rc;
	int sys_errno;
	int subcode;
	char msg[400];
};

static void
unprivileged_child(int out)
{
	struct child_report r;
	cpc_t *cpc;
	cpc_set_t *user, *sys;

	memset(&r, 0, sizeof(r));
	if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0)
		_exit(3);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		_exit(4);
	cpc_seterrhndlr(cpc, recording_handler);
	user = cpc_set_create(cpc);
	sys = cpc_set_create(cpc);
	cpc_set_add_request(
	    cpc, user, "page-faults", 0, CPC_COUNT_USER, 0, NULL);
	cpc_set_add_request(cpc, sys, "page-faults", 0,
	    CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL);
	r.user_rc = cpc_bind_curlwp(cpc, user, 0);
	cpc_unbind(cpc, user);
	forget_error();
	r.sys_rc = cpc_bind_curlwp(cpc, sys, 0);
	r.sys_errno = errno;
	r.subcode = last_error.subcode;
	snprintf(r.msg, sizeof(r.msg), "%s", last_error.msg);
	cpc_close(cpc);
	if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(5);
	_exit(0);
}

static void
permission(void)
{
	struct child_report r;
	int fds[2], status;
	pid_t pid;
	int paranoid = read_paranoid();

	if (geteuid() != 0) {
		printf("note: not root, the permission check is skipped\n");
		return;
	}
	if (paranoid < 2) {
		printf("note: kernel.perf_event_paranoid is %d (< 2): "
		       "unprivileged kernel counting is allowed here, the "
		       "permission check is skipped\n",
		    paranoid);
		return;
	}
	CHECK(pipe(fds) == 0);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		unprivileged_child(fds[1]);
	}
	close(fds[1]);
	memset(&r, 0, sizeof(r));
	CHECK(read(fds[0], &r, sizeof(r)) == (ssize_t)sizeof(r));
	close(fds[0]);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(r.user_rc == 0);
	CHECK(r.sys_rc == -1);
	CHECK(r.sys_errno == EACCES);
	CHECK(r.subcode == CPC_ATTR_REQUIRES_PRIVILEGE);
	CHECK(strstr(r.msg, "perf_event_paranoid") != NULL);
	CHECK(strstr(r.msg, "CAP_PERFMON") != NULL);
	CHECK(strstr(r.msg, "page-faults") != NULL);
	printf("unprivileged kernel counting: %s", r.msg);
}

/*
 * In a child, root: perf_event_open refused with EPERM by a seccomp
 * filter, as a container runtime's older default profile refuses it
 * without CAP_SYS_ADMIN. Its message through the pipe out; exit status 0,
 * or 77 where no filter could be set.
 */
static void
filtered_child(int out)
{
	struct sock_filter refuse[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(refuse) / sizeof(refuse[0]), refuse };
	char msg[sizeof(last_error.msg)];
	cpc_set_t *set;
	cpc_t *cpc;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		_exit(4);
	cpc_seterrhndlr(cpc, recording_handler);
	set = cpc_set_create(cpc);
	cpc_set_add_request(
	    cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, NULL);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		_exit(77);
	forget_error();
	if (cpc_bind_curlwp(cpc, set, 0) == 0)
		_exit(6);
	snprintf(msg, sizeof(msg), "%s", last_error.msg);
	if (write(out, msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		_exit(5);
	_exit(0);
}

static void
seccomp_refusal(void)
{
	char msg[sizeof(last_error.msg)] = "";
	int fds[2], status = 0;
	pid_t pid;

	if (geteuid() != 0) {
		printf("note: not root, the seccomp check is skipped\n");
		return;
	}
	CHECK(pipe(fds) == 0);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		filtered_child(fds[1]);
	}
	close(fds[1]);
	CHECK(waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		printf("note: no seccomp filter could be set here\n");
		close(fds[0]);
		return;
	}
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(read(fds[0], msg, sizeof(msg)) == (ssize_t)sizeof(msg));
	close(fds[0]);
	CHECK(strstr(msg, "seccomp filter") != NULL);
	CHECK(strstr(msg, "security module") == NULL);
	printf("under a seccomp filter: %s\n", msg);
}

int
main(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	CHECK(cpc != NULL);
	if (cpc == NULL)
		return check_report("test_cpc_errors");
	CHECK(cpc_seterrhndlr(cpc, recording_handler) == 0);
	default_texts();
	request_errors(cpc);
	default_handler(cpc);
	open_errors();
	probe_cpu_errors();
	set_and_bind_errors(cpc);
	bind_time_errors(cpc);
	no_pmu_events(cpc);
	unmapped_events(cpc);
	permission();
	seccomp_refusal();
	cpc_close(cpc);
	return check_report("test_cpc_errors");
}
