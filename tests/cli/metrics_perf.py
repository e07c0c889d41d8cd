#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""metrics_perf.py [--write-docs] [--only CPUID|TAG]... [--verbose]

cpctools' metrics give perf's numbers, through the commands' real path and
with no PMU: for each x86 model Debian's perf 6.1 knows, its own formulas
and names (PERF_CPUID=ID perf list --details metric; perf list
metricgroup) against what cputrack and cpustat --input -M give.

For each model (with SMT on and again off, where it has SMT), and each tool:
1. A record is written as the tool writes one (-j): a set holding every
   event the data's formulas read, in any branch, for every metric perf
   6.1 names (and every event --list -j names for them); the machine (2
   packages of 8 cores, SMT as said; cputrack's per thread, cpustat's
   system-wide with the siblings counted); 3 rows of random counts of
   realistic sizes and one where some counts are 0.
2. For each metric both know (by name and PMU), perf 6.1's formula and the
   one cpctools takes from its data, each with the metrics it reads as
   each resolves them, are evaluated by perf_expr.py, this test's own
   evaluator, times each one's ScaleUnit, on random counts and on the
   record's rows: where they agree, they share. Then the value cpctools'
   --input -M gives must be perf 6.1's on every row, within 1e-9 (NaN
   where NaN), or differ by a rule of perf 6.1's evaluator (below).
3. Those that do not share are docs/events.md's table under "Where the
   vendors' newer data differs from perf 6.1", with why and the two
   formulas, and no others; and the groups whose metrics -M takes are not
   perf 6.1's (its MetricGroup, from its tables), each with what only one
   takes: --write-docs writes those tables, and the test fails where the
   docs' are not the ones it writes.
4. Every metric and group name perf 6.1 lists is taken by -M on the
   record: not refused as unknown, nor for want of an event (the record
   holds them all); cputrack may refuse a metric of a whole socket's
   events, as it refuses them on a machine.

perf 6.1's values are its evaluator's (perf_expr.py, from expr.y of v6.1):
where cpctools' value differs and a rule of later releases that cpctools
follows gives it (a division by 0 that leaves the formula no value in perf
6.1, | & ^ bitwise in perf 6.1), the metric is the table's, with the rule.

Models perf 6.1 does not know are not compared with any formula here
(their data's formulas would be their own yardstick): -M must take each
of their names, and metrics_cases.py checks every level-1 and level-2
TopDown metric of each against values worked by hand.

perf 6.1 gives no ScaleUnit in perf list: it is read from the tables
built into perf (jevents' strings; see PerfTables).

Environment, as CTest gives the CLI tests: CPUTRACK, CPUSTAT, SOURCE_DIR.
Exit 0 when all holds; 77 (skipped) where perf is not 6.1's, whose
formulas the table is about; otherwise each fault, and exit 1.
"""
import argparse
import collections
import copy
import itertools
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics_data  # noqa: E402
import perf_expr  # noqa: E402

NAN = float("nan")
ROWS = 3         # a record's rows of random counts, then one with 0s
SHARE_TRIES = 16  # random counts that decide sharing
REL = 1e-9

Variant = collections.namedtuple("Variant", "model cpuid tag smt oracle note")

# The x86 models of Debian's perf 6.1, by a CPU id of each, and the data's
# model cpctools takes for it; then models perf 6.1 does not know.
VARIANTS = (
    Variant("Skylake-SP", "GenuineIntel-6-55-4", "skylakex", 1, "perf", ""),
    Variant("Cascade Lake", "GenuineIntel-6-55-7", "cascadelakex", 1, "perf",
            ""),
    Variant("Ice Lake-X", "GenuineIntel-6-6A-6", "icelakex", 1, "perf", ""),
    Variant("Sapphire Rapids", "GenuineIntel-6-8F-8", "sapphirerapids", 1,
            "perf", ""),
    Variant("Alder Lake", "GenuineIntel-6-97-2", "alderlake", 1, "perf", ""),
    Variant("Skylake", "GenuineIntel-6-5E-3", "skylake", 1, "perf", ""),
    Variant("Ice Lake", "GenuineIntel-6-7E-5", "icelake", 1, "perf", ""),
    Variant("Tiger Lake", "GenuineIntel-6-8C-1", "tigerlake", 1, "perf", ""),
    Variant("Rocket Lake", "GenuineIntel-6-A7-1", "rocketlake", 1, "perf",
            ""),
    Variant("Elkhart Lake", "GenuineIntel-6-96-1", "elkhartlake", 0, "perf",
            ""),
    Variant("Broadwell-X", "GenuineIntel-6-4F-1", "broadwellx", 1, "perf",
            ""),
    Variant("Broadwell-DE", "GenuineIntel-6-56-3", "broadwellde", 1, "perf",
            ""),
    Variant("Broadwell", "GenuineIntel-6-3D-4", "broadwell", 1, "perf", ""),
    Variant("Haswell-X", "GenuineIntel-6-3F-2", "haswellx", 1, "perf", ""),
    Variant("Haswell", "GenuineIntel-6-3C-3", "haswell", 1, "perf", ""),
    Variant("Ivy Bridge-EP", "GenuineIntel-6-3E-4", "ivytown", 1, "perf", ""),
    Variant("Ivy Bridge", "GenuineIntel-6-3A-9", "ivybridge", 1, "perf", ""),
    Variant("Sandy Bridge-EP", "GenuineIntel-6-2D-7", "jaketown", 1, "perf",
            ""),
    Variant("Sandy Bridge", "GenuineIntel-6-2A-7", "sandybridge", 1, "perf",
            ""),
    Variant("Zen", "AuthenticAMD-23-1-2", "amdzen1", 1, "perf", ""),
    Variant("Zen 2", "AuthenticAMD-23-31-0", "amdzen2", 1, "perf", ""),
    Variant("Zen 3", "AuthenticAMD-25-1-1", "amdzen3", 1, "perf", ""),
    Variant("Zen 4", "AuthenticAMD-25-11-1", "amdzen4", 1, "perf", ""),
    Variant("Zen 5", "AuthenticAMD-26-2-0", "amdzen5", 1, "data", ""),
    Variant("Granite Rapids", "GenuineIntel-6-AD-1", "graniterapids", 1,
            "data", ""),
    Variant("Neoverse N1", "0x00000000410fd0c0", "arm/neoverse-n1", 0,
            "data", ""),
    Variant("Neoverse V1", "0x00000000410fd400", "arm/neoverse-v1", 0,
            "data", ""),
    Variant("Neoverse N2", "0x00000000410fd490", "arm/neoverse-n2-v2", 0,
            "data", ""),
    Variant("Neoverse V2", "0x00000000410fd4f0", "arm/neoverse-n2-v2", 0,
            "data", ""),
)


def with_smt_off(variants):
    """Each model with SMT, again with SMT off: its formulas' #smt_on
    branches differ from perf 6.1's in other ways."""
    out = []
    for v in variants:
        out.append(v)
        if v.smt:
            out.append(v._replace(smt=0, note="SMT off"))
    return tuple(out)


VARIANTS = with_smt_off(VARIANTS)

# What the data does not give yet, each said here (and shown as known, not
# failed, while it lasts; one that no longer happens fails, to be taken
# out): (CPU id, a pattern of the fault, why).
KNOWN = (
    ("AuthenticAMD-25-11-1",
     r"-M (all_remote_links_outbound|nps1_die_to_dram) refused: no such",
     "Debian's perf 6.1 knows Zen 4's two data-fabric metrics of its "
     "older data, which the newer data renamed, and metrics-import keeps "
     "no 6.1 layer of amdzen4 that would answer them"),
)

# Why cpctools' value is not perf 6.1's evaluator's, for each rule of later
# releases cpctools follows (perf_expr.LATER).
RULE_WHY = {
    "div": "a division by 0 anywhere leaves the whole formula no value, "
           "where cpctools makes that division alone NaN",
    "logical": "`|`, `&` and `^` are bitwise on whole numbers, where "
               "cpctools' are logical",
    "mod": "`%` of a NaN side gives a number, where cpctools' gives NaN",
}

DOC_BEGIN = "<!-- the table below: tests/cli/metrics_perf.py --write-docs -->"
DOC_END = "<!-- end of the table -->"

faults = []
notes = []


def fault(cpuid, msg):
    faults.append((cpuid, msg))


def same(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= REL * max(abs(a), abs(b))


# perf 6.1's own answers ----------------------------------------------------

class PerfMetric:
    def __init__(self, name, pmu, expr):
        self.name, self.pmu, self.expr = name, pmu, expr
        self.tree = perf_expr.parse(expr)
        self.scale = 1.0
        self.groups = []

    def __repr__(self):
        return "perf:%s/%s" % (self.pmu, self.name)


def perf(args, cpuid):
    env = dict(os.environ, PERF_CPUID=cpuid)
    return subprocess.run(["perf"] + args, env=env, capture_output=True,
                          text=True, check=True).stdout


def perf_version():
    out = subprocess.run(["perf", "--version"], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def perf_metrics(cpuid):
    """perf 6.1's metrics of the model: name, PMU (a hybrid's Unit) and
    formula, in the order perf 6.1 finds a name in its table, the first of
    which it takes for a name a formula reads: sorted by PMU, a hybrid's
    cpu_atom before its cpu_core (as perf stat -vvv shows)."""
    blocks = []
    for line in perf(["list", "--details", "metric"], cpuid).splitlines():
        if re.match(r"^  \S", line):
            blocks.append([line.strip(), []])
        elif re.match(r"^ {7}\[.*\]$", line) and blocks:
            blocks[-1][1].append(line.strip()[1:-1])
    out = []
    for name, lines in blocks:
        unit = re.search(r"Unit: (\S+)", lines[0]) if len(lines) > 1 else None
        out.append(PerfMetric(name, unit.group(1) if unit else "core",
                              lines[-1]))
    out.sort(key=lambda m: "" if m.pmu == "core" else m.pmu)
    return out


def perf_groups(cpuid):
    after = perf(["list", "metricgroup"], cpuid).split("Metric Groups:", 1)
    return [g.strip() for g in after[-1].splitlines() if g.strip()]


class PerfTables:
    """perf 6.1's ScaleUnit of a metric, which its perf list does not
    print: from the tables built into perf, jevents' strings, where each
    field of an entry ends with a NUL: a metric's name, then MetricGroup,
    EventCode, AggrMode, Compat, Deprecated, PerPkg, ScaleUnit,
    MetricConstraint and MetricExpr."""

    def __init__(self):
        with open(os.path.realpath(shutil.which("perf")), "rb") as f:
            self.data = f.read()

    def entry(self, m):
        """m's fields in the tables, or None where they lack m."""
        name = b"\0" + m.name.encode() + b"\0"
        at = self.data.find(name)
        while at >= 0:
            fields = self.data[at + 1:at + 65536].split(b"\0", 10)
            if len(fields) > 10 and fields[9] == m.expr.encode():
                return fields
            at = self.data.find(name, at + 1)
        return None

    def scale(self, m):
        """m's ScaleUnit's factor, or None where the tables lack m."""
        fields = self.entry(m)
        return metrics_data.scale_of(fields[7].decode()) if fields else None

    def groups(self, m):
        """m's MetricGroup, as a list (perf list does not print it)."""
        fields = self.entry(m)
        return [g for g in fields[1].decode().split(";") if g] \
            if fields else []


# Evaluation: what a formula's names stand for -------------------------------

class DataSide:
    """cpctools' data: a name is a metric of the formula's own layer (the
    same PMU's first), else an event."""

    def __init__(self, keys):
        self.keys, self.memo = keys, {}

    def resolve(self, owner, name):
        k = (id(owner), name)
        if k not in self.memo:
            ref = owner.layer.find(perf_expr.unescape(name), owner.pmu)
            self.memo[k] = ("metric", ref) if ref is not None else \
                ("event", self.keys.key(name, owner.pmu))
        return self.memo[k]


class PerfSide:
    """perf 6.1's metrics: a name is a metric of the model, the first of
    its table (same_pmu: the formula's own PMU's first, as later perf
    releases take it), else an event."""

    def __init__(self, metrics, keys, same_pmu):
        self.by_name = collections.defaultdict(list)
        for m in metrics:
            self.by_name[m.name.lower()].append(m)
        self.keys, self.same_pmu, self.memo = keys, same_pmu, {}

    def resolve(self, owner, name):
        k = (id(owner), name)
        if k not in self.memo:
            cands = self.by_name.get(perf_expr.unescape(name).lower(), [])
            if self.same_pmu:
                cands = [m for m in cands if m.pmu == owner.pmu] + cands
            self.memo[k] = ("metric", cands[0]) if cands else \
                ("event", self.keys.key(name, owner.pmu))
        return self.memo[k]


class World:
    """Counts of one row (or random ones) and the machine: the value of any
    formula, each metric's computed once."""

    def __init__(self, side, count, seconds, rec, later=frozenset()):
        self.side, self.count, self.seconds = side, count, seconds
        self.literals = literals_of(rec.machine)
        self.cpuid, self.rec, self.later = rec.machine["cpuid"], rec, later
        self.memo = {}
        self.asked = {}  # metric's id -> the events its value read

    def metric(self, owner):
        if id(owner) not in self.memo:
            self.memo[id(owner)] = NAN  # a formula that reads itself
            frame = Frame(self, owner)
            self.memo[id(owner)] = perf_expr.evaluate(owner.tree, frame)
            self.asked[id(owner)] = frame.asked
        return self.memo[id(owner)]

    def events(self, owner):
        """The events owner's value read, its metrics' included."""
        self.metric(owner)
        return self.asked[id(owner)]


class Frame(perf_expr.Context):
    """The names of one metric's formula, in a world."""

    def __init__(self, world, owner):
        self.world, self.owner = world, owner
        self.later = world.later
        self.asked = set()

    def key(self, name):
        return self.world.side.keys.key(name, self.owner.pmu)

    def value(self, name):
        kind, what = self.world.side.resolve(self.owner, name)
        if kind == "metric":
            v = self.world.metric(what)
            self.asked |= self.world.asked.get(id(what), set())
            return v
        if what == ("tool", "duration_time", ""):
            return self.world.seconds
        self.asked.add(what)
        return self.world.count(what)

    def literal(self, lit):
        return self.world.literals.get(lit.lower(), NAN)

    def source_count(self, name):
        return float(self.world.rec.sources.get(self.key(name), 1))

    def has_event(self, name):
        return 1.0 if self.world.rec.has(self.key(name)) else 0.0

    def cpuid_match(self, name):
        return 1.0 if metrics_data.cpuid_matches(
            perf_expr.unescape(name), self.world.cpuid) else 0.0


class ConstFrame(Frame):
    """A formula's constants alone: what decides the events it reads."""

    def value(self, name):
        raise perf_expr.NotConstant(name)


def random_count(rng):
    return int(10 ** rng.uniform(4, 9.5))


def vector(seed, zero=None):
    """Random counts by event, each event's its own whoever asks; the
    event zero's 0."""
    def count(key):
        if key == zero:
            return 0.0
        return float(random_count(random.Random("%s/%r" % (seed, key))))
    return count


# The record -------------------------------------------------------------------

def machine(v, tool):
    cores = 8
    cpus = cores * (2 if v.smt else 1)
    return {
        "cpuid": v.cpuid, "smt_on": v.smt, "num_cpus": cpus,
        "num_cpus_online": cpus, "num_packages": 2, "num_dies": 2,
        "num_cores": cores,
        "system_tsc_freq": 2.1e9 if v.cpuid.startswith("GenuineIntel") else 0,
        "slots": 8 if v.cpuid.startswith("0x") else 0, "has_pmem": 0,
        "system_wide": tool == "cpustat",
        "siblings_counted": tool == "cpustat",
    }


def literals_of(m):
    sw = m["system_wide"]
    return {
        "#smt_on": float(m["smt_on"]), "#num_cpus": float(m["num_cpus"]),
        "#num_cpus_online": float(m["num_cpus_online"]),
        "#num_packages": float(m["num_packages"]),
        "#num_dies": float(m["num_dies"]),
        "#num_cores": float(m["num_cores"]),
        "#system_tsc_freq": float(m["system_tsc_freq"]),
        "#slots": float(m["slots"]), "#has_pmem": float(m["has_pmem"]),
        "#target_cpu": float(sw),
        "#core_wide": float(sw and (not m["smt_on"] or
                                    m["siblings_counted"])),
    }


def boxes(ev):
    """A socket's event's boxes, as a record names them: 3 of an uncore
    PMU's, the PMU itself where it is one."""
    one = ("cstate_core", "cstate_pkg", "power", "amd_df", "amd_l3", "msr")
    if ev.pmu in one or re.search(r"_\d+$", ev.pmu):
        return [ev.pmu]
    pmu = ev.pmu if ev.pmu.startswith(("uncore_", "amd_")) else \
        "uncore_" + ev.pmu
    return ["%s_%d" % (pmu, i) for i in range(3)]


class Record:
    """A record of a tool: its events (by counter name), the event each
    counter is, and its rows' counts: one count an event, whatever the
    names of its counters."""

    def __init__(self, v, tool, events):
        self.v, self.tool = v, tool
        self.machine = machine(v, tool)
        self.events = {}  # counter -> Event
        for ev in events.values():
            self.events.setdefault(ev.row, ev)
        # A legacy hybrid name counted on both core types is one counter.
        self.shared = collections.defaultdict(set)
        for ev in events.values():
            if ev.key[0] in metrics_data.HYBRID_PMUS and "/" not in ev.row:
                self.shared[ev.row].add(ev.key[0])
        parent = {}

        def find(x):
            while parent.setdefault(x, x) != x:
                x = parent[x]
            return x
        for ev in events.values():
            a, b = find(("row", ev.row)), find(ev.key)
            if a != b:
                parent[max(a, b, key=repr)] = min(a, b, key=repr)
        self.rep = {ev.key: find(ev.key) for ev in events.values()}
        self.sources = {ev.key: len(boxes(ev)) for ev in events.values()
                        if ev.socket}
        self.by_rep = []
        for r in range(ROWS + 1):
            counts = {}
            for rep in set(self.rep.values()):
                rng = random.Random("%s/%s/%d/%r" % (v.cpuid, v.smt, r, rep))
                counts[rep] = 0 if r == ROWS and rng.random() < 0.3 else \
                    random_count(rng)
            self.by_rep.append(counts)

    def counts(self, r):
        return {row: self.by_rep[r][self.rep[ev.key]]
                for row, ev in self.events.items()}

    def count(self, r):
        by_rep = self.by_rep[r]

        def count(key):
            rep = self.rep.get(key)
            return float(by_rep[rep]) if rep is not None else NAN
        return count

    def has(self, key):
        return key in self.rep

    @staticmethod
    def elapsed_ns(r):
        return 1000000000 + 250000000 * r

    def seconds(self, r):
        return self.elapsed_ns(r) / 1e9

    def write(self, path):
        events = []
        for row in sorted(self.events):
            e = {"name": row, "unit": "count"}
            if self.events[row].socket:
                e["boxes"] = boxes(self.events[row])
            events.append(e)
        head = {"schema": "cpctools", "version": 2, "tool": self.tool,
                "sets": [{"set": 0, "spec": "-M", "events": events}],
                "machine": self.machine}
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(head) + "\n")
            for r in range(ROWS + 1):
                f.write(json.dumps(self.row(r)) + "\n")

    def row(self, r):
        counts = self.counts(r)
        row = {"time": 1.0 + r, "label": "tick", "set": 0,
               "counters": counts, "enabled_ns": self.elapsed_ns(r),
               "running_ns": self.elapsed_ns(r),
               "elapsed_ns": self.elapsed_ns(r)}
        if self.tool == "cputrack":
            row.update(pid=4242, tid=4242, lwp=1)
        else:
            row.update(cpu=r)
        parts = {}
        for name, ev in self.events.items():
            if ev.socket:
                bx = boxes(ev)
                share = counts[name] // len(bx)
                parts[name] = {b: share for b in bx}
                parts[name][bx[0]] += counts[name] - share * len(bx)
        if parts:
            row["parts"] = parts
        return row


# cpctools ---------------------------------------------------------------------

def command(tool):
    return os.environ.get(tool.upper()) or os.path.join(
        os.environ.get("BUILD_DIR", "build"), "cmd", tool)


LISTINGS = {}


def listing(tool, cpuid):
    """--list -j of the model of cpuid."""
    if (tool, cpuid) not in LISTINGS:
        env = dict(os.environ, PERF_CPUID=cpuid)
        out = subprocess.run([command(tool), "--list", "-j"], env=env,
                             capture_output=True, text=True,
                             check=True).stdout
        LISTINGS[(tool, cpuid)] = [json.loads(x) for x in out.splitlines()]
    return LISTINGS[(tool, cpuid)]


REFUSAL = re.compile(r"-M (\S+): (.*)$")


def replay(tool, path, names):
    """-M names on the record: the head and rows cpctools writes, and
    the names it refused, with why (one run a refusal, each named by
    the one line cpctools gives it)."""
    names = list(names)
    refused = {}
    while names:
        p = subprocess.run([command(tool), "--input", path, "-M",
                            ",".join(names), "-j"], capture_output=True,
                           text=True)
        if p.returncode == 0:
            lines = [json.loads(x) for x in p.stdout.splitlines()]
            return lines[0], lines[1:], refused
        m = None
        for line in p.stderr.splitlines():
            m = REFUSAL.search(line)
            if m and not m.group(2).startswith("left out"):
                break
            m = None
        if not m or m.group(1) not in names or p.returncode != 2:
            raise RuntimeError("%s --input %s: exit %d: %s" % (
                tool, path, p.returncode, p.stderr.strip()[-600:]))
        refused[m.group(1)] = m.group(2)
        names.remove(m.group(1))
    return None, [], refused


# One model ----------------------------------------------------------------------

class Model:
    def __init__(self, layers, v, tables):
        self.layers, self.v = layers, v
        self.layer = layers[v.tag]
        self.hybrid = metrics_data.is_hybrid(self.layer)
        self.keys = metrics_data.Keys(
            [self.layer] + [layers[t] for t in self.layer.legacy],
            self.hybrid)
        self.sides = {"data": DataSide(self.keys)}
        if v.oracle == "perf":
            self.perf = perf_metrics(v.cpuid)
            self.groups = perf_groups(v.cpuid)
            for m in self.perf:
                m.groups = tables.groups(m)
                m.scale = tables.scale(m)
                if m.scale is None:
                    self.fault("perf's tables have no %s of formula %s" % (
                        m.name, m.expr))
                    m.scale = 1.0
            self.sides["perf"] = PerfSide(self.perf, self.keys, False)
            self.sides["perf_pmu"] = PerfSide(self.perf, self.keys, True)
        else:
            self.perf = list(self.layer.defs)
            self.groups = sorted({g for d in self.perf for g in d.groups})
            self.sides["perf"] = self.sides["perf_pmu"] = self.sides["data"]
        self.names = list(dict.fromkeys(m.name for m in self.perf))
        self.differ = collections.defaultdict(dict)  # label -> {context: why}
        self.formulas = {}  # label -> (perf 6.1's, the data's or None)
        self.group_differ = {}  # group -> (perf 6.1's members, -M's)
        self.seen = collections.defaultdict(set)  # label -> {context}
        self.compared = collections.Counter()
        self.refused = set()  # names cpustat refused
        self.worlds = {}
        self.inner = []  # clamped formulas compared (clamped_apart)

    def fault(self, msg, tool=None):
        where = " ".join(x for x in (self.v.cpuid, tool, self.v.note) if x)
        fault(self.v.cpuid, "%s: %s" % (where, msg))

    def label(self, m):
        return m.name if m.pmu == "core" else "%s (%s)" % (m.name, m.pmu)

    def context(self, tool):
        return ", ".join(x for x in (self.v.note, tool) if x)

    def counterpart(self, m):
        """The data's metric -M m.name takes for perf's m: its PMU's."""
        if self.v.oracle == "data":
            return m
        for d in metrics_data.named(self.layers, self.v.tag, m.name):
            if d.pmu == m.pmu:
                return d
        return None

    def events(self, tool, names):
        """Every event the data's metrics -M names takes read, in any
        branch, their thresholds' too, by (counter, event); and a check
        of --list -j's."""
        evs = {}
        for name in names:
            for d in metrics_data.taken(self.layers, self.v.tag, name):
                metrics_data.closure(d, self.keys, events=evs)
                metrics_data.threshold_closure(d, self.keys, evs)
        # The kernel's TopDown events count in a group led by slots, which
        # -M adds (named slots) and so a run's record holds.
        if any(re.match(r"(.*/)?topdown-", row, re.I) for row, _ in evs):
            slots = metrics_data.Event("slots", ("core", "slots", ""), "core")
            evs[(slots.row, slots.key)] = slots
        rows = {row for row, _ in evs}
        for item in listing(tool, self.v.cpuid):
            if item.get("kind") != "metric" or item["name"] not in names:
                continue
            for row in item.get("events", []):
                if row not in rows:
                    self.fault("--list -j names %s for %s, which its formula "
                               "does not read" % (row, item["name"]), tool)
        return evs

    def world_list(self, rec, side, later=perf_expr.LATER):
        """The worlds a side's formulas are compared in: random counts,
        then the record's rows (and whether some counts are 0); by
        default under the rules of later releases, which tell formulas
        apart by what they compute, not by perf 6.1's aborts."""
        k = (id(rec), side, later)
        if k not in self.worlds:
            out = []
            for i in range(SHARE_TRIES):
                seed = "%s/%d" % (self.v.cpuid, i)
                out.append((World(self.sides[side], vector(seed),
                                  random.Random(seed).uniform(0.5, 4), rec,
                                  later), False))
            for r in range(ROWS + 1):
                out.append((World(self.sides[side], rec.count(r),
                                  rec.seconds(r), rec, later), r == ROWS))
            self.worlds[k] = out
        return self.worlds[k]

    def zero_world(self, rec, side, key):
        """Random counts but event key's, 0."""
        k = (id(rec), side, key)
        if k not in self.worlds:
            seed = "%s/zero" % self.v.cpuid
            self.worlds[k] = World(self.sides[side], vector(seed, key),
                                   random.Random(seed).uniform(0.5, 4), rec,
                                   perf_expr.LATER)
        return self.worlds[k]

    def shares(self, m, d, rec, side="perf", scaled=True):
        """Whether perf's m and the data's d give the same: True, "zeros"
        (not where a count is 0), or False. On random counts, the
        record's rows, and random counts with each event they read 0."""
        def agree(wa, wb):
            a, b = wa.metric(m), wb.metric(d)
            if scaled:
                a, b = a * m.scale, b * d.scale
            return same(a, b)
        verdict = True
        pairs = list(zip(self.world_list(rec, side),
                         self.world_list(rec, "data")))
        for (wa, zeros), (wb, _) in pairs:
            if not agree(wa, wb):
                if not zeros:
                    return False
                verdict = "zeros"
        read = pairs[0][0][0].events(m) | pairs[0][1][0].events(d)
        for key in sorted(read, key=repr):
            if verdict is True and not agree(
                    self.zero_world(rec, side, key),
                    self.zero_world(rec, "data", key)):
                verdict = "zeros"
        if verdict is True and self.clamped_apart(m, d, rec, side):
            return False
        return verdict

    def clamped_apart(self, m, d, rec, side):
        """Whether m and d clamp (max(0, ...), min(1, ...)) formulas that
        differ: random counts leave both at the bound, and only what is
        clamped tells them apart."""
        a, b = clamped(m.tree), clamped(d.tree)
        if a is None or b is None or trees_equal(m.tree, d.tree):
            return False
        inner = []
        for owner, tree in ((m, a), (d, b)):
            c = copy.copy(owner)
            if isinstance(getattr(type(c), "tree", None), property):
                c._tree = tree  # the data's Def parses its formula once
            else:
                c.tree = tree
            inner.append(c)
        # Kept while the worlds remember them by id.
        self.inner.extend(inner)
        return self.shares(inner[0], inner[1], rec, side,
                           scaled=False) is False

    def why(self, m, d, rec):
        """Why perf 6.1's m and the data's d do not share."""
        if d is None:
            if any(m.name.lower() in (g.lower() for g in x.groups)
                   for x in metrics_data.taken(self.layers, self.v.tag,
                                               m.name)):
                return "-M takes the newer data's group of this name, " \
                    "which does not hold perf 6.1's metric"
            return "the newer data has no such metric" + \
                (" for %s" % m.pmu if m.pmu != "core" else "")
        if self.hybrid and self.shares(m, d, rec, "perf_pmu") is True:
            return ("perf 6.1 reads the other core type's metric of a name "
                    "the formula reads (its error; later releases read the "
                    "same PMU's, as cpctools does: compared with that)")
        older = self.layers.get(self.v.tag + "@6.1")
        ver = ""
        if older is not None and older.version != d.layer.version:
            ver = " (%s to %s)" % (older.version, d.layer.version)
        if d.name != m.name:
            return "the newer data's `%s`, another metric, answers the " \
                "name" % d.name
        if m.scale != d.scale and self.shares(m, d, rec, scaled=False):
            return "the vendor's newer data%s changed its scale" % ver
        if not trees_equal(m.tree, d.tree):
            return "the vendor's newer data%s changed its formula" % ver
        return "the vendor's newer data%s changed %s, which it reads" % (
            ver, ", ".join("`%s`" % r for r in self.changed_reads(m, d, rec))
            or "a metric")

    def changed_reads(self, m, d, rec):
        """The metrics d reads whose formulas are not perf 6.1's metric
        of that name's (a metric perf 6.1 named otherwise left out)."""
        seen, _ = metrics_data.closure(d, self.keys)
        out = []
        for r in seen.values():
            kind, pm = self.sides["perf_pmu"].resolve(m, r.name)
            if r is not d and kind == "metric" and pm.pmu == r.pmu and \
                    self.shares(pm, r, rec, scaled=False) is not True:
                out.append(r.name)
        return sorted(out, key=str.lower)

    def check(self, tool, tmp):
        try:
            self.check_metrics(tool, tmp)
            self.check_groups(tool, tmp)
        except RuntimeError as e:
            self.fault(str(e), tool)

    def socket_bound(self, rec, name, what):
        """Whether cputrack refuses -M name, as it refuses what counts a
        whole socket: a metric of that name (or, for a group, each of
        its) reads such an event once its constants are known."""
        world = World(self.sides["data"], None, NAN, rec)

        def needs_socket(d):
            _, evs = metrics_data.closure(
                d, self.keys, consts=lambda x: ConstFrame(world, x))
            return any(ev.socket for ev in evs.values())
        defs = metrics_data.taken(self.layers, self.v.tag, name)
        if what == "metrics":
            return any(needs_socket(d) for d in defs
                       if d.name.lower() == name.lower())
        return bool(defs) and all(needs_socket(d) for d in defs)

    def run(self, tool, tmp, names, what):
        """-M names on a record of their events: the record, cpctools'
        head and rows, and the names refused. Names --list does not give
        are refused first, in one run; cputrack's refusals of a socket's
        events, foreseen, in one more."""
        rec = Record(self.v, tool, self.events(tool, names))
        path = os.path.join(tmp, "%s-%s-%s-%d.json" % (
            self.v.tag.replace("/", "_"), tool, what, self.v.smt))
        rec.write(path)
        # perf's names of every metric, and of those of no group.
        listed = {x["name"].lower() for x in listing(tool, self.v.cpuid)
                  if x.get("kind") in ("metric", "metric group")}
        listed |= {"all", "no_group"}
        unknown = [n for n in names if n.lower() not in listed]
        socket = [n for n in names if n.lower() in listed and
                  tool == "cputrack" and self.socket_bound(rec, n, what)]
        for some in (unknown, socket):
            if not some:
                continue
            _, _, refused = replay(tool, path, some[:1])
            why = refused.get(some[0], "taken")
            for n in some:
                self.refusal(tool, n, why)
        head, rows, refused = replay(
            tool, path, [n for n in names if n not in unknown + socket])
        for name, why in refused.items():
            self.refusal(tool, name, why)
        return rec, head, rows, set(refused) | set(unknown) | set(socket)

    def refusal(self, tool, name, why):
        """A refusal fails, but cputrack's of a socket's events."""
        if tool == "cpustat" or "a whole socket's" not in why:
            self.fault("-M %s refused: %s" % (name, why), tool)

    def check_metrics(self, tool, tmp):
        rec, head, rows, refused = self.run(tool, tmp, self.names, "metrics")
        self.refused |= {n for n in refused if tool == "cpustat"}
        both = sorted(r for r, p in rec.shared.items() if len(p) > 1)
        if both:
            notes.append("%s %s: counters that stand for both core types' "
                         "events (one name, one count): %s" % (
                             self.v.cpuid, tool, ", ".join(both)))
        shown = {}
        for item in (head or {}).get("metrics", []):
            k = (item["name"].lower(), item["pmu"])
            if k in shown:
                self.fault("-M shows %s twice" % item["key"], tool)
            shown[k] = item
        for m in self.perf:
            if m.name in refused:
                continue
            d = self.counterpart(m)
            item = shown.get((m.name.lower(), m.pmu))
            if d is not None and item is None:
                self.fault("-M %s shows no %s metric of that name" % (
                    m.name, m.pmu), tool)
                continue
            if d is not None and not same(item["scale"], d.scale):
                self.fault("%s's scale is %r, its ScaleUnit %r" % (
                    m.name, item["scale"], d.scale_unit), tool)
            self.seen[self.label(m)].add(self.context(tool))
            verdict = self.shares(m, d, rec) if d is not None else False
            side = "perf"
            if verdict is not True:
                why = self.why(m, d, rec) if verdict is False else \
                    "the two differ only where a count is 0"
                self.differ[self.label(m)][self.context(tool)] = why
                self.formulas[self.label(m)] = (
                    m.expr, d.expr if d is not None else None)
                if not why.startswith("perf 6.1 reads the other core"):
                    continue
                side = "perf_pmu"
            # The models perf 6.1 lacks have no oracle here: their data's
            # formulas are what is tested (metrics_cases.py's values worked
            # by hand), never their own yardstick.
            if self.v.oracle == "perf":
                self.compare(tool, rec, rows, side, m, item)

    def compare(self, tool, rec, rows, side, m, item):
        """cpctools' value of m on each row against perf 6.1's evaluator's
        (perf_expr.py's own rules). Where they differ and the rules of
        later releases, which cpctools follows, give cpctools' value, the
        difference is the docs table's, with which rule; else a fault."""
        self.compared[tool] += 1
        worlds = self.world_list(rec, side, frozenset())[-(ROWS + 1):]
        for r, row in enumerate(rows):
            want = worlds[r][0].metric(m) * m.scale
            got = row.get("metrics", {}).get(item["key"])
            got = NAN if got is None else got
            if same(want, got):
                continue
            rules = self.rules_apart(rec, side, m, r, got)
            if rules is None:
                self.fault("%s row %d: cpctools %r, perf's formula %r (%s)" %
                           (self.label(m), r, got, want, m.expr), tool)
                return
            self.differ[self.label(m)][self.context(tool)] = \
                "perf 6.1's evaluator: " + "; ".join(
                    RULE_WHY[x] for x in sorted(rules)) + \
                (" (on the row with counts of 0)" if worlds[r][1] else "")
            self.formulas[self.label(m)] = (m.expr, self.counterpart(m).expr)
            return

    def rules_apart(self, rec, side, m, r, got):
        """The fewest of the later releases' rules under which m's value
        on row r is cpctools' got, or None."""
        for n in range(1, len(perf_expr.LATER) + 1):
            for rules in itertools.combinations(sorted(perf_expr.LATER), n):
                w = self.world_list(rec, side, frozenset(rules))[-(ROWS + 1):]
                if same(w[r][0].metric(m) * m.scale, got):
                    return rules
        return None

    def check_groups(self, tool, tmp):
        self.run(tool, tmp, self.groups, "groups")
        if self.v.oracle == "perf":
            self.compare_members()

    def compare_members(self):
        """Each group perf 6.1 lists: its metrics in perf 6.1 (a metric
        of its MetricGroup, or of its name) and those -M takes."""
        for g in self.groups:
            low = g.lower()
            theirs = {m.name for m in self.perf if m.name.lower() == low or
                      low in (x.lower() for x in m.groups)}
            ours = {d.name for d in metrics_data.taken(
                self.layers, self.v.tag, g)}
            if {x.lower() for x in theirs} != {x.lower() for x in ours}:
                self.group_differ[g] = (theirs, ours)


def clamped(tree):
    """What a max or min of a constant and a formula clamps, or None."""
    if isinstance(tree, tuple) and tree[0] == "fn2" and \
            tree[1] in ("max", "min"):
        if tree[2][0] == "num":
            return tree[3]
        if tree[3][0] == "num":
            return tree[2]
    return None


def trees_equal(a, b):
    def norm(t):
        if isinstance(t, tuple):
            if t[0] == "name":
                return ("name", perf_expr.unescape(t[1]).lower())
            return tuple(norm(x) for x in t)
        return t
    return norm(a) == norm(b)


# The docs' table ---------------------------------------------------------------

def doc_rows(models):
    """{(model, tag, metric): (why, perf 6.1's formula, the data's)} over
    the models of perf 6.1: each metric's why, with the runs it holds for
    where not all that compared it (cputrack's, cpustat's, SMT off)."""
    whys = collections.OrderedDict()  # (model, tag, metric) -> {ctx: why}
    seen = collections.defaultdict(set)
    formulas = {}
    for mod in models:
        if mod.v.oracle != "perf":
            continue
        for metric, by in mod.differ.items():
            key = (mod.v.model, mod.v.tag, metric)
            whys.setdefault(key, {}).update(by)
            formulas.setdefault(key, mod.formulas[metric])
        for metric, ctx in mod.seen.items():
            seen[(mod.v.model, mod.v.tag, metric)] |= ctx
    rows = collections.OrderedDict()
    for key, by in whys.items():
        parts = []
        for why in dict.fromkeys(by.values()):
            where = sorted(c for c in by if by[c] == why)
            if set(where) != seen[key]:
                why += " (%s)" % "; ".join(where)
            parts.append(why)
        rows[key] = ("; ".join(parts),) + formulas[key]
    return rows


def group_rows(models):
    """{(model, tag, group): (perf 6.1's members, -M's)}."""
    rows = collections.OrderedDict()
    for mod in models:
        for g, members in sorted(mod.group_differ.items(),
                                 key=lambda x: x[0].lower()):
            rows.setdefault((mod.v.model, mod.v.tag, g), members)
    return rows


def code(text):
    """text as a table's code cell: '|' escaped, or a dash for none."""
    return "`%s`" % text.replace("|", "\\|") if text else "-"


def names(members):
    return ", ".join("`%s`" % x for x in sorted(members, key=str.lower)) \
        or "-"


def doc_table(metrics, groups):
    lines = [DOC_BEGIN, "",
             "| model | metric | why | perf 6.1's formula | the data's "
             "formula |", "|---|---|---|---|---|"]
    for (model, tag, metric), (why, theirs, ours) in metrics.items():
        lines.append("| %s (`%s`) | `%s` | %s | %s | %s |" % (
            model, tag, metric, why, code(theirs), code(ours)))
    lines += ["", "Groups whose metrics differ: what `-M GROUP` takes "
              "and what perf 6.1's takes.", "",
              "| model | group | perf 6.1 | -M | only perf 6.1's | "
              "only -M's |", "|---|---|---|---|---|---|"]
    for (model, tag, g), (theirs, ours) in groups.items():
        low_t = {x.lower() for x in theirs}
        low_o = {x.lower() for x in ours}
        lines.append("| %s (`%s`) | `%s` group | %d | %d | %s | %s |" % (
            model, tag, g, len(theirs), len(ours),
            names(x for x in theirs if x.lower() not in low_o),
            names(x for x in ours if x.lower() not in low_t)))
    lines += ["", DOC_END]
    return "\n".join(lines)


def doc_pairs(text):
    """The (model, metric) and (model, group) pairs a table lists."""
    pairs = set()
    for line in text.splitlines():
        m = re.match(r"^\| (.+?) \(`[^`]+`\) \| `([^`]+)`( group)? \|",
                     line)
        if m:
            pairs.add((m.group(1), m.group(2) + (m.group(3) or "")))
    return pairs


def docs_section(path):
    text = open(path, encoding="utf-8").read()
    if DOC_BEGIN not in text or DOC_END not in text:
        return text, None
    start = text.index(DOC_BEGIN)
    return text, text[start:text.index(DOC_END) + len(DOC_END)]


def report(models, verbose):
    for mod in models:
        v = mod.v
        shared = sum(1 for m in mod.perf if mod.label(m) not in mod.differ
                     and m.name not in mod.refused)
        print("%s %s%s: %d metrics and %d groups of %s; %d share, %d differ,"
              " %d refused; compared per thread %d, system-wide %d" % (
                  v.model, v.cpuid, " (%s)" % v.note if v.note else "",
                  len(mod.names), len(mod.groups),
                  "perf 6.1" if v.oracle == "perf" else "the data",
                  shared, len(mod.differ), len(mod.refused),
                  mod.compared["cputrack"], mod.compared["cpustat"]))
        if verbose:
            for metric, by in sorted(mod.differ.items()):
                print("  %s: %s" % (metric, by))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--only", action="append")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if shutil.which("perf") is None:
        print("perf is not installed (Debian: linux-perf, scripts/deps)")
        return 1
    if perf_version() != (6, 1):
        print("SKIP: perf %s is not 6.1, whose formulas docs/events.md "
              "compares" % (perf_version(),))
        return 77
    src = os.environ.get("SOURCE_DIR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    layers = metrics_data.load(os.path.join(src, "cmd", "metrics",
                                            "metrics.tsv"))
    docs = os.path.join(src, "docs", "events.md")
    tables = PerfTables()
    models = []
    with tempfile.TemporaryDirectory() as tmp:
        for v in VARIANTS:
            if args.only and v.cpuid not in args.only and \
                    v.tag not in args.only:
                continue
            mod = Model(layers, v, tables)
            for tool in ("cputrack", "cpustat"):
                mod.check(tool, tmp)
            models.append(mod)
    report(models, args.verbose)
    table = doc_table(doc_rows(models), group_rows(models))
    if os.environ.get("METRICS_PERF_TABLE"):
        print(table)
    text, section = docs_section(docs)
    if args.write_docs:
        if section is None:
            raise SystemExit("%s: no %s ... %s" % (docs, DOC_BEGIN, DOC_END))
        with open(docs, "w", encoding="utf-8") as f:
            f.write(text.replace(section, table))
    elif not args.only:
        have, want = doc_pairs(section or ""), doc_pairs(table)
        for model, metric in sorted(want - have):
            fault("", "docs/events.md does not list %s's %s, which differs "
                  "from perf 6.1's" % (model, metric))
        for model, metric in sorted(have - want):
            fault("", "docs/events.md lists %s's %s, which is perf "
                  "6.1's" % (model, metric))
        if section is not None and section != table:
            fault("", "docs/events.md's table is not the one this test "
                  "writes: tests/cli/metrics_perf.py --write-docs")
    for n in notes:
        print("note: " + n)
    seen = set()
    failed = 0
    for cpuid, msg in faults:
        known = [k for k in KNOWN if k[0] == cpuid and re.search(k[1], msg)]
        if known:
            seen.add(known[0])
            print("known: %s (%s)" % (msg, known[0][2]))
        else:
            failed += 1
            print("FAIL: " + msg)
    ran = {m.v.cpuid for m in models}
    for k in KNOWN:
        if k not in seen and k[0] in ran:
            failed += 1
            print("FAIL: no longer so, take it out of KNOWN: %s" % k[2])
    print("%d faults" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
