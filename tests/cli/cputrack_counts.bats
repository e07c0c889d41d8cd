#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# cputrack: exact counts per LWP and per process from deterministic
# workloads, checked against perf stat; tick deltas; several sets; -T 0;
# CSV and JSON; line-buffered output; what this machine cannot count.

load cputrack_helper

setup() {
	ct_setup
	ensure_tracefs
}

teardown() {
	ct_teardown
}

@test "threads: each lwp_exit is K, exit is the sum, equal to perf stat" {
	ct_run -T 0 -c "$WRITE" "$W/wl_threads" 4 1000
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(ct_rows lwp_create | sort)" = "$(printf '%s\n' '2 0' '3 0' '4 0' '5 0')" ]
	[ "$(ct_rows lwp_exit | sort)" = "$(printf '%s\n' '2 1000' '3 1000' '4 1000' '5 1000')" ]
	[ "$(ct_rows exit)" = "1 4000" ]
	# The main thread wrote nothing: the lwp_exit rows add up to exit.
	[ "$(ct_sum lwp_exit)" -eq "$(ct_sum exit)" ]
	[ "$(perf_count "$WRITE" "$W/wl_threads" 4 1000)" -eq 4000 ]
}

@test "threads with a writing main thread: exit = lwp_exits + main's own" {
	ct_run -c "$WRITE" "$W/wl_threads" 3 500 77
	[ "$status" -eq 0 ]
	[ "$(ct_sum lwp_exit)" -eq 1500 ]
	[ "$(ct_rows exit)" = "1 1577" ]
	[ "$(perf_count "$WRITE" "$W/wl_threads" 3 500 77)" -eq 1577 ]
}

@test "thread churn: every short thread once, exact, totals add up" {
	ct_run -T 0 -c "$WRITE" "$W/wl_churn" 20 5 30
	[ "$status" -eq 0 ]
	[ "$(ct_count lwp_create)" -eq 100 ]
	[ "$(ct_count lwp_exit)" -eq 100 ]
	# LWP ids 2..101, each created once and exited once with 30.
	[ "$(ct_rows lwp_exit | awk '{ print $1 }' | sort -n | uniq | wc -l)" -eq 100 ]
	[ "$(ct_rows lwp_exit | awk '$2 != 30' | wc -l)" -eq 0 ]
	[ "$(ct_rows exit)" = "1 3000" ]
	[ "$(perf_count "$WRITE" "$W/wl_churn" 20 5 30)" -eq 3000 ]
}

# A thread's sets are those of a thread that ended before it, given back
# and bound again: every thread counts from zero all the same, in both
# sets, whichever of them had the turn when it began. Both engines count
# the two sets of tracepoints as one group, so nothing is counted twice
# or lost at a switch (under the BPF engine, a switch the kernel hid may
# add a hidden task's writes to a thread: counted_exactly).
@test "thread churn with two sets taking turns: each thread's rows add up to exactly K, the totals too" {
	local debug= l sum
	[ "$ENGINE" != bpf ] || debug=-D
	ct_run $debug -T 0.002 -c "$WRITE" -c "$WRITE" "$W/wl_churn" 40 5 3000
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	awk '$3 == "lwp_exit" { sum[$2] += $4; rows[$2]++ }
	    END { for (l in sum) print l, sum[l], rows[l] }' "$T/out" >"$T/lwps"
	[ "$(wc -l <"$T/lwps")" -eq 200 ]
	# Some threads ran through a tick: both sets counted for them.
	awk '$3 > 1 { n++ } END { exit !(n > 0) }' "$T/lwps"
	while read -r l sum _; do
		counted_exactly "$sum" 3000 || { echo "lwp $l"; false; }
	done <"$T/lwps"
	counted_exactly "$(awk '$3 == "exit" { s += $4 } END { print s }' \
	    "$T/out")" 600000
}

@test "-f fork tree: a fork row per child, each pid's exit is K, total equals perf stat" {
	ct_run -f -T 0 -c "$WRITE" "$W/wl_forktree" 2 3 250
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# 1 + 3 + 9 processes: 12 fork rows, 13 exit rows of 250 each.
	[ "$(ct_count -f fork)" -eq 12 ]
	[ "$(ct_count -f exit)" -eq 13 ]
	[ "$(ct_rows -f exit | awk '$3 != 250' | wc -l)" -eq 0 ]
	# Each child named by a fork row exits exactly once, under its pid.
	diff <(awk '$4 == "fork" { print $NF }' "$T/out" | sort) \
	    <(ct_rows -f exit | awk '{ print $1 }' | sort | grep -vx "$(awk '$4 == "fork" { print $2; exit }' "$T/out")")
	[ "$(ct_rows -f exit | awk '{ print $1 }' | sort | uniq -d | wc -l)" -eq 0 ]
	[ "$(ct_sum -f exit)" -eq 3250 ]
	[ "$(perf_count "$WRITE" "$W/wl_forktree" 2 3 250)" -eq 3250 ]
}

@test "without -f: fork rows, children untracked, only the parent's exit" {
	ct_run -T 0 -c "$WRITE" "$W/wl_forktree" 1 4 100
	[ "$status" -eq 0 ]
	[ "$(ct_count fork)" -eq 4 ]
	[ "$(ct_count exit)" -eq 1 ]
	[ "$(ct_rows exit)" = "1 100" ]
	# No pid column without -f.
	[ "${lines[0]}" = "   time lwp      event      pic0 " ]
}

@test "-e exec chain: each exec total is K, with the new image's arguments" {
	ct_run -e -T 0 -c "$WRITE" "$W/wl_exec_chain" 3 321
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(ct_rows exec | awk 'NF == 2')" = "$(printf '1 321\n1 321\n1 321')" ]
	local n
	for n in 2 1 0; do
		grep -qxF "   1       exec                     # '$(psargs "$W/wl_exec_chain" $n 321)'" \
		    <(cut -c8- "$T/out")
	done
	[ "$(ct_rows exit)" = "1 321" ]
	[ "$(perf_count "$WRITE" "$W/wl_exec_chain" 3 321)" -eq 1284 ]
}

@test "exec marker: control characters in the arguments escaped, one line in every format" {
	local arg
	arg=$(printf 'a\tb\nc')
	ct_run -e -T 0 -c "$WRITE" /usr/bin/env /bin/true "$arg"
	[ "$status" -eq 0 ]
	grep -qxF "   1       exec                     # '/bin/true a\\x09b\\x0ac'" <(cut -c8- "$T/out")
	[ "${#lines[@]}" -eq 4 ]
	ct_run --format=csv -e -T 0 -c "$WRITE" /usr/bin/env /bin/true "$arg"
	[ "$status" -eq 0 ]
	grep -qF '/bin/true a\x09b\x0ac' "$T/out"
	[ "$(grep -c exec "$T/out")" -eq 2 ]
	ct_run --format=json -e -T 0 -c "$WRITE" /usr/bin/env /bin/true "$arg"
	[ "$status" -eq 0 ]
	grep -qF '"/bin/true a\tb\nc"' "$T/out"
	[ "$(grep -c exec "$T/out")" -eq 2 ]
}

@test "exec marker: its time is that of the totals just before it" {
	ct_run -e -T 0 -c "$WRITE" "$W/wl_exec_chain" 1 5
	[ "$status" -eq 0 ]
	[ "$(awk '$3 == "exec" { print $1 }' "$T/out" | uniq | wc -l)" -eq 1 ]
}

@test "-ef vfork+exec: the child's exec totals, then its new image tracked" {
	ct_run -ef -T 0 -c "$WRITE" "$W/wl_vfork_exec" 40 "$W/wl_threads" 2 60
	[ "$status" -eq 0 ]
	local parent child
	parent=$(awk '$4 == "fork" { print $2 }' "$T/out")
	child=$(awk '$4 == "fork" { print $NF }' "$T/out")
	[ "$(ct_count -f fork)" -eq 1 ]
	# The child wrote nothing before its exec.
	[ "$(ct_rows -f exec | awk 'NF == 3')" = "$child 1 0" ]
	grep -qxF "$(printf '%6d' "$child")   1       exec                     # '$(psargs "$W/wl_threads" 2 60)'" \
	    <(cut -c9- "$T/out")
	[ "$(ct_rows -f lwp_exit | awk -v c="$child" '$1 == c { print $3 }')" = "$(printf '60\n60')" ]
	[ "$(ct_rows -f exit | sort)" = "$(printf '%s\n' "$parent 1 40" "$child 1 120" | sort)" ]
	[ "$(perf_count "$WRITE" "$W/wl_vfork_exec" 40 "$W/wl_threads" 2 60)" -eq 160 ]
}

@test "-f vfork+exec without -e: only the child's tracking ends, exit 0" {
	ct_run -f -T 0 -c "$WRITE" "$W/wl_vfork_exec" 40 "$W/wl_threads" 2 60
	[ "$status" -eq 0 ]
	local parent child
	parent=$(awk '$4 == "fork" { print $2 }' "$T/out")
	child=$(awk '$4 == "fork" { print $NF }' "$T/out")
	[ "$(ct_rows -f exec | awk 'NF == 3')" = "$child 1 0" ]
	grep -qF "# '$(psargs "$W/wl_threads" 2 60)'" "$T/out"
	# Nothing more from the child; the parent is tracked to its exit.
	[ "$(ct_rows -f lwp_exit | wc -l)" -eq 0 ]
	[ "$(ct_rows -f exit)" = "$parent 1 40" ]
}

@test "-f bare clone(2) of a process: reported as a clone, tracked as a fork" {
	ct_run -f -T 0 -c "$WRITE" "$W/wl_clone_proc" 30 40
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	local parent child
	parent=$(awk '$4 == "fork" { print $2 }' "$T/out")
	child=$(awk '$4 == "fork" { print $NF }' "$T/out")
	[ "$(ct_count -f fork)" -eq 1 ]
	# A process of its own, not an LWP of the parent.
	[ "$(ct_count -f lwp_create)" -eq 0 ]
	[ "$(ct_rows -f exit | sort)" = "$(printf '%s\n' "$parent 1 30" "$child 1 40" | sort)" ]
	[ "$(perf_count "$WRITE" "$W/wl_clone_proc" 30 40)" -eq 70 ]
}

@test "bare clone(2) of a process without -f: a fork row, the child untracked" {
	ct_run -T 0 -c "$WRITE" "$W/wl_clone_proc" 30 40
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(ct_count fork)" -eq 1 ]
	[ "$(ct_count lwp_create)" -eq 0 ]
	[ "$(ct_rows exit)" = "1 30" ]
}

@test "-e non-leader exec: the old image's total, then the new one from LWP 1" {
	ct_run -e -T 0 -c "$WRITE" "$W/wl_nonleader_exec" 70 "$W/wl_threads" 2 30
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# Old image: 70 by the main thread and 70 by the thread that execs.
	[ "$(ct_rows exec | awk 'NF == 2')" = "1 140" ]
	grep -qxF "   1       exec                     # '$(psargs "$W/wl_threads" 2 30)'" \
	    <(cut -c8- "$T/out")
	[ "$(ct_rows lwp_exit | tail -n 2 | awk '{ print $2 }')" = "$(printf '30\n30')" ]
	[ "$(ct_rows exit)" = "1 60" ]
	[ "$(perf_count "$WRITE" "$W/wl_nonleader_exec" 70 "$W/wl_threads" 2 30)" -eq 200 ]
}

@test "ticks: per-LWP deltas that sum to each LWP's total" {
	# 3 threads, 4 steps of 10 writes each, sampled every 100 ms; a step
	# comes once the ticks have shown all of the one before, and the
	# threads end once they have shown the last.
	gate_open
	CT_STDIN=$T/gate start_cputrack_until ' tick ' -T 0.1 -c "$WRITE" "$W/wl_steps" 3 10
	local step n
	for step in 1 2 3 4; do
		gate_send w
		wait_rows_until "\$3 == \"tick\" && \$2 > 1 { s[\$2] += \$4 }
		    END { for (n = 2; n <= 4; n++) if (s[n] != 10 * $step) exit 1 }"
	done
	gate_send q
	wait_cputrack
	[ "$status" -eq 0 ]
	[ -z "$(cat "$T/err")" ]
	for n in 2 3 4; do
		[ "$(ct_rows tick | awk -v n=$n '$1 == n { s += $2 } END { print s }')" -eq 40 ]
		[ "$(ct_rows lwp_exit | awk -v n=$n '$1 == n { print $2 }')" -eq 40 ]
		# Deltas, not running totals: no tick sees more than one step.
		[ "$(ct_rows tick | awk -v n=$n '$1 == n && $2 > 10' | wc -l)" -eq 0 ]
	done
	# The main thread writes nothing, in every tick.
	[ "$(ct_rows tick | awk '$1 == 1 && $2 != 0' | wc -l)" -eq 0 ]
	[ "$(ct_rows exit)" = "1 120" ]
	# Tick rows come in time order.
	awk '$3 == "tick" && $2 == 1 { print $1 }' <(gaps_as_ticks "$T/out") >"$T/times"
	[ "$(wc -l <"$T/times")" -ge 4 ]
	sort -n -c "$T/times"
}

@test "-f: a tick's rows go by process, the first tracked first" {
	# A parent and its 3 children, alive together for 1.5 s: each tick has
	# a row for each process alive, in the order cputrack began to track
	# them (the proc key), as the rows of each process go by LWP. A tick's
	# rows are told from the next's by the key going back; the parent,
	# alive throughout, comes first in every tick.
	ct_run --format=csv -f -T 0.2 -c "$WRITE" "$W/wl_forkslow" 1 3 10 1500
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	python3 - "$T/out" <<'EOF'
import csv, sys
keys = [int(r["proc"]) for r in csv.DictReader(open(sys.argv[1]))
        if r["label"] in ("tick", "gap")]
ticks = []
for k in keys:
    if not ticks or k <= ticks[-1][-1]:
        ticks.append([])
    ticks[-1].append(k)
assert all(t[0] == 1 for t in ticks), ticks
assert sum(t == [1, 2, 3, 4] for t in ticks) >= 3, ticks
EOF
}

@test "several -c sets: rotate per tick per LWP, rows end with # spec" {
	local a="$WRITE" b="task-clock,$WRITE"
	# Software events: the sets are bound as one joint set, and a turn is
	# bookkeeping at one read of it, so nothing the target does falls
	# between two turns. Two threads, 3 steps of 10 writes; a step comes
	# once the ticks of both sets have shown all of the one before.
	gate_open
	CT_STDIN=$T/gate start_cputrack_until ' tick ' -T 0.1 -c "$a" -c "$b" "$W/wl_steps" 2 10
	local step
	for step in 1 2 3; do
		gate_send w
		wait_rows_until "\$3 == \"tick\" && \$2 > 1 { s[\$2] += \$NF == \"$a\" ? \$4 : \$5 }
		    END { for (n = 2; n <= 3; n++) if (s[n] != 10 * $step) exit 1 }"
	done
	gate_send q
	wait_cputrack
	[ "$status" -eq 0 ]
	mapfile -t lines <"$T/out"
	[ "${lines[0]}" = "   time lwp      event      pic0 " ]
	# Every row but the title carries its set, after two spaces.
	[ "$(gaps_as_ticks "$T/out" | tail -n +2 | grep -vcE "[0-9] ( # $a| # $b)\$")" -eq 0 ]
	# Each LWP's ticks alternate a, b, a, b, ... Under ptrace each LWP
	# turns its own sets, from a; under BPF they turn for every thread at
	# once, and a thread born after a turn starts in the set then in use
	# (on a loaded machine, the first tick can come before the threads),
	# its row then with b's two zeros.
	local n
	grep -qE "^ +[0-9.]+ +2 +lwp_create( +0)+  # ($a|$b)\$" "$T/out"
	[ "$ENGINE" = bpf ] || grep -qE "^ +[0-9.]+ +2 +lwp_create +0  # $a\$" "$T/out"
	for n in 1 2 3; do
		awk -v n=$n '$3 == "tick" && $2 == n { print ($NF == "'"$a"'") ? "a" : "b" }' \
		    <(gaps_as_ticks "$T/out") | tr -d '\n' >"$T/seq"
		# (A thread that starts in b: as if its a had come before.)
		if [ "$n" -gt 1 ] && [ "$ENGINE" = bpf ]; then
			sed -i 's/^b/ab/' "$T/seq"
		fi
		[[ "$(cat "$T/seq")" =~ ^(ab)+a?$ ]]
	done
	# Set b has two values, set a one.
	[ "$(gaps_as_ticks "$T/out" | grep -E "tick .* # $b\$" | awk '{ print NF }' | sort -u)" -eq 7 ]
	[ "$(gaps_as_ticks "$T/out" | grep -E "tick .* # $a\$" | awk '{ print NF }' | sort -u)" -eq 6 ]
	# Totals: one row per set; each is the sum of that set's ticks.
	for n in 2 3; do
		[ "$(grep -cE "^ +[0-9.]+ +$n +lwp_exit " "$T/out")" -eq 2 ]
		local ta tb ea eb
		ta=$(awk -v n=$n '$3 == "tick" && $2 == n && $NF == "'"$a"'" { s += $4 } END { print s + 0 }' <(gaps_as_ticks "$T/out"))
		tb=$(awk -v n=$n '$3 == "tick" && $2 == n && $NF == "'"$b"'" { s += $5 } END { print s + 0 }' <(gaps_as_ticks "$T/out"))
		ea=$(awk -v n=$n '$3 == "lwp_exit" && $2 == n && $NF == "'"$a"'" { print $4 }' "$T/out")
		eb=$(awk -v n=$n '$3 == "lwp_exit" && $2 == n && $NF == "'"$b"'" { print $5 }' "$T/out")
		[ "$ta" -eq "$ea" ]
		[ "$tb" -eq "$eb" ]
		# Between them, the two sets saw all 30 writes.
		[ $((ea + eb)) -eq 30 ]
	done
	[ "$(grep -cE '^ +[0-9.]+ +1 +exit ' "$T/out")" -eq 2 ]
}

@test "-T 0: only event rows, only the first set counts" {
	ct_run -T 0 -c "$WRITE" -c task-clock "$W/ct_steady" 2 10 100 3
	[ "$status" -eq 0 ]
	[ "$(ct_count tick)" -eq 0 ]
	[ "$(tail -n +2 "$T/out" | awk '{ print $3 }' | sort -u | tr '\n' ' ')" = "exit lwp_create lwp_exit " ]
	[ "$(grep -c "# task-clock\$" "$T/out")" -eq 0 ]
	[ "$(grep -E ' exit ' "$T/out")" != "" ]
	grep -qE "^ +[0-9.]+ +1 +exit +60  # $WRITE\$" "$T/out"
}

@test "-N: stops after N ticks, exit 0, no totals, the target runs on to its end" {
	# The target waits at the gate until cputrack is done with it.
	local gated
	gated=$(wl_own wl_gate)
	gate_open
	ct_run -N 3 -T 0.1 -c "$WRITE" "$gated" 2 10 <"$T/gate"
	[ "$status" -eq 0 ]
	# 3 intervals: a row of each of the 3 LWPs there at each sample.
	ticks_sampled 3 3
	[ "$(ct_count exit)" -eq 0 ]
	[ "$(ct_count lwp_exit)" -eq 0 ]
	# cputrack is gone; the target runs on, untraced, to its end.
	local pid
	pid=$(pgrep -x -f "$gated 2 10")
	assert_free "$pid"
	gate_release
	gone "$pid"
}

# A stopped cputrack (SIGSTOP, as a debugger or Ctrl-Z would) misses
# sample times. When it runs again, each LWP's next row is a gap row that
# holds them all and says how many; -N counts intervals, not rows. A stop
# of 0.6 s at -T 0.1 passes 5 sample times at least, whenever it starts.
@test "cputrack stopped for 6 intervals: a gap row per LWP holds them, saying how many; -N counts intervals" {
	local gated pid
	gated=$(wl_own wl_gate)
	gate_open
	CT_STDIN=$T/gate bg_until ' tick ' "$CT" -N 30 -T 0.1 -c "$WRITE" \
	    "$gated" 2 10
	# Every LWP counted before the stop (under BPF on a busy machine the
	# first ticks may come before the threads are made).
	wait_rows_until '$3 == "tick" { s[$2] = 1 } END { exit length(s) != 3 }'
	kill -STOP "$CPID"
	sleep 0.6 # not a wait: the stop lasts 5 sample times at least
	kill -CONT "$CPID"
	wait "$CPID"
	cat "$T/out" "$T/err"
	[ ! -s "$T/err" ]
	# Each of the 3 LWPs has a gap row of at least 5 intervals that says
	# how many it holds; LWP 1's rows hold the 30 intervals, the others'
	# those since they were made.
	awk '$3 == "tick" { n[$2]++ }
	    $3 == "gap" {
		if ($5 != "#" || $6 !~ /^[0-9]+$/ || $7 != "intervals" || NF != 7)
			exit 1
		n[$2] += $6; if ($6 >= 5) gaps[$2]++
	    }
	    END {
		for (l = 1; l <= 3; l++)
			if (n[l] > 30 || n[l] < 6 || gaps[l] < 1) exit 1
		exit length(n) != 3 || n[1] != 30
	    }' "$T/out"
	# Let go after its 30 intervals, it runs on.
	pid=$(pgrep -x -f "$gated 2 10")
	assert_free "$pid"
	gate_release
	gone "$pid"
}

# first_row FORMAT_ARGS...: run cputrack on a workload that waits at a
# gate (wl_steps, whose main thread writes nothing), with its output into
# a pipe, whose reader notes the first tick row
# and then lets the workload go on: were rows held back until the end,
# the run would never end (timeout 60 would). Retries when a cpustat
# elsewhere took the counters.
first_row() {
	local try
	for try in 1 2 3 4 5 6; do
		rm -f "$T/first" "$T/rc" "$T/gate"
		gate_open
		(
			rc=0
			timeout 60 "$CT" "$@" -T 0.2 -c "$WRITE" "$W/wl_steps" 1 5 \
			    <"$T/gate" 2>"$T/err" || rc=$?
			echo "$rc" >"$T/rc"
		) | while IFS= read -r line; do
			if [[ "$line" =~ (\ tick\ |\"label\":\"tick\"|,tick,) ]] && [ ! -e "$T/first" ]; then
				echo "$line" >"$T/first"
				gate_send q
			fi
		done
		counters_taken || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 6 tries
	done
	[ "$(cat "$T/rc")" -eq 0 ] || { echo "rc $(cat "$T/rc")"; cat "$T/err"; false; }
	[ -s "$T/first" ]
	[ "$(wc -l <"$T/first")" -eq 1 ]
}

@test "line-buffered: the first tick row arrives through a pipe while the target runs" {
	first_row
	[[ "$(cat "$T/first")" =~ ^" "+[0-9.]+" "+1" "+tick" "+0" "$ ]]
}

@test "csv: the header first, the run's facts, numbers, tid, enabled/running, flushed per row" {
	ct_run --format=csv -T 0.1 -t -c "$WRITE,task-clock" -c "$WRITE" \
	    "$W/ct_steady" 2 10 250 2
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	python3 - "$T/out" <<'EOF'
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
every = list(csv.DictReader(lines))
assert list(every[0].keys()) == ["time", "pid", "lwp", "tid", "cpu", "ncpus",
    "label", "set", "enabled_ns", "running_ns", "tsc",
    "syscalls:sys_enter_write", "task-clock", "proc", "child", "args",
    "not_counted", "partial", "key", "value"], list(every[0].keys())
meta = {r["key"]: r["value"] for r in every if r["label"] == "meta"}
assert meta["schema"] == "cpctools" and meta["version"] == "2", meta
assert meta["tool"] == "cputrack" and meta["unit.task-clock"] == "ns", meta
assert meta["unit.syscalls:sys_enter_write"] == "count", meta
assert meta["set.0"] == "syscalls:sys_enter_write,task-clock", meta
rows = [r for r in every if r["label"] != "meta"]
w = "syscalls:sys_enter_write"
pid = int(rows[0]["pid"])
tids = {}
last = 0.0
for r in rows:
    assert float(r["time"]) >= last, "rows go back in time: %r" % r
    last = float(r["time"])
    assert int(r["pid"]) == pid
    assert r["cpu"] == "" and r["ncpus"] == ""
    assert r["label"] in ("tick", "gap", "lwp_create", "lwp_exit", "exit"), r
    s = int(r["set"])
    assert s in (0, 1)
    tid, lwp = int(r["tid"]), int(r["lwp"])
    assert tids.setdefault(lwp, tid) == tid
    assert (lwp == 1) == (tid == pid)
    en, ru = int(r["enabled_ns"]), int(r["running_ns"])
    # Software events are never multiplexed.
    assert en == ru, r
    int(r["tsc"])
    int(r[w])
    if s == 0:
        int(r["task-clock"])
    else:
        assert r["task-clock"] == ""
    assert r["child"] == r["args"] == r["not_counted"] == r["partial"] == ""
ex = [r for r in rows if r["label"] == "lwp_exit"]
assert len(ex) == 4, ex
for lwp in (2, 3):
    assert sum(int(r[w]) for r in ex if int(r["lwp"]) == lwp) == 20
    for s in (0, 1):
        ticks = sum(int(r[w]) for r in rows if r["label"] in ("tick", "gap") and
                    int(r["lwp"]) == lwp and int(r["set"]) == s)
        tot = [int(r[w]) for r in ex if int(r["lwp"]) == lwp and int(r["set"]) == s]
        assert tot == [ticks], (lwp, s, tot, ticks)
exits = [r for r in rows if r["label"] == "exit"]
assert sum(int(r[w]) for r in exits) == 40
assert any(int(r["enabled_ns"]) > 0 for r in rows if r["label"] in ("tick", "gap"))
EOF
	# No multiplexing note: software events are never multiplexed.
	refute_output --partial "multiplexed"
}

@test "csv: fork rows carry the child, exec markers the arguments, no set" {
	ct_run --format=csv -ef -T 0 -c "$WRITE" "$W/wl_vfork_exec" 3 "$W/wl_threads" 1 4
	[ "$status" -eq 0 ]
	python3 - "$T/out" "$W/wl_threads 1 4" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] != "meta"]
fork = [r for r in rows if r["label"] == "fork"]
assert len(fork) == 1
child = int(fork[0]["child"])
assert fork[0]["args"] == ""
assert fork[0]["set"] == "" and fork[0]["tid"] == "" and fork[0]["enabled_ns"] == ""
marker = [r for r in rows if r["label"] == "exec" and r["set"] == ""]
assert len(marker) == 1 and marker[0]["args"] == sys.argv[2], marker
assert marker[0]["child"] == ""
assert int(marker[0]["pid"]) == child
tot = {int(r["pid"]): int(r["syscalls:sys_enter_write"]) for r in rows if r["label"] == "exit"}
assert tot == {int(fork[0]["pid"]): 3, child: 4}, tot
EOF
}

@test "csv/json: a pid used twice in a run is two processes, each with its own proc key and exact counts" {
	local fmt
	for fmt in csv json; do
		# --pass-status: the workload's 4 (no pid again) is the run's status.
		ct_run --pass-status --format=$fmt -f -T 0 -c "$WRITE" "$W/wl_pidreuse" 3 5 "$T/pid"
		[ "$status" -ne 4 ] || skip "the pid could not be had again: ns_last_pid refused, or others took it every time"
		[ "$status" -eq 0 ]
		python3 - "$fmt" "$T/out" "$(cat "$T/pid")" <<'EOF'
import csv, json, sys
fmt, path, reused = sys.argv[1], sys.argv[2], int(sys.argv[3])
if fmt == "csv":
    rows = [r for r in csv.DictReader(open(path)) if r["label"] != "meta"]
    num = lambda v: int(v) if v != "" else None
    rows = [dict(r, pid=num(r["pid"]), proc=num(r["proc"]),
                 writes=num(r["syscalls:sys_enter_write"])) for r in rows]
else:
    lines = [json.loads(l) for l in open(path)][1:]
    rows = [dict(r, writes=(r.get("counters") or {}).get("syscalls:sys_enter_write"))
            for r in lines]
# A key stands for one pid; every row of a process has one.
pid_of = {}
for r in rows:
    assert r["proc"] is not None and r["proc"] > 0, r
    assert pid_of.setdefault(r["proc"], r["pid"]) == r["pid"], r
exits = [(r["proc"], r["writes"]) for r in rows
         if r["label"] == "exit" and r["pid"] == reused]
# The first child wrote 3, the one with its pid again 5, under two keys.
assert [w for _, w in exits] == [3, 5], (reused, exits, [
    (r["label"], r["pid"], r["proc"], r["writes"]) for r in rows
    if r["label"] in ("fork", "exit")])
assert exits[0][0] != exits[1][0], exits
# Each fork row is the parent's: its key is the parent's exit's. (A
# child that did not get the pid again, when another process took it
# first, is a process of its own too.)
forks = [r for r in rows if r["label"] == "fork"]
assert len({r["pid"] for r in forks}) == 1, forks
parent = [r for r in rows if r["label"] == "exit" and r["pid"] == forks[0]["pid"]]
assert len(parent) == 1, parent
assert all(r["proc"] == parent[0]["proc"] for r in forks), forks
# Every process its own key.
assert len({r["proc"] for r in rows if r["label"] == "exit"}) == len(
    [r for r in rows if r["label"] == "exit"]), rows
EOF
	done
}

@test "json: the head object, numbers are numbers, per-row flush, totals add up" {
	local before after
	before=$(date +%s%N)
	ct_run --format=json -f -T 0.1 -c "$WRITE,task-clock" "$W/wl_forktree" 1 2 50
	after=$(date +%s%N)
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	python3 - "$T/out" "$(hostname)" "$before" "$after" <<'EOF'
import json, sys, time
objs = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
head = objs[0]
assert head["schema"] == "cpctools" and head["version"] == 2 and head["tool"] == "cputrack", head
assert head["host"] == sys.argv[2] and isinstance(head["tool_version"], str), head
# The run started while the command ran.
assert int(sys.argv[3]) <= head["start_epoch_ns"] <= int(sys.argv[4]), head
t = time.gmtime(head["start_epoch_ns"] // 10**9)
assert head["start"].startswith(time.strftime("%Y-%m-%dT%H:%M:%S.", t)), head
assert head["start"] == time.strftime("%Y-%m-%dT%H:%M:%S.", t) + "%09dZ" % (head["start_epoch_ns"] % 10**9), head
assert head["sets"] == [{"set": 0, "spec": "syscalls:sys_enter_write,task-clock",
    "events": [{"name": "syscalls:sys_enter_write", "unit": "count"},
               {"name": "task-clock", "unit": "ns"}]}], head
rows = objs[1:]
assert [r["time"] for r in rows] == sorted(r["time"] for r in rows)
forks = [r for r in rows if r["label"] == "fork"]
assert len(forks) == 2
for r in forks:
    assert r["set"] is None and r["tid"] is None and isinstance(r["child"], int)
    assert "counters" not in r and "args" not in r
exits = [r for r in rows if r["label"] == "exit"]
assert len(exits) == 3
pids = {r["pid"] for r in exits}
assert pids == {forks[0]["pid"]} | {f["child"] for f in forks}
for r in exits:
    assert isinstance(r["time"], float)
    assert isinstance(r["pid"], int) and isinstance(r["tid"], int) and r["tid"] == r["pid"]
    assert r["cpu"] is None and r["ncpus"] is None and r["set"] == 0
    c = r["counters"]
    assert c["syscalls:sys_enter_write"] == 50 and isinstance(c["task-clock"], int)
    assert isinstance(r["enabled_ns"], int) and r["enabled_ns"] == r["running_ns"]
    assert r["spec"] == "syscalls:sys_enter_write,task-clock"
    assert r["not_counted"] is None and r["partial"] is None
EOF
}

@test "json: ticks carry enabled/running ns; --format=table is the default layout" {
	ct_run --format=json -T 0.1 -c "$WRITE" "$W/ct_steady" 1 3 150 2
	[ "$status" -eq 0 ]
	python3 - "$T/out" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()][1:]
ticks = [r for r in rows if r["label"] in ("tick", "gap")]
assert ticks, rows
for r in ticks:
    assert isinstance(r["enabled_ns"], int) and isinstance(r["running_ns"], int)
    assert r["enabled_ns"] == r["running_ns"]
    assert "tsc" not in r
assert sum(r["counters"]["syscalls:sys_enter_write"] for r in rows if r["label"] == "exit") == 6
EOF
	ct_run --format=table -T 0 -c "$WRITE" "$W/wl_threads" 1 3
	[ "${lines[0]}" = "   time lwp      event      pic0 " ]
}

@test "csv/json: flushed per row, a row arrives through a pipe while the target runs" {
	first_row --format=json
	python3 -c 'import json,sys; assert json.loads(sys.argv[1])["label"] in ("tick", "gap")' "$(cat "$T/first")"
	first_row --format=csv
	[[ "$(cat "$T/first")" =~ ,tick,0, ]]
}

@test "no multiplexing note in table mode with software events" {
	ct_run -T 0.1 -c "task-clock,$WRITE,page-faults,context-switches" "$W/ct_steady" 2 5 100 3
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "no hardware PMU: EC_ref,EC_hit and cycles,instructions refused before the program starts, exit 2" {
	if ls /sys/bus/event_source/devices/ |
	    grep -qE '^(cpu|cpu_core|cpu_atom|armv[78]_.*|arm_.*)$'; then
		skip "this kernel has a hardware PMU: see the next test"
	fi
	ct_run -c EC_ref,EC_hit "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ ! -e "$T/ran" ]
	[ "${#stderr}" -gt 0 ]
	run cat "$T/err"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" =~ ^"cputrack: EC_ref ".*"counted as LLC references".*"no hardware counters".*"countable here: ".*task-clock ]]
	[[ "${lines[1]}" =~ ^"cputrack: EC_hit ".*"counted as LLC hits".*"no hardware counters".*"countable here: ".*task-clock ]]
	ct_run -c cycles,instructions "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ ! -e "$T/ran" ]
	run cat "$T/err"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" =~ ^"cputrack: cycles ".*"hardware".*"no hardware counters".*"countable here: ".*task-clock ]]
	[[ "${lines[1]}" =~ ^"cputrack: instructions ".*"hardware".*"no hardware counters".*"countable here: ".*task-clock ]]
	# The classic names that have an equivalent are hardware events here.
	ct_run -c pic0=Cycle_cnt,pic1=Instr_cnt "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ ! -e "$T/ran" ]
}

@test "hardware PMU: cycles,instructions count; EC_ref,EC_hit count as LLC events, with a note each" {
	require_pmu
	ct_run -T 0 -c cycles,instructions "$W/wl_threads" 2 1000
	[ "$status" -eq 0 ]
	[ "$(ct_count lwp_exit)" -eq 2 ]
	[ "$(ct_rows exit | awk '{ print ($2 > 0 && $3 > 0) }')" = 1 ]
	# The nearest LLC events, each with one note saying so.
	ct_run -T 0 -c EC_ref,EC_hit "$W/ct_marker" "$T/ran"
	[ "$status" -eq 0 ]
	[ -e "$T/ran" ]
	run cat "$T/err"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "cputrack: note: EC_ref: counted as LLC references (cache-references)"* ]]
	[[ "${lines[1]}" == "cputrack: note: EC_hit: counted as LLC hits (cache-references - cache-misses)"* ]]
}
