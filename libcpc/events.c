/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Event names: what a name means on Linux, how it encodes, and whether
 * this kernel can count it. Each grammar has its own file (evgrammar.c,
 * sysfs_pmu.c, tracefs.c, probes.c, presets.c); this one asks them in
 * turn and caches the answer per handle (the cache is kept by evstate.c),
 * because the commands add the same requests for every thread they
 * follow.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evname.h"

struct event_entry {
	RB_ENTRY(event_entry) node;
	char *name;
	cpc_event_status_t status;
	const char *kind;
	char *reason; /* why not countable, or NULL */
	char *desc;   /* what it counts, or NULL */
	char *note;   /* what is counted instead */
	struct cpc_event_term *terms;
	struct cpc_event_enc enc;
	char *owned[2];
	int pin; /* see cpclib_request_to_attr */
};

static int
entry_cmp(const struct event_entry *a, const struct event_entry *b)
{
	return strcmp(a->name, b->name);
}

RB_PROTOTYPE_STATIC(event_names, event_entry, node, entry_cmp)
RB_GENERATE_STATIC(event_names, event_entry, node, entry_cmp)

#define PIN_NONE   (-1) /* no reference taken yet */
#define PIN_FAILED (-2) /* could not take one: do not try again */

/* The perf attributes of a request's term t with its modes applied. */
static void
term_attr(const struct cpc_event_enc *enc, uint_t flags, int t,
    struct perf_event_attr *attr)
{
	uint_t modes;

	*attr = enc->term[t].attr;
	attr->size = sizeof(*attr);
	if (enc->modes != 0) {
		modes = enc->modes; /* the name's modifiers, as perf */
	} else if (enc->all_modes) {
		modes = CPC_COUNT_USER | CPC_COUNT_SYSTEM | CPC_COUNT_HV;
	} else {
		modes = flags;
		/* Counting only user mode, these would read zero. */
		if (enc->kernel_context)
			modes |= CPC_COUNT_USER | CPC_COUNT_SYSTEM;
	}
	attr->exclude_user = !(modes & CPC_COUNT_USER);
	attr->exclude_kernel = !(modes & CPC_COUNT_SYSTEM);
	attr->exclude_hv = !(modes & CPC_COUNT_HV);
	attr->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/*
 * The handle keeps one event open on each tracepoint a set has counted:
 * when the last perf event on a tracepoint closes, the kernel removes its
 * probe and waits for a grace period (tens of milliseconds), and without
 * this reference every exec or exit of the last traced thread would pay
 * that wait. Taken at the first open, so that merely naming thousands of
 * tracepoints (the walkers' clients do) opens none.
 */
static void
take_pin(int *pin, int cpu, const struct perf_event_attr *attr)
{
	struct perf_event_attr a = *attr;
	int fd, expected = PIN_NONE;

	a.disabled = 1;
	a.read_format = 0;
	fd = cpclib_perf_open(&a, cpu < 0 ? 0 : -1, cpu, -1);
	if (!__atomic_compare_exchange_n(pin, &expected,
		fd >= 0 ? fd : PIN_FAILED, false, __ATOMIC_ACQ_REL,
		__ATOMIC_ACQUIRE) &&
	    fd >= 0)
		close(fd);
}

/*
 * The perf attributes of term t of a request, before attribute fields.
 */
void
cpclib_request_to_attr(
    const struct cpc_request *req, int t, struct perf_event_attr *attr)
{
	const struct cpc_event_enc *enc = &req->enc;

	term_attr(enc, req->flags, t, attr);
	if (enc->pin != NULL &&
	    __atomic_load_n(enc->pin, __ATOMIC_ACQUIRE) == PIN_NONE)
		take_pin(enc->pin, enc->pin_cpu, attr);
}

/* Copy a name's terms and properties, for a name built on it. */
static void
copy_view(const struct ev_entry_view *v, struct ev_result *r)
{
	int t;

	r->kind = v->kind;
	if (v->desc != NULL)
		strlcpy(r->desc, v->desc, sizeof(r->desc));
	if (v->note != NULL)
		strlcpy(r->note, v->note, sizeof(r->note));
	r->nterms = v->enc.nterms;
	for (t = 0; t < v->enc.nterms; t++)
		r->term[t] = v->enc.term[t];
	r->hardware = v->enc.hardware;
	r->kernel_context = v->enc.kernel_context;
	r->all_modes = v->enc.all_modes;
	r->boxes = v->enc.boxes;
	r->modes = v->enc.modes;
	r->status = v->status;
	if (v->status != CPC_EVENT_COUNTABLE)
		strlcpy(r->why, v->why, sizeof(r->why));
}

/* What a failed open says about a name, for its status. */
static void
probe_failed(cpc_t *cpc, const char *name, struct ev_result *r, int err)
{
	struct cpc_request req;
	char why[EV_WHY_LEN];

	memset(&req, 0, sizeof(req));
	req.event = (char *)name;
	req.flags = CPC_COUNT_USER;
	req.enc.term = r->term;
	req.enc.nterms = r->nterms;
	req.enc.hardware = r->hardware;
	req.enc.kernel_context = r->kernel_context;
	req.enc.all_modes = r->all_modes;
	req.enc.modes = r->modes;
	cpclib_explain_open_error(cpc, &req, err, cpclib_probe_pid(cpc),
	    cpc->probe_cpu, why, sizeof(why));
	ev_fail(r,
	    err == EACCES || err == EPERM ? CPC_EVENT_NO_PERMISSION :
					    CPC_EVENT_UNSUPPORTED,
	    "%s", why);
}

/*
 * Ask the kernel: open each event on ourselves, disabled, and close it.
 * A PMU that cannot tell modes apart (msr) refuses any exclude bit: such
 * an event then counts every mode, unless the name asked for a mode.
 */
/*
 * Whether the name is one of tracefs's tracepoints by another name
 * (libpfm4's perf::sub:event): not a subsystem alone, nor one of
 * ftrace's own events, on which the kernel decides one by one.
 */
static bool
named_tracepoint(const char *name, const struct ev_result *r)
{
	const char *tp = strstr(name, "::");

	if (r->nterms != 1 || r->term[0].attr.type != PERF_TYPE_TRACEPOINT ||
	    tp == NULL)
		return false;
	tp += 2;
	return strncmp(tp, "ftrace:", 7) != 0 &&
	    cpclib_looks_like_tracepoint(tp) && cpclib_tracepoint_exists(tp);
}

static void
probe(cpc_t *cpc, const char *name, struct ev_result *r)
{
	struct cpc_event_enc enc = {
		.term = r->term,
		.nterms = r->nterms,
		.kernel_context = r->kernel_context,
		.modes = r->modes,
	};
	struct perf_event_attr attr;
	bool tracepoint;
	int t, fd;

	/*
	 * A tracepoint by another name (libpfm4's perf::sub:event) is not
	 * asked once this user is known to count tracepoints, as tracefs's
	 * names are not: closing a tracepoint's event waits for an RCU grace
	 * period, and the catalog has thousands of them.
	 */
	tracepoint = named_tracepoint(name, r);
	if (tracepoint && cpclib_ev_state(cpc) != NULL &&
	    cpclib_ev_state(cpc)->tp_access == 1)
		return;

	for (t = 0; t < r->nterms; t++) {
		term_attr(&enc, CPC_COUNT_USER, t, &attr);
		attr.disabled = 1;
		if ((fd = cpclib_probe_open(cpc, &attr)) < 0 &&
		    errno == EINVAL && !enc.all_modes) {
			attr.exclude_user = attr.exclude_kernel = 0;
			attr.exclude_hv = 0;
			if ((fd = cpclib_probe_open(cpc, &attr)) >= 0 &&
			    enc.modes != 0) {
				close(fd);
				ev_fail(r, CPC_EVENT_UNSUPPORTED,
				    "the PMU "
				    "counts every mode together and cannot "
				    "count only some: drop the modifier");
				return;
			}
			if (fd >= 0)
				enc.all_modes = r->all_modes = true;
			else
				errno = EINVAL;
		}
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (errno == EMFILE || errno == ENFILE)
			continue; /* says nothing of the event */
		probe_failed(cpc, name, r, errno);
		return;
	}
	if (tracepoint && cpclib_ev_state(cpc) != NULL)
		cpclib_ev_state(cpc)->tp_access = 1;
}

/* Whether a name is an existing tracepoint, modifier-like ending or not. */
static bool
is_tracepoint(const char *name)
{
	return cpclib_looks_like_tracepoint(name) &&
	    cpclib_tracepoint_exists(name);
}

/*
 * mem:ADDR, where the kernel has the breakpoint PMU: without it no such
 * event opens, and the walk describes the form only where it is.
 */
static bool
resolve_breakpoint(cpc_t *cpc, const char *name, struct ev_result *r)
{
	if (strncmp(name, "mem:", 4) == 0 &&
	    cpclib_sysfs_pmu(cpc, "breakpoint") == NULL) {
		r->kind = "breakpoint";
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "this kernel has no breakpoint PMU (no "
		    "/sys/bus/event_source/devices/breakpoint; it needs "
		    "CONFIG_HAVE_HW_BREAKPOINT)");
		return true;
	}
	return cpclib_resolve_breakpoint(name, r);
}

/* Every grammar in turn, on a name without counting modifiers. */
static void
resolve_forms(cpc_t *cpc, const char *name, struct ev_result *r)
{
	struct ev_result tp;

	if (resolve_breakpoint(cpc, name, r) ||
	    cpclib_resolve_probe(cpc, name, r) ||
	    cpclib_resolve_core_generic(cpc, name, r) ||
	    cpclib_resolve_pmu_terms(cpc, name, r) ||
	    cpclib_resolve_legacy(cpc, name, r) ||
	    cpclib_resolve_solaris(cpc, name, r, cpclib_event_view))
		return;
	/* libpfm4's EVENT:UMASK looks like a tracepoint too. */
	ev_result_init(&tp);
	if (cpclib_resolve_tracepoint(cpc, name, &tp) &&
	    (tp.status == CPC_EVENT_COUNTABLE ||
		tp.status == CPC_EVENT_NO_PERMISSION)) {
		*r = tp;
		return;
	}
	if (cpclib_resolve_raw_r(cpc, name, r) ||
	    cpclib_resolve_pmu_alias(cpc, name, r) ||
	    cpclib_resolve_raw_code(cpc, name, r) ||
	    cpclib_resolve_pfm(cpc, name, r))
		return;
	if (tp.kind != NULL)
		*r = tp;
}

/*
 * Whether an event is a recorded machine's own: its core PMU's, or of a
 * PMU whose type the kernel gave out at boot (uncore, RAPL), which this
 * kernel's types do not name.
 */
static bool
recorded_pmu_event(const struct ev_result *r)
{
	return r->hardware ||
	    (strcmp(r->kind, "pmu") == 0 && r->nterms > 0 &&
		r->term[0].attr.type >= PERF_TYPE_MAX);
}

/* perf modifiers that mean nothing to counting, named in the refusal. */
static void
explain_unknown(const char *name, struct ev_result *r)
{
	const char *colon = strrchr(name, ':'), *m;

	if (colon == NULL || colon[1] == '\0')
		return;
	for (m = colon + 1; *m != '\0'; m++)
		if (cpclib_modifier_meaning(*m) == NULL)
			return;
	for (m = colon + 1; *m != '\0'; m++) {
		if (strchr("ukhHGp", *m) != NULL)
			continue;
		r->kind = "modifier";
		r->desc[0] = '\0';
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "perf's modifier '%c' (%s) "
		    "means nothing when counting; the modifiers here are "
		    ":u :k :h :H :G :p :pp :ppp",
		    *m, cpclib_modifier_meaning(*m));
		return;
	}
}

static void
classify(cpc_t *cpc, const char *name, struct ev_result *r)
{
	char base[CPC_MAX_EVENT_LEN];
	struct ev_entry_view v;
	const char *mods;
	bool composite;

	ev_result_init(r);
	if (cpclib_split_modifiers(name, base, sizeof(base), &mods) &&
	    !is_tracepoint(name)) {
		if (!cpclib_event_view(cpc, base, &v)) {
			ev_fail(
			    r, CPC_EVENT_UNSUPPORTED, "%s", strerror(ENOMEM));
			return;
		}
		copy_view(&v, r);
		if (r->status != CPC_EVENT_COUNTABLE &&
		    r->status != CPC_EVENT_NO_PERMISSION)
			return;
		r->status = CPC_EVENT_COUNTABLE;
		if (cpclib_apply_modifiers(mods, r) != 0)
			return;
		composite = false;
	} else {
		resolve_forms(cpc, name, r);
		if (r->status == CPC_EVENT_UNKNOWN)
			explain_unknown(name, r);
		if (r->status != CPC_EVENT_COUNTABLE)
			return;
		composite = strcmp(r->kind, "generic") == 0 ||
		    strcmp(r->kind, "ultrasparc") == 0;
		if (!composite)
			cpclib_spread_over_cores(cpc, name, r);
		if (r->status != CPC_EVENT_COUNTABLE)
			return;
	}
	if (r->hardware && cpc->pmu_name[0] == '\0') {
		ev_fail(r, CPC_EVENT_NO_PMU,
		    "a hardware event, and this "
		    "kernel has no hardware counters (no PMU; a VM without a "
		    "virtual PMU?)");
		return;
	}
	/*
	 * Tracepoints were asked once per handle; composites, per part; a
	 * recorded machine's events (the unit tests') cannot be asked.
	 */
	if (!composite && strcmp(r->kind, "tracepoint") != 0 &&
	    !(cpclib_sysfs_recorded() && recorded_pmu_event(r)))
		probe(cpc, name, r);
}

static char *
dup_or_null(const char *s)
{
	return s[0] != '\0' ? strdup(s) : NULL;
}

static void
entry_free(struct event_entry *e)
{
	if (e->pin >= 0)
		close(e->pin);
	free(e->owned[0]);
	free(e->owned[1]);
	free(e->terms);
	free(e->reason);
	free(e->desc);
	free(e->note);
	free(e->name);
	free(e);
}

/* Move a result into a cache entry; false when out of memory. */
static bool
entry_fill(cpc_t *cpc, struct event_entry *e, struct ev_result *r)
{
	e->status = r->status;
	e->kind = r->kind;
	e->pin = r->pin_fd >= 0 ? r->pin_fd : PIN_NONE;
	e->owned[0] = r->owned[0];
	e->owned[1] = r->owned[1];
	if ((r->status != CPC_EVENT_COUNTABLE &&
		(e->reason = dup_or_null(r->why)) == NULL &&
		r->why[0] != '\0') ||
	    ((e->desc = dup_or_null(r->desc)) == NULL && r->desc[0] != '\0') ||
	    ((e->note = dup_or_null(r->note)) == NULL && r->note[0] != '\0'))
		return false;
	if (r->nterms > 0) {
		if ((e->terms = calloc((size_t)r->nterms, sizeof(*e->terms))) ==
		    NULL)
			return false;
		memcpy(
		    e->terms, r->term, (size_t)r->nterms * sizeof(*e->terms));
	}
	e->enc.term = e->terms;
	e->enc.nterms = r->nterms;
	e->enc.hardware = r->hardware;
	e->enc.kernel_context = r->kernel_context;
	e->enc.all_modes = r->all_modes;
	e->enc.boxes = r->boxes;
	e->enc.modes = r->modes;
	/* Only a tracepoint of its own needs the reference. */
	if (r->nterms == 1 && r->term[0].attr.type == PERF_TYPE_TRACEPOINT) {
		e->enc.pin = &e->pin;
		e->enc.pin_cpu = cpc->probe_cpu;
	}
	return true;
}

/* Every set of every new LWP looks its events up: made once, then read. */
static struct event_entry *
lookup(cpc_t *cpc, const char *name)
{
	struct cpc_event_tree *tree =
	    __atomic_load_n(&cpc->events, __ATOMIC_ACQUIRE);
	struct event_entry key = { .name = (char *)name }, *e, *other;
	struct ev_result *r;

	if (tree == NULL && (tree = cpclib_event_tree(cpc)) == NULL)
		return NULL;
	pthread_mutex_lock(&tree->lock);
	e = RB_FIND(event_names, &tree->names, &key);
	pthread_mutex_unlock(&tree->lock);
	if (e != NULL)
		return e;
	if ((e = calloc(1, sizeof(*e))) == NULL ||
	    (r = malloc(sizeof(*r))) == NULL) {
		free(e);
		return NULL;
	}
	e->pin = PIN_NONE;
	if ((e->name = strdup(name)) == NULL) {
		free(r);
		free(e);
		return NULL;
	}
	classify(cpc, name, r);
	if (!entry_fill(cpc, e, r)) {
		free(r);
		entry_free(e);
		return NULL;
	}
	free(r);
	/* Another thread may have classified it meanwhile: keep one. */
	pthread_mutex_lock(&tree->lock);
	other = RB_INSERT(event_names, &tree->names, e);
	pthread_mutex_unlock(&tree->lock);
	if (other != NULL) {
		entry_free(e);
		return other;
	}
	return e;
}

void
cpclib_events_free(cpc_t *cpc)
{
	struct cpc_event_tree *tree = cpc->events;
	struct event_entry *e, *next;

	if (tree == NULL)
		return;
	RB_FOREACH_SAFE (e, event_names, &tree->names, next) {
		RB_REMOVE(event_names, &tree->names, e);
		entry_free(e);
	}
	cpclib_sysfs_free(tree->state.pmus);
	tree->state.pmus = NULL;
	cpclib_event_tree_free(cpc);
}

static bool
valid_name(const char *event)
{
	return event != NULL && event[0] != '\0' &&
	    strlen(event) < CPC_MAX_EVENT_LEN;
}

bool
cpclib_event_view(cpc_t *cpc, const char *name, struct ev_entry_view *v)
{
	struct event_entry *e;

	memset(v, 0, sizeof(*v));
	if (!valid_name(name)) {
		v->status = CPC_EVENT_UNKNOWN;
		v->why = "not an event name";
		return true;
	}
	if ((e = lookup(cpc, name)) == NULL)
		return false;
	v->status = e->status;
	v->kind = e->kind;
	v->why = e->reason != NULL ? e->reason : "unknown event";
	v->desc = e->desc;
	v->note = e->note;
	v->enc = e->enc;
	return true;
}

/* "name (what it counts): why not", as the commands print it. */
static void
compose_why(const struct event_entry *e, char *why, size_t whylen)
{
	if (e->status == CPC_EVENT_COUNTABLE && e->desc != NULL)
		snprintf(why, whylen, "%s (%s)", e->name, e->desc);
	else if (e->status == CPC_EVENT_COUNTABLE)
		snprintf(why, whylen, "%s", e->name);
	else if (e->desc != NULL && e->reason != NULL)
		snprintf(
		    why, whylen, "%s (%s): %s", e->name, e->desc, e->reason);
	else
		snprintf(why, whylen, "%s: %s", e->name,
		    e->reason != NULL ? e->reason : "unknown event");
}

cpc_event_status_t
cpc_event_status(cpc_t *cpc, const char *event, char *why, size_t whylen)
{
	struct event_entry *e;

	if (!valid_name(event)) {
		if (why != NULL && whylen > 0)
			snprintf(why, whylen, "'%s': not an event name",
			    event != NULL ? event : "");
		return CPC_EVENT_UNKNOWN;
	}
	if ((e = lookup(cpc, event)) == NULL) {
		if (why != NULL && whylen > 0)
			snprintf(
			    why, whylen, "%s: %s", event, strerror(ENOMEM));
		return CPC_EVENT_UNSUPPORTED;
	}
	if (why != NULL && whylen > 0)
		compose_why(e, why, whylen);
	return e->status;
}

const char *
cpc_event_kind(cpc_t *cpc, const char *event)
{
	struct event_entry *e;

	if (!valid_name(event) || (e = lookup(cpc, event)) == NULL)
		return NULL;
	return e->kind;
}

int
cpc_event_note(cpc_t *cpc, const char *event, char *note, size_t len)
{
	struct event_entry *e;

	if (!valid_name(event) || (e = lookup(cpc, event)) == NULL ||
	    e->note == NULL || e->status != CPC_EVENT_COUNTABLE)
		return 0;
	if (note != NULL && len > 0)
		snprintf(note, len, "%s: %s", e->name, e->note);
	return 1;
}

int
cpc_event_counts_ns(cpc_t *cpc, const char *event)
{
	struct event_entry *e;
	uint64_t config;

	if (!valid_name(event) || (e = lookup(cpc, event)) == NULL ||
	    e->status != CPC_EVENT_COUNTABLE || e->enc.nterms != 1 ||
	    e->enc.term[0].attr.type != PERF_TYPE_SOFTWARE)
		return 0;
	config = e->enc.term[0].attr.config;
	return config == PERF_COUNT_SW_CPU_CLOCK ||
	    config == PERF_COUNT_SW_TASK_CLOCK;
}

/*
 * Aliases are perf's own table, read without resolving the name: a
 * spelling is canonical whether or not this machine can count it.
 */
int
cpc_event_canonical(cpc_t *cpc, const char *event, char *name, size_t len)
{
	char base[CPC_MAX_EVENT_LEN];
	const char *mods, *alias_of;
	int n;

	(void)cpc;
	if (!valid_name(event)) {
		errno = EINVAL;
		return -1;
	}
	(void)cpclib_split_modifiers(event, base, sizeof(base), &mods);
	if ((alias_of = cpclib_legacy_alias_of(base)) == NULL)
		n = snprintf(name, len, "%s", event);
	else
		n = snprintf(name, len, "%s%s%s", alias_of,
		    mods != NULL ? ":" : "", mods != NULL ? mods : "");
	if (n < 0 || (size_t)n >= len) {
		errno = ERANGE;
		return -1;
	}
	return 0;
}

/* What a name counts, for the described walk; NULL if unknown. */
const char *
cpclib_event_desc(cpc_t *cpc, const char *name)
{
	struct event_entry *e = lookup(cpc, name);

	return e != NULL ? e->desc : NULL;
}

/*
 * Encode a name for a request. Returns 0, or -1 with the reason in why.
 * Names this user may not count encode: the bind says so.
 */
int
cpclib_event_encode(cpc_t *cpc, const char *name, struct cpc_event_enc *enc,
    char *why, size_t whylen)
{
	struct event_entry *e;

	if (!valid_name(name) || (e = lookup(cpc, name)) == NULL) {
		if (why != NULL && whylen > 0)
			snprintf(why, whylen, "%s: %s",
			    name != NULL ? name : "",
			    valid_name(name) ? strerror(ENOMEM) :
					       "not an event name");
		return -1;
	}
	if (e->status != CPC_EVENT_COUNTABLE &&
	    e->status != CPC_EVENT_NO_PERMISSION) {
		if (why != NULL && whylen > 0)
			compose_why(e, why, whylen);
		return -1;
	}
	*enc = e->enc;
	return 0;
}

bool
cpclib_attr_known(cpc_t *cpc, const char *name)
{
	const char *const *a;

	if (strcmp(name, "picnum") == 0)
		return true;
	for (a = cpclib_attr_names(cpc); *a != NULL; a++)
		if (strcmp(*a, name) == 0)
			return true;
	return false;
}

/*
 * Fold a request's hardware attributes into its encoding. Returns 0, or
 * the subcode that explains the failure.
 */
int
cpclib_attr_apply(
    cpc_t *cpc, const struct cpc_request *req, struct perf_event_attr *attr)
{
	const struct cpc_attr_field *f;
	const cpc_attr_t *a;
	uint_t i;

	for (i = 0; i < req->nattrs; i++) {
		a = &req->attrs[i];
		if (strcmp(a->ca_name, "picnum") == 0)
			continue;
		/* Only the core PMUs' own encodings have these fields. */
		if (cpclib_core_of_type(cpc, attr->type) < 0 ||
		    (f = cpclib_pmu_attr_field(a->ca_name)) == NULL ||
		    !cpclib_deposit(f->config, f->mask, a->ca_val, attr))
			return CPC_ATTRIBUTE_OUT_OF_RANGE;
	}
	return 0;
}
