/*
 * libcpc internals shared between its source files.
 */
#ifndef CPC_IMPL_H
#define CPC_IMPL_H

#include <perfmon/pfmlib_perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/queue.h>

#include "libcpc.h"

/* What a request's event name resolved to. */
struct cpc_event_enc {
	uint32_t type;		/* perf type (from sysfs for PMUs) */
	uint64_t config;
	uint64_t config1;
	uint64_t config2;
	bool	 hardware;	/* needs a hardware counter */
};

struct cpc_request {
	char		*event;
	uint64_t	 preset;	/* loaded at bind and at restart */
	uint64_t	 start;		/* the preset counting began from */
	uint64_t	 base;		/* kernel value at that moment */
	uint_t		 flags;
	uint_t		 nattrs;
	cpc_attr_t	*attrs;		/* names owned, copied at add time */
	int		 picnum;	/* -1 when the kernel may choose */
	struct cpc_event_enc enc;
	uint64_t	 sample_type;	/* of a buffered request's records */
	uint64_t	 id;		/* kernel event id, names its records */
	uint64_t	 period;	/* sample_period it was opened with */
	int		 precise_ip;	/* skid level the PMU accepted */
};

struct cpc_ring;

enum cpc_bind_kind {
	CPC_UNBOUND = 0,
	CPC_BOUND_CURLWP,
	CPC_BOUND_CPU,
	CPC_BOUND_PCTX
};

struct __cpc_set {
	cpc_t			*cpc;
	LIST_ENTRY(__cpc_set)	 link;
	struct cpc_request	*reqs;
	int			 nreqs;
	enum cpc_bind_kind	 bound;
	int			*fds;		/* fds[0] is the group leader */
	pid_t			 tid;		/* LWP the set counts */
	int			 cpu;		/* CPU for CPU binds */
	pid_t			 binder;	/* thread that called cpc_bind_cpu */
	int			 cpu_lock_fd;
	cpu_set_t		 saved_affinity;
	pctx_t			*pctx;
	id_t			 lwpid;
	uint64_t		 generation;	/* exclusivity generation at bind */
	bool			 read_each;	/* kernel refused a group read */
	bool			 disabled;	/* cpc_disable()d */
	bool			 target_held;	/* bound while libpctx held it stopped */
	uint64_t		*readbuf;	/* group read scratch, sized once */
	size_t			 readbuf_len;
	uint64_t		 enabled_ns, running_ns;
	volatile bool		 frozen;	/* by an overflow, until restart */
	bool			 live;		/* registered for SIGTRAP */
	size_t			 ring_pages;	/* data pages, 0: the default */
	struct cpc_ring		*ring;		/* buffered overflow records */
	bool			 lost_format;	/* reads carry lost samples */
};

struct __cpc_buf {
	cpc_t			*cpc;
	LIST_ENTRY(__cpc_buf)	 link;
	int			 nreqs;
	hrtime_t		 hrtime;
	uint64_t		 tick;
	uint64_t		 data[];
};

/* What the kernel can count, probed once, when first asked. */
struct cpc_catalog {
	char	**generic;	/* PAPI_* names */
	int	  ngeneric;
	char	**platform;	/* everything else */
	int	  nplatform;
};

/* Whether a set's hardware requests fit the PMU together, remembered. */
#define CPC_FITS_CACHE	8
struct cpc_fits {
	uint64_t	 signature;
	bool		 fits;
	bool		 valid;
};

struct __cpc {
	LIST_ENTRY(__cpc)	 link;		/* in the list of open handles */
	LIST_HEAD(, __cpc_set)	 sets;
	LIST_HEAD(, __cpc_buf)	 bufs;
	cpc_errhndlr_t		*errfn;
	uint_t			 npic;
	char			 cciname[CPC_MAX_IMPL_NAME];
	char			 cpuref[CPC_MAX_CPUREF];
	char			 pmu_name[64];	/* empty: no hardware PMU */
	int			 pmu_type;	/* perf type of that PMU */
	int			 pfm_pmu;	/* libpfm4 core PMU id, or -1 */
	const char *const	*attr_names;	/* attribute names offered */
	struct cpc_catalog	 catalog;
	bool			 catalog_ready;
	double			 tsc_per_ns;	/* for the derived tick */
	int			 cpu_sets;	/* CPU-bound sets of this handle */
	int			 any_cpu_fd;	/* shared lock while cpu_sets>0 */
	bool			 excl_ok;	/* no CPU binding at excl_ok_gen */
	uint64_t		 excl_ok_gen;
	volatile bool		 terminated;
	struct cpc_event_tree	*events;	/* name -> encoding cache */
	struct cpc_fits		 fits[CPC_FITS_CACHE];
	unsigned		 fits_next;
};

/* error.c */
void cpc_err(cpc_t *cpc, const char *fn, int subcode, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void cpc_err_subcode(cpc_t *cpc, const char *fn, int subcode);

/* events.c */
int cpc_event_encode(cpc_t *cpc, const char *name, struct cpc_event_enc *enc,
    char *why, size_t whylen);
int cpc_attr_apply(cpc_t *cpc, const struct cpc_request *req,
    struct perf_event_attr *attr);
bool cpc_attr_known(cpc_t *cpc, const char *name);
void cpc_events_free(cpc_t *cpc);
size_t cpc_papi_count(void);
const char *cpc_papi_name(size_t i);
void cpc_request_to_attr(const struct cpc_request *req,
    struct perf_event_attr *attr);

/* pmu.c */
/* An attribute: bits of one config word of the core PMU's encoding. */
struct cpc_attr_field {
	const char	*name;
	int		 config;	/* 0: config, 1: config1, 2: config2 */
	uint64_t	 mask;
};
void cpc_pmu_detect(cpc_t *cpc);
const struct cpc_attr_field *cpc_pmu_attr_field(const char *name);
int cpc_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
    int group_fd);
void cpc_dummy_attr(struct perf_event_attr *attr);
hrtime_t cpc_gethrtime(void);
double cpc_tsc_per_ns(void);

/* catalog.c */
int cpc_catalog_build(cpc_t *cpc);
void cpc_catalog_free(cpc_t *cpc);

/* exclusive.c */
int cpc_excl_lwp_allowed(cpc_t *cpc);
uint64_t cpc_excl_generation(void);
int cpc_excl_cpu_acquire(cpc_t *cpc, int cpu, int *lockfd);
void cpc_excl_cpu_release(cpc_t *cpc, int lockfd);

/* sample.c */
int cpc_set_read(cpc_set_t *set);
int cpc_read_stride(const cpc_set_t *set);
uint64_t cpc_read_value(const cpc_set_t *set, int i);
uint64_t cpc_read_lost(const cpc_set_t *set, int i);

/* bind.c */
int cpc_set_open_counters(cpc_t *cpc, cpc_set_t *set, pid_t pid, int cpu,
    bool inherit, const char *fn);
void cpc_set_close_counters(cpc_set_t *set);
cpc_set_t *cpc_curlwp_set(cpc_t *cpc);

/* overflow.c */
uint64_t cpc_ovf_period(const struct cpc_request *req);
bool cpc_set_samples(const cpc_set_t *set);
bool cpc_set_buffers(const cpc_set_t *set);
void cpc_emt_from_carrier(void);
extern const char cpc_emt_carrier;
int cpc_ovf_check(const cpc_set_t *set, pid_t pid, bool inherit);
int cpc_ovf_prepare(cpc_t *cpc, cpc_set_t *set, pid_t pid, bool inherit,
    const char *fn);
void cpc_ovf_attr(const cpc_set_t *set, const struct cpc_request *req,
    struct perf_event_attr *attr);
int cpc_ovf_arm(cpc_t *cpc, cpc_set_t *set, const char *fn);
void cpc_ovf_disarm(cpc_set_t *set);
int cpc_ovf_reload(cpc_set_t *set);

/* pcbuf.c */
void cpc_ring_attr(const struct cpc_request *req, struct perf_event_attr *attr);
int cpc_ring_perf_open(struct cpc_request *req, struct perf_event_attr *attr,
    pid_t pid, int cpu, int group_fd);
int cpc_ring_open(cpc_t *cpc, cpc_set_t *set, const char *fn);
void cpc_ring_close(cpc_set_t *set);

/* v1.c, v1_strtoevent.c */
cpc_t *cpc_v1_handle(void);
void cpc_v1_verror(const char *fn, const char *fmt, va_list ap);
int cpc_v1_code(cpc_t *cpc, const char *name);
const char *cpc_v1_name(cpc_t *cpc, unsigned code);

/* Hooks into libpctx, present when the program links it. */
pid_t __pctx_lwp_tid(pctx_t *pctx, id_t lwpid) __attribute__((weak));
int __pctx_lwp_held(pctx_t *pctx, id_t lwpid) __attribute__((weak));
void pctx_terminate(pctx_t *pctx) __attribute__((weak));
void pctx_release(pctx_t *pctx) __attribute__((weak));

/* Called by libpctx when a pctx is released. */
void __cpc_pctx_gone(pctx_t *pctx);

#endif /* CPC_IMPL_H */
