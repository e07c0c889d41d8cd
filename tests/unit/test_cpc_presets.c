/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Solaris names, complete. On every core PMU libpfm4 knows (forced one
 * at a time with LIBPFM_FORCE_PMU, in a process of its own: libpfm4
 * reads it once), every generic PAPI_* name of illumos's list, and
 * PAPI's later presets, either counts with the native events PAPI's
 * preset tables name for that CPU, derived presets as one request of
 * several weighted events, or says in one line why it has no
 * equivalent there; none is unknown. Each event is checked against
 * libpfm4's own encoding of the native name, and some facts of PAPI's
 * tables are checked as such.
 *
 * UltraSPARC names map to their nearest Linux event, with a note, or say
 * why not. A derived request counts the weighted sum of its events, in
 * cpc_buf arithmetic too, and cannot ask for overflow (real tracepoint
 * counts stand in for hardware events here).
 */
#include <ctype.h>
#include <fcntl.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "test_cpc.h"
#include "../../libcpc/evname.h"

static const char *const generic[] = {
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
	/* The platform tables' additions, and PAPI's later presets. */
	"PAPI_br_tkn",
	"PAPI_tlb_tm",
	"PAPI_stl_icy",
	"PAPI_fp_ins",
	"PAPI_ref_cyc",
	"PAPI_sp_ops",
	"PAPI_dp_ops",
	"PAPI_vec_sp",
	"PAPI_vec_dp",
	"PAPI_hp_ops",
	"PAPI_vec_hp",
};

/* Facts of PAPI's tables (papi_events.csv), read there, checked here. */
static const struct {
	const char *pmu, *name, *expr;
} facts[] = {
	{ "skl", "PAPI_tot_ins", "INST_RETIRED:ANY_P" },
	{ "skl", "PAPI_br_prc",
	    "BR_INST_RETIRED:CONDITIONAL - BR_MISP_RETIRED:CONDITIONAL" },
	{ "skx", "PAPI_dp_ops",
	    "FP_ARITH:SCALAR_DOUBLE + "
	    "2*FP_ARITH:128B_PACKED_DOUBLE + 4*FP_ARITH:256B_PACKED_DOUBLE + "
	    "8*FP_ARITH:512B_PACKED_DOUBLE" },
	{ "amd64_k8_revb", "PAPI_l1_dch",
	    "DATA_CACHE_ACCESSES - DATA_CACHE_MISSES" },
	{ "amd64_fam17h_zen1", "PAPI_tot_cyc", "CYCLES_NOT_IN_HALT" },
	{ "amd64_fam17h_zen1", "PAPI_tlb_im",
	    "L1_ITLB_MISS_L2_ITLB_HIT + "
	    "L1_ITLB_MISS_L2_ITLB_MISS:IF1G:IF2M:IF4K" },
	{ "amd64_fam17h_zen2", "PAPI_l1_dca",
	    "perf::PERF_COUNT_HW_CACHE_L1D:ACCESS" },
};

/* The table's one expression for a preset on a PMU; NULL if none. */
static const char *
table_expr(const char *preset, const char *pmu)
{
	const char *found = NULL, *p, *list;
	size_t i, n = strlen(pmu);

	for (i = 0; i < cpclib_npapi_presets; i++) {
		if (strcasecmp(cpclib_papi_presets[i].preset, preset) != 0)
			continue;
		list = cpclib_papi_presets[i].pmus;
		for (p = list; (p = strstr(p, pmu)) != NULL; p += n) {
			if ((p != list && p[-1] != ' ') ||
			    (p[n] != '\0' && p[n] != ' '))
				continue;
			/* One definition per preset and PMU. */
			CHECK(found == NULL);
			found = cpclib_papi_presets[i].expr;
		}
	}
	return found;
}

/* libpfm4's own encoding of pmu::native, or of our name for perf::. */
static bool
pfm_config(cpc_t *cpc, const char *pmu, const char *native, uint64_t *config,
    uint32_t *type)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	struct ev_entry_view v;
	char name[600];

	if (strncmp(native, "perf::", 6) == 0) {
		/* libpfm4's perf PMU is not active when a PMU is forced. */
		if (!cpclib_event_view(cpc, native, &v) || v.enc.nterms != 1)
			return false;
		*config = v.enc.term[0].attr.config;
		*type = v.enc.term[0].attr.type;
		return true;
	}
	snprintf(name, sizeof(name), strstr(native, "::") ? "%s%s" : "%s::%s",
	    strstr(native, "::") ? "" : pmu, native);
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(
		name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return false;
	*config = attr.config;
	*type = attr.type;
	return true;
}

struct tally {
	int maps, derived, weighted, none, lacking, generic;
};

/* Whether PAPI's tables have a section for this PMU at all. */
static bool
covered(const char *pmu)
{
	size_t i, n = strlen(pmu);
	const char *p, *list;

	for (i = 0; i < cpclib_npapi_presets; i++) {
		list = cpclib_papi_presets[i].pmus;
		for (p = list; (p = strstr(p, pmu)) != NULL; p += n)
			if ((p == list || p[-1] == ' ') &&
			    (p[n] == '\0' || p[n] == ' '))
				return true;
	}
	return false;
}

/* Every term of expr, with its weight, against the name's encoding. */
static bool
terms_match(cpc_t *cpc, const char *pmu, const char *name, const char *expr,
    const struct ev_entry_view *v, bool *lacking)
{
	char copy[1024], *tok, *rest, *star;
	int sign = 1, coef, t = 0;
	uint64_t config;
	uint32_t type;

	*lacking = false;
	strlcpy(copy, expr, sizeof(copy));
	for (rest = copy; (tok = strsep(&rest, " ")) != NULL;) {
		if (strcmp(tok, "+") == 0 || strcmp(tok, "-") == 0) {
			sign = tok[0] == '-' ? -1 : 1;
			continue;
		}
		coef = 1;
		if ((star = strchr(tok, '*')) != NULL) {
			coef = atoi(tok);
			tok = star + 1;
		}
		if (!pfm_config(cpc, pmu, tok, &config, &type)) {
			*lacking = true; /* this libpfm4 lacks it */
			return true;
		}
		if (t >= v->enc.nterms ||
		    v->enc.term[t].attr.config != config ||
		    v->enc.term[t].sign != sign * coef ||
		    (type != PERF_TYPE_RAW &&
			v->enc.term[t].attr.type != type)) {
			fprintf(stderr, "%s on %s: term %d is not %s (%d)\n",
			    name, pmu, t, tok, sign * coef);
			return false;
		}
		t++;
		sign = 1;
	}
	return t == v->enc.nterms;
}

static bool
weighted(const struct ev_entry_view *v)
{
	int t;

	for (t = 0; t < v->enc.nterms; t++)
		if (v->enc.term[t].sign != 1 && v->enc.term[t].sign != -1)
			return true;
	return false;
}

static void
check_generic(cpc_t *cpc, const char *pmu, const char *name, struct tally *tl)
{
	struct ev_entry_view v;
	const char *expr;
	bool lacking;
	char upper[32];
	size_t i;

	for (i = 0; i + 1 < sizeof(upper) && name[i] != '\0'; i++)
		upper[i] = (char)toupper((unsigned char)name[i]);
	upper[i] = '\0';
	expr = table_expr(upper, pmu);
	CHECK(cpclib_event_view(cpc, name, &v));
	CHECK(v.status != CPC_EVENT_UNKNOWN);
	CHECK(v.kind != NULL && strcmp(v.kind, "generic") == 0);
	if (expr == NULL &&
	    (strcmp(upper, "PAPI_TOT_CYC") == 0 ||
		strcmp(upper, "PAPI_TOT_INS") == 0)) {
		/* PAPI gives every CPU these, as perf's generic events. */
		CHECK(v.enc.nterms == 1 &&
		    v.enc.term[0].attr.type == PERF_TYPE_HARDWARE);
		tl->maps++;
		return;
	}
	if (expr == NULL && !covered(pmu) &&
	    v.status != CPC_EVENT_NO_EQUIVALENT) {
		/* A CPU PAPI's tables leave out: perf's generic events. */
		CHECK(v.enc.nterms == 1 &&
		    (v.enc.term[0].attr.type == PERF_TYPE_HARDWARE ||
			v.enc.term[0].attr.type == PERF_TYPE_HW_CACHE));
		tl->generic++;
		return;
	}
	if (expr == NULL) {
		if (v.status != CPC_EVENT_NO_EQUIVALENT ||
		    strstr(v.why, "no equivalent on this CPU") == NULL)
			fprintf(stderr, "%s on %s: %d '%s'\n", name, pmu,
			    v.status, v.why);
		CHECK(v.status == CPC_EVENT_NO_EQUIVALENT);
		CHECK(strstr(v.why, "no equivalent on this CPU") != NULL);
		tl->none++;
		return;
	}
	CHECK(v.desc != NULL && strstr(v.desc, expr) != NULL);
	if (v.status == CPC_EVENT_UNSUPPORTED &&
	    strstr(v.why, "libpfm4 cannot encode") != NULL) {
		/* Then libpfm4 itself refuses one of PAPI's events here. */
		CHECK(!terms_match(cpc, pmu, name, expr, &v, &lacking) ||
		    lacking);
		tl->lacking++;
		return;
	}
	CHECK(v.status == CPC_EVENT_NO_PMU || v.status == CPC_EVENT_COUNTABLE ||
	    v.status == CPC_EVENT_NO_PERMISSION);
	if (!terms_match(cpc, pmu, name, expr, &v, &lacking))
		CHECK(!"each term is PAPI's event, with PAPI's weight");
	tl->maps++;
	tl->derived += v.enc.nterms > 1;
	tl->weighted += weighted(&v);
	if (v.status == CPC_EVENT_NO_PMU)
		CHECK(strstr(v.why, "no hardware counters") != NULL);
}

/* In a process where libpfm4 takes this CPU to be pmu. */
static int
child_pmu(const char *pmu)
{
	struct tally tl = { 0 };
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	struct ev_entry_view v;
	const char *name;
	size_t i;

	CHECK(cpc != NULL);
	if (cpc == NULL)
		return check_report(pmu);
	name = cpclib_pfm_pmu_name(cpc);
	CHECK(name != NULL && strcmp(name, pmu) == 0);
	for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		check_generic(cpc, pmu, generic[i], &tl);
	for (i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		if (strcmp(facts[i].pmu, pmu) != 0)
			continue;
		CHECK(cpclib_event_view(cpc, facts[i].name, &v));
		CHECK(v.desc != NULL && strstr(v.desc, facts[i].expr) != NULL);
	}
	if (covered(pmu))
		printf("%s: %d of %zu generic names map as PAPI's tables say "
		       "(%d derived, %d weighted), %d have none there, %d name "
		       "events this libpfm4 lacks\n",
		    pmu, tl.maps, sizeof(generic) / sizeof(generic[0]),
		    tl.derived, tl.weighted, tl.none, tl.lacking);
	else
		printf("%s: not in PAPI's tables: %d generic names map to "
		       "perf's generic events, %d have none\n",
		    pmu, tl.maps + tl.generic, tl.none);
	CHECK(tl.maps + tl.none + tl.lacking + tl.generic ==
	    (int)(sizeof(generic) / sizeof(generic[0])));
	cpc_close(cpc);
	return check_failures == 0 ? 0 : 1;
}

/*
 * libpfm4's core PMUs, every one, whatever the host: listed with none
 * forced (libpfm4 stops mapping its PMUs at the one forced, or at the
 * host's where a model is given), and libpfm4 left as it was found, for
 * cpc_open to initialize as the host has it.
 */
static int
core_pmus(const char **names, int max)
{
	const char *given = getenv("LIBPFM_FORCE_PMU");
	char *saved = given != NULL ? strdup(given) : NULL;
	pfm_pmu_info_t info;
	pfm_pmu_t p;
	int n = 0;

	(void)setenv("LIBPFM_FORCE_PMU", "none", 1);
	if (pfm_initialize() == PFM_SUCCESS)
		for (p = PFM_PMU_NONE; p < PFM_PMU_MAX && n < max; p++) {
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS &&
			    info.type == PFM_PMU_TYPE_CORE)
				names[n++] = info.name;
		}
	pfm_terminate();
	if (saved != NULL)
		(void)setenv("LIBPFM_FORCE_PMU", saved, 1);
	else
		(void)unsetenv("LIBPFM_FORCE_PMU");
	free(saved);
	return n;
}

static void
every_pmu(const char *const *names, int n)
{
	char self[4096], *argv[4];
	int status, i;
	ssize_t len;
	pid_t pid;

	if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		return;
	self[len] = '\0';
	for (i = 0; i < n; i++) {
		fflush(stdout);
		if ((pid = fork()) == 0) {
			setenv("LIBPFM_FORCE_PMU", names[i], 1);
			argv[0] = self;
			argv[1] = "--pmu";
			argv[2] = (char *)names[i];
			argv[3] = NULL;
			execv(self, argv);
			_exit(127);
		}
		CHECK(waitpid(pid, &status, 0) == pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fprintf(stderr, "%s: failed\n", names[i]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK(n > 0);
	printf("%d core PMUs of libpfm4 checked\n", n);
}

/* UltraSPARC names: the nearest event and a note, or why there is none. */
static void
ultrasparc(cpc_t *cpc)
{
	struct ev_entry_view v;
	char note[300];
	size_t i;

	for (i = 0; i < cpclib_sparc_count(); i++) {
		const char *name = cpclib_sparc_name(i);

		CHECK(cpclib_event_view(cpc, name, &v));
		CHECK(v.status != CPC_EVENT_UNKNOWN);
		CHECK(strcmp(v.kind, "ultrasparc") == 0);
		if (v.status == CPC_EVENT_NO_EQUIVALENT)
			CHECK(
			    strstr(v.why, "no equivalent on this CPU") != NULL);
		if (v.status == CPC_EVENT_COUNTABLE &&
		    strcmp(name, "Cycle_cnt") != 0 &&
		    strcmp(name, "Instr_cnt") != 0)
			CHECK(
			    cpc_event_note(cpc, name, note, sizeof(note)) == 1);
	}
	CHECK(cpclib_event_view(cpc, "EC_hit", &v));
	CHECK(v.enc.nterms == 2);
	if (v.enc.nterms == 2) {
		CHECK(v.enc.term[0].attr.type == PERF_TYPE_HARDWARE);
		CHECK(v.enc.term[0].attr.config ==
		    PERF_COUNT_HW_CACHE_REFERENCES);
		CHECK(v.enc.term[0].sign == 1);
		CHECK(v.enc.term[1].attr.config == PERF_COUNT_HW_CACHE_MISSES &&
		    v.enc.term[1].sign == -1);
	}
	CHECK(cpclib_event_view(cpc, "EC_ref", &v));
	CHECK(v.enc.nterms == 1 &&
	    v.enc.term[0].attr.config == PERF_COUNT_HW_CACHE_REFERENCES);
	if (cpc_pmu_name(cpc) == NULL) {
		CHECK(v.status == CPC_EVENT_NO_PMU);
		CHECK(
		    strstr(v.why,
			"counted as LLC references "
			"(cache-references)), and this kernel has no hardware "
			"counters") != NULL);
	} else if (v.status == CPC_EVENT_COUNTABLE) {
		CHECK(cpc_event_note(cpc, "EC_ref", note, sizeof(note)) == 1);
		CHECK(
		    strstr(note, "EC_ref: counted as LLC references") == note);
	}
}

static int devnull = -1;

/*
 * A derived request as the library counts it: two tracepoints stand in
 * for two hardware events (writes - getpids), weighed +1 and -1.
 */
static void
derived(cpc_t *cpc)
{
	struct ev_entry_view w, g;
	struct cpc_event_term terms[2];
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *a, *b, *d;
	uint64_t v = 0, plain = 0;
	int i;

	if (!tracefs_ready() ||
	    !cpclib_event_view(cpc, "syscalls:sys_enter_write", &w) ||
	    !cpclib_event_view(cpc, "syscalls:sys_enter_getpid", &g) ||
	    w.status != CPC_EVENT_COUNTABLE ||
	    g.status != CPC_EVENT_COUNTABLE) {
		printf("note: no tracepoints: derived counts skipped\n");
		cpc_set_destroy(cpc, set);
		return;
	}
	terms[0] = w.enc.term[0];
	terms[1] = g.enc.term[0];
	terms[0].sign = 1;
	terms[1].sign = -1;
	CHECK(cpc_set_add_request(cpc, set, "syscalls:sys_enter_write", 0,
		  CPC_COUNT_USER, 0, NULL) == 0);
	CHECK(cpc_set_add_request(cpc, set, "syscalls:sys_enter_write", 0,
		  CPC_COUNT_USER, 0, NULL) == 1);
	set->reqs[0].enc.term = terms;
	set->reqs[0].enc.nterms = 2;
	a = cpc_buf_create(cpc, set);
	b = cpc_buf_create(cpc, set);
	d = cpc_buf_create(cpc, set);
	CHECK(cpc_set_check(cpc, set, -1) == 0);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	CHECK(cpc_set_sample(cpc, set, a) == 0);
	for (i = 0; i < 50; i++)
		CHECK(write(devnull, "x", 1) == 1);
	for (i = 0; i < 20; i++)
		(void)syscall(SYS_getpid);
	CHECK(cpc_set_sample(cpc, set, b) == 0);
	cpc_buf_sub(cpc, d, b, a);
	cpc_buf_get(cpc, d, 0, &v);
	cpc_buf_get(cpc, d, 1, &plain);
	CHECK_EQ_U64(v, 30);
	CHECK_EQ_U64(plain, 50);
	cpc_buf_add(cpc, d, d, d);
	cpc_buf_get(cpc, d, 0, &v);
	CHECK_EQ_U64(v, 60);
	CHECK(cpc_unbind(cpc, set) == 0);
	/* No single counter to overflow: refused, at check and at bind. */
	set->reqs[0].preset = UINT64_MAX - 9;
	set->reqs[0].flags |= CPC_OVF_NOTIFY_EMT;
	/* Changed behind the API: what the set knew of its requests goes. */
	set->asks_overflow = true;
	set->prepared = false;
	forget_error();
	CHECK(cpc_set_check(cpc, set, -1) == 1);
	CHECK(strstr(last_error.msg,
		  "counted as the sum of 2 events, so it "
		  "has no single counter to overflow") != NULL);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == -1 && errno == ENOTSUP);
	cpc_buf_destroy(cpc, a);
	cpc_buf_destroy(cpc, b);
	cpc_buf_destroy(cpc, d);
	cpc_set_destroy(cpc, set);
	printf("derived writes - getpids: 30, exact\n");
}

int
main(int argc, char **argv)
{
	static const char *names[PFM_PMU_MAX];
	cpc_t *cpc;
	int n;

	if (argc == 3 && strcmp(argv[1], "--pmu") == 0)
		return child_pmu(argv[2]);
	n = core_pmus(names, PFM_PMU_MAX);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open failed: %s", strerror(errno));
	devnull = open("/dev/null", O_WRONLY);
	(void)cpc_seterrhndlr(cpc, recording_handler);
	every_pmu(names, n);
	ultrasparc(cpc);
	derived(cpc);
	cpc_close(cpc);
	return check_report("test_cpc_presets");
}
