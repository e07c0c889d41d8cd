/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The obsolete CPCv1 API on the v2 core. Every v1 call shares one
 * library handle, opened on first use. A v1 binding is a two-request
 * set (pic0, pic1) bound through the v2 calls: to the calling LWP, to a
 * CPU (cpc_shared_*), or to an LWP of a libpctx process (cpc_pctx_*).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpc_impl.h"

static pthread_mutex_t v1_lock = PTHREAD_MUTEX_INITIALIZER;
static cpc_t *v1_cpc;
static cpc_errfn_t *v1_errfn;

/* A v1 binding: what was bound, and the set that counts it. */
struct v1_binding {
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint32_t pes[2]; /* returned by take_sample */
	int flags;	 /* cpc_bind_event flags */
	bool invalid;	 /* cpc_pctx_invalidate */
	int shared_fd;	 /* cpc_shared_*: its fd */
	int cpu;
	LIST_ENTRY(v1_binding) link;
};

/* The calling LWP's binding (cpc_bind_event). */
static __thread struct v1_binding *lwp_binding;
/* cpc_shared_* and cpc_pctx_* bindings, found by fd or (pctx, lwpid). */
static LIST_HEAD(, v1_binding) others = LIST_HEAD_INITIALIZER(others);

void
cpclib_v1_verror(const char *fn, const char *fmt, va_list ap)
{
	int saved = errno;

	if (v1_errfn != NULL) {
		v1_errfn(fn, fmt, ap);
	} else {
		fprintf(stderr, "libcpc: %s: ", fn);
		vfprintf(stderr, fmt, ap);
	}
	errno = saved;
}

static void v1_error(const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
v1_error(const char *fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cpclib_v1_verror(fn, fmt, ap);
	va_end(ap);
}

/* v2 errors of the shared handle go to the v1 error function. */
static void
bridge(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode;
	cpclib_v1_verror(fn, fmt, ap);
}

cpc_t *
cpclib_v1_handle(void)
{
	cpc_t *cpc;

	pthread_mutex_lock(&v1_lock);
	if (v1_cpc == NULL && (v1_cpc = cpc_open(CPC_VER_CURRENT)) != NULL)
		cpc_seterrhndlr(v1_cpc, bridge);
	cpc = v1_cpc;
	pthread_mutex_unlock(&v1_lock);
	if (cpc == NULL) {
		v1_error("__cpc_init", "Couldn't open CPC library handle\n");
		errno = ENXIO;
	}
	return cpc;
}

void
cpc_seterrfn(cpc_errfn_t *errfn)
{
	v1_errfn = errfn;
}

uint_t
cpc_version(uint_t ver)
{
	switch (ver) {
	case CPC_VER_NONE:
	case CPC_VER_CURRENT:
		return CPC_VER_CURRENT;
	case CPC_VER_1:
		return CPC_VER_1;
	default:
		return CPC_VER_NONE;
	}
}

int
cpc_getcpuver(void)
{
	return cpclib_v1_handle() != NULL ? CPC_LINUX_PERF : -1;
}

const char *
cpc_getcciname(int cpuver)
{
	return cpuver == CPC_LINUX_PERF ? "Linux perf_event" : NULL;
}

const char *
cpc_getcpuref(int cpuver)
{
	return cpuver == CPC_LINUX_PERF ?
	    "See perf_event_open(2), perf list(1), and the processor "
	    "vendor's manual for its hardware events" :
	    NULL;
}

uint_t
cpc_getnpic(int cpuver)
{
	return cpuver == CPC_LINUX_PERF ? 2 : 0;
}

void
cpc_event_accum(cpc_event_t *accum, cpc_event_t *event)
{
	accum->ce_pic[0] += event->ce_pic[0];
	accum->ce_pic[1] += event->ce_pic[1];
	accum->ce_tsc += event->ce_tsc;
	if (event->ce_hrt > accum->ce_hrt)
		accum->ce_hrt = event->ce_hrt;
}

void
cpc_event_diff(cpc_event_t *diff, cpc_event_t *after, cpc_event_t *before)
{
	diff->ce_pic[0] = after->ce_pic[0] - before->ce_pic[0];
	diff->ce_pic[1] = after->ce_pic[1] - before->ce_pic[1];
	diff->ce_tsc = after->ce_tsc - before->ce_tsc;
	diff->ce_hrt = after->ce_hrt;
	diff->ce_cpuver = after->ce_cpuver;
	diff->ce_pes[0] = after->ce_pes[0];
	diff->ce_pes[1] = after->ce_pes[1];
}

/* Which counters interrupt: the int bits, or both when none is set. */
static bool
notifies(const cpc_event_t *ev, int flags, int pic)
{
	if (!(flags & CPC_BIND_EMT_OVF))
		return false;
	if (!(ev->ce_pes[0] & CPC_PES_INT) && !(ev->ce_pes[1] & CPC_PES_INT))
		return true;
	return (ev->ce_pes[pic] & CPC_PES_INT) != 0;
}

/* Solaris attributes for what the control word asks beyond the event. */
static uint_t
pes_attrs(cpc_t *cpc, const char *name, uint32_t pes, cpc_attr_t *attrs)
{
	struct cpc_event_enc enc;
	char why[256];
	uint_t n = 0;

	if (cpclib_event_encode(cpc, name, &enc, why, sizeof(why)) != 0 ||
	    !enc.hardware)
		return 0; /* software events have no such bits */
	if ((pes >> CPC_PES_UMASK_SHIFT) & 0xff)
		attrs[n++] = (cpc_attr_t) { "umask",
			(pes >> CPC_PES_UMASK_SHIFT) & 0xff };
	if ((pes >> CPC_PES_CMASK_SHIFT) & 0xff)
		attrs[n++] = (cpc_attr_t) { "cmask",
			(pes >> CPC_PES_CMASK_SHIFT) & 0xff };
	if (pes & CPC_PES_INV)
		attrs[n++] = (cpc_attr_t) { "inv", 1 };
	if (pes & CPC_PES_PC)
		attrs[n++] = (cpc_attr_t) { "pc", 1 };
	if (!(pes & CPC_PES_EDGE))
		attrs[n++] = (cpc_attr_t) { "edge", 0 };
	return n;
}

static int
add_pic(cpc_t *cpc, cpc_set_t *set, const cpc_event_t *ev, int flags, int pic)
{
	const char *name =
	    cpclib_v1_name(cpc, ev->ce_pes[pic] & CPC_PES_EVENT_MASK);
	cpc_attr_t attrs[5];
	uint_t rflags = 0, nattrs;

	if (name == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (ev->ce_pes[pic] & CPC_PES_USR)
		rflags |= CPC_COUNT_USER;
	if (ev->ce_pes[pic] & CPC_PES_OS)
		rflags |= CPC_COUNT_SYSTEM;
	if (notifies(ev, flags, pic))
		rflags |= CPC_OVF_NOTIFY_EMT;
	nattrs = pes_attrs(cpc, name, ev->ce_pes[pic], attrs);
	return cpc_set_add_request(cpc, set, name, ev->ce_pic[pic], rflags,
		   nattrs, attrs) == pic ?
	    0 :
	    -1;
}

/* A new binding with its set and buffer; NULL with errno. */
static struct v1_binding *
binding_new(cpc_t *cpc, const cpc_event_t *ev, int flags)
{
	struct v1_binding *b;

	if (ev->ce_cpuver != CPC_LINUX_PERF) {
		errno = EINVAL;
		return NULL;
	}
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	b->shared_fd = -1;
	b->flags = flags;
	b->pes[0] = ev->ce_pes[0];
	b->pes[1] = ev->ce_pes[1];
	if ((b->set = cpc_set_create(cpc)) == NULL ||
	    add_pic(cpc, b->set, ev, flags, 0) != 0 ||
	    add_pic(cpc, b->set, ev, flags, 1) != 0 ||
	    (b->buf = cpc_buf_create(cpc, b->set)) == NULL) {
		int saved = errno;

		if (b->set != NULL)
			cpc_set_destroy(cpc, b->set);
		if (b->buf != NULL)
			cpc_buf_destroy(cpc, b->buf);
		free(b);
		errno = saved;
		return NULL;
	}
	return b;
}

static void
binding_free(cpc_t *cpc, struct v1_binding *b)
{
	if (b == NULL)
		return;
	cpc_set_destroy(cpc, b->set); /* unbinds */
	cpc_buf_destroy(cpc, b->buf);
	free(b);
}

static int
fill_sample(cpc_t *cpc, struct v1_binding *b, cpc_event_t *ev)
{
	if (b->invalid) {
		errno = EAGAIN;
		return -1;
	}
	if (cpc_set_sample(cpc, b->set, b->buf) != 0)
		return -1;
	cpc_buf_get(cpc, b->buf, 0, &ev->ce_pic[0]);
	cpc_buf_get(cpc, b->buf, 1, &ev->ce_pic[1]);
	ev->ce_hrt = cpc_buf_hrtime(cpc, b->buf);
	ev->ce_tsc = cpc_buf_tick(cpc, b->buf);
	ev->ce_cpuver = CPC_LINUX_PERF;
	ev->ce_pes[0] = b->pes[0];
	ev->ce_pes[1] = b->pes[1];
	return 0;
}

int
cpc_rele(void)
{
	cpc_t *cpc = v1_cpc;

	if (cpc == NULL || lwp_binding == NULL)
		return 0;
	pthread_mutex_lock(&v1_lock);
	binding_free(cpc, lwp_binding);
	pthread_mutex_unlock(&v1_lock);
	lwp_binding = NULL;
	return 0;
}

/*
 * Rebinding the same events with new presets, as an overflow handler
 * does, only reloads the counters: no allocation in a signal handler.
 */
static bool
same_binding(const struct v1_binding *b, const cpc_event_t *ev, int flags)
{
	return b != NULL && b->flags == flags && b->pes[0] == ev->ce_pes[0] &&
	    b->pes[1] == ev->ce_pes[1] && !b->invalid;
}

static int
rebind_presets(cpc_t *cpc, struct v1_binding *b, const cpc_event_t *ev)
{
	if (cpc_request_preset(cpc, 0, ev->ce_pic[0]) != 0 ||
	    cpc_request_preset(cpc, 1, ev->ce_pic[1]) != 0)
		return -1;
	return cpc_set_restart(cpc, b->set);
}

int
cpc_bind_event(cpc_event_t *event, int flags)
{
	struct v1_binding *b;
	cpc_t *cpc;
	int saved;

	if (event == NULL)
		return cpc_rele();
	if ((flags & ~(CPC_BIND_EMT_OVF | CPC_BIND_LWP_INHERIT)) != 0) {
		errno = EINVAL;
		return -1;
	}
	if ((cpc = cpclib_v1_handle()) == NULL)
		return -1;
	if (same_binding(lwp_binding, event, flags) &&
	    !(flags & CPC_BIND_LWP_INHERIT))
		return rebind_presets(cpc, lwp_binding, event);
	(void)cpc_rele();
	pthread_mutex_lock(&v1_lock);
	b = binding_new(cpc, event, flags);
	if (b != NULL &&
	    cpc_bind_curlwp(cpc, b->set,
		(flags & CPC_BIND_LWP_INHERIT) ? CPC_BIND_LWP_INHERIT : 0) !=
		0) {
		saved = errno;
		binding_free(cpc, b);
		b = NULL;
		errno = saved;
	}
	pthread_mutex_unlock(&v1_lock);
	lwp_binding = b;
	return b != NULL ? 0 : -1;
}

int
cpc_take_sample(cpc_event_t *event)
{
	if (lwp_binding == NULL || v1_cpc == NULL) {
		errno = EINVAL;
		return -1;
	}
	return fill_sample(v1_cpc, lwp_binding, event);
}

/*
 * Turn user or system counting on or off in place: the counts so far
 * become the presets of a new binding, so nothing is lost.
 */
static int
count_events(uint32_t bit, int enable)
{
	struct v1_binding *b = lwp_binding;
	cpc_event_t ev;

	/* None of its own: maybe its controller bound some (cputrack). */
	if (b == NULL)
		return cpclib_pctx_ask_mode(
		    bit == CPC_PES_USR ? CPC_COUNT_USER : CPC_COUNT_SYSTEM,
		    enable != 0);
	if (bit == CPC_PES_OS && enable && (b->flags & CPC_BIND_EMT_OVF)) {
		errno = EINVAL; /* only user events can be profiled */
		return -1;
	}
	if (cpc_take_sample(&ev) != 0)
		return -1;
	if (enable) {
		ev.ce_pes[0] |= bit;
		ev.ce_pes[1] |= bit;
	} else {
		ev.ce_pes[0] &= ~bit;
		ev.ce_pes[1] &= ~bit;
	}
	return cpc_bind_event(&ev, b->flags);
}

int
cpc_count_usr_events(int enable)
{
	return count_events(CPC_PES_USR, enable);
}

int
cpc_count_sys_events(int enable)
{
	return count_events(CPC_PES_OS, enable);
}

int
cpc_access(void)
{
	cpc_t *cpc;

	if ((cpc = cpclib_v1_handle()) == NULL) {
		if (errno == ENXIO)
			errno = ENOSYS;
		v1_error("access",
		    "CPU performance counters are "
		    "inaccessible on this machine\n");
		return -1;
	}
	return 0;
}

/* The one CPU the calling thread may run on, or -1. */
static int
bound_cpu(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    CPU_COUNT(&set) != 1)
		return -1;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return -1;
}

static struct v1_binding *
find_shared(int fd)
{
	struct v1_binding *b;

	LIST_FOREACH (b, &others, link)
		if (b->shared_fd == fd)
			return b;
	return NULL;
}

/*
 * Solaris opens the CPU's shared counter device. Here the descriptor is
 * a placeholder naming the CPU the caller is bound to; the CPU is
 * claimed, exclusively, when an event is bound.
 */
int
cpc_shared_open(void)
{
	struct v1_binding *b;
	int cpu, fd;

	if (cpclib_v1_handle() == NULL)
		return -1;
	if ((cpu = bound_cpu()) < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		free(b);
		return -1;
	}
	b->shared_fd = fd;
	b->cpu = cpu;
	pthread_mutex_lock(&v1_lock);
	LIST_INSERT_HEAD(&others, b, link);
	pthread_mutex_unlock(&v1_lock);
	return fd;
}

/* Drop a shared or pctx binding's set, keeping the entry. */
static void
drop_set(cpc_t *cpc, struct v1_binding *b)
{
	if (b->set != NULL)
		cpc_set_destroy(cpc, b->set);
	if (b->buf != NULL)
		cpc_buf_destroy(cpc, b->buf);
	b->set = NULL;
	b->buf = NULL;
}

/* Move a fresh binding's set into an existing entry. */
static void
adopt(struct v1_binding *into, struct v1_binding *from)
{
	into->set = from->set;
	into->buf = from->buf;
	into->pes[0] = from->pes[0];
	into->pes[1] = from->pes[1];
	into->flags = from->flags;
	into->invalid = false;
	free(from);
}

int
cpc_shared_rele(int fd)
{
	struct v1_binding *b;

	pthread_mutex_lock(&v1_lock);
	if ((b = find_shared(fd)) != NULL)
		drop_set(v1_cpc, b);
	pthread_mutex_unlock(&v1_lock);
	if (b == NULL) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
cpc_shared_bind_event(int fd, cpc_event_t *event, int flags)
{
	struct v1_binding *b, *fresh;
	int rc = -1;

	if (event == NULL)
		return cpc_shared_rele(fd);
	if (flags != 0 || v1_cpc == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&v1_lock);
	if ((b = find_shared(fd)) == NULL) {
		errno = EINVAL;
	} else if (bound_cpu() != b->cpu) {
		errno = EAGAIN; /* the LWP left its CPU */
	} else if ((fresh = binding_new(v1_cpc, event, 0)) != NULL) {
		drop_set(v1_cpc, b);
		adopt(b, fresh);
		if ((rc = cpc_bind_cpu(v1_cpc, b->cpu, b->set, 0)) != 0)
			drop_set(v1_cpc, b);
	}
	pthread_mutex_unlock(&v1_lock);
	return rc;
}

int
cpc_shared_take_sample(int fd, cpc_event_t *event)
{
	struct v1_binding *b;
	int rc = -1;

	pthread_mutex_lock(&v1_lock);
	if ((b = find_shared(fd)) == NULL || b->set == NULL)
		errno = EINVAL;
	else if (bound_cpu() != b->cpu)
		errno = EAGAIN;
	else
		rc = fill_sample(v1_cpc, b, event);
	pthread_mutex_unlock(&v1_lock);
	return rc;
}

void
cpc_shared_close(int fd)
{
	struct v1_binding *b;

	pthread_mutex_lock(&v1_lock);
	if ((b = find_shared(fd)) != NULL) {
		drop_set(v1_cpc, b);
		LIST_REMOVE(b, link);
		free(b);
		close(fd);
	}
	pthread_mutex_unlock(&v1_lock);
}

/*
 * The binding of an LWP of a process, as its set was bound; never one
 * whose process went, though a new pctx may have its address.
 */
static struct v1_binding *
find_pctx(pctx_t *pctx, id_t lwpid)
{
	struct v1_binding *b;

	LIST_FOREACH (b, &others, link)
		if (b->set != NULL && b->set->pctx == pctx &&
		    b->set->lwpid == lwpid)
			return b;
	return NULL;
}

int
cpc_pctx_rele(pctx_t *pctx, id_t lwpid)
{
	struct v1_binding *b;

	pthread_mutex_lock(&v1_lock);
	if ((b = find_pctx(pctx, lwpid)) != NULL) {
		drop_set(v1_cpc, b);
		LIST_REMOVE(b, link);
		free(b);
	}
	pthread_mutex_unlock(&v1_lock);
	if (b == NULL) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

int
cpc_pctx_bind_event(pctx_t *pctx, id_t lwpid, cpc_event_t *event, int flags)
{
	struct v1_binding *b;
	cpc_t *cpc;
	int saved;

	if (event == NULL)
		return cpc_pctx_rele(pctx, lwpid);
	if (flags != 0 || pctx == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((cpc = cpclib_v1_handle()) == NULL)
		return -1;
	(void)cpc_pctx_rele(pctx, lwpid);
	pthread_mutex_lock(&v1_lock);
	if ((b = binding_new(cpc, event, 0)) != NULL) {
		if (cpc_bind_pctx(cpc, pctx, lwpid, b->set, 0) == 0) {
			LIST_INSERT_HEAD(&others, b, link);
		} else {
			saved = errno;
			binding_free(cpc, b);
			b = NULL;
			errno = saved;
		}
	}
	pthread_mutex_unlock(&v1_lock);
	return b != NULL ? 0 : -1;
}

int
cpc_pctx_take_sample(pctx_t *pctx, id_t lwpid, cpc_event_t *event)
{
	struct v1_binding *b;
	int rc = -1;

	pthread_mutex_lock(&v1_lock);
	if ((b = find_pctx(pctx, lwpid)) == NULL)
		errno = ESRCH;
	else
		rc = fill_sample(v1_cpc, b, event);
	pthread_mutex_unlock(&v1_lock);
	return rc;
}

/* Later samples of the LWP fail with EAGAIN, until it is bound again. */
int
cpc_pctx_invalidate(pctx_t *pctx, id_t lwpid)
{
	struct v1_binding *b;

	pthread_mutex_lock(&v1_lock);
	if ((b = find_pctx(pctx, lwpid)) != NULL)
		b->invalid = true;
	pthread_mutex_unlock(&v1_lock);
	if (b == NULL) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}
