/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Whose thread a thread id is, from /proc: the commands' -p and -t
 * checks and the BPF engine's target, one reading of Tgid.
 */
#ifndef PROC_TGID_H
#define PROC_TGID_H

#include <sys/types.h>

/* The process a thread id belongs to (itself for a process), or -1. */
pid_t proc_tgid(pid_t tid);

#endif /* PROC_TGID_H */
