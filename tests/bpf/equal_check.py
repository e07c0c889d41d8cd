#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""One run, counted three ways at once: equal_check.py BPF_CSV PTRACE_CSV PERF [options]

BPF_CSV is the CSV of cputrack --engine=bpf -v -f -e, which started perf
stat, which started cputrack --engine=ptrace -v (PTRACE_CSV), which
started the command. PERF is perf stat -x, output for the same events.
PTRACE_CSV "-": perf stat started the command itself; only the BPF
engine's rows are checked against perf stat's counts.

Checks, printing each difference on a line of its own (exit 1 if any):
  - every row of the ptrace engine (lwp_create, fini_lwp, lwp_exit, exec,
    exit, fork) has its twin in the BPF engine's rows of the same pid,
    image and tid, with the same LWP id and the same counts, and the BPF
    engine has no such row that the ptrace engine lacks;
  - the tick rows of each LWP never add up to more than its final counts,
    in either engine (--whole-ticks EVENT: they add up to exactly its
    final count of EVENT, for a command whose LWPs end quietly);
  - perf stat's count of each event in --perf-exact is the sum of what
    the BPF engine counted for perf's command (after its exec) and all its
    descendants; for each event in --perf-exec, perf stat's count is that
    sum plus what the command did within its exec, from the point where
    perf stat starts counting (at the exec's point of no return) to the
    exec's end, where the engines start: so at least the sum and at most
    the sum plus the BPF engine's count of the command before its exec.
Options: --perf-exact EVENT, --perf-exec EVENT (both repeatable),
--whole-ticks EVENT, --summary (print the processes, images and LWPs
compared, and the totals per image name), --hidden N (the BPF engine
said that N switches out of a task the kernel hides from tracing went
unseen: what that task counted is in a tracked thread's counts, so the
BPF engine's counts may be higher than the others', never lower).
"""
import argparse
import collections
import csv
import os
import sys

FIXED = ["time", "pid", "lwp", "tid", "cpu", "ncpus", "label", "set",
         "enabled_ns", "running_ns", "tsc"]
TAIL = ["proc", "child", "args", "not_counted", "partial", "key", "value"]


def who(key):
    """An LWP's key as words: pid, image, tid, and which of the tid's
    lives in that image when the kernel gave it to a later thread too."""
    text = "pid %d image %d tid %d" % key[:3]
    return text + (" (life %d)" % (key[3] + 1) if len(key) > 3 else "")


class Run:
    """The rows of one engine's CSV, keyed by pid, image and tid.

    A tid can come again in one image when the kernel's pids wrap during
    the run (pid_max 32768 and a busy machine): a second thread's rows
    then have the key's fourth member, 1 (2 for a third, ...)."""

    def __init__(self, path):
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows:
            raise SystemExit("%s: no rows" % path)
        self.path = path
        names = list(rows[0].keys())
        self.events = names[len(FIXED):names.index(TAIL[0])]
        self.first_pid = None
        self.image = collections.Counter()   # pid: execs so far
        self.args = {}                       # (pid, image): its arguments
        self.lwp = {}        # label: {(pid, image, tid): (lwp, counts)}
        self.proc = {}       # label: {(pid, image): counts}
        self.ticks = collections.defaultdict(lambda: [0] * len(self.events))
        self.forks = set()
        self.exit_pids = set()
        self.lives = collections.Counter()   # (pid, image, tid): later
        for r in rows:
            self.take(r)

    def counts(self, r):
        if r["not_counted"]:
            raise SystemExit("%s: pid %s lwp %s %s of set %s not counted: %s"
                             % (self.path, r["pid"], r["lwp"], r["label"],
                                r["set"], r["not_counted"]))
        return tuple(int(r[e]) for e in self.events)

    def take(self, r):
        label = r["label"]
        if label == "meta":
            return
        pid = int(r["pid"])
        if self.first_pid is None:
            self.first_pid = pid
        img = self.image[pid]
        if label == "fork":
            self.forks.add((pid, int(r["child"])))
            return
        if label == "exec" and r["set"] == "":
            self.image[pid] += 1
            self.args[(pid, img + 1)] = r["args"]
            return
        if r["set"] != "0":
            return
        c = self.counts(r)
        if label in ("init_lwp", "lwp_create", "fini_lwp", "lwp_exit"):
            key = self.lwp_key(label, pid, img, int(r["tid"]))
            d = self.lwp.setdefault(label, {})
            if key in d:
                raise SystemExit("%s: %s twice for %s"
                                 % (self.path, label, who(key)))
            d[key] = (int(r["lwp"]), c)
        elif label in ("tick", "gap"):
            t = self.ticks[self.lwp_key(label, pid, img, int(r["tid"]))]
            for i, v in enumerate(c):
                t[i] += v
        elif label in ("exec", "exit"):
            d = self.proc.setdefault(label, {})
            if (pid, img) in d:
                raise SystemExit("%s twice for pid %d image %d"
                                 % (label, pid, img))
            d[(pid, img)] = c
            if label == "exit":
                self.exit_pids.add(pid)
        else:
            raise SystemExit("unexpected row label %r" % label)

    def lwp_key(self, label, pid, img, tid):
        """A new life of a tid begins with a start row (init_lwp with -v,
        else lwp_create) after its previous life's fini_lwp."""
        base = (pid, img, tid)
        life = self.lives[base]
        key = base if life == 0 else base + (life,)
        fini = self.lwp.get("fini_lwp", {})
        start = "init_lwp" if "init_lwp" in self.lwp or \
            label == "init_lwp" else "lwp_create"
        if label == start and key in fini:
            self.lives[base] = life = life + 1
            key = base + (life,)
        return key

    def pids(self):
        out = set()
        for d in list(self.lwp.values()) + list(self.proc.values()):
            out |= {k[0] for k in d}
        return out


def image_name(args):
    return os.path.basename(args.split(" ", 1)[0])


def covers(want, got, hidden):
    """got is want; or, with hidden switches, the same LWP id and each
    count at least want's."""
    if want == got:
        return True
    if not hidden or want is None or got is None:
        return False
    if isinstance(want[0], int) and isinstance(want[-1], (tuple, list)):
        return want[0] == got[0] and covers(want[1], got[1], hidden)
    return len(want) == len(got) and all(b >= a for a, b in zip(want, got))


def compare(bpf, pt, errors, hidden=0):
    """Every ptrace row against its BPF twin, for the ptrace engine's pids.

    The BPF engine saw the command's process from the fork that made it,
    before its exec: its images there are one ahead of the ptrace
    engine's for the first pid (and only for it: forks both see)."""
    if bpf.events != pt.events:
        errors.append("events differ: %s vs %s" % (bpf.events, pt.events))
        return
    pids = pt.pids()
    shift = {pt.first_pid: 1}

    def moved(key):
        return (key[0], key[1] + shift.get(key[0], 0)) + tuple(key[2:])

    for label in ("lwp_create", "fini_lwp", "lwp_exit"):
        mine = pt.lwp.get(label, {})
        theirs = {k: v for k, v in bpf.lwp.get(label, {}).items()
                  if k[0] in pids and k[1] >= shift.get(k[0], 0)}
        want = {moved(k): v for k, v in mine.items()}
        for k in sorted(set(want) | set(theirs)):
            if not covers(want.get(k), theirs.get(k), hidden):
                errors.append("%s %s: ptrace %s, bpf %s"
                              % (label, who(k), want.get(k), theirs.get(k)))
    for label in ("exec", "exit"):
        mine = pt.proc.get(label, {})
        theirs = {k: v for k, v in bpf.proc.get(label, {}).items()
                  if k[0] in pids and k[1] >= shift.get(k[0], 0)}
        want = {moved(k): v for k, v in mine.items()}
        for k in sorted(set(want) | set(theirs)):
            if not covers(want.get(k), theirs.get(k), hidden):
                errors.append("%s pid %d image %d: ptrace %s, bpf %s"
                              % (label, *k, want.get(k), theirs.get(k)))
    mine = pt.forks
    theirs = {f for f in bpf.forks if f[0] in pids}
    if mine != theirs:
        errors.append("forks: ptrace only %s, bpf only %s"
                      % (sorted(mine - theirs), sorted(theirs - mine)))
    for (pid, img), args in pt.args.items():
        other = bpf.args.get((pid, img + shift.get(pid, 0)))
        if other != args:
            errors.append("exec args of pid %d image %d: ptrace %r, bpf %r"
                          % (pid, img, args, other))
    return pids


def check_ticks(run, name, whole, errors):
    fini = run.lwp.get("fini_lwp", {})
    for key, sums in run.ticks.items():
        if key not in fini:
            errors.append("%s: ticks of %s, no fini_lwp" % (name, who(key)))
            continue
        final = fini[key][1]
        for i, e in enumerate(run.events):
            if sums[i] > final[i]:
                errors.append("%s: ticks of %s add up to %d %s, more than "
                              "its %d" % (name, who(key), sums[i], e,
                                          final[i]))
    if whole is None:
        return
    i = run.events.index(whole)
    for key, (lwp, final) in fini.items():
        got = run.ticks.get(key, [0] * len(run.events))[i]
        if got != final[i]:
            errors.append("%s: ticks of %s add up to %d %s, not its %d"
                          % (name, who(key), got, whole, final[i]))


def perf_counts(path):
    out = {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split(",")
            if len(fields) >= 3 and fields[0].isdigit():
                out[fields[2]] = int(fields[0])
    return out


def descendants(forks, root):
    children = collections.defaultdict(list)
    for parent, child in forks:
        children[parent].append(child)
    out, todo = set(), [root]
    while todo:
        p = todo.pop()
        for c in children[p]:
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def check_perf(bpf, perf, exact, exec_window, errors, hidden=0):
    """perf stat counts its command from its exec, with every descendant."""
    kids = [c for p, c in bpf.forks if p == bpf.first_pid]
    if len(kids) != 1:
        errors.append("perf stat forked %d processes, not 1" % len(kids))
        return
    cmd = kids[0]
    tree = descendants(bpf.forks, cmd) | {cmd}
    for e in exact + exec_window:
        i = bpf.events.index(e)
        got = 0
        for label in ("exec", "exit"):
            for (pid, img), c in bpf.proc.get(label, {}).items():
                if pid in tree and not (pid == cmd and img == 0):
                    got += c[i]
        before = bpf.proc.get("exec", {}).get((cmd, 0))
        if perf.get(e) is None or before is None:
            errors.append("%s: perf stat %s, the command's exec %s"
                          % (e, perf.get(e), before))
        elif e in exact and not (perf[e] == got or
                                 hidden and perf[e] <= got):
            errors.append("%s: perf stat %d, bpf %d over pids %s"
                          % (e, perf[e], got, sorted(tree)))
        elif e in exec_window and not (got <= perf[e] <= got + before[i]
                                       or hidden and perf[e] <= got):
            errors.append("%s: perf stat %d, bpf %d over pids %s, %d "
                          "before the exec" % (e, perf[e], got,
                                               sorted(tree), before[i]))


def summary(pt, pids):
    by_name = collections.defaultdict(lambda: [0, None])
    totals = dict(pt.proc.get("exec", {}))
    totals.update(pt.proc.get("exit", {}))
    for (pid, img), c in totals.items():
        if (pid, img) in pt.args:
            name = image_name(pt.args[(pid, img)])
        else:
            name = "(command)" if pid == pt.first_pid else "(forked)"
        s = by_name[name]
        s[0] += 1
        s[1] = list(c) if s[1] is None else [a + b for a, b in zip(s[1], c)]
    nlwp = len(pt.lwp.get("fini_lwp", {}))
    print("# %d processes, %d images, %d LWPs equal in both engines"
          % (len(pids), len(totals), nlwp))
    for name in sorted(by_name):
        n, c = by_name[name]
        print("#   %-12s %4d images: %s" % (name, n, " ".join(
            "%s=%d" % (e, v) for e, v in zip(pt.events, c))))


def three_ways(a, bpf, pt, errors):
    pids = compare(bpf, pt, errors, a.hidden) or set()
    if not pt.lwp.get("fini_lwp"):
        errors.append("the ptrace engine reported no LWP")
    check_ticks(pt, "ptrace", a.whole_ticks, errors)
    if a.whole_ticks is not None:
        # The BPF engine's LWPs of the command, from its exec on.
        def ours(k):
            return k[0] in pids and k[1] >= (k[0] == pt.first_pid)
        sub = Run.__new__(Run)
        sub.__dict__.update(bpf.__dict__)
        sub.lwp = {"fini_lwp": {k: v for k, v in
                                bpf.lwp.get("fini_lwp", {}).items()
                                if ours(k)}}
        sub.ticks = {k: v for k, v in bpf.ticks.items() if ours(k)}
        check_ticks(sub, "bpf", a.whole_ticks, errors)
    if a.summary and not errors:
        summary(pt, pids)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bpf")
    ap.add_argument("ptrace")
    ap.add_argument("perf")
    ap.add_argument("--perf-exact", action="append", default=[])
    ap.add_argument("--perf-exec", action="append", default=[])
    ap.add_argument("--whole-ticks")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--hidden", type=int, default=0)
    a = ap.parse_args()
    errors = []
    bpf = Run(a.bpf)
    check_ticks(bpf, "bpf", None, errors)
    check_perf(bpf, perf_counts(a.perf), a.perf_exact, a.perf_exec, errors,
               a.hidden)
    if a.ptrace != "-":
        three_ways(a, bpf, Run(a.ptrace), errors)
    if a.hidden:
        print("# the kernel hid %d switches out of a task it does not show: "
              "the BPF engine's counts checked as at least the others'"
              % a.hidden)
    for e in errors[:40]:
        print(e)
    if len(errors) > 40:
        print("... %d more" % (len(errors) - 40))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
