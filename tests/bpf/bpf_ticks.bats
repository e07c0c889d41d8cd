#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# The BPF engine's ticks: a flush of every CPU gives a running thread its
# counts up to the tick; several sets rotate with no time lost at the
# hand-over; enabled and running times; only announced threads tick.

load bpf_helper

setup() {
	bd_setup
}

teardown() {
	ct_teardown
}

@test "flush: a thread spinning in write(2) shows at each tick what it wrote up to the tick" {
	bd_run -T 100 -N 10 -S "$T/spin" -c "$WRITE" \
	    "$W/wl_spin_writes" "$T/spin" 5
	[ "$status" -eq 0 ]
	[ "$(bd_count tick)" -eq 10 ]
	# Each tick's count lies between the workload's own count just
	# before the tick and just after it (+1: a write under way).
	paste <(bd_rows tick | awk '{ print $4 }') <(bd_rows spin) |
	    awk '{ if ($1 < $2 || $1 > $3 + 1) { print "tick " NR ": " $0; bad = 1 } }
	    END { exit bad }'
	# It kept writing: the counts grow a lot between ticks, so an
	# unflushed count (from its last switch) would not fit.
	[ "$(bd_rows tick | awk 'NR == 10 { print $4 }')" -gt 10000 ]
	bd_rows flush | sort -n | awk '{ a[NR] = $1 } END {
	    printf "# flush of all CPUs: median %d ns, max %d ns\n",
	    a[int((NR + 1) / 2)], a[NR] }' >&3
}

@test "ticks: cumulative per thread, never falling, up to the final count; only announced threads" {
	bd_run -T 30 -c "$WRITE" "$W/ct_steady" 3 20 20 10
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	[ "$(bd_count tick)" -gt 5 ]
	# Per thread, in order: ticks never fall and end at most at lwp_exit.
	awk '$1 == "tick" || $1 == "lwp_exit" {
	    if ($1 == "tick" && $5 < last[$3]) bad = 1
	    last[$3] = $5 }
	    $1 == "lwp_exit" && $5 != (($3 == $2) ? 0 : 200) { bad = 1 }
	    END { exit bad }' "$T/out"
	# A thread ticks only between its create and its end.
	awk '$1 == "create" { live[$3] = 1 } $1 == "lwp_exit" { live[$3] = 0 }
	    $1 == "tick" && !live[$3] { bad = 1 } END { exit bad }' "$T/out"
	[ "$(bd_total "$pid")" -eq 600 ]
}

@test "enabled and running: on-CPU time of each thread, running all of it (software events)" {
	bd_run -c task-clock,"$WRITE" "$W/wl_threads" 3 2000
	[ "$status" -eq 0 ]
	bd_rows lwp_exit | awk '{ split($6, e, "="); split($7, r, "=")
	    if (e[2] != r[2] || e[2] <= 0) bad = 1
	    # task-clock counts the same on-CPU time, to a few microseconds.
	    d = $4 - e[2]; if (d < 0) d = -d; if (d > 100000) bad = 1 }
	    END { exit bad }'
}

@test "rotation: two sets counting the same event add up exactly; each counted part of the time" {
	bd_run -r -T 25 -c "$WRITE" -c "$WRITE" "$W/ct_steady" 2 10 10 30
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	s0=$(bd_total "$pid" 0)
	s1=$(bd_total "$pid" 1)
	[ "$s0" -gt 0 ]
	[ "$s1" -gt 0 ]
	[ $((s0 + s1)) -eq 600 ]
	# Per thread too.
	awk '$1 == "lwp_exit" && $2 != $3 { s[$3] += $5 }
	    END { for (t in s) if (s[t] != 300) bad = 1; exit bad }' "$T/out"
	# The tick rows name the set of the slice that ended, in turn.
	[ "$(bd_rows tick | awk '{ print $3 }' | sort -u | tr '\n' ' ')" = "0 1 " ]
}

@test "rotation under a spinning writer: no time lost at the hand-overs" {
	bd_run -r -T 20 -S "$T/spin" -c "$WRITE" -c "$WRITE" \
	    "$W/wl_spin_writes" "$T/spin" 1
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	wrote=$(od -An -tu8 "$T/spin" | tr -d ' ')
	sum=$(( $(bd_total "$pid" 0) + $(bd_total "$pid" 1) ))
	ticks=$(bd_count flush)
	[ "$ticks" -gt 10 ]
	# Two sets of a tracepoint are one counter on each CPU, the hand-over
	# bookkeeping at a mark: exact, but for the writes of a task whose
	# switches the kernel hid, which land on the thread running next.
	diff=$((sum - wrote))
	hidden=$(awk '$1 == "hidden" { print $2 }' "$T/out")
	echo "# $ticks hand-overs, sets sum $sum, wrote $wrote, $hidden hidden" >&3
	if [ "$hidden" -eq 0 ]; then
		[ "$diff" -eq 0 ]
	else
		[ "$diff" -ge 0 ]
	fi
}

# cputrack with the read of the threads of tick $SLOW_READ_TICK made
# once the command has spun $SLOW_READ_SPIN_MS more ms of CPU and then
# ended, the sets handed over already (slow_read.c): a thread ends
# between the two.
slow_cputrack() {
	status=0
	timeout -k 5 120 env LD_PRELOAD="$SLOW_READ" \
	    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    "$CPUTRACK" --engine=bpf "$@" >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 0 ] || cat "$T/err"
}

@test "sets taking turns: a thread that ends after a hand-over, before the tick reads it, keeps each set's turns exact" {
	[ -f "${SLOW_READ:-}" ] || skip "SLOW_READ names no preload library"
	# Ticks every 200 ms; the third tick's read of the threads waits
	# until the spinner has spun 100 ms more after the hand-over, and
	# it ends: tick rows at 200 and 400 ms, none at 600.
	SLOW_READ_TICK=3 SLOW_READ_SPIN_MS=100 slow_cputrack --metrics \
	    --format=csv -T 0.2 -c task-clock,page-faults -c task-clock,cs \
	    "$W/wl_spin_for" 0 600000
	[ "$status" -eq 0 ]
	[ "$(grep -c ',tick,' "$T/out")" -eq 2 ] || { cat "$T/out"; false; }
	python3 - "$T/out" <<'PYEOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["label"] != "meta" and r["set"] != ""]
ticks = [r for r in rows if r["label"] == "tick"]
ex = {int(r["set"]): r for r in rows if r["label"] == "exit"}
assert set(ex) == {0, 1}, rows
# Set 0 counted from the start to 200 ms and from 400 ms to the tick at
# 600, set 1 from 200 to 400 ms and from the tick at 600 to the end. The
# turns of each hold what it counted: at most one CPU of one thread
# (within the clocks' 1e-3, as output_derived.bats allows).
for r in ticks + list(ex.values()):
    el, tc = int(r["elapsed_ns"]), int(r["task-clock"])
    assert 0 < tc / el <= 1 + 1e-3, ("more CPU than time", r)
    assert abs(float(r["metric.cpus_utilized"]) - tc / el) < 1e-9, r
# Set 1's last turn, from the hand-over at 600 ms to the end (100 ms of
# the spinner's CPU at least), is its: its exit total is more than its
# tick's 200 ms.
t1 = [int(r["elapsed_ns"]) for r in ticks if r["set"] == "1"]
assert int(ex[1]["elapsed_ns"]) > sum(t1) + 50e6, (ex[1], t1)
# And set 0's holds its turn from 400 to 600 ms (about 200 ms).
t0 = [int(r["elapsed_ns"]) for r in ticks if r["set"] == "0"]
assert int(ex[0]["elapsed_ns"]) > sum(t0) + 150e6, (ex[0], t0)
PYEOF
}
