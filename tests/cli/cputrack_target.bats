# SPDX-License-Identifier: BSD-2-Clause
# The target behaves as if cputrack were not there: a stopped cputrack
# does not freeze it, signals cputrack ignored stay ignored, its limits,
# signal dispositions and open files are its own.
load cputrack_helper

setup() {
	ct_setup
	ensure_tracefs
	PY=$(python3 -c "import sys; print(sys.executable)")
}

teardown() {
	ct_teardown
}

# A loopback HTTP server that starts a thread per request (each one a
# clone event cputrack must see); prints its port on its stdout.
start_server() {
	"$PY" -c '
import http.server, socketserver, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"ok")
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
' >"$T/port" &
	SERVER=$!
	ct_bg "$SERVER"
	wait_filled "$T/port"
	PORT=$(cat "$T/port")
	[ -n "$PORT" ]
}

# get: one request, 30 s at most (a bound for a server that hangs);
# prints the status, or "timeout".
get() {
	"$PY" -c '
import sys, urllib.request
try:
    print(urllib.request.urlopen("http://127.0.0.1:%s/" % sys.argv[1], timeout=30).status)
except Exception as e:
    print("timeout", e)
' "$PORT"
}

stopped() {
	[ "$(proc_state "$1")" = T ]
}

# more_ticks_than N [FILE]: whether FILE ($T/out) has more than N tick rows.
more_ticks_than() {
	[ "$(grep -c ' tick ' "${2:-$T/out}" 2>/dev/null)" -gt "$1" ]
}

# The tracer a process has while cputrack $1 counts it: cputrack with
# ptrace, none with the BPF engine, which traces nothing.
tracer_while_counted() {
	if [ "$ENGINE" = bpf ]; then echo 0; else echo "$1"; fi
}

# SIGTSTP stops a process started here as cputrack is: the kernel
# discards it where the process group is orphaned (a detached run). A
# child of 2 s is sent SIGTSTP: it stops, or ends.
tstp_stops_here() {
	"$PY" -c '
import os, signal, subprocess, sys
p = subprocess.Popen(["sleep", "2"])
os.kill(p.pid, signal.SIGTSTP)
_, status = os.waitpid(p.pid, os.WUNTRACED)
p.kill()
os.kill(p.pid, signal.SIGCONT)
p.wait()
sys.exit(0 if os.WIFSTOPPED(status) else 1)
'
}

@test "-p: cputrack stopped (SIGTSTP) for 2 s, the server it tracks goes on answering; on SIGCONT cputrack takes it back and counts on" {
	tstp_stops_here ||
		skip "SIGTSTP does not stop even an untraced sleep here: this run's process group is orphaned, so the kernel discards it"
	start_server
	bg_until ' tick ' "$CT" -T 0.2 -c task-clock -p "$SERVER"
	[ "$(get)" = 200 ]
	kill -TSTP "$CPID"
	wait_for stopped "$CPID"
	# Let go while cputrack is stopped: untraced, and it answers, for
	# the 2 s the test keeps cputrack stopped (a time the scenario
	# takes, not a wait for an event).
	traced_by "$SERVER" 0
	local i
	for i in 1 2 3 4; do
		[ "$(get)" = 200 ]
		sleep 0.5 # not a wait: cputrack stays stopped 2 s, the server answering; at most 4 passes
	done
	local rows
	rows=$(grep -c ' tick ' "$T/out")
	kill -CONT "$CPID"
	wait_for traced_by "$SERVER" "$(tracer_while_counted "$CPID")"
	# Requests after: new threads, seen and counted again.
	[ "$(get)" = 200 ]
	[ "$(get)" = 200 ]
	wait_for more_ticks_than $((rows + 2))
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ] || { echo "status $status"; cat "$T/err"; false; }
	# LWP ids go on after the gap: no id is reused.
	awk '$3 == "lwp_create" { print $2 }' "$T/out" | sort | uniq -d >"$T/dups"
	[ ! -s "$T/dups" ]
	[ "$(tracer_of "$SERVER")" = 0 ]
	[ "$(get)" = 200 ]
}

# ticks_after N: until $T/rows has more than N tick rows.
ticks_after() {
	wait_for more_ticks_than "$1" "$T/rows"
}

# signal_survived PID SIG: send SIG to cputrack PID and to its command,
# wl_gate, which waits at the gate (gate_open); both go on: cputrack
# writes a tick row after the signal (had it ended, none would come), and
# the command, let through the gate, ends as it would have.
signal_survived() {
	local pid=$1 sig=$2 cmd rows
	ticks_after 0
	cmd=$(pgrep -P "$pid")
	[ -n "$cmd" ]
	rows=$(grep -c ' tick ' "$T/rows")
	kill -"$sig" "$cmd" "$pid"
	ticks_after "$rows"
	running "$cmd"
	gate_release
}

# gate_counted: the rows of a run of wl_gate 1 5 to its end: "ready" and
# the thread's 5 writes.
gate_counted() {
	[ "$(awk '$3 == "exit" { print $4 }' "$T/rows")" = 6 ]
}

@test "nohup cputrack: SIGHUP ignored at the start stays ignored, for cputrack and its command" {
	gate_open
	nohup "$CT" -T 0.1 -c "$WRITE" -o "$T/rows" "$W/wl_gate" 1 5 \
	    <"$T/gate" >"$T/nohup.out" 2>&1 &
	CPID=$!
	ct_bg "$CPID"
	signal_survived "$CPID" HUP
	wait "$CPID"
	gate_counted
}

@test "SIGINT ignored by a script's & stays ignored: a non-interactive shell's background cputrack outlives SIGINT" {
	gate_open
	bash -c "\"$CT\" -T 0.1 -c \"$WRITE\" -o \"$T/rows\" \"$W/wl_gate\" 1 5 <\"$T/gate\" & echo \$! >\"$T/pid\"; wait" &
	local sh=$!
	ct_bg "$sh"
	wait_filled "$T/pid"
	signal_survived "$(cat "$T/pid")" INT
	wait "$sh"
	gate_counted
}

@test "a command that asks its parent to trace it (PTRACE_TRACEME): the run ends; under BPF it runs to its end, never stopped, and SIGTERM ends the run" {
	if [ "$ENGINE" = ptrace ]; then
		# Traced already, as under any tracer: its PTRACE_TRACEME fails
		# (EPERM) and it ends at once, status 1, having written nothing.
		ct_run --pass-status -e -c "$WRITE" "$W/wl_traceme" 7 \
		    "$W/wl_traceme" 5
		[ "$status" -eq 1 ]
		[ "$(ct_rows exit | awk '{ print $2 }')" = 0 ]
		return
	fi
	# A tracee stops at its child's end (SIGCHLD) and at its exec
	# (SIGTRAP). 50 runs: a stop that the engine's own look for the
	# command's end once took left 1 run in 100 stopped for good.
	local i hung=0
	for i in $(seq 50); do
		CT_TIMEOUT=30 ct_run -e -c "$WRITE" "$W/wl_traceme" 7 \
		    "$W/wl_traceme" 5
		[ "$status" -eq 0 ] || hung=$((hung + 1))
	done
	[ "$hung" -eq 0 ]
	[ "$(ct_rows exec | awk '$2 ~ /^[0-9]+$/ { print $2 }')" = 7 ]
	[ "$(ct_rows exit | awk '{ print $2 }')" = 5 ]
	# One that stays: running, not stopped; SIGTERM goes to it and ends
	# the run.
	start_cputrack_until ' tick ' -e -T 0.1 -c "$WRITE" \
	    "$W/wl_traceme" 3 sleep 60
	local ct cmd start
	ct=$(pgrep -P "$CPID")
	cmd=$(pgrep -P "$ct")
	start=$(start_time "$cmd")
	[ "$(tr '\0' ' ' <"/proc/$cmd/cmdline")" = "sleep 60 " ]
	assert_free "$cmd"
	kill -TERM "$ct"
	wait_cputrack
	[ "$(start_time "$cmd")" != "$start" ]
	grep -q 'process terminated: killed by SIGTERM' "$T/err"
}

# A thread churner (threads made and joined without a pause) and a fork
# loop (dash, whose vfork parent waits for its child's exec) captured
# together with -f; sets CHURN and FORKS once both run.
start_churn_and_forks() {
	"$(wl_own wl_spawner)" 2 10 >"$T/spawner.out" &
	CHURN=$!
	ct_bg "$CHURN"
	sh -c 'while :; do /bin/true; done' &
	FORKS=$!
	ct_bg "$FORKS"
	wait_line "$T/spawner.out" '^ready$'
}

@test "ptrace engine: SIGTERM, SIGINT or SIGHUP to cputrack -f -p lets a thread churner and a fork loop go, 200 times, none left waiting" {
	[ "$ENGINE" = ptrace ] ||
	    skip "the BPF engine stops no target, so it has none to let go"
	local i sig stuck=0 failed=0
	local sigs=(TERM INT HUP)
	start_churn_and_forks
	for i in $(seq 200); do
		sig=${sigs[i % 3]}
		# Captured, and counting: its first tick row. (timeout passes
		# the signal on to cputrack.)
		start_cputrack_until ' tick ' -f -T 0.05 -p "$CHURN,$FORKS" \
		    -c "$WRITE" || { cat "$T/err"; false; }
		kill -"$sig" "$CPID"
		# One that hangs shows why, before its timeout ends it.
		WAIT_BOUND_S=60 wait_for ended "$CPID" ||
		    show_stuck $(descendants "$CPID") "$CHURN" "$FORKS"
		wait_cputrack
		# A target that never stopped to be let go is said so, once
		# libpctx has waited for it in vain.
		stuck=$((stuck + $(grep -c "won't stop" "$T/err" || true)))
		[ "$status" -eq 0 ] || [ "$status" -eq $((128 + $(kill -l "$sig"))) ] ||
		    { failed=$((failed + 1)); echo "SIG$sig: status $status"; cat "$T/err"; }
	done
	echo "targets that would not stop: $stuck; runs that failed: $failed"
	[ "$stuck" -eq 0 ]
	[ "$failed" -eq 0 ]
	# Both run on, untraced, as they would have without cputrack.
	assert_free "$CHURN"
	assert_free "$FORKS"
}

# captured_by PID TRACER: process PID's TracerPid is TRACER, read in the
# shell itself, so that a loop of it sees the capture within microseconds.
captured_by() {
	local key value
	while read -r key value; do
		if [ "$key" = TracerPid: ]; then
			[ "$value" = "$2" ]
			return
		fi
	done <"/proc/$1/status"
	return 1
}

# is_cputrack PID: process PID runs cputrack (or its wrapper): env has
# given SIGINT back its default, which a background job's shell ignores.
is_cputrack() {
	local comm
	read -r comm <"/proc/$1/comm" && [ "$comm" = cputrack ]
}

@test "SIGINT at any moment of cputrack -p's start ends it and leaves the target running, 100 times" {
	local i k stuck=0
	sh -c 'while :; do /bin/true; done' &
	TPID=$!
	ct_bg "$TPID"
	for i in $(seq 100); do
		env --default-signal=INT "$CT" -p "$TPID" -T 0.05 -c "$WRITE" \
		    >"$T/out" 2>"$T/err" &
		CPID=$!
		for ((k = 0; k < 100000; k++)); do # not a wait: the exec is a matter of microseconds
			is_cputrack "$CPID" 2>/dev/null && break
		done
		# Under ptrace, every other one the moment the target is
		# captured, before the loop that reads signals has begun;
		# else after a pause of up to 90 ms.
		if [ "$ENGINE" = ptrace ] && ((i % 2)); then
			for ((k = 0; k < 100000; k++)); do # not a wait: it aims at a window of microseconds
				captured_by "$TPID" "$CPID" 2>/dev/null && break
			done
		else
			sleep "0.0$((i % 10))" # not a wait: a delay that sets up the race; at most 100 passes
		fi
		kill -INT "$CPID"
		WAIT_BOUND_S=30 wait_for ended "$CPID" ||
		    { show_stuck "$CPID"; stuck=$((stuck + 1)); kill -KILL "$CPID"; }
		wait_cputrack
		assert_free "$TPID"
	done
	echo "runs that did not end on SIGINT: $stuck"
	[ "$stuck" -eq 0 ]
}

@test "a created command that handles SIGTERM: cputrack passes it on and tracks the command to its end; a second SIGTERM kills it" {
	start_cputrack_until ready -T 0.1 -c "$WRITE" "$PY" -c '
import signal, sys, time
signal.signal(signal.SIGTERM, lambda *a: print("got TERM", flush=True))
print("ready", flush=True)
while True: time.sleep(0.05)
'
	kill -TERM "$CPID"
	wait_line "$T/out" 'got TERM'
	# It lives on, tracked: ticks go on (there may be none yet).
	local n
	n=$(grep -c ' tick ' "$T/out" || true)
	wait_for more_ticks_than "$n"
	kill -TERM "$CPID"
	status=0
	wait "$CPID" || status=$?
	[ "$status" -eq 143 ] || { echo "status $status"; cat "$T/err"; false; }
	grep -q ' exit ' "$T/out"
}

@test "the target inherits what it would without cputrack: limits, signal mask and dispositions, no descriptor of cputrack's, its process group (with -o, -f, -e)" {
	mkdir "$T/bare" "$T/ct"
	# A soft descriptor limit below the hard one: cputrack raises its own.
	(
		ulimit -Sn 1024
		"$W/wl_env" "$T/bare/env" 2 </dev/null >/dev/null 2>&1
		ct_run -f -e -o "$T/rows" -c task-clock "$W/wl_env" "$T/ct/env" 2 </dev/null
		[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	)
	grep -q ' exit ' "$T/rows"
	local f
	for f in env env.child env.child.child; do
		sed "s,$T/bare/,DIR/," "$T/bare/$f" >"$T/bare.$f"
		sed "s,$T/ct/,DIR/," "$T/ct/$f" >"$T/ct.$f"
		# The same, but for stdout and stderr, which the two runs send
		# to files of their own, and SigQ, the queued signals of the user.
		grep -vE '^(fd [12] |SigQ:)' "$T/bare.$f" >"$T/a"
		grep -vE '^(fd [12] |SigQ:)' "$T/ct.$f" >"$T/b"
		diff "$T/a" "$T/b"
		grep -q 'Max open files *1024 ' "$T/ct.$f"
	done
}
