#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# --metrics: perf's derived metrics beside the counts (cmd/metrics/
# default_metrics.c). Each is checked against the same row's own fields, which
# the kernel counted: CPUs utilized is task-clock / elapsed_ns, the
# events per second are events / task-clock seconds; and against what
# must bound it: one spinning thread uses at most one CPU, N threads at
# most N. A metric is there only when its set has all its events, and
# they were counted.

load output_helper

setup() {
	out_setup
	need_py csv
}

teardown() {
	# The spinners some tests leave beside cputrack.
	[ ! -f "$T/hogs" ] || xargs kill <"$T/hogs" 2>/dev/null || true
	out_teardown
}

# check_rows CSV NTHREADS: every row of counts that has a metric has it
# as its own fields give it; CPUs utilized at most NTHREADS.
check_rows() {
	"$PY" - "$1" "$2" <<'EOF'
import csv, sys
n = int(sys.argv[2])
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["label"] != "meta" and r["set"] != ""]
assert rows, "no rows of counts"
seen = 0
for r in rows:
    tc, el = r["task-clock"], r["elapsed_ns"]
    cpus = r["metric.cpus_utilized"]
    if el == "" or int(el) == 0:
        assert cpus == "", r
        continue
    seen += 1
    want = int(tc) / int(el)
    assert abs(float(cpus) - want) <= 1e-12 * max(want, 1), (r, want)
    # No more CPUs than threads: the span starts before the counters
    # do, and ends after, up to the two clocks' difference (below).
    assert float(cpus) <= n * (1 + 1e-3), r
    pf = r["metric.page_faults_k_per_sec"]
    if int(tc) == 0:
        assert pf == "", r
    else:
        want = int(r["page-faults"]) / (int(tc) / 1e9) / 1e3
        assert abs(float(pf) - want) <= 1e-12 * max(want, 1), (r, want)
assert seen > 0, "no row with an elapsed time"
EOF
}

@test "without --metrics: no metrics; JSON rows keep their elapsed time, for --input" {
	ct_run --format=csv -T 0 -c task-clock,page-faults "$W/wl_spin_for" 0 10
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "time,pid,lwp,tid,cpu,ncpus,label,set,enabled_ns,running_ns,tsc,task-clock,page-faults,proc,child,args,not_counted,partial,key,value" ]
	ct_run --format=json -T 0 -c task-clock,page-faults "$W/wl_spin_for" 0 10
	[[ $output != *metrics* && $output == *elapsed_ns* ]]
	ct_run -T 0 -c task-clock,page-faults "$W/wl_spin_for" 0 10
	[[ $output != *"#"* ]]
}

@test "one spinning thread: CPUs utilized is task-clock / elapsed_ns of its row, at most 1; K/sec is page-faults / task-clock" {
	ct_run --metrics --format=csv -T 0.1 -c task-clock,page-faults "$W/wl_spin_for" 0 400
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == *,key,value,elapsed_ns,metric.cpus_utilized,metric.page_faults_k_per_sec ]]
	check_rows "$T/out" 1
	# The exit row spans the whole run of a thread that spun throughout.
	"$PY" - "$T/out" <<'EOF'
import csv, sys
ex = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] == "exit"]
assert len(ex) == 1 and float(ex[0]["metric.cpus_utilized"]) > 0, ex
assert int(ex[0]["elapsed_ns"]) >= 400_000_000, ex
EOF
}

@test "three spinning threads: each LWP at most 1 CPU, the process at most 3, from its own row" {
	ct_run --metrics --format=csv -T 0.1 -c task-clock,page-faults "$W/wl_spin_for" 2 400
	[ "$status" -eq 0 ]
	check_rows "$T/out" 3
	"$PY" - "$T/out" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lwps = [r for r in rows if r["label"] == "lwp_exit"]
ex = [r for r in rows if r["label"] == "exit"]
assert len(ex) == 1 and len(lwps) == 2, rows
for r in lwps:
    assert float(r["metric.cpus_utilized"]) <= 1 + 1e-3, r
# The process's span is its image's, from its first LWP's start.
e = ex[0]
assert int(e["elapsed_ns"]) >= max(int(r["elapsed_ns"]) for r in lwps), rows
assert float(e["metric.cpus_utilized"]) <= 3 * (1 + 1e-3), e
EOF
}

@test "json: elapsed_ns and a metrics object, computed as CSV's" {
	ct_run --metrics --format=json -T 0 -c task-clock,page-faults,cs "$W/wl_spin_for" 0 50
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/json"
	"$PY" - "$T/json" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
ex = [r for r in rows if r["label"] == "exit"]
assert len(ex) == 1, rows
r = ex[0]
c, m = r["counters"], r["metrics"]
assert set(m) == {"cpus_utilized", "page_faults_k_per_sec",
                  "context_switches_k_per_sec"}, m
assert abs(m["cpus_utilized"] - c["task-clock"] / r["elapsed_ns"]) < 1e-12
want = c["context-switches"] / (c["task-clock"] / 1e9) / 1e3
assert abs(m["context_switches_k_per_sec"] - want) <= 1e-12 * max(want, 1), r
EOF
}

@test "a set without an event a metric needs: no such metric" {
	ct_run --metrics --format=csv -T 0 -c page-faults "$W/wl_spin_for" 0 10
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == *,key,value,elapsed_ns ]]
	ct_run --metrics --format=json -T 0 -c page-faults "$W/wl_spin_for" 0 10
	[ "$status" -eq 0 ]
	grep '"label":"exit"' "$T/out" | grep -q '"metrics":{}'
}

# check_turns CSV: one spinning thread, two sets taking turns at the
# ticks. Each row's elapsed time is its set's own turns: a tick row's
# turn began at the previous tick row, the other set's (printed to the
# microsecond), never as far back as its own set's previous row, whose
# span holds the other set's turn too. CPUs utilized is task-clock over
# it, and at most 1: the turn's clock is read before the reading that
# starts it and after the one that ends it, so it holds all the thread
# ran in it. Up to the two clocks' difference: task-clock is the
# scheduler's clock, the turn CLOCK_MONOTONIC, and in a VM they part by
# about 1e-4 (seen: 1.00009), so 1e-3 is allowed. The non-current set's
# exit total is the sum of its ticks', and with "switch" after CSV, of
# what it counted from its last tick to the switch.
check_turns() {
	"$PY" - "$@" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["label"] != "meta" and r["set"] != "" and r["lwp"] == "1"]
# A tick late by more than an interval gives a gap row: a turn all the same.
ticks = [r for r in rows if r["label"] in ("tick", "gap")]
ex = {int(r["set"]): r for r in rows if r["label"] == "exit"}
assert len(ticks) >= 4 and {int(r["set"]) for r in ticks} == {0, 1}, rows
assert set(ex) == {0, 1}, rows
for r in ticks + list(ex.values()):
    assert r["elapsed_ns"] != "", ("no elapsed time", r)
    el, tc = int(r["elapsed_ns"]), int(r["task-clock"])
    cpus = float(r["metric.cpus_utilized"])
    assert abs(cpus - tc / el) <= 1e-12 * max(tc / el, 1), r
    # A turn in which a loaded machine never ran the thread is 0.
    assert 0 <= cpus <= 1 + 1e-3 and (cpus > 0 or r["label"] != "exit"), r
ns = lambda r: round(float(r["time"]) * 1e9)
for prev, r in zip(ticks, ticks[1:]):
    assert prev["set"] != r["set"], (prev, r)
    el = int(r["elapsed_ns"])
    assert el >= ns(r) - ns(prev) - 1000, (prev, r)
    same = [p for p in ticks if p["set"] == r["set"] and ns(p) < ns(r)]
    if same:
        assert el < ns(r) - ns(same[-1]), (same[-1], r)
# The set ticked last holds its turns, and, switched on the PMU (argument
# 2: switch), what it counted from its last sample until the switch.
last = int(ticks[-1]["set"])
done = [int(r["elapsed_ns"]) for r in ticks if int(r["set"]) == last]
carried = int(ex[last]["elapsed_ns"]) - sum(done)
if sys.argv[2:] == ["switch"]:
    assert carried >= 0, (ex[last], done)
else:
    assert abs(carried) <= 1, (ex[last], done)
EOF
}

@test "several sets taking turns: CPUs utilized is task-clock over the set's own turns, at most 1 for one thread" {
	ct_run --metrics --format=csv -T 0.1 -c task-clock,page-faults \
	    -c task-clock,cs "$W/wl_spin_for" 0 700
	[ "$status" -eq 0 ]
	check_turns "$T/out"
	# The same where the sets switch on the PMU instead of sharing one
	# joint set: the next set's turn starts at the switch, and the set
	# switched out counts on until the switch stops it, after its sample:
	# its next turn holds that time. A slow build (the sanitizers') gave
	# up to 1.2 CPUs in one run of three when it did not.
	for _ in 1 2 3; do
		CPCTOOLS_SET_SWITCH=1 ct_run --metrics --format=csv -T 0.1 \
		    -c task-clock,page-faults -c task-clock,cs \
		    "$W/wl_spin_for" 0 700
		[ "$status" -eq 0 ]
		check_turns "$T/out" switch
	done
}

# A thread alone on cpu1 (SCHED_FIFO, so that nothing else runs there)
# while cputrack shares cpu0 with four spinners: cputrack is preempted
# in the middle of its hand-overs, while the thread runs on. Each set's
# turn must still hold all the thread counted in it (-e: it is counted
# from its last exec, past taskset's and chrt's). Under the BPF
# engine a CPU hands over at its own flush, so the thread's turn ends
# there, not where the hand-over began (which gave 1.007 CPUs).
@test "several sets, cputrack preempted at its hand-overs: CPUs utilized at most 1 for a thread alone on its CPU" {
	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs: one for the thread, one that cputrack shares"
	[ "$(id -u)" = 0 ] || skip "SCHED_FIFO needs root"
	for _ in 1 2 3 4; do
		taskset -c 0 "$W/wl_spin" 0 &
		echo $! >>"$T/hogs"
	done
	for _ in 1 2 3 4; do
		status=0
		timeout -k 5 60 taskset -c 0 "$CT" -e --metrics --format=csv -T 0.1 \
		    -c task-clock,page-faults -c task-clock,cs \
		    taskset -c 1 chrt -f 10 "$W/wl_spin_for" 0 700 \
		    >"$T/out" 2>"$T/err" || status=$?
		[ "$status" -eq 0 ] || { cat "$T/err"; break; }
		check_turns "$T/out" || { status=1; break; }
	done
	[ "$status" -eq 0 ]
}

@test "several sets: the table, JSON and the trace give each set's CPUs utilized" {
	# Ticks every 50 ms: each set has turns.
	ct_run --metrics -T 0.05 -c task-clock,cs -c task-clock "$W/wl_spin_for" 0 300
	[ "$status" -eq 0 ]
	[ "$(grep -cE ' exit +[0-9]+.*# .*[0-9]\.[0-9]{3} CPUs utilized' "$T/out")" -eq 2 ]
	ct_run --metrics --format=json -T 0.05 -c task-clock,cs -c task-clock "$W/wl_spin_for" 0 300
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/json"
	"$PY" - "$T/json" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
ex = [r for r in rows if r["label"] == "exit"]
assert sorted(r["set"] for r in ex) == [0, 1], ex
for r in ex:
    m, tc = r["metrics"], r["counters"]["task-clock"]
    assert abs(m["cpus_utilized"] - tc / r["elapsed_ns"]) < 1e-12, r
    assert 0 < m["cpus_utilized"] <= 1 + 1e-3, r
EOF
	ct_run --metrics --format=trace -T 0.05 -c task-clock,cs -c task-clock "$W/wl_spin_for" 0 300
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'EOF'
import json, sys
events = json.load(open(sys.argv[1]))
metrics = [e for e in events if e["ph"] == "C" and e["name"].endswith(" metrics")]
# A turn of 50 ms in which a loaded machine never ran the thread is 0.
for s in ("set 0", "set 1"):
    got = [m["args"]["cpus_utilized"] for m in metrics
           if (" %s " % s) in (m["name"] + " ")]
    assert got and all(0 <= v <= 1 + 1e-3 for v in got) and max(got) > 0, \
        (s, metrics)
EOF
}

# A row of -M's set, with --metrics too, carries both in one array: its
# keys first, then -M's. Each is checked against the row's own counters,
# and a key against -M's metric of the same formula.
@test "--metrics beside -M: a row of -M's set gives both, from its own counts, in JSON, CSV and the table" {
	ct_run --metrics -M Default --format=json -T 0.05 "$W/wl_spin_for" 0 200
	[ "$status" -eq 0 ]
	cp "$T/out" "$T/json"
	"$PY" - "$T/json" <<'EOF'
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1])]
head, rows = rec[0], rec[1:]
plan = [m["key"] for m in head["metrics"]]
assert "CPUs_utilized" in plan and "cs_per_second" in plan, plan
rows = [r for r in rows if r["set"] == head["metrics_set"]
        and r["not_counted"] is None and r["elapsed_ns"]]
assert rows, "no counted row of -M's set"
for r in rows:
    c, m = r["counters"], r["metrics"]
    tc = next(k for k in c if k.split(":")[0] == "task-clock")
    cs = next(k for k in c if k.split(":")[0] == "context-switches")
    modes = tc[len("task-clock"):]
    cpus = c[tc] / r["elapsed_ns"]
    assert abs(m["cpus_utilized" + modes] - cpus) <= 1e-12 * max(cpus, 1), r
    assert abs(m["CPUs_utilized"] - cpus) <= 1e-12 * max(cpus, 1), r
    if c[tc]:
        per_s = c[cs] / (c[tc] / 1e9)
        assert abs(m["cs_per_second"] - per_s) <= 1e-9 * max(per_s, 1), r
        k = m["context_switches_k_per_sec" + modes]
        assert abs(k * 1e3 - per_s) <= 1e-9 * max(per_s, 1), r
    # -M's marks name -M's metrics only.
    assert set(r["metrics_crossed"] + r["metrics_hidden"]) <= set(plan), r
    # The keys come first, then -M's.
    keys = [k for k in m if k not in plan]
    assert keys and list(m)[:len(keys)] == keys, r
EOF
	ct_run --metrics -M Default --format=csv -T 0.05 "$W/wl_spin_for" 0 200
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["label"] != "meta" and r["set"] != ""]
key = next(k for k in rows[0] if k.startswith("metric.cpus_utilized"))
got = [r for r in rows if r["metric.CPUs_utilized"] != ""]
assert got, "no row with -M's values"
for r in got:
    a, b = float(r[key]), float(r["metric.CPUs_utilized"])
    assert abs(a - b) <= 1e-12 * max(a, 1), r
EOF
	ct_run --metrics -M Default -T 0 "$W/wl_spin_for" 0 100
	[ "$status" -eq 0 ]
	# The exit row's comment has the keys; -M's lines follow it.
	grep -A1 -E '^ +[0-9.]+ +1 +exit .*# .*[0-9]\.[0-9]{3} CPUs utilized' "$T/out" |
	    tail -1 | grep -qE '^# +[0-9.]+ CPUs +CPUs_utilized$' ||
	    { cat "$T/out"; false; }
}

@test "values not counted: no metrics, in the table, CSV and JSON" {
	[ "$(id -u)" = 0 ] || skip "needs root to run as nobody"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local paranoid
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	[ "$paranoid" -ge 1 ] || skip "kernel.perf_event_paranoid=$paranoid lets anyone count CPU-wide"
	as_nobody_cpustat --metrics -c task-clock,cs 0.1 1
	if [ "$status" -eq 2 ]; then
		skip "this cpustat refuses before counting what it may not count"
	fi
	[ "$status" -eq 1 ]
	[[ ${lines[1]} =~ ^\ +[0-9.]+\ +0\ total\ +-\ +-\ #\ not\ counted:\ permission\ denied$ ]]
	as_nobody_cpustat --metrics --format=json -c task-clock,cs 0.1 1
	[ "$status" -eq 1 ]
	grep '"label":"total"' <<<"$output" | grep -q '"elapsed_ns":null,"metrics":{}'
	as_nobody_cpustat --metrics --format=csv -c task-clock,cs 0.1 1
	[ "$status" -eq 1 ]
	grep -E '^[0-9.]+,,,,,0,total,0,,,,,,,,,permission denied,,,,,,$' <<<"$output"
}

@test "table: the metrics end the row's comment, after the spec with several sets" {
	ct_run --metrics -T 0 -c task-clock,page-faults "$W/wl_spin_for" 0 10
	[ "$status" -eq 0 ]
	[[ ${lines[1]} =~ ^\ +[0-9.]+\ +1\ +exit\ +[0-9]+\ +[0-9]+\ \ #\ [0-9]+\.[0-9]{3}\ CPUs\ utilized,\ [0-9]+\.[0-9]{3}\ K/sec\ page-faults$ ]]
	ct_run --metrics -T 0 -c page-faults,task-clock -c cs "$W/wl_spin_for" 0 10
	[ "$status" -eq 0 ]
	grep -E '^ +[0-9.]+ +1 +exit +[0-9]+ +[0-9]+  # page-faults,task-clock; [0-9]+\.[0-9]{3} CPUs utilized, [0-9]+\.[0-9]{3} K/sec page-faults$' "$T/out"
}

@test "cpustat: a tick's elapsed time is its enabled time, a total's their mean; CPUs utilized from them" {
	cs_run --metrics --format=csv -c task-clock,cs 0.2 2
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	"$PY" - "$T/out" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] != "meta"]
ticks = [r for r in rows if r["label"] in ("tick", "gap")]
totals = [r for r in rows if r["label"] == "total"]
assert ticks and len(totals) == 1, rows
for r in ticks:
    assert r["elapsed_ns"] == r["enabled_ns"], r
t = totals[0]
assert int(t["elapsed_ns"]) == int(t["enabled_ns"]) // int(t["ncpus"]), t
for r in ticks + totals:
    want = int(r["task-clock"]) / int(r["elapsed_ns"])
    assert abs(float(r["metric.cpus_utilized"]) - want) <= 1e-12 * want, r
    # A CPU's task-clock is at most its time: each CPU at most one.
    n = int(r["ncpus"]) if r["ncpus"] else 1
    assert float(r["metric.cpus_utilized"]) <= n * 1.001, r
EOF
}
