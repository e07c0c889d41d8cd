/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputop with no target, for a user whom the BPF engine refuses: instead
 * of every process of the machine, the user's own, with what they start,
 * counted by the ptrace engine, as cputrack would count them with -p.
 * Own is what the kernel lets the user trace: a process whose real,
 * effective, saved and file-system ids are all the user's. Root is not
 * offered this: its own processes are the system's.
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

/* Whether /proc/PID/status's line of KEY holds ID four times. */
static bool
ids_all(const char *line, const char *key, unsigned id)
{
	unsigned v[4];
	size_t n = strlen(key);

	return strncmp(line, key, n) == 0 &&
	    sscanf(line + n, "%u %u %u %u", &v[0], &v[1], &v[2], &v[3]) == 4 &&
	    v[0] == id && v[1] == id && v[2] == id && v[3] == id;
}

/* Whether process pid runs, as the caller, all its ids the caller's. */
static bool
is_own(pid_t pid)
{
	char path[64], line[256];
	bool uid = false, gid = false, zombie = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "State:", 6) == 0)
			zombie = strchr(line, 'Z') != NULL;
		uid |= ids_all(line, "Uid:", (unsigned)getuid());
		gid |= ids_all(line, "Gid:", (unsigned)getgid());
	}
	fclose(f);
	return uid && gid && !zombie;
}

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

/* -p's list: the caller's processes but cputrack itself. */
static int
own_pids(struct cputrack_opts *o)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *d;
	pid_t pid;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (pid != getpid() && is_own(pid) &&
		    add_pid(o, &cap, pid) != 0)
			break;
	}
	closedir(d);
	return de == NULL ? 0 : -1;
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

	if (!o->top_machine || geteuid() == 0)
		return false;
	if (own_pids(o) != 0) {
		diag(NULL, "cannot list your processes: %s\n", strerror(errno));
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
