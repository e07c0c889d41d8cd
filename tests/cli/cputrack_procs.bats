#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# cputrack and its target: -p attach and detach, signals, -N, an exec
# without -e, set-id and unreadable programs, and exclusivity with cpustat.
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

# Start a long-running workload in the background; sets TPID.
start_target() {
	"$@" >"$T/target.out" 2>&1 &
	TPID=$!
	ct_bg "$TPID"
}

# Wait (bounded) for a line matching $2 in file $1.
wait_line() {
	local i
	for i in $(seq 150); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Wait for a background cputrack; sets status.
wait_cputrack() {
	status=0
	wait "$CPID" || status=$?
}

# Wait until a cpustat we started holds the counters.
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

@test "-p: attach to a multithreaded process, exact per-LWP writes; -N 3 detaches, exit 0" {
	start_target "$W/wl_idle" 3 5
	wait_line "$T/target.out" '^ready$'
	ct_run -N 3 -T 0.1 -p "$TPID" -c "$WRITE"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# 4 LWPs, 3 ticks each, all idle since attach; no totals after -N.
	[ "$(ct_count tick)" -eq 12 ]
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
	start_target "$W/ct_steady" 2 10 250 0
	sleep 0.3
	ct_run -N 10 -T 0.1 -p "$TPID" -c "$WRITE"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# Two threads writing 10 every 250 ms: over ten ticks (1 s) each
	# thread makes 4 or 5 bursts of exactly 10.
	local n s
	for n in 2 3; do
		s=$(ct_rows tick | awk -v n=$n '$1 == n { s += $2 } END { print s + 0 }')
		[ "$s" -ge 30 ] && [ "$s" -le 50 ] && [ $((s % 10)) -eq 0 ]
	done
	assert_free "$TPID"
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
		! grep -qE ' (exit|lwp_exit) ' "$T/out"
		assert_free "$TPID"
	done
}

@test "created command: SIGINT and SIGTERM to cputrack alone reach the command; its exit rows are printed; cputrack dies of the signal" {
	local sig pid
	for sig in INT TERM; do
		rm -f "$T/done"
		start_cputrack_until ' tick ' -T 0.1 -c "$WRITE" "$W/ct_steady" 2 5 100 12 "$T/done"
		# timeout, then cputrack, then the command.
		pid=$(pgrep -P "$(pgrep -P "$CPID")")
		[ -n "$pid" ]
		kill -"$sig" "$CPID"
		wait_cputrack
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ]
		# Killed by the same signal, before its end, and counted to it.
		[ "$(ct_count exit)" -eq 1 ]
		[ ! -e "$T/done" ]
		[ ! -e "/proc/$pid" ] || [ "$(proc_state "$pid")" = Z ]
	done
}

@test "exec without -e: totals and marker, exit 1, the target runs on untracked" {
	ct_run --strict-exec -c "$WRITE" "$W/ct_exec" 5 "$W/ct_marker" "$T/ran" 7 400
	[ "$status" -eq 1 ]
	[ "$(ct_rows exec | awk 'NF == 2')" = "1 5" ]
	grep -qF "   1       exec                     # '$(psargs "$W/ct_marker" "$T/ran" 7 400)'" "$T/out"
	[ "$(ct_count exit)" -eq 0 ]
	# cputrack is gone; the new image finishes its work on its own.
	[ ! -e "$T/ran" ]
	wait_file "$T/ran"
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
	ct_run -N 2 -T 0.1 -f -c "$WRITE" "$W/ct_steady" 1 5 100 20 "$T/done"
	[ "$status" -eq 0 ]
	[ "$(ct_rows -f tick | wc -l)" -eq 4 ]
	local pid
	pid=$(awk 'NR == 2 { print $2 }' "$T/out")
	[ -n "$pid" ]
	assert_free "$pid"
	wait_file "$T/done"
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

@test "nobody: a set-uid program runs without its privileges (ptrace, with a message) or with them (BPF); counts go on" {
	make_programs
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	ct_wait_counters
	local rc=0
	as_nobody timeout 60 "$NB_CT" -e -c task-clock "$SHARED/ct_exec" 4 \
	    "$SHARED/setuid" "$SHARED/ran" 6 >"$T/out" 2>"$T/err" || rc=$?
	grep -q 'Resource temporarily unavailable' "$T/err" && skip "a cpustat elsewhere took the counters"
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_count exec)" -eq 2 ]
	[ "$(ct_count exit)" -eq 1 ]
	if [ "$ENGINE" = bpf ]; then
		# Nothing is traced: it runs as the file's owner, silently.
		[ ! -s "$T/err" ]
		[ "$(stat -c %U "$SHARED/ran")" = root ]
		return
	fi
	grep -qE "^cputrack: [0-9]+: set-id program runs without its privileges while traced\$" "$T/err"
	# It ran as nobody, not as the file's owner.
	[ "$(stat -c %U "$SHARED/ran")" = nobody ]
}

@test "nobody: an unreadable (execute-only) program cannot be counted (ptrace: exit 1, it runs on) or is (BPF)" {
	make_programs
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	ct_wait_counters
	local rc=0
	as_nobody timeout 60 "$NB_CT" -e -c task-clock "$SHARED/ct_exec" 4 \
	    "$SHARED/xonly" "$SHARED/ran" 0 300 >"$T/out" 2>"$T/err" || rc=$?
	grep -q 'Resource temporarily unavailable' "$T/err" && skip "a cpustat elsewhere took the counters"
	if [ "$ENGINE" = bpf ]; then
		# Counters per CPU need no access to the program's memory.
		[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
		[ ! -s "$T/err" ]
		[ "$(ct_count exec)" -eq 2 ]
		[ "$(ct_count exit)" -eq 1 ]
		[ -e "$SHARED/ran" ]
		return
	fi
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
	[ -e "$SHARED/failed" ] && [ ! -e "$SHARED/ran" ]
	# The same as nobody.
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	rm -f "$SHARED/failed"
	ct_wait_counters
	local rc=0
	CT_EXEC_FAILED="$SHARED/failed" as_nobody timeout 60 "$NB_CT" -e -c task-clock \
	    "$SHARED/ct_exec" 4 "$SHARED/none" "$SHARED/ran" >"$T/out" 2>"$T/err" || rc=$?
	grep -q 'Resource temporarily unavailable' "$T/err" && skip "a cpustat elsewhere took the counters"
	[ "$rc" -eq 0 ]
	[ "$(ct_count exec)" -eq 0 ]
	[ "$(ct_count exit)" -eq 1 ]
	[ -e "$SHARED/failed" ] && [ ! -e "$SHARED/ran" ]
}

# The BPF engine's counters are per CPU: while a cpustat holds CPUs it
# refuses before anything starts, with one line, exit 1 (as ptrace's
# refusal), a command never started and a -p target untouched.
cpustat_refuses_bpf() {
	local cs=$1 rc=0 refusal
	refusal="cputrack: --engine=bpf: cannot count per LWP while CPUs are bound (cpustat) - Resource temporarily unavailable"
	[ "$(cat "$T/err")" = "$refusal" ]
	[ -z "$(cat "$T/out")" ]
	[ ! -e "$T/ran" ]
	start_target "$W/wl_idle" 1 1
	wait_line "$T/target.out" '^ready$'
	timeout 60 "$CT" -p "$TPID" -c "$WRITE" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 1 ]
	[ "$(cat "$T/err")" = "$refusal" ]
	kill "$cs" 2>/dev/null || true
	assert_free "$TPID"
}

@test "exclusivity: a cputrack started while cpustat counts fails, exit 1; its command never runs" {
	[ -x "$CPUSTAT" ] || skip "cpustat is not built"
	ct_wait_counters
	timeout 60 "$CPUSTAT" -c task-clock 0.5 8 >/dev/null 2>&1 &
	local cs=$!
	ct_bg "$cs"
	wait_cpustat_holds || skip "cpustat did not take the counters"
	local rc=0
	timeout 60 "$CT" -c "$WRITE" "$W/ct_marker" "$T/ran" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 1 ]
	if [ "$ENGINE" = bpf ]; then
		cpustat_refuses_bpf "$cs"
		return
	fi
	local pid
	pid=$(sed -n 's/^ *\([0-9]*\): init_lwp: .*/\1/p' "$T/err")
	[ -n "$pid" ]
	[ "$(head -n 1 "$T/err")" = "$(printf '%6d' "$pid"): init_lwp: can't bind perf counters to lwp1 - Resource temporarily unavailable" ]
	# The command was held before its first instruction, and killed.
	[ ! -e "$T/ran" ]
	[ ! -e "/proc/$pid" ] || [ "$(proc_state "$pid")" = Z ]
	# A -p target is left running.
	start_target "$W/wl_idle" 1 1
	wait_line "$T/target.out" '^ready$'
	rc=0
	timeout 60 "$CT" -p "$TPID" -c "$WRITE" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 1 ]
	grep -qE "^ *$TPID: init_lwp: can't bind perf counters to lwp[0-9]+ - Resource temporarily unavailable\$" "$T/err"
	kill "$cs" 2>/dev/null || true
	assert_free "$TPID"
}

@test "exclusivity: cpustat starting invalidates a running cputrack -p, exit 1, target runs on" {
	[ -x "$CPUSTAT" ] || skip "cpustat is not built"
	start_target "$W/ct_steady" 1 5 100 0
	start_cputrack_until ' tick ' -T 0.1 -p "$TPID" -c "$WRITE"
	timeout 60 "$CPUSTAT" -c task-clock 0.2 3 >/dev/null 2>&1 &
	ct_bg $!
	wait_cputrack
	[ "$status" -eq 1 ]
	grep -qE "^ *$TPID: (tick|fini_lwp): lwp[0-9]+: perf counter contents invalidated\$" "$T/err"
	assert_free "$TPID"
}

@test "exclusivity: cpustat invalidates a command cputrack started; it runs on to its end" {
	[ -x "$CPUSTAT" ] || skip "cpustat is not built"
	start_cputrack_until ' tick ' -T 0.1 -f -c "$WRITE" "$W/ct_steady" 1 5 100 25 "$T/done"
	local pid
	pid=$(awk 'NR == 2 { print $2 }' "$T/out")
	timeout 60 "$CPUSTAT" -c task-clock 0.2 3 >/dev/null 2>&1 &
	ct_bg $!
	wait_cputrack
	[ "$status" -eq 1 ]
	grep -qE "^ *$pid: (tick|fini_lwp): lwp[0-9]+: perf counter contents invalidated\$" "$T/err"
	[ ! -e "$T/done" ]
	assert_free "$pid"
	wait_file "$T/done"
}

@test "SIGPIPE: the reader of the pipe goes away; cputrack ends with 0, no message; the command runs on" {
	ct_wait_counters
	(
		rc=0
		timeout --foreground 60 "$CT" -T 0.1 -c "$WRITE" "$W/ct_steady" 1 5 100 20 "$T/done" \
		    2>"$T/err" || rc=$?
		echo "$rc" >"$T/rc"
	) | head -n 3 >"$T/out"
	wait_file "$T/rc"
	grep -q 'Resource temporarily unavailable' "$T/err" && skip "a cpustat elsewhere took the counters"
	[ "$(cat "$T/rc")" -eq 0 ]
	[ -z "$(cat "$T/err")" ]
	[ "$(wc -l <"$T/out")" -eq 3 ]
	[ ! -e "$T/done" ]
	wait_file "$T/done"
}

@test "exec before the first sample without -e (#!/usr/bin/env, env, nice): followed, and said on stderr" {
	ct_run -c "$WRITE" /usr/bin/env "$W/wl_threads" 2 10
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_rows exit)" = "1 20" ]
	grep -qF "   1       exec                     # '$W/wl_threads 2 10'" "$T/out"
	pid=$(sed -n "s/^cputrack: pid \([0-9]*\) exec'd .* before its first sample: followed (-e follows every exec)$/\1/p" "$T/err")
	[ -n "$pid" ]
	[ "$(wc -l <"$T/err")" -eq 1 ]
	# A script that starts with #!/usr/bin/env: two execs, both early.
	printf '#!/usr/bin/env bash\nexec "%s" 1 7\n' "$W/wl_threads" >"$T/script"
	chmod +x "$T/script"
	ct_run -c "$WRITE" "$T/script"
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_rows exit)" = "1 7" ]
}

@test "exec after the first sample without -e: not followed, said on stderr with the pid and the image, exit 1" {
	ct_run -T 0.1 -c "$WRITE" /bin/sh -c "sleep 0.35; exec \"$W/ct_marker\" \"$T/ran\" 0 100"
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
