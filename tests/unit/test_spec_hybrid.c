/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Every core PMU counted, against the PMUs of real hybrid machines: the
 * /sys/bus/event_source/devices trees of an Intel Alder Lake (cpu_core on
 * CPUs 0-15, cpu_atom on 16-23) and of an Arm big.LITTLE (RK3588:
 * armv8_cortex_a55 on 0-3, armv8_cortex_a76 on 4-7), recorded under
 * tests/unit/sysfs-trees (SOURCES.md says where each file comes from),
 * and of a server with one core PMU (Sapphire Rapids), read through
 * libcpc's test-only sysfs root. Each tree is read in a process of its
 * own that stands for that machine, whatever the host (recorded.h: the
 * root, libpfm4's model and the CPU id set before the first cpc_open).
 *
 * An event named without a PMU becomes one event per core PMU that has
 * it, each weighed 1, so that its count is their sum: generic events by
 * the extended type (the kernel's PERF_PMU_TYPE_SHIFT) where the kernel
 * takes one, and on an Arm kernel that takes none (Linux 6.1) by each
 * PMU's own event for it; raw codes and sysfs events by each PMU's type;
 * an event one core type lacks is said in the name's note. A PMU named
 * keeps the event there. A thread's set is one group per core PMU and
 * one of its software events; a CPU's, its own core PMU's events only.
 * Buffers and parsed specs keep each core PMU's part, and -h and --list
 * name the core PMUs. What the kernel does with all this is the QEMU
 * suite's to prove (tests/hw, a guest with two core PMUs).
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "recorded.h"
#include "test_cpc.h"
#include "../../cmd/cli/caps.h"
#include "../../cmd/common/spec.h"
#include "../../libcpc/evname.h"

/* The i-th event of name: its perf type and config, or false. */
static bool
term(cpc_t *cpc, const char *name, int i, uint32_t *type, uint64_t *config)
{
	struct ev_entry_view v;

	if (!cpclib_event_view(cpc, name, &v) ||
	    v.status != CPC_EVENT_COUNTABLE || i >= v.enc.nterms)
		return false;
	*type = v.enc.term[i].attr.type;
	*config = v.enc.term[i].attr.config;
	return v.enc.term[i].sign == 1;
}

static int
nterms(cpc_t *cpc, const char *name)
{
	struct ev_entry_view v;

	if (!cpclib_event_view(cpc, name, &v) ||
	    v.status != CPC_EVENT_COUNTABLE)
		return -1;
	return v.enc.nterms;
}

/* name has two events, (type0, config0) and (type1, config1). */
static void
spread(cpc_t *cpc, const char *name, uint32_t type0, uint64_t config0,
    uint32_t type1, uint64_t config1)
{
	uint32_t type = 0;
	uint64_t config = 0;

	if (nterms(cpc, name) != 2)
		fprintf(
		    stderr, "%s: %d events, want 2\n", name, nterms(cpc, name));
	CHECK(nterms(cpc, name) == 2);
	CHECK(term(cpc, name, 0, &type, &config) && type == type0 &&
	    config == config0);
	CHECK(term(cpc, name, 1, &type, &config) && type == type1 &&
	    config == config1);
}

/* name has one event, (type, config). */
static void
one(cpc_t *cpc, const char *name, uint32_t want_type, uint64_t want_config)
{
	uint32_t type = 0;
	uint64_t config = 0;

	CHECK(nterms(cpc, name) == 1);
	CHECK(term(cpc, name, 0, &type, &config) && type == want_type &&
	    config == want_config);
}

static bool
note_has(cpc_t *cpc, const char *name, const char *text)
{
	char note[600];

	return cpc_event_note(cpc, name, note, sizeof(note)) &&
	    strstr(note, text) != NULL;
}

static bool
why_has(cpc_t *cpc, const char *name, const char *text)
{
	char why[600];

	return cpc_event_status(cpc, name, why, sizeof(why)) ==
	    CPC_EVENT_UNSUPPORTED &&
	    strstr(why, text) != NULL;
}

/* What -h (or --list, list true) prints. */
static char *
listing(cpc_t *cpc, bool list)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	if (list)
		(void)caps_list(cpc, NULL, &(struct list_style) { 0 }, f);
	else
		caps_print(cpc, f);
	fclose(f);
	return text;
}

static void
core_pmus(cpc_t *cpc, const char *name0, const char *cpus0, const char *name1,
    const char *cpus1)
{
	const char *cpus = NULL;

	CHECK(cpc_core_pmu(cpc, 0, &cpus) != NULL &&
	    strcmp(cpc_core_pmu(cpc, 0, NULL), name0) == 0 && cpus != NULL &&
	    strcmp(cpus, cpus0) == 0);
	CHECK(cpc_core_pmu(cpc, 1, &cpus) != NULL &&
	    strcmp(cpc_core_pmu(cpc, 1, NULL), name1) == 0 &&
	    strcmp(cpus, cpus1) == 0);
	CHECK(cpc_core_pmu(cpc, 2, NULL) == NULL);
	CHECK(cpc_core_pmu(cpc, -1, NULL) == NULL);
	CHECK(strstr(cpc_cciname(cpc), name0) != NULL &&
	    strstr(cpc_cciname(cpc), name1) != NULL);
}

/* -h and --list name the core PMUs and their CPUs. */
static void
listings(cpc_t *cpc, const char *line, const char *listed)
{
	char *h = listing(cpc, false), *l = listing(cpc, true);

	CHECK(h != NULL && strstr(h, line) != NULL);
	CHECK(h != NULL &&
	    strstr(h, "an event named without a PMU counts on each") != NULL);
	CHECK(l != NULL && strstr(l, listed) != NULL);
	free(h);
	free(l);
}

/*
 * A thread's groups, and a CPU's: {task-clock, cycles, EVENT}, where
 * EVENT is on the first core PMU only.
 */
static void
groups(cpc_t *cpc, const char *first_only, int cpu_of_second)
{
	cpc_set_t *set = cpc_set_create(cpc);
	int key[8], n;

	CHECK(cpc_set_add_request(
		  cpc, set, "task-clock", 0, CPC_COUNT_USER, 0, NULL) == 0);
	CHECK(cpc_set_add_request(
		  cpc, set, "cycles", 0, CPC_COUNT_USER, 0, NULL) == 1);
	CHECK(cpc_set_add_request(
		  cpc, set, first_only, 0, CPC_COUNT_USER, 0, NULL) == 2);
	/* A thread: software 0, the first core PMU's 1, the second's 2. */
	n = cpclib_group_layout(cpc, set, -1, key);
	CHECK(
	    n == 3 && key[0] == 0 && key[1] == 1 && key[2] == 2 && key[3] == 1);
	/* The second core type's CPU: its events and the software one. */
	n = cpclib_group_layout(cpc, set, cpu_of_second, key);
	CHECK(n == 1 && key[0] == 0 && key[1] == -1 && key[2] == 0 &&
	    key[3] == -1);
	/* The first's: all but the second core PMU's. */
	n = cpclib_group_layout(cpc, set, 0, key);
	CHECK(n == 1 && key[0] == 0 && key[1] == 0 && key[2] == -1 &&
	    key[3] == 0);
	(void)cpc_set_destroy(cpc, set);
}

/* A buffer keeps each core PMU's part of what counts on them. */
static void
parts(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf;
	uint64_t v = 1;

	CHECK(cpc_set_add_request(
		  cpc, set, "cycles", 0, CPC_COUNT_USER, 0, NULL) == 0);
	CHECK(cpc_set_add_request(
		  cpc, set, "task-clock", 0, CPC_COUNT_USER, 0, NULL) == 1);
	CHECK((buf = cpc_buf_create(cpc, set)) != NULL);
	CHECK(cpc_buf_get_part(cpc, buf, 0, 0, &v) == 0 && v == 0);
	CHECK(cpc_buf_get_part(cpc, buf, 0, 1, &v) == 0);
	CHECK(cpc_buf_get_part(cpc, buf, 0, 2, &v) == -1 && errno == EINVAL);
	CHECK(cpc_buf_get_part(cpc, buf, 1, 0, &v) == -1 && errno == ENOENT);
	CHECK(cpc_buf_get_part(cpc, buf, 2, 0, &v) == -1 && errno == EINVAL);
	(void)cpc_buf_destroy(cpc, buf);
	(void)cpc_set_destroy(cpc, set);
}

/* A parsed spec: its parted requests, and the names of their parts. */
static void
spec_parts(cpc_t *cpc, const char *name0, const char *name1)
{
	enum spec_error err;
	struct spec *spec = spec_parse(cpc, "cycles,task-clock", &err);

	CHECK(spec != NULL && err == SPEC_OK);
	if (spec == NULL)
		return;
	CHECK(spec->nparts == 2 && spec_nvalues(spec) == 6);
	CHECK(spec->reqs[0].parted && !spec->reqs[1].parted);
	CHECK(spec->part_names != NULL &&
	    strcmp(spec->part_names[0], name0) == 0 &&
	    strcmp(spec->part_names[1], name1) == 0);
	spec_free(spec);
}

static void
attr_seen(void *arg, const char *attr)
{
	char *seen = arg;

	if (strlen(seen) + strlen(attr) + 2 < 128) {
		strcat(seen, attr);
		strcat(seen, " ");
	}
}

/* The attribute names cpc_walk_attrs gives, each followed by a space. */
static void
attrs_of(cpc_t *cpc, char seen[128])
{
	seen[0] = '\0';
	cpc_walk_attrs(cpc, seen, attr_seen);
}

/* Linux 6.1 on an Alder Lake: facts from the tree (SOURCES.md). */
static void
alderlake(cpc_t *cpc)
{
	char attrs[128];
	const uint64_t core = 4ULL << 32, atom = 8ULL << 32;

	core_pmus(cpc, "cpu_core", "0-15", "cpu_atom", "16-23");
	spread(cpc, "cycles", PERF_TYPE_HARDWARE, core | 0, PERF_TYPE_HARDWARE,
	    atom | 0);
	spread(cpc, "instructions", PERF_TYPE_HARDWARE, core | 1,
	    PERF_TYPE_HARDWARE, atom | 1);
	spread(cpc, "PAPI_tot_ins", PERF_TYPE_HARDWARE, core | 1,
	    PERF_TYPE_HARDWARE, atom | 1);
	spread(cpc, "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, core | 0x10000,
	    PERF_TYPE_HW_CACHE, atom | 0x10000);
	spread(cpc, "cycles:u", PERF_TYPE_HARDWARE, core, PERF_TYPE_HARDWARE,
	    atom);
	spread(cpc, "r01c2", 4, 0x1c2, 8, 0x1c2);
	/* events/topdown-retiring: event=0x00,umask=0x80; event=0xc2. */
	spread(cpc, "topdown-retiring", 4, 0x8000, 8, 0xc2);
	/* Only cpu_core has events/topdown-heavy-ops: said. */
	one(cpc, "topdown-heavy-ops", 4, 0x8400);
	CHECK(note_has(cpc, "topdown-heavy-ops",
	    "counted on cpu_core (CPUs 0-15) only: cpu_atom (CPUs 16-23) "
	    "has no such event"));
	CHECK(!note_has(cpc, "cycles", "only"));
	/* A PMU named keeps the event there. */
	one(cpc, "cpu_core/cycles/", PERF_TYPE_HARDWARE, core | 0);
	one(cpc, "cpu_atom/cycles/:u", PERF_TYPE_HARDWARE, atom | 0);
	one(cpc, "cpu_atom/instructions/", 8, 0xc0);
	one(cpc, "cpu_core/event=0x3c/", 4, 0x3c);
	one(cpc, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	groups(cpc, "topdown-heavy-ops", 16);
	/*
	 * libpfm4 has no model of it here: Intel's event-select fields, from
	 * the recorded CPU's vendor, whatever the host's.
	 */
	attrs_of(cpc, attrs);
	CHECK(strstr(attrs, "anythr ") != NULL && strstr(attrs, "pc ") == NULL);
	parts(cpc);
	spec_parts(cpc, "cpu_core", "cpu_atom");
	listings(cpc, "core PMUs: cpu_core (CPUs 0-15), cpu_atom (CPUs 16-23)",
	    "cpu_atom/\tcore PMU\tcounts on CPUs 16-23;");
}

/* Linux 6.12 on an RK3588, read as a kernel that takes extended types. */
static void
rk3588_extended(cpc_t *cpc)
{
	const uint64_t a55 = 10ULL << 32, a76 = 11ULL << 32;

	core_pmus(cpc, "armv8_cortex_a55", "0-3", "armv8_cortex_a76", "4-7");
	spread(cpc, "cycles", PERF_TYPE_HARDWARE, a55, PERF_TYPE_HARDWARE, a76);
	spread(cpc, "branch-instructions", PERF_TYPE_HARDWARE, a55 | 4,
	    PERF_TYPE_HARDWARE, a76 | 4);
}

/*
 * And read as a kernel that takes none (arm64 before 6.6): each PMU's own
 * event for a generic one (armv8_pmuv3_perf_map), or why not.
 */
static void
rk3588(cpc_t *cpc)
{
	core_pmus(cpc, "armv8_cortex_a55", "0-3", "armv8_cortex_a76", "4-7");
	spread(cpc, "cycles", 10, 0x11, 11, 0x11);
	spread(cpc, "instructions", 10, 0x08, 11, 0x08);
	spread(cpc, "cache-misses", 10, 0x03, 11, 0x03);
	spread(cpc, "inst_retired", 10, 0x08, 11, 0x08);
	spread(cpc, "0x08", 10, 0x08, 11, 0x08);
	one(cpc, "armv8_cortex_a55/cycles/", 10, 0x11);
	one(cpc, "armv8_cortex_a76/inst_retired/", 11, 0x08);
	CHECK(why_has(cpc, "branch-instructions",
	    "this kernel cannot open a generic event on each of the 2 core "
	    "PMUs"));
	groups(cpc, "armv8_cortex_a55/inst_retired/", 4);
	spec_parts(cpc, "armv8_cortex_a55", "armv8_cortex_a76");
	listings(cpc,
	    "core PMUs: armv8_cortex_a55 (CPUs 0-3), armv8_cortex_a76 (CPUs "
	    "4-7)",
	    "armv8_cortex_a76/\tcore PMU\tcounts on CPUs 4-7;");
}

/* One core PMU: nothing spread, no parts, no core PMU lines. */
static void
sapphirerapids(cpc_t *cpc)
{
	enum spec_error err;
	struct spec *spec;
	char *h = listing(cpc, false);

	CHECK(cpc_core_pmu(cpc, 0, NULL) != NULL &&
	    strcmp(cpc_core_pmu(cpc, 0, NULL), "cpu") == 0);
	CHECK(cpc_core_pmu(cpc, 1, NULL) == NULL);
	/*
	 * Its model's, not the host's: libpfm4's name, and Intel's 8 general
	 * and 4 fixed counters.
	 */
	CHECK(strstr(cpc_cciname(cpc), "Intel SapphireRapid") != NULL);
	CHECK_EQ_U64(cpc_npic(cpc), 12);
	one(cpc, "cycles", PERF_TYPE_HARDWARE, 0);
	one(cpc, "r01c2", 4, 0x1c2);
	CHECK(h != NULL && strstr(h, "core PMUs:") == NULL);
	free(h);
	spec = spec_parse(cpc, "cycles,task-clock", &err);
	CHECK(spec != NULL && spec->nparts == 0 && spec_nvalues(spec) == 2);
	spec_free(spec);
}

static const struct {
	const char *tree;
	int extended;
	void (*check)(cpc_t *);
} machines[] = {
	{ "intel-alderlake-hybrid", 1, alderlake },
	{ "arm-rk3588-biglittle", 1, rk3588_extended },
	{ "arm-rk3588-biglittle", 0, rk3588 },
	{ "intel-sapphirerapids", 1, sapphirerapids },
};

/* Machine m's checks, in a process of its own. */
static int
child(int m)
{
	cpc_t *cpc;
	int status;

	check_count = check_failures = 0; /* the parent's are not ours */
	recorded_machine(machines[m].tree, machines[m].extended);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		fprintf(stderr, "cpc_open: %s\n", strerror(errno));
		return 1;
	}
	machines[m].check(cpc);
	cpc_close(cpc);
	status = check_report(machines[m].tree);
	fflush(NULL);
	return status;
}

int
main(void)
{
	size_t m;
	pid_t pid;
	int status;

	for (m = 0; m < sizeof(machines) / sizeof(machines[0]); m++) {
		fflush(NULL);
		if ((pid = fork()) == 0)
			_exit(child((int)m));
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fprintf(stderr, "%s (extended types %s): failed\n",
			    machines[m].tree,
			    machines[m].extended ? "taken" : "refused");
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	return check_report("test_spec_hybrid");
}
