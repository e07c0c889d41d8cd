#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# Fault injection: cputrack and cpustat killed, their targets killed, too
# few file descriptors, a full output device, tracefs gone, an
# unprivileged user. Nothing may hang, be left stopped or traced, or be
# lost without a message.

load cputrack_helper

setup() {
	ct_setup
}

teardown() {
	ct_teardown
}

# run --separate-stderr ARGS..., once the counters are free, and again
# (up to 9 times) if a cpustat or cputrack elsewhere took them meanwhile.
run_retry() {
	local try
	for try in $(seq 10); do
		run --separate-stderr "$@"
		[[ "$stderr$output" == *"Resource temporarily unavailable"* ]] ||
			[[ "$stderr$output" == *"contents invalidated"* ]] || return 0
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 10 tries
	done
}

# The pids of cputrack's children (the command it started).
children_of() {
	pgrep -P "$1" || true
}

# Wait until pid $1 is gone or a zombie.
wait_dead() {
	gone "$1" && return 0
	echo "pid $1 still alive: state $(proc_state "$1")" >&2
	return 1
}

# bg_until with cputrack itself as CPID, with no timeout wrapper.
bg_cputrack_until() {
	local pattern=$1
	shift
	bg_until "$pattern" "$CT" "$@"
}

@test "cputrack SIGKILLed: the command it started dies with it, under either engine" {
	local child prog
	# 1000 s of work: only the kill ends it within the bound of a wait.
	# Its own path makes its command line, and cputrack's, this test's.
	prog=$(wl_own wl_jobctl)
	bg_cputrack_until 'tick' -T 0.1 -c "$WRITE" "$prog" 100000 10
	child=$(children_of "$CPID")
	[ "$(wc -w <<<"$child")" -eq 1 ]
	kill -KILL "$CPID"
	wait "$CPID" || true
	wait_dead "$child"
	# Nothing of the run is left: no command, no guard of the BPF
	# engine's (which has cputrack's command line).
	wait_for not pgrep -f "$prog 100000 10"
}

# tree_command: $T/tree.sh, a command that makes a tree of its own: a
# child that execs $T/sleeper (a copy of sleep(1), so that its path is
# this test's alone), and a child shell that makes one more; each exec
# lets a process go under -f without -e. It says "made" once it has
# started them.
tree_command() {
	cp /bin/sleep "$T/sleeper"
	cat >"$T/tree.sh" <<EOF
#!/bin/sh
"$T/sleeper" 1001 &
sh -c '"\$0" 1002 & wait' "$T/sleeper" &
echo made
wait
EOF
	chmod 0755 "$T/sleeper" "$T/tree.sh"
}

# both_sleepers DIR: whether DIR/sleeper runs twice, its tree's two.
both_sleepers() {
	[ "$(pgrep -fc "^$1/sleeper")" -eq 2 ]
}

# killed_tree ARGS...: cputrack ARGS $T/tree.sh, SIGKILLed once the tree
# is made; sets CMD (the command's pid) and TREE_PIDS (the sleepers').
killed_tree() {
	tree_command
	bg_cputrack_until '^made$' "$@" -T 0.1 -c "$WRITE" "$T/tree.sh"
	CMD=$(children_of "$CPID")
	wait_for both_sleepers "$T"
	TREE_PIDS=$(pgrep -f "^$T/sleeper")
	kill -KILL "$CPID"
	wait "$CPID" || true
}

@test "cputrack SIGKILLed, -f: the command and every process it made die, those let go at an exec too" {
	local p
	killed_tree -f
	wait_dead "$CMD"
	for p in $TREE_PIDS; do
		wait_dead "$p"
	done
}

@test "cputrack SIGKILLed, no -f: the command dies; the processes it made run on, not stopped" {
	local p
	killed_tree
	wait_dead "$CMD"
	for p in $TREE_PIDS; do
		ct_bg "$p"
		running "$p"
		[ "$(proc_state "$p")" != T ]
	done
}

# The guards of the BPF engine (comm cputrack-guard) whose command line
# holds $1.
guards_of() {
	local p
	for p in $(pgrep -f "$1"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" != cputrack-guard ] ||
		    echo "$p"
	done
}

no_guard_of() {
	[ -z "$(guards_of "$1")" ]
}

@test "a command let go runs on after cputrack: its guard is dismissed" {
	local prog pid
	prog=$(wl_own wl_jobctl)
	# -N 2: the command is let go after two ticks, and cputrack exits 0.
	ct_run -T 0.1 -N 2 -c "$WRITE" "$prog" 600 100
	[ "$status" -eq 0 ]
	pid=$(pgrep -x -f "$prog 600 100")
	ct_bg "$pid"
	# It outlives the guard, which is gone once cputrack is.
	wait_for no_guard_of "$prog 600 100"
	running "$pid"
}

@test "cputrack SIGKILLed at random moments: a -p target runs on, untraced, not stopped (20 times)" {
	local i target a b
	"$W/wl_spawner" 2 1 >"$T/spawner" &
	target=$!
	ct_bg "$target"
	wait_line "$T/spawner" ready
	for i in $(seq 20); do
		bg_cputrack_until 'tick' -T 0.02 -c "$WRITE" -p "$target"
		sleep "0.0$((RANDOM % 10))" # not a wait: the kill comes at a random moment; at most 20 passes
		kill -KILL "$CPID"
		wait "$CPID" || true
		# Every thread of the target: not stopped, not traced.
		assert_free "$target"
		local task st tr
		for task in /proc/"$target"/task/*; do
			st=$(awk '{ sub(/^.*\) /, ""); print $1 }' "$task/stat" 2>/dev/null || true)
			tr=$(awk '$1 == "TracerPid:" { print $2 }' "$task/status" 2>/dev/null || true)
			[ "$st" != t ]
			[ "$st" != T ]
			[ -z "$tr" ] || [ "$tr" = 0 ]
		done
		# And it goes on writing.
		a=$(syscw "$target")
		writes_past "$target" "$a"
	done
}

@test "the command SIGKILLed mid-interval: its exit row has what was counted, 'process terminated', exit 0" {
	# wl_idle 2 5: three LWPs make 5 writes each, then "ready" (1 more).
	bg_cputrack_until 'ready' -T 5 -c "$WRITE" "$W/wl_idle" 2 5
	local target
	target=$(children_of "$CPID")
	kill -KILL "$target"
	local rc=0
	wait "$CPID" || rc=$?
	[ "$rc" -eq 0 ]
	[ "$(ct_rows exit)" = "1 16" ]
	[ "$(cat "$T/err")" = "cputrack: $target: process terminated: killed by SIGKILL" ]
	[ "$(ct_count tick)" -eq 0 ]
}

@test "a -p target SIGKILLed mid-interval: its exit row, 'process terminated', exit 0" {
	local target rc=0 a
	# A thread makes 5 writes at each step fed to it: one the ticks see,
	# then one made just before the kill, which no tick has seen.
	gate_open
	"$W/wl_steps" 1 5 <"$T/gate" &
	target=$!
	ct_bg "$target"
	bg_cputrack_until 'tick' -T 0.3 -c "$WRITE" -p "$target"
	gate_send w
	wait_rows_until '$3 == "tick" { s += $4 } END { exit s != 5 }'
	a=$(syscw "$target")
	gate_send w
	writes_past "$target" $((a + 4))
	kill -KILL "$target"
	wait "$CPID" || rc=$?
	[ "$rc" -eq 0 ]
	[ "$(ct_count exit)" -eq 1 ]
	# The exit row is the sum of the ticks and the part interval after.
	[ "$(ct_sum tick)" -ge 5 ]
	[ "$(ct_sum tick)" -le 10 ]
	[ "$(ct_sum exit)" -eq 10 ]
	[ "$(cat "$T/err")" = "cputrack: $target: process terminated: killed by SIGKILL" ]
}

@test "ulimit -n 64, 100 threads alive at once: one line names the limit; the LWPs that got counters are counted exactly" {
	local rc=0 try debug=
	# The BPF engine's note of switches the kernel hid (counted_exactly).
	[ "$ENGINE" != bpf ] || debug=-D
	for try in 1 2 3 4 5; do
		rc=0
		(
			ulimit -n 64 &&
			exec timeout -k 5 120 "$CT" $debug -c "$WRITE" \
			    "$W/tt_manythreads" 100 10
		) >"$T/out" 2>"$T/err" || rc=$?
		counters_taken || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 5 tries
	done
	cat "$T/err"
	if [ "$ENGINE" = bpf ]; then
		# Its descriptors are per CPU, not per LWP: all 100 fit in 64,
		# each counted exactly, and no limit is met.
		[ "$rc" -eq 0 ]
		[ "$(grep -v '^cputrack: the BPF engine counts: programs \|^cputrack: note: the kernel hid \|^cputrack: start: ' "$T/err" | wc -l)" -eq 0 ]
		[ "$(ct_count lwp_create)" -eq 100 ]
		[ "$(ct_count lwp_exit)" -eq 100 ]
		local lwp n
		while read -r lwp n; do
			counted_exactly "$n" 10 || { echo "lwp $lwp"; false; }
		done < <(ct_rows lwp_exit)
		[ "$(ct_rows exit | awk '{ print $1 }')" = 1 ]
		counted_exactly "$(ct_rows exit | awk '{ print $2 }')" 1010
		return
	fi
	# The process's total leaves LWPs out: said, and the status is 1.
	[ "$rc" -eq 1 ]
	# The threads that got counters: a lwp_create row each.
	local counted
	counted=$(ct_count lwp_create)
	echo "counted $counted, lwp_exit rows $(ct_count lwp_exit)"
	[ "$(sed -n 1p "$T/err")" = "cputrack: out of file descriptors: the limit is 64 open files (RLIMIT_NOFILE); LWPs beyond it are not counted; raise it with ulimit -n" ]
	grep -qxE "cputrack: pid [0-9]+ lwp 1 exit of set 0 is partial: $((100 - counted)) LWPs not counted \\(out of file descriptors\\)" <(sed -n 2p "$T/err")
	[ "$(wc -l <"$T/err")" -eq 2 ]
	grep -qE "^ +[0-9.]+ +1 +exit +[0-9]+ +# partial: $((100 - counted)) LWPs not counted \(out of file descriptors\)\$" "$T/out"
	[ "$counted" -gt 10 ]
	[ "$counted" -lt 100 ]
	# Each counted thread made exactly its 10 writes; the main thread's 10
	# came after every thread was joined: the workload ran to its end.
	[ "$(ct_count lwp_exit)" -le "$counted" ]
	[ "$(ct_rows lwp_exit | awk '$2 != 10' | wc -l)" -eq 0 ]
	[ "$(ct_rows exit | awk '{ print $1, $2 }')" = "1 $((10 * (counted + 1)))" ]
}

@test "ulimit -n 48, 200 threads, 20 runs: each thread counted or said not counted, none let go unseen" {
	# The BPF engine's descriptors are per CPU: no limit is met (above).
	[ "$ENGINE" != bpf ] || skip "the BPF engine holds no descriptor per thread"
	local run counted said
	# A new thread whose first stop comes before its creator's clone event
	# is found from /proc while every descriptor holds a counter.
	for run in $(seq 20); do
		(
			ulimit -n 48 &&
			exec timeout -k 5 120 "$CT" -c "$WRITE" \
			    "$W/tt_manythreads" 200 10
		) >"$T/out" 2>"$T/err" || true
		counted=$(ct_count lwp_create)
		said=$(sed -nE 's/.* ([0-9]+) LWPs not counted .*/\1/p' "$T/err" | head -n 1)
		[ "$((counted + ${said:-0}))" -eq 200 ] ||
		    { echo "run $run: $counted counted, ${said:-0} said"; cat "$T/err"; false; }
	done
}

@test "-o /dev/full, or stdout on /dev/full: cputrack and cpustat say so, exit 1" {
	ct_run -o /dev/full -c "$WRITE" "$W/wl_threads" 2 3
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: write error on '/dev/full': No space left on device" ]
	local try rc
	for try in 1 2 3 4 5; do
		rc=0
		timeout 60 "$CT" -c "$WRITE" "$W/wl_threads" 2 3 >/dev/full 2>"$T/err" || rc=$?
		counters_taken || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 5 tries
	done
	[ "$rc" -eq 1 ]
	[ "$(cat "$T/err")" = "cputrack: write error on 'stdout': No space left on device" ]
	local fmt
	for fmt in table csv json; do
		run_retry sh -c '"$0" --format="$1" -c task-clock 0.1 >/dev/full' "$CPUSTAT" "$fmt"
		echo "$fmt: $status $stderr"
		[ "$status" -eq 1 ]
		[ "$stderr" = "cpustat: write error on stdout: No space left on device" ]
	done
}

@test "cpustat SIGKILLed: what it held goes with it, the next cpustat and cputrack run" {
	local try pid
	for try in 1 2 3 4 5 6 7 8 9 10; do
		"$CPUSTAT" -c task-clock 0.1 >"$T/first" 2>"$T/first.err" &
		pid=$!
		ct_bg "$pid"
		wait_while "$pid" grep -q ' tick ' "$T/first" && break
		wait "$pid" || true
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 10 tries
	done
	kill -KILL "$pid"
	wait "$pid" || true
	run_retry "$CPUSTAT" -c task-clock 0.1 1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	ct_run -c "$WRITE" "$W/wl_threads" 2 3
	[ "$status" -eq 0 ]
	[ "$(ct_rows exit)" = "1 6" ]
}

# In a private mount namespace, tracefs unmounted (or hidden by an empty
# directory): tracepoints get the reason, other events count as before.
in_namespace_without_tracefs() {
	unshare -m true 2>/dev/null || skip "no mount namespaces here (unshare -m)"
	unshare -m --propagation private bash -c '
		set -u
		case $1 in
		umount)
			umount /sys/kernel/tracing 2>/dev/null ||
				{ echo "SKIP: cannot umount tracefs"; exit 0; } ;;
		hide)
			mount -t tmpfs none /sys/kernel/tracing || exit 1 ;;
		esac
		umount /sys/kernel/debug/tracing 2>/dev/null
		umount /sys/kernel/debug 2>/dev/null
		[ ! -e /sys/kernel/tracing/events ] || { echo "still there"; exit 1; }
		shift
		"$@"' ns "$@"
}

tracefs_gone() {
	local how=$1
	ensure_tracefs
	run_retry in_namespace_without_tracefs "$how" "$CT" -c "$WRITE" "$W/wl_threads" 1 3
	[[ "$output" != SKIP:* ]] || skip "${output#SKIP: }"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	# What is countable here, and tracepoints are not.
	[[ "$stderr" == "cputrack: $WRITE: tracepoint, but tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing); countable here: "*", ... (-h lists them)" ]]
	[[ "$stderr" != *"and tracepoints"* ]]
	run_retry in_namespace_without_tracefs "$how" "$CPUSTAT" -c "$WRITE" 0.1 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == "cpustat: $WRITE: tracepoint, but tracefs is not mounted"* ]]
	run in_namespace_without_tracefs "$how" "$CT" -h
	[ "$status" -eq 0 ]
	[[ "$output" == *"Tracepoints: none (tracefs is not mounted at /sys/kernel/tracing)"* ]]
	# The others still count, exactly.
	run_retry in_namespace_without_tracefs "$how" "$CT" -c page-faults,task-clock "$W/wl_threads" 2 3
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(grep -c lwp_exit <<<"$output")" -eq 2 ]
	grep -qE '^ +[0-9.]+ +1 +exit +[0-9]+ +[0-9]+ $' <<<"$output"
	run_retry in_namespace_without_tracefs "$how" "$CPUSTAT" -c task-clock 0.1 1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *" total "* ]]
	# Outside the namespace nothing changed.
	[ -d /sys/kernel/tracing/events/syscalls ]
}

@test "tracefs unmounted (private mount namespace): tracepoints explained, other events count" {
	tracefs_gone umount
}

@test "tracefs missing (an empty directory in its place): tracepoints explained, other events count" {
	tracefs_gone hide
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

@test "unprivileged (nobody): permission messages with their hints" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to become nobody"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local paranoid cs xo why
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	# What nobody runs, where nobody can reach it.
	nobody_cputrack
	CT=$NB_CT
	cs=$(nobody_path "$CPUSTAT")
	W=$(dirname "$(nobody_path "$WORKLOADS/wl_threads")")
	# Another user's process, for -p.
	sleep 30 &
	local root_pid=$!
	ct_bg "$root_pid"
	if [ "$ENGINE" = bpf ]; then
		# Without CAP_BPF and CAP_PERFMON the BPF engine cannot load:
		# whatever nobody asks of it, one line says so, exit 2, and
		# nothing started (ct_marker would have made its file, in a
		# directory open to nobody) or was captured.
		why="cputrack: --engine=bpf: the BPF engine needs CAP_BPF and CAP_PERFMON (or root)"
		mkdir -m 0777 "$(nobody_dir)/w"
		run_retry as_nobody "$CT" -c task-clock \
		    "$(nobody_path "$WORKLOADS/ct_marker")" "$(nobody_dir)/w/ran"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$stderr" = "$why" ]
		[ ! -e "$(nobody_dir)/w/ran" ]
		run --separate-stderr as_nobody "$CT" -c task-clock -p "$root_pid"
		[ "$status" -eq 2 ]
		[ "$stderr" = "$why" ]
		assert_free "$root_pid"
	else
		# Its own program, user mode: counts.
		run_retry as_nobody "$CT" -c task-clock "$W/wl_threads" 1 3
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		# Another user's process: refused, with the reason.
		run --separate-stderr as_nobody "$CT" -c task-clock -p "$root_pid"
		[ "$status" -eq 1 ]
		[ "$stderr" = "cputrack: pid $root_pid: permission denied
cputrack: failed to capture pid $root_pid
cputrack: pid $root_pid belongs to another user (uid 0): only that user or root may count it" ]
		assert_free "$root_pid"
	fi
	# Tracepoints, when tracefs is root's only (mode 700 by default):
	# the events are checked before the engine starts, so both say it.
	if ! as_nobody test -r /sys/kernel/tracing/events; then
		run --separate-stderr as_nobody "$CT" -c "$WRITE" "$W/wl_threads" 1 3
		[ "$status" -eq 2 ]
		[[ "$stderr" == "cputrack: $WRITE: tracepoint, but this user may not read tracefs (/sys/kernel/tracing: Permission denied); tracepoints need root, or read access to /sys/kernel/tracing/events; countable here: "*", ... (-h lists them)" ]]
		[[ "$stderr" != *"and tracepoints"* ]]
		run as_nobody "$CT" -h
		[[ "$output" == *"Tracepoints: none readable by this user (/sys/kernel/tracing: Permission denied;"* ]]
	fi
	# An execute-only program, exec'd under -e: the kernel hides it from
	# its user's tracers, and perf_event_paranoid has nothing to do with it.
	xo=$(nobody_dir)/xo
	cp "$WORKLOADS/wl_threads" "$xo"
	chmod 0711 "$xo"
	run_retry as_nobody "$CT" -e -c task-clock sh -c "exec $xo 1 1"
	if [ "$ENGINE" = bpf ]; then
		[ "$status" -eq 2 ]
		[ "$stderr" = "$why" ]
	else
		[ "$status" -eq 1 ]
		[[ "$stderr" == "cputrack: task-clock: Permission denied: this user may not trace the process (another user's, or a set-id or unreadable program): only its owner, or root, may count it"* ]]
		[[ "$stderr" == *"cputrack: "*": execed a program that cannot be tracked" ]]
		[[ "$stderr" != *perf_event_paranoid* ]]
	fi
	# kernel.perf_event_paranoid is global, not per namespace: it cannot
	# be raised for this test alone. What it forbids now is checked.
	# Refused before anything starts: exit 2, one line with the cause
	# (under either engine: the events are checked first).
	if [ "$paranoid" -ge 2 ]; then
		run_retry as_nobody "$CT" -c task-clock,sys "$W/wl_threads" 1 3
		[ "$status" -eq 2 ]
		[ "$stderr" = "cputrack: task-clock: Permission denied: it counts kernel mode (sys asks for it), which kernel.perf_event_paranoid $paranoid allows only to root or CAP_PERFMON; count user mode only, or lower it to 1" ]
	fi
	if [ "$paranoid" -ge 1 ]; then
		run_retry as_nobody "$cs" -c task-clock 0.1 1
		[ "$status" -eq 2 ]
		[ "$stderr" = "cpustat: task-clock: Permission denied: counting a whole CPU needs root or CAP_PERFMON while kernel.perf_event_paranoid is $paranoid (above 0); lower it to 0, or run with CAP_PERFMON" ]
	fi
}

# Found by the valgrind test (slow enough to hit it): a tick that rotates
# the sets of an LWP that is exiting failed the whole run with
# "tick: lwpN: can't bind perf counters - No such process". Both ways of
# switching: one group for both sets, and sets taking turns on the
# counters (the way of hardware events), whose switch calls the kernel.
@test "ticks racing with LWP exits, two sets rotating every 1 ms: no error, every LWP's totals (100 runs each way)" {
	local i turns
	for i in $(seq 200); do
		turns=$((i % 2 ? 1 : 0))
		[ "$turns" = 1 ] && export CPCTOOLS_SET_SWITCH=1 ||
		    unset CPCTOOLS_SET_SWITCH
		run_retry "$CT" -T 0.001 -c "$WRITE,task-clock" -c page-faults \
		    "$W/wl_threads" 8 200 100
		[ -z "$stderr" ] || echo "run $i (turns: $turns): $stderr"
		[ "$status" -eq 0 ]
		# A loaded machine may end a run before its first tick, and so
		# before set 1's turn, which is then said: that line alone.
		[ -z "$(grep -vxF "cputrack: set 1: not counted: the run ended before the set's turn" <<<"$stderr")" ]
		[ "$(grep -c ' lwp_exit ' <<<"$output")" -ge 8 ]
		grep -qE '^ +[0-9.]+ +1 +exit ' <<<"$output"
	done
	# Nothing of the runs outlives them: under the BPF engine each had a
	# guard, forked from a process with threads (a sanitizer's prctl
	# once left one waiting for ever on a lock).
	wait_for no_guard_of "0.001 -c $WRITE,task-clock -c page-faults"
}

@test "a command killed by a signal is said with the signal's name, and its core when it dumped one" {
	ct_run -c "$WRITE" sh -c 'kill -SEGV $$'
	[ "$status" -eq 0 ]
	[[ $stderr =~ ^cputrack:\ [0-9]+:\ process\ terminated:\ killed\ by\ SIGSEGV(\ \(core\ dumped\))?$ ]]
	# With a core allowed, and the kernel writing one to the directory.
	if [ "$(cat /proc/sys/kernel/core_pattern)" = core ]; then
		ct_run -c "$WRITE" sh -c "cd '$T' && ulimit -c unlimited && kill -QUIT \$\$"
		[ "$status" -eq 0 ]
		[[ $stderr =~ ^cputrack:\ [0-9]+:\ process\ terminated:\ killed\ by\ SIGQUIT\ \(core\ dumped\)$ ]]
	fi
}
