/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * metric_plan.c, metric_event.c and metric_eval.c: -M's plan on the
 * vendors' data, with no machine asked (event_kind NULL: every event a
 * core PMU's) or a fake one that answers from a table of names.
 *
 *  - names: a metric, a group, "all", No_group, in any case; a name only
 *    older perf releases gave the model (its legacy data); a name nothing
 *    knows, with the nearest names, in one line;
 *  - refusals: a metric that cannot be counted, or per thread one that
 *    counts a socket's PMU, in one line when named, a note when a group
 *    brought it;
 *  - grouping as perf groups: a metric's events one group, shared by a
 *    metric whose events it holds; NO_GROUP_EVENTS and MetricgroupNoGroup
 *    and --metric-no-group; a group the counters cannot hold broken up;
 *    each group in braces in the spec;
 *  - the tree: parents and TopDown levels; every threshold the data
 *    gives, or none (and none of its events) where it cannot count; a
 *    row's marks: crossed, hidden under a parent not crossed (unless
 *    every node is asked for), the bottleneck down the largest branch;
 *  - values: the plan bound to a set made by hand of its spec's events,
 *    and rows of counts worked out by hand (Skylake-SP's TopDown with SMT
 *    off, per thread with SMT on, and system-wide with every sibling;
 *    Ice Lake-X's from topdown-* and slots), the row's time, the boxes a
 *    count sums, and a row not counted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metric_model.h"
#include "metric_plan.h"
#include "spec.h"
#include "spec_items.h"

#define MAX_SHOWN 1024
#define NOTES_LEN (64 * 1024)
#define EPSILON	  1e-9

/* A machine that answers from tables of row names; any other a core's. */
struct fake {
	const char *const *unknown; /* NULL-terminated */
	const char *const *socket;
};

static bool
listed(const char *const *list, const char *name)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

static enum metric_event_kind
fake_kind(void *arg, const char *event, const char *name, char *why, size_t len)
{
	const struct fake *f = arg;

	(void)event;
	if (listed(f->unknown, name)) {
		snprintf(why, len, "not on the test's machine");
		return METRIC_EVENT_UNKNOWN;
	}
	return listed(f->socket, name) ? METRIC_EVENT_SOCKET :
					 METRIC_EVENT_CORE;
}

/* A machine's facts: SMT, and a run of CPUs (with every sibling) or not. */
static struct metric_env
env_of(const char *cpuid, bool smt, bool system_wide, bool siblings)
{
	struct metric_env env = { .smt_on = smt,
		.num_cpus = 56,
		.num_cpus_online = 56,
		.num_packages = 2,
		.num_dies = 2,
		.num_cores = smt ? 28 : 56,
		.system_wide = system_wide,
		.siblings_counted = system_wide && siblings };

	snprintf(env.cpuid, sizeof(env.cpuid), "%s", cpuid);
	return env;
}

#define SKX "GenuineIntel-6-55-4"
#define ICX "GenuineIntel-6-6A-6"

static char err[1024], notes[NOTES_LEN];

/* The plan of given for env's CPU: NULL with err set; notes set. */
static struct metric_plan *
plan(const struct metric_env *env, const struct metric_ask *given)
{
	struct metric_ask ask = *given;

	err[0] = '\0';
	if (ask.core_pmu == NULL)
		ask.core_pmu = "cpu";
	if (ask.modes == NULL)
		ask.modes = "";
	return metric_plan_new(metric_model_of(env->cpuid), env, &ask, err,
	    sizeof(err), notes, sizeof(notes));
}

/* Shown metric called name (on the core PMU's, or key), or -1. */
static int
index_of(const struct metric_plan *p, const char *name)
{
	int i;

	for (i = 0; i < metric_plan_nmetrics(p); i++)
		if (strcmp(metric_plan_metric(p, i)->key, name) == 0)
			return i;
	return -1;
}

/* Whether the plan shows exactly the names given (NULL-terminated). */
static bool
shows_exactly(const struct metric_plan *p, const char *const *names)
{
	int n = 0;

	for (; *names != NULL; names++, n++)
		if (index_of(p, *names) < 0) {
			fprintf(stderr, "%s: not shown\n", *names);
			return false;
		}
	if (metric_plan_nmetrics(p) != n)
		fprintf(stderr, "%d metrics shown, expected %d\n",
		    metric_plan_nmetrics(p), n);
	return metric_plan_nmetrics(p) == n;
}

/* The data's definition of a metric named name in model m, or NULL. */
static const struct metric_def *
def_in(const struct metric_model *m, const char *name)
{
	int i;

	for (i = 0; m != NULL && i < m->nmetrics; i++)
		if (strcmp(metric_str(metric_defs[m->metric0 + i].name),
			name) == 0)
			return &metric_defs[m->metric0 + i];
	return NULL;
}

/*
 * Whether the spec counts exactly the events names (NULL-terminated), each
 * in one group or more.
 */
static bool
events_exactly(const struct spec_items *it, const char *const *names)
{
	char row[256];
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (spec_item_find(it, names[i]) < 0) {
			fprintf(stderr, "%s: not counted\n", names[i]);
			return false;
		}
	for (i = 0; i < it->n; i++) {
		spec_item_name(it->text[i], row, sizeof(row));
		if (!listed(names, row)) {
			fprintf(stderr, "%s: counted too\n", row);
			return false;
		}
	}
	return true;
}

/* A count of an event by its row's name. */
struct count {
	const char *name;
	double value;
	double sources; /* boxes summed; 0: one */
};

/* A row: the plan bound to a set of its spec's events, made by hand. */
struct row {
	struct spec_items it;
	struct spec spec;
	struct spec_req reqs[SPEC_ITEMS_MAX];
	uint64_t values[SPEC_ITEMS_MAX];
	double sources[SPEC_ITEMS_MAX];
	struct metric_value out[MAX_SHOWN];
};

static struct row row;

/* Bind p to its own spec's events; 0, or -1 (said). */
static int
bind_row(struct metric_plan *p)
{
	int i;

	spec_items_split(metric_plan_spec(p), &row.it);
	memset(&row.spec, 0, sizeof(row.spec));
	row.spec.reqs = row.reqs;
	row.spec.nreqs = row.it.n;
	for (i = 0; i < row.it.n; i++) {
		memset(&row.reqs[i], 0, sizeof(row.reqs[i]));
		row.reqs[i].event = row.it.text[i];
		row.reqs[i].name = row.it.text[i];
		row.reqs[i].picnum = i;
	}
	if (metric_plan_bind(p, &row.spec, err, sizeof(err)) != 0) {
		fprintf(stderr, "bind: %s\n", err);
		return -1;
	}
	return 0;
}

/* A row of counts (each event of the set must have one) evaluated. */
static void
eval(struct metric_plan *p, const struct count *counts, double elapsed,
    bool use_sources, bool show_all)
{
	struct metric_counts in = { row.values, row.it.n,
		use_sources ? row.sources : NULL, 1, elapsed, true };
	const struct count *c;
	char name[256];
	int i;

	for (i = 0; i < row.it.n; i++) {
		spec_item_name(row.it.text[i], name, sizeof(name));
		for (c = counts; c->name != NULL; c++)
			if (strcmp(c->name, name) == 0)
				break;
		check_count++;
		if (c->name == NULL) {
			check_failures++;
			fprintf(stderr, "no count for %s\n", name);
		}
		row.values[i] = c->name != NULL ? (uint64_t)c->value : 0;
		row.sources[i] =
		    c->name != NULL && c->sources > 0 ? c->sources : 1;
	}
	metric_plan_eval(p, &in, show_all, row.out);
}

static double
value_of(const struct metric_plan *p, const char *name)
{
	int i = index_of(p, name);

	return i >= 0 ? row.out[i].value : NAN;
}

static void
check_value(const struct metric_plan *p, const char *name, double want)
{
	double got = value_of(p, name);

	check_count++;
	if (!(fabs(got - want) <= EPSILON * fabs(want) + EPSILON)) {
		check_failures++;
		fprintf(stderr, "%s: %.12g, expected %.12g\n", name, got, want);
	}
}

/* The names -M takes, and those it does not. */
static void
test_names(void)
{
	static const char *const l1[] = { "tma_backend_bound",
		"tma_bad_speculation", "tma_frontend_bound", "tma_retiring",
		NULL };
	static const char *const fe[] = { "tma_frontend_bound", NULL };
	struct metric_env env = env_of(SKX, true, true, true);
	const struct metric_model *skx = metric_model_named("skylakex");
	const struct metric_model *common = metric_model_common();
	struct metric_ask ask = { .names = "TopdownL1" };
	struct metric_plan *p;
	int i, nogroup = 0;

	p = plan(&env, &ask);
	CHECK(p != NULL && shows_exactly(p, l1) && notes[0] == '\0');
	for (i = 0; p != NULL && i < metric_plan_nmetrics(p); i++)
		CHECK(
		    strcmp(metric_plan_metric(p, i)->group, "TopdownL1") == 0 &&
		    strcmp(metric_plan_metric(p, i)->unit, "%") == 0 &&
		    metric_plan_metric(p, i)->scale == 100);
	metric_plan_free(p);
	/* Any case, as perf takes them. */
	ask.names = "topdownl1";
	CHECK((p = plan(&env, &ask)) != NULL && shows_exactly(p, l1));
	metric_plan_free(p);
	ask.names = "TMA_Frontend_Bound";
	CHECK((p = plan(&env, &ask)) != NULL && shows_exactly(p, fe));
	CHECK(p != NULL &&
	    strcmp(metric_plan_metric(p, 0)->group, "TMA_Frontend_Bound") == 0);
	metric_plan_free(p);
	/* A metric named twice, or by its group too, is shown once. */
	ask.names = "tma_frontend_bound,TopdownL1,tma_frontend_bound";
	CHECK((p = plan(&env, &ask)) != NULL && shows_exactly(p, l1));
	metric_plan_free(p);

	/* all: every metric of the model and perf's common ones. */
	ask.names = "all";
	CHECK((p = plan(&env, &ask)) != NULL);
	CHECK(p != NULL &&
	    metric_plan_nmetrics(p) == skx->nmetrics + common->nmetrics);
	if (p != NULL &&
	    metric_plan_nmetrics(p) != skx->nmetrics + common->nmetrics)
		fprintf(stderr, "all: %d metrics, the data %d + %d; %s\n",
		    metric_plan_nmetrics(p), skx->nmetrics, common->nmetrics,
		    notes);
	metric_plan_free(p);
	/* No_group: those of no group. */
	for (i = 0; i < skx->nmetrics; i++)
		nogroup +=
		    metric_str(metric_defs[skx->metric0 + i].groups)[0] == '\0';
	for (i = 0; i < common->nmetrics; i++)
		nogroup +=
		    metric_str(metric_defs[common->metric0 + i].groups)[0] ==
		    '\0';
	ask.names = "No_group";
	CHECK(nogroup > 0 && (p = plan(&env, &ask)) != NULL &&
	    metric_plan_nmetrics(p) == nogroup);
	for (i = 0; p != NULL && i < metric_plan_nmetrics(p); i++) {
		const char *name = metric_plan_metric(p, i)->name;
		const struct metric_def *d = def_in(skx, name);

		if (d == NULL)
			d = def_in(common, name);
		CHECK(d != NULL && metric_str(d->groups)[0] == '\0');
	}
	metric_plan_free(p);

	/* perf's common metrics, on any model. */
	ask.names = "CPUs_utilized";
	CHECK((p = plan(&env, &ask)) != NULL && metric_plan_nmetrics(p) == 1);
	metric_plan_free(p);
}

/* Names only perf 6.1's data gave skylakex: its legacy layer answers. */
static void
test_legacy_names(void)
{
	static const char *const clks[] = { "CPU_CLK_UNHALTED.THREAD_ANY",
		NULL };
	struct metric_env env = env_of(SKX, true, true, true);
	const struct metric_model *skx = metric_model_named("skylakex");
	const struct metric_model *old = metric_model_legacy(skx, 1);
	struct metric_ask ask = { .names = "CORE_CLKS" };
	struct metric_plan *p;

	CHECK(def_in(skx, "CORE_CLKS") == NULL &&
	    def_in(metric_model_legacy(skx, 0), "CORE_CLKS") == NULL &&
	    def_in(old, "CORE_CLKS") != NULL);
	CHECK((p = plan(&env, &ask)) != NULL && metric_plan_nmetrics(p) == 1 &&
	    strcmp(metric_plan_metric(p, 0)->name, "CORE_CLKS") == 0);
	/* SMT on, every sibling counted: the core's cycles, halved. */
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(events_exactly(&row.it, clks));
	}
	metric_plan_free(p);
	CHECK(
	    def_in(skx, "Big_Code") == NULL && def_in(old, "Big_Code") != NULL);
	ask.names = "big_code";
	CHECK((p = plan(&env, &ask)) != NULL && metric_plan_nmetrics(p) == 1 &&
	    strcmp(metric_plan_metric(p, 0)->name, "Big_Code") == 0);
	metric_plan_free(p);
}

/* One line, naming what it must. */
static void
check_line(const char *line, const char *a, const char *b, const char *c)
{
	check_count++;
	if (strchr(line, '\n') != NULL || strstr(line, a) == NULL ||
	    (b != NULL && strstr(line, b) == NULL) ||
	    (c != NULL && strstr(line, c) == NULL)) {
		check_failures++;
		fprintf(stderr,
		    "'%s': expected one line with '%s', '%s', '%s'\n", line, a,
		    b ? b : "", c ? c : "");
	}
}

/* A name nothing knows: the nearest names, in one line. */
static void
test_unknown(void)
{
	struct metric_env env = env_of(SKX, true, true, true);
	struct metric_ask ask = { .names = "TopdownL9" };
	struct metric_plan *p;

	CHECK(plan(&env, &ask) == NULL);
	check_line(err,
	    "TopdownL9: no such metric or metric group for skylakex",
	    "nearest: ", "TopdownL1");
	ask.names = "tma_frontend_bond";
	CHECK(plan(&env, &ask) == NULL);
	check_line(err, "tma_frontend_bond: no such metric",
	    "nearest: ", "tma_frontend_bound");
	/* Nothing near: where the names are. */
	ask.names = "TopdownL1,qqqqqqqqqqqq";
	CHECK(plan(&env, &ask) == NULL);
	check_line(err, "qqqqqqqqqqqq: no such metric", "--list", NULL);
	ask.names = "";
	CHECK(plan(&env, &ask) == NULL);
	check_line(err, "no metric named", NULL, NULL);
	/* A CPU the data does not know: its id, and perf's common metrics. */
	env = env_of("GenuineIntel-6-1-1", false, true, true);
	ask.names = "TopdownL1";
	CHECK(plan(&env, &ask) == NULL);
	check_line(err, "TopdownL1: no such metric", "GenuineIntel-6-1-1",
	    "does not know");
	ask.names = "CPUs_utilized";
	CHECK((p = plan(&env, &ask)) != NULL && metric_plan_nmetrics(p) == 1);
	metric_plan_free(p);
}

/* What cannot be counted: a line when named, a note from a group. */
static void
test_refusals(void)
{
	static const char *const unknown[] = { "INT_MISC.RECOVERY_CYCLES_ANY",
		NULL };
	static const char *const socket[] = { "UNC_M_CAS_COUNT.RD",
		"UNC_M_CAS_COUNT.WR", NULL };
	static const char *const counted[] = { "tma_frontend_bound",
		"tma_retiring", NULL };
	static const char *const bw[] = { "tma_info_system_dram_bw_use", NULL };
	struct fake fake = { unknown, socket };
	struct metric_env env = env_of(SKX, true, true, true);
	struct metric_ask ask = { .names = "tma_backend_bound",
		.event_kind = fake_kind,
		.arg = &fake };
	struct metric_plan *p;

	CHECK(plan(&env, &ask) == NULL);
	check_line(err, "tma_backend_bound: ", "INT_MISC.RECOVERY_CYCLES_ANY",
	    "not on the test's machine");
	/* The group keeps what it can count, and says what it left out. */
	ask.names = "TopdownL1";
	CHECK((p = plan(&env, &ask)) != NULL && shows_exactly(p, counted));
	CHECK(strstr(notes,
		  "tma_backend_bound (of TopdownL1): "
		  "INT_MISC.RECOVERY_CYCLES_ANY") != NULL &&
	    strstr(notes, "tma_bad_speculation (of TopdownL1): ") != NULL);
	metric_plan_free(p);
	/* A group of which nothing counts. */
	ask.names = "tma_L1_group";
	env = env_of(SKX, true, true, true);
	fake.unknown = (const char *const[]) { "CPU_CLK_UNHALTED.THREAD_ANY",
		"INST_RETIRED.ANY", NULL };
	CHECK(plan(&env, &ask) == NULL);
	check_line(err, "tma_L1_group: none of its", "can be counted here",
	    "not on the test's machine");
	fake.unknown = NULL;

	/* A socket's PMU: per CPU it counts. */
	ask.names = "tma_info_system_dram_bw_use";
	CHECK((p = plan(&env, &ask)) != NULL && shows_exactly(p, bw));
	metric_plan_free(p);
	/* Per thread it cannot: one line naming the event. */
	env = env_of(SKX, true, false, false);
	ask.per_thread = true;
	CHECK(plan(&env, &ask) == NULL);
	check_line(err, "tma_info_system_dram_bw_use: ", "UNC_M_CAS_COUNT",
	    "whole socket");
	/* From a group: left out, said in a note. */
	ask.names = "MemoryBW";
	CHECK((p = plan(&env, &ask)) != NULL &&
	    index_of(p, "tma_info_system_dram_bw_use") < 0 &&
	    index_of(p, "tma_info_memory_l1d_cache_fill_bw") >= 0);
	CHECK(strstr(notes,
		  "tma_info_system_dram_bw_use (of MemoryBW): it "
		  "counts UNC_M_CAS_COUNT") != NULL);
	metric_plan_free(p);
}

/* The groups of the spec's events, perf's way. */
static void
test_grouping(void)
{
	struct metric_env env = env_of(SKX, true, true, true);
	struct metric_ask ask = { .names = "tma_backend_bound" };
	const char *names[64];
	struct metric_plan *p;
	int n, i;

	/* A metric's events: one group, braced. */
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		n = metric_plan_metric_events(p, 0, names, 64);
		CHECK(n == 4 && row.it.n == n && row.it.ngroups == 1 &&
		    !row.it.outside);
		for (i = 0; i < n && i < 64; i++)
			CHECK(spec_item_find(&row.it, names[i]) >= 0);
		CHECK(metric_plan_spec(p)[0] == '{' &&
		    strchr(metric_plan_spec(p), '}')[1] == '\0');
	}
	metric_plan_free(p);
	/* A smaller metric whose events that group holds shares it. */
	ask.names = "tma_frontend_bound,tma_backend_bound";
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.n == 4 && row.it.ngroups == 1);
	}
	metric_plan_free(p);
	/* --metric-no-group: each event a group of its own. */
	ask.names = "tma_backend_bound";
	ask.no_group = true;
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.n == 4 && row.it.ngroups == 4);
	}
	metric_plan_free(p);
	ask.no_group = false;
	/*
	 * A group the counters cannot hold: each event a group of its own,
	 * as perf breaks up a weak group the kernel refuses.
	 */
	ask.counters = 4;
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.n == 4 && row.it.ngroups == 1);
	}
	metric_plan_free(p);
	ask.counters = 3;
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.n == 4 && row.it.ngroups == 4);
	}
	metric_plan_free(p);
	ask.counters = 0;
	/* The data's NO_GROUP_EVENTS: tma_memory_bound's events ungrouped. */
	ask.names = "tma_memory_bound";
	CHECK(strcmp(metric_str(def_in(
			 metric_model_named("skylakex"), "tma_memory_bound")
				    ->constraint),
		  "NO_GROUP_EVENTS") == 0);
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		n = metric_plan_metric_events(p, 0, names, 64);
		CHECK(n > 4 && row.it.n == n && row.it.ngroups == n);
	}
	metric_plan_free(p);
	/*
	 * NO_GROUP_EVENTS_NMI: grouped unless the NMI watchdog holds a
	 * counter.
	 */
	ask.names = "tma_split_loads";
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.n > 1 && row.it.ngroups == 1);
	}
	metric_plan_free(p);
	ask.nmi_watchdog = true;
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.n > 1 && row.it.ngroups == row.it.n);
	}
	metric_plan_free(p);
	ask.nmi_watchdog = false;
	/*
	 * MetricgroupNoGroup: TopdownL1's metrics are not grouped when -M
	 * names TopdownL1, and are when it names them.
	 */
	ask.names = "TopdownL1";
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.n > 4 && row.it.ngroups == row.it.n);
	}
	metric_plan_free(p);
	ask.names = "tma_retiring,tma_bad_speculation,tma_frontend_bound,"
		    "tma_backend_bound";
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.ngroups < row.it.n);
	}
	metric_plan_free(p);
}

/* TopDown's events: slots first, the topdown-* next, one group. */
static void
test_topdown_groups(void)
{
	struct metric_env env = env_of(ICX, true, true, true);
	struct metric_ask ask = { .names = "tma_retiring",
		.no_threshold = true };
	struct metric_plan *p;
	int i, td;

	/* tma_retiring reads topdown-* alone: slots added, leading. */
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.n == 5 && row.it.ngroups == 1 &&
		    strcmp(row.it.text[0], "slots") == 0 &&
		    strncmp(row.it.text[1], "topdown-", 8) == 0);
	}
	metric_plan_free(p);
	/*
	 * TOPDOWN.SLOTS, which the data's formulas read, is the kernel's
	 * slots (event 0, umask 4): it leads the group, and no other slots
	 * is counted beside it.
	 */
	ask.names = "tma_backend_bound";
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.ngroups == 1 && row.it.n == 6 &&
		    strcmp(row.it.text[0],
			"cpu/event=0,umask=4,name=TOPDOWN.SLOTS/") == 0 &&
		    strncmp(row.it.text[1], "topdown-", 8) == 0 &&
		    spec_item_find(&row.it, "slots") < 0);
	}
	metric_plan_free(p);
	ask.names = "TopdownL1";
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		/* The topdown group: from its leader on. */
		for (td = 0; td < row.it.n &&
		     strstr(row.it.text[td], "TOPDOWN.SLOTS") == NULL;
		     td++)
			;
		CHECK(td < row.it.n &&
		    (td == 0 || row.it.group[td - 1] != row.it.group[td]));
		for (i = 0; td < row.it.n && i < row.it.n; i++)
			if (strncmp(row.it.text[i], "topdown-", 8) == 0)
				CHECK(i > td &&
				    row.it.group[i] == row.it.group[td]);
		CHECK(spec_item_find(&row.it, "slots") < 0);
	}
	metric_plan_free(p);
	/* Too many for the counters: TopDown's group alone stays whole. */
	ask.names = "tma_backend_bound";
	ask.counters = 5;
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.n == 6 && row.it.ngroups == 2 &&
		    spec_item_find(&row.it, "INT_MISC.CLEARS_COUNT") >= 0);
		CHECK(strstr(row.it.text[row.it.n - 5], "TOPDOWN.SLOTS") !=
			NULL &&
		    row.it.group[row.it.n - 5] == row.it.group[row.it.n - 1]);
	}
	metric_plan_free(p);
	ask.counters = 0;
	ask.names = "tma_retiring";
	/* The run's modes, and a hybrid's core PMU, go to slots too. */
	ask.modes = "uk";
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(row.it.n == 5 &&
		    strcmp(row.it.text[0], "slots:uk") == 0 &&
		    strcmp(row.it.text[1], "topdown-retiring:uk") == 0);
	}
	metric_plan_free(p);
	/* Alder Lake: the P-cores' (cpu_core) TopDown, and the E-cores'. */
	env = env_of("GenuineIntel-6-97-2", true, true, true);
	ask.core_pmu = "cpu_core";
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(index_of(p, "cpu_core/tma_retiring") >= 0 &&
		    index_of(p, "cpu_atom/tma_retiring") >= 0 &&
		    strcmp(metric_plan_metric(
			       p, index_of(p, "cpu_atom/tma_retiring"))
			       ->pmu,
			"cpu_atom") == 0);
		CHECK(strcmp(row.it.text[0], "cpu_core/slots/uk") == 0 &&
		    strcmp(row.it.text[1], "cpu_core/topdown-retiring/uk") ==
			0 &&
		    row.it.group[0] == row.it.group[4] &&
		    strncmp(row.it.text[5], "cpu_atom/", 9) == 0);
	}
	metric_plan_free(p);
}

/* The tree: each level under its parent. */
static void
test_tree(void)
{
	struct metric_env env = env_of(SKX, true, true, true);
	struct metric_ask ask = { .names = "TopdownL2,TopdownL1" };
	const struct metric_shown *s;
	struct metric_plan *p;
	int be, mem, core, fe, i;

	CHECK((p = plan(&env, &ask)) != NULL);
	if (p == NULL)
		return;
	be = index_of(p, "tma_backend_bound");
	mem = index_of(p, "tma_memory_bound");
	core = index_of(p, "tma_core_bound");
	fe = index_of(p, "tma_frontend_bound");
	CHECK(be >= 0 && mem >= 0 && core >= 0 && fe >= 0);
	if (be < 0 || mem < 0 || core < 0 || fe < 0) {
		metric_plan_free(p);
		return;
	}
	CHECK(metric_plan_metric(p, be)->parent == -1 &&
	    metric_plan_metric(p, be)->level == 1);
	CHECK(metric_plan_metric(p, mem)->parent == be &&
	    metric_plan_metric(p, mem)->level == 2);
	CHECK(metric_plan_metric(p, core)->parent == be &&
	    metric_plan_metric(p, core)->level == 2);
	/* Parents first, each followed by its own. */
	for (i = 0; i < metric_plan_nmetrics(p); i++) {
		s = metric_plan_metric(p, i);
		CHECK(s->parent < i);
		CHECK(s->level >= 1 && s->level <= 2);
		if (s->parent >= 0)
			CHECK(s->level ==
			    metric_plan_metric(p, s->parent)->level + 1);
		/* Between a node and its parent, only the parent's own. */
		if (s->parent >= 0 && i > s->parent + 1)
			CHECK(
			    metric_plan_metric(p, i - 1)->parent >= s->parent);
	}
	CHECK(metric_plan_metric(p, fe)->parent == -1);
	/* tma_fetch_latency is the front end's. */
	CHECK(metric_plan_metric(p, index_of(p, "tma_fetch_latency"))->parent ==
	    fe);
	metric_plan_free(p);
}

/* Every metric of cpuid's model and perf's common ones: each threshold
 * the data gives is read, on a machine that counts every event. */
static void
check_all_thresholds(const char *cpuid)
{
	const struct metric_model *own = metric_model_of(cpuid);
	const struct metric_model *common = metric_model_common();
	struct metric_env env = env_of(cpuid, true, true, true);
	struct metric_ask ask = { .names = "all" };
	const struct metric_shown *s;
	const struct metric_def *d;
	struct metric_plan *p;
	int i, k, missing = 0;

	if ((p = plan(&env, &ask)) == NULL) {
		CHECK(false);
		return;
	}
	for (i = 0; i < metric_plan_nmetrics(p); i++) {
		s = metric_plan_metric(p, i);
		for (k = 0; k < own->nmetrics + common->nmetrics; k++) {
			d = k < own->nmetrics ?
			    &metric_defs[own->metric0 + k] :
			    &metric_defs[common->metric0 + k - own->nmetrics];
			if (strcmp(metric_str(d->name), s->name) == 0 &&
			    strcmp(metric_str(d->pmu), s->pmu) == 0)
				break;
		}
		if (k < own->nmetrics + common->nmetrics &&
		    metric_str(d->threshold)[0] != '\0' && !s->threshold) {
			fprintf(stderr, "%s: %s: no threshold\n",
			    metric_str(own->tag), s->key);
			missing++;
		}
	}
	CHECK(metric_plan_nmetrics(p) > 0 && missing == 0);
	metric_plan_free(p);
}

/* Every threshold the data gives is read; one that cannot count is left
 * out, with the events only it reads. */
static void
test_thresholds(void)
{
	static const char *const alone[] = { "UOPS_RETIRED.RETIRE_SLOTS",
		"CPU_CLK_UNHALTED.THREAD_ANY", NULL };
	static const char *const unknown[] = { "UOPS_RETIRED.MACRO_FUSED",
		NULL };
	static const char *const models[] = { SKX, ICX, "GenuineIntel-6-8F-8",
		"GenuineIntel-6-97-2", "GenuineIntel-6-AD-1" };
	struct fake fake = { unknown, NULL };
	struct metric_env env = env_of(SKX, true, true, true);
	struct metric_ask ask = { .names = "TopdownL1" };
	struct metric_plan *p;
	int i, m;

	CHECK((p = plan(&env, &ask)) != NULL);
	for (i = 0; p != NULL && i < metric_plan_nmetrics(p); i++)
		CHECK(metric_plan_metric(p, i)->threshold);
	metric_plan_free(p);
	/*
	 * A threshold reading a metric whose formula reads this one:
	 * tma_ports_utilization reads tma_ports_utilized_0, whose threshold
	 * reads tma_ports_utilization.
	 */
	ask.names = "tma_ports_utilization,tma_ports_utilized_0";
	CHECK((p = plan(&env, &ask)) != NULL &&
	    metric_plan_metric(p, index_of(p, "tma_ports_utilized_0"))
		->threshold &&
	    metric_plan_metric(p, index_of(p, "tma_ports_utilization"))
		->threshold);
	metric_plan_free(p);
	/* Every one, on the models most servers run. */
	for (m = 0; m < (int)(sizeof(models) / sizeof(models[0])); m++)
		check_all_thresholds(models[m]);
	/* tma_retiring > 0.7 | tma_heavy_operations > 0.1: its events. */
	ask.names = "tma_retiring";
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(metric_plan_metric(p, 0)->threshold &&
		    spec_item_find(&row.it, "UOPS_RETIRED.MACRO_FUSED") >= 0 &&
		    spec_item_find(&row.it, "INST_RETIRED.ANY") >= 0);
	}
	metric_plan_free(p);
	ask.event_kind = fake_kind;
	ask.arg = &fake;
	CHECK((p = plan(&env, &ask)) != NULL && notes[0] == '\0');
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(!metric_plan_metric(p, 0)->threshold &&
		    events_exactly(&row.it, alone));
	}
	metric_plan_free(p);
	ask.event_kind = NULL;
	ask.no_threshold = true;
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(!metric_plan_metric(p, 0)->threshold &&
		    events_exactly(&row.it, alone));
	}
	metric_plan_free(p);
}

/* A row's marks: crossed, hidden under a parent not crossed, and the
 * bottleneck; with SMT off core-wide, 4000 slots a row. */
static const char *const marked[] = { "tma_frontend_bound", "tma_backend_bound",
	"tma_memory_bound", "tma_core_bound", NULL };

/* The shown metrics' crossed, hidden and bottleneck marks, in order. */
static void
check_marks(const struct metric_plan *p, const int *crossed, const bool *hidden,
    const bool *bottleneck)
{
	int i, k;

	for (i = 0; marked[i] != NULL; i++) {
		k = index_of(p, marked[i]);
		check_count++;
		if (k < 0 || row.out[k].crossed != crossed[i] ||
		    row.out[k].hidden != hidden[i] ||
		    row.out[k].bottleneck != bottleneck[i]) {
			check_failures++;
			fprintf(stderr,
			    "%s: crossed %d hidden %d bottleneck %d, "
			    "expected %d %d %d\n",
			    marked[i], k >= 0 ? row.out[k].crossed : -2,
			    k >= 0 && row.out[k].hidden,
			    k >= 0 && row.out[k].bottleneck, crossed[i],
			    hidden[i], bottleneck[i]);
		}
	}
}

static void
test_marks(void)
{
	static const char *const events[] = { "CPU_CLK_UNHALTED.THREAD",
		"IDQ_UOPS_NOT_DELIVERED.CORE", "UOPS_ISSUED.ANY",
		"INT_MISC.RECOVERY_CYCLES", "UOPS_RETIRED.RETIRE_SLOTS",
		"CYCLE_ACTIVITY.STALLS_MEM_ANY", "EXE_ACTIVITY.BOUND_ON_STORES",
		"CYCLE_ACTIVITY.STALLS_TOTAL", "EXE_ACTIVITY.1_PORTS_UTIL",
		"EXE_ACTIVITY.2_PORTS_UTIL", NULL };
	/*
	 * Front end 800 / 4000 = 20 %, back end 1 - 0.2 - (1800 + 4 * 50)
	 * / 4000 = 30 %; memory bound (300 + 100) / (300 + 50 + 0.4 * 125
	 * + 100) of it, 24 %, core bound the rest, 6 %.
	 */
	struct count counts[] = {
		{ "CPU_CLK_UNHALTED.THREAD", 1000, 0 },
		{ "IDQ_UOPS_NOT_DELIVERED.CORE", 800, 0 },
		{ "UOPS_ISSUED.ANY", 1800, 0 },
		{ "INT_MISC.RECOVERY_CYCLES", 50, 0 },
		{ "UOPS_RETIRED.RETIRE_SLOTS", 1600, 0 },
		{ "CYCLE_ACTIVITY.STALLS_MEM_ANY", 300, 0 },
		{ "EXE_ACTIVITY.BOUND_ON_STORES", 100, 0 },
		{ "CYCLE_ACTIVITY.STALLS_TOTAL", 300, 0 },
		{ "EXE_ACTIVITY.1_PORTS_UTIL", 50, 0 },
		{ "EXE_ACTIVITY.2_PORTS_UTIL", 125, 0 },
		{ NULL, 0, 0 },
	};
	static const int crossed_a[] = { 1, 1, 1, 0 };
	static const bool none[] = { false, false, false, false };
	static const bool memory[] = { false, false, true, false };
	static const int crossed_b[] = { 1, 0, 0, 0 };
	static const bool children[] = { false, false, true, true };
	static const bool front[] = { true, false, false, false };
	struct metric_env env = env_of(SKX, false, true, true);
	struct metric_ask ask = { .names = "tma_frontend_bound,"
					   "tma_backend_bound,tma_memory_bound,"
					   "tma_core_bound" };
	struct metric_plan *p;

	CHECK((p = plan(&env, &ask)) != NULL && bind_row(p) == 0);
	if (p == NULL)
		return;
	/* The thresholds read these events, and no reader's threshold. */
	CHECK(events_exactly(&row.it, events));
	CHECK(metric_plan_metric(p, index_of(p, "tma_memory_bound"))->parent ==
	    index_of(p, "tma_backend_bound"));
	eval(p, counts, 1, false, false);
	check_value(p, "tma_frontend_bound", 20);
	check_value(p, "tma_backend_bound", 30);
	check_value(p, "tma_memory_bound", 24);
	check_value(p, "tma_core_bound", 6);
	/* Both roots crossed: down the larger, to memory bound. */
	check_marks(p, crossed_a, none, memory);
	/*
	 * The back end at 1 - 0.2 - 0.65 = 15 %, under its 20 %: its
	 * children hidden, unless every node is asked for.
	 */
	counts[2].value = 2400;
	eval(p, counts, 1, false, false);
	check_value(p, "tma_backend_bound", 15);
	check_value(p, "tma_memory_bound", 12);
	check_marks(p, crossed_b, children, front);
	eval(p, counts, 1, false, true);
	check_marks(p, crossed_b, none, front);
	/*
	 * The front end at 35 % over the back end's 30 %: the bottleneck is
	 * the front end, whatever the back end's children cross.
	 */
	counts[1].value = 1400;
	counts[2].value = 1200;
	eval(p, counts, 1, false, false);
	check_value(p, "tma_frontend_bound", 35);
	check_value(p, "tma_backend_bound", 30);
	check_value(p, "tma_memory_bound", 24);
	check_marks(p, crossed_a, none, front);
	metric_plan_free(p);
}

/*
 * Skylake-SP's TopDown level 1 (perf's skylakex data): 4 slots a cycle,
 *   retiring = UOPS_RETIRED.RETIRE_SLOTS / slots
 *   frontend = IDQ_UOPS_NOT_DELIVERED.CORE / slots
 *   bad spec = (UOPS_ISSUED.ANY - RETIRE_SLOTS + 4 * recovery) / slots
 *   backend  = 1 - frontend - (UOPS_ISSUED.ANY + 4 * recovery) / slots
 * where recovery is INT_MISC.RECOVERY_CYCLES, or with SMT on
 * RECOVERY_CYCLES_ANY / 2; and slots = 4 * the core's cycles:
 * CPU_CLK_UNHALTED.THREAD with SMT off, counted core-wide; THREAD_ANY / 2
 * core-wide with SMT on; otherwise THREAD / 2 * (1 + ONE_THREAD_ACTIVE /
 * REF_XCLK).
 */
static void
check_l1(const struct metric_plan *p, double retiring, double bad,
    double frontend, double backend)
{
	check_value(p, "tma_retiring", retiring);
	check_value(p, "tma_bad_speculation", bad);
	check_value(p, "tma_frontend_bound", frontend);
	check_value(p, "tma_backend_bound", backend);
}

static void
test_skylake_values(void)
{
	static const char *const off[] = { "IDQ_UOPS_NOT_DELIVERED.CORE",
		"CPU_CLK_UNHALTED.THREAD", "UOPS_ISSUED.ANY",
		"INT_MISC.RECOVERY_CYCLES", "UOPS_RETIRED.RETIRE_SLOTS", NULL };
	static const char *const thread[] = { "IDQ_UOPS_NOT_DELIVERED.CORE",
		"CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE",
		"CPU_CLK_UNHALTED.REF_XCLK", "UOPS_ISSUED.ANY",
		"INT_MISC.RECOVERY_CYCLES_ANY", "UOPS_RETIRED.RETIRE_SLOTS",
		NULL };
	static const char *const core[] = { "IDQ_UOPS_NOT_DELIVERED.CORE",
		"CPU_CLK_UNHALTED.THREAD_ANY", "UOPS_ISSUED.ANY",
		"INT_MISC.RECOVERY_CYCLES_ANY", "UOPS_RETIRED.RETIRE_SLOTS",
		NULL };
	/* 1000 cycles, 4000 slots: 40, 15, 20, 25 %. */
	static const struct count smt_off[] = {
		{ "CPU_CLK_UNHALTED.THREAD", 1000, 0 },
		{ "UOPS_RETIRED.RETIRE_SLOTS", 1600, 0 },
		{ "IDQ_UOPS_NOT_DELIVERED.CORE", 800, 0 },
		{ "UOPS_ISSUED.ANY", 2000, 0 },
		{ "INT_MISC.RECOVERY_CYCLES", 50, 0 },
		{ NULL, 0, 0 },
	};
	/*
	 * One thread of two: 1000 / 2 * (1 + 200 / 400) = 750 core cycles,
	 * 3000 slots; recovery 100 / 2; 40, 15, 20, 25 %.
	 */
	static const struct count per_thread[] = {
		{ "CPU_CLK_UNHALTED.THREAD", 1000, 0 },
		{ "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", 200, 0 },
		{ "CPU_CLK_UNHALTED.REF_XCLK", 400, 0 },
		{ "UOPS_RETIRED.RETIRE_SLOTS", 1200, 0 },
		{ "IDQ_UOPS_NOT_DELIVERED.CORE", 600, 0 },
		{ "UOPS_ISSUED.ANY", 1450, 0 },
		{ "INT_MISC.RECOVERY_CYCLES_ANY", 100, 0 },
		{ NULL, 0, 0 },
	};
	/* Both threads: 2000 / 2 = 1000 core cycles, 4000 slots. */
	static const struct count core_wide[] = {
		{ "CPU_CLK_UNHALTED.THREAD_ANY", 2000, 0 },
		{ "UOPS_RETIRED.RETIRE_SLOTS", 1600, 0 },
		{ "IDQ_UOPS_NOT_DELIVERED.CORE", 800, 0 },
		{ "UOPS_ISSUED.ANY", 2000, 0 },
		{ "INT_MISC.RECOVERY_CYCLES_ANY", 100, 0 },
		{ NULL, 0, 0 },
	};
	struct metric_ask ask = { .names = "TopdownL1", .no_threshold = true };
	struct metric_env env;
	struct metric_plan *p;

	/* SMT off, CPUs counted (cpustat): core-wide. */
	env = env_of(SKX, false, true, true);
	CHECK((p = plan(&env, &ask)) != NULL && bind_row(p) == 0);
	if (p != NULL) {
		CHECK(events_exactly(&row.it, off));
		eval(p, smt_off, 1, false, false);
		check_l1(p, 40, 15, 20, 25);
	}
	metric_plan_free(p);
	/* SMT on, a thread's rows (cputrack). */
	env = env_of(SKX, true, false, false);
	ask.per_thread = true;
	CHECK((p = plan(&env, &ask)) != NULL && bind_row(p) == 0);
	if (p != NULL) {
		CHECK(events_exactly(&row.it, thread));
		eval(p, per_thread, 1, false, false);
		check_l1(p, 40, 15, 20, 25);
	}
	metric_plan_free(p);
	ask.per_thread = false;
	/* SMT on, CPUs counted with their siblings: the core's counts. */
	env = env_of(SKX, true, true, true);
	CHECK((p = plan(&env, &ask)) != NULL && bind_row(p) == 0);
	if (p != NULL) {
		CHECK(events_exactly(&row.it, core));
		eval(p, core_wide, 1, false, false);
		check_l1(p, 40, 15, 20, 25);
	}
	metric_plan_free(p);
	/* SMT on, CPUs counted without a sibling: a thread's formula. */
	env = env_of(SKX, true, true, false);
	CHECK((p = plan(&env, &ask)) != NULL);
	if (p != NULL) {
		spec_items_split(metric_plan_spec(p), &row.it);
		CHECK(events_exactly(&row.it, thread));
	}
	metric_plan_free(p);
}

/*
 * Ice Lake-X's TopDown level 1, from the kernel's topdown-* (perf's
 * icelakex data): each share of their sum, the front end less
 * INT_MISC.UOP_DROPPING / slots, the back end plus 5 *
 * INT_MISC.CLEARS_COUNT / slots, bad speculation the rest (at least 0).
 * 10000 slots: 40 retiring, 10 bad, 20 - 2 front end, 30 + 2 back end.
 */
static void
test_icelake_values(void)
{
	static const struct count counts[] = {
		{ "slots", 10000, 0 },
		{ "TOPDOWN.SLOTS", 10000, 0 },
		{ "topdown-retiring", 4000, 0 },
		{ "topdown-bad-spec", 1000, 0 },
		{ "topdown-fe-bound", 2000, 0 },
		{ "topdown-be-bound", 3000, 0 },
		{ "INT_MISC.UOP_DROPPING", 200, 0 },
		{ "INT_MISC.CLEARS_COUNT", 40, 0 },
		{ NULL, 0, 0 },
	};
	struct metric_env env = env_of(ICX, true, true, true);
	struct metric_ask ask = { .names = "TopdownL1", .no_threshold = true };
	struct metric_plan *p;

	CHECK((p = plan(&env, &ask)) != NULL && bind_row(p) == 0);
	if (p != NULL) {
		CHECK(spec_item_find(&row.it, "topdown-retiring") >= 0 &&
		    spec_item_find(&row.it, "topdown-be-bound") >= 0 &&
		    spec_item_find(&row.it, "TOPDOWN.SLOTS") >= 0);
		eval(p, counts, 1, false, false);
		check_l1(p, 40, 10, 18, 32);
	}
	metric_plan_free(p);
}

/* duration_time: the row's seconds, no event; source_count: its boxes. */
static void
test_time_and_sources(void)
{
	static const char *const cas[] = { "UNC_M_CAS_COUNT.RD",
		"UNC_M_CAS_COUNT.WR", NULL };
	/* 64 bytes a CAS: 1.5e9 * 64 bytes in 2 s, 48 GB/s. */
	static const struct count bw[] = {
		{ "UNC_M_CAS_COUNT.RD", 1e9, 0 },
		{ "UNC_M_CAS_COUNT.WR", 0.5e9, 0 },
		{ NULL, 0, 0 },
	};
	/*
	 * 6000 / 100 = 60 cycles a miss, in the CHA's cycles per box and
	 * socket: 8e9 / (2 boxes * 2 sockets) = 2e9 in 2 s, 1 GHz: 60 ns.
	 */
	static const struct count lat[] = {
		{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD", 6000, 2 },
		{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD", 100, 2 },
		{ "UNC_CHA_CLOCKTICKS", 8e9, 2 },
		{ NULL, 0, 0 },
	};
	struct metric_env env = env_of(SKX, true, true, true);
	struct metric_ask ask = { .names = "tma_info_system_dram_bw_use" };
	struct metric_plan *p;

	CHECK((p = plan(&env, &ask)) != NULL && bind_row(p) == 0);
	if (p != NULL) {
		CHECK(events_exactly(&row.it, cas));
		eval(p, bw, 2, false, false);
		check_value(p, "tma_info_system_dram_bw_use", 48);
		/* No time known, no rate. */
		eval(p, bw, NAN, false, false);
		CHECK(isnan(value_of(p, "tma_info_system_dram_bw_use")));
	}
	metric_plan_free(p);

	env = env_of(ICX, true, true, true);
	ask.names = "llc_demand_data_read_miss_latency";
	CHECK((p = plan(&env, &ask)) != NULL && bind_row(p) == 0);
	if (p != NULL) {
		CHECK(strcmp(metric_plan_metric(p, 0)->unit, "ns") == 0);
		eval(p, lat, 2, true, false);
		check_value(p, "llc_demand_data_read_miss_latency", 60);
		/* Read as one box each: twice the cycles per box, half. */
		eval(p, lat, 2, false, false);
		check_value(p, "llc_demand_data_read_miss_latency", 30);
	}
	metric_plan_free(p);
}

/* A row not counted: every metric NaN, no threshold, no mark. */
static void
test_not_counted(void)
{
	struct metric_env env = env_of(SKX, false, true, true);
	struct metric_ask ask = { .names = "TopdownL1,TopdownL2" };
	struct metric_counts in = { row.values, 0, NULL, 1, 1, false };
	struct metric_plan *p;
	int i;

	CHECK((p = plan(&env, &ask)) != NULL && bind_row(p) == 0);
	if (p == NULL)
		return;
	in.nvalues = row.it.n;
	for (i = 0; i < row.it.n; i++)
		row.values[i] = 1000;
	for (i = 0; i < metric_plan_nmetrics(p); i++)
		row.out[i].value = 0;
	metric_plan_eval(p, &in, true, row.out);
	for (i = 0; i < metric_plan_nmetrics(p); i++)
		CHECK(isnan(row.out[i].value) && row.out[i].crossed == -1 &&
		    !row.out[i].bottleneck);
	/* A set without one of the plan's events cannot be bound. */
	row.spec.nreqs = row.it.n - 1;
	CHECK(metric_plan_bind(p, &row.spec, err, sizeof(err)) == -1);
	check_line(err, "no counter", row.it.text[row.it.n - 1], NULL);
	metric_plan_free(p);
}

int
main(void)
{
	test_names();
	test_legacy_names();
	test_unknown();
	test_refusals();
	test_grouping();
	test_topdown_groups();
	test_tree();
	test_thresholds();
	test_marks();
	test_skylake_values();
	test_icelake_values();
	test_time_and_sources();
	test_not_counted();
	return check_report("test_metric_plan");
}
