#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# context-switches under the BPF engine: the kernel counts a switch after
# the engine's hook, and a thread's last switch, after its exit, is no
# one's. Each row must equal sched:sched_switch, which counts the same
# switches at the hook, as the ptrace engine's per-thread counters do.
# A kernel that hides a task from tracing (this project's VMs hide their
# sandbox agent's threads) fires no sched_switch tracepoint for its
# switch out, but counts it in context-switches: under BPF that switch
# lands in the tracked thread that runs next, one higher, and -D says how
# many such switches there were. Under ptrace every row is equal (a new
# thread's counters are bound once it is off its CPU: libpctx).

load bpf_helper

setup() {
	bd_setup
	CT=$CPUTRACK
}

teardown() {
	ct_teardown
}

# Rows "lwp label cs sw" of a table in $1 whose label is lwp_exit or exit.
end_rows() {
	awk '$3 == "lwp_exit" || $3 == "exit" { print $2, $3, $4, $5 }' "$1"
}

# equal_rows ENGINE FILE ERR: in every row of FILE (end_rows),
# context-switches equals sched:sched_switch, but under BPF for what the
# hidden task's switches gave: ERR (cputrack -D's) counts the times
# they landed on a tracked thread, each time on one thread, in one or
# more switches (a hidden task may switch to another). A thread given
# some is higher in its LWP's lwp_exit row, and the process's exit row
# (one process), which sums its LWPs' and is the main thread's own row,
# is higher by all of them; none is ever lower.
equal_rows() {
	local hidden=0
	[ "$1" = bpf ] && hidden=$(sed -n \
	    's/^cputrack: note: the kernel hid \([0-9]*\) switches.*/\1/p' "$3")
	awk -v e="$1" -v hidden="${hidden:-0}" '$3 != $4 { print e ": lwp " $1 " " $2 \
	        ": context-switches " $3 ", sched:sched_switch " $4 }
	    $2 == "lwp_exit" { dl = $3 - $4; if (dl < 0) bad = 1
	        if (dl > 0) given++; lwps += dl }
	    $2 == "exit" { dp = $3 - $4 }
	    END {
		if (dp > lwps) given++
		if (dp < lwps || given > hidden) bad = 1
		if (bad) print e ": landed " hidden " times, on " given \
		    " threads; the LWPs " lwps " higher, the process " dp
		exit bad
	    }' "$2"
}

@test "thread churn: context-switches equals sched:sched_switch in every LWP's row and the process's, under both engines" {
	local engine
	for engine in bpf ptrace; do
		ct_run -D --engine=$engine \
		    -c context-switches,sched:sched_switch,sys \
		    "$W/wl_churn" 20 10 5
		[ "$status" -eq 0 ]
		end_rows "$T/out" >"$T/rows"
		# 200 threads and the process.
		[ "$(awk '$2 == "lwp_exit"' "$T/rows" | wc -l)" -eq 200 ]
		[ "$(awk '$2 == "exit"' "$T/rows" | wc -l)" -eq 1 ]
		equal_rows $engine "$T/rows" "$T/err"
		# Something was counted: the main thread waits for each round.
		[ "$(awk '$2 == "exit" { print $3 }' "$T/rows")" -gt 20 ]
	done
}

@test "threads that sleep: every row has context-switches equal to sched:sched_switch, under both engines" {
	local engine
	# Each of 4 threads sleeps 6 times between its writes.
	for engine in bpf ptrace; do
		ct_run -D --engine=$engine \
		    -c context-switches,sched:sched_switch,sys \
		    "$W/ct_steady" 4 1 5 6
		[ "$status" -eq 0 ]
		end_rows "$T/out" >"$T/rows"
		[ "$(awk '$2 == "lwp_exit"' "$T/rows" | wc -l)" -eq 4 ]
		equal_rows $engine "$T/rows" "$T/err"
		awk -v e=$engine '$2 == "lwp_exit" && $3 < 6 { print e \
		    ": lwp " $1 " switched " $3 " times"; bad = 1 }
		    END { exit bad }' "$T/rows"
	done
}
