#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# cputrack --tid: only the named threads, of one process or several,
# counted exactly, each its own LWP; the threads they or others make are
# not; an exec ends them; a signal lets every target go with a last tick
# row; bad lists and what --tid cannot be given with. Every target is
# checked to run on, untraced and not stopped.

load cputrack_helper

setup() {
	ct_setup
	ensure_tracefs
}

teardown() {
	ct_teardown
}

# nth_tid PID N: the Nth thread of PID, in the order the kernel made them:
# /proc lists a process's threads in that order (as cputrack numbers its
# LWPs), while their ids wrap at pid_max and sort in no useful order.
nth_tid() {
	ls -U "/proc/$1/task" | sed -n "$2p"
}

# csv_rows LABEL: "pid lwp tid value" of the CSV rows in $T/out labelled
# LABEL, sorted (the counted event is the only one).
csv_rows() {
	awk -F, -v want="$1" '$7 == want { print $2, $3, $4, $12 }' "$T/out" |
	    sort -n | tr '\n' ' '
}

@test "--tid: only the named threads of a process, each its own LWP, exact; the others uncounted; the run ends with the last named one" {
	local t2 t4
	gate_open
	CT_STDIN=$T/gate start_target "$W/wl_gate" 3 10 5
	wait_line "$T/target.out" '^ready$'
	t2=$(nth_tid "$TPID" 2)
	t4=$(nth_tid "$TPID" 4)
	# Once both named LWPs count (-v: their init_lwp rows), the gate
	# opens: each worker writes 10, the third too, uncounted.
	start_cputrack_until ',init_lwp,' -v --format=csv -T 0.1 \
	    --tid="$t2,$t4" -c "$WRITE"
	wait_rows_until 'BEGIN { FS = "," } $7 == "init_lwp" { n++ } END { exit n != 2 }'
	gate_release
	wait_cputrack
	[ "$status" -eq 0 ]
	[ -z "$(cat "$T/err")" ]
	# LWPs numbered as for -p: the leader 1, the workers 2, 3, 4.
	[ "$(csv_rows lwp_exit)" = "$TPID 2 $t2 10 $TPID 4 $t4 10 " ]
	[ "$(csv_rows init_lwp)" = "$TPID 2 $t2 0 $TPID 4 $t4 0 " ]
	# No row of any other thread, nor of the process.
	[ "$(awk -F, -v a="$t2" -v b="$t4" \
	    'NR > 1 && $7 != "meta" && $4 != a && $4 != b' "$T/out" | wc -l)" -eq 0 ]
	# The ticks (a gap row among them holds several intervals) hold no
	# more than the named threads wrote.
	[ "$(awk -F, '$7 == "tick" || $7 == "gap" { s += $12 }
	    END { print s + 0 }' "$T/out")" -le 20 ]
}

@test "--tid: the threads a named thread makes later are not counted; -N lets the process go, running on" {
	local t2
	start_target "$W/wl_spawner" 2 5
	wait_line "$T/target.out" '^ready$'
	t2=$(nth_tid "$TPID" 2)
	ct_run -N 3 -T 0.1 --tid "$t2" -c "$WRITE"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# The spawner makes a thread that writes 5 over and over, and
	# writes nothing itself: its rows alone, every one 0.
	[ "$(ct_count tick)" -ge 1 ]
	# Shown if the case fails.
	cat "$T/out"
	[ "$(ct_rows tick | sort -u | tr '\n' ' ')" = "2 0 " ]
	run ! grep -qE ' (lwp_create|lwp_exit|exit) ' "$T/out"
	assert_free "$TPID"
	kill -TERM "$TPID"
	local rc=0
	wait "$TPID" || rc=$?
	[ "$rc" -eq $((128 + 15)) ]
}

@test "--tid of threads of two processes, given as a list and again: each counted exactly, with the pid column" {
	local a b ga gb ta tb
	start_gated a "$W/wl_gate" 2 10
	a=$TPID ga=$GATE
	start_gated b "$W/wl_gate" 1 20
	b=$TPID gb=$GATE
	wait_line "$T/a.out" '^ready$'
	wait_line "$T/b.out" '^ready$'
	ta=$(nth_tid "$a" 3)
	tb=$(nth_tid "$b" 2)
	start_cputrack_until ' init_lwp ' -v -T 0.1 --tid="$ta" --tid="$tb" \
	    -c "$WRITE"
	wait_rows_until '$4 == "init_lwp" { n++ } END { exit n != 2 }'
	head -n 1 "$T/out" | grep -qE '^ +time +pid +lwp +event '
	echo >&"$ga"
	echo >&"$gb"
	wait_cputrack
	[ "$status" -eq 0 ]
	[ -z "$(cat "$T/err")" ]
	[ "$(ct_rows -f lwp_exit | sort -n | tr '\n' ' ')" = \
	    "$(printf '%s\n' "$a 3 10" "$b 2 20" | sort -n | tr '\n' ' ')" ]
	# a's other worker wrote 10 too, uncounted.
	[ "$(ct_rows -f tick | awk -v a="$a" -v b="$b" \
	    '!($1 == a && $2 == 3) && !($1 == b && $2 == 2)' | wc -l)" -eq 0 ]
}

@test "--tid ended by SIGINT, SIGTERM or SIGHUP: exit 0, a last tick row of the named thread, the process runs on untraced" {
	local t3
	gate_open
	CT_STDIN=$T/gate start_target "$W/wl_steps" 3 10
	threads "$TPID" 4
	t3=$(nth_tid "$TPID" 3)
	# Each of the 3 workers writes 10 a step: 60 in all.
	signals_between_ticks 60 "3 20 " --tid="$t3"
	gate_send q
	gone "$TPID"
}

# comm_is PID NAME: process PID's command name is NAME.
comm_is() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

@test "--tid: an exec ends the named thread's count with the exec rows; exit 0, the new program runs on untraced" {
	gate_open
	CT_STDIN=$T/gate start_target sh -c \
	    'read x; echo x >/dev/null; exec "$0" 0 0' "$W/wl_idle"
	# Once the shell runs (the fork is not yet the shell before).
	wait_for comm_is "$TPID" sh
	start_cputrack_until ',init_lwp,' -v --format=csv -T 60 \
	    --tid="$TPID" -c "$WRITE"
	gate_release
	wait_cputrack
	[ "$status" -eq 0 ]
	[ -z "$(cat "$T/err")" ]
	# The shell's one write (echo), then the marker with the new program.
	[ "$(awk -F, '$7 == "exec" && $15 == "" { print $3, $4, $12 }' "$T/out")" = "1 $TPID 1" ]
	awk -F, '$7 == "exec" && $15 != "" { print $15 }' "$T/out" | grep -q 'wl_idle 0 0'
	run ! grep -qE ',(exit|lwp_exit|tick),' "$T/out"
	wait_line "$T/target.out" '^ready$'
	assert_free "$TPID"
}

@test "--tid values and lists: usage errors naming the token and why" {
	local v
	for v in abc 0 -5 1x ""; do
		ct_run --tid="$v" -c "$WRITE"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$stderr" = "cputrack: invalid tid '$v'" ]
	done
	ct_run --tid=12,,34 -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: invalid tid '' in '12,,34' (empty)" ]
	ct_run --tid=12,0 -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: invalid tid '0' in '12,0' (a tid is 1 or more)" ]
	ct_run --tid=12,x3 -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: invalid tid 'x3' in '12,x3' (not a number)" ]
	ct_run --tid=12,99999999999 -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: invalid tid '99999999999' in '12,99999999999' (too large)" ]
	ct_run --tid=12,34 --tid=12 -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: tid 12 is listed twice" ]
}

@test "--tid with -p, a command, --cgroup, -f, -e or --pass-status: one line saying so, exit 2" {
	ct_run --tid=1 -p 1 -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --tid and -p cannot be given together" ]
	ct_run --tid=1 -c "$WRITE" true
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --tid and a command ('true') cannot be given together" ]
	ct_run --tid=1 --cgroup=/ -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --tid and --cgroup cannot be given together" ]
	ct_run -f --tid=1 -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --tid and -f cannot be given together: --tid counts threads, -f follows processes" ]
	ct_run -e --tid=1 -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --tid and -e cannot be given together: an exec ends the named threads" ]
	ct_run --pass-status --tid=1 -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --pass-status needs a command to start, not --tid" ]
	[ -z "$output" ]
}

@test "--tid of a thread that does not exist: refused before anything counts, exit 1; the other named process is left untraced" {
	start_target "$W/wl_idle" 2 0
	wait_line "$T/target.out" '^ready$'
	ct_run -T 0.1 --tid="$(nth_tid "$TPID" 2),999999" -c "$WRITE"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: tid 999999 doesn't exist
cputrack: failed to capture tid 999999" ]
	assert_free "$TPID"
}

@test "--tid of a thread of a process another tracer holds (ptrace): refused naming the thread and the tracer, exit 1; the others untraced" {
	[ "$ENGINE" = ptrace ] || skip "the BPF engine counts a traced process without tracing it"
	local a b holder tb
	start_target "$W/wl_idle" 1 0
	a=$TPID
	wait_line "$T/target.out" '^ready$'
	"$W/wl_idle" 1 0 >"$T/b.out" 2>&1 </dev/null &
	b=$!
	ct_bg "$b"
	wait_line "$T/b.out" '^ready$'
	"$CT" -T 0 -p "$b" -c "$WRITE" >"$T/holder.out" 2>&1 </dev/null &
	holder=$!
	ct_bg "$holder"
	wait_while "$holder" traced_by "$b" "$holder"
	tb=$(nth_tid "$b" 2)
	ct_run -T 0.1 --tid="$(nth_tid "$a" 2),$tb" -c "$WRITE"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: pid $b is already being traced
cputrack: failed to capture tid $tb (pid $b)
cputrack: pid $b is traced by pid $holder (cputrack), and a process has one tracer: --engine=bpf counts it without tracing it" ]
	assert_free "$a"
	[ "$(tracer_of "$b")" = "$holder" ]
}
