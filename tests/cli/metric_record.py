#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Write a record of a run, as -j writes one, for --input to read back:

  metric_record.py TOOL CPUID [options] NAME=COUNT... > rec.json

TOOL is cputrack (rows of a thread) or cpustat (rows of CPUs); CPUID the
machine's id (GenuineIntel-6-55-4). Each NAME=COUNT is a counter of the
record's one set and its count in every row; NAME=COUNT@BOX,BOX counts
COUNT on each of those boxes, summed. Options:
  --smt            the machine has SMT on
  --siblings       cpustat counted every sibling of its CPUs
  --rows N         N tick rows (default 2), then a total
  --elapsed NS     each row's elapsed time (default 1e9)
  --cpus N         the machine's CPUs (default 4)
"""
import json
import sys


def main(argv):
    tool, cpuid = argv[0], argv[1]
    opts = {"smt": False, "siblings": False, "rows": 2,
            "elapsed": 1000000000, "cpus": 4}
    counters = []
    args = argv[2:]
    while args:
        a = args.pop(0)
        if a in ("--smt", "--siblings"):
            opts[a[2:]] = True
        elif a in ("--rows", "--elapsed", "--cpus"):
            opts[a[2:]] = int(float(args.pop(0)))
        else:
            name, _, value = a.rpartition("=")
            count, _, boxes = value.partition("@")
            counters.append((name, int(count),
                             boxes.split(",") if boxes else []))
    events = []
    for name, _, boxes in counters:
        e = {"name": name, "unit": "count"}
        if boxes:
            e["boxes"] = boxes
        events.append(e)
    system_wide = tool == "cpustat"
    head = {
        "schema": "cpctools", "version": 2, "tool": tool,
        "tool_version": "0", "host": "recorded", "start": "",
        "start_epoch_ns": 0,
        "sets": [{"set": 0, "spec": "recorded", "events": events}],
        "machine": {
            "cpuid": cpuid, "smt_on": int(opts["smt"]),
            "num_cpus": opts["cpus"], "num_cpus_online": opts["cpus"],
            "num_packages": 2, "num_dies": 2,
            "num_cores": opts["cpus"] // (2 if opts["smt"] else 1),
            "system_tsc_freq": 2.1e9, "slots": 0, "has_pmem": 0,
            "system_wide": system_wide,
            "siblings_counted": system_wide and opts["siblings"]},
    }
    print(json.dumps(head))
    for i in range(opts["rows"] + 1):
        last = i == opts["rows"]
        row = {
            "time": float(i + 1), "label": "total" if last else "tick",
            "set": 0,
            "counters": {n: c * (opts["rows"] if last else 1)
                         for n, c, _ in counters},
            "enabled_ns": opts["elapsed"], "running_ns": opts["elapsed"],
            "elapsed_ns": opts["elapsed"] * (opts["rows"] if last else 1),
            "not_counted": None, "partial": None,
        }
        if tool == "cputrack":
            row.update({"pid": 100, "proc": 1, "lwp": 1, "tid": 100,
                        "cpu": None, "ncpus": None})
            if last:
                row["label"] = "exit"
        else:
            row.update({"pid": None, "lwp": None, "tid": None,
                        "cpu": None if last else 0,
                        "ncpus": opts["cpus"] if last else None})
        parts = {n: {b: c // len(boxes) for b in boxes}
                 for n, c, boxes in counters if boxes}
        if parts:
            row["parts"] = parts
        print(json.dumps(row))


if __name__ == "__main__":
    main(sys.argv[1:])
