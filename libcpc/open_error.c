/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a failed perf_event_open(2) means for a request: the true cause,
 * told in one line with what would fix it. Used when a set is checked
 * (cpc_set_check), when a name's status is asked, and at bind, where the
 * handle's error handler gets it and errno is left as the API documents.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "evname.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT	  38
/* The kernel's own "not supported", which reaches user space as is. */
#define KERNEL_ENOTSUPP	  524

/* Who the caller is, for performance counters. */
struct privilege {
	bool capable;	/* CAP_PERFMON or CAP_SYS_ADMIN, counting */
	bool userns;	/* in a user namespace other than the first */
	bool caps_here; /* capable in its own namespace */
	bool filtered;	/* under a seccomp filter (a container's profile) */
	int paranoid;
	bool user_only; /* the level refuses users all counting (Debian's 3) */
};

static int
read_paranoid(void)
{
	int paranoid = -9;
	FILE *f;

	if ((f = fopen("/proc/sys/kernel/perf_event_paranoid", "r")) != NULL) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -9;
		fclose(f);
	}
	return paranoid;
}

/* The initial user namespace maps every uid to itself. */
static bool
in_child_userns(void)
{
	unsigned long inside, outside, count;
	FILE *f;
	bool child = false;

	if ((f = fopen("/proc/self/uid_map", "r")) == NULL)
		return false;
	if (fscanf(f, "%lu %lu %lu", &inside, &outside, &count) != 3 ||
	    inside != 0 || outside != 0 || count != 4294967295UL)
		child = true;
	fclose(f);
	return child;
}

/* The effective capabilities and the seccomp mode of /proc/self/status. */
static void
status_read(uint64_t *caps, int *seccomp)
{
	char line[256];
	FILE *f;

	*caps = 0;
	*seccomp = 0;
	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "CapEff: %" SCNx64, caps) != 1)
			(void)sscanf(line, "Seccomp: %d", seccomp);
	fclose(f);
}

/*
 * A seccomp filter answers before the kernel reads the attribute: one
 * too short to be read gets E2BIG from the kernel, which reads it before
 * any permission check (a security module's included), and EPERM or
 * ENOSYS only from a filter in front of it.
 */
static bool
refused_before_kernel(void)
{
	struct perf_event_attr attr;
	int fd;

	cpclib_dummy_attr(&attr);
	attr.size = 1;
	if ((fd = cpclib_perf_open(&attr, 0, -1, -1)) >= 0) {
		close(fd);
		return false;
	}
	return errno == EPERM || errno == EACCES || errno == ENOSYS;
}

/*
 * Whether this user may count its own process in user mode: a kernel
 * with Debian's patch refuses it at perf_event_paranoid 3 (or more);
 * one without it takes any level above 2 as 2, which allows it.
 */
static bool
user_counting_allowed(void)
{
	struct perf_event_attr attr;
	int fd;

	cpclib_dummy_attr(&attr);
	if ((fd = cpclib_perf_open(&attr, 0, -1, -1)) < 0)
		return false;
	close(fd);
	return true;
}

static void
privilege_read(struct privilege *p)
{
	uint64_t caps;
	int seccomp;

	status_read(&caps, &seccomp);
	p->caps_here = (caps & (1ULL << CAP_PERFMON_BIT)) ||
	    (caps & (1ULL << CAP_SYS_ADMIN_BIT));
	p->userns = in_child_userns();
	p->capable = p->caps_here && !p->userns;
	p->filtered = seccomp == SECCOMP_MODE_FILTER && refused_before_kernel();
	p->paranoid = read_paranoid();
	p->user_only =
	    p->paranoid >= 3 && !p->capable && !user_counting_allowed();
}

/* The modes a request's events count in, as cpclib_request_to_attr. */
static uint_t
request_modes(const struct cpc_request *req)
{
	uint_t modes;

	if (req->enc.modes != 0)
		return req->enc.modes;
	if (req->enc.all_modes)
		return CPC_COUNT_USER | CPC_COUNT_SYSTEM | CPC_COUNT_HV;
	modes = req->flags;
	if (req->enc.kernel_context)
		modes |= CPC_COUNT_USER | CPC_COUNT_SYSTEM;
	return modes;
}

static bool
is_probe_pmu(cpc_t *cpc, const struct cpc_request *req)
{
	const struct sysfs_pmu *u = cpclib_sysfs_pmu(cpc, "uprobe");
	const struct sysfs_pmu *k = cpclib_sysfs_pmu(cpc, "kprobe");
	uint32_t type;

	if (req->enc.nterms == 0)
		return false;
	type = req->enc.term[0].attr.type;
	return (u != NULL && type == (uint32_t)u->type) ||
	    (k != NULL && type == (uint32_t)k->type);
}

/* Why kernel mode is counted: the event's nature, or what was asked. */
static const char *
kernel_mode_reason(const struct cpc_request *req)
{
	if (req->enc.modes != 0)
		return "its :k modifier asks for it";
	if (req->enc.kernel_context && req->enc.nterms > 0 &&
	    req->enc.term[0].attr.type == PERF_TYPE_TRACEPOINT)
		return "a tracepoint fires in the kernel";
	if (req->enc.kernel_context)
		return "the kernel counts it in its own context";
	return "sys asks for it";
}

/*
 * process_vm_readv(2) makes ptrace's attach check (real credentials)
 * before it reads: of address 0, EFAULT when allowed. Nothing stops or
 * notices.
 */
int
cpc_may_trace(pid_t pid)
{
	char byte;
	struct iovec local = { &byte, 1 }, remote = { NULL, 1 };

	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) >= 0 ||
	    errno == EFAULT)
		return 1;
	if (errno == EACCES)
		errno = EPERM;
	return 0;
}

/*
 * Why this user may not: "Permission denied: " and the cause and fix.
 * *by_paranoid: whether lowering perf_event_paranoid (or CAP_PERFMON)
 * would let it, so that the message may say that first.
 */
static void
explain_permission(cpc_t *cpc, const struct cpc_request *req, pid_t pid,
    int cpu, char *buf, size_t len, bool *by_paranoid)
{
	struct privilege p;
	const char *userns = "";

	privilege_read(&p);
	*by_paranoid = false;
	if (strncmp(req->event, "ftrace:", 7) == 0) {
		snprintf(buf, len,
		    "Permission denied: the kernel keeps "
		    "ftrace's own events for the ftrace tracers; perf_event "
		    "cannot count them, whoever asks");
		return;
	}
	/* No privilege for counters lets a user count what it may not trace. */
	if (pid > 0 && !p.capable && !cpc_may_trace(pid) && errno == EPERM) {
		snprintf(buf, len,
		    "Permission denied: this user may not trace the "
		    "process (another user's, or a set-id or unreadable "
		    "program): only its owner, or root, may count it");
		return;
	}
	if (p.capable) {
		if (pid > 0)
			snprintf(buf, len,
			    "Permission denied: the process "
			    "hides itself from tracers (a set-id or unreadable "
			    "program?); only root may count it");
		else if (p.filtered)
			snprintf(buf, len,
			    "Permission denied by the seccomp filter this "
			    "process runs under, before the kernel saw the "
			    "call: its profile (a container's) must allow "
			    "perf_event_open(2), as containerd's and Docker's "
			    "current defaults do with CAP_PERFMON");
		else
			snprintf(buf, len,
			    "Permission denied by a security "
			    "module (lockdown, SELinux, AppArmor), not by "
			    "kernel.perf_event_paranoid");
		return;
	}
	if (p.userns && p.caps_here)
		userns =
		    "uid 0 of a user namespace has no privilege for "
		    "performance counters (only capabilities in the initial "
		    "namespace count); ";
	if (is_probe_pmu(cpc, req)) {
		snprintf(buf, len,
		    "Permission denied: %suprobes and kprobes "
		    "need root or CAP_PERFMON, whatever "
		    "kernel.perf_event_paranoid says",
		    userns);
		return;
	}
	if (pid > 0 && (request_modes(req) & CPC_COUNT_SYSTEM) == 0 &&
	    !p.user_only) {
		snprintf(buf, len,
		    "Permission denied: %scounting another "
		    "process needs the right to trace it: it runs as another "
		    "user, or is set-id or not dumpable (only its "
		    "owner, or root, may)",
		    userns);
		return;
	}
	*by_paranoid = true;
	if (p.user_only && !(pid == -1 && cpu >= 0))
		snprintf(buf, len,
		    "Permission denied: %s"
		    "kernel.perf_event_paranoid is %d, which this kernel (with "
		    "Debian's and Ubuntu's patch) takes as performance "
		    "counters only to root or CAP_PERFMON; 'sudo sysctl "
		    "kernel.perf_event_paranoid=2' lets users count their own "
		    "processes in user mode (1: kernel mode too), or "
		    "'sudo setcap cap_perfmon+ep' the command (PERMISSIONS "
		    "in cputrack(1))",
		    userns, p.paranoid);
	else if (pid == -1 && cpu >= 0)
		snprintf(buf, len,
		    "Permission denied: %scounting a whole CPU "
		    "needs root or CAP_PERFMON while "
		    "kernel.perf_event_paranoid is %d (above 0); lower it to "
		    "0, or run with CAP_PERFMON",
		    userns, p.paranoid);
	else if (request_modes(req) & CPC_COUNT_SYSTEM)
		snprintf(buf, len,
		    "Permission denied: %sit counts kernel mode "
		    "(%s), which kernel.perf_event_paranoid %d allows only to "
		    "root or CAP_PERFMON; %s",
		    userns, kernel_mode_reason(req), p.paranoid,
		    req->enc.kernel_context ? "lower it to 1, or "
					      "run with CAP_PERFMON" :
					      "count user mode only, or lower "
					      "it to 1");
	else
		snprintf(buf, len,
		    "Permission denied (%s"
		    "kernel.perf_event_paranoid is %d)",
		    userns, p.paranoid);
}

static bool
is_breakpoint(const struct cpc_request *req)
{
	return req->enc.nterms > 0 &&
	    req->enc.term[0].attr.type == PERF_TYPE_BREAKPOINT;
}

static bool
asks_precise(const struct cpc_request *req)
{
	int t;

	for (t = 0; t < req->enc.nterms; t++)
		if (req->enc.term[t].attr.precise_ip > 0)
			return true;
	return false;
}

/* err: the errno of the failed open, of a request on pid or cpu. */
void
cpclib_explain_open_error(cpc_t *cpc, const struct cpc_request *req, int err,
    pid_t pid, int cpu, char *buf, size_t len)
{
	bool by_paranoid;

	if (is_probe_pmu(cpc, req) &&
	    (err == ENOENT || err == EINVAL || err == KERNEL_ENOTSUPP)) {
		snprintf(buf, len, "the kernel cannot probe there: %s",
		    err == KERNEL_ENOTSUPP ?
			"uprobes refuse some "
			"instructions (a locked one, for one); probe another" :
			err == ENOENT ?
			"no such function (the kernel's are in "
			"/proc/kallsyms), or one kprobes may not probe" :
			"not an instruction boundary, or not a function");
		return;
	}
	switch (err) {
	case EACCES:
	case EPERM:
		explain_permission(cpc, req, pid, cpu, buf, len, &by_paranoid);
		break;
	case ENOSPC:
		snprintf(buf, len,
		    is_breakpoint(req) ?
			"every debug register "
			"of the CPU is taken (x86 has 4 for breakpoints): count "
			"fewer breakpoints at once, or put some in another set "
			"(another -c)" :
			"the PMU has no free counter for it");
		break;
	case EBUSY:
		snprintf(buf, len,
		    "the PMU is busy: someone else holds it "
		    "exclusively");
		break;
	case ENODEV:
		if (cpu >= 0)
			snprintf(buf, len,
			    "CPU %d is offline, or its PMU does "
			    "not cover it",
			    cpu);
		else
			snprintf(buf, len, "not supported by this kernel (%s)",
			    strerror(err));
		break;
	case EINVAL:
		if (is_breakpoint(req))
			snprintf(buf, len,
			    "not a breakpoint the CPU can set "
			    "(address, length and access must suit its debug "
			    "registers; execution takes a word)");
		else if (asks_precise(req))
			snprintf(buf, len,
			    "the PMU cannot give a precise PC "
			    "(the :p modifier): not supported by this kernel "
			    "(%s)",
			    strerror(err));
		else
			snprintf(buf, len,
			    "the kernel refuses its encoding "
			    "(%s)",
			    strerror(err));
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, len, "%s; raise the open file limit (ulimit -n)",
		    strerror(err));
		break;
	case EOPNOTSUPP:
		if (asks_precise(req)) {
			snprintf(buf, len,
			    "the PMU cannot give a precise PC "
			    "(the :p modifier): not supported by this kernel "
			    "(%s)",
			    strerror(err));
			break;
		}
		/* FALLTHROUGH */
	default:
		snprintf(buf, len, "not supported by this kernel (%s)",
		    strerror(err));
		break;
	}
}

/* event: the failed event's index in the set's group (0 leads). */
void
cpclib_report_open_error(cpc_t *cpc, const char *fn,
    const struct cpc_request *req, int event, pid_t pid)
{
	char why[EV_WHY_LEN];
	int err = errno;
	bool by_paranoid;

	switch (err) {
	case EACCES:
	case EPERM:
		explain_permission(
		    cpc, req, pid, -1, why, sizeof(why), &by_paranoid);
		/* What scripts read first, then the cause and the fix. */
		if (by_paranoid && strncmp(why, "Permission denied: ", 19) == 0)
			cpclib_err(cpc, fn, CPC_ATTR_REQUIRES_PRIVILEGE,
			    "%s: "
			    "Permission denied (kernel.perf_event_paranoid is "
			    "%d; needs CAP_PERFMON or root, or a lower "
			    "kernel.perf_event_paranoid): %s\n",
			    req->event, read_paranoid(), why + 19);
		else
			cpclib_err(cpc, fn, CPC_ATTR_REQUIRES_PRIVILEGE,
			    "%s: %s\n", req->event, why);
		errno = EACCES;
		break;
	case EINVAL:
		/* The PMU could not fit this member into the group. */
		if (event > 0 && req->enc.hardware)
			cpclib_err_subcode(cpc, fn, CPC_RESOURCE_UNAVAIL);
		else if (req->nattrs > 0)
			cpclib_err_subcode(cpc, fn, CPC_ATTRIBUTE_OUT_OF_RANGE);
		break;
	case ENOSPC:
		cpclib_explain_open_error(
		    cpc, req, err, pid, -1, why, sizeof(why));
		cpclib_err(
		    cpc, fn, CPC_RESOURCE_UNAVAIL, "%s: %s\n", req->event, why);
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case KERNEL_ENOTSUPP:
		cpclib_explain_open_error(
		    cpc, req, err, pid, -1, why, sizeof(why));
		cpclib_err(
		    cpc, fn, CPC_INVALID_EVENT, "%s: %s\n", req->event, why);
		errno = EINVAL;
		break;
	default:
		break;
	}
}
