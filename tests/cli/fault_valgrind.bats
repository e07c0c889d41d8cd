#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# valgrind memcheck: a threaded-workload cputrack run and a cpustat run,
# no errors and no leaks. valgrind runs the command; cputrack's ptrace of
# its target works under it (the target itself, after its exec, runs
# natively: valgrind does not follow children by default).

load cputrack_helper

VG=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect
    --error-exitcode=99)

setup() {
	ct_setup
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	# A sanitizer build cannot run under valgrind.
	if ldd "$CT" | grep -qE 'libasan|libubsan' ||
	    grep -q __asan_init "$CT"; then
		skip "sanitizer build: valgrind cannot run it"
	fi
}

teardown() {
	ct_teardown
}

# vg_run ARGS...: valgrind ARGS, once the counters are free (again if a
# cpustat elsewhere took them). Sets status, output and stderr.
vg_run() {
	local try
	for try in $(seq 10); do
		run --separate-stderr timeout -k 5 300 "${VG[@]}" "$@"
		[[ "$stderr" == *"Resource temporarily unavailable"* ]] ||
			[[ "$stderr" == *"contents invalidated"* ]] || return 0
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 10 tries
	done
}

@test "valgrind: cputrack on 8 threads with ticks, two sets, -f -e: no errors, no leaks" {
	# Writes enough for several ticks, so that both sets take turns: a
	# run over before its first tick would count set 0 alone.
	vg_run "$CT" -f -e -T 0.02 -c "$WRITE,task-clock" -c page-faults,sys \
	    "$W/wl_threads" 8 100000 100
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(grep -c ' lwp_exit ' <<<"$output")" -ge 8 ]
	grep -qE '^ +[0-9.]+ +[0-9]+ +1 +exit ' <<<"$output"
	# Set 1's turn: a tick, or a gap where valgrind's pace made the run
	# late by more than an interval.
	grep -qE ' (tick .*# page-faults,sys|gap .*# page-faults,sys; [0-9]+ intervals)$' \
	    <<<"$output"
}

@test "valgrind: cputrack -p of a threaded process, ended by SIGINT: no errors, no leaks" {
	"$W/wl_idle" 4 10 >"$T/idle" &
	local target=$!
	ct_bg "$target"
	wait_file "$T/idle"
	timeout -k 5 300 "${VG[@]}" "$CT" -T 0.05 -c "$WRITE" -p "$target" \
	    >"$T/out" 2>"$T/err" &
	local vg=$!
	ct_bg "$vg"
	wait_while "$vg" grep -q ' tick ' "$T/out"
	kill -INT "$vg"
	local rc=0
	wait "$vg" || rc=$?
	cat "$T/err"
	[ "$rc" -eq 0 ]
	[ ! -s "$T/err" ]
	grep -q ' tick ' "$T/out"
	assert_free "$target"
}

@test "valgrind: cpustat, two sets with the soaker, every CPU: no errors, no leaks" {
	# Long enough intervals that a CPU's thread, slow to start under
	# valgrind, still counts both sets: else their totals are partial,
	# rightly, and the status 1.
	vg_run "$CPUSTAT" -s -c task-clock -c page-faults,sys 0.5 10
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *" total "* ]]
}
