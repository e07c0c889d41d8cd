#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# A BPF run counts CPUs alone, and opens no event on a thread, the test
# events of its checks included: on a machine where no thread is
# counted, the first event on a thread turns the kernel's switch hooks on
# and waits for an RCU grace period, which a start-up would pay for a
# test. Its checks open their events on a CPU, as it counts. A ptrace
# run counts threads, and checks on its own.

load bpf_helper

setup() {
	bd_setup
	command -v strace >/dev/null ||
	    skip "strace is not installed (scripts/deps installs it)"
}

teardown() {
	ct_teardown
}

# traced_run ENGINE: cputrack with ENGINE counting wl_threads (2 threads
# of 5 writes each) under strace, which logs its perf_event_open calls
# to $T/trace.*, one file per thread, so that no call is cut in two by
# another's; its rows in $T/out. strace follows what cputrack starts only
# for the BPF engine: the ptrace engine traces it itself.
traced_run() {
	local follow=(-ff -o "$T/trace")
	[ "$1" = bpf ] || follow=(-o "$T/trace.0")
	ASAN_OPTIONS=$(asan_under_ptrace) strace "${follow[@]}" -qq \
	    -e trace=perf_event_open \
	    "$CPUTRACK" --engine="$1" -c "task-clock,$WRITE" \
	    "$W/wl_threads" 2 5 >"$T/out" 2>"$T/err" ||
	    { cat "$T/err"; false; }
}

# opened_on WHERE: the events strace saw opened on a thread (pid 0 or a
# pid: WHERE thread) or on a CPU (pid -1: WHERE cpu), one line each.
opened_on() {
	local pid='(0|[1-9][0-9]*)'
	[ "$1" = cpu ] && pid=-1
	cat "$T"/trace.* |
	    grep -E "perf_event_open\\(.*\\}, $pid, -?[0-9]+, -?[0-9]+, [A-Z_|]+\\) = [0-9]+\$" || true
}

@test "a BPF run opens every event on a CPU, its checks' too, and counts exactly" {
	traced_run bpf
	[ -z "$(opened_on thread)" ] ||
	    { opened_on thread; false; }
	# A counter per CPU, and the checks' besides.
	[ "$(opened_on cpu | wc -l)" -gt "$(nproc)" ]
	[ "$(awk '$3 == "lwp_exit" { print $5 }' "$T/out" | sort | uniq -c |
	    awk '{ print $1, $2 }')" = "2 5" ] || { cat "$T/out"; false; }
}

@test "a ptrace run opens its events on threads, its checks' too" {
	traced_run ptrace
	[ -n "$(opened_on thread)" ]
	[ -z "$(opened_on cpu)" ] ||
	    { opened_on cpu; false; }
	[ "$(awk '$3 == "lwp_exit" { print $5 }' "$T/out" | sort | uniq -c |
	    awk '{ print $1, $2 }')" = "2 5" ] || { cat "$T/out"; false; }
}
