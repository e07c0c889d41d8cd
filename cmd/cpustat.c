/*
 * cpustat: count CPU performance events on every CPU, system-wide.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "cpus.h"
#include "cpustat.h"

enum { OPT_FORMAT = 256, OPT_CPUS };

static const struct option long_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ NULL, 0, NULL, 0 }
};

struct options {
	bool		 help;
	enum out_format	 format;
	bool		 have_cpus;
	cpu_set_t	 cpus;
};

static void
usage(FILE *out)
{
	const char *p = diag_progname();

	fprintf(out,
	    "Usage:\n"
	    "\t%s -c spec [-c spec]... [-p period] [-T u|d]\n"
	    "\t\t[-sntD] [interval [count]]\n"
	    "\n"
	    "\t-c spec\t  specify processor events to be monitored\n"
	    "\t-n\t  suppress titles\n"
	    "\t-p period cycle through event list periodically\n"
	    "\t-s\t  run user soaker thread for system-only events\n"
	    "\t-t\t  include %s register\n"
	    "\t-T d|u\t  Display a timestamp in date (d) or unix time_t (u)\n"
	    "\t-D\t  enable debug mode\n"
	    "\t-h\t  print extended usage information\n"
	    "\n"
	    "\tUse cputrack(1) to monitor per-process statistics.\n",
	    p, CPC_TICKREG_NAME);
}

static void __attribute__((noreturn))
usage_exit(void)
{
	usage(stderr);
	exit(2);
}

/* Library errors; permission problems get cpustat's own hint instead. */
static void
cpustat_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	if (subcode == CPC_ATTR_REQUIRES_PRIVILEGE)
		return;
	diag_errhndlr(fn, subcode, fmt, ap);
}

/* A finite decimal number of seconds, wholly consumed, >= min_secs. */
static bool
parse_seconds(const char *arg, double *secs, double min_secs)
{
	char *end;

	errno = 0;
	*secs = strtod(arg, &end);
	return arg[0] != '\0' && *end == '\0' && errno == 0 &&
	    *secs >= min_secs && *secs < 1e9;
}

static bool
is_number(const char *arg)
{
	double secs;

	return parse_seconds(arg, &secs, -1e9);
}

/*
 * getopt's own message names the program by its full path; ours say
 * "cpustat:". A negative interval or count ("-1") looks like an option
 * to getopt, and is reported as the bad operand it is.
 */
static void
option_error(int argc, char **argv)
{
	const char *arg = argv[optind - 1];

	if (optind < argc && argv[optind][0] == '-' && optopt != 0 &&
	    argv[optind][1] == optopt && is_number(argv[optind]))
		arg = argv[optind];
	if (optopt != 0 && arg[0] == '-' && arg[1] == optopt &&
	    is_number(arg))
		diag(NULL, "invalid argument \"%s\"\n", arg);
	else if (optopt == 0)
		diag(NULL, "unrecognized option '%s'\n", arg);
	else if (optopt >= OPT_FORMAT)
		diag(NULL, "option '%s' requires an argument\n", arg);
	else if (strchr("cpT", optopt) != NULL)
		diag(NULL, "option requires an argument -- '%c'\n", optopt);
	else
		diag(NULL, "invalid option -- '%c'\n", optopt);
}

static void
parse_operands(struct cpustat *cs, int argc, char **argv)
{
	const char *errstr;
	double secs;

	if (argc > 2)
		usage_exit();
	if (argc == 2) {
		cs->count = (unsigned long)strtonum(argv[1], 1, LLONG_MAX,
		    &errstr);
		if (errstr != NULL) {
			diag(NULL, "invalid argument \"%s\"\n", argv[1]);
			usage_exit();
		}
	}
	if (argc >= 1) {
		if (!parse_seconds(argv[0], &secs, 0.001) ||
		    secs * 1000 > (double)UINT32_MAX) {
			diag(NULL, "invalid argument \"%s\"\n", argv[0]);
			usage_exit();
		}
		cs->interval_ms = (unsigned)(secs * 1000);
	}
}

static void
parse_options(struct cpustat *cs, struct options *opt, int argc, char **argv)
{
	double period = 0;
	bool bad = false;
	int c, status;

	opterr = 0;
	while (!bad && (c = getopt_long(argc, argv, "Dc:hntT:sp:",
	    long_options, NULL)) != -1) {
		switch (c) {
		case 'D':
			diag_set_debug(true);
			break;
		case 'c':
			if ((status = setgrp_add_checked(&cs->grp, cs->cpc,
			    optarg)) > 0)
				exit(status);
			bad = status < 0;
			break;
		case 'h':
			opt->help = true;
			break;
		case 'n':
			cs->no_title = true;
			break;
		case 't':
			cs->tick_col = true;
			break;
		case 'T':
			/* Only the first letter counts, as in the original. */
			if (optarg[0] != 'u' && optarg[0] != 'd') {
				diag(NULL, "invalid argument \"%s\" for -T "
				    "(u or d)\n", optarg);
				bad = true;
			}
			cs->timestamp = optarg[0];
			break;
		case 's':
			cs->soak = true;
			break;
		case 'p':
			if (!parse_seconds(optarg, &period, 0)) {
				diag(NULL, "invalid parameter \"%s\"\n", optarg);
				bad = true;
				break;
			}
			cs->rest_ms = (long)(period * 1000);
			break;
		case OPT_FORMAT:
			if (output_parse_format(optarg, &opt->format) != 0) {
				diag(NULL, "invalid format \"%s\" (table, csv "
				    "or json)\n", optarg);
				bad = true;
			}
			break;
		case OPT_CPUS:
			if (cpus_parse_list(optarg, &opt->cpus) != 0) {
				diag(NULL, "invalid CPU list \"%s\"\n", optarg);
				bad = true;
			}
			opt->have_cpus = true;
			break;
		default:
			option_error(argc, argv);
			bad = true;
			break;
		}
	}
	if (opt->help) {
		usage(stdout);
		putchar('\n');
		caps_print(cs->cpc, stdout);
		exit(0);
	}
	if (bad || cs->grp.nspecs == 0)
		usage_exit();
	parse_operands(cs, argc - optind, argv + optind);
}

/* -p P with S sets: rest P - I*S after each cycle; count means cycles. */
static void
apply_period(struct cpustat *cs)
{
	long cycle_ms = (long)cs->interval_ms * cs->grp.nspecs;

	if (cs->rest_ms < 0)
		return;
	cs->rest_ms = cs->rest_ms > cycle_ms ? cs->rest_ms - cycle_ms : 0;
	cs->count *= (unsigned long)cs->grp.nspecs;
}

/*
 * After a flush of stdout (out_lock held, or one thread): a write error
 * (a full disk, /dev/full) is said once and stops the run, exit 1.
 */
void
cpustat_check_output(struct cpustat *cs)
{
	int err = errno;

	if (!ferror(stdout) || cs->write_failed)
		return;
	cs->write_failed = true;
	diag(NULL, "write error on stdout: %s\n", strerror(err));
	pthread_mutex_lock(&cs->stop_lock);
	cs->stop = true;
	pthread_cond_broadcast(&cs->stop_cv);
	pthread_mutex_unlock(&cs->stop_lock);
}

static void
print_title(struct cpustat *cs)
{
	if (cs->out.format != OUT_TABLE) {
		output_preamble(&cs->out);
		return;
	}
	if (cs->no_title)
		return;
	printf("%7s %3s %5s ", "time", "cpu", "event");
	if (cs->tick_col)
		printf("%9s ", CPC_TICKREG_NAME);
	spec_header(cs->grp.specs[0], stdout);
	putchar('\n');
	fflush(stdout);
	cpustat_check_output(cs);
}

static int
start_workers(struct cpustat *cs, const cpu_set_t *cpus)
{
	int cpu, n = 0;

	cs->workers = calloc((size_t)CPU_COUNT(cpus), sizeof(*cs->workers));
	if (cs->workers == NULL)
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		struct cpu_worker *w;

		if (!CPU_ISSET(cpu, cpus))
			continue;
		w = &cs->workers[n++];
		w->cs = cs;
		w->cpu = cpu;
		pthread_mutex_init(&w->soak_lock, NULL);
		pthread_cond_init(&w->soak_cv, NULL);
		if ((w->rot = rotation_create(cs->cpc, &cs->grp)) == NULL ||
		    (w->tot_enabled = calloc((size_t)cs->grp.nspecs,
		    sizeof(uint64_t))) == NULL ||
		    (w->tot_running = calloc((size_t)cs->grp.nspecs,
		    sizeof(uint64_t))) == NULL)
			return -1;
		if (cs->soak && pthread_create(&w->soaker, NULL,
		    cpu_soaker_main, w) == 0)
			w->soaker_started = true;
	}
	cs->nworkers = n;
	cs->running = n;
	for (n = 0; n < cs->nworkers; n++) {
		struct cpu_worker *w = &cs->workers[n];

		if (pthread_create(&w->thread, NULL, cpu_worker_main, w) != 0) {
			diag(NULL, "cannot create thread for cpu%d\n", w->cpu);
			w->status = 4;
			pthread_mutex_lock(&cs->stop_lock);
			cs->running--;
			pthread_mutex_unlock(&cs->stop_lock);
			continue;
		}
		w->started = true;
	}
	return 0;
}

/* Wait for the workers, or for a signal that asks them to stop. */
static void
wait_for_workers(struct cpustat *cs, const sigset_t *sigs)
{
	int sig;

	for (;;) {
		pthread_mutex_lock(&cs->stop_lock);
		if (cs->running == 0) {
			pthread_mutex_unlock(&cs->stop_lock);
			break;
		}
		pthread_mutex_unlock(&cs->stop_lock);
		if ((sig = sigwaitinfo(sigs, NULL)) < 0 || sig == SIGUSR1)
			continue;
		pthread_mutex_lock(&cs->stop_lock);
		cs->stop = true;
		pthread_cond_broadcast(&cs->stop_cv);
		pthread_mutex_unlock(&cs->stop_lock);
	}
}

static void
print_total_row(struct cpustat *cs, int setno, const uint64_t *values,
    uint64_t tick, hrtime_t when, const uint64_t *times)
{
	const struct spec *spec = cs->grp.specs[setno];
	struct out_row row = {
		.time = (double)(when - cs->start) / 1e9, .pid = -1, .lwp = -1,
		.tid = -1, .cpu = cs->nworkers, .label = "total",
		.setno = setno, .values = values, .has_tick = cs->tick_col,
		.tick = tick, .enabled_ns = times[0], .running_ns = times[1],
	};
	int i;

	if (cs->out.format != OUT_TABLE) {
		output_row(&cs->out, &row);
		return;
	}
	printf("%7.3f %3d %5s ", row.time, row.cpu, row.label);
	if (cs->tick_col)
		printf("%9lld ", (long long)tick);
	for (i = 0; i < spec->nreqs; i++)
		printf("%9lld ", (long long)values[i]);
	if (cs->grp.nspecs > 1)
		printf("# %s", spec->text);
	putchar('\n');
}

static void
print_totals(struct cpustat *cs)
{
	int s, i, w;

	for (s = 0; s < cs->grp.nspecs; s++) {
		int n = cs->grp.specs[s]->nreqs;
		uint64_t values[n > 0 ? n : 1], v, tick = 0, times[2] = { 0 };
		hrtime_t when = 0;

		memset(values, 0, sizeof(values));
		for (w = 0; w < cs->nworkers; w++) {
			struct rotation *rot = cs->workers[w].rot;

			if (rot == NULL || !rot->sampled[s])
				continue;
			for (i = 0; i < n; i++) {
				(void)cpc_buf_get(cs->cpc, rot->total[s], i, &v);
				values[i] += v;
			}
			tick += cpc_buf_tick(cs->cpc, rot->total[s]);
			times[0] += cs->workers[w].tot_enabled[s];
			times[1] += cs->workers[w].tot_running[s];
			if (cpc_buf_hrtime(cs->cpc, rot->total[s]) > when)
				when = cpc_buf_hrtime(cs->cpc, rot->total[s]);
		}
		if (when == 0) {
			struct timespec now;

			clock_gettime(CLOCK_MONOTONIC, &now);
			when = (hrtime_t)now.tv_sec * 1000000000LL + now.tv_nsec;
		}
		print_total_row(cs, s, values, tick, when, times);
	}
	fflush(stdout);
	cpustat_check_output(cs);
}

static int
finish(struct cpustat *cs)
{
	int i, status = 0;

	for (i = 0; i < cs->nworkers; i++) {
		struct cpu_worker *w = &cs->workers[i];

		if (w->started)
			pthread_join(w->thread, NULL);
		if (w->soaker_started) {
			pthread_mutex_lock(&w->soak_lock);
			w->soaker_exit = true;
			pthread_cond_signal(&w->soak_cv);
			pthread_mutex_unlock(&w->soak_lock);
			pthread_join(w->soaker, NULL);
		}
		if (w->status != 0)
			status = 1;
	}
	print_totals(cs);
	if (cs->write_failed)
		status = 1;
	for (i = 0; i < cs->nworkers; i++) {
		rotation_free(cs->cpc, cs->workers[i].rot);
		free(cs->workers[i].tot_enabled);
		free(cs->workers[i].tot_running);
	}
	free(cs->workers);
	return status;
}

int
main(int argc, char **argv)
{
	struct cpustat cs = { .interval_ms = 5000, .rest_ms = -1 };
	struct options opt = { .format = OUT_TABLE };
	pthread_condattr_t cattr;
	cpu_set_t cpus;
	sigset_t sigs;
	int status;

	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	diag_init(argv[0]);
	raise_fd_limit(true);
	if ((cs.cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		diag(NULL, "cannot access performance counters - %s\n",
		    strerror(errno));
		return 1;
	}
	(void)cpc_seterrhndlr(cs.cpc, cpustat_errhndlr);
	parse_options(&cs, &opt, argc, argv);
	apply_period(&cs);
	if (cpus_measurable(&cpus, opt.have_cpus ? &opt.cpus : NULL) != 0 ||
	    CPU_COUNT(&cpus) == 0) {
		diag(NULL, "no CPU to measure: none is online and in this "
		    "process's affinity mask%s\n", opt.have_cpus ?
		    " and --cpus" : "");
		return 1;
	}
	if (output_open(&cs.out, stdout, opt.format, &cs.grp, "cpustat") != 0) {
		diag(NULL, "no memory available\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_mutex_init(&cs.out_lock, NULL);
	pthread_mutex_init(&cs.stop_lock, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&cs.stop_cv, &cattr);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	cs.main_thread = pthread_self();
	print_title(&cs);
	cs.start = (hrtime_t)0;
	{
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		cs.start = (hrtime_t)now.tv_sec * 1000000000LL + now.tv_nsec;
	}
	if (start_workers(&cs, &cpus) != 0) {
		diag(NULL, "no memory available\n");
		return 1;
	}
	wait_for_workers(&cs, &sigs);
	status = finish(&cs);
	output_close(&cs.out);
	setgrp_free(&cs.grp);
	cpc_close(cs.cpc);
	return status;
}
