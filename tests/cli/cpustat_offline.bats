#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cpustat with a CPU taken offline under it. It runs alone (RUN_SERIAL):
# every other test's CPUs would change under it.

bats_require_minimum_version 1.5.0
load cpustat_helper

# in_affinity CPU: a new process may run on CPU.
in_affinity() {
	"$PY" -c "import os, sys; sys.exit($1 not in os.sched_getaffinity(0))"
}

@test "a CPU taken offline mid-run is reported once and the run goes on" {
	[ "$(id -u)" = 0 ] || skip "taking a CPU offline needs root"
	cpu=$(last_cpu)
	f=/sys/devices/system/cpu/cpu$cpu/online
	[ "$cpu" != 0 ] && [ -w "$f" ] || skip "no CPU here can be taken offline"
	# Offline for a while, offline and straight back, and with two sets
	# (the next set cannot be bound on the offline CPU).
	for run in "0.5 -c task-clock,context-switches" \
	    "0.05 -c task-clock,context-switches" \
	    "0.5 -c task-clock -c context-switches"; do
		read -r hold spec <<<"$run"
		# A CPU back online joins new processes' affinity a little
		# later (the cpuset update is asynchronous): wait for it.
		wait_for in_affinity "$cpu"
		# Counting on every CPU, then one goes offline; the run goes on
		# until the others have two rows more than when the CPU's
		# thread said it was gone, and is ended by a signal.
		# shellcheck disable=SC2086
		# The run before's files would answer the waits below: the
		# background job empties them in its own time.
		rm -f "$T/out" "$T/err"
		env --default-signal=INT "$CPUSTAT" $spec 0.2 >"$T/out" 2>"$T/err" 3>&- &
		BG_PIDS=$!
		wait_rows "$T/out" 1
		echo 0 >"$f"
		sleep "$hold" # not a wait: the CPU stays offline this long; at most 3 runs
		echo 1 >"$f"
		wait_line "$T/err" 'went offline'
		others=$(cpu_list | tr , '\n' | grep -vx "$cpu" | paste -sd,)
		wait_rows "$T/out" $(($(rows_of "$T/out" "$others") + 2)) "$others"
		kill -INT "$BG_PIDS"
		bg_wait
		cat "$T/out" "$T/err"
		# Back online or not, its counters are gone: reported once.
		[ "$(cat "$T/err")" = "cpustat: cpu$cpu went offline; it is no longer measured" ]
		pycheck '
rows, _ = parse_table(sys.argv[1])
by = ticks_by_cpu(rows)
cpu = int(sys.argv[2])
mine = by.get(cpu, [])
if any(r.values[0] == 0 for r in mine if r.spec in (None, "task-clock")):
    die("cpu%d: rows of zeros" % cpu)
# The others went on after it was gone.
for c, l in by.items():
    if c != cpu and sum(r.intervals for r in l) < sum(r.intervals for r in mine) + 2:
        die("cpu%d should have gone on after cpu%d: %r" % (c, cpu, [r.line for r in l]))
check_totals(rows, len(CPUS))
' "$T/out" "$cpu"
	done
}
