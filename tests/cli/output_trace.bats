#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# --format=trace: the Trace Event format that Perfetto and chrome://tracing
# open. trace_check.py checks every event as the viewers need it (keys and
# types for its ph, ts never going back on a track), and compares the
# counters with the CSV of the same command; the counts asserted here are
# the workloads' own (wl_threads, wl_steps, wl_forktree, ct_exec,
# wl_getpriority).

load output_helper

setup() {
	out_setup
	ensure_tracefs
	CHECK=$SOURCE_DIR/tests/cli/trace_check.py
}

teardown() {
	out_teardown
	if [ -n "${SHARED:-}" ]; then
		rm -rf "$SHARED"
	fi
}

# check_both: $T/trace is one JSON document that the checker takes
# whole, and whose counters are those of the CSV in $T/csv; its digest
# (a line an event: ph, name, pid, tid, key=value...) goes to $T/dig.
check_both() {
	"$PY" -m json.tool "$T/trace" >/dev/null
	"$PY" "$CHECK" "$T/trace" --csv "$T/csv" --digest "$T/dig"
}

# ct_both [cputrack args...]: the same command with --format=trace into
# $T/trace and --format=csv into $T/csv, each exiting 0; then check_both.
ct_both() {
	local fmt
	for fmt in trace csv; do
		ct_run --format=$fmt "$@"
		[ "$status" -eq 0 ] || return 1
		cp "$T/out" "$T/$fmt"
	done
	check_both
}

# dig PH NAME: pid, tid and args of the digest's events PH named NAME.
dig() {
	awk -F'\t' -v ph="$1" -v n="$2" '$1 == ph && $2 == n' "$T/dig" | cut -f3-
}

# The pid that a process_name event names NAME.
pid_named() {
	dig M process_name | awk -F'\t' -v n="name=$1" '$3 == n { print $1 }' |
	    sort -u
}

@test "threads: a track per LWP, named, with each thread's and the process's totals" {
	ct_both -T 60 -c "$WRITE" "$W/wl_threads" 3 1000 7
	local pid n tid
	pid=$(pid_named wl_threads)
	[ -n "$pid" ]
	[ "$(dig M thread_name | awk -F'\t' -v p="$pid" '$1 == p { print $3 }' |
	    sort | tr '\n' ,)" = "name=lwp 1,name=lwp 2,name=lwp 3,name=lwp 4," ]
	for n in 2 3 4; do
		tid=$(dig M thread_name | awk -F'\t' -v p="$pid" -v n="name=lwp $n" \
		    '$1 == p && $3 == n { print $2 }')
		# Started at 0, ended at its 1000 writes, on its own thread.
		[ "$(dig C "lwp $n")" = "$pid	$tid	$WRITE=0" ]
		[ "$(dig C "lwp $n total")" = "$pid	$tid	$WRITE=1000" ]
		[ "$(dig i lwp_exit | grep -c "^$pid	$tid	lwp=$n\$")" -eq 1 ]
	done
	[ "$(dig C "process total" | cut -f1,3)" = "$pid	$WRITE=3007" ]
	[ "$(dig i exit | wc -l)" -eq 1 ]
	[ "$(dig i exit | cut -f1)" = "$pid" ]
	[ -z "$(dig i "not counted")" ]
}

# trace_sums: the sum of each counter's $WRITE in the trace so far ($T/out,
# still open), a line each: name, tab, sum. Fails while the trace ends in
# a line not yet written whole.
trace_sums() {
	"$PY" "$CHECK" --cut "$T/out" --digest "$T/dig" 2>/dev/null || return 1
	awk -F'\t' -v ev="$WRITE=" '$1 == "C" {
		for (i = 5; i <= NF; i++)
			if (index($i, ev) == 1)
				s[$2] += substr($i, length(ev) + 1)
	    } END { for (n in s) print n "\t" s[n] }' "$T/dig"
}

# wait_sums N: until LWPs 2 to 4 have N writes in their tick samples.
wait_sums() {
	wait_while "$CPID" sums_are "$1" && return 0
	cat "$T/out" "$T/err" >&2
	return 1
}
sums_are() {
	trace_sums >"$T/sums" &&
	    awk -F'\t' -v n="$1" '$1 ~ /^lwp [234]$/ && $2 == n { k++ }
		END { exit k != 3 }' "$T/sums"
}

@test "ticks: each sample is one interval's count, streamed, summing to the LWP's total" {
	# wl_steps: 3 threads, 4 steps of 10 writes; a step comes once the
	# trace, as far as it is written, shows the one before.
	gate_open
	CT_STDIN=$T/gate start_cputrack_until '"name":"lwp 1","ph":"C"' \
	    --format=trace -T 0.1 -c "$WRITE" "$W/wl_steps" 3 10
	local step n
	for step in 1 2 3 4; do
		gate_send w
		wait_sums $((10 * step))
	done
	gate_send q
	wait_cputrack
	[ "$status" -eq 0 ]
	"$PY" "$CHECK" "$T/out" --digest "$T/dig"
	for n in 2 3 4; do
		[ "$(dig C "lwp $n" | awk -F'\t' '{ sub(/.*=/, "", $3); s += $3 }
		    END { print s }')" -eq 40 ]
		[ "$(dig C "lwp $n total" | cut -f3)" = "$WRITE=40" ]
		# Deltas, not running totals: no sample holds more than a step.
		[ "$(dig C "lwp $n" | awk -F'\t' '{ sub(/.*=/, "", $3) } $3 > 10' |
		    wc -l)" -eq 0 ]
	done
	[ "$(dig C "lwp 1" | wc -l)" -ge 4 ]
	[ "$(dig C "lwp 1" | grep -cv "	$WRITE=0\$")" -eq 0 ]
	[ "$(dig C "process total" | cut -f3)" = "$WRITE=120" ]
}

@test "cut short by SIGKILL: the trace written so far still opens, its array left open as the viewers take it" {
	# wl_steps: its first step counted and written, then cputrack killed.
	gate_open
	CT_STDIN=$T/gate start_cputrack_until '"name":"lwp 1","ph":"C"' \
	    --format=trace -T 0.1 -c "$WRITE" "$W/wl_steps" 3 10
	gate_send w
	wait_sums 10
	kill -KILL "$CPID"
	wait_cputrack
	# Not closed: the array is open, as a run cut short leaves it.
	[ "$(tail -c 2 "$T/out" | tr -d '\n')" != "]" ]
	"$PY" "$CHECK" --cut "$T/out" --digest "$T/dig"
	[ "$(dig C "lwp 2" | awk -F'\t' '{ sub(/.*=/, "", $3); s += $3 }
	    END { print s }')" -eq 10 ]
}

@test "-f: each fork marked with its child, each child a process with its totals" {
	ct_both -f -T 60 -c "$WRITE" "$W/wl_forktree" 1 2 5
	local parent child

	[ "$(dig C "process total" | cut -f1 | sort -u | wc -l)" -eq 3 ]
	# Each named after its comm; the BPF engine reads it when it first
	# sees the process, and a child gone by then has none.
	[ "$ENGINE" = bpf ] || [ "$(pid_named wl_forktree | wc -l)" -eq 3 ]
	[ "$(dig C "process total" | cut -f3 | sort | uniq -c | awk '{ print $1, $2 }')" = "3 $WRITE=5" ]
	[ "$(dig i fork | wc -l)" -eq 2 ]
	parent=$(dig i fork | cut -f1 | sort -u)
	[ "$(echo "$parent" | wc -l)" -eq 1 ]
	for child in $(dig i fork | cut -f3 | sed 's/^child=//'); do
		[ "$child" != "$parent" ]
		[ "$(dig C "process total" | grep -c "^$child	")" -eq 1 ]
		[ "$(dig i exit | grep -c "^$child	")" -eq 1 ]
	done
	[ "$(dig i exit | wc -l)" -eq 3 ]
}

@test "exec: marked with its arguments, the process renamed, each image's totals" {
	ct_both -e -T 60 -c "$WRITE" "$W/ct_exec" 3 "$W/wl_threads" 1 4
	local pid
	pid=$(pid_named wl_threads)
	[ -n "$pid" ]
	# Named ct_exec, then wl_threads after the exec. The BPF engine reads
	# a process's name when it first sees it, which may be after the exec.
	dig M process_name | awk -F'\t' -v p="$pid" '$1 == p { print $3 }' |
	    tr '\n' , >"$T/names"
	if [ "$ENGINE" = bpf ]; then
		grep -qE '^(name=ct_exec,)?name=wl_threads,$' "$T/names"
	else
		[ "$(cat "$T/names")" = "name=ct_exec,name=wl_threads," ]
	fi
	[ "$(dig i exec)" = "$pid	$pid	args=$(psargs "$W/wl_threads" 1 4)" ]
	[ "$(dig C "process total" | cut -f1,3 | tr '\n' ,)" = "$pid	$WRITE=3,$pid	$WRITE=4," ]
	[ "$(dig C "lwp 2 total" | cut -f3)" = "$WRITE=4" ]
	# The exec's totals, its marker, the new name: in that order.
	awk -F'\t' '$1 == "C" && $2 == "process total" { print "total"; exit }
	    $1 == "i" && $2 == "exec" { print "exec"; exit }' "$T/dig" |
	    grep -qx total
}

@test "not counted (a program the user may not count): no sample, an instant event says why; exit 1" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to make the programs and become nobody"
	[ "$ENGINE" != bpf ] ||
		skip "the BPF engine needs CAP_BPF and CAP_PERFMON, which nobody has"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	SHARED=$(mktemp -d /tmp/cputrack-bats.XXXXXX)
	chmod 0777 "$SHARED"
	cp "$W/ct_marker" "$SHARED/xonly"
	chmod 0111 "$SHARED/xonly"
	cp "$W/ct_exec" "$SHARED/ct_exec"
	chmod 0755 "$SHARED/ct_exec"
	local fmt rc pid
	# Tracepoints need root: a software event that nobody may count,
	# whose count (none, where the kernel fixes up no unaligned access)
	# is the same in both runs.
	for fmt in trace csv; do
		rc=0
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		    timeout 60 "$CT" --format=$fmt -e -c alignment-faults \
		    "$SHARED/ct_exec" 4 "$SHARED/xonly" "$SHARED/ran" 0 300 \
		    >"$T/$fmt" 2>"$T/err" || rc=$?
		[ "$rc" -eq 1 ] || { cat "$T/err"; false; }
	done
	check_both
	pid=$(pid_named xonly)
	[ -n "$pid" ]
	[ "$(dig i "not counted")" = "$pid	$pid	label=init_lwp	set=0	reason=permission denied" ]
	# The image before the exec was counted (as the CSV's, check_both
	# says); the one after, never: no sample, not even a 0.
	[ "$(dig C "process total" | cut -f1)" = "$pid" ]
	[ "$(awk -F'\t' '$1 == "C" { n = NR } $1 == "i" && $2 == "exec" { e = NR }
	    END { print n < e }' "$T/dig")" -eq 1 ]
}

@test "cpustat: a track per CPU named cpu N; its samples add up to its total, which holds every call made on it" {
	[ "$ENGINE" != bpf ] ||
		skip "cpustat has no engine: cli.output_trace runs this"
	[ -d /sys/kernel/tracing/events/syscalls/sys_enter_getpriority ] ||
		skip "no syscalls:sys_enter_getpriority tracepoint"
	local cpu pid sum ev=syscalls:sys_enter_getpriority
	cpu=$("$PY" -c 'import os; print(max(os.sched_getaffinity(0)))')
	"$CS" --format=trace --cpus="$cpu" -c "$ev" 0.1 20 >"$T/trace" 2>"$T/err" &
	pid=$!
	ct_bg "$pid"
	# Once a sample was read, the calls are all counted in the run.
	wait_line "$T/trace" "\"name\":\"cpu $cpu\",\"ph\":\"C\""
	taskset -c "$cpu" "$W/wl_getpriority" 5000
	wait "$pid"
	"$PY" -m json.tool "$T/trace" >/dev/null
	"$PY" "$CHECK" "$T/trace" --digest "$T/dig"
	[ "$(pid_named cpustat)" = "$pid" ]
	[ "$(dig M thread_name | cut -f1-3)" = "$pid	$cpu	name=cpu $cpu" ]
	[ "$(dig C "cpu $cpu" | wc -l)" -ge 2 ]
	[ "$(dig C "cpu $cpu" | awk -F'\t' '$1 != p || $2 != c' p="$pid" c="$cpu" | wc -l)" -eq 0 ]
	# The CPU is everyone's: other programs' calls are counted too, so
	# the workload's 5000 are a floor, and the samples sum to the total.
	sum=$(dig C "cpu $cpu" | awk -F'\t' '{ sub(/.*=/, "", $3); s += $3 }
	    END { print s }')
	[ "$(dig C total | cut -f3)" = "$ev=$sum" ]
	[ "$sum" -ge 5000 ]
}

@test "--metrics: a metrics counter beside each counts counter, its values those of the same row's counts" {
	ct_run --metrics --format=trace -T 0 -c task-clock,page-faults "$W/wl_threads" 2 10
	[ "$status" -eq 0 ]
	cp "$T/out" "$T/trace"
	"$PY" -m json.tool "$T/trace" >/dev/null
	"$PY" "$CHECK" "$T/trace"
	"$PY" - "$T/trace" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
counts = {(e["name"], e["pid"], e["tid"], e["ts"]): e["args"]
          for e in events if e["ph"] == "C" and not e["name"].endswith(" metrics")}
metrics = [e for e in events if e["ph"] == "C" and e["name"].endswith(" metrics")]
# The threads' and the process's totals, at least.
assert len(metrics) >= 3, metrics
for m in metrics:
    c = counts[(m["name"][:-len(" metrics")], m["pid"], m["tid"], m["ts"])]
    want = c["page-faults"] / (c["task-clock"] / 1e9) / 1e3
    got = m["args"]["page_faults_k_per_sec"]
    assert abs(got - want) <= 1e-9 * want, (m, c)
    # A row whose elapsed time is not known has no CPUs utilized; one
    # LWP uses one CPU at most, the process its three.
    if "cpus_utilized" in m["args"]:
        most = 3 if m["name"].startswith("process") else 1
        assert 0 < m["args"]["cpus_utilized"] <= most + 1e-9, m
PY
	# Without --metrics, none.
	ct_run --format=trace -T 0 -c task-clock,page-faults "$W/wl_threads" 2 10
	[ "$status" -eq 0 ]
	! grep -q ' metrics"' "$T/out"
}

@test "the checker refuses what the viewers would not take" {
	local good='{"name":"cpctools","ph":"i","ts":0,"pid":1,"tid":1,"s":"g","args":{"tool":"cpustat"}}'
	local bad
	printf '[%s]\n' "$good" >"$T/t"
	"$PY" "$CHECK" "$T/t"
	for bad in \
	    '{"name":"cpu 0","ph":"C","ts":1,"pid":1,"tid":0,"args":{"e":"1"}}' \
	    '{"name":"cpu 0","ph":"C","ts":1,"pid":1,"tid":0,"args":{}}' \
	    '{"name":"cpu 0","ph":"C","ts":"1","pid":1,"tid":0,"args":{"e":1}}' \
	    '{"name":"cpu 0","ph":"C","ts":1,"tid":0,"args":{"e":1}}' \
	    '{"name":"thread_name","ph":"M","ts":1,"pid":1,"tid":0,"args":{}}' \
	    '{"name":"exit","ph":"i","ts":1,"pid":1,"tid":0,"s":"x","args":{}}' \
	    '{"name":"cpu 0","ph":"C","ts":5,"pid":1,"tid":0,"args":{"e":1}},
	     {"name":"cpu 0","ph":"C","ts":4,"pid":1,"tid":0,"args":{"e":1}}'; do
		printf '[%s,\n%s]\n' "$good" "$bad" >"$T/t"
		run "$PY" "$CHECK" "$T/t"
		[ "$status" -eq 1 ] || { echo "took: $bad"; false; }
	done
	# Not closed: a whole document is wanted unless --cut says otherwise.
	printf '[%s,\n' "$good" >"$T/t"
	run "$PY" "$CHECK" "$T/t"
	[ "$status" -ne 0 ]
	"$PY" "$CHECK" --cut "$T/t"
}
