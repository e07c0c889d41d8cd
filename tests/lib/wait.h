/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The C tests' one wait, as the shell tests' wait_for (tests/cli/wait.bash):
 * a bounded poll of a condition, with one bound for a hang and a message
 * that says what it waited for. A sleep that stands for an event makes a
 * test that passes or fails on the machine's speed; scripts/poll-check
 * refuses one. The waits for a process or a thread are built on it.
 */
#ifndef WAIT_H
#define WAIT_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Until ready(arg) holds, WAIT_BOUND_S seconds at most (the environment's,
 * as for the shell tests, else 30: within the tests' alarm guards): a
 * bound for a run that hangs, never a time a test expects. Past it, says
 * "waited N s in vain for: WHAT" and returns false: CHECK(wait_for(...)).
 */
bool wait_for(const char *what, bool (*ready)(void *arg), void *arg);

/* Until child pid has ended, left a zombie for its parent to reap. */
bool wait_zombie(pid_t pid);
/* Until thread tid's state letter in /proc is one of states. */
bool wait_state(pid_t tid, const char *states);
/* Until process pid runs on: neither stopped, traced, a zombie, nor gone. */
bool wait_running(pid_t pid);

/* The state letter of /proc/PID/stat (a thread's too), 0 once it is gone. */
char proc_state(pid_t pid);

/*
 * Pause for ms milliseconds, resumed across signals: not a wait, a span
 * (a workload runs a while, a delay sets up a race, a count covers a
 * time). Its caller says why on the line: "not a wait: why".
 */
void sleep_ms(long ms);

#endif /* WAIT_H */
