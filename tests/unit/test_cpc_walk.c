/*
 * Walkers and handle facts: the walkers list what this kernel can
 * actually open, and nothing it cannot (no hardware event where the
 * kernel has no PMU).
 */
#include "test_cpc.h"

#define MAX_NAMES	4096

struct names {
	int	 n;
	char	*name[MAX_NAMES];
};

static void
collect(void *arg, const char *event)
{
	struct names *l = arg;

	if (l->n < MAX_NAMES)
		l->name[l->n++] = strdup(event);
}

static void
collect_pic(void *arg, uint_t picno, const char *event)
{
	(void)picno;
	collect(arg, event);
}

static bool
contains(const struct names *l, const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->name[i], name) == 0)
			return true;
	return false;
}

static void
names_free(struct names *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->name[i]);
	l->n = 0;
}

/* Perf's generic hardware and cache names: all need a PMU. */
static const char *const hardware_names[] = {
	"cycles", "cpu-cycles", "instructions", "cache-references",
	"cache-misses", "branch-instructions", "branches", "branch-misses",
	"bus-cycles", "ref-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "L1-dcache-loads", "L1-dcache-load-misses",
	"L1-dcache-stores", "L1-icache-loads", "L1-icache-load-misses",
	"LLC-loads", "LLC-load-misses", "dTLB-loads", "dTLB-load-misses",
	"iTLB-loads", "iTLB-load-misses", "branch-loads", "branch-load-misses",
};

/* Every listed name can be added, bound to this thread and sampled. */
static void
check_openable(cpc_t *cpc, const char *event)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf;
	int ok = 0;

	if (cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER, 0,
	    NULL) != 0) {
		fprintf(stderr, "listed event %s cannot be added\n", event);
		CHECK(!"listed event can be added");
		cpc_set_destroy(cpc, set);
		return;
	}
	buf = cpc_buf_create(cpc, set);
	if (bind_curlwp_patiently(cpc, set, 0) == 0) {
		ok = cpc_set_sample(cpc, set, buf) == 0 || errno == EAGAIN;
		cpc_unbind(cpc, set);
	}
	if (!ok)
		fprintf(stderr, "listed event %s cannot be counted: %s\n",
		    event, strerror(errno));
	CHECK(ok);
	cpc_buf_destroy(cpc, buf);
	cpc_set_destroy(cpc, set);
}

static void
events_all(cpc_t *cpc)
{
	struct names all = { 0 }, pic = { 0 }, last = { 0 }, generic = { 0 };
	size_t i;
	int j, k;

	cpc_walk_events_all(cpc, &all, collect);
	CHECK(all.n > 0 && all.n < MAX_NAMES);
	CHECK(contains(&all, "task-clock"));
	CHECK(contains(&all, "page-faults"));
	CHECK(contains(&all, "context-switches"));
	for (j = 0; j < all.n; j++)
		for (k = j + 1; k < all.n; k++)
			CHECK(strcmp(all.name[j], all.name[k]) != 0);
	for (j = 0; j < all.n; j++) {
		CHECK(strncmp(all.name[j], "PAPI", 4) != 0);
		check_openable(cpc, all.name[j]);
	}

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
		for (i = 0; i < sizeof(hardware_names) /
		    sizeof(hardware_names[0]); i++) {
			if (contains(&all, hardware_names[i]))
				fprintf(stderr, "hardware event listed: %s\n",
				    hardware_names[i]);
			CHECK(!contains(&all, hardware_names[i]));
		}
		CHECK(generic.n == 0);
		names_free(&pic);
		cpc_walk_generic_events_pic(cpc, 0, &pic, collect_pic);
		CHECK(pic.n == 0);
	} else {
		printf("note: PMU '%s' present: %d events, %d generic\n",
		    cpc_pmu_name(cpc), all.n, generic.n);
	}
	printf("%d events listed\n", all.n);
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

int
main(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	CHECK(cpc != NULL);
	if (cpc == NULL)
		return check_report("test_cpc_walk");
	handle_facts(cpc);
	attrs(cpc);
	events_all(cpc);
	cpc_close(cpc);
	return check_report("test_cpc_walk");
}
