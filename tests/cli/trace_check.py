# SPDX-License-Identifier: BSD-2-Clause
"""trace_check.py TRACE [--cut] [--csv CSV] [--digest FILE]

Checks a --format=trace file as the timeline viewers need it, with the
standard library alone (Perfetto's trace_processor is not in Debian):

- the file is one JSON document, an array of events (--cut: a run cut
  short may leave the array open; what is there must still parse);
- every event has the keys and types its ph needs: name, ph, ts (a
  number), pid and tid (integers); C: args, an object of numbers; M:
  args.name (process_name, thread_name) or args.sort_index; i: a scope
  s of g, p or t, and args an object;
- ts never goes back on a track: a thread (pid, tid), or a counter
  (pid, name), which is how the viewers draw them.

--csv CSV: the CSV rows of the same command, counted exactly, give the
same counters: each total row (lwp_exit, exit, ...) a counter event of
the same track and values; the interval rows (tick, gap, lwp_create)
of each track the same sums; and each row not counted an instant event
"not counted" with its label, set and reason, in place of a counter.

--digest FILE: one line an event, tab-separated, for the shell to read:
ph, name, pid, tid, then each arg as key=value (a string's value as it
is, a number's in decimal).

Exit 0 when all holds; otherwise each fault on stderr, exit 1.
"""
import argparse
import collections
import csv
import json
import re
import sys

INTERVAL = {"tick", "gap", "cgroup", "lwp_create", "init_lwp"}
SCOPES = {"g", "p", "t"}
faults = []


def fault(msg):
    faults.append(msg)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def integer(v):
    return isinstance(v, int) and not isinstance(v, bool)


def load(path, cut):
    text = open(path, encoding="utf-8").read()
    if cut and not text.rstrip().endswith("]"):
        text = text.rstrip().rstrip(",") + "\n]"
    doc = json.loads(text)
    if isinstance(doc, dict):
        doc = doc.get("traceEvents")
    if not isinstance(doc, list):
        raise SystemExit("%s: not an array of events" % path)
    return doc


def check_meta(i, e):
    args = e["args"]
    if e["name"] in ("process_name", "thread_name"):
        if not isinstance(args.get("name"), str) or not args["name"]:
            fault("event %d: %s without args.name: %r" % (i, e["name"], e))
    elif e["name"] in ("thread_sort_index", "process_sort_index"):
        if not integer(args.get("sort_index")):
            fault("event %d: %s without args.sort_index: %r" % (i, e["name"], e))
    else:
        fault("event %d: unknown metadata %r" % (i, e["name"]))


def check_event(i, e):
    if not isinstance(e, dict):
        return fault("event %d is not an object: %r" % (i, e))
    for key, ok in (("name", lambda v: isinstance(v, str) and v),
                    ("ph", lambda v: v in ("C", "M", "i")),
                    ("ts", lambda v: number(v) and v >= 0),
                    ("pid", integer), ("tid", integer)):
        if key not in e or not ok(e[key]):
            return fault("event %d: bad or missing %s: %r" % (i, key, e))
    if not isinstance(e.get("args"), dict):
        return fault("event %d: args is not an object: %r" % (i, e))
    if e["ph"] == "C":
        if not e["args"] or not all(number(v) for v in e["args"].values()):
            fault("event %d: a counter's args must be numbers: %r" % (i, e))
    elif e["ph"] == "M":
        check_meta(i, e)
    elif e.get("s", "t") not in SCOPES:
        fault("event %d: bad scope: %r" % (i, e))


def check_order(events):
    last = {}
    for i, e in enumerate(events):
        if e["ph"] == "C":
            tracks = [("counter", e["pid"], e["name"]), ("thread", e["pid"], e["tid"])]
        else:
            tracks = [("thread", e["pid"], e["tid"])]
        for t in tracks:
            if e["ts"] < last.get(t, 0):
                fault("event %d: ts %s goes back on %r (was %s)" % (i, e["ts"], t, last[t]))
            last[t] = e["ts"]


def counter_name(r, tool, nsets):
    """The counter a CSV row's values go to, as cpctools-output(5) says."""
    interval = r["label"] in INTERVAL
    if tool == "cpustat":
        name = "cpu " + r["cpu"] if r["cpu"] else "total"
    elif r["pid"] == "0":
        name = "cgroup" if interval else "cgroup total"
    elif interval:
        name = "lwp " + r["lwp"]
    elif r["label"] in ("lwp_exit", "fini_lwp"):
        name = "lwp %s total" % r["lwp"]
    else:
        name = "process total"
    return name + (" set " + r["set"] if nsets > 1 else ""), interval


def is_total(name):
    base = re.sub(r" set [0-9]+$", "", name)
    return base == "total" or base.endswith(" total")


def read_csv(path):
    rows = list(csv.DictReader(open(path, encoding="utf-8")))
    meta = {r["key"]: r["value"] for r in rows if r["label"] == "meta"}
    nsets = sum(1 for k in meta if k.startswith("set."))
    return meta, nsets, [r for r in rows if r["label"] != "meta"]


def csv_values(r, fields):
    return {f: int(r[f]) for f in fields if r[f] != ""}


def compare(events, path):
    meta, nsets, rows = read_csv(path)
    head = events[0]["args"]
    tool = head.get("tool")
    if tool != meta["tool"]:
        fault("the trace is of %s, the CSV of %s" % (tool, meta["tool"]))
    fields = [k[5:] for k in meta if k.startswith("unit.")]
    want_totals, want_sums, want_notes = collections.Counter(), {}, collections.Counter()
    for r in rows:
        if r["set"] == "":
            continue
        if r["not_counted"]:
            want_notes[(r["label"], int(r["set"]), r["not_counted"])] += 1
            continue
        name, interval = counter_name(r, tool, nsets)
        values = csv_values(r, fields)
        if interval:
            want_sums.setdefault(name, collections.Counter()).update(values)
        else:
            want_totals[(name, tuple(sorted(values.items())))] += 1
    got_totals, got_sums, got_notes = collections.Counter(), {}, collections.Counter()
    for e in events:
        if e["ph"] == "C" and not is_total(e["name"]):
            got_sums.setdefault(e["name"], collections.Counter()).update(e["args"])
        elif e["ph"] == "C":
            got_totals[(e["name"], tuple(sorted(e["args"].items())))] += 1
        elif e["ph"] == "i" and e["name"] == "not counted":
            a = e["args"]
            got_notes[(a["label"], a["set"], a["reason"])] += 1
    for what, got, want in (("totals", got_totals, want_totals),
                            ("interval sums", got_sums, want_sums),
                            ("not counted", got_notes, want_notes)):
        if got != want:
            fault("%s differ from the CSV's:\n  trace %r\n  csv   %r" % (what, got, want))


def digest(events, path):
    with open(path, "w", encoding="utf-8") as out:
        for e in events:
            args = e.get("args", {})
            cells = [e["ph"], e["name"], str(e["pid"]), str(e["tid"])]
            cells += ["%s=%s" % (k, v if not isinstance(v, (dict, list)) else json.dumps(v))
                      for k, v in args.items()]
            out.write("\t".join(cells) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--cut", action="store_true",
                    help="a trace cut short: its array may be left open")
    ap.add_argument("--csv", help="the CSV rows of the same command")
    ap.add_argument("--digest", help="a line an event, for the shell")
    a = ap.parse_args()
    events = load(a.trace, a.cut)
    if not events:
        raise SystemExit("%s: no events" % a.trace)
    for i, e in enumerate(events):
        check_event(i, e)
    if faults:
        print("\n".join(faults), file=sys.stderr)
        return 1
    first = events[0]
    if first["name"] != "cpctools" or first.get("s") != "g" or first["ts"] != 0:
        fault("the first event is not the run's facts: %r" % first)
    check_order(events)
    if a.csv:
        compare(events, a.csv)
    if a.digest:
        digest(events, a.digest)
    if faults:
        print("\n".join(faults), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
