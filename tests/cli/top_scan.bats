#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cputop watching the whole machine, as a user (its processes counted from
# outside, cputop_scan.c) and as root (the BPF engine, or in the ptrace
# pass the scan too): out of descriptors, a busy process of many threads
# is counted by its busiest threads and what is left out is said; the
# header's processes and threads are those ps counts, the ended apart; a
# short process has its owner; the view says no other process's death;
# and a build's totals, what its short commands counted between two
# scans included, are what perf stat counts of the same build, with the
# page faults alone or as a member of a set's second perf group ({...}):
# as a user, with two groups of software events, exactly.
# Each test's processes are named for it, or run as a user of its own.
load terminal_helper

setup() {
	ct_setup
	TOP=$BUILD_DIR/cmd/cputop
	S=
}

teardown() {
	[ -z "$S" ] || tmux kill-server 2>/dev/null || true
	ct_teardown
}

# in_namespace SCRIPT ARGS...: bash's SCRIPT, as root, in a PID namespace
# of its own with its own /proc, where a whole machine's view sees only
# what SCRIPT starts; the tests' wait (wait.bash) and threads (PID N:
# until process PID has N threads) are there.
in_namespace() {
	command -v unshare >/dev/null || skip "unshare is not installed"
	unshare --pid --fork --mount-proc bash -c \
	    'source "$0"; thread_count() { [ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -eq "$2" ]; }
	     threads() { wait_for thread_count "$1" "$2"; }
	     '"$1" "$SOURCE_DIR/tests/cli/wait.bash" "${@:2}"
}

# big_one DIR NBUSY NIDLE: wl_busyidle named for this test (big<pid>), in
# DIR; its path.
big_one() {
	ln -sf "$(realpath "$W/wl_busyidle")" "$1/big$$"
	echo "$1/big$$"
}

# fd_limited OUT ERR TOP...: the view of a process of 2 busy and 300 idle
# threads, big<pid>, with 150 descriptors (TOP... runs it, -b): the busy
# threads are counted, the others said; the header names it, its totals
# are partial (exit status 1).
fd_limited() {
	local out=$1 err=$2
	shift 2
	"$@" >"$out" 2>"$err" || status=$?
	[ "${status:-0}" -eq 1 ] || { cat "$err"; false; }
	last_block "$out" >"$T/totals"
	# Its line, counted: two busy threads' CPU time.
	awk -v b="big$$" '$NF == b && $4 ~ /s$/ && $4 + 0 > 0 { f = 1 } END { exit !f }' \
	    "$T/totals" || { cat "$out"; false; }
	grep -qE "^- not counted in part: [0-9]+ of 303 threads of big$$ \\([0-9]+\\)" \
	    "$T/totals" || { cat "$out"; false; }
	grep -qE "^cputop: out of file descriptors: the busiest threads are counted; not counted: [0-9]+ of 303 threads of big$$ \\([0-9]+\\)" \
	    "$err" || { cat "$err"; false; }
}

@test "as a user with 150 descriptors: a busy process of 302 threads is counted by its busiest, what is left out said in the header, the totals and the message" {
	local big
	user_setup 30
	big=$(big_one "$(nobody_dir)")
	"${AS_USER[@]}" "$big" 2 300 & # not a wait: the user's busy process
	ct_bg $!
	threads $! 303
	fd_limited "$T/out" "$T/err" "${AS_USER[@]}" prlimit --nofile=150:150 \
	    "$USER_TOP" -b -T 0.3 -N 2 -c task-clock
}

@test "as root with 150 descriptors, counted from outside: a busy process of 302 threads is counted by its busiest, what is left out said" {
	local big
	big=$(big_one "$T")
	# Alone in its namespace: the busiest process the view finds there.
	fd_limited "$T/out" "$T/err" in_namespace \
	    '"$1" 2 300 & threads $! 303
	     exec prlimit --nofile=150:150 "$2" --engine=ptrace -b -T 0.3 -N 2 -c task-clock' \
	    "$big" "$TOP"
}

# two_busy: two busy threads on the screen, each with a value.
two_busy() {
	[ "$(screen | grep -cE ' [0-9.]+ +  busy$')" -eq 2 ]
}

@test "in a terminal, as a user with 150 descriptors: H shows the busy threads counted, the idle ones -" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	local big
	user_setup 31
	big=$(big_one "$(nobody_dir)")
	"${AS_USER[@]}" "$big" 2 300 & # not a wait: the user's busy process
	ct_bg $!
	threads $! 303
	terminal_open "cpscan$$" 100 40
	tmux set-option -t "$S" status off
	in_terminal "${AS_USER[*]}" prlimit --nofile=150:150 "$USER_TOP" -T 0.3 -c task-clock
	wait_screen "^- not counted in part: [0-9]+ of 303 threads of big$$"
	keys H
	# Both busy threads, each counted: the busiest first.
	wait_for two_busy
	screen | grep -qE ' - +  busy$' && fail "a busy thread shown as not counted"
	# The lowest first: the idle threads not counted.
	keys r
	wait_screen ' - +  idle$'
	screen | grep -qE ' - +  busy$' && fail "a busy thread shown as not counted"
	keys q
}

# user_procs N: the user has N processes.
user_procs() {
	[ "$(ps -U "$USER_ID" -o pid= | wc -l)" -eq "$1" ]
}

# ps_count UID: the processes and threads of user UID now, as ps counts
# them: "N processes, M threads".
ps_count() {
	echo "$(ps -U "$1" -o pid= | wc -l) processes, $(ps -L -U "$1" -o lwp= | wc -l) threads"
}

@test "as a user: the header's processes and threads are ps's, and those that ended are apart" {
	local big gate ud
	user_setup 32
	ud=$(user_dir)
	big=$(big_one "$(nobody_dir)")
	"${AS_USER[@]}" "$big" 0 4 & # not a wait: a process of 5 threads
	ct_bg $!
	threads $! 5
	for _ in 1 2 3; do
		"${AS_USER[@]}" sleep 600 & # not a wait: processes of one thread
		ct_bg $!
	done
	wait_for user_procs 4
	# One more, that ends while the view runs.
	gate=$ud/gate
	mkfifo -m 0600 "$gate"
	chown "$USER_ID" "$gate"
	"${AS_USER[@]}" sh -c 'read -r x <"$1"' sh "$gate" & # not a wait: it ends at the gate's line
	ct_bg $!
	wait_for user_procs 5
	[ "$(ps_count "$USER_ID")" = "5 processes, 9 threads" ]
	"${AS_USER[@]}" "$USER_TOP" -b -T 0.3 -c task-clock >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_rows_until '/^watching your processes .*: 5 processes, 9 threads$/ { f = 1 } END { exit !f }'
	echo >"$gate"
	wait_rows_until '/^watching your processes .*: 4 processes, 8 threads; 1 ended$/ { f = 1 } END { exit !f }'
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	# The totals: what runs, and what ended, apart.
	last_block "$T/out" | grep -qE '^watching your processes .*: 4 processes, 8 threads; 1 ended$' ||
	    { cat "$T/out"; false; }
}

@test "as root: a target's header is ps's; the whole machine's, in a namespace of its own, too" {
	local big pids
	big=$(big_one "$T")
	"$big" 0 4 & # not a wait: a process of 5 threads
	ct_bg $!
	pids=$!
	sleep 600 & # not a wait: a process of one thread
	ct_bg $!
	pids=$pids,$!
	threads "${pids%%,*}" 5
	run --separate-stderr "$CT" --top -b -T 0.3 -N 2 -c task-clock -p "$pids"
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	grep -qE "^watching pid $pids: 2 processes, 6 threads\$" <<<"$output" ||
	    { echo "$output"; false; }
	# Counted from outside, the machine as this namespace has it: the
	# view (pid 1) and what it starts, as ps there counts them.
	run --separate-stderr in_namespace \
	    '"$1" 0 4 & threads $! 5
	     sleep 600 & # not a wait: a process of one thread
	     threads $! 1
	     others() { awk '"'"'$1 != 1 && $2 != "ps" && $2 != "awk" && $2 != "bash" { n++ } END { print n }'"'"'; }
	     echo "$(ps -e -o pid=,comm= | others) processes, $(ps -eL -o pid=,comm= | others) threads"
	     exec "$2" --engine=ptrace -b -T 0.3 -N 2 -c task-clock' \
	    "$big" "$TOP"
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	grep -qE "^watching every process \\(--engine=ptrace traces a target\\): $(head -n 1 <<<"$output")\$" \
	    <<<"$output" || { echo "$output"; false; }
}

@test "as a user: a short process seen by one scan, gone at the next, has its owner, not ?" {
	local sl loop
	user_setup 33
	sl=$(nobody_dir)/sl$$
	ln -sf "$(command -v sleep)" "$sl"
	loop=$(nobody_dir)/loop$$
	printf '#!/bin/sh\nfor i in $(seq 12); do "%s" 0.3; done\n' "$sl" >"$loop"
	chmod 0755 "$loop"
	# A process of the user's: the view has a screen to show from the
	# start.
	"${AS_USER[@]}" sleep 600 & # not a wait: a process of the user's
	ct_bg $!
	"${AS_USER[@]}" "$USER_TOP" -b -T 1 -c task-clock >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_rows_until '/^ +PID USER/ { f = 1 } END { exit !f }'
	"${AS_USER[@]}" "$loop"
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	last_block "$T/out" >"$T/totals"
	# Those seen: each with its owner (its uid, in the USER column's 8).
	awk -v c="sl$$" -v u="${USER_ID:0:8}" '
	    $0 ~ " " c "( x[0-9]+)? <ended>$" { n++; if ($1 != u && $2 != u) bad++ }
	    / \? / { bad++ }
	    END { exit !(n > 0 && !bad) }' "$T/totals" || { cat "$T/out"; false; }
}

@test "a whole machine's view says no other process's death; a target named has it said" {
	local victim
	ln -sf "$(command -v sleep)" "$T/vic$$"
	"$T/vic$$" 600 & # not a wait: a process of the test's, to be killed
	victim=$!
	ct_bg "$victim"
	"$TOP" -b -T 0.3 -c task-clock >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_rows_until "\$1 == $victim { f = 1 } END { exit !f }"
	end_bg "$victim" TERM
	wait_rows_until "\$1 == $victim && \$NF == \"<ended>\" { f = 1 } END { exit !f }"
	kill -TERM "$CPID"
	wait_cputrack
	! grep -q 'process terminated' "$T/err" || { cat "$T/err"; false; }
	# A command named that a signal ends: said.
	run --separate-stderr "$CT" --top -b -T 0.3 -c task-clock sh -c 'kill -TERM $$'
	[[ $stderr == *"process terminated: killed by SIGTERM"* ]] || { echo "$stderr"; false; }
}

# a_build DIR: a build in DIR, every process of it named for this test:
# make (mk<pid>) runs 4 targets, 2 at once, in a shell (sh<pid>), each a
# loop (of the shell's own) of 40 short commands (wl<pid>), most of which
# start and end between two scans. make is started by build_counted's
# gate (gt<pid>), a shell that execs it once a line comes on DIR/gate.
a_build() {
	local d=$1 n
	ln -sf "$(command -v make)" "$d/mk$$"
	ln -sf "$(realpath /bin/sh)" "$d/sh$$"
	ln -sf "$(realpath /bin/sh)" "$d/gt$$"
	ln -sf "$(realpath "$W/wl_threads")" "$d/wl$$"
	mkfifo -m 0666 "$d/gate"
	{
		printf 'SHELL := %s/sh%s\n.PHONY: all a b c d\n' "$d" "$$"
		printf 'all: a b c d\n'
		for n in a b c d; do
			printf '%s:\n' "$n"
			printf '\t@i=0; while [ $$i -lt 40 ]; do %s/wl%s 1 2; i=$$((i + 1)); done\n' \
			    "$d" "$$"
		done
	} >"$d/Makefile"
	chmod -R a+rX "$d"
}

# at_gate PID: PID waits to open the gate's fifo, its start-up done.
at_gate() {
	[ "$(cat "/proc/$1/wchan" 2>/dev/null)" = wait_for_partner ]
}

# build_total FILE: the page faults of the build's lines (gt, mk, sh and wl,
# folded or not) in -b's last screen of FILE.
build_total() {
	last_block "$1" | awk -v p="$$" '
	    /^ +PID USER +THR / { at = index($0, "page-fault") + 9; next }
	    at && $0 ~ " (gt|mk|sh|wl)" p "( x[0-9]+)?( <ended>)?$" {
		v = substr($0, at - 9, 10); sub(/^ +/, "", v); n += v }
	    END { print n + 0 }'
}

# build_counted TOP...: a build in a directory the user may read, run as
# AS (an array: the user, or nothing for root), watched by TOP... (-b)
# counting the set EVENTS (page-faults, or a set that holds it).
# Nothing of the build runs before both counters are on: its gate has
# done its start-up before the view starts, perf stat counts the gate's
# tree from once the view has shown it, and make is exec'd after both.
# The view's totals of the build are within PERCENT (default 1) % of perf
# stat's; or short, where cputop says the kernel lost records of the
# tasks that ended (two tasks ending at the same instant on two CPUs may
# be given one place in a ring), by no more than 100 faults a record (a
# task of the build faults fewer times).
build_counted() {
	local d gate perf lost
	command -v make >/dev/null || skip "make is not installed"
	command -v perf >/dev/null || skip "perf is not installed"
	d=$(nobody_dir)/build
	mkdir -m 0755 "$d"
	a_build "$d"
	"${AS[@]}" "$d/gt$$" -c "read x <$d/gate; exec $d/mk$$ -C $d -j2" \
	    >/dev/null 2>&1 &
	gate=$!
	ct_bg "$gate"
	wait_for at_gate "$gate"
	"$@" -b -T 0.5 -c "${EVENTS:-page-faults}" >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_rows_until "\$1 == $gate { f = 1 } END { exit !f }"
	perf_stat_bg "$gate" "$T/perf" -x, -e page-faults:u
	echo >"$d/gate"
	wait "$gate"
	wait "$PERF_PID" || true
	kill -TERM "$CPID"
	wait_cputrack
	perf=$(awk -F, '$3 == "page-faults:u" { print $1 }' "$T/perf")
	lost=$(sed -n 's/^cputop: the kernel lost \([0-9]*\) counts of tasks .*/\1/p' \
	    "$T/err" | tail -n 1)
	awk -v n="$(build_total "$T/out")" -v perf="$perf" \
	    -v pc="${PERCENT:-1}" -v lost="${lost:-0}" 'BEGIN {
	    d = n - perf; if (d < 0) d = -d
	    if (perf > 1000 && d <= perf * pc / 100) exit 0
	    if (perf > 1000 && n < perf && perf - n <= lost * 100) exit 0
	    print "the view counted " n ", perf stat " perf; exit 1 }' ||
	    { cat "$T/out" "$T/err"; false; }
}

@test "as a user: a build's totals, its short commands that ran between two scans included, are perf stat's within 1%" {
	user_setup 34
	AS=("${AS_USER[@]}")
	build_counted "${AS_USER[@]}" "$USER_TOP"
}

@test "as root: a build's totals, each of its short commands included, are perf stat's within 1%" {
	AS=()
	build_counted "$TOP"
}

# A set of two groups ({...}), the page faults a member of the second:
# each value scaled by its own group's times, as the scan hands them. As
# a user, each group a perf group of its own on each thread and sentinel,
# and every count of the build's short tasks comes whole from the
# sentinels' rings, though a ring's reader is woken while a task is still
# writing its records, and though tasks that end together on two CPUs
# can leave a ring's head unpublished (cputop_unseen.c): the same count
# as perf stat's, to the fault, but for records the kernel lost and
# cputop said (build_counted).
@test "as a user: a set of two groups of software events counts a build exactly as perf stat does, or says what the kernel lost" {
	user_setup 36
	AS=("${AS_USER[@]}")
	EVENTS='{task-clock,cpu-clock},{minor-faults,page-faults}'
	PERCENT=0
	build_counted "${AS_USER[@]}" "$USER_TOP"
}

@test "as root: a set of two groups counts a build as perf stat does, within 1%" {
	AS=()
	EVENTS='{task-clock,cpu-clock},{minor-faults,page-faults}'
	build_counted "$TOP"
}

@test "as a user: COMMAND is re-read at an exec, the scan's new name in the view as in the rows" {
	local gate ud pid
	user_setup 35
	ud=$(user_dir)
	gate=$ud/gate
	mkfifo -m 0600 "$gate"
	chown "$USER_ID" "$gate"
	# A shell that execs the workload once the view has seen it as sh.
	"${AS_USER[@]}" sh -c 'read -r x <"$1"; exec "$2" 1 1 50 0' sh "$gate" \
	    "$W/ct_steady" & # not a wait: it runs until the test ends it
	pid=$!
	ct_bg "$pid"
	"${AS_USER[@]}" "$USER_TOP" -b -T 0.3 -c task-clock >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_rows_until "\$1 == $pid && \$NF == \"sh\" { f = 1 } END { exit !f }"
	echo >"$gate"
	wait_rows_until "\$1 == $pid && \$NF == \"ct_steady\" { f = 1 } END { exit !f }"
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	last_block "$T/out" | awk -v p="$pid" '$1 == p && $NF == "ct_steady" { f = 1 }
	    END { exit !f }' || { cat "$T/out"; false; }
}
