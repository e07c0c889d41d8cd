#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Check one torture run: check.py RECORD CPUTRACK_OUT CPUTRACK_ERR UNTRACED_RECORD

RECORD holds a line "PID WRITES THREADS NODE HOW" per process image of
the traced run; CPUTRACK_OUT is the table of cputrack -f -e -c
syscalls:sys_enter_write and CPUTRACK_ERR its standard error;
UNTRACED_RECORD is RECORD of an untraced run of the same seed. Prints what
is wrong, one line each; exit 1 if anything.
"""
import re
import collections
import sys


def records(path):
    out = []
    with open(path) as f:
        for line in f:
            pid, writes, threads, node, how = line.split()
            out.append((int(pid), int(writes), int(threads), node, how))
    return out


def main():
    rec, table, err, untraced = sys.argv[1:5]
    errors = []
    traced = records(rec)
    plain = records(untraced)

    # The same behaviour traced and untraced: the same images, writes
    # and threads, node by node.
    def shape(rs):
        return sorted((node, w, t, how) for _, w, t, node, how in rs)
    if shape(traced) != shape(plain):
        errors.append("traced run differs from untraced: %s vs %s"
                      % (shape(traced), shape(plain)))

    want_writes = collections.Counter()
    want_threads = collections.Counter()
    # Processes that ended, per pid: the kernel may give a pid twice in a
    # run when another process sets ns_last_pid (a test of pid reuse).
    ends = collections.Counter()
    killed = set()
    for pid, w, t, _, how in traced:
        if how != "exec":
            ends[pid] += 1
        want_writes[pid] += w
        want_threads[pid] += t
        if how == "signal":
            killed.add(pid)

    # On stderr only "PID: process terminated: killed by SIGNAME", once
    # for each process that a signal ended.
    terminated = collections.Counter()
    with open(err) as f:
        for line in f.read().splitlines():
            m = re.fullmatch(r"cputrack: (\d+): process terminated: "
                             r"killed by SIG[A-Z0-9+-]+( \(core dumped\))?",
                             line)
            if m:
                terminated[int(m.group(1))] += 1
            else:
                errors.append("on stderr: %r" % line)
    if sorted(terminated.elements()) != sorted(killed):
        errors.append("'process terminated' for %s; killed by signals: %s"
                      % (sorted(terminated.elements()), sorted(killed)))

    exits = collections.Counter()
    got = collections.Counter()
    creates = collections.Counter()
    forks = collections.Counter()
    # Per pid and image (exec starts a new one): LWPs created and exited.
    image = collections.Counter()
    # Per pid: which of the processes that had it (a fork row starts one).
    gen = collections.Counter()
    created = set()
    exited = set()
    # Per pid and image: the lwp_exit rows' sum. Where LWP 1 has one too,
    # every thread of the image had its row, and the image's totals (exec
    # or exit) are their sum.
    lwp_sum = collections.Counter()
    with open(table) as f:
        lines = f.read().splitlines()
    if not lines or lines[0].split()[:4] != ["time", "pid", "lwp", "event"]:
        errors.append("no title line")
        lines = ["", ""]
    for line in lines[1:]:
        fields = line.split()
        if len(fields) < 5:
            errors.append("short row: %r" % line)
            continue
        pid, lwp, label = int(fields[1]), int(fields[2]), fields[3]
        if fields[4] == "#":
            if label == "fork":
                forks[int(fields[5])] += 1
                gen[int(fields[5])] += 1
            elif label == "exec":
                image[pid] += 1
            else:
                errors.append("unexpected marker row: %r" % line)
            continue
        value = int(fields[4])
        img = (pid, gen[pid], image[pid])
        key = img + (lwp,)
        if label in ("exit", "exec"):
            if img + (1,) in exited and value != lwp_sum[img]:
                errors.append("pid %d: %s total %d, its LWPs' rows %d"
                              % (pid, label, value, lwp_sum[img]))
        if label == "exit":
            exits[pid] += 1
            got[pid] += value
        elif label == "exec":
            got[pid] += value
        elif label == "lwp_create":
            creates[pid] += 1
            if key in created:
                errors.append("LWP %d of pid %d created twice" % (lwp, pid))
            created.add(key)
        elif label == "lwp_exit":
            if key in exited:
                errors.append("LWP %d of pid %d exited twice" % (lwp, pid))
            if key not in created and lwp != 1:
                errors.append("LWP %d of pid %d exited, never created"
                              % (lwp, pid))
            exited.add(key)
            lwp_sum[img] += value
        elif label not in ("tick", "gap"):
            errors.append("unexpected row: %r" % line)

    pids = set(want_writes)
    for pid in sorted(pids | set(exits) | set(got)):
        if pid not in pids:
            errors.append("pid %d reported, but not in the record" % pid)
            continue
        if exits[pid] != ends[pid]:
            errors.append("pid %d: %d exit rows, %d processes ended"
                          % (pid, exits[pid], ends[pid]))
        if got[pid] != want_writes[pid]:
            errors.append("pid %d: counted %d writes, made %d"
                          % (pid, got[pid], want_writes[pid]))
        if creates[pid] != want_threads[pid]:
            errors.append("pid %d: %d lwp_create rows, %d threads"
                          % (pid, creates[pid], want_threads[pid]))
    # Every process but the first was forked, and reported so once.
    for pid, n in forks.items():
        if n not in (ends[pid], ends[pid] - 1):
            errors.append("pid %d: %d fork rows, %d processes"
                          % (pid, n, ends[pid]))
        if pid not in pids:
            errors.append("fork row for pid %d, not in the record" % pid)
    if sum(forks.values()) != sum(ends.values()) - 1:
        errors.append("%d fork rows for %d processes"
                      % (sum(forks.values()), sum(ends.values())))
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
