/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Whether the engine can run here, and why not: privilege, the kernel's
 * version and BTF, and what libbpf and the verifier said when a load
 * failed.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpfeng_impl.h"

#define CAP_SYS_PTRACE_BIT 19
#define CAP_SYS_ADMIN_BIT  21
#define CAP_PERFMON_BIT	   38
#define CAP_BPF_BIT	   39

/* The oldest kernel with everything used: ring buffer, tp_btf, and
 * BPF_PROG_TEST_RUN on a chosen CPU for raw tracepoints. */
#define MIN_MAJOR 5
#define MIN_MINOR 10

void
eng_why(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL || whylen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/* The capabilities of this process in one of its sets, by its line. */
static uint64_t
caps_of(const char *set)
{
	size_t len = strlen(set);
	char line[256];
	uint64_t caps = 0;
	FILE *f;

	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return geteuid() == 0 ? UINT64_MAX : 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, set, len) == 0)
			caps = strtoull(line + len, NULL, 16);
	fclose(f);
	return caps;
}

static uint64_t
effective_caps(void)
{
	return caps_of("CapEff:");
}

uint64_t
eng_permitted_caps(void)
{
	return caps_of("CapPrm:");
}

/* CAP_SYS_PTRACE: whatever runs, its caller may trace. */
bool
eng_may_trace_any(void)
{
	return (effective_caps() & (1ULL << CAP_SYS_PTRACE_BIT)) != 0;
}

/*
 * CAP_PERFMON or CAP_SYS_ADMIN: the kernel lets it count whole CPUs, each
 * cgroup apart (perf stat -a -G), whoever runs there.
 */
bool
bpfeng_may_count_cpus(void)
{
	uint64_t any = (1ULL << CAP_PERFMON_BIT) | (1ULL << CAP_SYS_ADMIN_BIT);

	return (effective_caps() & any) != 0;
}

int
eng_check_privilege(char *why, size_t whylen)
{
	uint64_t caps = effective_caps();
	uint64_t both = (1ULL << CAP_BPF_BIT) | (1ULL << CAP_PERFMON_BIT);

	if ((caps & both) == both || (caps & (1ULL << CAP_SYS_ADMIN_BIT)))
		return 0;
	eng_why(why, whylen,
	    "the BPF engine needs CAP_BPF and CAP_PERFMON "
	    "(or root)");
	errno = EPERM;
	return -1;
}

int
eng_check_kernel(
    const char *release, const char *btf_path, char *why, size_t whylen)
{
	int major = 0, minor = 0;

	if (sscanf(release, "%d.%d", &major, &minor) != 2 ||
	    major < MIN_MAJOR || (major == MIN_MAJOR && minor < MIN_MINOR)) {
		eng_why(why, whylen,
		    "kernel %s is too old: the BPF engine "
		    "needs Linux %d.%d or later",
		    release, MIN_MAJOR, MIN_MINOR);
		errno = ENOSYS;
		return -1;
	}
	if (access(btf_path, R_OK) != 0) {
		eng_why(why, whylen,
		    "the kernel has no BTF (%s is missing; it "
		    "needs CONFIG_DEBUG_INFO_BTF)",
		    btf_path);
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/*
 * What libbpf says while the engine opens, kept instead of printed: it
 * explains a failure, and is noise otherwise. The log of a load the
 * verifier refused is kept whole until the next open (bpfeng_verifier_log).
 */
static char *log_text;
static size_t log_len, log_cap;
/* The programs load in two threads (bpfeng_load.c). */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static libbpf_print_fn_t saved_print;
static char *refused_log;

static void
append_log(const char *fmt, va_list ap)
{
	va_list again;
	size_t need;
	char *grown;
	int len;

	va_copy(again, ap);
	len = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (len < 0)
		return;
	need = log_len + (size_t)len + 1;
	if (need > log_cap) {
		if ((grown = realloc(log_text, need + 4096)) == NULL)
			return;
		log_text = grown;
		log_cap = need + 4096;
	}
	log_len +=
	    (size_t)vsnprintf(log_text + log_len, log_cap - log_len, fmt, ap);
}

/*
 * libbpf's debug messages (each map made, each relocation) explain no
 * failure, and formatting them cost a millisecond of every start.
 */
static int
keep_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	(void)pthread_mutex_lock(&log_lock);
	append_log(fmt, ap);
	(void)pthread_mutex_unlock(&log_lock);
	return 0;
}

void
eng_log_begin(void)
{
	log_len = 0;
	if (log_text != NULL)
		log_text[0] = '\0';
	free(refused_log);
	refused_log = NULL;
	saved_print = libbpf_set_print(keep_log);
}

void
eng_log_end(void)
{
	(void)libbpf_set_print(saved_print);
	free(log_text);
	log_text = NULL;
	log_len = log_cap = 0;
}

const char *
bpfeng_verifier_log(void)
{
	return refused_log;
}

const char *
eng_log_text(void)
{
	return log_text != NULL ? log_text : "";
}

/* Lines of a verifier log that trace the program rather than judge it. */
static bool
trace_line(const char *s, size_t n)
{
	static const char *const prefixes[] = { "; ", "from ", "func#",
		"Validating ", "last_idx ", "regs=", "parent ", "mark_precise",
		"Live regs", "verification time", "stack depth", "processed ",
		"-- END", "-- BEGIN", "libbpf: ", "Func#", "func '" };
	size_t i;

	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	if (n == 0 || isdigit((unsigned char)s[0]))
		return true;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (n >= strlen(prefixes[i]) &&
		    strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

static void
copy_line(const char *s, size_t n, char *line, size_t len)
{
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	snprintf(line, len, "%.*s", (int)n, s);
}

/*
 * The verifier states its refusal at the end of its log, before the
 * statistics, after the trace of the path that failed: the first line of
 * that last block of judgements is the one that explains.
 */
void
eng_verifier_reason(const char *log, char *line, size_t len)
{
	const char *begin = strstr(log, "-- BEGIN PROG LOAD LOG --");
	const char *end, *p, *eol, *best = NULL;
	size_t best_len = 0;
	bool in_block = false;

	snprintf(line, len, "no verifier log");
	if (begin == NULL)
		return;
	begin = strchr(begin, '\n');
	if (begin == NULL)
		return;
	if ((end = strstr(begin, "-- END PROG LOAD LOG --")) == NULL)
		end = begin + strlen(begin);
	for (p = begin + 1; p < end; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		if (trace_line(p, (size_t)(eol - p))) {
			in_block = false;
		} else if (!in_block) {
			best = p;
			best_len = (size_t)(eol - p);
			in_block = true;
		}
		if (eol == end)
			break;
	}
	if (best != NULL)
		copy_line(best, best_len, line, len);
}

/* The program whose load log begins at begin: "prog 'NAME': -- BEGIN". */
static void
failed_program(const char *log, const char *begin, char *name, size_t len)
{
	const char *line = begin, *p, *end;

	while (line > log && line[-1] != '\n')
		line--;
	name[0] = '\0';
	if ((p = strstr(line, "prog '")) != NULL && p < begin &&
	    (end = strchr(p + 6, '\'')) != NULL && end < begin)
		snprintf(name, len, " '%.*s'", (int)(end - p - 6), p + 6);
}

/*
 * Errors of a load that are not the verifier's judgement, though libbpf
 * prints the verifier's log with them: the program passed, and there was
 * no descriptor or memory for it, or for a map before it.
 */
static bool
resource_error(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

/* What "too many open files" means for the engine, said once. */
void
eng_fd_reason(const char *what, int err, char *why, size_t whylen)
{
	struct rlimit rl;

	if ((err == EMFILE || err == ENFILE) &&
	    getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		eng_why(why, whylen,
		    "%s - %s (the BPF engine needs a "
		    "descriptor per CPU per event, and more for itself; the "
		    "limit is %llu)",
		    what, strerror(err), (unsigned long long)rl.rlim_cur);
	else
		eng_why(why, whylen, "%s - %s", what, strerror(err));
}

/*
 * Why a load failed with err, from log, what libbpf said meanwhile (since
 * eng_log_begin: eng_log_text()). A refusal by the verifier keeps log
 * whole, for bpfeng_verifier_log.
 */
void
eng_load_reason(const char *log, int err, char *why, size_t whylen)
{
	const char *begin;
	char reason[200], name[64];

	/*
	 * libbpf may also take a feature probe that found no descriptor
	 * for a missing feature, and load the programs without it: the
	 * verifier then refuses what is only the lack of descriptors.
	 */
	if (!resource_error(err) && strstr(log, strerror(EMFILE)) != NULL)
		err = EMFILE;
	else if (!resource_error(err) && strstr(log, strerror(ENFILE)) != NULL)
		err = ENFILE;
	if (resource_error(err)) {
		eng_fd_reason("cannot load the BPF programs", err, why, whylen);
		return;
	}
	if ((begin = strstr(log, "-- BEGIN PROG LOAD LOG --")) != NULL) {
		failed_program(log, begin, name, sizeof(name));
		eng_verifier_reason(log, reason, sizeof(reason));
		eng_why(why, whylen,
		    "the kernel's verifier refused the BPF "
		    "program%s: %s",
		    name, reason);
		free(refused_log);
		refused_log = strdup(log);
		return;
	}
	if (err == EPERM || err == EACCES) {
		eng_why(why, whylen,
		    "the BPF engine needs CAP_BPF and "
		    "CAP_PERFMON (or root): loading was refused - %s",
		    strerror(err));
		return;
	}
	eng_why(
	    why, whylen, "cannot load the BPF programs - %s", strerror(err));
}
