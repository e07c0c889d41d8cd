#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# The BPF engine attached to a running process (-p): it counts the
# threads that exist from the attach on, and threads made later, exactly
# as perf stat --per-thread; it counts a process that strace traces,
# where ptrace cannot go; the target runs on, untraced.

load bpf_helper

setup() {
	bd_setup
	mkfifo "$T/gate"
}

teardown() {
	exec 7>&- 2>/dev/null || true
	ct_teardown
}

# Start wl_gate N K BEFORE with its gate on $T/gate; sets TPID once it
# is ready (its threads made BEFORE writes each, and wait).
start_gated() {
	"$W/wl_gate" "$@" <"$T/gate" >"$T/target.out" &
	TPID=$!
	ct_bg "$TPID"
	exec 7>"$T/gate"
	wait_line "$T/target.out" '^ready$'
}

# Attach bpfdrive to $TPID in the background; waits for its first line.
start_attached() {
	local try
	for try in $(seq 10); do
		"$D" -p "$TPID" "$@" >"$T/out" 2>"$T/err" &
		DPID=$!
		ct_bg "$DPID"
		wait_line "$T/out" '^create' && return 0
		wait "$DPID" || true
		counters_taken || return 1
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 10 tries
	done
	return 1
}

open_gate() {
	echo >&7
	exec 7>&-
}

# Wait for the background bpfdrive; sets status.
wait_drive() {
	status=0
	wait "$DPID" || status=$?
}

# retry_taken SCENARIO: run the function SCENARIO, which starts a target
# and bpfdrive and waits for it, and again (up to 5 times, afresh) if a
# cpustat elsewhere took or invalidated the counters meanwhile.
retry_taken() {
	local try
	for try in 1 2 3 4 5; do
		"$1"
		counters_taken || return 0
		ct_teardown
		CT_PIDS=()
		CT_STARTS=()
		rm -f "$T/gate"
		mkfifo "$T/gate"
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 5 tries
	done
}

found_scenario() {
	start_gated 3 1000 500
	start_attached -c "$WRITE"
	open_gate
	wait_drive
}

@test "-p: the threads found count from the attach only, exactly K each" {
	retry_taken found_scenario
	[ "$status" -eq 0 ]
	# The leader first, the others as found.
	[ "$(bd_rows create | sed -n 1p)" = "$TPID $TPID first" ]
	[ "$(bd_rows create | awk '$3 == "found"' | wc -l)" -eq 3 ]
	[ ! -s "$T/err" ]
	# 500 writes each before the attach are not counted, 1000 after are.
	[ "$(bd_lwp_exits "$TPID" | awk -v p="$TPID" '$1 != p { print $2 }' |
	    sort -u)" = 1000 ]
	[ "$(bd_total "$TPID")" -eq 3000 ]
	[ "$(bd_rows exit)" = "$TPID 0" ]
}

perf_scenario() {
	start_gated 4 700 300
	start_attached -c "$WRITE"
	perf_stat_bg "$TPID" "$T/perf" --per-thread -x, -e "$WRITE"
	open_gate
	wait_drive
	wait "$PERF_PID" || true
}

@test "-p: per thread, the same counts as perf stat --per-thread -p, side by side" {
	command -v perf >/dev/null || skip "perf is not installed"
	retry_taken perf_scenario
	[ "$status" -eq 0 ]
	diff <(awk -F, -v e="$WRITE" '$4 == e {
	    n = split($1, a, "-"); print a[n], $2 }' "$T/perf" | sort) \
	    <(bd_lwp_exits "$TPID" | sort)
	[ "$(bd_total "$TPID")" -eq 2800 ]
}

spawner_scenario() {
	"$W/wl_spawner" 2 40 >"$T/target.out" &
	TPID=$!
	ct_bg "$TPID"
	wait_line "$T/target.out" '^ready$'
	start_attached -N 3 -T 200 -c "$WRITE"
	wait_drive
}

@test "-p: threads made after the attach are counted whole, from their start" {
	retry_taken spawner_scenario
	[ "$status" -eq 0 ]
	# Every short thread created after the attach wrote exactly 40.
	[ "$(bd_rows create | awk '$3 == "new"' | wc -l)" -gt 5 ]
	[ "$(bd_rows create | awk '$3 == "new" { print $2 }' | sort -n |
	    sed -n 1p)" -gt 0 ]
	bd_rows create | awk '$3 == "new" { print $2 }' | sort >"$T/new"
	bd_lwp_exits "$TPID" | sort >"$T/ends"
	# (Shown if the next check fails: the rows of threads that are off.)
	join "$T/new" "$T/ends" | awk '$2 != 40 { print $1 }' | head -3 |
	    while read -r tid; do grep -E " $tid( |$)" "$T/out"; done
	[ "$(join "$T/new" "$T/ends" | awk '$2 != 40' | wc -l)" -eq 0 ]
	[ "$(join "$T/new" "$T/ends" | wc -l)" -gt 5 ]
	# The target runs on, untraced.
	assert_free "$TPID"
}

strace_scenario() {
	start_gated 2 600 100
	strace -f -o /dev/null -p "$TPID" 2>"$T/strace.err" &
	spid=$!
	ct_bg "$spid"
	wait_for traced_by "$TPID" "$spid"
	# cputrack's ptrace engine must refuse it.
	ct_run -p "$TPID" -c "$WRITE"
	[ "$status" -ne 0 ]
	start_attached -c "$WRITE"
	open_gate
	wait_drive
}

@test "-p: a process that strace traces is counted, exactly; the ptrace engine cannot" {
	command -v strace >/dev/null || skip "strace is not installed"
	retry_taken strace_scenario
	[ "$status" -eq 0 ]
	[ "$(bd_lwp_exits "$TPID" | awk -v p="$TPID" '$1 != p { print $2 }' |
	    sort -u)" = 600 ]
	[ "$(bd_total "$TPID")" -eq 1200 ]
}

@test "a command started under strace -f, followed with -f -e: the traced child's counts are exact" {
	command -v strace >/dev/null || skip "strace is not installed"
	bd_run -f -e -c "$WRITE" strace -f -o /dev/null "$W/wl_threads" 3 400
	[ "$status" -eq 0 ]
	# strace's child that execs the workload (strace forks probes first).
	child=$(bd_rows exec | awk -v w="'$W/wl_threads" 'index($4, w) == 1 {
	    print $1 }')
	[ -n "$child" ]
	[ "$(bd_lwp_exits "$child" | awk -v p="$child" '$1 != p { print $2 }' |
	    sort -u)" = 400 ]
	[ "$(bd_total "$child")" -eq 1200 ]
}

@test "-p: ending early (-N) lets the target run on, untraced and not stopped" {
	"$W/wl_idle" 3 5 >"$T/target.out" &
	TPID=$!
	ct_bg "$TPID"
	wait_line "$T/target.out" '^ready$'
	bd_run -N 2 -T 100 -p "$TPID" -c "$WRITE"
	[ "$status" -eq 0 ]
	[ "$(bd_count create)" -eq 4 ]
	[ "$(bd_count tick)" -eq 8 ]
	# Idle since before the attach: nothing counted.
	[ "$(bd_rows tick | awk '{ print $4 }' | sort -u)" = 0 ]
	assert_free "$TPID"
	running "$TPID"
}

@test "-p: no such process, a thread id, one line each" {
	bd_run -p 999999999 -c "$WRITE"
	[ "$status" -eq 1 ]
	[ "$stderr" = "bpfdrive: pid 999999999: no such process" ]
	"$W/wl_idle" 1 0 >"$T/target.out" &
	TPID=$!
	ct_bg "$TPID"
	wait_line "$T/target.out" '^ready$'
	tid=$(ls "/proc/$TPID/task" | grep -vx "$TPID" | head -1)
	bd_run -p "$tid" -c "$WRITE"
	[ "$status" -eq 1 ]
	[ "$stderr" = "bpfdrive: pid $tid is a thread of process $TPID, not a process" ]
}
