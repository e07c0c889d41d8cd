#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cpustat with a CPU taken offline under it. It runs alone (RUN_SERIAL):
# every other test's CPUs would change under it.

bats_require_minimum_version 1.5.0
load cpustat_helper

@test "a CPU taken offline mid-run is reported once and the run goes on" {
	[ "$(id -u)" = 0 ] || skip "taking a CPU offline needs root"
	cpu=$(last_cpu)
	f=/sys/devices/system/cpu/cpu$cpu/online
	[ "$cpu" != 0 ] && [ -w "$f" ] || skip "no CPU here can be taken offline"
	# Do not take a CPU away from someone else's cpustat.
	cpus_free || skip "another process holds a CPU binding"
	# Offline for a while, offline and straight back, and with two sets
	# (the next set cannot be bound on the offline CPU).
	for run in "0.5 -c task-clock,context-switches" \
	    "0.05 -c task-clock,context-switches" \
	    "0.5 -c task-clock -c context-switches"; do
		read -r hold spec <<<"$run"
		# A CPU back online joins new processes' affinity a little
		# later (the cpuset update is asynchronous): wait for it.
		for _ in $(seq 50); do
			"$PY" -c "import os, sys; sys.exit($cpu not in os.sched_getaffinity(0))" && break
			sleep 0.1
		done
		# shellcheck disable=SC2086
		"$CPUSTAT" $spec 0.2 6 >"$T/out" 2>"$T/err" 3>&- &
		BG_PIDS=$!
		wait_for "$T/out" "$TICK_ROW"
		echo 0 >"$f"
		sleep "$hold"
		echo 1 >"$f"
		bg_wait
		cat "$T/out" "$T/err"
		# Back online or not, its counters are gone: reported once.
		[ "$(cat "$T/err")" = "cpustat: cpu$cpu went offline; it is no longer measured" ]
		pycheck '
rows, _ = parse_table(sys.argv[1])
by = ticks_by_cpu(rows)
cpu = int(sys.argv[2])
if len(by.get(cpu, [])) >= 6 or any(r.values[0] == 0 for r in by.get(cpu, [])
                            if r.spec in (None, "task-clock")):
    die("cpu%d: rows after it went offline, or rows of zeros" % cpu)
for c, l in by.items():
    if c != cpu and len(l) != 6:
        die("cpu%d should have gone on: %d rows" % (c, len(l)))
check_totals(rows, len(CPUS))
' "$T/out" "$cpu"
	done
}
