/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rows cputrack prints, whichever engine counted them, and the one
 * policy both follow: which execs are followed, and what is said of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cputrack.h"
#include "diag.h"

/* Set s had a row with counts. */
static void
set_counted(struct cputrack *ct, int s)
{
	if (ct->set_counted != NULL && s >= 0 && s < ct->nsets)
		ct->set_counted[s] = true;
}

int
row_sets_init(struct cputrack *ct)
{
	ct->set_counted = calloc((size_t)ct->nsets + 1, sizeof(bool));
	return ct->set_counted != NULL ? 0 : -1;
}

void
row_sets_unturned(struct cputrack *ct)
{
	int s;

	if (ct->set_counted == NULL || !ct->counted || ct->cut_short ||
	    ct->reader_gone)
		return;
	for (s = 0; s < ct->nsets; s++)
		if (!ct->set_counted[s])
			diag(NULL,
			    "set %d: not counted: the run ended before "
			    "the set's turn\n",
			    s);
}

static void
counts_row(struct cputrack *ct, const struct row_lwp *who, const char *label,
    int set, const struct set_counts *c, unsigned long intervals)
{
	struct out_row row = {
		.label = label,
		.intervals = intervals,
		.pid = who->pid,
		.proc = who->proc,
		.lwp = (int)who->lwpid,
		.tid = who->tid,
		.comm = who->comm,
		.cpu = -1,
		.ncpus = -1,
		.setno = set,
		.when = c->when,
		.values = c->values,
		.tick = c->tick,
		.enabled_ns = c->times.enabled_ns,
		.running_ns = c->times.running_ns,
		.elapsed_ns = setgrp_counted_ns(c),
	};

	set_counted(ct, set);
	output_row(ct->out, &row);
}

unsigned long
cputrack_proc_key(struct cputrack *ct)
{
	return ++ct->procs_seen;
}

void
row_counts(struct cputrack *ct, const struct row_lwp *who, const char *label,
    int set, const struct set_counts *c)
{
	counts_row(ct, who, label, set, c, 0);
}

/*
 * A tick came late, sample times passed unserved (cputrack stopped, or
 * not scheduled): the row that holds them all is a gap row, as cpustat's.
 */
void
row_tick(struct cputrack *ct, const struct row_lwp *who, int set,
    const struct set_counts *c, unsigned long intervals)
{
	counts_row(ct, who, intervals > 1 ? "gap" : "tick", set, c, intervals);
}

/*
 * A cgroup's row, beside its threads' tick rows: pid and LWP 0, its
 * name for the process's; labelled cgroup, or rmdir for the last of a
 * cgroup that is gone.
 */
void
row_cgroup(struct cputrack *ct, const struct row_lwp *who, const char *label,
    int set, const struct set_counts *c, unsigned long intervals)
{
	counts_row(ct, who, label, set, c, intervals);
}

void
row_not_counted(struct cputrack *ct, const struct row_lwp *who,
    const char *label, int set, const char *why)
{
	struct out_row row = {
		.label = label,
		.pid = who->pid,
		.proc = who->proc,
		.lwp = (int)who->lwpid,
		.tid = who->tid,
		.comm = who->comm,
		.cpu = -1,
		.ncpus = -1,
		.setno = set,
		.not_counted = why,
	};

	output_row(ct->out, &row);
}

/* A process's totals (an LWP's and a cgroup's are not the tree's). */
static bool
is_process_total(const char *label)
{
	return strcmp(label, "exit") == 0 || strcmp(label, "exec") == 0;
}

void
row_totals(struct cputrack *ct, const struct row_lwp *who, const char *label,
    const setgrp_t *g, const char *partial)
{
	const struct set_counts *c;
	int s;

	for (s = 0; s < setgrp_nsets(g); s++) {
		if (!setgrp_sampled(g, s))
			continue;
		c = setgrp_total(g, s);
		set_counted(ct, s);
		if (ct->repeat != NULL && is_process_total(label))
			repeat_add(ct->repeat, s, c->values);
		output_row(ct->out,
		    &(struct out_row) {
			.label = label,
			.pid = who->pid,
			.proc = who->proc,
			.lwp = (int)who->lwpid,
			.tid = who->tid,
			.comm = who->comm,
			.cpu = -1,
			.ncpus = -1,
			.setno = s,
			.when = c->when,
			.values = c->values,
			.tick = c->tick,
			.enabled_ns = c->times.enabled_ns,
			.running_ns = c->times.running_ns,
			.elapsed_ns = setgrp_counted_ns(c),
			.partial = partial,
		    });
	}
}

/* The latest of the totals' times: an exec marker's. */
static hrtime_t
totals_time(const setgrp_t *g)
{
	hrtime_t t, latest = 0;
	int s;

	for (s = 0; s < setgrp_nsets(g); s++)
		if (setgrp_sampled(g, s) &&
		    (t = setgrp_total(g, s)->when) > latest)
			latest = t;
	return latest;
}

void
row_exec(struct cputrack *ct, const struct row_lwp *who, const setgrp_t *acc,
    const char *args, const char *image_comm, const char *partial)
{
	hrtime_t last = totals_time(acc);
	struct out_row marker = {
		.when = last,
		.at_start = last == 0,
		.label = "exec",
		.pid = who->pid,
		.proc = who->proc,
		.lwp = 1,
		.tid = who->pid,
		.comm = image_comm,
		.cpu = -1,
		.ncpus = -1,
		.setno = -1,
		.args = args != NULL ? args : "(unknown)",
	};

	row_totals(ct, who, "exec", acc, partial);
	output_row(ct->out, &marker);
}

void
row_fork(struct cputrack *ct, const struct row_lwp *parent, pid_t child,
    hrtime_t when)
{
	struct out_row marker = {
		.when = when,
		.label = "fork",
		.pid = parent->pid,
		.comm = parent->comm, /* the child's too */
		.proc = parent->proc,
		.lwp = (int)parent->lwpid,
		.tid = -1,
		.cpu = -1,
		.ncpus = -1,
		.setno = -1,
		.child = child,
	};

	output_row(ct->out, &marker);
}

/*
 * Whether, without -e, the command cputrack started has its execs
 * followed while it has made no thread and has no child at the exec:
 * #!/usr/bin/env scripts, env, nice, sh -c 'exec ...' and shims (pyenv's,
 * which fork and wait before their exec) reach the program they are
 * about so, and a program that made a thread, or execs beside a child of
 * its own, runs as itself. A rule of what the command does, not of
 * when. --strict-exec asks for Solaris's way, where every exec without -e
 * ends the tracking.
 */
bool
follows_wrapper_execs(const struct cputrack *ct)
{
	const struct cputrack_opts *o = &ct->opt;

	return !o->follow_exec && !o->strict_exec && o->command != NULL;
}

void
exec_say(pid_t pid, const char *args, enum exec_follow how)
{
	switch (how) {
	case EXEC_FOLLOWED:
		break;
	case EXEC_FOLLOWED_EARLY:
		diag(NULL,
		    "pid %d exec'd '%s' with no thread made and no "
		    "child: followed (-e follows every exec)\n",
		    (int)pid, args);
		break;
	case EXEC_NOT_FOLLOWED:
		diag(NULL,
		    "pid %d exec'd '%s': not followed, its counts end "
		    "here (-e follows execs)\n",
		    (int)pid, args);
		break;
	}
}

void
capture_say_failed(pid_t pid, pid_t tid, const char *why)
{
	if (tid == 0)
		diag(NULL, "failed to capture pid %d%s\n", (int)pid, why);
	else if (tid == pid)
		diag(NULL, "failed to capture tid %d%s\n", (int)tid, why);
	else
		diag(NULL, "failed to capture tid %d (pid %d)%s\n", (int)tid,
		    (int)pid, why);
}
