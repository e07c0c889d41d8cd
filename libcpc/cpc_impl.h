/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libcpc internals shared between its source files.
 */
#ifndef CPC_IMPL_H
#define CPC_IMPL_H

#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/queue.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * The library is built with hidden visibility: only what the public
 * headers declare is exported.
 */
#pragma GCC visibility push(default)
#include "libcpc.h"
#include "libpctx.h"
#pragma GCC visibility pop

/*
 * One perf event that a request counts with, and its weight in the
 * request's value: +1, -1 (hits = accesses - misses), another integer
 * where a preset weighs its events (floating point operations of packed
 * instructions), or 0 for an event that only has to count alongside.
 */
struct cpc_event_term {
	struct perf_event_attr attr; /* type, config: what the name fixes */
	int sign;		     /* the weight */
};

/*
 * What a request's event name resolved to: one perf event, or several
 * whose weighted sum the library computes (a derived preset). The terms
 * belong to the handle's name cache and live as long as the handle.
 */
#define CPC_MAX_TERMS 32
struct cpc_event_enc {
	const struct cpc_event_term *term;
	int nterms;
	bool hardware;	     /* needs the core PMU */
	bool kernel_context; /* fires in the kernel only */
	bool all_modes;	     /* no mode can be excluded */
	bool boxes;	     /* a term per box of a PMU, summed */
	uint_t modes;	     /* CPC_COUNT_* it fixes, or 0 */
	int *pin;	     /* tracepoint kept: events.c */
	int pin_cpu;	     /* where it is kept: a CPU, or -1 a thread */
};

struct cpc_request {
	char *event;
	uint64_t preset; /* loaded at bind and at restart */
	uint64_t start;	 /* the preset counting began from */
	uint64_t base;	 /* kernel value at that moment */
	uint_t flags;
	uint_t nattrs;
	cpc_attr_t *attrs; /* names owned, copied at add time */
	int picnum;	   /* -1 when the kernel may choose */
	struct cpc_event_enc enc;
	int first_event;      /* its first perf event in the group */
	int group;	      /* cpc_set_group's: 0, the set's first */
	uint64_t sample_type; /* of a buffered request's records */
	uint64_t id;	      /* kernel event id, names its records */
	uint64_t period;      /* sample_period it was opened with */
	int precise_ip;	      /* skid level the PMU accepted */
};

struct cpc_ring;

/*
 * What a sample knows of one perf event (sample.c): its times in the
 * last read, with those of the reads before a reopen; where a scaled
 * set's estimate of it went from, and the estimate so far; and the
 * times at the previous sample, for the set's running time.
 */
struct cpc_ev_state {
	uint64_t enabled, running;	     /* the last read's, bases added */
	uint64_t enabled_base, running_base; /* before a reopen */
	uint64_t raw0, enabled0, running0;   /* the estimate's last step */
	uint64_t estimate;		     /* since the open or restart */
	uint64_t enabled_prev, running_prev; /* at the previous sample */
};

/* The request flags that hand a set to overflow.c. */
#define CPC_OVF_FLAGS (CPC_OVF_NOTIFY_EMT | CPC_OVF_BUFFERED)

enum cpc_bind_kind {
	CPC_UNBOUND = 0,
	CPC_BOUND_CURLWP,
	CPC_BOUND_CPU,
	CPC_BOUND_PCTX
};

/* What a CPU binding holds of the CPU's PMU (CPC_BIND_* flags). */
enum cpc_pmu_hold {
	CPC_HOLD_NONE = 0, /* shared: flexible, multiplexed */
	CPC_HOLD_PINNED,   /* its counters, always */
	CPC_HOLD_EXCLUSIVE /* the whole PMU, always */
};

struct __cpc_set {
	cpc_t *cpc;
	LIST_ENTRY(__cpc_set) link;
	struct cpc_request *reqs;
	int nreqs;
	enum cpc_bind_kind bound;
	bool asks_overflow; /* a request asks for overflow */
	bool prepared;	    /* checked and laid out: group.c */
	bool fits;	    /* the PMU takes each group whole */
	int unfit;	    /* if not, the request group it does not */
	int nevents;	    /* perf events: a request has one or more */
	int *fds;	    /* per event; -1 for one not opened */
	/*
	 * The perf groups of a binding (group.c): per event, its group's
	 * key (-1: not opened on this binding); the leaders, the first of
	 * them leading the only group but where a thread counts on several
	 * core PMUs, or a CPU's core PMU lacks some of the set's events.
	 */
	int *group_key;
	int *leaders;
	int nleaders;
	uint64_t *leader_times;	  /* per leader: enabled, running */
	int *leader_unit;	  /* per leader: the first of its unit */
	int *ev_leader;		  /* per event: its leader's index, or -1 */
	struct cpc_ev_state *evs; /* per event */
	int ngroups;		  /* the requests' groups (cpc_set_group) */
	int hw_groups;		  /* of them, those with hardware events */
	bool scale;		  /* cpc_set_scale: counts estimated */
	bool fits_together;	  /* all its hardware events, as one group */
	bool scatter;		  /* read group by group: see sample.c */
	uint64_t *groupbuf;	  /* one group's read */
	pid_t tid;		  /* LWP the set counts */
	int cpu;		  /* CPU for CPU binds */
	pid_t binder;		  /* thread that called cpc_bind_cpu */
	cpu_set_t saved_affinity;
	pctx_t *pctx;
	id_t lwpid;
	enum cpc_pmu_hold hold; /* of a CPU's PMU: see cpc_bind_cpu */
	bool read_each;		/* counters read one by one */
	bool sampling;		/* overflow.c handles this binding */
	bool standby;		/* bound, waiting for cpc_set_switch */
	bool disabled;		/* cpc_disable()d */
	bool target_held;	/* bound while libpctx held it stopped */
	uint64_t *readbuf;	/* group read scratch, sized once */
	size_t readbuf_len;
	uint64_t enabled_ns, running_ns;     /* at the last sample */
	uint64_t enabled_base, running_base; /* before a reopen */
	uint64_t acc_enabled, acc_running;   /* several groups': sample.c */
	volatile bool frozen;		     /* by an overflow, until restart */
	bool live;			     /* registered for SIGTRAP */
	bool trap_guard;		     /* counts breakpoints here */
	size_t ring_pages;		     /* data pages, 0: the default */
	struct cpc_ring *ring;		     /* buffered overflow records */
	bool lost_format;		     /* reads carry lost samples */
	int read_stride;		     /* words per event in readbuf */
};

/*
 * A buffer holds a value per request, then, on a machine with several
 * core PMUs, each request's part counted on each of them, then each box's
 * part of the requests summed over the boxes of a PMU (buf.c).
 */
struct __cpc_buf {
	cpc_t *cpc;
	LIST_ENTRY(__cpc_buf) link;
	int nreqs;
	int ncore;   /* parts per request: 0, or the core PMUs */
	int nboxes;  /* box parts, all requests' */
	int nvalues; /* values and parts */
	hrtime_t hrtime;
	uint64_t tick;
	uint64_t data[];
};

/*
 * What the kernel can count, built when first asked: every name the
 * walkers list, with its kind and a one-line description, and the forms
 * that take a parameter (listed by the described walk only).
 */
struct cpc_catalog_entry {
	char *name;
	const char *kind;
	char *desc;
	bool generic; /* a PAPI_* name */
	bool form;    /* mem:ADDR and the like */
};
struct cpc_catalog {
	struct cpc_catalog_entry *entry;
	int n;
	int nalloc;
};

/*
 * A core PMU of the kernel's (corepmu.c): most machines have one, hybrid
 * CPUs one per core type, each counting on its own CPUs only.
 */
#define CPC_MAX_CORE_PMUS 8
struct cpc_core_pmu {
	char name[64];
	char cpulist[128]; /* its cpus file; "" when it counts on every CPU */
	cpu_set_t cpus;
	int type;	 /* its perf type */
	int pfm_pmu;	 /* libpfm4's model of it, or -1 */
	char model[128]; /* that model's description, or "" */
	uint_t general;	 /* its counters, 0: not known */
	uint_t fixed;	 /* its fixed-function counters */
};

/*
 * Whether a set's hardware requests fit the PMU, remembered: each of its
 * groups, and all of them as one.
 */
#define CPC_FITS_CACHE 8
struct cpc_fits {
	uint64_t signature;
	int unfit; /* the request group that does not fit, or -1 */
	bool together;
	bool valid;
};

/*
 * The key of a perf group of a binding (group.c): a request group's
 * software events and single core PMU's events (slot 0), or one core
 * PMU's events of a thread on a hybrid CPU (slot: its index + 1); or an
 * event of a socket PMU, a group of its own, past every request group's.
 */
#define CPC_KEY_SLOTS	     (CPC_MAX_CORE_PMUS + 1)
#define CPC_KEY(group, slot) ((group)*CPC_KEY_SLOTS + (slot))
#define CPC_SOCKET_KEY(e)    (CPC_SET_MAX_REQS * CPC_KEY_SLOTS + (e))

static inline bool
cpclib_key_socket(int key)
{
	return key >= CPC_SOCKET_KEY(0);
}

/* 0: a request group's own group; above: a core PMU's, on a thread. */
static inline int
cpclib_key_slot(int key)
{
	return cpclib_key_socket(key) ? 0 : key % CPC_KEY_SLOTS;
}

struct __cpc {
	/*
	 * Threads may share a handle (cpustat's workers do): lock guards the
	 * lists, each set's binding (bound, tid) that a list walk reads, and
	 * the cache of what fits on the PMU. What is worked out once and
	 * never changes after is atomic instead: two threads may both work it
	 * out, to the same value.
	 */
	pthread_mutex_t lock;
	LIST_HEAD(, __cpc_set) sets;
	LIST_HEAD(, __cpc_buf) bufs;
	cpc_errhndlr_t *errfn;
	_Atomic uint_t npic; /* 0: known with the models */
	char cciname[CPC_MAX_IMPL_NAME];
	char cpuref[CPC_MAX_CPUREF];
	struct cpc_core_pmu core[CPC_MAX_CORE_PMUS];
	int ncore;		   /* 0: no hardware PMU */
	_Atomic int extended_type; /* see hybrid.c: -1 not asked yet */
	int probe_cpu;		   /* cpc_probe_cpu's; -1: the thread */
	char pmu_name[64];	   /* the first core PMU's, or empty */
	int pmu_type;		   /* perf type of that PMU */
	int pfm_pmu;		   /* libpfm4 core PMU id, or -1 */
	/* The attribute names offered; NULL: known with the models. */
	const char *const *_Atomic attr_names;
	pthread_mutex_t models_lock; /* see cpclib_pmu_models */
	_Atomic bool models_known;   /* pfm_pmu, cciname and the rest */
	struct cpc_catalog catalog;
	bool catalog_ready;
	_Atomic double tsc_per_ns;     /* for the derived tick */
	_Atomic bool sample_warm;      /* warm_sample_path done */
	struct cpc_event_tree *events; /* name -> encoding cache */
	struct cpc_fits fits[CPC_FITS_CACHE];
	unsigned fits_next;
};

/* bind.c */
void cpclib_set_binding(cpc_set_t *set, enum cpc_bind_kind bound, pid_t tid);

/* error.c */
void cpclib_err(cpc_t *cpc, const char *fn, int subcode, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void cpclib_err_subcode(cpc_t *cpc, const char *fn, int subcode);

/* events.c */
int cpclib_event_encode(cpc_t *cpc, const char *name, struct cpc_event_enc *enc,
    char *why, size_t whylen);
int cpclib_attr_apply(
    cpc_t *cpc, const struct cpc_request *req, struct perf_event_attr *attr);
bool cpclib_attr_known(cpc_t *cpc, const char *name);
void cpclib_events_free(cpc_t *cpc);
void cpclib_request_to_attr(
    const struct cpc_request *req, int t, struct perf_event_attr *attr);
const char *cpclib_event_desc(cpc_t *cpc, const char *name);

/* sysroot.c: where the PMUs are described; a recorded tree for tests */
void cpclib_set_sysfs_root(const char *root, int extended_hw_type);
int cpclib_recorded_extended_type(void);
bool cpclib_sysfs_recorded(void);
bool cpclib_pmu_path(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* corepmu.c */
void cpclib_core_pmus_detect(cpc_t *cpc);
void cpclib_core_models(cpc_t *cpc);
int cpclib_core_of_cpu(const cpc_t *cpc, int cpu);
int cpclib_core_of_type(const cpc_t *cpc, uint32_t type);
int cpclib_core_of_attr(const cpc_t *cpc, const struct perf_event_attr *attr);
int cpclib_pfm_present(void);
/* pfm_init.c: libpfm4 without its perf PMUs, then, asked, with them. */
int cpclib_pfm_init(void);
bool cpclib_pfm_init_all(void);
void cpclib_request_cores(
    const cpc_t *cpc, const struct cpc_request *req, char *buf, size_t len);

/* pmu.c */
/* An attribute: bits of one config word of the core PMU's encoding. */
struct cpc_attr_field {
	const char *name;
	int config; /* 0: config, 1: config1, 2: config2 */
	uint64_t mask;
};
void cpclib_pmu_detect(cpc_t *cpc);
void cpclib_pmu_models(cpc_t *cpc);
uint_t cpclib_npic(cpc_t *cpc);
const char *const *cpclib_attr_names(cpc_t *cpc);
bool cpclib_sysfs_format(const char *text, int *word, uint64_t *mask);
const struct cpc_attr_field *cpclib_pmu_attr_field(const char *name);
void cpclib_dummy_attr(struct perf_event_attr *attr);
int cpclib_probe_open(cpc_t *cpc, struct perf_event_attr *attr);
int cpclib_core_probe_cpu(const cpc_t *cpc, int core);
bool cpclib_parse_cpus(const char *list, cpu_set_t *cpus);
int cpclib_probe_pid(const cpc_t *cpc);
double cpclib_tsc_per_ns(cpc_t *cpc);
uint64_t cpclib_tick_of(cpc_t *cpc, uint64_t enabled_ns);
const char *cpclib_pfm_pmu_name(cpc_t *cpc);

/* catalog.c */
int cpclib_catalog_build(cpc_t *cpc);
void cpclib_catalog_free(cpc_t *cpc);

/* sample.c */
int cpclib_set_read(cpc_set_t *set);
uint64_t cpclib_read_value(const cpc_set_t *set, int i);
void cpclib_set_step(cpc_set_t *set);
uint64_t cpclib_request_value(const cpc_set_t *set, int i);
void cpclib_estimates_restart(cpc_set_t *set);
int cpclib_buf_boxes(cpc_buf_t *buf, int index, uint64_t **first);
uint64_t *cpclib_buf_times(cpc_buf_t *buf, int index);
uint64_t cpclib_read_lost(const cpc_set_t *set, int i);

/* ioctl.c */
int cpclib_group_ioctl(cpc_set_t *set, unsigned long request);

/* group.c */
bool cpclib_set_has_groups(const cpc_set_t *set);
int cpclib_check_sizes(cpc_t *cpc, const cpc_set_t *set, const char *fn);
int cpclib_group_layout(cpc_t *cpc, const cpc_set_t *set, int cpu, int *key);
int cpclib_group_open(cpc_t *cpc, cpc_set_t *set, pid_t pid, int cpu,
    bool inherit, const char *fn);
void cpclib_group_close(cpc_set_t *set);
int cpclib_group_on_pmu(cpc_set_t *set);
int cpclib_group_leader(cpc_set_t *set, bool on);
int cpclib_group_reopen(cpc_t *cpc, cpc_set_t *set, pid_t pid, const char *fn);

/* open_error.c */
void cpclib_report_open_error(cpc_t *cpc, const char *fn,
    const struct cpc_request *req, int event, pid_t pid);
void cpclib_explain_open_error(cpc_t *cpc, const struct cpc_request *req,
    int err, pid_t pid, int cpu, char *buf, size_t len);
void cpclib_report_held(cpc_t *cpc, const cpc_set_t *set, int cpu);

/* bind.c */
cpc_set_t *cpclib_curlwp_set(cpc_t *cpc);

/* overflow.c: only for sets whose requests ask for overflow */
uint64_t cpclib_ovf_period(const struct cpc_request *req);
bool cpclib_set_buffers(const cpc_set_t *set);
int cpclib_ovf_check(const cpc_set_t *set, pid_t pid, bool inherit);
int cpclib_ovf_prepare(cpc_t *cpc, cpc_set_t *set, pid_t pid, bool inherit);
int cpclib_ovf_open(cpc_set_t *set, struct cpc_request *req,
    struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
    bool *explained);
int cpclib_ovf_arm(cpc_set_t *set);
void cpclib_ovf_disarm(cpc_set_t *set);
int cpclib_trap_guard(cpc_set_t *set);
void cpclib_trap_unguard(cpc_set_t *set);
int cpclib_ovf_reload(cpc_set_t *set);

/* pcbuf.c */
extern const char cpclib_emt_carrier;
void cpclib_ring_attr(
    const struct cpc_request *req, struct perf_event_attr *attr);
int cpclib_ring_perf_open(struct cpc_request *req, struct perf_event_attr *attr,
    pid_t pid, int cpu, int group_fd);
int cpclib_ring_open(cpc_set_t *set);
void cpclib_ring_close(cpc_set_t *set);

/* v1.c: the v1 layer's handle and error function */
cpc_t *cpclib_v1_handle(void);
void cpclib_v1_verror(const char *fn, const char *fmt, va_list ap);

/* v1_codes.c: the v1 event codes */
int cpclib_v1_code(cpc_t *cpc, const char *name);
const char *cpclib_v1_name(cpc_t *cpc, unsigned code);
int cpclib_v1_ncodes(cpc_t *cpc);

/*
 * libcpc's requests to a tracer, a family of their own among pctx
 * requests: asked by pctx_ask.c in the traced process, served by pctx.c.
 */
#define CPCLIB_REQ_FAMILY 0x63706300 /* "cpc\0" */
#define CPCLIB_REQ_MASK	  0xffffff00
enum cpclib_request_code {
	CPCLIB_REQ_ENABLE = 1,
	CPCLIB_REQ_DISABLE,
	CPCLIB_REQ_USER_ON,
	CPCLIB_REQ_USER_OFF,
	CPCLIB_REQ_SYSTEM_ON,
	CPCLIB_REQ_SYSTEM_OFF
};

/* pctx_ask.c and pctx.c: the only files that touch libpctx */
int cpclib_pctx_ask_counting(bool on);
int cpclib_pctx_ask_mode(uint_t flag, bool on);
void cpclib_pctx_release_all(cpc_t *cpc);
void cpclib_pctx_terminate_all(cpc_t *cpc);

/*
 * Small enough for the per-tick and per-thread paths to call in place.
 */
static inline int
cpclib_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
	    PERF_FLAG_FD_CLOEXEC);
}

static inline hrtime_t
cpclib_gethrtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif /* CPC_IMPL_H */
