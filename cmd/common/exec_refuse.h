/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A run that starts no command never needs execve(2) again once it is
 * counting: cputrack -p, --for-each-cgroup and the exporter it serves,
 * cpustat. exec_refuse takes the call away from the process for good, so
 * that a flaw found in what it parses (an HTTP request, a web-config
 * file, a record) cannot be turned into a program run with the
 * counters' privileges. The container's own profile cannot say this: the
 * runtime's exec of the daemon runs under the same filter.
 */
#ifndef EXEC_REFUSE_H
#define EXEC_REFUSE_H

/*
 * From now on, execve(2) and execveat(2) fail with EPERM in the calling
 * thread and in every thread and process it starts later, and a system
 * call of another ABI than the process's own (i386's or x32's on x86-64)
 * fails the same way. Called before the process starts a thread, so
 * that it holds for all of them: by prctl(2), not seccomp(2)'s TSYNC,
 * which valgrind does not know. Sets no_new_privs, which a filter needs
 * without CAP_SYS_ADMIN.
 * 0, or -1 with errno: ENOSYS on an architecture this does not know, or
 * what prctl(2) says (EINVAL on a kernel without seccomp filters, EPERM
 * or ENOSYS under a profile that denies it); the process is then as it
 * was, apart from no_new_privs.
 */
int exec_refuse(void);

#endif
