#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# -M GROUP: the metric groups of cmd/common/mgroups_table.c. Default (the
# software events on this machine) is counted for real and each metric
# checked against its own row's counts; a group this machine cannot count
# is refused in one line that names the missing event and why, exit 2;
# --list names the groups as a kind of their own, and --list
# --format=json gives one JSON object per event and per group.

load output_helper

setup() {
	out_setup
	need_py csv
}

teardown() {
	out_teardown
}

# no_pmu: skip, with the reason, where a hardware PMU counts.
no_pmu() {
	if "$CT" -c cycles true >/dev/null 2>&1; then
		skip "a PMU counts cycles here: the refusals are the forced models' (test_pfm_models)"
	fi
}

@test "-M Default: perf's derived metrics, as --metrics gives them, from the row's own counts" {
	ct_run -M Default --format=csv -T 0 -c task-clock,page-faults,cs "$W/wl_spin_for" 0 50
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == *,elapsed_ns,metric.cpus_utilized,metric.page_faults_k_per_sec,metric.context_switches_k_per_sec ]]
	"$PY" - "$T/out" <<'EOF'
import csv, sys
ex = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] == "exit"]
assert len(ex) == 1, ex
r = ex[0]
tc, el = int(r["task-clock"]), int(r["elapsed_ns"])
assert abs(float(r["metric.cpus_utilized"]) - tc / el) <= 1e-12 * max(tc / el, 1), r
want = int(r["context-switches"]) / (tc / 1e9) / 1e3
assert abs(float(r["metric.context_switches_k_per_sec"]) - want) <= 1e-12 * max(want, 1), r
EOF
	# The same columns as --metrics.
	head -1 "$T/out" >"$T/m_head"
	ct_run --metrics --format=csv -T 0 -c task-clock,page-faults,cs "$W/wl_spin_for" 0 10
	[ "${lines[0]}" = "$(cat "$T/m_head")" ]
	# --metrics beside -M: Default's too, once.
	ct_run --metrics -M Default,default --format=csv -T 0 -c task-clock,page-faults,cs "$W/wl_spin_for" 0 10
	[ "${lines[0]}" = "$(cat "$T/m_head")" ]
}

@test "-M default with no -c: perf stat's default events and their metrics, in any case of the name" {
	ct_run -M default -T 0 "$W/wl_spin_for" 0 10
	[ "$status" -eq 0 ]
	[[ $output == *"CPUs utilized"* && $output == *"K/sec page-faults"* ]]
	cs_run -M Default 0.2 1
	[ "$status" -eq 0 ]
	[[ $output == *" total "*"CPUs utilized"* ]]
}

@test "-M of a hardware group on a machine without a PMU: one line naming the event and why, exit 2" {
	no_pmu
	ct_run -M TopdownL1 true
	[ "$status" -eq 2 ]
	[ "$(wc -l <"$T/err")" -eq 1 ]
	[[ $stderr == "cputrack: -M TopdownL1: slots: this kernel has no hardware PMU"*"that variant is for Intel Ice Lake"* ]]
	cs_run -M IPC,Branch 1 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "cpustat: -M IPC: cycles: a hardware event, and this kernel has no hardware PMU; that variant is for every CPU with a PMU" ]
	[ -z "$output" ]
}

@test "-M of a PMU this kernel lacks (memory bandwidth, energy): the PMU named, exit 2" {
	[ ! -e /sys/bus/event_source/devices/uncore_imc_0 ] || skip "this machine has Intel's memory-controller PMU"
	cs_run -M MemBW 1 1
	[ "$status" -eq 2 ]
	[[ $stderr == "cpustat: -M MemBW: uncore_imc/cas_count_read/: no PMU 'uncore_imc' in this kernel"* ]]
	[ ! -e /sys/bus/event_source/devices/power ] || skip "this machine has the RAPL PMU"
	ct_run -M Default,Energy true
	[ "$status" -eq 2 ]
	[[ $stderr == "cputrack: -M Energy: power/energy-pkg/: no PMU 'power' in this kernel"* ]]
}

@test "-M of no such group, or an empty one: said, exit 2" {
	ct_run -M TopdownL9 true
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: -M TopdownL9: no such metric group (--list names them)" ]
	ct_run --metric-groups=, true
	[ "$status" -eq 2 ]
	[[ $stderr == *"-M: no group named"* ]]
}

@test "--list: the groups after the events, a kind of their own, with what this machine counts" {
	run "$CT" --list
	[ "$status" -eq 0 ]
	[ "$(grep -c $'^Default\tmetric group\tperf stat\'s derived metrics, for the run\'s own events; counted here (every CPU)$' <<<"$output")" -eq 1 ]
	for g in IPC Branch Cache TopdownL1 TopdownL2 MemBW Energy; do
		[ "$(grep -c "^$g"$'\tmetric group\t' <<<"$output")" -eq 1 ]
	done
	run "$CS" --list='Topdown*'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "--list --format=json: one object per event and per group, for jq" {
	command -v jq >/dev/null || skip "jq is not installed (scripts/deps installs it)"
	run "$CT" --list --format=json
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/list"
	# Every line one object with a name, a kind and a description.
	[ "$(jq -c 'select((.name|type) == "string" and (.kind|type) == "string" and (.description|type) == "string")' "$T/list" | wc -l)" -eq "$(wc -l <"$T/list")" ]
	[ "$(jq -r 'select(.name == "task-clock") | .kind' "$T/list")" = software ]
	[ "$(jq -r 'select(.kind == "metric group") | .name' "$T/list" | tr '\n' ' ')" = "Default IPC Branch Cache TopdownL1 TopdownL2 MemBW Energy " ]
	[ "$(jq -r 'select(.name == "Default") | .countable' "$T/list")" = true ]
	[ "$(jq -r 'select(.name == "Default") | .variants[0].metrics[0].formula' "$T/list")" = "instructions / cpu-cycles" ]
	# TopdownL1's variants: Intel hybrid, Ice Lake and later, Skylake, Zen 4,
	# Neoverse.
	[ "$(jq -r 'select(.name == "TopdownL1") | .variants | length' "$T/list")" -eq 5 ]
	[ "$(jq -r 'select(.name == "TopdownL1") | .variants[1].events[0]' "$T/list")" = slots ]
	if ! "$CT" -c cycles true >/dev/null 2>&1; then
		[ "$(jq -r 'select(.name == "TopdownL1") | .countable' "$T/list")" = false ]
		[[ $(jq -r 'select(.name == "TopdownL1") | .why_not' "$T/list") == "slots: this kernel has no hardware PMU"* ]]
	fi
	# -j says the same as --format=json.
	run "$CS" --list='Top*' -j
	[ "$status" -eq 0 ]
	[ "$(jq -r .name <<<"$output" | tr '\n' ' ')" = "TopdownL1 TopdownL2 " ]
}

@test "--list --format=csv: CSV with a header, fields quoted where they hold the separator; -x's separator" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	run "$CT" --list --format=csv
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/list.csv"
	! grep -q $'\t' "$T/list.csv"
	[ "${lines[0]}" = name,kind,description ]
	# Every record three fields, as a CSV reader reads them; the events
	# and the groups as the text listing has them.
	python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == ["name", "kind", "description"], rows[0]
assert all(len(r) == 3 for r in rows), [r for r in rows if len(r) != 3]
byname = {r[0]: r for r in rows[1:]}
assert byname["task-clock"][1] == "software"
assert byname["TopdownL1"][1] == "metric group"
print(len(rows) - 1)' "$T/list.csv" >"$T/n"
	[ "$(cat "$T/n")" -eq "$("$CT" --list | wc -l)" ]
	# -x: the separator asked for, a field that holds it quoted.
	run "$CS" --list='Topdown*' -x ';'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 'name;kind;description' ]
	[[ ${lines[1]} == 'TopdownL1;metric group;"TopDown level 1: '* ]]
}

@test "--dry-run: each set's counters as the kernel would get them, and its metrics; nothing opened" {
	# The kernel's numbers (linux/perf_event.h): PERF_TYPE_SOFTWARE 1,
	# PERF_COUNT_SW_TASK_CLOCK 1, PAGE_FAULTS 2, CONTEXT_SWITCHES 3;
	# counters named as rows name them, with their modes, as the metrics.
	ct_run --dry-run -M Default -c task-clock:u,cs:u,page-faults:u "$W/wl_spin_for" 0 10
	[ "$status" -eq 0 ]
	[ "$output" = "set 0: task-clock:u,cs:u,page-faults:u
 pic0 task-clock:u (task-clock:u)
  type 1 config 0x1 (no kernel)
 pic1 context-switches:u (cs:u)
  type 1 config 0x3 (no kernel)
 pic2 page-faults:u (page-faults:u)
  type 1 config 0x2 (no kernel)
 metrics: cpus_utilized:u, page_faults_k_per_sec:u, context_switches_k_per_sec:u" ]
	# Nothing ran: the program would have spun 10 ms and left no row.
	[[ $output != *exit* ]]
	# cpustat: user mode only without sys, as Solaris's; no metrics asked.
	cs_run --dry-run -c cpu-clock 1 1
	[ "$status" -eq 0 ]
	[ "$output" = "set 0: cpu-clock
 pic0 cpu-clock (cpu-clock)
  type 1 config 0 (no kernel)" ]
	cs_run --dry-run --metrics -c cpu-clock,sys 1 1
	[ "$status" -eq 0 ]
	[ "$output" = "set 0: cpu-clock,sys
 pic0 cpu-clock (cpu-clock)
  type 1 config 0
 metrics: cpus_utilized" ]
	# A group this machine cannot count is refused before anything else.
	ct_run --dry-run -M TopdownL1 true
	[ "$status" -eq 2 ]
}
