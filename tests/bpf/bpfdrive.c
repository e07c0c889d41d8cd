/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpfdrive: runs the BPF engine as cputrack will, and prints what it
 * reports, one line per event, for the tests to check.
 *
 * bpfdrive [-fer] [-T ms] [-N ticks] [-S file] -c spec [-c spec]...
 *          (-p pid | command [args])
 *
 * -c a set (cputrack's grammar), -f follow forks, -e follow execs, -r
 * rotate the sets at each tick, -T tick every ms milliseconds, -N stop
 * after that many ticks, -S a file whose first 8 bytes a workload counts
 * its writes in: read before and after each tick.
 *
 * Lines ("<set> <values>" are the set's number, its values, then
 * en=<enabled ns> run=<running ns>):
 *   create <pid> <tid> new|first|found
 *   lwp_exit <pid> <tid> <set> <values> [by_exec]   (one line per set)
 *   fork <pid> <tid> <child>
 *   exec <pid> <tid> followed|released '<args>'
 *   exec_total <pid> <set> <values>   the image's threads, summed
 *   exit <pid> <status>
 *   exit_total <pid> <set> <values>
 *   tick <pid> <tid> <set> <values>   cumulative, the set of the slice
 *   flush <ns>
 *   spin <before> <after>
 *   hidden <n>    at the end: switches the kernel hid (bpfeng.h)
 * Exit status: 0; 1 for a failure while counting; 2 when the engine
 * cannot run (one line on stderr says why), or for bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bpfeng.h"
#include "diag.h"
#include "setgrp.h"
#include "spec.h"

struct totals {
	pid_t pid;
	uint64_t *values; /* per set: enabled, running, values */
	struct totals *next;
};

struct drive {
	cpc_t *cpc;
	setgrp_t *grp;
	struct bpfeng *eng;
	struct totals *totals;
	int nslots;
	int current;
	int interval_ms;
	int nticks;
	bool rotate;
	volatile uint64_t *spin;
	char why[BPFENG_WHY_LEN];
};

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int
nreqs(const struct drive *d, int set)
{
	return setgrp_spec(d->grp, set)->nreqs;
}

/* Offset of set s in a totals array: as the engine lays its counts. */
static int
set_base(const struct drive *d, int set)
{
	int s, base = 0;

	for (s = 0; s < set; s++)
		base += 2 + nreqs(d, s);
	return base;
}

static struct totals *
totals_of(struct drive *d, pid_t pid)
{
	struct totals *t;

	for (t = d->totals; t != NULL; t = t->next)
		if (t->pid == pid)
			return t;
	if ((t = calloc(1, sizeof(*t))) == NULL ||
	    (t->values = calloc((size_t)d->nslots, sizeof(uint64_t))) == NULL) {
		fprintf(stderr, "bpfdrive: no memory\n");
		exit(1);
	}
	t->pid = pid;
	t->next = d->totals;
	d->totals = t;
	return t;
}

static void
totals_add(struct drive *d, pid_t pid, const struct bpfeng_counts *c)
{
	struct totals *t = totals_of(d, pid);
	const struct bpfeng_set_counts *sc;
	int s, i, base;

	for (s = 0; s < setgrp_nsets(d->grp); s++) {
		sc = bpfeng_set_counts(d->eng, c, s);
		base = set_base(d, s);
		t->values[base] += bpfeng_enabled_ns(sc);
		t->values[base + 1] += sc->running_ns;
		for (i = 0; i < nreqs(d, s); i++)
			t->values[base + 2 + i] += sc->values[i];
	}
}

static void
print_values(const struct drive *d, int set, uint64_t enabled, uint64_t running,
    const uint64_t *values)
{
	int i;

	printf(" %d", set);
	for (i = 0; i < nreqs(d, set); i++)
		printf(" %llu", (unsigned long long)values[i]);
	printf(" en=%llu run=%llu", (unsigned long long)enabled,
	    (unsigned long long)running);
}

static void
totals_print(struct drive *d, const char *label, pid_t pid)
{
	struct totals *t = totals_of(d, pid);
	int s, base;

	for (s = 0; s < setgrp_nsets(d->grp); s++) {
		base = set_base(d, s);
		printf("%s %d", label, (int)pid);
		print_values(d, s, t->values[base], t->values[base + 1],
		    &t->values[base + 2]);
		putchar('\n');
	}
	memset(t->values, 0, (size_t)d->nslots * sizeof(uint64_t));
}

static void
print_counts(struct drive *d, const char *label, pid_t pid, pid_t tid, int set,
    const struct bpfeng_counts *c, const char *note)
{
	const struct bpfeng_set_counts *sc = bpfeng_set_counts(d->eng, c, set);

	printf("%s %d %d", label, (int)pid, (int)tid);
	if (sc == NULL)
		printf(" %d invalid", set);
	else
		print_values(
		    d, set, bpfeng_enabled_ns(sc), sc->running_ns, sc->values);
	printf("%s\n", note);
}

/*
 * bpfdrive prints each process's and thread's lines by their ids and
 * keeps no record of them: the record it hands the engine is the drive.
 */
static void *
cb_proc_create(void *arg, pid_t pid, void *parent, const char *comm)
{
	(void)pid;
	(void)parent;
	(void)comm;
	return arg;
}

static void *
cb_lwp_create(void *arg, void *proc, pid_t pid, pid_t tid, id_t lwpid,
    enum bpfeng_origin origin, uint64_t when_ns)
{
	static const char *const names[] = { "new", "first", "found" };

	(void)proc;
	(void)lwpid;
	(void)when_ns;
	printf("create %d %d %s\n", (int)pid, (int)tid, names[origin]);
	return arg;
}

static void
cb_lwp_exit(void *arg, void *lwp, pid_t pid, pid_t tid, unsigned flags,
    const struct bpfeng_counts *c, uint64_t when_ns)
{
	struct drive *d = arg;
	int s;

	(void)lwp;
	(void)when_ns;
	for (s = 0; s < setgrp_nsets(d->grp); s++)
		print_counts(d, "lwp_exit", pid, tid, s, c,
		    (flags & BPFENG_EXIT_BY_EXEC) ? " by_exec" : "");
	if (c != NULL)
		totals_add(d, pid, c);
}

static void
cb_fork(void *arg, void *proc, void *parent_lwp, pid_t parent, pid_t parent_tid,
    pid_t child, uint64_t when_ns)
{
	(void)arg;
	(void)proc;
	(void)parent_lwp;
	(void)when_ns;
	printf("fork %d %d %d\n", (int)parent, (int)parent_tid, (int)child);
}

static bool
cb_exec(void *arg, void *proc, void *lwp, pid_t pid, pid_t tid,
    const char *args, const char *comm, const struct bpfeng_counts *c,
    unsigned flags, uint64_t when_ns)
{
	struct drive *d = arg;

	(void)proc;
	(void)lwp;
	(void)when_ns;
	(void)comm;
	if (c != NULL)
		totals_add(d, pid, c);
	totals_print(d, "exec_total", pid);
	printf("exec %d %d %s%s '%s'\n", (int)pid, (int)tid,
	    (flags & BPFENG_EXEC_FOLLOWED) ? "followed" : "released",
	    (flags & BPFENG_EXEC_UNTRACEABLE) ? " untraceable" : "", args);
	return true;
}

static void
cb_exit(void *arg, void *proc, pid_t pid, int status, uint64_t when_ns)
{
	struct drive *d = arg;

	(void)proc;
	(void)when_ns;
	printf("exit %d %d\n", (int)pid, status);
	totals_print(d, "exit_total", pid);
}

static void
print_tick(struct drive *d, const struct bpfeng_tick_batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		print_counts(d, "tick", b->threads[i].pid, b->threads[i].tid,
		    d->current, b->threads[i].counts, "");
}

static const struct bpfeng_ops ops = {
	.proc_create = cb_proc_create,
	.lwp_create = cb_lwp_create,
	.lwp_exit = cb_lwp_exit,
	.fork = cb_fork,
	.exec = cb_exec,
	.exit = cb_exit,
};

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
	    "usage: bpfdrive [-fer] [-T ms] [-N ticks] [-S file] "
	    "-c spec ... (-p pid | command [args])\n");
	exit(2);
}

static void
map_spin(struct drive *d, const char *path)
{
	void *p;
	int fd;

	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0 ||
	    ftruncate(fd, sizeof(uint64_t)) != 0 ||
	    (p = mmap(NULL, sizeof(uint64_t), PROT_READ, MAP_SHARED, fd, 0)) ==
		MAP_FAILED) {
		fprintf(stderr, "bpfdrive: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	close(fd);
	d->spin = p;
}

/* Each -c spec as the engine's set: libcpc gives each request's attr. */
static struct bpfeng_set *
make_sets(struct drive *d)
{
	struct bpfeng_set *sets =
	    calloc((size_t)setgrp_nsets(d->grp), sizeof(*sets));
	struct perf_event_attr *attrs;
	const char **names;
	cpc_set_t *set;
	int s, i, n;

	for (s = 0; sets != NULL && s < setgrp_nsets(d->grp); s++) {
		n = nreqs(d, s);
		attrs = calloc((size_t)n, sizeof(*attrs));
		names = calloc((size_t)n, sizeof(*names));
		if (attrs == NULL || names == NULL ||
		    (set = spec_build_set(d->cpc, setgrp_spec(d->grp, s))) ==
			NULL)
			exit(1);
		for (i = 0; i < n; i++) {
			names[i] = setgrp_spec(d->grp, s)->reqs[i].event;
			if (cpc_set_request_attr(d->cpc, set, i, &attrs[i]) !=
			    0) {
				fprintf(stderr, "bpfdrive: %s: %s\n", names[i],
				    strerror(errno));
				exit(2);
			}
		}
		(void)cpc_set_destroy(d->cpc, set);
		sets[s] = (struct bpfeng_set) { attrs, names, n, NULL, NULL };
		d->nslots += 2 + n;
	}
	return sets;
}

static int
tick(struct drive *d)
{
	int next =
	    d->rotate ? (d->current + 1) % setgrp_nsets(d->grp) : d->current;
	uint64_t before = d->spin != NULL ? *d->spin : 0, after;
	struct bpfeng_tick_batch batch;
	int ret;

	/* The slice that ends is the current set's: print its counts. */
	ret = bpfeng_tick(d->eng, next, &batch, d->why, sizeof(d->why));
	after = d->spin != NULL ? *d->spin : 0;
	if (ret == 0)
		print_tick(d, &batch);
	if (d->spin != NULL)
		printf("spin %llu %llu\n", (unsigned long long)before,
		    (unsigned long long)after);
	if (ret != 0) {
		fprintf(stderr, "bpfdrive: tick: %s\n", d->why);
		return -1;
	}
	d->current = next;
	printf("flush %llu\n", (unsigned long long)bpfeng_flush_ns(d->eng));
	return 0;
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
run(struct drive *d)
{
	struct pollfd pfd = { .fd = bpfeng_fd(d->eng), .events = POLLIN };
	int64_t deadline = now_ms() + d->interval_ms, left;
	int ticks = 0, timeout;

	while (!interrupted && !bpfeng_done(d->eng)) {
		left = deadline - now_ms();
		timeout = d->interval_ms == 0 || left > BPFENG_READ_MS ?
		    BPFENG_READ_MS :
		    left > 0 ? (int)left :
			       0;
		if (poll(&pfd, 1, timeout) < 0 && errno != EINTR)
			return -1;
		if (bpfeng_dispatch(d->eng, d->why, sizeof(d->why)) != 0) {
			fprintf(stderr, "bpfdrive: %s\n", d->why);
			return -1;
		}
		fflush(stdout);
		if (d->interval_ms == 0 || now_ms() < deadline ||
		    bpfeng_done(d->eng))
			continue;
		if (tick(d) != 0)
			return -1;
		fflush(stdout);
		deadline += d->interval_ms;
		if (d->nticks > 0 && ++ticks >= d->nticks)
			break;
	}
	return 0;
}

static void
parse(struct drive *d, int argc, char **argv, unsigned *flags, pid_t *pid)
{
	int c, status;

	while ((c = getopt(argc, argv, "+fec:rT:N:p:S:")) != -1) {
		switch (c) {
		case 'f':
			*flags |= BPFENG_FOLLOW_FORK;
			break;
		case 'e':
			*flags |= BPFENG_FOLLOW_EXEC;
			break;
		case 'c':
			if ((status = setgrp_add(d->grp, optarg)) != 0)
				exit(status > 0 ? status : 2);
			break;
		case 'r':
			d->rotate = true;
			break;
		case 'T':
			d->interval_ms = atoi(optarg);
			break;
		case 'N':
			d->nticks = atoi(optarg);
			break;
		case 'p':
			*pid = (pid_t)atoi(optarg);
			break;
		case 'S':
			map_spin(d, optarg);
			break;
		default:
			usage();
		}
	}
	if (setgrp_nsets(d->grp) == 0 || (*pid == 0) == (optind >= argc))
		usage();
}

static void
free_all(struct drive *d, struct bpfeng_set *sets)
{
	struct totals *t, *next;
	int s;

	for (s = 0; sets != NULL && s < setgrp_nsets(d->grp); s++) {
		free((void *)sets[s].attrs);
		free((void *)sets[s].names);
	}
	free(sets);
	for (t = d->totals; t != NULL; t = next) {
		next = t->next;
		free(t->values);
		free(t);
	}
	setgrp_free(d->grp);
	cpc_close(d->cpc);
}

int
main(int argc, char **argv)
{
	struct drive d = { 0 };
	struct bpfeng_set *sets;
	struct bpfeng_config config = { 0, 0, 0, 0, NULL };
	unsigned flags = 0;
	pid_t pid = 0;
	int ret;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	diag_init("bpfdrive");
	if ((d.cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		fprintf(stderr, "bpfdrive: cpc_open: %s\n", strerror(errno));
		return 2;
	}
	(void)cpc_seterrhndlr(d.cpc, diag_errhndlr);
	if ((d.grp = setgrp_new(d.cpc)) == NULL)
		return 1;
	parse(&d, argc, argv, &flags, &pid);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	sets = make_sets(&d);
	if (setgrp_joint(d.grp))
		flags |= BPFENG_JOINT_SETS;
	config.flags = flags;
	if ((d.eng = bpfeng_open(d.cpc, sets, setgrp_nsets(d.grp), &config,
		 &ops, &d, d.why, sizeof(d.why))) == NULL) {
		fprintf(stderr, "bpfdrive: %s\n", d.why);
		free_all(&d, sets);
		return 2;
	}
	if ((pid != 0 ? bpfeng_attach(d.eng, &pid, 1, d.why, sizeof(d.why)) :
			bpfeng_start(
			    d.eng, &argv[optind], d.why, sizeof(d.why))) < 0) {
		fprintf(stderr, "bpfdrive: %s\n", d.why);
		ret = -1;
	} else {
		fflush(stdout);
		ret = run(&d);
		printf("hidden %llu\n",
		    (unsigned long long)bpfeng_hidden_switches(d.eng));
	}
	bpfeng_close(d.eng);
	fflush(stdout);
	free_all(&d, sets);
	return ret == 0 ? 0 : 1;
}
