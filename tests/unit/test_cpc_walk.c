/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Walkers and handle facts. The walkers list what the library accepts,
 * in both directions:
 *
 *  - every name walked is accepted by cpc_set_add_request and binds:
 *    each one is bound to this thread and sampled, but tracepoints, of
 *    which each is added and one per subsystem bound (binding and closing
 *    one costs the kernel a grace period; test_events_perf binds them all),
 *    and the events of socket PMUs (a cpumask: RAPL, uncore), which count
 *    no thread: each is refused for this thread, saying why, and bound to
 *    the first CPU its cpumask names and sampled;
 *  - every kind of name accepted is walked: the names the kernel and
 *    libpfm4 enumerate themselves (tracefs's tracepoints, sysfs PMU
 *    events, every event of every libpfm4 PMU found here, perf's software
 *    events, the generic PAPI names), read here independently of the
 *    library, are each walked when the library accepts them; the forms
 *    with a parameter (mem:, rNNNN, pmu/term=v/, uprobe:) are in the
 *    described walk.
 *
 * Nothing the kernel cannot open is walked (no hardware event without a
 * PMU).
 */
#include <dirent.h>
#include <ftw.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "test_cpc.h"
#include "../../libcpc/cpc_impl.h"

#define HOST_PMUS "/sys/bus/event_source/devices"
#define DEVICES	  "bus/event_source/devices"

/* The PMUs walked: the host's, or a tree that adds a socket PMU. */
static char pmu_dir[512] = HOST_PMUS;
static int socket_events;

struct names {
	int n, nalloc;
	char **name;
};

static void
names_add(struct names *l, const char *event)
{
	if (l->n == l->nalloc) {
		l->nalloc = l->nalloc ? l->nalloc * 2 : 1024;
		l->name = realloc(l->name, (size_t)l->nalloc * sizeof(char *));
	}
	l->name[l->n++] = strdup(event);
}

static void
collect(void *arg, const char *event)
{
	names_add(arg, event);
}

static void
collect_pic(void *arg, uint_t picno, const char *event)
{
	(void)picno;
	names_add(arg, event);
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sorted copy for lookups. */
static struct names
sorted(const struct names *l)
{
	struct names s = { l->n, l->n,
		malloc((size_t)(l->n + 1) * sizeof(char *)) };

	if (l->n > 0) {
		memcpy(s.name, l->name, (size_t)l->n * sizeof(char *));
		qsort(s.name, (size_t)s.n, sizeof(char *), cmp);
	}
	return s;
}

static bool
contains(const struct names *s, const char *name)
{
	return s->n > 0 &&
	    bsearch(&name, s->name, (size_t)s->n, sizeof(char *), cmp) != NULL;
}

static void
names_free(struct names *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->name[i]);
	free(l->name);
	memset(l, 0, sizeof(*l));
}

static bool
is_tracepoint(cpc_t *cpc, const char *name)
{
	const char *kind = cpc_event_kind(cpc, name);

	return kind != NULL && strcmp(kind, "tracepoint") == 0;
}

/* Perf's generic hardware and cache names: all need a PMU. */
static const char *const hardware_names[] = {
	"cycles",
	"cpu-cycles",
	"instructions",
	"cache-references",
	"cache-misses",
	"branch-instructions",
	"branches",
	"branch-misses",
	"bus-cycles",
	"ref-cycles",
	"stalled-cycles-frontend",
	"stalled-cycles-backend",
	"L1-dcache-loads",
	"L1-dcache-load-misses",
	"L1-dcache-stores",
	"L1-icache-loads",
	"L1-icache-load-misses",
	"LLC-loads",
	"LLC-load-misses",
	"dTLB-loads",
	"dTLB-load-misses",
	"iTLB-loads",
	"iTLB-load-misses",
	"branch-loads",
	"branch-load-misses",
};

/* The kernel's software events, perf's names (perf_event.h). */
static const char *const software_names[] = {
	"cpu-clock",
	"task-clock",
	"page-faults",
	"faults",
	"context-switches",
	"cs",
	"cpu-migrations",
	"migrations",
	"minor-faults",
	"major-faults",
	"alignment-faults",
	"emulation-faults",
	"dummy",
	"bpf-output",
	"cgroup-switches",
};

/* generic_events(3CPC)'s names, as illumos lists them. */
static const char *const illumos_generic[] = {
	"PAPI_br_cn",
	"PAPI_br_ins",
	"PAPI_br_msp",
	"PAPI_br_ntk",
	"PAPI_br_prc",
	"PAPI_br_ucn",
	"PAPI_bru_idl",
	"PAPI_btac_m",
	"PAPI_ca_cln",
	"PAPI_ca_inv",
	"PAPI_ca_itv",
	"PAPI_ca_shr",
	"PAPI_ca_snp",
	"PAPI_csr_fal",
	"PAPI_csr_suc",
	"PAPI_csr_tot",
	"PAPI_fad_ins",
	"PAPI_fdv_ins",
	"PAPI_fma_ins",
	"PAPI_fml_ins",
	"PAPI_fnv_ins",
	"PAPI_fp_ops",
	"PAPI_fp_stal",
	"PAPI_fpu_idl",
	"PAPI_fsq_ins",
	"PAPI_ful_ccy",
	"PAPI_ful_icy",
	"PAPI_fxu_idl",
	"PAPI_hw_int",
	"PAPI_int_ins",
	"PAPI_tot_cyc",
	"PAPI_tot_iis",
	"PAPI_tot_ins",
	"PAPI_vec_ins",
	"PAPI_l1_dca",
	"PAPI_l1_dch",
	"PAPI_l1_dcm",
	"PAPI_l1_dcr",
	"PAPI_l1_dcw",
	"PAPI_l1_ica",
	"PAPI_l1_ich",
	"PAPI_l1_icm",
	"PAPI_l1_icr",
	"PAPI_l1_icw",
	"PAPI_l1_ldm",
	"PAPI_l1_stm",
	"PAPI_l1_tca",
	"PAPI_l1_tch",
	"PAPI_l1_tcm",
	"PAPI_l1_tcr",
	"PAPI_l1_tcw",
	"PAPI_l2_dca",
	"PAPI_l2_dch",
	"PAPI_l2_dcm",
	"PAPI_l2_dcr",
	"PAPI_l2_dcw",
	"PAPI_l2_ica",
	"PAPI_l2_ich",
	"PAPI_l2_icm",
	"PAPI_l2_icr",
	"PAPI_l2_icw",
	"PAPI_l2_ldm",
	"PAPI_l2_stm",
	"PAPI_l2_tca",
	"PAPI_l2_tch",
	"PAPI_l2_tcm",
	"PAPI_l2_tcr",
	"PAPI_l2_tcw",
	"PAPI_l3_dca",
	"PAPI_l3_dch",
	"PAPI_l3_dcm",
	"PAPI_l3_dcr",
	"PAPI_l3_dcw",
	"PAPI_l3_ica",
	"PAPI_l3_ich",
	"PAPI_l3_icm",
	"PAPI_l3_icr",
	"PAPI_l3_icw",
	"PAPI_l3_ldm",
	"PAPI_l3_stm",
	"PAPI_l3_tca",
	"PAPI_l3_tch",
	"PAPI_l3_tcm",
	"PAPI_l3_tcr",
	"PAPI_l3_tcw",
	"PAPI_ld_ins",
	"PAPI_lst_ins",
	"PAPI_lsu_idl",
	"PAPI_mem_rcy",
	"PAPI_mem_scy",
	"PAPI_mem_wcy",
	"PAPI_prf_dm",
	"PAPI_res_stl",
	"PAPI_sr_ins",
	"PAPI_stl_ccy",
	"PAPI_syc_ins",
	"PAPI_tlb_dm",
	"PAPI_tlb_im",
	"PAPI_tlb_sd",
	"PAPI_tlb_tl",
};

/* Bound to this thread and sampled. */
static bool
counts_on_thread(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	bool ok = false;

	if (cpc_bind_curlwp(cpc, set, 0) == 0) {
		ok = cpc_set_sample(cpc, set, buf) == 0 || errno == EAGAIN;
		cpc_unbind(cpc, set);
	}
	return ok;
}

/*
 * A socket PMU's event (its PMU has a cpumask) is refused for a thread by
 * the library itself, saying why, whatever the kernel would do with it.
 */
static bool
refused_on_thread(cpc_t *cpc, cpc_set_t *set, const char *event)
{
	bool said;
	int rc;

	memset(&last_error, 0, sizeof(last_error));
	cpc_seterrhndlr(cpc, recording_handler);
	errno = 0;
	rc = cpc_bind_curlwp(cpc, set, 0);
	said = rc != 0 && errno == EINVAL && last_error.calls == 1 &&
	    strstr(last_error.msg, "never a thread") != NULL;
	cpc_seterrhndlr(cpc, NULL);
	if (rc == 0)
		cpc_unbind(cpc, set);
	if (!said)
		fprintf(stderr,
		    "listed event %s of a PMU with a cpumask: bound to a "
		    "thread (%d), or refused without saying so (%s)\n",
		    event, rc, last_error.msg);
	return said;
}

/* Counted CPU-wide on the first CPU its PMU's cpumask names. */
static bool
counts_on_its_cpu(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf, const char *event)
{
	int cpu = atoi(cpc_event_cpumask(cpc, event, 0));
	bool ok = false;

	if (cpc_bind_cpu(cpc, cpu, set, 0) == 0) {
		ok = cpc_set_sample(cpc, set, buf) == 0;
		cpc_unbind(cpc, set);
	}
	return ok;
}

/*
 * Every listed name can be added and counted: bound to this thread and
 * sampled, or, for a socket PMU's event, refused for a thread and
 * counted on its CPU.
 */
static void
check_openable(cpc_t *cpc, const char *event)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf;
	bool ok;

	if (cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER, 0, NULL) !=
	    0) {
		fprintf(stderr, "listed event %s cannot be added\n", event);
		CHECK(!"listed event can be added");
		cpc_set_destroy(cpc, set);
		return;
	}
	buf = cpc_buf_create(cpc, set);
	if (cpc_event_cpumask(cpc, event, 0) != NULL) {
		ok = refused_on_thread(cpc, set, event) &&
		    counts_on_its_cpu(cpc, set, buf, event);
		socket_events++;
	} else {
		ok = counts_on_thread(cpc, set, buf);
	}
	if (!ok)
		fprintf(stderr, "listed event %s cannot be counted: %s\n",
		    event, strerror(errno));
	CHECK(ok);
	cpc_buf_destroy(cpc, buf);
	cpc_set_destroy(cpc, set);
}

/* A tracepoint is accepted: added to a set (nothing opened). */
static void
check_accepted(cpc_t *cpc, cpc_set_t *set, const char *event)
{
	if (cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER, 0, NULL) <
	    0) {
		fprintf(
		    stderr, "listed tracepoint %s cannot be added\n", event);
		CHECK(!"listed tracepoint can be added");
	}
}

/* Walked names: each accepted, and bound (one tracepoint a subsystem). */
static void
walked_are_accepted(cpc_t *cpc, const struct names *all)
{
	cpc_set_t *tps = cpc_set_create(cpc);
	char sub[256] = "", *colon;
	int i, bound = 0, tracepoints = 0;

	for (i = 0; i < all->n; i++) {
		if (!is_tracepoint(cpc, all->name[i])) {
			check_openable(cpc, all->name[i]);
			bound++;
			continue;
		}
		tracepoints++;
		check_accepted(cpc, tps, all->name[i]);
		colon = strchr(all->name[i], ':');
		if (strncmp(all->name[i], sub,
			(size_t)(colon - all->name[i])) == 0 &&
		    sub[colon - all->name[i]] == '\0')
			continue;
		snprintf(sub, sizeof(sub), "%.*s", (int)(colon - all->name[i]),
		    all->name[i]);
		check_openable(cpc, all->name[i]);
		bound++;
	}
	cpc_set_destroy(cpc, tps);
	printf("%d names walked: all accepted, %d bound (%d tracepoints "
	       "accepted)\n",
	    all->n, bound, tracepoints);
}

static void
expect_walked(const struct names *walked, const char *name, int *checked)
{
	if (!contains(walked, name))
		fprintf(stderr, "accepted but not walked: %s\n", name);
	CHECK(contains(walked, name));
	(*checked)++;
}

static bool
countable(cpc_t *cpc, const char *name)
{
	return cpc_event_status(cpc, name, NULL, 0) == CPC_EVENT_COUNTABLE;
}

/* tracefs's own list, read here. */
static void
tracefs_walked(cpc_t *cpc, const struct names *walked, int *checked)
{
	FILE *f = fopen("/sys/kernel/tracing/available_events", "r");
	char line[512], *nl;
	bool first = true;

	if (f == NULL) {
		printf("note: no tracefs: tracepoints not compared\n");
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		/* Whether this user may count tracepoints: once, for all. */
		if (first && !countable(cpc, line)) {
			printf("note: tracepoints not countable here\n");
			break;
		}
		first = false;
		expect_walked(walked, line, checked);
	}
	fclose(f);
}

/* Every event a sysfs PMU names, as pmu/event/. */
static void
sysfs_walked(cpc_t *cpc, const struct names *walked, int *checked)
{
	const char *dir = pmu_dir;
	char path[600], name[600];
	struct dirent *p, *e;
	DIR *dp, *de;

	if ((dp = opendir(dir)) == NULL)
		return;
	while ((p = readdir(dp)) != NULL) {
		if (p->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/events", dir, p->d_name);
		if ((de = opendir(path)) == NULL)
			continue;
		while ((e = readdir(de)) != NULL) {
			if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
				continue;
			snprintf(
			    name, sizeof(name), "%s/%s/", p->d_name, e->d_name);
			if (countable(cpc, name))
				expect_walked(walked, name, checked);
		}
		closedir(de);
	}
	closedir(dp);
}

/* Every event of every libpfm4 PMU found here, pmu::EVENT. */
static void
pfm_walked(cpc_t *cpc, const struct names *walked, int *checked)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	char name[600];
	pfm_pmu_t p;
	int idx;

	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(p, &pinfo) != PFM_SUCCESS ||
		    !pinfo.is_present || strcmp(pinfo.name, "perf_raw") == 0)
			continue;
		for (idx = pinfo.first_event; idx != -1;
		     idx = pfm_get_event_next(idx)) {
			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT,
				&einfo) != PFM_SUCCESS)
				continue;
			snprintf(name, sizeof(name), "%s::%s", pinfo.name,
			    einfo.name);
			if (countable(cpc, name))
				expect_walked(walked, name, checked);
		}
	}
}

struct form_seen {
	char kinds[32][16];
	int n;
};

static void
collect_forms(void *arg, const char *event, const char *kind, const char *desc)
{
	struct form_seen *f = arg;

	(void)desc;
	if (strpbrk(event, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == NULL ||
	    (strstr(event, "ADDR") == NULL && strstr(event, "PATH") == NULL &&
		strstr(event, "TERM=") == NULL && strcmp(event, "rNNNN") != 0 &&
		strstr(event, "FUNCTION") == NULL) ||
	    f->n == 32)
		return;
	strlcpy(f->kinds[f->n++], kind, sizeof(f->kinds[0]));
}

static bool
form_listed(const struct form_seen *f, const char *kind)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (strcmp(f->kinds[i], kind) == 0)
			return true;
	return false;
}

/* Names with a parameter, accepted: their kind's form is described. */
static void
forms_described(cpc_t *cpc)
{
	static const char *const examples[] = {
		"mem:0x1000:x",
		"r1a8",
		"msr/event=0x0/",
		"uprobe:/proc/self/exe:main",
	};
	struct form_seen f = { .n = 0 };
	const char *kind;
	size_t i;

	cpc_walk_events_described(cpc, &f, collect_forms);
	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		kind = cpc_event_kind(cpc, examples[i]);
		if (kind == NULL ||
		    cpc_event_status(cpc, examples[i], NULL, 0) !=
			CPC_EVENT_COUNTABLE)
			continue;
		if (!form_listed(&f, kind))
			fprintf(stderr, "%s accepted, no %s form described\n",
			    examples[i], kind);
		CHECK(form_listed(&f, kind));
	}
}

static void
kinds_walked(cpc_t *cpc, const struct names *all, const struct names *gen)
{
	struct names walked = sorted(all), generic = sorted(gen);
	int checked = 0;
	size_t i;

	for (i = 0; i < sizeof(software_names) / sizeof(software_names[0]); i++)
		if (countable(cpc, software_names[i]))
			expect_walked(&walked, software_names[i], &checked);
	for (i = 0; i < sizeof(illumos_generic) / sizeof(illumos_generic[0]);
	     i++)
		if (countable(cpc, illumos_generic[i]))
			expect_walked(&generic, illumos_generic[i], &checked);
	tracefs_walked(cpc, &walked, &checked);
	sysfs_walked(cpc, &walked, &checked);
	pfm_walked(cpc, &walked, &checked);
	forms_described(cpc);
	printf("%d names accepted, enumerated outside the library: all "
	       "walked\n",
	    checked);
	free(walked.name);
	free(generic.name);
}

static void
events_all(cpc_t *cpc)
{
	struct names all = { 0 }, pic = { 0 }, last = { 0 }, generic = { 0 };
	struct names s;
	size_t i;
	int j;

	cpc_walk_events_all(cpc, &all, collect);
	CHECK(all.n > 0);
	s = sorted(&all);
	CHECK(contains(&s, "task-clock"));
	CHECK(contains(&s, "page-faults"));
	CHECK(contains(&s, "context-switches"));
	for (j = 1; j < s.n; j++)
		CHECK(strcmp(s.name[j - 1], s.name[j]) != 0);
	for (j = 0; j < all.n; j++)
		CHECK(strncmp(all.name[j], "PAPI", 4) != 0);

	/* Every counter takes every listed event, in the same order. */
	cpc_walk_events_pic(cpc, 0, &pic, collect_pic);
	cpc_walk_events_pic(cpc, cpc_npic(cpc) - 1, &last, collect_pic);
	CHECK(pic.n == all.n && last.n == all.n);
	for (j = 0; j < all.n && j < pic.n && j < last.n; j++) {
		CHECK(strcmp(all.name[j], pic.name[j]) == 0);
		CHECK(strcmp(all.name[j], last.name[j]) == 0);
	}

	/* A counter past the last: no event, and EINVAL. */
	names_free(&last);
	errno = 0;
	cpc_walk_events_pic(cpc, cpc_npic(cpc), &last, collect_pic);
	CHECK(last.n == 0 && errno == EINVAL);
	errno = 0;
	cpc_walk_generic_events_pic(cpc, cpc_npic(cpc), &last, collect_pic);
	CHECK(last.n == 0 && errno == EINVAL);

	cpc_walk_generic_events_all(cpc, &generic, collect);
	for (j = 0; j < generic.n; j++)
		CHECK(strncmp(generic.name[j], "PAPI", 4) == 0);
	if (cpc_pmu_name(cpc) == NULL) {
		for (i = 0;
		     i < sizeof(hardware_names) / sizeof(hardware_names[0]);
		     i++) {
			if (contains(&s, hardware_names[i]))
				fprintf(stderr, "hardware event listed: %s\n",
				    hardware_names[i]);
			CHECK(!contains(&s, hardware_names[i]));
		}
		CHECK(generic.n == 0);
		names_free(&pic);
		cpc_walk_generic_events_pic(cpc, 0, &pic, collect_pic);
		CHECK(pic.n == 0);
	} else {
		printf("note: PMU '%s' present: %d events, %d generic\n",
		    cpc_pmu_name(cpc), all.n, generic.n);
	}
	free(s.name);
	walked_are_accepted(cpc, &all);
	for (j = 0; j < generic.n; j++)
		check_openable(cpc, generic.name[j]);
	kinds_walked(cpc, &all, &generic);
	names_free(&all);
	names_free(&pic);
	names_free(&last);
	names_free(&generic);
}

/* Every attribute listed is one a request may name. */
static void
attrs(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	struct names l = { 0 };
	cpc_attr_t attr;
	int i;

	cpc_walk_attrs(cpc, &l, collect);
	CHECK(l.n >= 1);
	if (l.n >= 1)
		CHECK(strcmp(l.name[l.n - 1], "picnum") == 0);
	for (i = 0; i < l.n; i++) {
		CHECK(strlen(l.name[i]) > 0 &&
		    strlen(l.name[i]) < CPC_MAX_ATTR_LEN);
		attr.ca_name = l.name[i];
		attr.ca_val = 0;
		CHECK(cpc_set_add_request(cpc, set, "page-faults", 0,
			  CPC_COUNT_USER, 1, &attr) == i);
	}
	printf("%d attributes, the last picnum\n", l.n);
	cpc_set_destroy(cpc, set);
	names_free(&l);
}

static void
handle_facts(cpc_t *cpc)
{
	uint_t caps = cpc_caps(cpc);

	CHECK(cpc_npic(cpc) >= 8);
	CHECK(caps & CPC_CAP_OVERFLOW_INTERRUPT);
	CHECK(caps & CPC_CAP_OVERFLOW_PRECISE);
	CHECK(cpc_cciname(cpc) != NULL && cpc_cciname(cpc)[0] != '\0');
	CHECK(cpc_cpuref(cpc) != NULL && cpc_cpuref(cpc)[0] != '\0');
	CHECK(strlen(cpc_cciname(cpc)) < CPC_MAX_IMPL_NAME);
	CHECK(strlen(cpc_cpuref(cpc)) < CPC_MAX_CPUREF);
	if (cpc_pmu_name(cpc) == NULL)
		CHECK(strstr(cpc_cciname(cpc), "no hardware PMU") != NULL);
	else
		CHECK(strstr(cpc_cciname(cpc), cpc_pmu_name(cpc)) != NULL);
	printf("cciname: %s\n", cpc_cciname(cpc));
}

/* perf's aliases, by the names perf documents them for. */
static void
canonical_names(cpc_t *cpc)
{
	static const char *const pairs[][2] = {
		{ "cs", "context-switches" },
		{ "faults", "page-faults" },
		{ "migrations", "cpu-migrations" },
		{ "cycles", "cpu-cycles" },
		{ "branches", "branch-instructions" },
		{ "idle-cycles-backend", "stalled-cycles-backend" },
		{ "cs:uk", "context-switches:uk" },
		{ "cycles:k", "cpu-cycles:k" },
		{ "context-switches", "context-switches" },
		{ "syscalls:sys_enter_write", "syscalls:sys_enter_write" },
		{ "PAPI_tot_ins", "PAPI_tot_ins" },
		{ "no-such-event", "no-such-event" },
	};
	char name[CPC_MAX_EVENT_LEN], small[4];
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		CHECK(cpc_event_canonical(
			  cpc, pairs[i][0], name, sizeof(name)) == 0);
		CHECK(strcmp(name, pairs[i][1]) == 0);
	}
	errno = 0;
	CHECK(cpc_event_canonical(cpc, "", name, sizeof(name)) == -1 &&
	    errno == EINVAL);
	errno = 0;
	CHECK(cpc_event_canonical(cpc, "cs", small, sizeof(small)) == -1 &&
	    errno == ERANGE);
}

/* root/rel, made a directory, or root/rel/name written with text. */
static bool
tree_put(const char *root, const char *rel, const char *name, const char *text)
{
	char path[700];
	FILE *f;
	bool ok;

	if (name == NULL) {
		snprintf(path, sizeof(path), "%s/%s", root, rel);
		return mkdir(path, 0755) == 0;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", root, rel, name);
	if ((f = fopen(path, "w")) == NULL)
		return false;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

/* The first CPU this process may run on, as a cpumask names it. */
static int
first_allowed_cpu(void)
{
	cpu_set_t cpus;
	int cpu;

	if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
		return 0;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &cpus))
			return cpu;
	return 0;
}

/* The host's PMUs but msr, linked into the tree's PMU directory. */
static bool
link_host_pmus(const char *root)
{
	char from[600], to[600];
	struct dirent *d;
	DIR *dp;
	bool ok = true;

	if ((dp = opendir(HOST_PMUS)) == NULL)
		return false;
	while ((d = readdir(dp)) != NULL && ok) {
		if (d->d_name[0] == '.' || strcmp(d->d_name, "msr") == 0)
			continue;
		snprintf(from, sizeof(from), "%s/%s", HOST_PMUS, d->d_name);
		snprintf(to, sizeof(to), "%s/" DEVICES "/%s", root, d->d_name);
		ok = symlink(from, to) == 0;
	}
	closedir(dp);
	return ok;
}

/* The msr PMU's type, as its sysfs file gives it, or SKIP. */
static void
msr_type(char *type, size_t size)
{
	FILE *f;

	if ((f = fopen(HOST_PMUS "/msr/type", "r")) == NULL)
		SKIP("no msr PMU here to stand for a socket PMU");
	if (fgets(type, (int)size, f) == NULL)
		type[0] = '\0';
	fclose(f);
}

/*
 * A host that lists a socket PMU, as a RAPL machine lists power with
 * energy-psys: this machine's PMUs, and in msr's place a PMU called power
 * of msr's type, whose cpumask names one CPU and whose one event is the
 * TSC. The kernel would count that for a thread too, so only the
 * library's own refusal fails a thread's binding of it; on its CPU the
 * kernel counts it. Returns the tree's /sys, or NULL.
 */
static const char *
socket_pmu_tree(void)
{
	static char root[256];
	char type[32], cpu[32];

	msr_type(type, sizeof(type));
	snprintf(cpu, sizeof(cpu), "%d\n", first_allowed_cpu());
	snprintf(root, sizeof(root), "%s/cpc_walk.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(root) == NULL || !tree_put(root, "bus", NULL, NULL) ||
	    !tree_put(root, "bus/event_source", NULL, NULL) ||
	    !tree_put(root, DEVICES, NULL, NULL) || !link_host_pmus(root) ||
	    !tree_put(root, DEVICES "/power", NULL, NULL) ||
	    !tree_put(root, DEVICES "/power", "type", type) ||
	    !tree_put(root, DEVICES "/power", "cpumask", cpu) ||
	    !tree_put(root, DEVICES "/power/format", NULL, NULL) ||
	    !tree_put(
		root, DEVICES "/power/format", "event", "config:0-63\n") ||
	    !tree_put(root, DEVICES "/power/events", NULL, NULL) ||
	    !tree_put(
		root, DEVICES "/power/events", "energy-psys", "event=0x00\n"))
		return NULL;
	return root;
}

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

/* The tree made and read in place of the host's PMUs (before cpc_open). */
static const char *
use_socket_pmu_tree(void)
{
	const char *root = socket_pmu_tree();

	if (root == NULL) {
		fprintf(
		    stderr, "cannot make a PMU tree: %s\n", strerror(errno));
		exit(1);
	}
	cpclib_set_sysfs_root(root, -1);
	snprintf(pmu_dir, sizeof(pmu_dir), "%s/" DEVICES, root);
	return root;
}

/*
 * With --socket-pmu, the host's PMUs with a socket PMU among them
 * (socket_pmu_tree): its event is walked, refused for a thread and
 * counted on its CPU like any other socket PMU's.
 */
int
main(int argc, char **argv)
{
	const char *tree = NULL;
	struct rlimit rl;
	cpc_t *cpc;

	if (argc > 1 && strcmp(argv[1], "--socket-pmu") == 0)
		tree = use_socket_pmu_tree();
	/* One kept reference per tracepoint bound: room for them. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	(void)tracefs_ready();
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		CHECK(cpc != NULL);
		return check_report("test_cpc_walk");
	}
	handle_facts(cpc);
	canonical_names(cpc);
	attrs(cpc);
	events_all(cpc);
	cpc_close(cpc);
	printf("%d events of socket PMUs walked\n", socket_events);
	if (tree != NULL) {
		CHECK(socket_events == 1);
		(void)nftw(tree, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	}
	return check_report("test_cpc_walk");
}
