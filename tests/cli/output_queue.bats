#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The output never holds the commands up: a reader that stops fills a
# bounded queue, the target (cputrack) and the samples (cpustat) go on at
# their own pace, and what does not fit is dropped, counted, said on
# stderr and in the exit status (3), tick rows first, the totals kept.

load output_helper

setup() {
	out_setup
}

teardown() {
	local p
	# A reader left stopped by a failed test would hold a pipe for ever.
	for p in $(cat "$T"/reader 2>/dev/null); do
		kill -CONT "$p" 2>/dev/null || true
	done
	out_teardown
}

# reader_state: the state letter of the stopped reader of the pipe.
reader_state() {
	proc_state "$(cat "$T/reader")"
}

# run_stopped_reader [command...]: COMMAND | a reader that stops itself
# at once (SIGSTOP) and later copies the rows to $T/out; in the
# background. The command's status goes to $T/rc, its stderr to $T/err.
run_stopped_reader() {
	rm -f "$T/rc" "$T/reader" "$T/out"
	{
		rc=0
		"$@" 2>"$T/err" || rc=$?
		echo "$rc" >"$T/rc"
	} | {
		sh -c 'echo $$ >"$1"; kill -STOP $$; exec cat >"$2"' sh \
		    "$T/reader" "$T/out"
	} &
	ct_bg $!
	wait_filled "$T/reader"
}

# tasks PID: how many threads process PID has.
tasks() {
	ls "/proc/$1/task" | wc -l
}
more_tasks_than() {
	[ "$(tasks "$1")" -gt "$2" ]
}
tasks_at_most() {
	[ "$(tasks "$1")" -le "$2" ]
}

@test "cputrack: a stopped reader never holds the target up; ticks are dropped, counted and said, the totals kept; exit 3" {
	local try
	for try in 1 2 3 4 5; do
		rm -f "$T/done"
		# Threads made one after the other (each waits for the tracer
		# before its first instruction) while 64 threads tick every
		# millisecond: far more rows than the pipe and the queue hold.
		# Five counters a row make the rows wide, so that the queue
		# fills even where the tracer keeps only a fifth of the ticks.
		run_stopped_reader timeout -k 5 120 "$CT" -ef -T 0.001 \
		    -c "$WRITE,task-clock,context-switches,page-faults,minor-faults" \
		    sh -c '"$1/ct_steady" 64 10 1 3000 & "$1/wl_churn" 300 4 10;
		    wait; echo done >"$2"' sh "$W" "$T/done"
		# The whole workload ends while the reader is still stopped.
		wait_filled "$T/done" || { cat "$T/err"; false; }
		[ "$(reader_state)" = T ]
		kill -CONT "$(cat "$T/reader")"
		wait_filled "$T/rc"
		counters_taken || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 5 tries
	done
	cat "$T/err"
	echo "status $(cat "$T/rc"), $(wc -l <"$T/out") rows read"
	[ "$(cat "$T/rc")" -eq 3 ]
	[ "$(wc -l <"$T/err")" -eq 1 ]
	grep -qE "^cputrack: [0-9]+ rows dropped: the output to 'stdout' did not keep up \(a queue of 4194304 bytes was full\): [0-9]+ (tick|gap)(, [0-9]+ (tick|gap))?\$" "$T/err"
	# Every total got through, exact: 64 x 10 x 3000 + 300 x 4 x 10 (the
	# shell's echo is a write too).
	local exits
	exits=$(awk '$4 == "exit" { s += $5 } END { print s + 0 }' "$T/out")
	[ "$exits" -eq 1932001 ]
	[ "$(awk '$4 == "lwp_exit"' "$T/out" | wc -l)" -eq 1264 ]
	# The count on stderr is what is missing from the ticks (a tick
	# that came late is a gap row).
	local dropped
	dropped=$(sed -E 's/^cputrack: ([0-9]+) rows dropped.*/\1/' "$T/err")
	[ "$dropped" -gt 0 ]
}

@test "cpustat: a stopped reader never holds the samples up, every interval is a row" {
	local n pid
	n=$("$PY" -c 'import os; print(len(os.sched_getaffinity(0)))')
	# Rows of 8 counters every 2 ms on each CPU: the pipe alone would be
	# full in well under a second.
	run_stopped_reader sh -c 'echo $$ >"$0"; exec "$@"' "$T/cs.pid" "$CS" -c \
	    task-clock,cpu-clock,context-switches,cpu-migrations,page-faults,minor-faults,major-faults,cgroup-switches \
	    0.002 1500
	wait_filled "$T/cs.pid"
	pid=$(cat "$T/cs.pid")
	# Its threads start: one per CPU besides the main thread and the
	# writer (a slow start has only the main thread for a while).
	wait_for more_tasks_than "$pid" 2
	# Every CPU's thread samples its 1500 intervals and ends, the reader
	# still stopped: cpustat is left with its main thread and the one
	# that writes the rows.
	wait_for tasks_at_most "$pid" 2 || { tasks "$pid"; false; }
	[ "$(reader_state)" = T ]
	kill -CONT "$(cat "$T/reader")"
	wait_filled "$T/rc"
	cat "$T/err"
	[ "$(cat "$T/rc")" -eq 0 ]
	# Nothing dropped: every CPU's rows stand for its 1500 intervals (a
	# gap row, for a sample time passed before its thread could run,
	# says how many).
	"$PY" - "$T/out" "$n" <<'EOF'
import re, sys
n = int(sys.argv[2])
intervals = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 3 and f[2] in ("tick", "gap"):
        m = re.search(r"# ([0-9]+) intervals in ", line)
        k = int(m.group(1)) if f[2] == "gap" else 1
        intervals[int(f[1])] = intervals.get(int(f[1]), 0) + k
assert len(intervals) == n, intervals
assert all(v == 1500 for v in intervals.values()), intervals
EOF
}

@test "the queue's end: a reader gone (EPIPE) ends cputrack quietly, as before" {
	local try
	for try in 1 2 3 4 5; do
		status=0
		timeout -k 5 60 "$CT" -T 0.01 -c "$WRITE" "$W/ct_steady" 2 5 10 300 \
		    2>"$T/err" | head -n 3 >"$T/out" || status=$?
		counters_taken || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 5 tries
	done
	[ "$(wc -l <"$T/out")" -eq 3 ]
	[ ! -s "$T/err" ]
}
