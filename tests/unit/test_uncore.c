/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Uncore and RAPL events on a recorded server: the PMU tree of a 2-socket
 * Ice Lake-X (tests/unit/sysfs-trees/intel-icelakex, read through
 * libcpc's test-only sysfs root; SOURCES.md says where each file comes
 * from). Its memory controllers are boxes, uncore_imc_0 (type 19) and
 * uncore_imc_1 (type 20), with no PMU named uncore_imc: a name without
 * the box number is one event per box, each weighed 1, so that the count
 * is their sum; each box, and RAPL's power PMU, counts on the CPUs of its
 * cpumask, CPU 0 (socket 0) and CPU 1 (socket 1); sysfs gives the CAS
 * counts a scale to MiB and RAPL's energy one to Joules. The one-socket
 * Skylake-X counts on CPU 0, and Zen 3's L3 PMU on a CPU per L3 of four.
 * A two-socket Genoa's memory controllers count each its own socket.
 * Zen 3's and Zen 4's Data Fabric count on CPU 0, Zen 4's with
 * PerfMonV2's wider fields; a guest's platform energy (psys) on CPU 0.
 * A buffer keeps each box's part after the values (and, on the hybrid
 * Alder Lake, after each core PMU's parts), in the order the boxes are
 * named.
 * Each tree is read by a process of its own that stands for that
 * machine, whatever the host (recorded.h: the root, libpfm4's model and
 * the CPU id set before the first cpc_open). What the kernel does with
 * them is for a machine that has them.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "recorded.h"
#include "test_cpc.h"
#include "../../cmd/common/pmumask.h"
#include "../../cmd/common/spec.h"
#include "../../libcpc/evname.h"

/* Each of name's events is on the PMU of types[i], with config. */
static void
check_terms(
    cpc_t *cpc, const char *name, const uint32_t *types, int n, uint64_t config)
{
	struct ev_entry_view v;
	int i;

	CHECK(cpclib_event_view(cpc, name, &v));
	CHECK(v.status == CPC_EVENT_COUNTABLE);
	CHECK(v.enc.nterms == n);
	for (i = 0; i < n && i < v.enc.nterms; i++) {
		CHECK(v.enc.term[i].attr.type == types[i]);
		CHECK(v.enc.term[i].attr.config == config);
		CHECK(v.enc.term[i].sign == 1);
	}
}

/* The CPUs of event's cpumasks, as a list ("0,8"), or "none". */
static void
check_mask(cpc_t *cpc, const char *event, const char *want)
{
	char got[256] = "", *at = got;
	cpu_set_t cpus;
	int c;

	if (pmumask_cpus(cpc, event, &cpus) != 0)
		snprintf(got, sizeof(got), "none");
	for (c = 0; c < CPU_SETSIZE && strcmp(got, "none") != 0; c++)
		if (CPU_ISSET(c, &cpus))
			at += snprintf(at, sizeof(got) - (size_t)(at - got),
			    "%s%d", at == got ? "" : ",", c);
	check_count++;
	if (strcmp(got, want) != 0) {
		check_failures++;
		fprintf(stderr, "%s: CPUs %s, expected %s\n", event, got, want);
	}
}

/* event's scale and unit: want_unit NULL for none (scale 1, unit ""). */
static void
check_scale(cpc_t *cpc, const char *event, double want, const char *want_unit)
{
	char unit[32] = "x";
	double scale = 0;

	CHECK(cpc_event_scale(cpc, event, &scale, unit, sizeof(unit)) ==
	    (want_unit != NULL));
	CHECK(scale == want);
	CHECK(strcmp(unit, want_unit != NULL ? want_unit : "") == 0);
	if (scale != want)
		fprintf(
		    stderr, "%s: scale %g, expected %g\n", event, scale, want);
}

/* The recorded machine tree, as its host would have it (recorded.h). */
static cpc_t *
recorded(const char *tree)
{
	cpc_t *cpc;

	check_count = check_failures = 0; /* the parent's are not ours */
	recorded_machine(tree, 1);
	cpc = cpc_open(CPC_VER_CURRENT);
	CHECK(cpc != NULL);
	return cpc;
}

/*
 * One socket: CPU 0 counts for it; a core PMU counts everywhere. This
 * tree records its socket PMUs' type and cpumask alone, no events or
 * formats: their events are spelled with the config term every PMU takes.
 */
static int
skylakex(void)
{
	cpc_t *cpc = recorded("intel-skylakex");

	if (cpc == NULL)
		return check_report("test_uncore skylakex");
	/* Its own model's counters, 8 general and 3 fixed: not the host's. */
	CHECK(strstr(cpc_cciname(cpc), "Intel Skylake X") != NULL);
	CHECK_EQ_U64(cpc_npic(cpc), 11);
	check_mask(cpc, "power/config=0x02/", "0");
	check_mask(cpc, "uncore_imc/config=0x0f04/", "0");
	check_mask(cpc, "cstate_pkg/config=0x03/", "0");
	/* An event its power PMU does not name here: none. */
	check_mask(cpc, "power/energy-pkg/", "none");
	check_mask(cpc, "cpu/event=0x3c/", "none");
	check_mask(cpc, "cpu-clock", "none");
	check_mask(cpc, "uncore_nothing/x/", "none");
	CHECK(cpc_event_cpumask(cpc, "power/config=0x02/", 1) == NULL);
	CHECK(cpc_event_cpumask(cpc, "power/config=0x02/", -1) == NULL);
	cpc_close(cpc);
	return check_report("test_uncore skylakex");
}

/* One CPU per L3 of four (event 0x04, umask 0xff); no memory boxes. */
static int
zen3(void)
{
	cpc_t *cpc = recorded("amd-zen3");

	if (cpc == NULL)
		return check_report("test_uncore zen3");
	check_mask(cpc, "amd_l3/config=0xff04/", "0,8,16,24");
	check_mask(cpc, "uncore_imc/cas_count_read/", "none");
	/* The Data Fabric, one a socket: CPU 0 counts it. */
	check_mask(cpc, "amd_df/event=0x07,umask=0x38/", "0");
	cpc_close(cpc);
	return check_report("test_uncore zen3");
}

/*
 * Zen 4's amd_df takes PerfMonV2's wider fields (event config:0-7,32-37,
 * umask config:8-15,24-27): local read data beats at coherent station 8,
 * event 0x21f umask 0x7fe, and writes at station 11, event 0x2df umask
 * 0x7ff, on the Data Fabric (type 10), counted on CPU 0.
 */
static int
zen4(void)
{
	static const uint32_t df[] = { 10 };
	cpc_t *cpc = recorded("amd-zen4");

	if (cpc == NULL)
		return check_report("test_uncore zen4");
	check_terms(
	    cpc, "amd_df/event=0x21f,umask=0x7fe/", df, 1, 0x20700fe1fULL);
	check_terms(
	    cpc, "amd_df/event=0x2df,umask=0x7ff/", df, 1, 0x20700ffdfULL);
	check_mask(cpc, "amd_df/event=0x21f,umask=0x7fe/", "0");
	cpc_close(cpc);
	return check_report("test_uncore zen4");
}

/*
 * A guest with no core PMU whose RAPL gives the platform's domain alone:
 * energy-psys, event 0x05 on the power PMU (type 10), counted on its
 * cpumask's CPU 0, in joules of 2^-32.
 */
static int
psys(void)
{
	static const uint32_t power[] = { 10 };
	cpc_t *cpc = recorded("intel-vm-psys");

	if (cpc == NULL)
		return check_report("test_uncore psys");
	check_terms(cpc, "power/energy-psys/", power, 1, 0x05);
	check_mask(cpc, "power/energy-psys/", "0");
	check_scale(cpc, "power/energy-psys/", 1.0 / 4294967296.0, "Joules");
	cpc_close(cpc);
	return check_report("test_uncore psys");
}

static cpc_set_t *set_of(cpc_t *cpc, const char *const *events, int n);

/*
 * A two-socket Genoa: each memory controller a PMU (amd_umc_0 .. 23),
 * boxes 0 to 11 counting socket 0 on CPU 0, 12 to 23 socket 1 on CPU 96.
 * A CPU's set beside them binds on any CPU, and opens them only on the
 * CPUs their cpumasks name: on CPU 1 cpu-clock counts and the controllers
 * are not tried; on CPU 0 they are, and this kernel has no such PMU.
 */
static int
genoa(void)
{
	static const char *const events[] = { "cpu-clock",
		"amd_umc/event=0x0a,rdwrmask=0x1/" };
	cpc_t *cpc = recorded("amd-genoa-2s");
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint64_t clock = 0, umc = 1, box = 1;

	if (cpc == NULL)
		return check_report("test_uncore genoa");
	check_mask(cpc, events[1], "0,96");
	CHECK(strcmp(cpc_event_box(cpc, events[1], 2), "amd_umc_2") == 0);
	CHECK(strcmp(cpc_event_box(cpc, events[1], 10), "amd_umc_10") == 0);
	if ((set = set_of(cpc, events, 2)) == NULL)
		return check_report("test_uncore genoa");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("SKIP CPU 1's bind: this machine has one CPU\n");
	} else {
		CHECK(cpc_bind_cpu(cpc, 1, set, 0) == 0);
		CHECK((buf = cpc_buf_create(cpc, set)) != NULL);
		if (buf != NULL) {
			CHECK(cpc_set_sample(cpc, set, buf) == 0);
			CHECK(
			    cpc_buf_get(cpc, buf, 0, &clock) == 0 && clock > 0);
			CHECK(cpc_buf_get(cpc, buf, 1, &umc) == 0 && umc == 0);
			CHECK(cpc_buf_get_box(cpc, buf, 1, 12, &box) == 0 &&
			    box == 0);
			(void)cpc_buf_destroy(cpc, buf);
		}
		CHECK(cpc_unbind(cpc, set) == 0);
	}
	errno = 0;
	CHECK(cpc_bind_cpu(cpc, 0, set, 0) == -1 && errno != 0);
	(void)cpc_set_destroy(cpc, set);
	cpc_close(cpc);
	return check_report("test_uncore genoa");
}

/* A set of the events, each a request in order. */
static cpc_set_t *
set_of(cpc_t *cpc, const char *const *events, int n)
{
	cpc_set_t *set = cpc_set_create(cpc);
	int i;

	CHECK(set != NULL);
	for (i = 0; set != NULL && i < n; i++)
		CHECK(cpc_set_add_request(cpc, set, events[i], 0,
			  CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL) == i);
	return set;
}

/*
 * The groups a CPU's set is opened in: cpu-clock (event 0) with the
 * CPU's own events; each box of uncore_imc (events 1 and 2) and RAPL's
 * package energy (event 3) a group of its own, past the core PMUs' keys,
 * as the kernel groups no two PMUs' events and takes turns with a socket
 * PMU's; and on a CPU its cpumask does not name (CPU 2: the masks are
 * 0,1), not opened at all (-1), as CPU 0 or 1 counts the socket.
 */
static void
check_layout(cpc_t *cpc)
{
	static const char *const events[] = { "cpu-clock",
		"uncore_imc/cas_count_read/", "power/energy-pkg/" };
	cpc_set_t *set = set_of(cpc, events, 3);
	int key[4], cpu, i;

	if (set == NULL)
		return;
	for (cpu = 0; cpu <= 1; cpu++) {
		CHECK(cpclib_group_layout(cpc, set, cpu, key) == 4);
		CHECK(key[0] == 0);
		for (i = 1; i < 4; i++)
			CHECK(key[i] > CPC_MAX_CORE_PMUS);
		CHECK(key[1] != key[2] && key[2] != key[3] && key[1] != key[3]);
	}
	CHECK(cpclib_group_layout(cpc, set, 2, key) == 1);
	CHECK(key[0] == 0 && key[1] == -1 && key[2] == -1 && key[3] == -1);
	(void)cpc_set_destroy(cpc, set);
}

/* Request index has no box parts: ENOENT. */
static void
check_no_boxes(cpc_t *cpc, cpc_buf_t *buf, int index)
{
	uint64_t v = 7;

	errno = 0;
	CHECK(cpc_buf_get_box(cpc, buf, index, 0, &v) == -1 &&
	    errno == ENOENT && v == 7);
}

/*
 * The boxes of uncore_imc, named; in a buffer, each request's box parts
 * after the values: cas_count_read's two (data[4], data[5]), then
 * cas_count_write's (data[6], data[7]); cpu-clock, RAPL's one PMU and a
 * box named by its number have none. A difference of two buffers is one
 * per box too.
 */
static void
check_box_parts(cpc_t *cpc)
{
	static const char *const events[] = { "cpu-clock",
		"uncore_imc/cas_count_read/", "power/energy-pkg/",
		"uncore_imc/cas_count_write/", "uncore_imc_1/cas_count_read/" };
	cpc_set_t *set = set_of(cpc, events, 5);
	cpc_buf_t *a, *b, *d;
	uint64_t v = 0;
	int i;

	CHECK(cpc_event_box(cpc, events[1], 0) != NULL &&
	    strcmp(cpc_event_box(cpc, events[1], 0), "uncore_imc_0") == 0);
	CHECK(cpc_event_box(cpc, events[1], 1) != NULL &&
	    strcmp(cpc_event_box(cpc, events[1], 1), "uncore_imc_1") == 0);
	CHECK(cpc_event_box(cpc, events[1], 2) == NULL);
	CHECK(cpc_event_box(cpc, events[1], -1) == NULL);
	CHECK(cpc_event_box(cpc, "uncore_imc/cas_count_read/:u", 1) != NULL);
	CHECK(cpc_event_box(cpc, "uncore_imc_1/cas_count_read/", 0) == NULL);
	CHECK(cpc_event_box(cpc, "power/energy-pkg/", 0) == NULL);
	CHECK(cpc_event_box(cpc, "cpu-clock", 0) == NULL);
	CHECK(cpc_event_box(cpc, "uncore_im/cas_count_read/", 0) == NULL);
	if (set == NULL)
		return;
	a = cpc_buf_create(cpc, set);
	b = cpc_buf_create(cpc, set);
	d = cpc_buf_create(cpc, set);
	CHECK(a != NULL && b != NULL && d != NULL);
	if (a == NULL || b == NULL || d == NULL)
		return;
	/* Values, boxes, then each request's two times. */
	CHECK(a->nreqs == 5 && a->ncore == 0 && a->nboxes == 4 &&
	    a->nvalues == 9 + 2 * 5);
	for (i = 0; i < a->nvalues; i++) {
		a->data[i] = 1000 * (uint64_t)(i + 1);
		b->data[i] = (uint64_t)(i + 1);
	}
	CHECK(cpc_buf_get_box(cpc, a, 1, 0, &v) == 0 && v == 6000);
	CHECK(cpc_buf_get_box(cpc, a, 1, 1, &v) == 0 && v == 7000);
	CHECK(cpc_buf_get_box(cpc, a, 3, 0, &v) == 0 && v == 8000);
	CHECK(cpc_buf_get_box(cpc, a, 3, 1, &v) == 0 && v == 9000);
	check_no_boxes(cpc, a, 0);
	check_no_boxes(cpc, a, 2);
	check_no_boxes(cpc, a, 4);
	errno = 0;
	CHECK(cpc_buf_get_box(cpc, a, 1, 2, &v) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(cpc_buf_get_box(cpc, a, 5, 0, &v) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(cpc_buf_get_box(cpc, a, 1, -1, &v) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(cpc_buf_get_box(cpc, a, 1, 0, NULL) == -1 && errno == EINVAL);
	cpc_buf_sub(cpc, d, a, b);
	CHECK(cpc_buf_get_box(cpc, d, 1, 1, &v) == 0 && v == 7000 - 7);
	CHECK(cpc_buf_get_box(cpc, d, 3, 0, &v) == 0 && v == 8000 - 8);
	cpc_buf_zero(cpc, d);
	CHECK(cpc_buf_get_box(cpc, d, 3, 1, &v) == 0 && v == 0);
	(void)cpc_buf_destroy(cpc, a);
	(void)cpc_buf_destroy(cpc, b);
	(void)cpc_buf_destroy(cpc, d);
	(void)cpc_set_destroy(cpc, set);
}

static int
icelakex(void)
{
	static const uint32_t boxes[] = { 19, 20 }, power[] = { 11 };
	struct ev_entry_view v;
	char unit[8];
	double scale;
	cpc_t *cpc = recorded("intel-icelakex");

	if (cpc == NULL)
		return check_report("test_uncore icelakex");
	/* The kernel's event=0x04 with umask 0x0f and 0x30, on each box. */
	check_terms(cpc, "uncore_imc/cas_count_read/", boxes, 2, 0x0f04);
	check_terms(cpc, "uncore_imc/cas_count_write/", boxes, 2, 0x3004);
	check_terms(cpc, "uncore_imc/event=0x01/", boxes, 2, 0x01);
	/* A box named counts alone. */
	check_terms(cpc, "uncore_imc_1/cas_count_read/", boxes + 1, 1, 0x0f04);
	check_terms(cpc, "power/energy-pkg/", power, 1, 0x02);
	check_terms(cpc, "power/energy-ram/", power, 1, 0x03);
	/* Boxes of another name are not these. */
	CHECK(cpclib_event_view(cpc, "uncore_im/cas_count_read/", &v));
	CHECK(v.status != CPC_EVENT_COUNTABLE);
	CHECK(strstr(v.why, "no PMU 'uncore_im'") != NULL);

	/* Two sockets: CPU 0 and CPU 1, the first of each; per box. */
	check_mask(cpc, "uncore_imc/cas_count_read/", "0,1");
	check_mask(cpc, "uncore_imc_0/cas_count_read/", "0,1");
	check_mask(cpc, "power/energy-pkg/", "0,1");
	CHECK(cpc_event_cpumask(cpc, "uncore_imc/cas_count_read/", 1) != NULL);
	CHECK(cpc_event_cpumask(cpc, "uncore_imc/cas_count_read/", 2) == NULL);
	CHECK(
	    cpc_event_cpumask(cpc, "uncore_imc_1/cas_count_read/", 1) == NULL);

	/* 64 bytes per CAS in MiB: 64 / 2^20; RAPL's 2^-32 J per count. */
	check_scale(cpc, "uncore_imc/cas_count_read/", 64.0 / 1048576, "MiB");
	check_scale(
	    cpc, "uncore_imc_1/cas_count_write/", 64.0 / 1048576, "MiB");
	check_scale(cpc, "power/energy-pkg/", 1.0 / 4294967296.0, "Joules");
	check_scale(cpc, "power/energy-ram/:u", 1.0 / 4294967296.0, "Joules");
	check_scale(cpc, "energy-pkg", 1.0 / 4294967296.0, "Joules");
	/* No such files, terms rather than a name, or no such event. */
	check_scale(cpc, "uncore_imc/clockticks/", 1, NULL);
	check_scale(cpc, "uncore_imc/event=0x04,umask=0x0f/", 1, NULL);
	check_scale(cpc, "cpu-clock", 1, NULL);
	check_scale(cpc, "nosuch/energy-pkg/", 1, NULL);
	/* A unit cut to the caller's room; no room at all. */
	CHECK(cpc_event_scale(
		  cpc, "power/energy-pkg/", &scale, unit, sizeof(unit)) == 1 &&
	    strcmp(unit, "Joules") == 0);
	CHECK(cpc_event_scale(cpc, "power/energy-pkg/", &scale, unit, 4) == 1 &&
	    strcmp(unit, "Jou") == 0);
	CHECK(cpc_event_scale(cpc, "power/energy-pkg/", &scale, NULL, 0) == 1);
	errno = 0;
	CHECK(cpc_event_scale(cpc, "power/energy-pkg/", NULL, unit, 8) == -1 &&
	    errno == EINVAL);
	check_layout(cpc);
	check_box_parts(cpc);
	cpc_close(cpc);
	return check_report("test_uncore icelakex");
}

/*
 * A parsed spec lays its counts out as the buffer does: three values,
 * cycles' part on cpu_core and cpu_atom (values[3], [4]), two zeros for
 * each other request, then the box event's part on each box (values[9],
 * [10]); task-clock has no parts.
 */
static void
check_spec_parts(cpc_t *cpc)
{
	static const uint64_t values[11] = { 0, 0, 0, 3, 4, 0, 0, 0, 0, 9, 10 };
	enum spec_error err;
	struct spec *spec =
	    spec_parse(cpc, "cycles,uncore_imc/config=0x01/,task-clock", &err);
	const char *const *names;
	const uint64_t *p;

	CHECK(spec != NULL && err == SPEC_OK);
	if (spec == NULL)
		return;
	CHECK(
	    spec->nparts == 2 && spec->nboxes == 2 && spec_nvalues(spec) == 11);
	CHECK(spec_req_parts(spec, 0, values, &names, &p) == 2 &&
	    strcmp(names[1], "cpu_atom") == 0 && p[0] == 3 && p[1] == 4);
	CHECK(spec_req_parts(spec, 1, values, &names, &p) == 2 &&
	    strcmp(names[0], "uncore_imc_0") == 0 &&
	    strcmp(names[1], "uncore_imc_1") == 0 && p[0] == 9 && p[1] == 10);
	CHECK(spec_req_parts(spec, 2, values, &names, &p) == 0);
	spec_free(spec);
}

/*
 * Two core PMUs (cpu_core, cpu_atom) and two memory controllers
 * (uncore_imc_0, type 28, and uncore_imc_1, 29; the free-running ones
 * are PMUs of another name): cycles has a part per core PMU (data[2],
 * data[3]), the box event one per box after all of those (data[6],
 * data[7]), and neither the other's kind of part.
 */
static int
alderlake(void)
{
	static const char *const events[] = { "cycles",
		"uncore_imc/config=0x01/" };
	static const uint32_t boxes[] = { 28, 29 };
	cpc_t *cpc = recorded("intel-alderlake-hybrid");
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint64_t v = 0;
	int i;

	if (cpc == NULL)
		return check_report("test_uncore alderlake");
	check_terms(cpc, events[1], boxes, 2, 0x01);
	CHECK(cpc_event_box(cpc, events[1], 1) != NULL &&
	    strcmp(cpc_event_box(cpc, events[1], 1), "uncore_imc_1") == 0);
	set = set_of(cpc, events, 2);
	buf = set != NULL ? cpc_buf_create(cpc, set) : NULL;
	CHECK(buf != NULL);
	if (buf != NULL) {
		CHECK(buf->ncore == 2 && buf->nboxes == 2 &&
		    buf->nvalues == 8 + 2 * 2);
		for (i = 0; i < buf->nvalues; i++)
			buf->data[i] = (uint64_t)(i + 1) * 10;
		CHECK(cpc_buf_get_part(cpc, buf, 0, 1, &v) == 0 && v == 40);
		CHECK(cpc_buf_get_box(cpc, buf, 1, 0, &v) == 0 && v == 70);
		CHECK(cpc_buf_get_box(cpc, buf, 1, 1, &v) == 0 && v == 80);
		check_no_boxes(cpc, buf, 0);
		errno = 0;
		CHECK(cpc_buf_get_part(cpc, buf, 1, 0, &v) == -1 &&
		    errno == ENOENT);
		(void)cpc_buf_destroy(cpc, buf);
	}
	if (set != NULL)
		(void)cpc_set_destroy(cpc, set);
	check_spec_parts(cpc);
	cpc_close(cpc);
	return check_report("test_uncore alderlake");
}

int
main(void)
{
	int (*const trees[])(
	    void) = { icelakex, skylakex, zen3, zen4, alderlake, genoa, psys };
	size_t t;
	int status;
	pid_t pid;

	for (t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
		fflush(stdout);
		if ((pid = fork()) == 0)
			_exit(trees[t]());
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
		CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	return check_report("test_uncore");
}
