/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Overflow notification (CPC_OVF_NOTIFY_EMT) on Linux.
 *
 * A request preset to P overflows after 2^64 - P events: that is its
 * perf sample_period. Its event is opened with attr.sigtrap, so the kernel
 * sends a synchronous SIGTRAP (si_code TRAP_PERF) to the very thread whose
 * counter overflowed, before it runs another user instruction. libcpc's
 * SIGTRAP handler freezes the set's counters and queues SIGEMT to that
 * thread with si_code EMT_CPCOVF and si_addr the interrupted PC. SIGEMT is
 * blocked while the SIGTRAP handler runs, so it is delivered once that
 * handler has returned: the application's handler sees the ucontext of the
 * interrupted code, as on Solaris. cpc_set_restart reloads the presets
 * (and with them the periods) and thaws the counters.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "cpc_impl.h"

/*
 * The SIGTRAP path freezes counters, and a page-fault counter in the set
 * would count any fault it takes before that. So its code lives in one
 * section, whose pages are mapped before the first overflow
 * (prefault_trap_path), and in a sanitizer build it is not instrumented:
 * instrumented code would fault in shadow pages first. It touches nothing
 * the sanitizer needs to check.
 */
#define TRAP_PATH __attribute__((section("cpc_trap_path"), no_sanitize_address))
extern const char __start_cpc_trap_path[], __stop_cpc_trap_path[];

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

/* Linux 6.0's PERF_FORMAT_LOST; this system's headers predate it. */
#define FORMAT_LOST (UINT64_C(1) << 4)

/* perf rejects periods with bit 63 set. */
#define PERIOD_LIMIT (UINT64_C(1) << 63)

/*
 * sig_data names the set. On 64-bit systems a tag in the top bits (user
 * pointers leave them clear) tells libcpc's signals from other users of
 * sigtrap, even after the set is gone.
 */
#if UINTPTR_MAX > 0xffffffffu
#define SIGDATA_TAG  (UINT64_C(0xc9c0) << 48)
#define SIGDATA_MASK (UINT64_C(0xffff) << 48)
#else
#define SIGDATA_TAG  0
#define SIGDATA_MASK 0
#endif

/*
 * Sets whose events may send SIGTRAP. Slots are reused, never freed, so
 * that the handler can walk the list at any moment without a lock.
 */
struct live_slot {
	_Atomic(cpc_set_t *) set;
	struct live_slot *next;
};

static _Atomic(struct live_slot *) live_head;

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4
#endif

/*
 * Sets bound to a thread of this process that count a hardware breakpoint.
 * The kernel sends SIGTRAP for a debug exception that no handler claims,
 * and a breakpoint counter's own exception becomes one where a hypervisor
 * loses the guest's DR6 (KVM on Intel before Linux 6.14 loaded a stale DR6
 * after a VM exit handled in its fast path): the guest's kernel then reads
 * no cause and takes it for an INT1. It would kill the counted thread;
 * while such a set is bound, a debug trap that would have been fatal is
 * dropped. x86 only: elsewhere BRK sends TRAP_BRKPT, and would trap again.
 */
static atomic_int breakpoints_bound;
static pthread_mutex_t trap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction previous_trap;

/*
 * Events between overflows, or 0 for a request that never interrupts:
 * one without an overflow flag, or whose period perf cannot take (a
 * preset below 2^63: more than 2^63 events, centuries of counting). A
 * buffered request may give its period itself as the preset, as in the
 * proposal's example, since such a preset would otherwise mean nothing.
 */
uint64_t
cpclib_ovf_period(const struct cpc_request *req)
{
	uint64_t period;

	if ((req->flags & (CPC_OVF_NOTIFY_EMT | CPC_OVF_BUFFERED)) == 0)
		return 0;
	period = 0 - req->preset;
	if ((req->flags & CPC_OVF_BUFFERED) && req->preset < PERIOD_LIMIT)
		period = req->preset;
	if (period == 0 || period >= PERIOD_LIMIT)
		return 0;
	return period;
}

static bool
req_traps(const struct cpc_request *req)
{
	return (req->flags & CPC_OVF_NOTIFY_EMT) &&
	    !(req->flags & CPC_OVF_BUFFERED) && cpclib_ovf_period(req) != 0;
}

static bool
req_buffers(const struct cpc_request *req)
{
	return (req->flags & CPC_OVF_BUFFERED) && cpclib_ovf_period(req) != 0;
}

static bool
set_traps(const cpc_set_t *set)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		if (req_traps(&set->reqs[i]))
			return true;
	return false;
}

bool
cpclib_set_buffers(const cpc_set_t *set)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		if (req_buffers(&set->reqs[i]))
			return true;
	return false;
}

static bool
buffers_and_notifies(const cpc_set_t *set)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		if (req_buffers(&set->reqs[i]) &&
		    (set->reqs[i].flags & CPC_OVF_NOTIFY_EMT))
			return true;
	return false;
}

static void
ovf_attr(const cpc_set_t *set, const struct cpc_request *req,
    struct perf_event_attr *attr)
{
	uint64_t period = cpclib_ovf_period(req);

	if (cpclib_set_buffers(set)) {
		/* Record times on gethrtime's clock; a ring wants one clock. */
		attr->use_clockid = 1;
		attr->clockid = CLOCK_MONOTONIC;
		/* Exact losses, at once (Linux 6.0). */
		attr->read_format |= FORMAT_LOST;
	}
	if (period == 0)
		return;
	attr->sample_period = period;
	if (req_buffers(req))
		cpclib_ring_attr(req, attr);
	if (req_traps(req)) {
		attr->sigtrap = 1;
		attr->remove_on_exec = 1; /* the kernel requires it */
		attr->sig_data = SIGDATA_TAG | (uint64_t)(uintptr_t)set;
	}
}

/* The set named by a TRAP_PERF signal, if it is still bound. */
static TRAP_PATH cpc_set_t *
live_set(uint64_t data)
{
	struct live_slot *slot;
	cpc_set_t *set;

	for (slot = atomic_load(&live_head); slot != NULL; slot = slot->next)
		if ((set = atomic_load(&slot->set)) != NULL &&
		    (SIGDATA_TAG | (uint64_t)(uintptr_t)set) == data)
			return set;
	return NULL;
}

static int
live_add(cpc_set_t *set)
{
	struct live_slot *slot;
	cpc_set_t *expected;

	for (slot = atomic_load(&live_head); slot != NULL; slot = slot->next) {
		expected = NULL;
		if (atomic_compare_exchange_strong(&slot->set, &expected, set))
			return 0;
	}
	if ((slot = calloc(1, sizeof(*slot))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	atomic_init(&slot->set, set);
	slot->next = atomic_load(&live_head);
	while (!atomic_compare_exchange_weak(&live_head, &slot->next, slot))
		;
	return 0;
}

static void
live_remove(cpc_set_t *set)
{
	struct live_slot *slot;
	cpc_set_t *expected;

	for (slot = atomic_load(&live_head); slot != NULL; slot = slot->next) {
		expected = set;
		if (atomic_compare_exchange_strong(&slot->set, &expected, NULL))
			return;
	}
}

/*
 * glibc's siginfo_t has no name for si_perf_data: it follows si_addr in
 * the kernel's layout, as one unsigned long.
 */
static TRAP_PATH uint64_t
perf_data(const siginfo_t *si)
{
	unsigned long data;

	memcpy(&data,
	    (const char *)si + offsetof(siginfo_t, si_addr) + sizeof(void *),
	    sizeof(data));
	return data;
}

static TRAP_PATH uintptr_t
interrupted_pc(const void *arg)
{
	const ucontext_t *uc = arg;

#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#elif defined(__riscv)
	return (uintptr_t)uc->uc_mcontext.__gregs[REG_PC];
#else
	(void)uc;
	return 0;
#endif
}

/* Stop every counter of the set, in the kernel, at once. */
static TRAP_PATH void
freeze(cpc_set_t *set)
{
	int i;

	if (set->read_each) {
		for (i = 0; i < set->nevents; i++)
			(void)ioctl(set->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	} else {
		(void)ioctl(
		    set->fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	}
	set->frozen = true;
}

/* Queue SIGEMT to the calling thread, as the Solaris kernel would send it. */
static TRAP_PATH void
send_emt(uintptr_t pc)
{
	/*
	 * Copied from a blank, not cleared by memset: in a sanitizer build
	 * the memset interceptor reads the shadow of the stack, which can
	 * fault.
	 */
	static const siginfo_t blank;
	siginfo_t info = blank;

	info.si_signo = SIGEMT;
	info.si_code = EMT_CPCOVF;
	info.si_addr = (void *)pc;
	(void)syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGEMT, &info);
}

/* A debug trap while a breakpoint is counted here (breakpoints_bound). */
static bool
breakpoint_trap(const siginfo_t *si)
{
#if defined(__x86_64__) || defined(__i386__)
	return (si->si_code == TRAP_BRKPT || si->si_code == TRAP_HWBKPT) &&
	    atomic_load(&breakpoints_bound) > 0;
#else
	(void)si;
	return false;
#endif
}

/* A SIGTRAP that is not ours goes where it would have gone without us. */
static void
chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;

	if (previous_trap.sa_flags & SA_SIGINFO) {
		previous_trap.sa_sigaction(sig, si, uc);
	} else if (previous_trap.sa_handler == SIG_DFL && breakpoint_trap(si)) {
		return; /* a breakpoint counter's trap, that nobody claimed */
	} else if (previous_trap.sa_handler == SIG_DFL) {
		/* Blocked until this handler returns, then fatal as before. */
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		(void)sigaction(SIGTRAP, &dfl, NULL);
		(void)syscall(SYS_tgkill, getpid(), gettid(), SIGTRAP);
	} else if (previous_trap.sa_handler != SIG_IGN) {
		previous_trap.sa_handler(sig);
	}
}

/* The watcher's SIGTRAP that stands for SIGEMT (cpclib_emt_carrier). */
static TRAP_PATH bool
is_carrier(const siginfo_t *si)
{
	return si->si_code == SI_QUEUE && si->si_pid == getpid() &&
	    si->si_value.sival_ptr == (void *)&cpclib_emt_carrier;
}

static TRAP_PATH void
on_sigtrap(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	uint64_t data = perf_data(si);
	cpc_set_t *set;

	if (is_carrier(si)) {
		send_emt(interrupted_pc(uc));
	} else if (si->si_code != TRAP_PERF ||
	    (SIGDATA_MASK != 0 && (data & SIGDATA_MASK) != SIGDATA_TAG)) {
		chain(sig, si, uc);
	} else if ((set = live_set(data)) != NULL) {
		freeze(set);
		send_emt(interrupted_pc(uc));
	}
	/* else: from a set unbound since; nothing to notify. */
	errno = saved;
}

/*
 * Map the SIGTRAP path's pages, and bind and map the libc calls it makes,
 * now: on its first run they would fault from user mode, before the set
 * is frozen.
 */
static void
prefault_trap_path(void)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t p = (uintptr_t)__start_cpc_trap_path & ~(page - 1);
	int saved = errno;

	for (; p < (uintptr_t)__stop_cpc_trap_path; p += page)
		(void)*(const volatile char *)p;
	/* Lazy binding writes the GOT on a first call: a fault too. */
	(void)syscall(SYS_gettid);
	(void)getpid();
	(void)gettid();
	(void)ioctl(-1, PERF_EVENT_IOC_DISABLE, 0);
	errno = saved;
}

/* Install the SIGTRAP handler, again if someone replaced it. */
static int
install_trap_handler(void)
{
	struct sigaction sa, cur;
	int rc = 0;

	pthread_mutex_lock(&trap_lock);
	prefault_trap_path();
	if (sigaction(SIGTRAP, NULL, &cur) == 0 &&
	    ((cur.sa_flags & SA_SIGINFO) == 0 ||
		cur.sa_sigaction != on_sigtrap)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigtrap;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGEMT);
		if (sigaction(SIGTRAP, &sa, &previous_trap) != 0)
			rc = -1;
	}
	pthread_mutex_unlock(&trap_lock);
	return rc;
}

/* ENOTSUP for what Linux cannot do; checked before any side effect. */
int
cpclib_ovf_check(const cpc_set_t *set, pid_t pid, bool inherit)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].enc.nterms > 1 &&
		    cpclib_ovf_period(&set->reqs[i]) != 0) {
			/* A derived count has no single counter to overflow. */
			errno = ENOTSUP;
			return -1;
		}
	if (set_traps(set) && pid != 0) {
		/* sigtrap needs a task, and would reach a traced target. */
		errno = ENOTSUP;
		return -1;
	}
	if (cpclib_set_buffers(set) && inherit) {
		/* The kernel cannot mmap inherited per-thread events. */
		errno = ENOTSUP;
		return -1;
	}
	return 0;
}

/*
 * Before the counters open: refuse what Linux cannot do, and be ready for
 * the first SIGTRAP (an inheriting set counts from its first event).
 * pid is 0 for the calling thread, -1 for a CPU, else another thread.
 */
int
cpclib_ovf_prepare(cpc_t *cpc, cpc_set_t *set, pid_t pid, bool inherit)
{
	(void)cpc;
	if (cpclib_ovf_check(set, pid, inherit) != 0)
		return -1;
	set->frozen = false;
	set->lost_format = cpclib_set_buffers(set);
	if (!set_traps(set) && !buffers_and_notifies(set))
		return 0;
	if (install_trap_handler() != 0)
		return -1;
	if (!set_traps(set))
		return 0;
	if (live_add(set) != 0)
		return -1;
	set->live = true;
	return 0;
}

/*
 * A sampling event the kernel refuses where the same counting event
 * opens: the hardware has no overflow interrupt (ENOTSUP, as Solaris).
 */
static bool
overflow_unsupported(
    struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	int saved = errno, fd;

	if (saved != EOPNOTSUPP && saved != EINVAL)
		return false;
	attr->sample_period = 0;
	attr->sigtrap = 0;
	attr->remove_on_exec = 0;
	attr->sample_type = 0;
	attr->wakeup_events = 0;
	if ((fd = cpclib_perf_open(attr, pid, cpu, group_fd)) < 0) {
		errno = saved;
		return false;
	}
	close(fd);
	errno = ENOTSUP;
	return true;
}

/*
 * Open one event of a sampling set with its overflow attributes. When
 * it fails because the hardware cannot interrupt, *explained is set and
 * errno is ENOTSUP: there is nothing more to report.
 */
int
cpclib_ovf_open(cpc_set_t *set, struct cpc_request *req,
    struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
    bool *explained)
{
	int fd;

	ovf_attr(set, req, attr);
	if (req_buffers(req))
		fd = cpclib_ring_perf_open(req, attr, pid, cpu, group_fd);
	else
		fd = cpclib_perf_open(attr, pid, cpu, group_fd);
	if (fd < 0) {
		*explained = attr->sample_period != 0 &&
		    overflow_unsupported(attr, pid, cpu, group_fd);
		return -1;
	}
	req->period = attr->sample_period;
	req->sample_type = attr->sample_type;
	return fd;
}

static bool
counts_breakpoints(const cpc_set_t *set)
{
	int i, t;

	for (i = 0; i < set->nreqs; i++)
		for (t = 0; t < set->reqs[i].enc.nterms; t++)
			if (set->reqs[i].enc.term[t].attr.type ==
			    PERF_TYPE_BREAKPOINT)
				return true;
	return false;
}

/*
 * Before a set is bound to the calling thread: one that counts a
 * breakpoint has the SIGTRAP handler drop its unclaimed traps
 * (breakpoints_bound).
 */
int
cpclib_trap_guard(cpc_set_t *set)
{
	if (set->trap_guard || !counts_breakpoints(set))
		return 0;
	if (install_trap_handler() != 0)
		return -1;
	atomic_fetch_add(&breakpoints_bound, 1);
	set->trap_guard = true;
	return 0;
}

/* When its counters close. */
void
cpclib_trap_unguard(cpc_set_t *set)
{
	if (!set->trap_guard)
		return;
	atomic_fetch_sub(&breakpoints_bound, 1);
	set->trap_guard = false;
}

/* After the counters open, before they start. */
int
cpclib_ovf_arm(cpc_set_t *set)
{
	if (!cpclib_set_buffers(set))
		return 0;
	return cpclib_ring_open(set);
}

/* Before the counters close. */
void
cpclib_ovf_disarm(cpc_set_t *set)
{
	if (set->live) {
		live_remove(set);
		set->live = false;
	}
	if (set->ring != NULL)
		cpclib_ring_close(set);
}

static bool
has_periods(const cpc_set_t *set)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].period != 0)
			return true;
	return false;
}

/*
 * Before a restart: give each interrupting request the period of its
 * (maybe new) preset. A request bound without a period keeps counting
 * only: perf cannot make a counting event a sampling one; its new preset
 * interrupts from the next bind on.
 * The counters are stopped first: a period set on a stopped software
 * event or tracepoint counts from zero when it starts again, whereas on
 * a running one the kernel's countdown would be left half done.
 */
int
cpclib_ovf_reload(cpc_set_t *set)
{
	struct cpc_request *req;
	uint64_t period;
	int i;

	if (!has_periods(set))
		return 0;
	if (cpclib_group_ioctl(set, PERF_EVENT_IOC_DISABLE) != 0)
		return -1;
	for (i = 0; i < set->nreqs; i++) {
		req = &set->reqs[i];
		if (req->period == 0)
			continue; /* opened counting only: stays so */
		if ((period = cpclib_ovf_period(req)) == 0)
			period = PERIOD_LIMIT - 1; /* "never" */
		req->period = period;
		if (ioctl(set->fds[req->first_event], PERF_EVENT_IOC_PERIOD,
			&period) != 0)
			return -1;
	}
	return 0;
}
