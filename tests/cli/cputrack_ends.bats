#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# Every thread's totals, however its process ends: a process that ends
# with threads alive (its exit, a fatal signal, SIGKILL, an exec by one of
# them) has an lwp_exit row for each, with exactly what it counted, and
# its exit (or exec) totals are their sum. A process whose end takes one
# thread has Solaris's rows: its exit row alone. Run under both engines
# (tests/bpf runs this file with --engine=bpf).

load cputrack_helper

setup() {
	ct_setup
}

teardown() {
	ct_teardown
}

# ends HOW: wl_idle 3 50 HOW under cputrack; four LWPs make 50 writes
# each, and LWP 1 one more ("ready"): 50 50 50 51, 201 in all.
ends() {
	ct_run -T 0 -c "$WRITE" "$W/wl_idle" 3 50 "$1"
	[ "$status" -eq 0 ]
	[ "$(ct_rows lwp_exit | sort -n)" = "$(printf '%s\n' '1 51' '2 50' '3 50' '4 50')" ]
	[ "$(ct_rows exit)" = "1 201" ]
	# The LWPs' rows come first, then the process's.
	[ "$(awk '$1 ~ /^[0-9.]+$/ && $3 != "lwp_create" { print $3 }' "$T/out" | uniq)" = "$(printf '%s\n' lwp_exit exit)" ]
}

@test "exit(0) with three threads alive: each of them ends with a row of its own, and the exit row holds LWP 1's counts besides" {
	# exit(0) ends the other threads as if each left on its own (the
	# kernel gives each status 0): their rows come as they go, and LWP 1,
	# the last, is the exit row's, as when its threads ended before it.
	ct_run -T 0 -c "$WRITE" "$W/wl_idle" 3 50 exit
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(ct_rows lwp_exit | sort -n)" = "$(printf '%s\n' '2 50' '3 50' '4 50')" ]
	[ "$(ct_rows exit)" = "1 201" ]
}

@test "killed by SIGTERM with every thread alive: each thread's totals, the sum, the signal said" {
	ends TERM
	[[ $stderr =~ ^cputrack:\ [0-9]+:\ process\ terminated:\ killed\ by\ SIGTERM$ ]]
}

@test "SIGKILL: each thread's totals and their sum all the same" {
	ends KILL
	[[ $stderr =~ ^cputrack:\ [0-9]+:\ process\ terminated:\ killed\ by\ SIGKILL$ ]]
}

@test "an exec by a thread that is not the leader: each of the two threads' totals, then the exec totals, their sum" {
	ct_run -T 0 -e -c "$WRITE" "$W/wl_nonleader_exec" 7 "$W/wl_threads" 1 3
	[ "$status" -eq 0 ]
	# The old image: two LWPs of 7 writes each, ended by the exec.
	[ "$(awk '$3 == "exec" && NF == 4 { print $4 }' "$T/out")" = 14 ]
	[ "$(awk '$3 == "lwp_exit" { print $2, $4 }' "$T/out" | head -2 | sort)" = "$(printf '%s\n' '1 7' '2 7')" ]
	# The new image: a thread of its own that exits alone, then LWP 1.
	[ "$(awk '$3 == "lwp_exit" { print $2, $4 }' "$T/out" | tail -1)" = "2 3" ]
	[ "$(ct_rows exit)" = "1 3" ]
}

@test "a process whose threads ended before it: their rows as they ended, and the exit row alone (Solaris's rows)" {
	ct_run -T 0 -c "$WRITE" "$W/wl_threads" 2 5 4
	[ "$status" -eq 0 ]
	[ "$(ct_rows lwp_exit | sort)" = "$(printf '%s\n' '2 5' '3 5')" ]
	[ "$(ct_rows exit)" = "1 14" ]
	[ "$(ct_count lwp_exit)" -eq 2 ]
}

@test "a single-threaded process killed by a signal: its exit row alone" {
	ct_run -T 0 -c "$WRITE" "$W/wl_idle" 0 9 TERM
	[ "$status" -eq 0 ]
	[ "$(ct_count lwp_exit)" -eq 0 ]
	[ "$(ct_rows exit)" = "1 10" ]
}
