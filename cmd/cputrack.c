/*
 * cputrack: count CPU performance events per process and per LWP of a
 * command or a running process, interval by interval.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caps.h"
#include "cputrack.h"

volatile sig_atomic_t cputrack_interrupted;
static cpc_t *signal_cpc;

enum { OPT_FORMAT = 256 };

#define OUTPUT_BUFFER	(64 * 1024)

static const struct option long_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ NULL, 0, NULL, 0 }
};

struct options {
	bool		 help;
	bool		 bad;
	pid_t		 pid;
	enum out_format	 format;
};

static void
usage(FILE *out)
{
	const char *p = diag_progname();

	fprintf(out,
	    "Usage:\n"
	    "\t%s [-T secs] [-N count] [-Defhnv] [-o file]\n"
	    "\t\t-c events [command [args] | -p pid]\n"
	    "\n"
	    "\t-T secs\t  seconds between samples, default 1\n"
	    "\t-N count  number of samples, default unlimited\n"
	    "\t-D\t  enable debug mode\n"
	    "\t-e\t  follow exec(2), and execve(2)\n"
	    "\t-f\t  follow fork(2), fork1(2), and vfork(2)\n"
	    "\t-h\t  print extended usage information\n"
	    "\t-n\t  suppress titles\n"
	    "\t-t\t  include virtualized %s register\n"
	    "\t-v\t  verbose mode\n"
	    "\t-o file\t  write cpu statistics to this file\n"
	    "\t-c events specify processor events to be monitored\n"
	    "\t-p pid\t  pid of existing process to capture\n"
	    "\n"
	    "\tUse cpustat(8) to monitor system-wide statistics.\n",
	    p, CPC_TICKREG_NAME);
}

static void __attribute__((noreturn))
usage_exit(void)
{
	usage(stderr);
	exit(2);
}

static void
parse_interval(struct cputrack *ct, struct options *opt, const char *arg)
{
	double secs;
	char *end;

	errno = 0;
	secs = strtod(arg, &end);
	/* !(secs >= 0) also refuses "nan". */
	if (arg[0] == '\0' || *end != '\0' || errno != 0 || !(secs >= 0) ||
	    secs * 1000 > (double)UINT_MAX || (secs > 0 && secs < 0.001)) {
		diag(NULL, "invalid interval '%s'\n", arg);
		opt->bad = true;
		return;
	}
	ct->interval_ms = (unsigned)(secs * 1000);
}

static long long
parse_number(struct options *opt, const char *what, const char *arg,
    long long min, long long max)
{
	const char *errstr;
	long long n = strtonum(arg, min, max, &errstr);

	if (errstr != NULL) {
		diag(NULL, "invalid %s '%s'\n", what, arg);
		opt->bad = true;
	}
	return n;
}

static void
open_log(struct cputrack *ct, const char *path)
{
	if (ct->log != stdout)
		fclose(ct->log);
	if ((ct->log = fopen(path, "w")) == NULL) {
		diag(NULL, "cannot open '%s' for writing\n", path);
		exit(1);
	}
	ct->log_name = path;
}

static void
parse_option(struct cputrack *ct, struct options *opt, int c)
{
	int status;

	switch (c) {
	case 'T':
		parse_interval(ct, opt, optarg);
		break;
	case 'N':
		ct->nsamples = (unsigned)parse_number(opt, "count", optarg, 0,
		    UINT_MAX);
		break;
	case 'D':
		diag_set_debug(true);
		break;
	case 'e':
		ct->follow_exec = true;
		break;
	case 'f':
		ct->follow_fork = true;
		break;
	case 'h':
		opt->help = true;
		break;
	case 'n':
		ct->no_title = true;
		break;
	case 't':
		ct->tick_col = true;
		break;
	case 'v':
		ct->verbose = true;
		break;
	case 'o':
		open_log(ct, optarg);
		break;
	case 'c':
		if ((status = setgrp_add_checked(&ct->grp, ct->cpc,
		    optarg)) > 0)
			exit(status);
		if (status < 0)
			opt->bad = true;
		break;
	case 'p':
		opt->pid = (pid_t)parse_number(opt, "pid", optarg, 1, INT_MAX);
		break;
	case OPT_FORMAT:
		if (output_parse_format(optarg, &opt->format) != 0) {
			diag(NULL, "invalid format '%s' (table, csv or json)\n",
			    optarg);
			opt->bad = true;
		}
		break;
	default:	/* including -r, which the original accepts and ignores */
		opt->bad = true;
		break;
	}
}

static void
parse_options(struct cputrack *ct, struct options *opt, int argc,
    char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "+T:N:Defhntvo:r:c:p:",
	    long_options, NULL)) != -1)
		parse_option(ct, opt, c);
	if (opt->help) {
		usage(stdout);
		putchar('\n');
		caps_print(ct->cpc, stdout);
		exit(0);
	}
	if (opt->bad || ct->grp.nspecs == 0 ||
	    (optind >= argc && opt->pid == 0) ||
	    (optind < argc && opt->pid != 0))
		usage_exit();
}

static void
on_signal(int sig)
{
	(void)sig;
	cputrack_interrupted = 1;
	if (signal_cpc != NULL)
		cpc_terminate(signal_cpc);
}

/* As the original: HUP, INT and QUIT unless ignored, and PIPE and TERM. */
static void
install_signals(void)
{
	static const int maybe_ignored[] = { SIGHUP, SIGINT, SIGQUIT };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(maybe_ignored) / sizeof(int); i++) {
		if (sigaction(maybe_ignored[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(maybe_ignored[i], &sa, NULL);
	}
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void
pctx_diag(const char *fn, const char *fmt, va_list ap)
{
	diag_errhndlr(fn, -1, fmt, ap);
}

static int
make_templates(struct cputrack *ct)
{
	int s;

	ct->templates = calloc((size_t)ct->grp.nspecs, sizeof(cpc_set_t *));
	if (ct->templates == NULL)
		return -1;
	for (s = 0; s < ct->grp.nspecs; s++)
		if ((ct->templates[s] = spec_build_set(ct->cpc,
		    ct->grp.specs[s])) == NULL)
			return -1;
	return 0;
}

/*
 * Why a process cannot be captured, when it is the usual reason: it
 * belongs to another user, or Yama allows tracing descendants only.
 */
static void
capture_hint(pid_t pid)
{
	char path[64];
	struct stat st;
	FILE *f;
	int scope = 0;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (geteuid() == 0 || stat(path, &st) != 0)
		return;
	if (st.st_uid != geteuid()) {
		diag(NULL, "pid %d belongs to another user (uid %u): capturing "
		    "it needs root or CAP_SYS_PTRACE\n", (int)pid,
		    (unsigned)st.st_uid);
		return;
	}
	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r")) != NULL) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope > 0)
		diag(NULL, "kernel.yama.ptrace_scope is %d: only a parent may "
		    "trace; capturing needs CAP_SYS_PTRACE, or ptrace_scope "
		    "0\n", scope);
}

static pctx_t *
start_target(struct options *opt, struct cputrack *ct, int argc, char **argv)
{
	pctx_t *pctx;

	if (opt->pid != 0) {
		pctx = pctx_capture(opt->pid, ct, 1, pctx_diag);
		if (pctx == NULL) {
			diag(NULL, "failed to capture pid %d\n", (int)opt->pid);
			capture_hint(opt->pid);
		}
		return pctx;
	}
	pctx = pctx_create(argv[optind], &argv[optind], ct, 1, pctx_diag);
	if (pctx == NULL)
		diag(NULL, "failed to start program '%s'\n", argv[optind]);
	(void)argc;
	return pctx;
}

/* Let everything go: the counters, the records, the specs. */
static int
release_all(struct cputrack *ct, int status)
{
	signal_cpc = NULL;
	if (ct->cpc != NULL)
		cpc_close(ct->cpc);
	ct->cpc = NULL;
	track_forget(ct);
	free(ct->templates);
	ct->templates = NULL;
	output_close(&ct->out);
	setgrp_free(&ct->grp);
	return status;
}

static void
flush_rows(void *arg)
{
	rows_flush(arg);
}

int
main(int argc, char **argv)
{
	struct cputrack ct = { .interval_ms = 1000, .log_name = "stdout" };
	struct options opt = { .format = OUT_TABLE };
	pctx_t *pctx;
	int ret;

	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	diag_init(argv[0]);
	ct.log = stdout;
	RB_INIT(&ct.procs);
	if ((ct.cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		diag(NULL, "cannot access performance counter library - %s\n",
		    strerror(errno));
		return 1;
	}
	(void)cpc_seterrhndlr(ct.cpc, diag_errhndlr);
	parse_options(&ct, &opt, argc, argv);
	signal_cpc = ct.cpc;
	install_signals();
	raise_fd_limit(false);
	if (make_templates(&ct) != 0 ||
	    output_open(&ct.out, ct.log, opt.format, &ct.grp, "cputrack") != 0) {
		diag(NULL, "no memory available\n");
		return release_all(&ct, 1);
	}
	/*
	 * Rows are written in batches, whenever the tracer has handled the
	 * events at hand, rather than a write per row: they still appear
	 * the moment they are due, in a pipe too.
	 */
	setvbuf(ct.log, NULL, _IOFBF, OUTPUT_BUFFER);
	pctx_set_idle(flush_rows, &ct);
	if ((pctx = start_target(&opt, &ct, argc, argv)) == NULL)
		return release_all(&ct, 1);
	if (track_setup(&ct, pctx) != 0) {
		diag(NULL, "can't bind process context ops to process\n");
		pctx_release(pctx);
		return release_all(&ct, 1);
	}
	rows_title(&ct);
	rows_flush(&ct);
	ct.start = rows_now();
	ret = track_run(&ct, pctx);
	/* Whatever is still tracked is let go, and keeps running. */
	(void)release_all(&ct, 0);
	rows_flush(&ct);
	return ret == 0 && !ct.write_failed ? 0 : 1;
}
