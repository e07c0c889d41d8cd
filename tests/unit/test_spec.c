/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The -c event specification parser: the grammar of the Solaris tools,
 * their exact error messages, strict attribute numbers, perf's set
 * syntax mixed in (term lists, groups, modifiers, tracepoint globs), and
 * the honest refusal of events this machine cannot count.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "check.h"
#include "diag.h"
#include "spec.h"

static cpc_t *cpc;
static char errbuf[8192];

/* Parse with stderr captured into errbuf. */
static struct spec *
parse(const char *text, enum spec_error *err)
{
	char path[] = "/tmp/test_spec.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	struct spec *spec;
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	spec = spec_parse(cpc, text, err);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, errbuf, sizeof(errbuf) - 1);
	errbuf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return spec;
}

/* The spec is refused as want says, with message, on one line. */
static void
expect_refused(const char *text, enum spec_error want_err, const char *message)
{
	enum spec_error err;
	struct spec *spec = parse(text, &err);
	char want[512];

	snprintf(want, sizeof(want), "test_spec: %s\n", message);
	CHECK(spec == NULL);
	CHECK(err == want_err);
	if (strcmp(errbuf, want) != 0) {
		check_failures++;
		fprintf(stderr, "spec '%s': got '%s', want '%s'\n", text,
		    errbuf, want);
	}
	spec_free(spec);
}

/* A usage error. */
static void
expect_error(const char *text, const char *message)
{
	expect_refused(text, SPEC_SYNTAX, message);
}

/* A name of no event: said on one line, not a usage error. */
static void
expect_unknown(const char *text, const char *message)
{
	expect_refused(text, SPEC_UNCOUNTABLE, message);
}

static void
test_bare_events_fill_left_to_right(void)
{
	enum spec_error err;
	struct spec *s = parse("task-clock,page-faults", &err);

	CHECK(s != NULL && err == SPEC_OK);
	if (s == NULL)
		return;
	CHECK(s->nreqs == 2);
	CHECK(strcmp(s->reqs[0].event, "task-clock") == 0);
	CHECK(s->reqs[0].picnum == 0 && s->reqs[1].picnum == 1);
	CHECK(s->reqs[0].flags == CPC_COUNT_USER);
	CHECK(!s->system_only);
	CHECK(strcmp(s->reqs[0].attrs[s->reqs[0].nattrs - 1].ca_name,
		  "picnum") == 0);
	spec_free(s);
}

static void
test_implicit_goes_above_explicit(void)
{
	enum spec_error err;
	struct spec *s = parse("pic3=task-clock,page-faults", &err);

	CHECK(s != NULL);
	if (s == NULL)
		return;
	CHECK(s->nreqs == 2);
	CHECK(s->reqs[0].picnum == 3 && s->reqs[1].picnum == 4);
	CHECK(strcmp(s->reqs[1].event, "page-faults") == 0);
	spec_free(s);
}

static void
test_flags(void)
{
	enum spec_error err;
	struct spec *s = parse("nouser,sys,task-clock", &err);

	CHECK(s != NULL);
	if (s != NULL) {
		CHECK(s->reqs[0].flags == CPC_COUNT_SYSTEM);
		CHECK(s->system_only);
	}
	spec_free(s);
	s = parse("task-clock,page-faults,sys1,nouser0=ignored", &err);
	CHECK(s != NULL);
	if (s != NULL) {
		CHECK(s->reqs[0].flags == 0);
		CHECK(s->reqs[1].flags == (CPC_COUNT_USER | CPC_COUNT_SYSTEM));
	}
	spec_free(s);
}

static void
test_messages(void)
{
	expect_error("page-faults,pic0=task-clock", "repeated 'pic0' token");
	expect_error("pic1=", "missing 'pic1' value");
	expect_error("pic2", "missing 'pic2' value");
	expect_unknown("pic0=nonsense_event",
	    "pic0 cannot measure event 'nonsense_event' on this cpu: no event "
	    "has that name (--list lists them)");
	expect_error("foo=bar", "bad token 'foo=bar'");
	expect_unknown("task-clock,foo",
	    "bad token 'foo': no event has that name (--list lists them)");
	expect_unknown(
	    "0", "bad token '0': no event has that name (--list lists them)");
	/* A misspelled name: the nearest names instead. */
	expect_unknown("task-clok",
	    "bad token 'task-clok'; did you mean "
	    "task-clock?");
	expect_unknown("pic1=page-fualts",
	    "pic1 cannot measure event "
	    "'page-fualts' on this cpu; did you mean page-faults?");
	expect_error("pic7=task-clock,page-faults", "bad token 'page-faults'");
}

static void
test_too_many_events(void)
{
	char text[512] = "";
	uint_t i;

	for (i = 0; i <= cpc_npic(cpc); i++)
		strlcat(text, i ? ",task-clock" : "task-clock", sizeof(text));
	expect_error(text, "bad token 'task-clock'");
}

static bool have_attr;

static void
find_umask(void *arg, const char *attr)
{
	(void)arg;
	if (strcmp(attr, "umask") == 0)
		have_attr = true;
}

static void
test_attributes(void)
{
	enum spec_error err;
	struct spec *s;

	cpc_walk_attrs(cpc, NULL, find_umask);
	if (!have_attr) {
		printf("note: this CPU has no 'umask' attribute; attribute "
		       "checks skipped\n");
		return;
	}
	expect_error("task-clock,umask=0x3zz",
	    "invalid value '0x3zz' for attribute 'umask'");
	expect_error("task-clock,umask0=",
	    "invalid value '' for attribute "
	    "'umask'");
	s = parse("task-clock,page-faults,umask1=0x12,cmask", &err);
	CHECK(s != NULL);
	if (s == NULL)
		return;
	/* cmask (no value: 1) on both, umask only on counter 1, picnum last. */
	CHECK(s->reqs[0].nattrs == 2 && s->reqs[1].nattrs == 3);
	CHECK(strcmp(s->reqs[1].attrs[1].ca_name, "umask") == 0);
	CHECK(s->reqs[1].attrs[1].ca_val == 0x12);
	CHECK(strcmp(s->reqs[0].attrs[0].ca_name, "cmask") == 0);
	CHECK(s->reqs[0].attrs[0].ca_val == 1);
	spec_free(s);
}

static void
test_uncountable_named_each(void)
{
	enum spec_error err;
	struct spec *s;

	if (cpc_pmu_name(cpc) != NULL) {
		printf("note: this kernel has a PMU; no-PMU checks skipped\n");
		return;
	}
	s = parse("cycles,instructions", &err);
	CHECK(s == NULL && err == SPEC_UNCOUNTABLE);
	CHECK(strstr(errbuf, "test_spec: cycles") == errbuf);
	CHECK(strstr(errbuf, "\ntest_spec: instructions") != NULL);
	CHECK(strstr(errbuf, "no hardware counters") != NULL);
	CHECK(strstr(errbuf, "countable here: ") != NULL);
	CHECK(strstr(errbuf, "task-clock") != NULL);
	/* Counted as LLC events where there are hardware counters. */
	s = parse("EC_ref,EC_hit", &err);
	CHECK(s == NULL && err == SPEC_UNCOUNTABLE);
	CHECK(strstr(errbuf,
		  "test_spec: EC_ref (UltraSPARC E-cache "
		  "references") == errbuf);
	CHECK(strstr(errbuf,
		  "counted as LLC references (cache-references)), "
		  "and this kernel has no hardware counters") != NULL);
	CHECK(strstr(errbuf, "\ntest_spec: EC_hit") != NULL);
	CHECK(strstr(errbuf, "LLC hits (cache-references - cache-misses)") !=
	    NULL);
}

static void
test_tracepoint_and_build(void)
{
	enum spec_error err;
	struct spec *s;
	cpc_set_t *set;

	if (access("/sys/kernel/tracing/events", F_OK) != 0)
		(void)mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (access("/sys/kernel/tracing/events", F_OK) != 0) {
		printf("note: no tracefs; tracepoint parse skipped\n");
		return;
	}
	s = parse("syscalls:sys_enter_write,task-clock", &err);
	CHECK(s != NULL);
	if (s == NULL)
		return;
	set = spec_build_set(cpc, s);
	CHECK(set != NULL);
	if (set != NULL)
		CHECK(cpc_set_destroy(cpc, set) == 0);
	spec_free(s);
}

/* The events of a parsed spec, "a b c", for comparisons. */
static void
events_of(const struct spec *s, char *buf, size_t len)
{
	int i;

	buf[0] = '\0';
	for (i = 0; s != NULL && i < s->nreqs; i++) {
		if (i > 0)
			strlcat(buf, " ", len);
		strlcat(buf, s->reqs[i].event, len);
	}
}

static void
expect_events(const char *text, const char *want)
{
	enum spec_error err;
	struct spec *s = parse(text, &err);
	char got[1024];

	events_of(s, got, sizeof(got));
	if (s == NULL || err != SPEC_OK || strcmp(got, want) != 0) {
		check_failures++;
		fprintf(stderr, "spec '%s': events '%s', want '%s' (%s)\n",
		    text, got, want, errbuf);
	}
	check_count++;
	spec_free(s);
}

/* perf's set syntax inside -c, mixed with the Solaris one. */
static void
test_perf_syntax(void)
{
	enum spec_error err;
	struct spec *s;

	/* Commas inside a term list do not end the item. */
	expect_events("msr/event=0x0,config1=0/,task-clock",
	    "msr/event=0x0,config1=0/ task-clock");
	expect_events(
	    "pic2=msr/event=0x0,config2=0/,sys", "msr/event=0x0,config2=0/");
	expect_events("cpu-clock/period=1000,name=x/",
	    "cpu-clock/period=1000,"
	    "name=x/");
	/* A group: its modifiers go to each member without its own. */
	expect_events(
	    "{task-clock,page-faults:k}:u", "task-clock:u page-faults:k");
	expect_events("{task-clock,msr/tsc/},cs", "task-clock msr/tsc/ cs");
	expect_events("{cs,syscalls:sys_enter_write}:k",
	    "cs:k syscalls:sys_enter_write:k");
	s = parse("{task-clock,page-faults}:k,nouser", &err);
	CHECK(s != NULL && s->nreqs == 2);
	if (s != NULL) {
		/* The modifier's modes are the request's flags. */
		CHECK(s->reqs[0].flags == CPC_COUNT_SYSTEM);
		CHECK(s->system_only);
	}
	spec_free(s);
	s = parse("task-clock:u,page-faults,sys", &err);
	CHECK(s != NULL && s->nreqs == 2);
	if (s != NULL) {
		CHECK(s->reqs[0].flags == CPC_COUNT_USER);
		CHECK(s->reqs[1].flags == (CPC_COUNT_USER | CPC_COUNT_SYSTEM));
	}
	spec_free(s);
	expect_error("{task-clock", "bad token '{task-clock'");
	expect_error("{task-clock}x", "bad token '{task-clock}x'");
	/* Both syntaxes, in one set. */
	expect_events("pic1=task-clock:u,{page-faults,cs},nouser1",
	    "task-clock:u page-faults cs");
}

/*
 * A glob longer than any event name, its modifiers past that length:
 * it matches nothing, and nothing is written past the pattern's buffer
 * (a fuzz find).
 */
static void
test_long_glob(void)
{
	enum spec_error err;
	char item[1200];
	struct spec *s;

	memset(item, 'x', sizeof(item));
	memcpy(item, "syscalls:*", 10);
	memcpy(item + sizeof(item) - 3, ":k", 3);
	s = parse(item, &err);
	CHECK(s == NULL && err == SPEC_UNCOUNTABLE);
	CHECK(strstr(errbuf, ": no tracepoint of this kernel matches it\n") !=
	    NULL);
}

/* A tracepoint glob: every match fills a counter, up to the last. */
static void
test_globs(void)
{
	enum spec_error err;
	struct spec *s;
	char got[1024];

	if (access("/sys/kernel/tracing/events/syscalls", F_OK) != 0) {
		printf("note: no syscalls tracepoints; globs skipped\n");
		return;
	}
	s = parse("syscalls:sys_enter_write*", &err);
	CHECK(s != NULL && err == SPEC_OK);
	events_of(s, got, sizeof(got));
	CHECK(strstr(got, "syscalls:sys_enter_write") != NULL);
	CHECK(strstr(got, "syscalls:sys_enter_writev") != NULL);
	CHECK(s == NULL || s->nreqs == 2);
	spec_free(s);
	s = parse("task-clock,syscalls:sys_enter_write?:k", &err);
	events_of(s, got, sizeof(got));
	CHECK(strcmp(got, "task-clock syscalls:sys_enter_writev:k") == 0);
	spec_free(s);
	s = parse("syscalls:sys_enter_*", &err);
	CHECK(s == NULL && err == SPEC_UNCOUNTABLE);
	CHECK(strstr(errbuf, "test_spec: syscalls:sys_enter_*: matches ") ==
	    errbuf);
	CHECK(strstr(errbuf, "more than the 8 counters left in this set") !=
		NULL ||
	    cpc_npic(cpc) != 8);
	s = parse("syscalls:no_such_*", &err);
	CHECK(s == NULL && err == SPEC_UNCOUNTABLE);
	CHECK(strcmp(errbuf,
		  "test_spec: syscalls:no_such_*: no tracepoint of "
		  "this kernel matches it\n") == 0);
	test_long_glob();
}

/* Known forms this kernel cannot count: the reason, never bad token. */
static void
test_known_forms_refused(void)
{
	static const struct {
		const char *spec, *says;
	} cases[] = {
		{ "syscalls:nonexistent",
		    "syscalls:nonexistent: no such "
		    "tracepoint in this kernel" },
		{ "duration_time", "a perf tool event" },
		{ "task-clock:S", "perf's modifier 'S'" },
		{ "msr/bogus/", "unknown term 'bogus' for PMU msr" },
		{ "no_such_pmu/event=1/",
		    "no PMU 'no_such_pmu' in this "
		    "kernel" },
		{ "L1-icache-stores", "no store operation" },
		{ "Dispatch0_mispred", "no equivalent on this CPU" },
		{ "PAPI_tlb_tm", "no equivalent on this CPU" },
		{ "mem:nowhere:x", "'nowhere' is not an address" },
	};
	enum spec_error err;
	struct spec *s;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (strncmp(cases[i].spec, "syscalls:", 9) == 0 &&
		    access("/sys/kernel/tracing/events", F_OK) != 0)
			continue;
		s = parse(cases[i].spec, &err);
		CHECK(s == NULL && err == SPEC_UNCOUNTABLE);
		if (strstr(errbuf, cases[i].says) == NULL ||
		    strstr(errbuf, "bad token") != NULL ||
		    strchr(errbuf, '\n') != errbuf + strlen(errbuf) - 1) {
			check_failures++;
			fprintf(stderr,
			    "spec '%s': '%s', want one line with "
			    "'%s'\n",
			    cases[i].spec, errbuf, cases[i].says);
		}
		spec_free(s);
	}
	/* Names of no form at all stay Solaris's bad token. */
	expect_unknown("nonsense_event",
	    "bad token 'nonsense_event': no event "
	    "has that name (--list lists them)");
}

/* A name counted by its nearest equivalent says so, once. */
static void
test_notes(void)
{
	enum spec_error err;
	struct spec *s;

	if (cpc_pmu_name(cpc) == NULL) {
		printf("note: no PMU; the nearest-equivalent note is checked "
		       "where EC_ref can count\n");
		return;
	}
	s = parse("EC_ref,EC_hit", &err);
	CHECK(s != NULL && err == SPEC_OK);
	CHECK(strstr(errbuf,
		  "test_spec: note: EC_ref: counted as LLC "
		  "references (cache-references)") == errbuf);
	CHECK(strstr(errbuf,
		  "\ntest_spec: note: EC_hit: counted as LLC "
		  "hits") != NULL);
	spec_free(s);
}

static void
test_header(void)
{
	enum spec_error err;
	struct spec *s = parse("task-clock,pic7=page-faults", &err);
	char buf[64] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	CHECK(s != NULL);
	if (s != NULL)
		spec_header(s, f);
	fclose(f);
	CHECK(strcmp(buf, "     pic0      pic7 ") == 0);
	spec_free(s);
}

/* Whether request r has a picnum attribute, and its value. */
static int
picnum_attr(const struct spec_req *r)
{
	uint_t k;

	for (k = 0; k < r->nattrs; k++)
		if (strcmp(r->attrs[k].ca_name, "picnum") == 0)
			return (int)r->attrs[k].ca_val;
	return -1;
}

/*
 * Each {...} is a perf group of its own, the events outside braces the
 * set's first (0); counters are numbered across the set, past cpc_npic,
 * where a picnum no longer names a counter of the PMU.
 */
static void
test_groups(void)
{
	enum spec_error err;
	struct spec *s;
	char text[1024] = "task-clock,{cs";
	int i, n = (int)cpc_npic(cpc);

	s = parse("{task-clock,msr/tsc/},cs,{page-faults}", &err);
	CHECK(s != NULL && s->nreqs == 4 && s->ngroups == 3);
	if (s != NULL && s->nreqs == 4) {
		CHECK(s->reqs[0].group == 1 && s->reqs[1].group == 1);
		CHECK(s->reqs[2].group == 0 && s->reqs[3].group == 2);
		for (i = 0; i < 4; i++)
			CHECK(s->reqs[i].picnum == i &&
			    picnum_attr(&s->reqs[i]) == i);
	}
	spec_free(s);
	/* A lone group is one group, as a set without braces. */
	s = parse("{task-clock,cs}", &err);
	CHECK(s != NULL && s->ngroups == 1 && s->reqs[0].group == 1);
	spec_free(s);
	s = parse("task-clock,cs", &err);
	CHECK(s != NULL && s->ngroups == 1 && s->reqs[0].group == 0);
	spec_free(s);
	/* npic events outside braces and npic in one: 2 npic requests. */
	for (i = 1; i < n; i++)
		strlcat(text, i + 1 < n ? ",task-clock" : ",cs}", sizeof(text));
	for (i = 1; i < n; i++)
		strlcat(text, ",page-faults", sizeof(text));
	s = parse(text, &err);
	CHECK(s != NULL && err == SPEC_OK);
	if (s != NULL) {
		CHECK(s->nreqs == 2 * n);
		CHECK(s->ngroups == 2);
		CHECK(picnum_attr(&s->reqs[n - 1]) == n - 1);
		CHECK(s->reqs[n].picnum == n && picnum_attr(&s->reqs[n]) < 0);
	}
	spec_free(s);
	expect_error("{task-clock,{cs}}", "bad token '{task-clock,{cs}}'");
}

int
main(int argc, char **argv)
{
	(void)argc;
	diag_init(argv[0]);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open failed: %s", strerror(errno));
	test_bare_events_fill_left_to_right();
	test_implicit_goes_above_explicit();
	test_flags();
	test_messages();
	test_too_many_events();
	test_attributes();
	test_uncountable_named_each();
	test_tracepoint_and_build();
	test_perf_syntax();
	test_groups();
	test_globs();
	test_known_forms_refused();
	test_notes();
	test_header();
	cpc_close(cpc);
	return check_report("test_spec");
}
