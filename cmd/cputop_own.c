/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputop with no target, for a user whom the BPF engine refuses: instead
 * of every process of the machine, the user's own, with what they start,
 * counted by the ptrace engine, as cputrack would count them with -p.
 * Own is what the kernel lets the user trace (cpc_may_trace asks it,
 * touching nothing): the user's processes, but set-id or undumpable ones,
 * and no zombie or kernel thread. Root is not offered this: what it may
 * trace is the system.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cputrack.h"
#include "diag.h"

static int
add_pid(struct cputrack_opts *o, size_t *cap, pid_t pid)
{
	pid_t *grown;

	if (o->npids == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((grown = reallocarray(o->pids, *cap, sizeof(*grown))) ==
		    NULL)
			return -1;
		o->pids = grown;
	}
	o->pids[o->npids++] = pid;
	return 0;
}

/* -p's list: the caller's processes but cputrack itself. 0 or an errno. */
static int
own_pids(struct cputrack_opts *o)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *d;
	pid_t pid;

	if ((d = opendir("/proc")) == NULL)
		return errno;
	/* A failed allocation stops the walk, with de not NULL. */
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (pid != getpid() && cpc_may_trace(pid) == 1 &&
		    add_pid(o, &cap, pid) != 0)
			break;
	}
	closedir(d);
	return de == NULL ? 0 : ENOMEM;
}

/*
 * The BPF engine refused the whole machine for why: whether the run
 * watches the caller's own processes instead (then set up as -p of them,
 * followed through forks and execs), and what the view's header says.
 */
bool
cputop_own_instead(struct cputrack *ct, const char *why)
{
	struct cputrack_opts *o = &ct->opt;
	int err;

	if (!o->top_machine || geteuid() == 0)
		return false;
	if ((err = own_pids(o)) != 0) {
		diag(NULL, "cannot list your processes: %s\n", strerror(err));
		return false;
	}
	/* None but cputop: the refusal is all there is to say. */
	if (o->npids == 0)
		return false;
	free(o->cgroup);
	o->cgroup = NULL;
	o->top_own = true;
	o->engine = ENGINE_PTRACE;
	snprintf(o->watching, sizeof(o->watching),
	    "your processes (for every user's, %s)", why);
	return true;
}
