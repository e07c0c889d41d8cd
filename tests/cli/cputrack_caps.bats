#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# A cputrack given cap_perfmon with setcap, run by an unprivileged user:
# it starts commands and captures the user's processes, and counts what
# CAP_PERFMON allows (kernel mode too), as the man page says; without
# the capability the same request is refused before anything starts.

load cputrack_helper

setup() {
	ct_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root to set file capabilities and become nobody"
	command -v setcap >/dev/null || skip "setcap is not installed"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	# A copy nobody may run, in a directory nobody may read.
	CAPDIR=$(mktemp -d /tmp/cputrack-caps.XXXXXX)
	chmod 0755 "$CAPDIR"
	cp "$CT" "$CAPDIR/cputrack"
	cp "$W/wl_threads" "$W/wl_idle" "$CAPDIR/"
	chmod 0755 "$CAPDIR"/*
	mkdir -m 0755 "$CAPDIR/nocap"
	cp "$CT" "$CAPDIR/nocap/cputrack"
	chmod 0755 "$CAPDIR/nocap/cputrack"
	setcap cap_perfmon+ep "$CAPDIR/cputrack" 2>/dev/null ||
		skip "file capabilities cannot be set here"
	PARANOID=$(cat /proc/sys/kernel/perf_event_paranoid)
}

teardown() {
	ct_teardown
	rm -rf "${CAPDIR:-/nonexistent}"
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

@test "setcap cap_perfmon: nobody's cputrack starts a command and counts kernel-mode cs per LWP; exit 0" {
	[ "$PARANOID" -ge 2 ] || skip "kernel.perf_event_paranoid=$PARANOID lets anyone count kernel mode"
	local rc=0
	as_nobody timeout 300 "$CAPDIR/cputrack" -T 0.2 -c task-clock,cs \
	    "$CAPDIR/wl_threads" 2 1000000 >"$T/out" 2>"$T/err" || rc=$?
	grep -q 'CAP_PERFMON is unknown\|Invalid argument' "$T/err" && skip "this kernel has no CAP_PERFMON: $(head -1 "$T/err")"
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	[ ! -s "$T/err" ]
	# Each thread counted its own time and switches.
	[ "$(awk '$3 == "lwp_exit" && $4 > 0 && $5 > 0' "$T/out" | wc -l)" -eq 2 ]
	[ "$(awk '$3 == "exit"' "$T/out" | wc -l)" -eq 1 ]
	# The same request without the capability is refused up front.
	rc=0
	as_nobody timeout 60 "$CAPDIR/nocap/cputrack" -c task-clock,cs \
	    "$CAPDIR/wl_threads" 2 1000 >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 2 ]
	[ ! -s "$T/out" ]
	grep -q '^cputrack: cs: Permission denied: it counts kernel mode' "$T/err"
}

@test "setcap cap_perfmon: nobody's cputrack captures nobody's process with -p, and lets it run on" {
	# Not through a function ($! would be a subshell's) and through a
	# shell: the first exec after setpriv leaves a program undumpable.
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    sh -c 'exec "$0" 2 30' "$CAPDIR/wl_idle" >"$T/target.out" 2>&1 &
	local tpid=$!
	ct_bg "$tpid"
	local i
	for i in $(seq 100); do
		grep -q '^ready$' "$T/target.out" && break
		sleep 0.1
	done
	local rc=0
	as_nobody timeout 60 "$CAPDIR/cputrack" -N 2 -T 0.2 -p "$tpid" \
	    -c task-clock >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_count tick)" -ge 2 ]
	assert_free "$tpid"
}
