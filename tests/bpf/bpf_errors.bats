#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# When the BPF engine cannot run, one line says why and the status is 2:
# no privilege (CAP_BPF and CAP_PERFMON are enough without root), or a
# cpustat that holds CPUs (exclusivity, as for the ptrace engine); a
# cpustat that starts later invalidates the counts.

load bpf_helper

setup() {
	bd_setup
}

teardown() {
	ct_teardown
}

# Wait until a cpustat holds the counters.
wait_cpustat_holds() {
	local i
	for i in $(seq 100); do
		[ -e /run/cpctools/any.lock ] &&
		    ! flock -n -x /run/cpctools/any.lock true 2>/dev/null &&
		    return 0
		sleep 0.1
	done
	return 1
}

@test "not root and no capabilities: one line naming what is needed, exit 2" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	status=0
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	    "$(nobody_path "$D")" -c task-clock "$W/wl_threads" 1 1 >"$T/out" 2>"$T/err" ||
	    status=$?
	[ "$status" -eq 2 ]
	[ ! -s "$T/out" ]
	[ "$(cat "$T/err")" = "bpfdrive: the BPF engine needs CAP_BPF and CAP_PERFMON (or root)" ]
}

@test "CAP_BPF and CAP_PERFMON without root are enough" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	ct_wait_counters
	status=0
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
	    "$(nobody_path "$D")" -c page-faults "$(nobody_path "$W/wl_threads")" 2 10 >"$T/out" 2>"$T/err" ||
	    status=$?
	counters_taken && skip "a cpustat elsewhere held the counters"
	[ "$status" -eq 0 ]
	[ "$(bd_count lwp_exit)" -eq 3 ]
	[ "$(bd_rows exit_total | awk '{ print $3 }')" -gt 0 ]
}

@test "a cpustat holding CPUs: refused with EAGAIN, one line, exit 2" {
	ct_wait_counters
	"$CPUSTAT" -c task-clock 0.2 100 >/dev/null 2>&1 &
	cs=$!
	ct_bg "$cs"
	wait_cpustat_holds
	status=0
	"$D" -c "$WRITE" "$W/ct_marker" "$T/ran" >"$T/out" 2>"$T/err" ||
	    status=$?
	[ "$status" -eq 2 ]
	[ "$(cat "$T/err")" = "bpfdrive: cannot count per LWP while CPUs are bound (cpustat) - Resource temporarily unavailable" ]
	# The command never started.
	[ ! -e "$T/ran" ]
}

# Start bpfdrive ticking on a steady command; sets DP once it ticked, and
# starts again (up to 5 times) if a cpustat elsewhere took the counters.
start_ticking() {
	local try i
	for try in 1 2 3 4 5; do
		ct_wait_counters
		"$D" -T 100 -c "$WRITE" "$W/ct_steady" 1 10 20 0 >"$T/out" \
		    2>"$T/err" &
		DP=$!
		ct_bg "$DP"
		for i in $(seq 100); do
			grep -q '^tick' "$T/out" && return 0
			kill -0 "$DP" 2>/dev/null || break
			sleep 0.1
		done
		counters_taken || return 1
		wait "$DP" || true
	done
	return 1
}

@test "a cpustat that starts later invalidates the counts: the tick says so, exit 1" {
	start_ticking
	"$CPUSTAT" -c task-clock 0.2 10 >/dev/null 2>&1 &
	ct_bg $!
	status=0
	wait "$DP" || status=$?
	[ "$status" -eq 1 ]
	grep -qx "bpfdrive: .*perf counter contents invalidated" "$T/err"
}

@test "in a pid namespace of its own: refused, one line, exit 2" {
	command -v unshare >/dev/null || skip "unshare is not installed"
	ct_wait_counters
	status=0
	timeout 60 unshare -p -f --mount-proc "$D" -c task-clock \
	    "$W/ct_marker" "$T/ran" >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 2 ]
	[ "$(cat "$T/err")" = "bpfdrive: the BPF engine runs only in the initial pid namespace (this one is a container's)" ]
	[ ! -e "$T/ran" ]
}
