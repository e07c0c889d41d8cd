/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The stand-in for a build without the BPF engine: every entry point says
 * why (BPFENG_UNAVAILABLE, set by the build), so that the command can.
 */
#include <errno.h>
#include <stdio.h>

#include "bpfeng.h"

const char *
bpfeng_unavailable(void)
{
	return BPFENG_UNAVAILABLE;
}

int
bpfeng_can_run(char *why, size_t whylen)
{
	if (why != NULL && whylen > 0)
		snprintf(why, whylen, "%s", BPFENG_UNAVAILABLE);
	return -1;
}

struct bpfeng *
bpfeng_open(cpc_t *cpc, const struct bpfeng_set *sets, int nsets,
    const struct bpfeng_config *config, const struct bpfeng_ops *ops, void *arg,
    char *why, size_t whylen)
{
	(void)cpc;
	(void)sets;
	(void)nsets;
	(void)config;
	(void)ops;
	(void)arg;
	if (why != NULL && whylen > 0)
		snprintf(why, whylen, "%s", BPFENG_UNAVAILABLE);
	errno = ENOSYS;
	return NULL;
}

/* No engine is ever open: what follows is never reached with one. */

const struct bpfeng_set_counts *
bpfeng_set_counts(
    const struct bpfeng *eng, const struct bpfeng_counts *counts, int set)
{
	(void)eng;
	(void)counts;
	(void)set;
	return NULL;
}

pid_t
bpfeng_start(struct bpfeng *eng, char *const argv[], char *why, size_t whylen)
{
	(void)eng;
	(void)argv;
	(void)bpfeng_open(NULL, NULL, 0, NULL, NULL, NULL, why, whylen);
	return -1;
}

int
bpfeng_capturable(pid_t pid, char *why, size_t whylen)
{
	(void)pid;
	(void)bpfeng_open(NULL, NULL, 0, NULL, NULL, NULL, why, whylen);
	return -1;
}

int
bpfeng_attach(struct bpfeng *eng, const pid_t *pids, size_t npids, char *why,
    size_t whylen)
{
	(void)eng;
	(void)pids;
	(void)npids;
	(void)bpfeng_open(NULL, NULL, 0, NULL, NULL, NULL, why, whylen);
	return -1;
}

int
bpfeng_attach_threads(struct bpfeng *eng, const pid_t *tids, size_t ntids,
    char *why, size_t whylen)
{
	(void)eng;
	(void)tids;
	(void)ntids;
	(void)bpfeng_open(NULL, NULL, 0, NULL, NULL, NULL, why, whylen);
	return -1;
}

int
bpfeng_attach_cgroup(struct bpfeng *eng, uint64_t id, int level,
    const char *dir, char *why, size_t whylen)
{
	(void)eng;
	(void)id;
	(void)level;
	(void)dir;
	(void)bpfeng_open(NULL, NULL, 0, NULL, NULL, NULL, why, whylen);
	return -1;
}

int
bpfeng_follow_exec(struct bpfeng *eng, pid_t pid, bool follow)
{
	(void)eng;
	(void)pid;
	(void)follow;
	errno = ENOSYS;
	return -1;
}

void
bpfeng_programs(const struct bpfeng *eng, char *buf, size_t len)
{
	(void)eng;
	snprintf(buf, len, "none");
}

void
bpfeng_migrations(const struct bpfeng *eng, char *buf, size_t len)
{
	(void)eng;
	snprintf(buf, len, "none");
}

bool
bpfeng_cgroup_events(const struct bpfeng *eng)
{
	(void)eng;
	return false;
}

void
bpfeng_phases(const struct bpfeng *eng, char *buf, size_t len)
{
	(void)eng;
	snprintf(buf, len, "none");
}

const char *
bpfeng_verifier_log(void)
{
	return NULL;
}

bool
bpfeng_command_signaled(struct bpfeng *eng, int sig, pid_t sender, int wait_ms)
{
	(void)eng;
	(void)sig;
	(void)sender;
	(void)wait_ms;
	return false;
}

void
bpfeng_untrack(struct bpfeng *eng, pid_t pid)
{
	(void)eng;
	(void)pid;
}

int
bpfeng_loop_open(
    struct bpfeng *eng, unsigned interval_ms, const sigset_t *signals)
{
	(void)eng;
	(void)interval_ms;
	(void)signals;
	errno = ENOSYS;
	return -1;
}

int
bpfeng_loop(
    struct bpfeng *eng, const struct bpfeng_loop_ops *ops, void *arg, bool lazy)
{
	(void)eng;
	(void)ops;
	(void)arg;
	(void)lazy;
	errno = ENOSYS;
	return -1;
}

void
bpfeng_count_ticks(struct bpfeng *eng, uint64_t ticks)
{
	(void)eng;
	(void)ticks;
}

void
bpfeng_each_proc(
    struct bpfeng *eng, void (*fn)(void *arg, void *proc), void *arg)
{
	(void)eng;
	(void)fn;
	(void)arg;
}

int
bpfeng_fd(const struct bpfeng *eng)
{
	(void)eng;
	return -1;
}

int
bpfeng_dispatch(struct bpfeng *eng, char *why, size_t whylen)
{
	return bpfeng_attach(eng, NULL, 0, why, whylen);
}

bool
bpfeng_done(const struct bpfeng *eng)
{
	(void)eng;
	return true;
}

int
bpfeng_tick(struct bpfeng *eng, int next_set, bpfeng_tick_fn *fn, void *arg,
    char *why, size_t whylen)
{
	(void)next_set;
	(void)fn;
	(void)arg;
	return bpfeng_attach(eng, NULL, 0, why, whylen);
}

uint64_t
bpfeng_flush_ns(const struct bpfeng *eng)
{
	(void)eng;
	return 0;
}

uint64_t
bpfeng_handover_ns(const struct bpfeng *eng)
{
	(void)eng;
	return 0;
}

uint64_t
bpfeng_hidden_switches(const struct bpfeng *eng)
{
	(void)eng;
	return 0;
}

int
bpfeng_read_cgroups(struct bpfeng *eng, bpfeng_cgroup_fn *fn, void *arg)
{
	(void)eng;
	(void)fn;
	(void)arg;
	errno = ENOSYS;
	return -1;
}

void
bpfeng_forget_cgroup(struct bpfeng *eng, uint64_t id)
{
	(void)eng;
	(void)id;
}

void
bpfeng_close(struct bpfeng *eng)
{
	(void)eng;
}

bool
bpfeng_may_count_any(void)
{
	return false;
}
