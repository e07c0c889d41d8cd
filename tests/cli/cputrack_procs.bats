#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# cputrack and its target: -p attach and detach, signals, -N, an exec
# without -e, set-id and unreadable programs, and counting beside cpustat.
# Every target is checked to run on, untraced and not stopped.

load cputrack_helper

setup() {
	ct_setup
	ensure_tracefs
}

teardown() {
	ct_teardown
	if [ -n "${SHARED:-}" ]; then
		rm -rf "$SHARED"
	fi
}

@test "-p: attach to a multithreaded process, exact per-LWP writes; -N 3 detaches, exit 0" {
	start_target "$W/wl_idle" 3 5
	wait_line "$T/target.out" '^ready$'
	ct_run -N 3 -T 0.1 -p "$TPID" -c "$WRITE"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# 4 LWPs, a row each at each of the 3 ticks (an interval whose sample
	# time passed while cputrack could not run has none), all idle since
	# attach; no totals after -N.
	[[ "$(ct_count tick)" =~ ^(4|8|12)$ ]]
	[ "$(ct_rows tick | awk '{ print $1 }' | sort -u | tr '\n' ' ')" = "1 2 3 4 " ]
	[ "$(ct_rows tick | awk '$2 != 0' | wc -l)" -eq 0 ]
	[ "$(ct_count exit)" -eq 0 ]
	assert_free "$TPID"
	# Captured again: the first cputrack left nothing behind.
	ct_run -N 1 -T 0.1 -p "$TPID" -c "$WRITE"
	[ "$status" -eq 0 ]
	[ "$(ct_count tick)" -eq 4 ]
	assert_free "$TPID"
	# Signals still reach it as before: it dies of SIGTERM.
	kill -TERM "$TPID"
	local rc=0
	wait "$TPID" || rc=$?
	[ "$rc" -eq $((128 + 15)) ]
}

@test "-p: a capture counts from the attach; the target's writes per tick are exact" {
	# Two threads write 5 each, then wait at the gate; let through once
	# the capture has ticked, each writes 10 more and ends.
	gate_open
	CT_STDIN=$T/gate start_target "$W/wl_gate" 2 10 5
	wait_line "$T/target.out" '^ready$'
	start_cputrack_until ' tick ' -T 0.1 -p "$TPID" -c "$WRITE"
	gate_release
	wait_cputrack
	[ "$status" -eq 0 ]
	[ -z "$(cat "$T/err")" ]
	# What came before the attach is not counted; the ticks and the exit
	# rows hold the 10 after it, exactly.
	local n s
	for n in 2 3; do
		s=$(ct_rows tick | awk -v n=$n '$1 == n { s += $2 } END { print s + 0 }')
		[ "$s" -le 10 ]
		[ "$(ct_rows lwp_exit | awk -v n=$n '$1 == n { print $2 }')" -eq 10 ]
	done
	[ "$(ct_rows exit)" = "1 20" ]
}

@test "-p: a process whose threads come and go, captured, released and captured again" {
	start_target "$W/wl_spawner" 3 5
	wait_line "$T/target.out" '^ready$'
	local i
	for i in 1 2 3; do
		ct_run -N 3 -T 0.1 -p "$TPID" -c "$WRITE"
		[ "$status" -eq 0 ] || { cat "$T/err"; false; }
		[ "$(ct_count tick)" -ge 3 ]
		# A thread created under tracking that exited wrote exactly 5;
		# LWP ids are never reused.
		ct_rows lwp_create | awk '{ print $1 }' | sort >"$T/created"
		[ "$(uniq -d "$T/created" | wc -l)" -eq 0 ]
		[ "$(ct_rows lwp_exit | awk 'NR == FNR { c[$1]; next } ($1 in c) && $2 != 5' "$T/created" - | wc -l)" -eq 0 ]
		[ "$(ct_rows lwp_exit | awk 'NR == FNR { c[$1]; next } ($1 in c)' "$T/created" - | wc -l)" -ge 1 ]
		assert_free "$TPID"
	done
}

@test "-p: SIGINT, SIGTERM and SIGHUP end cputrack with 0, no totals, target runs on" {
	start_target "$W/wl_idle" 2 3
	wait_line "$T/target.out" '^ready$'
	local sig
	for sig in INT TERM HUP; do
		start_cputrack_until ' tick ' -T 0.1 -p "$TPID" -c "$WRITE"
		kill -"$sig" "$CPID"
		wait_cputrack
		[ "$status" -eq 0 ] || { echo "SIG$sig: $status"; cat "$T/err"; false; }
		[ -z "$(cat "$T/err")" ]
		run ! grep -qE ' (exit|lwp_exit) ' "$T/out"
		assert_free "$TPID"
	done
}

@test "-p ended by SIGINT, SIGTERM or SIGHUP between ticks: a last tick row holds what was counted since the last" {
	# Each of the 2 threads writes 10 a step: a row per LWP, the main
	# thread's none, each worker's 20.
	gate_open
	CT_STDIN=$T/gate start_target "$W/wl_steps" 2 10
	signals_between_ticks 40 "1 0 2 20 3 20 " -p "$TPID"
	gate_send q
	gone "$TPID"
}

# -p with a list: several processes in one run.

# pid_rows LABEL PID: "lwp value" of PID's rows labelled LABEL, by LWP.
pid_rows() {
	ct_rows -f "$1" | awk -v p="$2" '$1 == p { $1 = ""; print substr($0, 2) }' |
	    sort -n | tr '\n' ' '
}

@test "-p list: three processes in one run (a list, and -p again), each counted exactly, with the pid column; the run ends when the last exits" {
	local a b c ga gb gc
	start_gated a "$W/wl_gate" 1 10
	a=$TPID ga=$GATE
	start_gated b "$W/wl_gate" 2 20
	b=$TPID gb=$GATE
	start_gated c "$W/wl_gate" 3 30
	c=$TPID gc=$GATE
	wait_line "$T/a.out" '^ready$'
	wait_line "$T/b.out" '^ready$'
	wait_line "$T/c.out" '^ready$'
	# Once every LWP's counters are bound (-v: its init_lwp row), the
	# gates open: every write comes after.
	start_cputrack_until ' init_lwp ' -v -T 0.1 -p "$a,$b" -p "$c" -c "$WRITE"
	wait_rows_until '$4 == "init_lwp" { n++ } END { exit n != 9 }'
	echo >&"$ga"
	echo >&"$gb"
	echo >&"$gc"
	wait_cputrack
	[ "$status" -eq 0 ]
	[ -z "$(cat "$T/err")" ]
	head -n 1 "$T/out" | grep -qE '^ +time +pid +lwp +event '
	# Each worker wrote K, each process N * K, and nothing else counted.
	[ "$(pid_rows exit "$a")" = "1 10 " ]
	[ "$(pid_rows exit "$b")" = "1 40 " ]
	[ "$(pid_rows exit "$c")" = "1 90 " ]
	[ "$(pid_rows lwp_exit "$a")" = "2 10 " ]
	[ "$(pid_rows lwp_exit "$b")" = "2 20 3 20 " ]
	[ "$(pid_rows lwp_exit "$c")" = "2 30 3 30 4 30 " ]
	[ "$(ct_rows -f tick | awk -v a="$a" -v b="$b" -v c="$c" \
	    '$1 != a && $1 != b && $1 != c' | wc -l)" -eq 0 ]
}

@test "-p list ended by SIGINT or SIGTERM: every process runs on, untraced and not stopped, with a last tick row each of what was counted since the last" {
	local a b ga gb sig before_a before_b
	start_gated a "$W/wl_steps" 1 10
	a=$TPID ga=$GATE
	start_gated b "$W/wl_steps" 2 5
	b=$TPID gb=$GATE
	threads "$a" 2
	threads "$b" 3
	for sig in INT TERM; do
		# No tick comes in the minute: the signal ends it.
		start_cputrack_until ' init_lwp ' -v -T 60 -p "$a,$b" -c "$WRITE"
		wait_rows_until '$4 == "init_lwp" { n++ } END { exit n != 5 }'
		before_a=$(syscw "$a")
		before_b=$(syscw "$b")
		printf w >&"$ga"
		printf w >&"$gb"
		writes_past "$a" $((before_a + 9))
		writes_past "$b" $((before_b + 9))
		kill -"$sig" "$CPID"
		wait_cputrack
		[ "$status" -eq 0 ] || { echo "SIG$sig: $status"; cat "$T/err"; false; }
		[ -z "$(cat "$T/err")" ]
		[ "$(pid_rows tick "$a")" = "1 0 2 10 " ] || { echo "SIG$sig"; cat "$T/out"; false; }
		[ "$(pid_rows tick "$b")" = "1 0 2 5 3 5 " ] || { echo "SIG$sig"; cat "$T/out"; false; }
		run ! grep -qE ' (exit|lwp_exit) ' "$T/out"
		assert_free "$a"
		assert_free "$b"
	done
	printf q >&"$ga"
	printf q >&"$gb"
	gone "$a"
	gone "$b"
}

# Whether pid $1 is a zombie.
is_zombie() {
	[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = Z ]
}

@test "-p: a kernel thread, a zombie and cputrack itself are refused, two lines each, exit 1" {
	local holder zombie
	ct_run -T 0.1 -p 2 -c "$WRITE"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: pid 2 is a system process
cputrack: failed to capture pid 2" ]
	# A child that ended, which its parent (sleep, after the exec) never
	# reaps.
	start_target sh -c '/bin/true & exec sleep 60'
	holder=$TPID
	wait_for pgrep -P "$holder" >/dev/null
	zombie=$(pgrep -P "$holder")
	wait_for is_zombie "$zombie"
	ct_run -T 0.1 -p "$zombie" -c "$WRITE"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: pid $zombie is a zombie
cputrack: failed to capture pid $zombie" ]
	# The shell's pid is cputrack's once the shell execs it.
	status=0
	timeout -k 5 60 sh -c 'exec "$0" -T 0.1 -c "$1" -p $$' "$CT" "$WRITE" \
	    >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 1 ]
	[ ! -s "$T/out" ]
	[[ $(cat "$T/err") =~ ^cputrack:\ cannot\ capture\ self!$'\n'cputrack:\ failed\ to\ capture\ pid\ [0-9]+$ ]]
}

@test "-p list with a pid that does not exist: refused before anything counts, exit 1; the others are left untraced and not stopped" {
	start_target "$W/wl_idle" 2 0
	wait_line "$T/target.out" '^ready$'
	ct_run -T 0.1 -p "$TPID,999999" -c "$WRITE"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: pid 999999 doesn't exist
cputrack: failed to capture pid 999999" ]
	assert_free "$TPID"
	# Captured again: the refusal left nothing behind.
	ct_run -N 1 -T 0.1 -p "$TPID" -c "$WRITE"
	[ "$status" -eq 0 ]
	[ "$(ct_count tick)" -eq 3 ]
	assert_free "$TPID"
}

@test "-p list with a thread of a listed process: refused before anything counts, naming its process; exit 1, nothing traced" {
	local tid
	start_target "$W/wl_idle" 2 0
	wait_line "$T/target.out" '^ready$'
	tid=$(ls -U "/proc/$TPID/task" | grep -vx "$TPID" | tail -1)
	[ -n "$tid" ]
	ct_run -T 0.1 -p "$TPID,$tid" -c "$WRITE"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "${stderr%%$'\n'*}" = "cputrack: pid $tid is a thread of process $TPID, not a process" ]
	assert_free "$TPID"
}

@test "-p list with a pid this user may not trace: refused before anything counts, naming it and why; exit 1, the others untraced" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run a process as nobody beside root's"
	local own
	nobody_cputrack
	start_target "$W/wl_idle" 1 0
	wait_line "$T/target.out" '^ready$'
	# (Not through as_nobody: a function in the background is a subshell.)
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    "$(nobody_path "$W/wl_idle")" 1 0 >"$T/own.out" 2>&1 </dev/null &
	own=$!
	ct_bg "$own"
	wait_line "$T/own.out" '^ready$'
	status=0
	as_nobody timeout 60 "$NB_CT" -T 0.1 -p "$own,$TPID" -c task-clock \
	    >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 1 ]
	[ ! -s "$T/out" ]
	grep -qx "cputrack: failed to capture pid $TPID" "$T/err"
	grep -qx "cputrack: pid $TPID belongs to another user (uid 0): only that user or root may count it" "$T/err"
	run ! grep -q "pid $own" "$T/err"
	assert_free "$own"
	assert_free "$TPID"
}

@test "-p list with a pid another tracer holds (ptrace): refused before anything counts, naming the tracer; exit 1, the others untraced" {
	[ "$ENGINE" = ptrace ] || skip "the BPF engine counts a traced process without tracing it"
	local a b holder
	start_target "$W/wl_idle" 1 0
	a=$TPID
	wait_line "$T/target.out" '^ready$'
	"$W/wl_idle" 1 0 >"$T/b.out" 2>&1 </dev/null &
	b=$!
	ct_bg "$b"
	wait_line "$T/b.out" '^ready$'
	# A first cputrack holds b.
	"$CT" -T 0 -p "$b" -c "$WRITE" >"$T/holder.out" 2>&1 </dev/null &
	holder=$!
	ct_bg "$holder"
	wait_while "$holder" traced_by "$b" "$holder"
	ct_run -T 0.1 -p "$a,$b" -c "$WRITE"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: pid $b is already being traced
cputrack: failed to capture pid $b
cputrack: pid $b is traced by pid $holder (cputrack), and a process has one tracer: --engine=bpf counts it without tracing it" ]
	assert_free "$a"
	[ "$(tracer_of "$b")" = "$holder" ]
}

@test "created command: SIGINT and SIGTERM to cputrack alone reach the command; its exit rows are printed; cputrack dies of the signal" {
	local sig pid
	gate_open
	for sig in INT TERM; do
		# The command waits at the gate, which stays shut.
		CT_STDIN=$T/gate start_cputrack_until ' tick ' -T 0.1 -c "$WRITE" "$W/wl_gate" 1 5
		# timeout, then cputrack, then the command.
		pid=$(pgrep -P "$(pgrep -P "$CPID")")
		[ -n "$pid" ]
		kill -"$sig" "$CPID"
		wait_cputrack
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ]
		# Killed by the same signal, at the gate, and counted to it:
		# "ready", and none of the thread's writes.
		[ "$(ct_rows exit)" = "1 1" ]
		gone "$pid"
	done
}

@test "exec without -e: totals and marker, exit 1, the target runs on untracked" {
	# The new image's last step, creating its file, waits for a reader:
	# the file is a FIFO.
	mkfifo "$T/ran"
	ct_run --strict-exec -c "$WRITE" "$W/ct_exec" 5 "$W/ct_marker" "$T/ran" 7
	[ "$status" -eq 1 ]
	[ "$(ct_rows exec | awk 'NF == 2')" = "1 5" ]
	grep -qF "   1       exec                     # '$(psargs "$W/ct_marker" "$T/ran" 7)'" "$T/out"
	[ "$(ct_count exit)" -eq 0 ]
	# cputrack is gone; the new image runs on untraced, and finishes its
	# work on its own.
	local pid
	pid=$(pgrep -x -f "$W/ct_marker $T/ran 7")
	assert_free "$pid"
	cat "$T/ran"
	gone "$pid"
}

@test "exec without -e under -f: the root's exec still ends the run with 1" {
	ct_run --strict-exec -f -c "$WRITE" "$W/ct_exec" 5 "$W/ct_marker" "$T/ran" 0 300
	[ "$status" -eq 1 ]
	[ "$(ct_rows -f exec | awk 'NF == 3 { print $2, $3 }')" = "1 5" ]
	wait_file "$T/ran"
}

@test "non-leader exec without -e: totals and marker, exit 1" {
	ct_run --strict-exec -c "$WRITE" "$W/wl_nonleader_exec" 9 "$W/ct_marker" "$T/ran" 0 300
	[ "$status" -eq 1 ]
	[ "$(ct_rows exec | awk 'NF == 2')" = "1 18" ]
	grep -qF "   1       exec                     # '$(psargs "$W/ct_marker" "$T/ran" 0 300)'" "$T/out"
	wait_file "$T/ran"
}

@test "-N: a target started by cputrack keeps running, not stopped, untraced" {
	# It waits at the gate: cputrack's 2 ticks come while it runs.
	gate_open
	ct_run -N 2 -T 0.1 -f -c "$WRITE" "$W/wl_gate" 1 5 <"$T/gate"
	[ "$status" -eq 0 ]
	# 2 samples at most, a row at each for each of the 2 LWPs there then
	# (on a loaded machine, the first can come before the thread).
	ticks_sampled -f 2 2
	# (The workload's "ready" shares the output.)
	local pid
	pid=$(awk '$4 == "tick" { print $2; exit }' "$T/out")
	[ -n "$pid" ]
	assert_free "$pid"
	gate_release
	gone "$pid"
}

# Set-id and unreadable programs. Each is a copy of ct_marker in a
# directory everybody can read; ct_exec execs it.
make_programs() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to make a set-uid root program"
	SHARED=$(mktemp -d /tmp/cputrack-bats.XXXXXX)
	chmod 0777 "$SHARED"
	cp "$W/ct_marker" "$SHARED/setuid"
	chmod 4755 "$SHARED/setuid"
	cp "$W/ct_marker" "$SHARED/xonly"
	chmod 0111 "$SHARED/xonly"
	cp "$W/ct_marker" "$SHARED/none"
	chmod 0000 "$SHARED/none"
	cp "$W/ct_exec" "$SHARED/ct_exec"
	chmod 0755 "$SHARED/ct_exec"
	# The cputrack nobody runs (NB_CT), where nobody can reach it.
	nobody_cputrack
}

# As nobody; for the BPF engine with what it needs and no more: CAP_BPF
# and CAP_PERFMON (which the command inherits too).
as_nobody() {
	if [ "$ENGINE" = bpf ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		    --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon "$@"
	else
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
	fi
}

@test "root: a set-uid program is tracked like any other (-e)" {
	make_programs
	ct_run -e -c "$WRITE" "$SHARED/ct_exec" 4 "$SHARED/setuid" "$SHARED/ran" 6
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(ct_rows exec | awk 'NF == 2')" = "1 4" ]
	[ "$(ct_rows exit)" = "1 6" ]
	[ -e "$SHARED/ran" ]
}

@test "nobody: a set-uid program runs without its privileges, counted (ptrace, with a message), or with them, not counted (BPF)" {
	make_programs
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local rc=0
	as_nobody timeout 60 "$NB_CT" -e -c task-clock "$SHARED/ct_exec" 4 \
	    "$SHARED/setuid" "$SHARED/ran" 6 >"$T/out" 2>"$T/err" || rc=$?
	if [ "$ENGINE" = bpf ]; then
		# Nothing is traced: it runs as the file's owner, and nobody,
		# who could not ptrace it, does not count it.
		[ "$rc" -eq 1 ] || { cat "$T/err"; false; }
		[ "$(ct_count exec)" -eq 2 ]
		[ "$(ct_count exit)" -eq 0 ]
		grep -qE "^cputrack: [0-9]+: execed a program that cannot be tracked\$" "$T/err"
		wait_file "$SHARED/ran"
		[ "$(stat -c %U "$SHARED/ran")" = root ]
		return
	fi
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_count exec)" -eq 2 ]
	[ "$(ct_count exit)" -eq 1 ]
	grep -qE "^cputrack: [0-9]+: set-id program runs without its privileges while traced\$" "$T/err"
	# It ran as nobody, not as the file's owner.
	[ "$(stat -c %U "$SHARED/ran")" = nobody ]
}

@test "nobody, an exec not followed (--strict-exec): a set-uid or file-capability program run by a followed process is said to run without its privileges (ptrace), or keeps them (BPF)" {
	make_programs
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	command -v setcap >/dev/null || skip "setcap is not installed"
	cp "$W/ct_marker" "$SHARED/filecap"
	chmod 0755 "$SHARED/filecap"
	setcap cap_net_bind_service+ep "$SHARED/filecap" 2>/dev/null ||
		skip "file capabilities cannot be set here"
	local prog rc want
	for prog in setuid filecap; do
		rc=0
		rm -f "$SHARED/ran"
		# Let go at its exec, which the kernel ran traced.
		as_nobody timeout 60 "$NB_CT" -f --strict-exec -c task-clock \
		    "$SHARED/ct_exec" 4 "$SHARED/$prog" "$SHARED/ran" 6 \
		    >"$T/out" 2>"$T/err" || rc=$?
		# Status 1, as for any exec not followed: its counts end there.
		[ "$rc" -eq 1 ] || { cat "$T/err"; false; }
		grep -q "exec'd '$SHARED/$prog $SHARED/ran 6': not followed" "$T/err"
		wait_file "$SHARED/ran"
		if [ "$ENGINE" = bpf ]; then
			# Nothing traced it: no message, and its privileges.
			run ! grep -q 'while traced' "$T/err"
			[ "$prog" = filecap ] ||
			    [ "$(stat -c %U "$SHARED/ran")" = root ]
			continue
		fi
		want="set-id program runs without its privileges while traced"
		[ "$prog" = setuid ] ||
		    want="program with file capabilities runs without them while traced"
		grep -qE "^cputrack: [0-9]+: $want\$" "$T/err" ||
		    { cat "$T/err"; false; }
		[ "$prog" = filecap ] || [ "$(stat -c %U "$SHARED/ran")" = nobody ]
	done
}

@test "nobody: an unreadable (execute-only) program cannot be counted, under either engine: exit 1, it runs on" {
	make_programs
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local rc=0
	# (Counters per CPU would need no access to the program's memory,
	# but nobody could not ptrace it: the BPF engine does not count it.)
	as_nobody timeout 60 "$NB_CT" -e -c task-clock "$SHARED/ct_exec" 4 \
	    "$SHARED/xonly" "$SHARED/ran" 0 300 >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 1 ]
	[ "$(ct_count exec)" -eq 2 ]
	grep -qE "^ +[0-9]+: init_lwp: can't bind perf counters to lwp1 - Permission denied\$" "$T/err"
	grep -qE "^cputrack: [0-9]+: execed a program that cannot be tracked\$" "$T/err"
	wait_file "$SHARED/ran"
}

@test "root: an execute-only program is tracked (root reads anything)" {
	make_programs
	ct_run -e -c "$WRITE" "$SHARED/ct_exec" 4 "$SHARED/xonly" "$SHARED/ran" 6
	[ "$status" -eq 0 ]
	[ "$(ct_rows exit)" = "1 6" ]
}

@test "a mode 000 program: the exec fails, invisibly; the target goes on tracked" {
	make_programs
	CT_EXEC_FAILED="$SHARED/failed" ct_run -v -e -c "$WRITE" "$SHARED/ct_exec" 4 \
	    "$SHARED/none" "$SHARED/ran"
	[ "$status" -eq 0 ]
	[ "$(ct_count exec)" -eq 0 ]
	[ "$(ct_rows exit)" = "1 4" ]
	[ -e "$SHARED/failed" ]
	[ ! -e "$SHARED/ran" ]
	# The same as nobody.
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	rm -f "$SHARED/failed"
	local rc=0
	CT_EXEC_FAILED="$SHARED/failed" as_nobody timeout 60 "$NB_CT" -e -c task-clock \
	    "$SHARED/ct_exec" 4 "$SHARED/none" "$SHARED/ran" >"$T/out" 2>"$T/err" || rc=$?
	grep -q 'Resource temporarily unavailable' "$T/err" && skip "a cpustat elsewhere took the counters"
	[ "$rc" -eq 0 ]
	[ "$(ct_count exec)" -eq 0 ]
	[ "$(ct_count exit)" -eq 1 ]
	[ -e "$SHARED/failed" ] && [ ! -e "$SHARED/ran" ]
}

# Software events and tracepoints exclude nobody (docs/architecture.md,
# "Exclusivity"): a cpustat counting the same events on every CPU, started
# before cputrack or while it runs, changes nothing in cputrack's counts,
# under either engine. (The hardware cases, where cpustat does hold the
# PMU, need one: tests/hw.)

# Start a cpustat of the same software events on every CPU, and wait for
# its first row.
start_cpustat_alongside() {
	[ -x "$CPUSTAT" ] || skip "cpustat is not built"
	timeout 120 "$CPUSTAT" -c "task-clock,$WRITE" 0.1 >"$T/cs.out" 2>"$T/cs.err" &
	CS=$!
	ct_bg "$CS"
	wait_line "$T/cs.out" ' tick '
}

# The cpustat is still counting, and said nothing on stderr.
cpustat_counted_on() {
	running "$CS"
	[ -z "$(cat "$T/cs.err")" ]
	kill -TERM "$CS"
	wait "$CS" || true
	[ "$(grep -c ' tick ' "$T/cs.out")" -ge 2 ]
}

@test "exclusivity: a cputrack started while cpustat counts the same events counts exactly, exit 0" {
	start_cpustat_alongside
	ct_run -c "$WRITE" "$W/wl_threads" 2 10
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ -z "$(cat "$T/err")" ]
	[ "$(ct_rows exit)" = "1 20" ]
	# A -p target, attached while the cpustat counts.
	start_target "$W/wl_idle" 3 5
	wait_line "$T/target.out" '^ready$'
	ct_run -N 3 -T 0.1 -p "$TPID" -c "$WRITE"
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ -z "$(cat "$T/err")" ]
	assert_free "$TPID"
	cpustat_counted_on
}

@test "exclusivity: a cpustat starting while cputrack counts leaves every row exact, exit 0" {
	start_cputrack_until ' tick ' -T 0.1 -c "$WRITE" "$W/ct_steady" 1 5 100 20
	start_cpustat_alongside
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ -z "$(cat "$T/err")" ]
	# Every write of the thread, in the process's total.
	[ "$(ct_rows exit | awk '{ print $NF }')" -eq 100 ]
	cpustat_counted_on
}

@test "SIGPIPE: the reader of the pipe goes away; cputrack ends with 0, no message; the command runs on" {
	# The command waits at the gate while cputrack writes into the pipe.
	# Its own "ready" goes elsewhere: written into the pipe after head
	# left, it would die of SIGPIPE itself (-e follows the shell's exec
	# without a word).
	local gated
	gated=$(wl_own wl_gate)
	gate_open
	(
		rc=0
		timeout --foreground 60 "$CT" -e -T 0.1 -c "$WRITE" \
		    sh -c 'exec "$0" 1 5 >/dev/null' "$gated" \
		    <"$T/gate" 2>"$T/err" || rc=$?
		echo "$rc" >"$T/rc"
	) | head -n 3 >"$T/out"
	wait_file "$T/rc"
	grep -q 'Resource temporarily unavailable' "$T/err" && skip "a cpustat elsewhere took the counters"
	[ "$(cat "$T/rc")" -eq 0 ]
	[ -z "$(cat "$T/err")" ] || { cat "$T/err"; false; }
	[ "$(wc -l <"$T/out")" -eq 3 ]
	local pid
	pid=$(pgrep -x -f "$gated 1 5")
	assert_free "$pid"
	gate_release
	gone "$pid"
}

@test "exec without -e by the started command with no thread made and no child (#!/usr/bin/env, env, nice): followed, and said on stderr" {
	ct_run -T 0.1 -c "$WRITE" /usr/bin/env "$W/wl_threads" 2 10
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_rows exit)" = "1 20" ]
	grep -qF "   1       exec                     # '$W/wl_threads 2 10'" "$T/out"
	pid=$(sed -n "s/^cputrack: pid \([0-9]*\) exec'd .* with no thread made and no child: followed (-e follows every exec)$/\1/p" "$T/err")
	[ -n "$pid" ]
	[ "$(wc -l <"$T/err")" -eq 1 ]
	# A script that starts with #!/usr/bin/env: two execs, both followed.
	printf '#!/usr/bin/env bash\nexec "%s" 1 7\n' "$W/wl_threads" >"$T/script"
	chmod +x "$T/script"
	ct_run -T 0.1 -c "$WRITE" "$T/script"
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_rows exit)" = "1 7" ]
}

@test "the exec rule is not a matter of time: a shell that waited past several ticks, having made no process, is followed" {
	gate_open
	CT_STDIN=$T/gate start_cputrack_until ' tick ' -T 0.1 \
	    -c "$WRITE" /bin/sh -c "read x; exec \"$W/wl_threads\" 1 7"
	wait_rows_until '$3 == "tick" { n++ } END { exit n < 3 }'
	gate_release
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_rows exit)" = "1 7" ]
	grep -q "with no thread made and no child: followed" "$T/err"
}

@test "a shim that forks and waits, then execs (pyenv's): followed to the program, counted, said" {
	# As pyenv's shims: a shell that runs commands (forks and waits
	# for them), then execs the program.
	printf '#!/bin/sh\nv=$(/bin/echo 2)\n/bin/true\nexec "%s" "$v" 10\n' \
	    "$W/wl_threads" >"$T/shim"
	chmod +x "$T/shim"
	ct_run -T 0.1 -c "$WRITE" "$T/shim"
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_rows exit)" = "1 20" ]
	grep -qF "   1       exec                     # '$W/wl_threads 2 10'" "$T/out"
	grep -qE "^cputrack: pid [0-9]+ exec'd '$W/wl_threads 2 10' with no thread made and no child: followed \(-e follows every exec\)$" "$T/err"
}

@test "exec without -e beside a child of the command's own: not followed, said on stderr with the pid and the image, exit 1" {
	# The shell starts a child it does not wait for, then execs: a
	# program of its own that runs beside it.
	ct_run -T 0.1 -c "$WRITE" \
	    /bin/sh -c "/bin/sleep 5 & exec \"$W/ct_marker\" \"$T/ran\" 0 100"
	[ "$status" -eq 1 ]
	# The image's arguments as psargs gives them: 80 characters at most.
	grep -qE "^cputrack: pid [0-9]+ exec'd '[^']*ct_marker[^']*': not followed, its counts end here \(-e follows execs\)$" "$T/err"
	[ "$(ct_count exit)" -eq 0 ]
	wait_file "$T/ran"
}

@test "--strict-exec: Solaris's way, no exec followed without -e, even the first" {
	ct_run --strict-exec -c "$WRITE" /usr/bin/env "$W/wl_threads" 2 10
	[ "$status" -eq 1 ]
	grep -qF "not followed, its counts end here (-e follows execs)" "$T/err"
	[ "$(ct_count exit)" -eq 0 ]
}
