#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# -M NAME: the vendors' metrics (cmd/metrics/metrics.tsv) for the CPU's
# model, as perf evaluates them. perf's Default group (its metrics of
# every CPU) is counted for real on this machine's software events and
# each value checked against its row's counts; the hardware metrics of a
# model are given known counts through --input records made here
# (metric_record.py) and checked against perf's formulas worked out by
# hand; a metric this machine cannot count is refused in one line; --list
# names the model's groups and metrics.

load output_helper

setup() {
	out_setup
	need_py csv
	REC="$PY $SOURCE_DIR/tests/cli/metric_record.py"
	# Skylake-SP, both siblings of a core busy: the thread's cycles are
	# the core's (THREAD = THREAD_ANY), for 40/15/20/25 % as perf gives
	# them: slots 4 * THREAD_ANY / 2 = 4000 (system-wide), or per thread
	# 4 * THREAD / 2 * (1 + ONE_THREAD_ACTIVE / REF_XCLK) = 4000.
	SKX="IDQ_UOPS_NOT_DELIVERED.CORE=800 CPU_CLK_UNHALTED.THREAD=2000
	    CPU_CLK_UNHALTED.THREAD_ANY=2000 CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE=0
	    CPU_CLK_UNHALTED.REF_XCLK=100 UOPS_ISSUED.ANY=2000
	    UOPS_RETIRED.RETIRE_SLOTS=1600 INT_MISC.RECOVERY_CYCLES_ANY=100
	    INT_MISC.RECOVERY_CYCLES=50"
}

teardown() {
	out_teardown
}

# no_pmu: skip, with the reason, where a hardware PMU counts.
no_pmu() {
	if "$CT" -c cycles true >/dev/null 2>&1; then
		skip "a PMU counts cycles here: the refusals are of machines without one"
	fi
}

@test "-M Default: perf's metrics of every CPU, on this machine's own events, from each row's counts" {
	ct_run -M Default --format=csv -T 0 "$W/wl_spin_for" 0 50
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == *,metric.CPUs_utilized,crossed.CPUs_utilized,metric.cs_per_second,* ]]
	"$PY" - "$T/out" <<'EOF'
import csv, sys
ex = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] == "exit"]
assert len(ex) == 1, ex
r = ex[0]
tc, el = int(r["task-clock:uk"]), int(r["elapsed_ns"])
# perf's CPUs_utilized: task-clock / (duration_time * 1e9).
got = float(r["metric.CPUs_utilized"])
assert abs(got - tc / el) <= 1e-9 * max(tc / el, 1), (r, tc / el)
# page_faults_per_second: page-faults * 1e9 / task-clock.
want = int(r["page-faults:uk"]) * 1e9 / tc
assert abs(float(r["metric.page_faults_per_second"]) - want) <= 1e-9 * want, r
EOF
	# The table: a line per metric after the row, the unit and the name.
	ct_run -M default -T 0 "$W/wl_spin_for" 0 10
	[ "$status" -eq 0 ]
	[[ $output =~ \ CPUs\ +CPUs_utilized && $output =~ \ faults/sec\ +page_faults_per_second ]]
	# A metric whose has_event guards leave it no event here (perf's
	# stalled_cycles_per_instruction without stalled-cycles events) is
	# left out, said with -D, never given its else branch's 0.
	if ! "$CT" -c stalled-cycles-frontend true >/dev/null 2>&1 &&
	    ! "$CT" -c stalled-cycles-backend true >/dev/null 2>&1; then
		[[ $output != *stalled_cycles_per_instruction* ]]
		ct_run -D -M Default -T 0 "$W/wl_spin_for" 0 10
		[[ $stderr == *"left out: stalled_cycles_per_instruction (of Default): none of its events exists here (has_event)"* ]]
	fi
	cs_run -M Default 0.2 1
	[ "$status" -eq 0 ]
	[[ $output == *" total "*"CPUs_utilized"* ]]
}

# counted_here CPUID: the metrics --list marks "counted here" on this
# machine for the model of CPUID ("": the machine's own), one a line.
counted_here() {
	PERF_CPUID=$1 "$CT" --list --format=csv >"$T/list.csv" ||
		fail "--list for '$1' exited $?"
	"$PY" -c 'import csv, sys
for r in csv.reader(open(sys.argv[1])):
    if r[1] == "metric" and r[2].endswith("counted here"):
        print(r[0])' "$T/list.csv"
}

# has_value NAME: whether the CSV rows in $T/out give metric NAME a value
# on every row.
has_value() {
	"$PY" - "$T/out" "$1" <<'EOF'
import csv, math, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] != "meta"]
col = "metric." + sys.argv[2]
assert rows, "no rows"
for r in rows:
    v = r.get(col)
    assert v not in (None, "", "-") and not math.isnan(float(v)), (col, r)
EOF
}

@test "--list's 'counted here' is -M's word: each such metric prints a value, under cputrack and cpustat" {
	# The machine's own model, and two whose metrics read msr, power,
	# duration_time or constants of the machine (SMT off, no PMEM).
	for cpuid in "" GenuineIntel-6-55-4 GenuineIntel-6-8F-4; do
		counted_here "$cpuid" >"$T/names"
		[ -s "$T/names" ] || fail "--list for '$cpuid' marks no metric counted here"
		while read -r name; do
			PERF_CPUID=$cpuid ct_run -M "$name" --metric-only \
			    --format=csv -T 0 "$W/wl_spin_for" 0 10
			[ "$status" -eq 0 ] || fail "cputrack -M $name ($cpuid): exit $status: $stderr"
			has_value "$name" || fail "cputrack -M $name ($cpuid): no value"
			PERF_CPUID=$cpuid cs_run -M "$name" --metric-only \
			    --format=csv 0.1 1
			[ "$status" -eq 0 ] || fail "cpustat -M $name ($cpuid): exit $status: $stderr"
			has_value "$name" || fail "cpustat -M $name ($cpuid): no value"
		done <"$T/names"
	done
}

@test "-M beside -c: counted together in one set, as perf counts -M with -e; every metric a value in one interval" {
	cs_run --metric-only -M Default -c cpu-clock,context-switches --format=csv 0.2 1
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	has_value CPUs_utilized
	has_value cs_per_second
	grep -q '^[0-9.]*,,,,,[0-9]*,total,0,' "$T/out" || fail "no total of set 0: $output"
	cs_run --dry-run -M Default -c cpu-clock,context-switches 0.2 1
	[ "$status" -eq 0 ]
	[[ $output == "set 0: cpu-clock,context-switches,{cpu-clock:"* ]]
	[[ $output != *"set 1:"* ]]
	[[ $output == *" -M metrics: CPUs_utilized, cs_per_second, "* ]]
	ct_run -M Default -c page-faults --metric-only --format=csv -T 0 "$W/wl_spin_for" 0 10
	[ "$status" -eq 0 ]
	has_value CPUs_utilized
	has_value page_faults_per_second
}

@test "-M on a machine without a PMU: the named metric refused in one line, with its event and why, exit 2" {
	no_pmu
	PERF_CPUID=GenuineIntel-6-55-4 ct_run -M tma_retiring true
	[ "$status" -eq 2 ]
	[ "$(wc -l <"$T/err")" -eq 1 ]
	[[ $stderr == "cputrack: -M tma_retiring: UOPS_RETIRED.RETIRE_SLOTS (cpu/event=0xc2,umask=2,name=UOPS_RETIRED.RETIRE_SLOTS/"*"): a hardware event, and this kernel has no hardware counters"* ]]
	PERF_CPUID=GenuineIntel-6-55-4 cs_run -M TopdownL1 1 1
	[ "$status" -eq 2 ]
	[[ $stderr == "cpustat: -M TopdownL1: none of its 4 metrics can be counted here ("*"a hardware event"* ]]
	[ -z "$output" ]
}

@test "-M of no such name: the nearest of the model's names, and its level under another vendor's name; exit 2" {
	PERF_CPUID=GenuineIntel-6-55-4 ct_run -M TopdownL9 true
	[ "$status" -eq 2 ]
	[[ $stderr == "cputrack: -M TopdownL9: no such metric or metric group for skylakex (CPU GenuineIntel-6-55-4; linux-7.3's x86/skylakex "*"); nearest: "*TopdownL1* ]]
	PERF_CPUID=AuthenticAMD-25-11-1 ct_run -M TopdownL1 true
	[ "$status" -eq 2 ]
	[[ $stderr == *"for amdzen4 "*"nearest: PipelineL1"* ]]
	ct_run --metric-groups=, true
	[ "$status" -eq 2 ]
	[[ $stderr == *"-M ,: no metric named"* ]]
	ct_run --metric-only true
	[ "$status" -eq 2 ]
	[[ $stderr == *"--metric-only needs -M"* ]]
}

@test "perf 6.1's names answer where newer data renamed them (CORE_CLKS, Big_Code, tma_info_*)" {
	PERF_CPUID=GenuineIntel-6-55-4 run "$CT" --list -j
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/list"
	"$PY" - "$T/list" <<'EOF'
import json, sys
items = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    items.setdefault(o["name"], o)
for name, source in (("CORE_CLKS", "linux-6.1"), ("Big_Code", "linux-6.1"),
                     ("tma_info_core_core_clks", "linux-7.3"),
                     ("TopdownL6", "linux-7.3")):
    assert name in items and items[name]["source"] == source, (name, items.get(name))
assert items["TopdownL1"]["kind"] == "metric group"
assert items["TopdownL1"]["metrics"] == ["tma_backend_bound", "tma_bad_speculation", "tma_frontend_bound", "tma_retiring"], items["TopdownL1"]
m = items["tma_frontend_bound"]
assert m["kind"] == "metric" and m["scale_unit"] == "100%" and m["threshold"] == "tma_frontend_bound > 0.15", m
# A thread's: the core's cycles estimated from its own (#core_wide 0).
assert m["events"] == ["IDQ_UOPS_NOT_DELIVERED.CORE", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", "CPU_CLK_UNHALTED.REF_XCLK"], m
EOF
	# cpustat's rows are whole cores where every sibling is counted.
	PERF_CPUID=GenuineIntel-6-55-4 run "$CS" --list=tma_frontend_bound -j
	[ "$status" -eq 0 ]
	[[ $output == *'"events":["IDQ_UOPS_NOT_DELIVERED.CORE","CPU_CLK_UNHALTED.THREAD"'* || $output == *'"events":["IDQ_UOPS_NOT_DELIVERED.CORE","CPU_CLK_UNHALTED.THREAD_ANY"]'* ]]
	PERF_CPUID=GenuineIntel-6-55-4 run "$CT" --list='Topdown*'
	[ "$status" -eq 0 ]
	[ "$(grep -c $'\tmetric group\t' <<<"$output")" -eq 6 ]
}

@test "--input: Skylake-SP with SMT on, both siblings busy: perf's 40/15/20/25 %, system-wide and per thread" {
	# shellcheck disable=SC2086 # the counts are words
	$REC cpustat GenuineIntel-6-55-4 --smt --siblings $SKX >"$T/cs.json"
	run "$CS" --input "$T/cs.json" -M TopdownL1 -j
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/cs.out"
	# shellcheck disable=SC2086
	$REC cputrack GenuineIntel-6-55-4 --smt $SKX >"$T/ct.json"
	run "$CT" --input "$T/ct.json" -M TopdownL1 -j
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/ct.out"
	"$PY" - "$T/cs.out" "$T/ct.out" <<'EOF'
import json, sys
for path in sys.argv[1:]:
    objs = [json.loads(l) for l in open(path)]
    head, rows = objs[0], objs[1:]
    assert [m["key"] for m in head["metrics"]] == ["tma_backend_bound", "tma_bad_speculation", "tma_frontend_bound", "tma_retiring"], head
    assert all(m["unit"] == "%" and m["scale"] == 100 and m["level"] == 1 for m in head["metrics"]), head
    for r in rows:
        got = r["metrics"]
        for k, want in (("tma_retiring", 40), ("tma_bad_speculation", 15), ("tma_frontend_bound", 20), ("tma_backend_bound", 25)):
            assert abs(got[k] - want) < 1e-9, (path, r)
        # Thresholds: backend > 20 %, frontend > 15 %; bad speculation is not > 15 %.
        assert sorted(r["metrics_crossed"]) == ["tma_backend_bound", "tma_frontend_bound"], r
        assert r["bottleneck"] == "tma_backend_bound", r
EOF
}

@test "--input: the tree in the table, '!' where a threshold is crossed and '<==' at the bottleneck; --metric-only columns" {
	# shellcheck disable=SC2086
	$REC cputrack GenuineIntel-6-55-4 --smt $SKX >"$T/ct.json"
	run "$CT" --input "$T/ct.json" -M TopdownL1
	[ "$status" -eq 0 ]
	[[ $output == *$'\n#         !         25.0 %  tma_backend_bound  <==\n#                   15.0 %  tma_bad_speculation\n#         !         20.0 %  tma_frontend_bound\n#                   40.0 %  tma_retiring'* ]]
	run "$CT" --input "$T/ct.json" -M TopdownL1 --metric-only
	[ "$status" -eq 0 ]
	# The record's origin first: "# cputrack 0 on recorded, started ".
	[ "${lines[0]}" = "# cputrack 0 on recorded, started " ]
	[ "${lines[2]}" = "   time lwp      event %tma_backend_bound %tma_bad_speculation %tma_frontend_bound %tma_retiring " ]
	[ "${lines[5]}" = "  3.000   1       exit               25.0                 15.0                20.0          40.0 " ]
}

@test "--input: a level's children hidden under a parent below its threshold, shown with --metric-no-threshold" {
	# Ice Lake-X: level 1 from topdown-* and slots, level 2 beneath.
	$REC cputrack GenuineIntel-6-6A-6 TOPDOWN.SLOTS=1000 topdown-retiring=500 \
	    topdown-bad-spec=100 topdown-fe-bound=100 topdown-be-bound=300 \
	    INT_MISC.UOP_DROPPING=0 INT_MISC.CLEARS_COUNT=0 >"$T/icx.json"
	run "$CT" --input "$T/icx.json" -M TopdownL1 -j
	[ "$status" -eq 0 ]
	[[ $output == *'"tma_retiring":50.0'* && $output == *'"tma_backend_bound":30.0'* ]]
	run "$CT" --input "$T/icx.json" -M tma_frontend_bound,tma_retiring,tma_backend_bound
	[ "$status" -eq 0 ]
	# frontend bound (10 %) is below its threshold (15 %): no '!'.
	[[ $output == *$'\n#                   10.0 %  tma_frontend_bound\n'* ]]
}

@test "--input: a memory-bandwidth metric of a socket's PMU, per socket with cpustat, refused per thread by cputrack" {
	# Zen 4's memory controllers: CAS commands (64 bytes each) of the
	# socket's boxes, summed.
	$REC cpustat AuthenticAMD-25-11-1 --elapsed 1e9 \
	    'umc_cas_cmd.rd=2000000@amd_umc_0,amd_umc_1' >"$T/umc.json"
	run "$CS" --input "$T/umc.json" -M umc_mem_read_bandwidth -j
	[ "$status" -eq 0 ]
	# 2e6 * 64 / 1e6 / 1 s = 128 MB/s.
	[[ ${lines[1]} == *'"umc_mem_read_bandwidth":128.0'* ]]
	sed 's/"tool": "cpustat"/"tool": "cputrack"/' "$T/umc.json" >"$T/umc_t.json"
	run --separate-stderr "$CT" --input "$T/umc_t.json" -M umc_mem_read_bandwidth
	[ "$status" -eq 2 ]
	[[ $stderr == "cputrack: -M umc_mem_read_bandwidth: it counts umc_cas_cmd.rd, a whole socket's, which a thread's rows cannot hold (cpustat counts it)" ]]
}

@test "--input of a real run: the same rows again, and -M's metrics on them; bad records refused in one line" {
	ct_run -j -T 0 -c task-clock,page-faults,cs "$W/wl_spin_for" 0 20
	[ "$status" -eq 0 ]
	cp "$T/out" "$T/rec.json"
	run "$CT" --input "$T/rec.json"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "# cputrack "*" on $(hostname), started "*Z ]]
	[[ ${lines[1]} == "   time lwp      event      pic0      pic1      pic2 " ]]
	[[ $output == *" exit "* ]]
	run --separate-stderr "$CT" --input "$T/rec.json" -M Default --format=csv
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == *metric.CPUs_utilized* ]]
	run --separate-stderr "$CS" --input "$T/rec.json"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cpustat: --input $T/rec.json: line 1: a record of cputrack: read it with cputrack --input" ]
	echo '{"x":1}' >"$T/bad.json"
	run --separate-stderr "$CT" --input "$T/bad.json"
	[ "$status" -eq 2 ]
	[[ $stderr == *"line 1: not a cpctools record"* ]]
	run --separate-stderr "$CT" --input "$T/nonexistent.json"
	[ "$status" -eq 2 ]
	[[ $stderr == *"nonexistent.json: No such file or directory" ]]
	run --separate-stderr "$CT" --input "$T/rec.json" -c task-clock
	[ "$status" -eq 2 ]
	[[ $stderr == *"-c cannot be given"* ]]
	# A record of -M Default: its counters carry the run's modes
	# (task-clock:uk where the kernel lets this user count both), and are
	# still the events perf's formulas name.
	ct_run -j -T 0 -M Default -o "$T/m.json" "$W/wl_spin_for" 0 20
	[ "$status" -eq 0 ]
	run --separate-stderr "$CT" --input "$T/m.json" -M Default --metric-only --format=csv
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/m.csv"
	"$PY" - "$T/m.json" "$T/m.csv" <<'EOF2'
import csv, json, sys
rec = [json.loads(l) for l in open(sys.argv[1])]
ex = [r for r in rec if r.get("label") == "exit"][0]
tc = [v for k, v in ex["counters"].items() if k.startswith("task-clock")][0]
row = [r for r in csv.DictReader(open(sys.argv[2])) if r["label"] == "exit"][0]
want = tc / ex["elapsed_ns"]
assert abs(float(row["metric.CPUs_utilized"]) - want) <= 1e-9 * want, (row, want)
EOF2
}

@test "--dry-run -M: the metrics' set, each event named as perf names it, and the metrics under their parents" {
	ct_run --dry-run -M Default "$W/wl_spin_for" 0 10
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "set 0: {task-clock:"* ]]
	[[ $output == *" -M metrics: CPUs_utilized, cs_per_second, migrations_per_second, page_faults_per_second"* ]]
}

@test "--list --format=csv: CSV with a header, fields quoted where they hold the separator; -x's separator" {
	PERF_CPUID=GenuineIntel-6-55-4 run "$CT" --list --format=csv
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/list.csv"
	grep -q $'\t' "$T/list.csv" && fail "a tab in the CSV listing"
	[ "${lines[0]}" = name,kind,description ]
	# Every record three fields, as a CSV reader reads them; the events,
	# the groups and the metrics as the text listing has them.
	"$PY" -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == ["name", "kind", "description"], rows[0]
assert all(len(r) == 3 for r in rows), [r for r in rows if len(r) != 3]
byname = {r[0]: r for r in rows[1:]}
assert byname["task-clock"][1] == "software"
assert byname["TopdownL1"][1] == "metric group"
assert byname["tma_retiring"][1] == "metric"
print(len(rows) - 1)' "$T/list.csv" >"$T/n"
	[ "$(cat "$T/n")" -eq "$(PERF_CPUID=GenuineIntel-6-55-4 "$CT" --list | wc -l)" ]
	# -x: the separator asked for; a field that holds it is quoted.
	PERF_CPUID=GenuineIntel-6-55-4 run "$CS" --list='TopdownL1' -x ';'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 'name;kind;description' ]
	[[ ${lines[1]} == 'TopdownL1;metric group;"4 metrics of skylakex: '* ]]
}
