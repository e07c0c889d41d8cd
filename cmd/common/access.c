/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Why a process cannot be traced, and who traces it: the hints that
 * follow a refusal (the check itself is libcpc's cpc_may_trace).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"
#include "diag.h"
#include "procname.h"

/*
 * The usual reasons: the process belongs to another user, or Yama lets a
 * user trace only the processes it started. Nothing here suggests giving
 * a tracer CAP_SYS_PTRACE: that would let it read every process.
 */
void
trace_refusal_hint(pid_t pid)
{
	char path[64];
	struct stat st;
	FILE *f;
	int scope = 0;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (getuid() == 0 || stat(path, &st) != 0)
		return;
	if (st.st_uid != getuid()) {
		diag(NULL,
		    "pid %d belongs to another user (uid %u): only that "
		    "user or root may count it\n",
		    (int)pid, (unsigned)st.st_uid);
		return;
	}
	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re")) != NULL) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope > 0)
		diag(NULL,
		    "kernel.yama.ptrace_scope is %d: a user may trace "
		    "only the processes it starts; start the command under "
		    "cputrack, or ask root\n",
		    scope);
}

/* A process has one tracer: a debugger, strace, another cputrack. */
void
tracer_hint(pid_t pid)
{
	char path[64], line[256], comm[16];
	int tracer = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	if (tracer <= 0)
		return;
	proc_comm(tracer, comm, sizeof(comm));
	diag(NULL,
	    "pid %d is traced by pid %d (%s), and a process has one "
	    "tracer: --engine=bpf counts it without tracing it\n",
	    (int)pid, tracer, comm[0] != '\0' ? comm : "?");
}
