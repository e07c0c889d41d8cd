# SPDX-License-Identifier: BSD-2-Clause
# Job control in a real terminal (tmux), as a person uses it: Ctrl-Z, fg,
# bg, on a real less (which handles SIGTSTP itself) and on a
# multithreaded spinner, each compared with the same program run bare.
load terminal_helper

setup() {
	ct_setup
	command -v tmux >/dev/null || skip "tmux is not installed"
	command -v less >/dev/null || skip "less is not installed"
	terminal_open "cpct$$" 120 30
	# Its prompt: bash reads the keys from here on.
	wait_screen '^bash'
}

teardown() {
	local sid
	sid=$(tmux display-message -p -t "$S" '#{pane_pid}' 2>/dev/null) ||
	    sid=
	tmux kill-server 2>/dev/null || true
	ct_teardown
	# The spinners of this test's terminal only.
	[ -z "$sid" ] || pkill -KILL -s "$sid" -f "$W/wl_spin 3" 2>/dev/null ||
	    true
}

state() {
	awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null
}

# User and system CPU clock ticks of a whole process so far.
cpu() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# thread_cpu PID: "tid ticks" for each thread of PID, its user and system
# CPU clock ticks so far.
thread_cpu() {
	local f
	for f in /proc/"$1"/task/*/stat; do
		awk '{ sub(/^[0-9]+ \(.*\) /, ""); print FILENAME, $12 + $13 }' "$f"
	done 2>/dev/null
}

# all_run PID: until every thread of PID has used more CPU than it had
# when this was called (a busy machine may give them little, but runs
# them).
all_run() {
	thread_cpu "$1" >"$T/cpu.before"
	wait_for all_ran_since "$1" "$T/cpu.before" && return 0
	echo "threads of $1 that did not run:" >&2
	thread_cpu "$1" >&2
	return 1
}
# all_ran_since PID FILE: every thread that FILE (thread_cpu) lists has
# used more CPU since.
all_ran_since() {
	thread_cpu "$1" | awk 'NR == FNR { t[$1] = $2; next }
	    ($1 in t) && $2 > t[$1] { ran++ }
	    END { exit ran < length(t) }' "$2" -
}

# newest_in_terminal NAME: the pid of the newest NAME process in the
# terminal's session, not one of another run on the machine.
newest_in_terminal() {
	local sid
	sid=$(tmux display-message -p -t "$S" '#{pane_pid}')
	wait_for pgrep -n -x -s "$sid" "$1"
}

# wait_state PID STATES: until the process is in one of STATES.
wait_state() {
	wait_for state_in "$1" "$2" && return 0
	echo "pid $1 is in state $(state "$1"), not one of $2" >&2
	return 1
}
state_in() {
	[[ "$2" == *"$(state "$1")"* ]]
}

# all_stopped PID: until every thread of PID is stopped. A traced
# process's first thread shows t from its signal-delivery-stop on, while
# its other threads run until the tracer passes the signal on.
all_stopped() {
	wait_for threads_stopped "$1" && return 0
	echo "threads of $1 not stopped:" >&2
	cat /proc/"$1"/task/*/stat >&2
	return 1
}

# in_foreground PID: PID's process group is its terminal's foreground
# group: the shell gave it the terminal (fg).
in_foreground() {
	awk '{ sub(/^.*\) /, ""); exit $3 != $6 }' "/proc/$1/stat" 2>/dev/null
}

# reaped PID: process PID is gone, its exit status taken by its parent.
reaped() {
	[ ! -e "/proc/$1" ]
}

# run_in_terminal "PREFIX" PROGRAM ARGS: start it at the prompt.
run_in_terminal() {
	local prefix=$1
	shift
	keys "$prefix $*" Enter
}

# less_job PREFIX: Ctrl-Z stops less (and cputrack), fg brings less back
# with its screen, q quits. Prints the states seen.
less_job() {
	local l
	run_in_terminal "$1" less /etc/services
	l=$(newest_in_terminal less)
	wait_screen '^# Updated from'
	keys C-z
	wait_state "$l" tT
	wait_screen 'Stopped|^bash'
	keys fg Enter
	wait_state "$l" SR
	# less redraws its screen when it gets its SIGCONT.
	wait_screen '^# Updated from'
	keys q
	wait_for reaped "$l"
}

@test "less under cputrack: Ctrl-Z stops it, fg brings it back with its screen, q quits, as bare" {
	less_job ""
	less_job "$CT -c task-clock -o $T/rows"
	wait_line "$T/rows" ' exit '
}

# spinner_job PREFIX: wl_spin's four spinning threads, Ctrl-Z, bg, fg,
# Ctrl-Z, fg: prints the CPU ticks they used over a second stopped; fails
# unless every thread runs again after bg and after fg.
spinner_job() {
	local p a b
	run_in_terminal "$1" "$W/wl_spin" 3
	p=$(newest_in_terminal wl_spin)
	all_run "$p"
	keys C-z
	all_stopped "$p"
	sleep 0.3 # not a wait: the second measured begins clear of the stop
	a=$(cpu "$p"); sleep 1; b=$(cpu "$p") # not a wait: a second stopped, measured
	keys bg Enter
	wait_state "$p" SR
	all_run "$p"
	keys fg Enter
	wait_for in_foreground "$p"
	keys C-z
	wait_state "$p" tT
	keys fg Enter
	wait_state "$p" SR
	all_run "$p"
	keys C-c
	wait_for reaped "$p"
	echo "$((b - a))"
}

@test "a multithreaded spinner under cputrack: Ctrl-Z stops every thread, bg and fg resume every thread, as bare" {
	local bare traced
	bare=$(spinner_job "")
	traced=$(spinner_job "$CT -T 0.2 -c task-clock -o $T/rows")
	echo "stopped, CPU ticks in a second: bare $bare; traced $traced"
	# Stopped: no CPU time at all, as bare (a tick of slack for the stop).
	[ "$bare" -le 1 ]
	[ "$traced" -le 1 ]
}

@test "kill -TSTP to the job: every thread stops; bg resumes them" {
	local p g a b c d
	run_in_terminal "$CT -T 0.2 -c task-clock -o $T/rows" "$W/wl_spin" 3
	p=$(newest_in_terminal wl_spin)
	g=$(awk '{ print $5 }' "/proc/$p/stat")
	all_run "$p"
	kill -TSTP -- "-$g"
	all_stopped "$p"
	sleep 0.3 # not a wait: the second measured begins clear of the stop
	a=$(cpu "$p"); sleep 1; b=$(cpu "$p") # not a wait: a second stopped, measured
	keys bg Enter
	wait_state "$p" SR
	all_run "$p"
	echo "stopped: $((b - a))"
	[ $((b - a)) -le 1 ]
	kill -INT -- "-$g"
}

# threads_stopped PID: every thread of PID is stopped now (ptrace shows a
# thread stopped under its tracer as t).
threads_stopped() {
	awk '{ sub(/^[0-9]+ \(.*\) /, ""); if ($1 != "t" && $1 != "T") n++ }
	    END { exit n > 0 }' /proc/"$1"/task/*/stat 2>/dev/null
}

# job_done PID [ROWS]: until the command PID is gone and, for a run under
# cputrack, its exit row is in ROWS; sets writes to what that row counted.
job_done() {
	wait_for reaped "$1"
	[ -n "${2:-}" ] || return 0
	wait_line "$2" ' exit '
	writes=$(awk '$3 == "exit" { print $NF }' "$2")
}

# shell_says WORD: until the terminal shows WORD (a job's state).
shell_says() {
	wait_screen "$1"
}

# selfstop_job PREFIX [ROWS]: wl_selfstop's three spinners and its main
# thread stop when it stops itself, and the shell says the job stopped;
# fg resumes every thread and it ends (writes: what ROWS counted).
selfstop_job() {
	local p
	run_in_terminal "$1" "$W/wl_selfstop" 3 100
	p=$(newest_in_terminal wl_selfstop)
	all_stopped "$p"
	shell_says Stopped
	threads_stopped "$p"
	keys fg Enter
	job_done "$p" "${2:-}"
	keys clear Enter
}

@test "a command that stops itself (kill(getpid(), SIGTSTP)): the job stops, every thread, fg resumes it, counts exact" {
	selfstop_job ""
	selfstop_job "$CT -c $WRITE -o $T/rows" "$T/rows"
	[ "$writes" -eq 200 ]
}

# Under ptrace the command's threads cannot all stop: the thread that
# takes the SIGSTOP waits in its signal-delivery-stop for cputrack, which
# the same SIGSTOP stopped, and the others run on until fg. What must hold
# under both engines is that fg resumes every thread and nothing is lost.
@test "kill -STOP to the job: every thread of the command stops (BPF engine); fg resumes every thread, counts exact" {
	local p g
	run_in_terminal "$CT -c $WRITE -o $T/rows" "$W/wl_selfstop" 3 100 usr1
	p=$(newest_in_terminal wl_selfstop)
	g=$(awk '{ print $5 }' "/proc/$p/stat")
	writes_past "$p" 99
	all_run "$p"
	kill -STOP -- "-$g"
	shell_says Stopped
	if [ "$ENGINE" = bpf ]; then
		all_stopped "$p"
		threads_stopped "$p"
	fi
	keys fg Enter
	wait_state "$p" SR
	all_run "$p"
	kill -USR1 "$p"
	job_done "$p" "$T/rows"
	[ "$writes" -eq 200 ]
}
