# SPDX-License-Identifier: BSD-2-Clause
"""The vendors' metric data as cpctools holds it (cmd/metrics/metrics.tsv),
read for the tests: its models, their metrics and events, which of them a
-M name takes, what each formula's names stand for, and what a record's
counters are called. Facts of the data's documented layout (the file's
head, metric_plan.h), read here without cpctools' C.
"""
import collections
import re

import perf_expr

# PMUs whose counters are a thread's or a CPU's own; any other counts for
# a socket (uncore boxes, RAPL, C-states), which cputrack refuses.
CORE_PMUS = {"core", "cpu", "cpu_core", "cpu_atom", "msr", "software",
             "tool", "armv8_pmuv3_0"}
HYBRID_PMUS = {"cpu_core", "cpu_atom"}


class Def:
    """A metric of a layer."""

    def __init__(self, layer, fields):
        (self.name, self.pmu, groups, self.nogroup, self.default,
         self.constraint, self.scale_unit, self.expr,
         self.threshold) = fields
        self.layer = layer
        self.groups = [g for g in groups.split(";") if g]
        self.scale = scale_of(self.scale_unit)  # "100%": 100
        self._tree = None

    @property
    def tree(self):
        if self._tree is None:
            self._tree = perf_expr.parse(self.expr)
        return self._tree

    def __repr__(self):
        return "%s:%s/%s" % (self.layer.tag, self.pmu, self.name)


def scale_of(scale_unit):
    num = re.match(r"\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?",
                   scale_unit)
    return float(num.group(0)) if num else 1.0


class Layer:
    """A model's metrics from one release (or a legacy layer of one)."""

    def __init__(self, fields):
        (self.tag, self.arch, self.source, self.dir, self.version,
         legacy) = fields[:6]
        self.legacy = legacy.split()
        self.cpuids = []
        self.defs = []
        self.by_name = collections.defaultdict(list)
        self.by_group = None
        self.events = {}  # (pmu, lower name) -> name
        self.terms = {}  # (pmu, lower name) -> format terms
        self.event_pmus = collections.defaultdict(list)  # lower -> [pmu]

    def matching(self, name):
        """The metrics -M name takes of this layer (see matches)."""
        low = name.lower()
        if low in ("all", "no_group"):
            return [d for d in self.defs if matches(d, name)]
        if self.by_group is None:
            self.by_group = collections.defaultdict(list)
            for d in self.defs:
                for g in {g.lower() for g in d.groups} | {d.name.lower()}:
                    self.by_group[g].append(d)
        return list(self.by_group.get(low, []))

    def find(self, name, pmu):
        """A metric the layer's formulas name, as the plan finds it: the
        same PMU's, else the first of that name."""
        cands = self.by_name.get(name.lower(), [])
        for d in cands:
            if d.pmu == pmu:
                return d
        return cands[0] if cands else None

    def table_event(self, name, pmu):
        """The data's event called name (any case): (pmu, name) or None."""
        low = name.lower()
        if pmu is not None and (pmu, low) in self.events:
            return pmu, self.events[(pmu, low)]
        for p in self.event_pmus.get(low, []):
            return p, self.events[(p, low)]
        return None


def load(path):
    layers = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            kind = fields[0]
            if kind == "model":
                layers[fields[1]] = Layer(fields[1:] + [""] * 6)
            elif kind == "cpuid":
                layers[fields[1]].cpuids.append(fields[2])
            elif kind == "metric":
                layer = layers[fields[1]]
                d = Def(layer, (fields[2:] + [""] * 9)[:9])
                layer.defs.append(d)
                layer.by_name[d.name.lower()].append(d)
            elif kind == "event":
                layer = layers[fields[1]]
                key = (fields[2], fields[3].lower())
                if key not in layer.events:
                    layer.events[key] = fields[3]
                    layer.terms[key] = fields[4] if len(fields) > 4 else ""
                    layer.event_pmus[fields[3].lower()].append(fields[2])
    return layers


def matches(d, name):
    """Whether -M's name takes metric d: its name, a group of its, all."""
    low = name.lower()
    if low == "all":
        return True
    if not d.groups and low == "no_group":
        return True
    return d.name.lower() == low or low in (g.lower() for g in d.groups)


def taken(layers, tag, name):
    """The metrics -M's name takes on model tag, as metric_plan.c takes
    them: the model's own and perf's common metrics, else those of the
    first legacy layer that knows the name."""
    model = layers[tag]
    found = model.matching(name) + layers["common"].matching(name)
    for leg in model.legacy:
        if found:
            break
        found = layers[leg].matching(name)
    return found


def named(layers, tag, name):
    """The metrics -M name shows under that name (a group's aside)."""
    return [d for d in taken(layers, tag, name)
            if d.name.lower() == name.lower()]


class Event:
    """An event a formula names: what a record calls its counter (row),
    which event it is (key: the same for every spelling of it), its PMU
    and whether it counts a whole socket."""

    def __init__(self, row, key, pmu):
        self.row, self.key, self.pmu = row, key, pmu
        self.socket = pmu not in CORE_PMUS and not pmu.startswith("armv8")

    def __repr__(self):
        return self.row


def _terms(text):
    """Format terms "event=0x83,umask=4" as {term: number}, 0s left out."""
    out = {}
    for t in text.split(","):
        k, eq, val = t.partition("=")
        k = k.strip().lower()
        if not k:
            continue
        try:
            n = int(val, 0) if eq else 1
        except ValueError:
            out[k] = val.lower()
            continue
        if n:
            out[k] = n
    return out


# Modifiers that are format terms (perf's :c1 is cmask=1, :e edge=1).
MOD_TERMS = {"c": "cmask", "e": "edge", "i": "inv"}


class Keys:
    """Which event a formula's name is, whoever writes it: perf 6.1's
    ICACHE_64B.IFTAG_STALL and the newer data's ICACHE_TAG.STALLS are one
    event where their encodings are one (event=0x83,umask=4); TOPDOWN.SLOTS
    in perf 6.1's cpu_core metric is the newer cpu_core@TOPDOWN.SLOTS@;
    INT_MISC.RECOVERY_CYCLES:c1:e is INT_MISC.RECOVERY_CYCLES with cmask=1
    and edge=1. The encodings are the data's, of the model and its legacy
    layers; a name none of them holds is its own event."""

    def __init__(self, layers, hybrid):
        self.layers, self.hybrid = layers, hybrid
        self.pmus = {p for lay in layers for p, _ in lay.events}
        self.memo = {}

    def encoding(self, pmu, name, exact=False):
        """(pmu, terms) of the data's event name: pmu's first."""
        low = name.lower()
        for lay in self.layers:
            if (pmu, low) in lay.terms:
                return pmu, _terms(lay.terms[(pmu, low)])
        for lay in self.layers:
            for p in [] if exact else lay.event_pmus.get(low, []):
                return p, _terms(lay.terms[(p, low)])
        return None

    def pmu(self, name):
        if name in ("cpu", "core") and not self.hybrid:
            return "core"
        if name not in self.pmus and "uncore_" + name in self.pmus:
            return "uncore_" + name
        return name

    def key(self, written, pmu):
        """(PMU, the event, modifiers left): one for every spelling."""
        if (written, pmu) not in self.memo:
            self.memo[(written, pmu)] = self._key(written, pmu)
        return self.memo[(written, pmu)]

    def _key(self, written, pmu):
        s = perf_expr.unescape(written)
        if s.lower() == "duration_time":
            return ("tool", "duration_time", "")
        if "@" in s:
            head, rest = s.split("@", 1)
            inner, _, tail = rest.partition("@")
            mods = tail[1:] if tail.startswith(":") else tail
            if head == "software":
                return ("software", inner.split(",")[0].lower(), "")
            first = inner.split(",")[0]
            enc = self.encoding(None, head)
            if enc is None and first and "=" not in first:
                enc = self.encoding(self.pmu(head), first, exact=True)
                if enc is None:  # the PMU's own (sysfs) event
                    return (self.pmu(head), inner.lower(), mods.lower())
                inner = inner[len(first):]
            p, terms = enc if enc else (self.pmu(head), {})
            terms = dict(terms, **_terms(inner))
        else:
            head, _, mods = s.partition(":")
            own = pmu if self.hybrid and pmu in HYBRID_PMUS else "core"
            enc = self.encoding(own, head)
            if enc is None:
                return (own, head.lower(), mods.lower())
            p, terms = enc
            terms = dict(terms)
        left = []
        for m in filter(None, mods.lower().split(":")):
            t = MOD_TERMS.get(m[0])
            if t and (len(m) == 1 or m[1:].isdigit()):
                terms[t] = int(m[1:] or "1")
            else:
                left.append(m)
        return (self.pmu(p), ",".join("%s=%s" % kv for kv in sorted(
            terms.items())), ":".join(left))


def data_event(layer, d, written, keys):
    """The event name written in metric d's formula stands for, and what
    a record calls it: the data's own event by its name (with modifiers),
    a PMU@terms@ name with its @ made /, a kernel's or perf's name as it
    is (metric_event.c's rows, as cpctools-output(5) gives them)."""
    s = perf_expr.unescape(written)
    key = keys.key(written, d.pmu)
    hybrid = keys.hybrid
    if "@" in s:
        head, rest = s.split("@", 1)
        if head == "software":
            return Event(rest.split("@")[0].split(",")[0], key, "software")
        ev = layer.table_event(head, None)
        pmu = ev[0] if ev else head
        if pmu == "core" or (pmu == "cpu" and not hybrid):
            pmu = "core"
        return Event(s.replace("@", "/"), key, pmu)
    head, _, mods = s.partition(":")
    ev = layer.table_event(head, d.pmu)
    if ev:
        return Event(ev[1] + (":" + mods if mods else ""), key, ev[0])
    return Event(s, key, d.pmu if d.pmu in HYBRID_PMUS else "core")


def closure(d, keys, seen=None, events=None, consts=None):
    """Every metric and event metric d reads, as cpctools resolves its
    names (within its own layer; the same PMU's first): the metrics by id,
    the events by (counter name, event). In every branch; or, with consts
    (a perf_expr.Context of the constants), in those they take."""
    seen = {} if seen is None else seen
    events = {} if events is None else events
    if id(d) in seen:
        return seen, events
    seen[id(d)] = d
    reads = perf_expr.names(d.tree) if consts is None else \
        perf_expr.needed(d.tree, consts(d))
    _read(d, reads, keys, seen, events, consts)
    return seen, events


def threshold_closure(d, keys, events):
    """The events metric d's threshold reads, which -M counts with it."""
    if d.threshold:
        _read(d, perf_expr.names(perf_expr.parse(d.threshold)), keys, {},
              events, None)
    return events


def _read(d, reads, keys, seen, events, consts):
    """The metrics and events of the names reads, in d's formula."""
    for name, uses in reads.items():
        if "strcmp_cpuid_str" in uses and len(uses) == 1:
            continue
        if "value" in uses:
            ref = d.layer.find(perf_expr.unescape(name), d.pmu)
            if ref is not None:
                closure(ref, keys, seen, events, consts)
                continue
        ev = data_event(d.layer, d, name, keys)
        if ev.key != ("tool", "duration_time", ""):
            events.setdefault((ev.row, ev.key), ev)


def is_hybrid(layer):
    return any(d.pmu in HYBRID_PMUS for d in layer.defs)


def cpuid_matches(pattern, cpuid):
    """strcmp_cpuid_str's answer, as perf gives it: arm64's MIDR the
    same implementer, architecture and part, its variant and revision
    at least the pattern's; x86's a regular expression of the whole."""
    if pattern.startswith("0x"):
        if not cpuid.startswith("0x"):
            return False
        want, have = int(pattern, 16), int(cpuid, 16)
        fields = ~((0xf << 20) | 0xf)
        if want & fields != have & fields:
            return False
        return ((have >> 20) & 0xf, have & 0xf) >= \
            ((want >> 20) & 0xf, want & 0xf)
    return re.fullmatch(pattern, cpuid) is not None
