/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Refused before anything starts, with the true cause: cpc_set_check
 * (the library) and spec_check (the commands' function) open every
 * request of a set as its bind would, once, and say for each one that
 * cannot count: the event, the cause and the fix, one line each.
 *
 * Each cause is made real: a hardware attribute on a software event;
 * more breakpoints than debug registers; an unknown tracepoint and a
 * kernel without a PMU (refused already when the spec is read); and, in
 * a process of their own, uid 0 of a user namespace (unshare -Urpf),
 * tracefs unmounted (a private mount namespace) and an unprivileged user
 * (nobody, through setpriv, running a copy of this program that nobody
 * can reach). Where the namespaces are refused (in a chroot), those cases
 * are skipped, and said so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "diag.h"
#include "spec.h"

static cpc_t *cpc;
static char errbuf[8192];
static int paranoid;

/* Run fn with stderr captured into errbuf. */
static int
captured(int (*fn)(void *), void *arg)
{
	char path[] = "/tmp/test_spec_check.XXXXXX";
	int fd = mkstemp(path), saved = dup(2), rc;
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	rc = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, errbuf, sizeof(errbuf) - 1);
	errbuf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return rc;
}

struct check_arg {
	const char *text;
	int cpuid;
	enum spec_error err;
};

/* The function: parse a -c text, then check it; -2 if it did not parse. */
static int
do_spec_check(void *arg)
{
	struct check_arg *a = arg;
	struct spec *spec = spec_parse(cpc, a->text, &a->err);
	int rc;

	if (spec == NULL)
		return -2;
	rc = spec_check(cpc, spec, a->cpuid);
	spec_free(spec);
	return rc;
}

static int
spec_checked(const char *text, int cpuid, enum spec_error *err)
{
	struct check_arg a = { text, cpuid, SPEC_OK };
	int rc = captured(do_spec_check, &a);

	*err = a.err;
	return rc;
}

static int
lines(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

/* spec_check refuses n requests of text, each line saying all of says. */
static void
expect_refused(
    const char *text, int cpuid, int n, const char *says, const char *says2)
{
	enum spec_error err;
	int rc = spec_checked(text, cpuid, &err);

	if (rc != n || lines(errbuf) != n || strstr(errbuf, says) == NULL ||
	    (says2 != NULL && strstr(errbuf, says2) == NULL)) {
		check_failures++;
		fprintf(stderr,
		    "'%s' on cpu %d: %d refused, '%s'; want %d "
		    "with '%s' '%s'\n",
		    text, cpuid, rc, errbuf, n, says,
		    says2 != NULL ? says2 : "");
	}
	check_count++;
}

static void
expect_accepted(const char *text, int cpuid)
{
	enum spec_error err;
	int rc = spec_checked(text, cpuid, &err);

	if (rc != 0 || errbuf[0] != '\0') {
		check_failures++;
		fprintf(stderr, "'%s' on cpu %d: %d refused: '%s'\n", text,
		    cpuid, rc, errbuf);
	}
	check_count++;
}

/* spec_parse itself refuses text (before any check), saying says. */
static void
expect_unparsed(const char *text, const char *says)
{
	enum spec_error err;
	int rc = spec_checked(text, -1, &err);

	if (rc != -2 || err != SPEC_UNCOUNTABLE || lines(errbuf) != 1 ||
	    strstr(errbuf, says) == NULL || strstr(errbuf, "bad token")) {
		check_failures++;
		fprintf(stderr, "'%s': %d/%d, '%s'; want one line with '%s'\n",
		    text, rc, (int)err, errbuf, says);
	}
	check_count++;
}

/* The library's handler messages, all of them. */
static char libmsgs[4096];
static int libsubcode;

static void
record(const char *fn, int subcode, const char *fmt, va_list ap)
{
	size_t n = strlen(libmsgs);

	(void)fn;
	libsubcode = subcode;
	vsnprintf(libmsgs + n, sizeof(libmsgs) - n, fmt, ap);
}

/* The library: requests (flags, one attribute) checked as a set. */
static int
library_check(const char *const *events, int nevents, uint_t flags,
    const cpc_attr_t *attr, int cpuid)
{
	cpc_set_t *set = cpc_set_create(cpc);
	int i, rc;

	libmsgs[0] = '\0';
	libsubcode = 0;
	(void)cpc_seterrhndlr(cpc, record);
	for (i = 0; i < nevents; i++)
		CHECK(cpc_set_add_request(cpc, set, events[i], 0, flags,
			  attr != NULL ? 1 : 0, attr) == i);
	rc = cpc_set_check(cpc, set, cpuid);
	(void)cpc_seterrhndlr(cpc, diag_errhndlr);
	cpc_set_destroy(cpc, set);
	return rc;
}

static bool
has_attr(const char *name)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_attr_t a = { (char *)name, 0 };
	int rc;

	(void)cpc_seterrhndlr(cpc, record);
	rc = cpc_set_add_request(
	    cpc, set, "task-clock", 0, CPC_COUNT_USER, 1, &a);
	(void)cpc_seterrhndlr(cpc, diag_errhndlr);
	cpc_set_destroy(cpc, set);
	return rc == 0;
}

/* task-clock,umask=3: refused up front, naming the attribute. */
static void
test_attribute_on_software_event(void)
{
	const char *ev[] = { "task-clock" };
	cpc_attr_t umask = { "umask", 3 };

	if (!has_attr("umask")) {
		printf("note: no umask attribute on this CPU\n");
		return;
	}
	expect_refused("task-clock,umask=3", -1, 1,
	    "task-clock: umask=0x3 "
	    "is a hardware event attribute",
	    "task-clock is a software "
	    "event");
	expect_refused("page-faults,task-clock,umask1=3", -1, 1,
	    "task-clock: umask=0x3", NULL);
	expect_accepted("task-clock,page-faults", -1);
	CHECK(library_check(ev, 1, CPC_COUNT_USER, &umask, -1) == 1);
	CHECK(libsubcode == CPC_ATTRIBUTE_OUT_OF_RANGE);
	CHECK(strstr(libmsgs,
		  "task-clock: umask=0x3 is a hardware event "
		  "attribute") == libmsgs);
	CHECK(library_check(ev, 1, CPC_COUNT_USER, NULL, -1) == 0);
	CHECK(libmsgs[0] == '\0');
}

/* Five breakpoints at once, where x86 has four debug registers. */
static void
test_too_many_breakpoints(void)
{
	static volatile char data[8];
	char five[5][64], text[400] = "";
	const char *ev[5];
	int i;

	for (i = 0; i < 5; i++) {
		snprintf(
		    five[i], sizeof(five[i]), "mem:%p/1:w", (void *)&data[i]);
		ev[i] = five[i];
		if (i > 0)
			strlcat(text, ",", sizeof(text));
		strlcat(text, five[i], sizeof(text));
	}
	if (cpc_event_status(cpc, ev[0], NULL, 0) != CPC_EVENT_COUNTABLE) {
		printf("note: no breakpoints here\n");
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	CHECK(library_check(ev, 4, CPC_COUNT_USER, NULL, -1) == 0);
	CHECK(library_check(ev, 5, CPC_COUNT_USER, NULL, -1) == 1);
	CHECK(libsubcode == CPC_RESOURCE_UNAVAIL);
	CHECK(strstr(libmsgs, "every debug register of the CPU is taken") !=
	    NULL);
	expect_refused(text, -1, 1,
	    "with the set's other events: every "
	    "debug register",
	    "another set");
#else
	(void)text;
#endif
}

/* Refused when the spec is read: the reason, never bad token. */
static void
test_refused_when_read(void)
{
	char why[512];

	if (access("/sys/kernel/tracing/events/syscalls", F_OK) == 0) {
		expect_unparsed("syscalls:nonexistent",
		    "syscalls:nonexistent: "
		    "no such tracepoint in this kernel");
		CHECK(cpc_event_status(cpc, "syscalls:nonexistent", why,
			  sizeof(why)) == CPC_EVENT_UNKNOWN);
		CHECK(strstr(why, "no such tracepoint") != NULL);
		CHECK(strcmp(cpc_event_kind(cpc, "syscalls:nonexistent"),
			  "tracepoint") == 0);
	}
	if (cpc_pmu_name(cpc) == NULL) {
		expect_unparsed("cycles",
		    "cycles (CPU cycles (same as "
		    "cpu-cycles)): a hardware event, and this kernel has no "
		    "hardware counters");
		expect_unparsed("EC_ref",
		    "a hardware event (counted as LLC "
		    "references (cache-references)), and this kernel has no "
		    "hardware counters");
		CHECK(cpc_event_status(cpc, "PAPI_tot_ins", why, sizeof(why)) ==
		    CPC_EVENT_NO_PMU);
	}
}

/* Who may count what here, for the expectations below. */
static void
test_privileged(void)
{
	if (geteuid() != 0)
		return;
	expect_accepted("task-clock,cs,sys", -1);
	expect_accepted("task-clock", 0);
}

/* Children: each cause made real in a process of its own. */

static int
child_userns(void)
{
	const char *cs[] = { "cs" };

	/* uid 0, but of a user namespace: unprivileged for perf. */
	expect_accepted("task-clock", -1);
	if (paranoid >= 2) {
		expect_refused("cs", -1, 1,
		    "cs: Permission denied: uid 0 of "
		    "a user namespace has no privilege for performance "
		    "counters",
		    "it counts kernel mode");
		CHECK(strstr(errbuf, "hides itself") == NULL);
		CHECK(library_check(cs, 1, CPC_COUNT_USER, NULL, -1) == 1);
		CHECK(libsubcode == CPC_ATTR_REQUIRES_PRIVILEGE);
		CHECK(strstr(libmsgs, "uid 0 of a user namespace") != NULL);
	}
	if (paranoid >= 1)
		expect_refused("task-clock", 0, 1,
		    "counting a whole CPU needs "
		    "root or CAP_PERFMON while kernel.perf_event_paranoid is",
		    "user namespace");
	return check_report("test_spec_check (user namespace)");
}

static int
child_no_tracefs(void)
{
	char why[512];

	(void)umount2("/sys/kernel/tracing", MNT_DETACH);
	(void)umount2("/sys/kernel/debug/tracing", MNT_DETACH);
	if (access("/sys/kernel/tracing/events", F_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/events", F_OK) == 0) {
		printf("note: tracefs could not be unmounted here\n");
		return check_report("test_spec_check (no tracefs)");
	}
	expect_unparsed("syscalls:sys_enter_write",
	    "syscalls:sys_enter_write: "
	    "tracepoint, but tracefs is not mounted (mount -t tracefs nodev "
	    "/sys/kernel/tracing)");
	CHECK(cpc_event_status(cpc, "syscalls:sys_enter_write", why,
		  sizeof(why)) == CPC_EVENT_NO_TRACEFS);
	expect_accepted("task-clock", -1);
	return check_report("test_spec_check (no tracefs)");
}

static int
child_nobody(void)
{
	const char *tc[] = { "task-clock" };

	expect_accepted("task-clock,page-faults", -1);
	if (paranoid >= 2) {
		expect_refused("task-clock,sys", -1, 1,
		    "task-clock: "
		    "Permission denied: it counts kernel mode (sys asks for "
		    "it), which kernel.perf_event_paranoid",
		    "count user mode "
		    "only, or lower it to 1");
		expect_refused("cs", -1, 1, "cs: Permission denied",
		    "the "
		    "kernel counts it in its own context");
		expect_refused("task-clock:k,page-faults:u", -1, 1,
		    "task-clock:k: Permission denied", "its :k modifier");
		CHECK(library_check(tc, 1, CPC_COUNT_USER | CPC_COUNT_SYSTEM,
			  NULL, -1) == 1);
		CHECK(libsubcode == CPC_ATTR_REQUIRES_PRIVILEGE);
	}
	if (paranoid >= 1) {
		expect_refused("task-clock", 0, 1,
		    "counting a whole CPU needs "
		    "root or CAP_PERFMON",
		    "lower it to 0");
		CHECK(library_check(tc, 1, CPC_COUNT_USER, NULL, 0) == 1);
		CHECK(strstr(libmsgs, "whole CPU") != NULL);
	}
	if (access("/sys/kernel/tracing/events", R_OK) != 0 &&
	    access("/sys/kernel/tracing", F_OK) == 0)
		expect_unparsed("syscalls:sys_enter_write",
		    "this user may not "
		    "read tracefs");
	return check_report("test_spec_check (nobody)");
}

/* Run argv (quiet: its output dropped); its exit status, or -1. */
static int
run_status(char *const argv[], bool quiet)
{
	int status, null;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (quiet && (null = open("/dev/null", O_WRONLY)) >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(126);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * A copy of this program that any user can run, in a directory of its own
 * (mode 0755): the build tree may be where the child's user cannot go,
 * under /root (mode 0700) in a fresh root. Its path goes into copy.
 */
static bool
copy_of_self(const char *self, char *copy, size_t len, char *dir)
{
	char buf[65536];
	ssize_t n;
	int in, out;
	bool ok = true;

	if (mkdtemp(dir) == NULL || chmod(dir, 0755) != 0)
		return false;
	snprintf(copy, len, "%s/test_spec_check", dir);
	if ((in = open(self, O_RDONLY)) < 0)
		return false;
	if ((out = open(copy, O_WRONLY | O_CREAT | O_EXCL, 0755)) < 0) {
		close(in);
		return false;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			ok = false;
	if (n < 0 || fchmod(out, 0755) != 0)
		ok = false;
	close(in);
	return close(out) == 0 && ok;
}

/*
 * Run this program again under a wrapper, in one of the child modes. A
 * wrapper that cannot run here at all (unshare refused, as in a chroot)
 * is a case skipped, and said so.
 */
static void
run_child(const char *what, char *const wrapper[], const char *mode)
{
	char *argv[16], self[4096], copy[4096],
	    dir[] = "/tmp/spec-check.XXXXXX";
	char *probe[16];
	int i, n = 0, status;
	ssize_t len;

	if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		return;
	self[len] = '\0';
	for (i = 0; wrapper[i] != NULL; i++)
		probe[i] = wrapper[i];
	probe[i++] = "true";
	probe[i] = NULL;
	if (run_status(probe, true) != 0) {
		printf("note: %s: %s is refused here (in a chroot or a "
		       "container?); skipped\n",
		    what, wrapper[0]);
		return;
	}
	if (!copy_of_self(self, copy, sizeof(copy), dir)) {
		fprintf(stderr, "%s: cannot copy %s to %s\n", what, self, dir);
		check_failures++;
		return;
	}
	for (i = 0; wrapper[i] != NULL; i++)
		argv[n++] = wrapper[i];
	argv[n++] = copy;
	argv[n++] = (char *)mode;
	argv[n] = NULL;
	status = run_status(argv, false);
	unlink(copy);
	rmdir(dir);
	if (status == 126) {
		printf("note: %s: %s could not run it; skipped\n", what,
		    wrapper[0]);
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 126) {
		printf("note: %s: %s could not run it; skipped\n", what,
		    wrapper[0]);
		return;
	}
	if (status != 0)
		fprintf(stderr, "%s: the checks in the child failed\n", what);
	CHECK(status == 0);
}

static int
read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = -9;

	if (f != NULL) {
		if (fscanf(f, "%d", &level) != 1)
			level = -9;
		fclose(f);
	}
	return level;
}

int
main(int argc, char **argv)
{
	char *userns[] = { "unshare", "-Urpf", NULL };
	char *mountns[] = { "unshare", "-m", NULL };
	char *nobody[] = { "setpriv", "--reuid=nobody", "--regid=nogroup",
		"--clear-groups", NULL };
	const char *mode = argc > 1 ? argv[1] : "";

	diag_init("test_spec_check");
	paranoid = read_paranoid();
	if (strcmp(mode, "--no-tracefs") != 0 &&
	    access("/sys/kernel/tracing/events", F_OK) != 0)
		(void)mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open failed: %s", strerror(errno));
	(void)cpc_seterrhndlr(cpc, diag_errhndlr);
	if (strcmp(mode, "--userns") == 0)
		return child_userns();
	if (strcmp(mode, "--no-tracefs") == 0)
		return child_no_tracefs();
	if (strcmp(mode, "--nobody") == 0)
		return child_nobody();
	test_attribute_on_software_event();
	test_too_many_breakpoints();
	test_refused_when_read();
	test_privileged();
	if (geteuid() == 0) {
		run_child("uid 0 of a user namespace", userns, "--userns");
		run_child("tracefs unmounted", mountns, "--no-tracefs");
		run_child("nobody", nobody, "--nobody");
	} else {
		printf("note: not root: the namespace and nobody cases are "
		       "skipped\n");
	}
	cpc_close(cpc);
	return check_report("test_spec_check");
}
