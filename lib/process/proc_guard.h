/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guard of a started command: when its owner (cputrack) dies without
 * dismissing it, as SIGKILL kills it, the guard kills the command, and
 * with a tree, every process below the command, each first stopped so
 * that none can make another, or leave the tree by its parent's end,
 * meanwhile, then all killed.
 *
 * The command's own parent-death signal cannot make that difference: it
 * outlives the exec, no one but the command can take it back, and it
 * comes at every end of its parent (a command let go at an exec, at -N
 * or at SIGPIPE must run on after a cputrack that exits). The guard is a
 * small process of its own session, no child of its owner's (its parent
 * exits at once), that holds the command's pidfd and one end of a socket
 * pair only the owner writes to: "r" dismisses it; the end of the socket
 * without it, that is the owner gone without letting the command go,
 * makes it kill. A pidfd, or a descriptor of the process's /proc
 * directory (which pidfd_send_signal takes as one, and which any tool
 * that runs the owner knows: valgrind knows no pidfd_open), names that
 * process and no later one of the same pid; each process below is named
 * so too, its descriptor taken while its parent, stopped, still holds
 * it. A dismissed guard's end closing tells the owner that it has gone:
 * nothing of the run outlives the run.
 *
 * A process no longer below the command (one whose parent ended, as a
 * daemon's double fork leaves it) is not found; nor is one that another
 * user's privilege protects from its signals.
 */
#ifndef PROC_GUARD_H
#define PROC_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

struct proc_guard {
	int fd;		/* the owner's end of the socket pair, or -1 */
	bool dismissed; /* told to go: it exits as the run ends */
};

void proc_guard_init(struct proc_guard *g);

/* A descriptor of /proc/PID, that names the process as a pidfd does; -1. */
int proc_guard_open(pid_t pid);

/*
 * Start the guard of the command pid, whose pidfd (or proc_guard_open's
 * descriptor) the caller holds (the guard takes its own copy): 0, or -1
 * with errno. tree: the processes
 * below it too. Only system calls run in the forked processes, so that
 * it may be called from a threaded process.
 */
int proc_guard_start(struct proc_guard *g, int pidfd, pid_t pid, bool tree);

/*
 * pid, stopped (so that the pid names it), is of the tree but no longer
 * below the command, or may not stay so (a process made with -f that the
 * ptrace engine lets go at its exec, whose parent PTRACE_O_EXITKILL may
 * end first): the guard is handed a descriptor of it, and kills it, and what
 * is below it, with the rest.
 */
void proc_guard_add(struct proc_guard *g, pid_t pid);

/* The command is let go or has ended: the guard goes, killing nothing. */
void proc_guard_dismiss(struct proc_guard *g);

/* Dismiss it, and wait (a second at most) for it to have gone. */
void proc_guard_gone(struct proc_guard *g);

#endif /* PROC_GUARD_H */
