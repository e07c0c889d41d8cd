/*
 * Event names: what a name means on Linux, how it encodes, and whether
 * this kernel can count it. Results are cached per handle, because the
 * commands add the same requests for every thread they follow.
 */
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/tree.h>
#include <unistd.h>

#include "cpc_impl.h"

struct name_map {
	const char	*name;
	const char	*linux_name;
	bool		 exact;
	const char	*meaning;
};

/* Generic (PAPI) names and the perf generic events that count the same. */
static const struct name_map papi_map[] = {
	{ "PAPI_tot_ins", "instructions", true, "instructions completed" },
	{ "PAPI_tot_cyc", "cycles", true, "total cycles" },
	{ "PAPI_br_ins", "branch-instructions", true, "branch instructions" },
	{ "PAPI_br_msp", "branch-misses", true,
	    "conditional branches mispredicted" },
	{ "PAPI_l1_dcr", "L1-dcache-loads", true, "L1 data cache reads" },
	{ "PAPI_l1_dcw", "L1-dcache-stores", true, "L1 data cache writes" },
	{ "PAPI_l1_ldm", "L1-dcache-load-misses", true,
	    "L1 load misses" },
	{ "PAPI_l1_stm", "L1-dcache-store-misses", true,
	    "L1 store misses" },
	{ "PAPI_l1_ica", "L1-icache-loads", true,
	    "L1 instruction cache accesses" },
	{ "PAPI_l1_icm", "L1-icache-load-misses", true,
	    "L1 instruction cache misses" },
	{ "PAPI_l3_tca", "cache-references", true,
	    "last-level cache accesses" },
	{ "PAPI_l3_tcm", "cache-misses", true, "last-level cache misses" },
	{ "PAPI_l3_dcr", "LLC-loads", true, "last-level cache data reads" },
	{ "PAPI_l3_ldm", "LLC-load-misses", true,
	    "last-level cache load misses" },
	{ "PAPI_tlb_dm", "dTLB-load-misses", true, "data TLB misses" },
	{ "PAPI_tlb_im", "iTLB-load-misses", true,
	    "instruction TLB misses" },
};

/* Classic UltraSPARC names found in old scripts. */
static const struct name_map sparc_map[] = {
	{ "Cycle_cnt", "cycles", true, "UltraSPARC cycle count" },
	{ "Instr_cnt", "instructions", true,
	    "UltraSPARC instructions completed" },
	{ "EC_ref", "cache-references", false,
	    "UltraSPARC E-cache references" },
	{ "EC_hit", "cache-references", false, "UltraSPARC E-cache hits" },
	{ "EC_misses", "cache-misses", false, "UltraSPARC E-cache misses" },
	{ "EC_write_hit_RDO", "cache-references", false,
	    "UltraSPARC E-cache write hits for read-to-own" },
	{ "EC_snoop_inv", "cache-misses", false,
	    "UltraSPARC E-cache snoop invalidations" },
	{ "EC_rd_miss", "LLC-load-misses", false,
	    "UltraSPARC E-cache read misses" },
	{ "IC_ref", "L1-icache-loads", false,
	    "UltraSPARC I-cache references" },
	{ "IC_hit", "L1-icache-loads", false, "UltraSPARC I-cache hits" },
	{ "IC_miss", "L1-icache-load-misses", false,
	    "UltraSPARC I-cache misses" },
	{ "DC_rd", "L1-dcache-loads", false, "UltraSPARC D-cache reads" },
	{ "DC_wr", "L1-dcache-stores", false, "UltraSPARC D-cache writes" },
	{ "DC_rd_hit", "L1-dcache-loads", false,
	    "UltraSPARC D-cache read hits" },
	{ "DC_wr_hit", "L1-dcache-stores", false,
	    "UltraSPARC D-cache write hits" },
	{ "DC_miss", "L1-dcache-load-misses", false,
	    "UltraSPARC D-cache misses" },
	{ "ITLB_miss", "iTLB-load-misses", false,
	    "UltraSPARC instruction TLB misses" },
	{ "DTLB_miss", "dTLB-load-misses", false,
	    "UltraSPARC data TLB misses" },
	{ "Dispatch0_IC_miss", "stalled-cycles-frontend", false,
	    "UltraSPARC stall cycles on I-cache miss" },
	{ "Dispatch0_mispred", "branch-misses", false,
	    "UltraSPARC stall cycles on branch misprediction" },
	{ "Load_use", "stalled-cycles-backend", false,
	    "UltraSPARC load-use stall cycles" },
};

/*
 * Software events the kernel counts only in its own context: with
 * exclude_kernel they would read zero, so they always count kernel mode.
 */
static const uint64_t kernel_context_sw[] = {
	PERF_COUNT_SW_CONTEXT_SWITCHES,
	PERF_COUNT_SW_CPU_MIGRATIONS,
	PERF_COUNT_SW_CGROUP_SWITCHES,
};

#define TRACEFS_DIRS	{ "/sys/kernel/tracing", "/sys/kernel/debug/tracing" }

struct event_entry {
	RB_ENTRY(event_entry)	 node;
	char			*name;
	cpc_event_status_t	 status;
	struct cpc_event_enc	 enc;
	char			 why[320];
	int			 keep_fd;	/* a tracepoint's, see probe() */
};

static int
entry_cmp(const struct event_entry *a, const struct event_entry *b)
{
	return strcmp(a->name, b->name);
}

RB_HEAD(cpc_event_tree, event_entry);
RB_PROTOTYPE(cpc_event_tree, event_entry, node, entry_cmp)
RB_GENERATE(cpc_event_tree, event_entry, node, entry_cmp)

static const struct name_map *
map_find(const struct name_map *map, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(map[i].name, name) == 0)
			return &map[i];
	return NULL;
}


/* Walk the generic names (for the catalog). */
size_t
cpc_papi_count(void)
{
	return sizeof(papi_map) / sizeof(papi_map[0]);
}

const char *
cpc_papi_name(size_t i)
{
	return papi_map[i].name;
}

static bool
is_kernel_context(const struct cpc_event_enc *enc)
{
	size_t i;

	if (enc->type == PERF_TYPE_TRACEPOINT)
		return true;
	if (enc->type != PERF_TYPE_SOFTWARE)
		return false;
	for (i = 0; i < sizeof(kernel_context_sw) / sizeof(uint64_t); i++)
		if (kernel_context_sw[i] == enc->config)
			return true;
	return false;
}

static bool
looks_like_tracepoint(const char *name)
{
	const char *colon = strchr(name, ':');

	return colon != NULL && colon != name && colon[1] != '\0' &&
	    colon[1] != ':' && strchr(colon + 1, ':') == NULL &&
	    strchr(name, '/') == NULL && strchr(name, '.') == NULL;
}

static cpc_event_status_t
encode_tracepoint(const char *name, struct cpc_event_enc *enc, char *why,
    size_t whylen)
{
	static const char *const dirs[] = TRACEFS_DIRS;
	char path[768], sub[256];
	const char *colon = strchr(name, ':');
	const char *denied = NULL;
	bool mounted = false;
	size_t i;
	FILE *f;

	snprintf(sub, sizeof(sub), "%.*s", (int)(colon - name), name);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		if (access(path, R_OK) != 0) {
			/* Mounted, but only root may look (mode 700). */
			if ((errno == EACCES || errno == EPERM) && denied == NULL)
				denied = dirs[i];
			continue;
		}
		mounted = true;
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", dirs[i],
		    sub, colon + 1);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		enc->type = PERF_TYPE_TRACEPOINT;
		if (fscanf(f, "%lu", &enc->config) != 1) {
			fclose(f);
			continue;
		}
		fclose(f);
		return CPC_EVENT_COUNTABLE;
	}
	if (!mounted && denied != NULL) {
		snprintf(why, whylen, "%s: tracepoint, but this user may not "
		    "read tracefs (%s: %s); tracepoints need root, or read "
		    "access to %s/events", name, denied, strerror(EACCES),
		    denied);
		return CPC_EVENT_NO_TRACEFS;
	}
	if (!mounted) {
		snprintf(why, whylen, "%s: tracepoint, but tracefs is not "
		    "mounted (mount -t tracefs nodev /sys/kernel/tracing)",
		    name);
		return CPC_EVENT_NO_TRACEFS;
	}
	snprintf(why, whylen, "%s: no such tracepoint in this kernel", name);
	return CPC_EVENT_UNKNOWN;
}

static bool
parse_raw(const char *name, uint64_t *code)
{
	char *end;

	if (name[0] == '\0' || name[0] == '-' || name[0] == '+')
		return false;
	errno = 0;
	*code = strtoull(name, &end, 0);
	return errno == 0 && *end == '\0';
}

/*
 * "name (pmu::EVENT: description)": libpfm4's own name for the event,
 * without modifiers, and its description where it says more than that.
 */
static void
describe_pfm(const char *name, int idx, char *why, size_t whylen)
{
	pfm_event_info_t einfo;
	pfm_pmu_info_t pinfo;

	memset(&einfo, 0, sizeof(einfo));
	einfo.size = sizeof(einfo);
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) !=
	    PFM_SUCCESS ||
	    pfm_get_pmu_info(einfo.pmu, &pinfo) != PFM_SUCCESS) {
		snprintf(why, whylen, "%s", name);
		return;
	}
	if (einfo.desc != NULL && strcmp(einfo.desc, einfo.name) != 0)
		snprintf(why, whylen, "%s (%s::%s: %s)", name, pinfo.name,
		    einfo.name, einfo.desc);
	else
		snprintf(why, whylen, "%s (%s::%s)", name, pinfo.name,
		    einfo.name);
}

static cpc_event_status_t
encode_pfm(const char *name, struct cpc_event_enc *enc, char *why,
    size_t whylen)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int ret;

	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	arg.fstr = &fstr;
	ret = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
	    &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(why, whylen, "%s: unknown event", name);
		return CPC_EVENT_UNKNOWN;
	}
	enc->type = attr.type;
	enc->config = attr.config;
	enc->config1 = attr.config1;
	enc->config2 = attr.config2;
	enc->hardware = attr.type != PERF_TYPE_SOFTWARE &&
	    attr.type != PERF_TYPE_TRACEPOINT &&
	    attr.type != PERF_TYPE_BREAKPOINT;
	describe_pfm(name, arg.idx, why, whylen);
	free(fstr);
	return CPC_EVENT_COUNTABLE;
}

/*
 * Ask the kernel: open the event on ourselves, disabled. The event is
 * closed again, except a tracepoint's, which is kept in *keep_fd for as
 * long as the handle lives: when the last perf event on a tracepoint
 * closes, the kernel removes its probe and waits for an RCU grace period
 * (tens of milliseconds), and without this reference every exec or exit
 * of the last traced thread, and this probe itself, would pay that wait.
 */
static cpc_event_status_t
probe(const char *name, const struct cpc_event_enc *enc, char *why,
    size_t whylen, int *keep_fd)
{
	struct cpc_request req;
	struct perf_event_attr attr;
	char meaning[256];
	int fd;

	memset(&req, 0, sizeof(req));
	req.enc = *enc;
	req.flags = CPC_COUNT_USER;
	cpc_request_to_attr(&req, &attr);
	attr.disabled = 1;
	if ((fd = cpc_perf_open(&attr, 0, -1, -1)) >= 0) {
		if (enc->type == PERF_TYPE_TRACEPOINT)
			*keep_fd = fd;
		else
			close(fd);
		return CPC_EVENT_COUNTABLE;
	}
	snprintf(meaning, sizeof(meaning), "%s", why[0] ? why : name);
	switch (errno) {
	case EACCES:
	case EPERM:
		snprintf(why, whylen, "%s: permission denied (see "
		    "kernel.perf_event_paranoid, or grant CAP_PERFMON)",
		    meaning);
		return CPC_EVENT_NO_PERMISSION;
	case EMFILE:
	case ENFILE:
		return CPC_EVENT_COUNTABLE;
	default:
		snprintf(why, whylen, "%s: not supported by this kernel "
		    "(%s)", meaning, strerror(errno));
		return CPC_EVENT_UNSUPPORTED;
	}
}

static cpc_event_status_t
classify(cpc_t *cpc, const char *name, struct cpc_event_enc *enc, char *why,
    size_t whylen, int *keep_fd)
{
	const struct name_map *alias;
	const char *linux_name = name;
	char meaning[192] = "";
	cpc_event_status_t st;
	uint64_t code;

	memset(enc, 0, sizeof(*enc));
	why[0] = '\0';
	alias = map_find(sparc_map, sizeof(sparc_map) / sizeof(sparc_map[0]),
	    name);
	if (alias == NULL)
		alias = map_find(papi_map,
		    sizeof(papi_map) / sizeof(papi_map[0]), name);
	if (alias != NULL) {
		if (!alias->exact) {
			snprintf(why, whylen, "%s (%s): no exact Linux "
			    "equivalent; the nearest is %s", name,
			    alias->meaning, alias->linux_name);
			return CPC_EVENT_NO_EQUIVALENT;
		}
		linux_name = alias->linux_name;
		snprintf(meaning, sizeof(meaning), "%s (%s, Linux %s)", name,
		    alias->meaning, linux_name);
	} else if (strncmp(name, "PAPI", 4) == 0) {
		snprintf(why, whylen, "%s: unknown event", name);
		return CPC_EVENT_UNKNOWN;
	}

	if (looks_like_tracepoint(linux_name)) {
		st = encode_tracepoint(linux_name, enc, why, whylen);
		if (st != CPC_EVENT_COUNTABLE)
			return st;
		snprintf(why, whylen, "%s (tracepoint)", name);
	} else if (parse_raw(linux_name, &code)) {
		enc->type = cpc->pmu_type >= 0 ? (uint32_t)cpc->pmu_type :
		    PERF_TYPE_RAW;
		enc->config = code;
		enc->hardware = true;
		snprintf(why, whylen, "%s (raw hardware event code)", name);
	} else {
		st = encode_pfm(linux_name, enc, why, whylen);
		if (st != CPC_EVENT_COUNTABLE)
			return st;
	}
	if (meaning[0] != '\0')
		snprintf(why, whylen, "%s", meaning);
	if (enc->hardware && cpc->pmu_name[0] == '\0') {
		snprintf(meaning, sizeof(meaning), "%s", why);
		snprintf(why, whylen, "%s: a hardware event, and this kernel "
		    "has no hardware counters (no PMU; a VM without a "
		    "virtual PMU?)", meaning);
		return CPC_EVENT_NO_PMU;
	}
	/* Raw codes on the core PMU take the kernel's type from sysfs. */
	if (enc->type == PERF_TYPE_RAW && cpc->pmu_type >= 0)
		enc->type = (uint32_t)cpc->pmu_type;
	return probe(name, enc, why, whylen, keep_fd);
}

static struct event_entry *
lookup(cpc_t *cpc, const char *name)
{
	struct cpc_event_tree *tree = cpc->events;
	struct event_entry key, *e;

	if (tree == NULL) {
		if ((tree = calloc(1, sizeof(*tree))) == NULL)
			return NULL;
		RB_INIT(tree);
		cpc->events = tree;
	}
	key.name = (char *)name;
	if ((e = RB_FIND(cpc_event_tree, tree, &key)) != NULL)
		return e;
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return NULL;
	if ((e->name = strdup(name)) == NULL) {
		free(e);
		return NULL;
	}
	e->keep_fd = -1;
	e->status = classify(cpc, name, &e->enc, e->why, sizeof(e->why),
	    &e->keep_fd);
	RB_INSERT(cpc_event_tree, tree, e);
	return e;
}

void
cpc_events_free(cpc_t *cpc)
{
	struct cpc_event_tree *tree = cpc->events;
	struct event_entry *e, *next;

	if (tree == NULL)
		return;
	RB_FOREACH_SAFE(e, cpc_event_tree, tree, next) {
		RB_REMOVE(cpc_event_tree, tree, e);
		if (e->keep_fd >= 0)
			close(e->keep_fd);
		free(e->name);
		free(e);
	}
	free(tree);
	cpc->events = NULL;
}

cpc_event_status_t
cpc_event_status(cpc_t *cpc, const char *event, char *why, size_t whylen)
{
	struct event_entry *e;

	if (event == NULL || event[0] == '\0' ||
	    strlen(event) >= CPC_MAX_EVENT_LEN) {
		if (why != NULL && whylen > 0)
			snprintf(why, whylen, "'%s': not an event name",
			    event != NULL ? event : "");
		return CPC_EVENT_UNKNOWN;
	}
	if ((e = lookup(cpc, event)) == NULL) {
		if (why != NULL && whylen > 0)
			snprintf(why, whylen, "%s: %s", event,
			    strerror(ENOMEM));
		return CPC_EVENT_UNSUPPORTED;
	}
	if (why != NULL && whylen > 0)
		snprintf(why, whylen, "%s", e->why);
	return e->status;
}

/*
 * Encode a name for a request. Returns 0, or -1 with the status in errno
 * terms: the message in why says which.
 */
int
cpc_event_encode(cpc_t *cpc, const char *name, struct cpc_event_enc *enc,
    char *why, size_t whylen)
{
	cpc_event_status_t st = cpc_event_status(cpc, name, why, whylen);
	struct event_entry *e;

	if (st != CPC_EVENT_COUNTABLE && st != CPC_EVENT_NO_PERMISSION)
		return -1;
	e = lookup(cpc, name);
	*enc = e->enc;
	return 0;
}

bool
cpc_attr_known(cpc_t *cpc, const char *name)
{
	const char *const *a;

	if (strcmp(name, "picnum") == 0)
		return true;
	for (a = cpc->attr_names; *a != NULL; a++)
		if (strcmp(*a, name) == 0)
			return true;
	return false;
}

/*
 * Put a value into a field's bits, lowest bits of the value into the
 * lowest bits of the field. False when the value does not fit.
 */
static bool
deposit(const struct cpc_attr_field *f, uint64_t val,
    struct perf_event_attr *attr)
{
	uint64_t *word = f->config == 0 ? &attr->config :
	    f->config == 1 ? &attr->config1 : &attr->config2;
	uint64_t bits = 0;
	int b;

	for (b = 0; b < 64; b++) {
		if (!(f->mask & (1ULL << b)))
			continue;
		if (val & 1)
			bits |= 1ULL << b;
		val >>= 1;
	}
	if (val != 0)
		return false;
	*word = (*word & ~f->mask) | bits;
	return true;
}

/*
 * Fold a request's hardware attributes into its encoding. Returns 0, or
 * the subcode that explains the failure.
 */
int
cpc_attr_apply(cpc_t *cpc, const struct cpc_request *req,
    struct perf_event_attr *attr)
{
	const struct cpc_attr_field *f;
	uint_t i;

	for (i = 0; i < req->nattrs; i++) {
		if (strcmp(req->attrs[i].ca_name, "picnum") == 0)
			continue;
		/* Only the core PMU's own encodings have these fields. */
		if (cpc->pmu_type < 0 || attr->type != (uint32_t)cpc->pmu_type ||
		    (f = cpc_pmu_attr_field(req->attrs[i].ca_name)) == NULL ||
		    !deposit(f, req->attrs[i].ca_val, attr))
			return CPC_ATTRIBUTE_OUT_OF_RANGE;
	}
	return 0;
}

/* The perf attributes that count a request, before attribute fields. */
void
cpc_request_to_attr(const struct cpc_request *req, struct perf_event_attr *attr)
{
	bool kctx = is_kernel_context(&req->enc);

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = req->enc.type;
	attr->config = req->enc.config;
	attr->config1 = req->enc.config1;
	attr->config2 = req->enc.config2;
	attr->exclude_user = !(req->flags & CPC_COUNT_USER) && !kctx;
	attr->exclude_kernel = !(req->flags & CPC_COUNT_SYSTEM) && !kctx;
	attr->exclude_hv = !(req->flags & CPC_COUNT_HV);
	attr->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}
