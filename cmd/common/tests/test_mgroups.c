/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The metric groups' table (mgroups_table.c): every formula compiles and
 * reads only its group's events; each variant's metrics give, for known
 * counts, the values worked out by hand below from the vendors'
 * definitions (cmd/common/SOURCES); and -M's choice of variant on this
 * machine, whose kernel counts software events only.
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "derived.h"
#include "mgroups.h"

#define MAX_REQS 16

/* A counter's value by the name rows give it. */
struct count {
	const char *name;
	double value;
};

/* perf's canonical names of the generic events the groups' specs use. */
static const char *
canonical(const char *ev)
{
	if (strcmp(ev, "cycles") == 0)
		return "cpu-cycles";
	if (strcmp(ev, "branches") == 0)
		return "branch-instructions";
	return ev;
}

/* The variant of name that counts an event named ev, or NULL. */
static const struct mgroup *
variant(const char *name, const char *ev)
{
	const char *pos;
	char e[128];
	int i;

	for (i = 0; i < mgroup_ntable; i++) {
		if (strcmp(mgroup_table[i].name, name) != 0)
			continue;
		pos = NULL;
		while (mgroup_next_event(&mgroup_table[i], &pos, e, sizeof(e)))
			if (strcmp(canonical(e), ev) == 0)
				return &mgroup_table[i];
	}
	return NULL;
}

/* The last variant of name: the table's most general. */
static const struct mgroup *
last_variant(const char *name)
{
	const struct mgroup *g = NULL;
	int i;

	for (i = 0; i < mgroup_ntable; i++)
		if (strcmp(mgroup_table[i].name, name) == 0)
			g = &mgroup_table[i];
	return g;
}

/*
 * g planned on a set of its own events, fed counts over elapsed ns
 * (#slots: slots), gives each key its want, to 1e-9.
 */
static void
check_group(const struct mgroup *g, const struct count *counts, int ncounts,
    uint64_t elapsed, double slots, const char *const *keys, const double *want,
    int nkeys)
{
	struct spec_req reqs[MAX_REQS];
	uint64_t values[MAX_REQS];
	struct spec spec = { 0 };
	struct derived_set ds;
	const char *pos = NULL;
	char ev[MAX_REQS][128];
	double v;
	int n = 0, i, k, u;

	CHECK(g != NULL);
	if (g == NULL)
		return;
	memset(reqs, 0, sizeof(reqs));
	while (
	    n < MAX_REQS && mgroup_next_event(g, &pos, ev[n], sizeof(ev[n]))) {
		reqs[n].name = (char *)canonical(ev[n]);
		values[n] = 0;
		for (i = 0; i < ncounts; i++)
			if (strcmp(counts[i].name, reqs[n].name) == 0)
				values[n] = (uint64_t)counts[i].value;
		n++;
	}
	spec.reqs = reqs;
	spec.nreqs = n;
	CHECK(derived_plan(&spec, &g, 1, &ds) == 0);
	ds.slots = slots;
	/* Every metric of the group, each once: its events are all there. */
	CHECK(ds.nuses == g->nmetrics);
	CHECK(nkeys == g->nmetrics);
	for (k = 0; k < nkeys; k++) {
		for (u = 0; u < ds.nuses; u++)
			if (strcmp(ds.uses[u].key, keys[k]) == 0)
				break;
		check_count++;
		if (u == ds.nuses ||
		    !derived_value(&ds, &ds.uses[u], values, elapsed, &v) ||
		    fabs(v - want[k]) >
			1e-9 * (fabs(want[k]) > 1 ? fabs(want[k]) : 1)) {
			check_failures++;
			fprintf(stderr, "%s (%s) %s: %g, expected %g\n",
			    g->name, g->applies, keys[k],
			    u < ds.nuses ? v : NAN, want[k]);
		}
	}
	derived_free(&ds);
}

#define NC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const l1_keys[] = { "tma_retiring", "tma_bad_speculation",
	"tma_frontend_bound", "tma_backend_bound" };

/*
 * Ice Lake and later: each topdown-* is its share of slots. 1000 slots:
 * 400 retiring, 100 bad speculation, 200 front end, 300 back end.
 */
static void
topdown_l1_intel_slots(void)
{
	static const struct count c[] = { { "slots", 1000 },
		{ "topdown-retiring", 400 }, { "topdown-bad-spec", 100 },
		{ "topdown-fe-bound", 200 }, { "topdown-be-bound", 300 } };
	static const double want[] = { 40, 10, 20, 30 };

	check_group(
	    variant("TopdownL1", "slots"), c, NC(c), 0, 0, l1_keys, want, 4);
}

/*
 * Skylake-X: 1000 cycles are 4000 slots. Retiring 1600 / 4000 = 40%.
 * Bad speculation (2000 issued - 1600 retired + 4 * 50 recovery cycles)
 * = 600 / 4000 = 15%. Front end 800 / 4000 = 20%. Back end the rest:
 * 100 - 100 * (800 + 2000 + 200) / 4000 = 25%.
 */
static const struct count skl_counts[] = { { "cpu-cycles", 1000 },
	{ "UOPS_ISSUED:ANY", 2000 }, { "UOPS_RETIRED:RETIRE_SLOTS", 1600 },
	{ "IDQ_UOPS_NOT_DELIVERED:CORE", 800 },
	{ "INT_MISC:RECOVERY_CYCLES", 50 },
	{ "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 150 },
	{ "BR_MISP_RETIRED:ALL_BRANCHES", 30 },
	{ "MACHINE_CLEARS:COUNT", 10 } };

static void
topdown_l1_skylake(void)
{
	static const double want[] = { 40, 15, 20, 25 };

	check_group(variant("TopdownL1", "UOPS_ISSUED:ANY"), skl_counts, 5, 0,
	    0, l1_keys, want, 4);
}

/*
 * Zen 4: 1000 cycles are 6000 dispatch slots. Retired ops 2400 = 40%;
 * (3000 dispatched - 2400 retired) = 600 = 10%; 1200 slots empty from
 * the front end = 20%; 1800 stalled by the back end = 30%.
 */
static void
topdown_l1_zen4(void)
{
	static const struct count c[] = { { "CYCLES_NOT_IN_HALT", 1000 },
		{ "RETIRED_OPS", 2400 },
		{ "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:"
		  "LOOP_BUFFER",
		    3000 },
		{ "DISPATCH_STALLS_1:FE_NO_OPS", 1200 },
		{ "DISPATCH_STALLS_1:BE_STALLS", 1800 } };
	static const double want[] = { 40, 10, 20, 30 };

	check_group(variant("TopdownL1", "RETIRED_OPS"), c, NC(c), 0, 0,
	    l1_keys, want, 4);
}

/*
 * Arm Neoverse, 5 slots a cycle: 1000 cycles are 5000 slots, 2000 of
 * them stalled, so 0.6 issued. 900 of 1000 speculated ops retired:
 * retiring 100 * 0.9 * 0.6 = 54%. Bad speculation 100 * (0.1 * 0.6 + 4
 * * 10 / 1000) = 10%. Front end 100 * (1000 / 5000 - 10 / 1000) = 19%.
 * Back end 100 * (1000 / 5000 - 3 * 10 / 1000) = 17%. They sum to 100.
 */
static void
topdown_l1_neoverse(void)
{
	static const struct count c[] = { { "cpu_cycles", 1000 },
		{ "stall_slot", 2000 }, { "stall_slot_frontend", 1000 },
		{ "stall_slot_backend", 1000 }, { "op_retired", 900 },
		{ "op_spec", 1000 }, { "br_mis_pred", 10 } };
	static const double want[] = { 54, 10, 19, 17 };

	check_group(variant("TopdownL1", "stall_slot"), c, NC(c), 0, 5, l1_keys,
	    want, 4);
}

/*
 * Golden Cove, 1000 slots: heavy 100 of retiring's 400 (10%, light
 * 30%); 70 of bad speculation's 100 mispredicts (7%, clears 3%); 150 of
 * the front end's 200 latency (15%, bandwidth 5%); 180 of the back
 * end's 300 memory (18%, core 12%).
 */
static void
topdown_l2_golden_cove(void)
{
	static const struct count c[] = { { "slots", 1000 },
		{ "topdown-retiring", 400 }, { "topdown-bad-spec", 100 },
		{ "topdown-fe-bound", 200 }, { "topdown-be-bound", 300 },
		{ "topdown-heavy-ops", 100 }, { "topdown-br-mispredict", 70 },
		{ "topdown-fetch-lat", 150 }, { "topdown-mem-bound", 180 } };
	static const char *const keys[] = { "tma_heavy_operations",
		"tma_light_operations", "tma_branch_mispredicts",
		"tma_machine_clears", "tma_fetch_latency",
		"tma_fetch_bandwidth", "tma_memory_bound", "tma_core_bound" };
	static const double want[] = { 10, 30, 7, 3, 15, 5, 18, 12 };

	check_group(
	    variant("TopdownL2", "slots"), c, NC(c), 0, 0, keys, want, 8);
}

/*
 * Skylake-X, the same counts as level 1: 150 cycles with no uop
 * delivered are 600 slots, 15% fetch latency, and the front end's other
 * 200 slots 5% bandwidth. Bad speculation's 600 slots (15%) split by 30
 * mispredicts of 40 mispredicts and clears: 11.25% and 3.75%.
 */
static void
topdown_l2_skylake(void)
{
	static const char *const keys[] = { "tma_fetch_latency",
		"tma_fetch_bandwidth", "tma_branch_mispredicts",
		"tma_machine_clears" };
	static const double want[] = { 15, 5, 11.25, 3.75 };

	check_group(variant("TopdownL2", "UOPS_ISSUED:ANY"), skl_counts,
	    NC(skl_counts), 0, 0, keys, want, 4);
}

/* 3e9 instructions in 1.5e9 cycles: 2 per cycle, 0.5 cycles each. */
static void
ipc_branch_cache(void)
{
	static const struct count ipc[] = { { "instructions", 3e9 },
		{ "cpu-cycles", 1.5e9 } };
	static const char *const ipc_keys[] = { "ipc", "cpi" };
	static const double ipc_want[] = { 2, 0.5 };
	/* 1e6 instructions, 2e5 branches, 4e3 of them mispredicted. */
	static const struct count br[] = { { "instructions", 1e6 },
		{ "branch-instructions", 2e5 }, { "branch-misses", 4e3 } };
	static const char *const br_keys[] = { "branch_miss_pct", "branch_mpki",
		"branch_pct" };
	static const double br_want[] = { 2, 4, 20 };
	/* 1e6 instructions, 5e4 LLC references, 1e4 misses. */
	static const struct count ca[] = { { "instructions", 1e6 },
		{ "cache-references", 5e4 }, { "cache-misses", 1e4 } };
	static const char *const ca_keys[] = { "cache_miss_pct", "cache_mpki" };
	static const double ca_want[] = { 20, 10 };

	check_group(variant("IPC", "instructions"), ipc, 2, 0, 0, ipc_keys,
	    ipc_want, 2);
	check_group(variant("Branch", "branch-misses"), br, 3, 0, 0, br_keys,
	    br_want, 3);
	check_group(variant("Cache", "cache-misses"), ca, 2 + 1, 0, 0, ca_keys,
	    ca_want, 2);
}

/*
 * Memory: 1.5e9 reads and 5e8 writes of 64-byte lines in 2 s: 48, 16
 * and 64 GB/s. Energy: RAPL counts 2^-32 J, so 100 * 2^32 is 100 J, 50 W
 * over 2 s; 20 * 2^32 is 20 J, 10 W; psys alike, 30 * 2^32 is 30 J,
 * 15 W.
 */
static void
uncore(void)
{
	static const struct count mem[] = { { "uncore_imc/cas_count_read/",
						1.5e9 },
		{ "uncore_imc/cas_count_write/", 5e8 } };
	static const char *const mem_keys[] = { "mem_read_gbs", "mem_write_gbs",
		"mem_total_gbs" };
	static const double mem_want[] = { 48, 16, 64 };
	static const struct count rapl[] = { { "power/energy-pkg/",
						 100.0 * 4294967296.0 },
		{ "power/energy-ram/", 20.0 * 4294967296.0 } };
	static const char *const rapl_keys[] = { "energy_pkg_j", "power_pkg_w",
		"energy_ram_j", "power_ram_w" };
	static const double rapl_want[] = { 100, 50, 20, 10 };
	static const struct count psys[] = { { "power/energy-psys/",
	    30.0 * 4294967296.0 } };
	static const char *const psys_keys[] = { "energy_psys_j",
		"power_psys_w" };
	static const double psys_want[] = { 30, 15 };

	check_group(variant("MemBW", "uncore_imc/cas_count_read/"), mem, 2,
	    2000000000, 0, mem_keys, mem_want, 3);
	check_group(variant("Energy", "power/energy-ram/"), rapl, 2, 2000000000,
	    0, rapl_keys, rapl_want, 4);
	/* The table keeps the psys-only variant last, after package-only. */
	check_group(last_variant("Energy") - 1, rapl, 1, 2000000000, 0,
	    rapl_keys, rapl_want, 2);
	check_group(variant("Energy", "power/energy-psys/"), psys, 1,
	    2000000000, 0, psys_keys, psys_want, 2);
	CHECK(
	    variant("Energy", "power/energy-psys/") == last_variant("Energy"));
}

/*
 * The table itself: Default first; every formula compiles and reads
 * only its variant's events (or #elapsed, #slots); a key means one
 * thing (one unit) in every variant of a group that gives it.
 */
static void
table(void)
{
	const struct mgroup *g, *first;
	struct mexpr e;
	char err[256], ev[128];
	const char *pos;
	bool found;
	int i, m, k, j, shared;

	CHECK(strcmp(mgroup_default()->name, "Default") == 0);
	CHECK(mgroup_default()->events == NULL);
	for (i = 0; i < mgroup_ntable; i++) {
		g = &mgroup_table[i];
		CHECK(
		    g->desc != NULL && g->applies != NULL && g->source != NULL);
		for (m = 0; m < g->nmetrics; m++) {
			CHECK(mexpr_compile(g->metrics[m].formula, &e, err,
				  sizeof(err)) == 0);
			CHECK(g->metrics[m].means != NULL);
			for (k = 0; g->events != NULL && k < e.nnames; k++) {
				found = e.names[k][0] == '#';
				pos = NULL;
				while (!found &&
				    mgroup_next_event(g, &pos, ev, sizeof(ev)))
					found = strcmp(canonical(ev),
						    e.names[k]) == 0;
				check_count++;
				if (!found) {
					check_failures++;
					fprintf(stderr, "%s: %s reads %s\n",
					    g->name, g->metrics[m].key,
					    e.names[k]);
				}
			}
		}
		for (first = NULL, j = 0; j < i && first == NULL; j++)
			if (strcmp(mgroup_table[j].name, g->name) == 0)
				first = &mgroup_table[j];
		/*
		 * A variant gives its group's metrics, or some of them (Energy
		 * without DRAM, MemBW without a read/write split), with the
		 * same units; or, sharing none of them, a domain the first
		 * variant's machines cannot be asked for in its place (Energy
		 * on a platform whose RAPL has only psys). Never a mix: a
		 * series keeps one meaning and a dashboard sees either the
		 * group's keys or the other domain's.
		 */
		shared = 0;
		for (m = 0; first != NULL && m < g->nmetrics; m++) {
			for (k = 0; k < first->nmetrics; k++)
				if (strcmp(first->metrics[k].key,
					g->metrics[m].key) == 0)
					break;
			if (k < first->nmetrics) {
				shared++;
				CHECK(strcmp(first->metrics[k].unit,
					  g->metrics[m].unit) == 0);
			}
		}
		CHECK(first == NULL || shared == 0 || shared == g->nmetrics);
		if (first != NULL && strcmp(g->name, "Energy") != 0 &&
		    strcmp(g->name, "TopdownL2") != 0 &&
		    strcmp(g->name, "MemBW") != 0)
			CHECK(first->nmetrics == g->nmetrics);
	}
	CHECK(mgroup_known("topdownl1") && mgroup_known("Default"));
	CHECK(!mgroup_known("TopdownL9"));
}

/* This machine: Default always, a hardware group never, and why. */
static void
this_machine(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	char why[1024] = "";

	CHECK(cpc != NULL);
	if (cpc == NULL)
		return;
	CHECK(mgroup_resolve(cpc, "default", why, sizeof(why)) ==
	    mgroup_default());
	CHECK(mgroup_resolve(cpc, "TopdownL9", why, sizeof(why)) == NULL);
	CHECK(strstr(why, "no such metric group") != NULL);
	if (cpc_event_status(cpc, "cycles", NULL, 0) != CPC_EVENT_NO_PMU) {
		printf("# a PMU counts here: the refusals are "
		       "test_pfm_models' to show\n");
	} else {
		CHECK(
		    mgroup_resolve(cpc, "TopdownL1", why, sizeof(why)) == NULL);
		CHECK(strstr(why, "slots: this kernel has no hardware PMU") !=
		    NULL);
		CHECK(mgroup_resolve(cpc, "IPC", why, sizeof(why)) == NULL);
		CHECK(strstr(why,
			  "cycles: a hardware event, and this kernel has "
			  "no hardware PMU") != NULL);
		CHECK(mgroup_resolve(cpc, "MemBW", why, sizeof(why)) == NULL);
		CHECK(strncmp(why,
			  "uncore_imc/cas_count_read/: no PMU "
			  "'uncore_imc'",
			  40) == 0);
	}
	CHECK(strchr(why, '\n') == NULL);
	/* No core PMU, or one that gives no slots per cycle: none. */
	CHECK(mgroup_core_slots(NULL) == 0);
	if (cpc_core_pmu(cpc, 0, NULL) == NULL)
		CHECK(mgroup_core_slots(cpc) == 0);
	cpc_close(cpc);
}

int
main(void)
{
	table();
	topdown_l1_intel_slots();
	topdown_l1_skylake();
	topdown_l1_zen4();
	topdown_l1_neoverse();
	topdown_l2_golden_cove();
	topdown_l2_skylake();
	ipc_branch_cache();
	uncore();
	this_machine();
	return check_report("test_mgroups");
}
