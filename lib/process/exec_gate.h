/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A command started behind a gate, as both engines start one: forked, the
 * child waits at a pipe until the parent has done what must come before
 * the command's first instruction (libpctx seizes it, the BPF engine
 * tracks it), then execs. A second pipe, closed by a successful exec
 * (O_CLOEXEC), carries back the errno of a failed one.
 *
 * The child execs only on the byte the parent writes: a parent that ends
 * or gives up first leaves it the gate's end closed, and it exits 127
 * without running the command. A command whose standard output is a
 * terminal other than its caller's session's (the live view's pane)
 * leads a session of its own with that terminal as its controlling one.
 * The parent keeps the gate's read end
 * until it writes, so that a child killed meanwhile never makes that
 * write raise SIGPIPE in the caller.
 */
#ifndef EXEC_GATE_H
#define EXEC_GATE_H

struct exec_gate {
	int go[2];     /* the gate: the child execs once it reads "g" */
	int report[2]; /* a failed exec's errno; closed by a successful one */
};

/* A gate with no end open, for exec_gate_close to find none. */
void exec_gate_init(struct exec_gate *g);

/* Both pipes, close-on-exec: 0, or -1 (errno) with no end left open. */
int exec_gate_open(struct exec_gate *g);

/*
 * In the forked child: the parent's ends closed, wait at the gate; once
 * it opens, before_exec(arg) when given, then file is exec'd (found on
 * PATH as execvp finds it) with argv. Exit status 127 when the gate closes
 * unopened or the exec fails, whose errno then goes to the parent.
 */
void exec_gate_child(struct exec_gate *g, const char *file, char *const argv[],
    void (*before_exec)(const void *), const void *arg)
    __attribute__((noreturn));

/* In the parent, after the fork: the report's write end, the child's. */
void exec_gate_forked(struct exec_gate *g);

/*
 * Open the gate and wait for the exec: 0 once it succeeded, else its
 * errno (or the gate's write's). Every end is closed.
 */
int exec_gate_release(struct exec_gate *g);

/* Every end still open, closed: a child still at the gate exits there. */
void exec_gate_close(struct exec_gate *g);

#endif /* EXEC_GATE_H */
