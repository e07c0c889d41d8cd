/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A process's name, as the kernel keeps it (/proc/PID/comm), and its
 * cgroup: the metrics' comm and cgroup labels, read while the process is
 * there to read; and whose thread a thread id is.
 */
#ifndef PROCNAME_H
#define PROCNAME_H

#include <stddef.h>
#include <sys/types.h>

/* Whose thread a thread id is: proc_tgid(), shared with the BPF engine. */
#include "proc_tgid.h"

/* The name into comm (size bytes), or "" when it cannot be read. */
void proc_comm(pid_t pid, char *comm, size_t size);
/*
 * Its cgroup v2 path (/proc/PID/cgroup's "0::" line, as its cgroup
 * namespace sees it), allocated; NULL when it cannot be read or the
 * process is in no cgroup v2 hierarchy.
 */
char *proc_cgroup(pid_t pid);

#endif /* PROCNAME_H */
