/*
 * The -c event specification parser: the grammar of the Solaris tools,
 * their exact error messages, strict attribute numbers, and the honest
 * refusal of events this machine cannot count.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "check.h"
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

static void
expect_error(const char *text, const char *message)
{
	enum spec_error err;
	struct spec *spec = parse(text, &err);
	char want[512];

	snprintf(want, sizeof(want), "test_spec: %s\n", message);
	CHECK(spec == NULL);
	CHECK(err == SPEC_SYNTAX);
	if (strcmp(errbuf, want) != 0) {
		check_failures++;
		fprintf(stderr, "spec '%s': got '%s', want '%s'\n", text,
		    errbuf, want);
	}
	spec_free(spec);
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
	expect_error("pic0=nonsense_event",
	    "pic0 cannot measure event 'nonsense_event' on this cpu");
	expect_error("foo=bar", "bad token 'foo=bar'");
	expect_error("task-clock,foo", "bad token 'foo'");
	expect_error("0", "bad token '0'");
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
	expect_error("task-clock,umask0=", "invalid value '' for attribute "
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
	s = parse("EC_ref,EC_hit", &err);
	CHECK(s == NULL && err == SPEC_UNCOUNTABLE);
	CHECK(strstr(errbuf, "EC_ref (UltraSPARC E-cache references): no "
	    "exact Linux equivalent; the nearest is cache-references") != NULL);
	CHECK(strstr(errbuf, "\ntest_spec: EC_hit") != NULL);
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
	test_header();
	cpc_close(cpc);
	return check_report("test_spec");
}
