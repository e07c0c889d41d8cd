/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Event names: what the files of each grammar (perf's names and sysfs
 * PMUs, tracefs, probes, breakpoints, the Solaris names) share with the
 * name cache in events.c.
 */
#ifndef EVNAME_H
#define EVNAME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
/* libbsd's RB_* expect BSD's __unused. */
#ifndef __unused
#define __unused __attribute__((unused))
#endif
#include <sys/tree.h>

#include "cpc_impl.h"

#define EV_WHY_LEN  768
#define EV_DESC_LEN 768

/* What resolving one name produced, before it goes into the cache. */
struct ev_result {
	cpc_event_status_t status;
	const char *kind;	/* NULL: a name of no form */
	char why[EV_WHY_LEN];	/* why not countable */
	char desc[EV_DESC_LEN]; /* what it counts */
	char note[EV_DESC_LEN]; /* counted instead */
	struct cpc_event_term term[CPC_MAX_TERMS];
	int nterms;
	bool hardware;
	bool kernel_context;
	bool all_modes;
	bool boxes; /* one term per box of a PMU: sysfs_pmu.c */
	uint_t modes;
	char *owned[2]; /* strings an attr points to */
	int pin_fd;	/* a tracepoint to keep open */
};

void ev_result_init(struct ev_result *r);
void ev_fail(struct ev_result *r, cpc_event_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ev_desc(struct ev_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
struct cpc_event_term *ev_add_term(
    struct ev_result *r, uint32_t type, uint64_t config, int sign);

/*
 * evstate.c: the handle's event state, made on first use: the name cache
 * (events.c's tree of entries), what the grammars read once (sysfs_pmu.c,
 * tracefs.c), and their locks. events.c empties the cache and frees the
 * PMUs before cpclib_event_tree_free.
 */
struct sysfs_pmus;
struct ev_state {
	struct sysfs_pmus *pmus; /* read on first use */
	bool pmus_read;
	int tp_access;	     /* 0 ?, 1 yes, or -errno */
	char tp_denied[128]; /* why not */
};
struct event_entry;
RB_HEAD(event_names, event_entry);
struct cpc_event_tree {
	pthread_mutex_t lock; /* the cache's and the state's */
	struct event_names names;
	struct ev_state state;
	pthread_mutex_t catalog_lock;
};
struct cpc_event_tree *cpclib_event_tree(cpc_t *cpc);
void cpclib_event_tree_free(cpc_t *cpc);
struct ev_state *cpclib_ev_state(cpc_t *cpc);
void cpclib_ev_state_lock(cpc_t *cpc, bool lock);
void cpclib_catalog_lock(cpc_t *cpc, bool lock);

/* events.c: a name as the cache resolved it, for names built of others. */
struct ev_entry_view {
	cpc_event_status_t status;
	const char *kind;
	const char *why;
	const char *desc;
	const char *note;
	struct cpc_event_enc enc;
};
typedef bool(ev_view_fn)(cpc_t *cpc, const char *name, struct ev_entry_view *v);
ev_view_fn cpclib_event_view;

/* evtables.c: perf's own names, as data. */
struct ev_legacy {
	const char *name;
	const char *kname; /* PERF_COUNT_SW_CPU_CLOCK */
	uint64_t config;
	const char *alias_of; /* NULL for perf's primary spelling */
	uint32_t type;
	bool kernel_context;
	const char *desc;
};
extern const struct ev_legacy cpclib_perf_names[];
extern const size_t cpclib_nperf_names;
struct ev_cache_word {
	const char *name;
	int id;
	const char *desc;
};
extern const struct ev_cache_word cpclib_cache_units[];
extern const size_t cpclib_ncache_units;
extern const struct ev_cache_word cpclib_cache_ops[];
extern const size_t cpclib_ncache_ops;
extern const struct ev_cache_word cpclib_cache_results[];
extern const size_t cpclib_ncache_results;
extern const unsigned cpclib_cache_valid_ops[]; /* per unit, 1 << op */
extern const struct ev_cache_word cpclib_cache_knames[];
extern const size_t cpclib_ncache_knames;
/* READ, WRITE, PREFETCH: op ids; ACCESS, MISS: 16 + result ids. */
extern const struct ev_cache_word cpclib_cache_op_knames[];
extern const size_t cpclib_ncache_op_knames;
struct ev_tool {
	const char *name;
	const char *why;
};
extern const struct ev_tool cpclib_perf_tools[];
extern const size_t cpclib_nperf_tools;
const char *cpclib_modifier_meaning(char c);

/* evgrammar.c: perf's grammar. */
bool cpclib_split_modifiers(
    const char *name, char *base, size_t len, const char **mods);
int cpclib_apply_modifiers(const char *mods, struct ev_result *r);
bool cpclib_resolve_legacy(cpc_t *cpc, const char *name, struct ev_result *r);
/* The name a perf alias stands for, or NULL for a name of no alias. */
const char *cpclib_legacy_alias_of(const char *name);
bool cpclib_resolve_breakpoint(const char *name, struct ev_result *r);
bool cpclib_resolve_raw_r(cpc_t *cpc, const char *name, struct ev_result *r);
bool cpclib_resolve_raw_code(cpc_t *cpc, const char *name, struct ev_result *r);
bool cpclib_resolve_pfm(cpc_t *cpc, const char *name, struct ev_result *r);
int cpclib_pfm_encode(const char *name, struct perf_event_attr *attr);
bool cpclib_parse_u64(const char *s, uint64_t *v);
bool cpclib_type_is_core(const cpc_t *cpc, uint32_t type);
bool cpclib_sw_kernel_context(uint64_t config);
bool cpclib_deposit(
    int word, uint64_t mask, uint64_t val, struct perf_event_attr *attr);

/* sysfs_pmu.c: what the kernel describes in /sys/bus/event_source. */
struct sysfs_format {
	char name[32];
	int word; /* 0: config, 1: config1, 2: config2 */
	uint64_t mask;
};
struct sysfs_alias {
	char *name;
	char *terms; /* "event=0x3c,umask=0x00" */
	char *desc;  /* a line of description, or NULL */
};
struct sysfs_pmu {
	char name[64];
	int type;
	struct sysfs_format *fmt;
	int nfmt;
	struct sysfs_alias *alias;
	int nalias;
	char *cpumask;	/* the CPUs it counts on alone ("0,28"), or NULL */
	cpu_set_t cpus; /* the same, parsed (empty without one) */
};
struct sysfs_pmus {
	struct sysfs_pmu *pmu;
	int npmu;
};
const struct sysfs_pmus *cpclib_sysfs_pmus(cpc_t *cpc);
void cpclib_sysfs_free(struct sysfs_pmus *pmus);
const struct sysfs_pmu *cpclib_sysfs_pmu(cpc_t *cpc, const char *name);
const struct sysfs_pmu *cpclib_sysfs_pmu_of_type(cpc_t *cpc, uint32_t type);
const struct sysfs_alias *cpclib_sysfs_alias(
    const struct sysfs_pmu *pmu, const char *name);
const struct sysfs_pmu *cpclib_socket_pmu(
    cpc_t *cpc, const struct perf_event_attr *attr);
bool cpclib_socket_refused_on_thread(
    cpc_t *cpc, const struct cpc_request *req, const char *fn);
bool cpclib_resolve_pmu_terms(
    cpc_t *cpc, const char *name, struct ev_result *r);
bool cpclib_resolve_pmu_alias(
    cpc_t *cpc, const char *name, struct ev_result *r);
bool cpclib_sysfs_format_bit(
    const struct sysfs_pmu *pmu, const char *fmt, int *word, uint64_t *mask);
bool cpclib_sysfs_alias_attr(const struct sysfs_pmu *pmu, const char *alias,
    struct perf_event_attr *attr);

/* hybrid.c: events named without a PMU, on every core PMU. */
void cpclib_spread_over_cores(
    cpc_t *cpc, const char *name, struct ev_result *r);
bool cpclib_resolve_core_generic(
    cpc_t *cpc, const char *name, struct ev_result *r);

/* corepmu.c: what a name lacks on some core PMUs, in its note. */
void cpclib_note_missing_cores(
    const cpc_t *cpc, const bool *has, struct ev_result *r);

/* tracefs.c: tracepoints. */
bool cpclib_looks_like_tracepoint(const char *name);
/*
 * Whether this user may count tracepoints: 1, or -errno (the reason in
 * the handle's tp_denied). Asked once per handle; the first answer's
 * open event is handed back in *fd (or -1), to be kept.
 */
int cpclib_tracepoint_access(
    cpc_t *cpc, const struct perf_event_attr *tp, const char *name, int *fd);
bool cpclib_resolve_tracepoint(
    cpc_t *cpc, const char *name, struct ev_result *r);
bool cpclib_tracepoint_exists(const char *name);
int cpclib_tracefs_walk(cpc_t *cpc, void *arg,
    int (*action)(void *arg, const char *sub, const char *event));
const char *cpclib_tracefs_dir(cpc_t *cpc);

/* probes.c: uprobes and kprobes through their PMUs. */
bool cpclib_resolve_probe(cpc_t *cpc, const char *name, struct ev_result *r);
int cpclib_elf_symbol_offset(const char *path, const char *symbol,
    uint64_t *offset, char *why, size_t whylen);

/*
 * presets.c: the Solaris names. A preset built of other names looks each
 * one up through view, the name cache's (cpclib_event_view), handed down.
 */
bool cpclib_resolve_solaris(
    cpc_t *cpc, const char *name, struct ev_result *r, ev_view_fn *view);
size_t cpclib_generic_count(void);
const char *cpclib_generic_name(size_t i);
size_t cpclib_sparc_count(void);
const char *cpclib_sparc_name(size_t i);

/* papi_presets.c: PAPI's preset tables, per libpfm4 core PMU. */
struct papi_preset {
	const char *preset; /* PAPI_L1_DCM */
	const char *pmus;   /* libpfm4 PMU names, space separated */
	const char *expr;   /* "EV", "EV1 - EV2", "EV + 2*EV2" */
};
extern const struct papi_preset cpclib_papi_presets[];
extern const size_t cpclib_npapi_presets;

#endif /* EVNAME_H */
