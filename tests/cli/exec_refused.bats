#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# A run that starts no command takes execve(2) away from itself once it
# counts (cmd/common/exec_refuse.c): cputrack -p and cpustat run under a
# seccomp filter of their own (Seccomp: 2, NoNewPrivs: 1), and what they
# count is not touched by it. A run that starts a command keeps exec, and
# its command runs as it would alone.
load cputrack_helper

setup() {
	ct_setup
	ensure_tracefs
}

teardown() {
	ct_teardown
}

# status_line PID FIELD: FIELD's value in /proc/PID/status.
status_line() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# filtered PID: every thread of PID runs under a seccomp filter, with
# no_new_privs.
filtered() {
	local task
	for task in /proc/"$1"/task/*; do
		[ "$(status_line "$1/task/${task##*/}" Seccomp)" = 2 ] &&
		    [ "$(status_line "$1/task/${task##*/}" NoNewPrivs)" = 1 ] ||
		    return 1
	done
}

@test "cputrack -p: counting, it runs under its own filter; the target is untouched and goes on after it ends" {
	start_target "$W/wl_idle" 1 10
	bg_until ' tick ' "$CT" -T 0.2 -c task-clock -p "$TPID"
	filtered "$CPID" ||
	    { grep -E '^(Seccomp|NoNewPrivs):' /proc/"$CPID"/task/*/status; false; }
	[ "$(status_line "$TPID" Seccomp)" = 0 ]
	[ "$(status_line "$TPID" NoNewPrivs)" = 0 ]
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	running "$TPID"
	end_bg "$TPID"
}

@test "cputrack COMMAND: no filter, on cputrack or on what its command execs" {
	bg_until ' tick ' "$CT" -f -e -T 0.2 -c "$WRITE" sh -c \
	    'sh -c "echo x" >/dev/null; exec sleep 30'
	[ "$(status_line "$CPID" Seccomp)" = 0 ]
	local child
	wait_for pgrep -P "$CPID" -x sleep
	child=$(pgrep -P "$CPID" -x sleep)
	[ "$(status_line "$child" Seccomp)" = 0 ]
	[ "$(status_line "$child" NoNewPrivs)" = 0 ]
	end_bg "$CPID"
}

@test "cpustat: counting, it runs under its own filter" {
	bg_until ' tick ' "$CPUSTAT" -c task-clock 0.2
	filtered "$CPID" ||
	    { grep -E '^(Seccomp|NoNewPrivs):' /proc/"$CPID"/task/*/status; false; }
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
}
