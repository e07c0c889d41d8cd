#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# Hardware that is real even in a VM without a PMU: the debug registers
# (mem:ADDR:x breakpoints) and the msr PMU (msr/tsc/), through cputrack:
# per LWP, following forks (-f) and execs (-e); and uprobes, which count
# the same calls. wl_calls (built without PIE, so nm gives its run-time
# address) calls wl_target 1000 times in its first LWP and 1000 * (i+1)
# in thread i.

load cputrack_helper

# Whether a breakpoint fires here, by perf's count (the oracle), once per
# file: some hypervisors accept a breakpoint and never fire it.
setup_file() {
	local addr=$(nm "$WORKLOADS/wl_calls" |
	    awk '$3 == "wl_target" { print "0x" $1 }')
	BP_COUNT=unknown
	if [ -n "$addr" ] && command -v perf >/dev/null; then
		BP_COUNT=$(perf stat -x, -e "mem:$addr:x" \
		    "$WORKLOADS/wl_calls" 1 10 2>&1 >/dev/null |
		    awk -F, '$3 ~ /^mem:/ { print $1 }')
	fi
	export BP_COUNT
}

# The tests that count with $BP need debug registers that fire, and an
# engine that counts them.
require_breakpoints() {
	if breakpoints_refused; then
		skip "the BPF engine refuses mem: on x86 (bpf.bpf_breakpoint checks the refusal)"
	fi
	[ "$BP_COUNT" = unknown ] &&
		skip "perf is not installed: cannot tell whether breakpoints fire"
	[ "$BP_COUNT" = 30 ] ||
		skip "hardware breakpoints do not fire here: perf stat counts $BP_COUNT of 30 calls on mem:ADDR:x (the hypervisor gives the guest no debug registers)"
}

setup() {
	ct_setup
	ADDR=$(nm "$W/wl_calls" | awk '$3 == "wl_target" { print "0x" $1 }')
	[ -n "$ADDR" ] || skip "nm found no wl_target in wl_calls"
	[ -d /sys/bus/event_source/devices/breakpoint ] ||
		skip "this kernel has no breakpoint PMU"
	BP="mem:$ADDR:x"
}

teardown() {
	ct_teardown
}

@test "mem:ADDR:x counts a function's calls exactly, per LWP" {
	require_breakpoints
	ct_run -T 0 -c "$BP" "$W/wl_calls" 3 1000
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_equal "$(ct_rows lwp_exit | sort -n | tr '\n' ' ')" \
	    "2 2000 3 3000 4 4000 "
	assert_equal "$(ct_rows exit)" "1 10000"
}

@test "mem:ADDR:x with ticks: interval counts per LWP, within its exact total" {
	require_breakpoints
	# 120,000 calls, each a debug exception: enough for many 1 ms ticks
	# even in the plain build, and no more. On some virtual machines
	# (this one, at times) a program with an execution breakpoint dies
	# of a stray SIGTRAP when the CPUs are busy and some process wakes
	# every millisecond, as cputrack -T 0.001 does. perf stat's target
	# dies the same way there, with no cputrack running (docs/events.md),
	# and each call is a chance of it: a short run is less exposed.
	ct_run -T 0.001 -c "$BP" "$W/wl_calls" 2 20000
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(grep -c ' tick ' "$T/out")" -gt 1 ]
	# A tick row has the LWP's calls in its interval, lwp_exit and exit
	# rows its total: the ticks never add up to more.
	assert_equal "$(ct_rows lwp_exit | sort -n | tr '\n' ' ')" \
	    "2 40000 3 60000 "
	run awk '$3 == "tick" || $3 == "gap" { s[$2] += $4 }
	    $3 == "lwp_exit" || $3 == "exit" { t[$2] = $4 }
	    END { for (l in t) if (s[l] > t[l] || t[l] == 0) print l, s[l], t[l] }' "$T/out"
	[ -z "$output" ]
	assert_equal "$(ct_rows exit)" "1 120000"
}

@test "mem:ADDR:x -f: each child counts its own calls" {
	require_breakpoints
	ct_run -T 0 -f -c "$BP" "$W/wl_calls" 2 100 3
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(ct_count -f fork)" -eq 3 ]
	# Three children, 100 calls each; the parent 100 + 200 + 300.
	local parent
	parent=$(awk 'NR > 1 && $4 == "fork" { print $2; exit }' "$T/out")
	run awk -v p="$parent" '$4 == "exit" { print ($2 == p ? "parent" : "child"), $NF }' "$T/out"
	assert_equal "$(sort <<<"$output" | tr '\n' ' ')" \
	    "child 100 child 100 child 100 parent 600 "
}

@test "mem:ADDR:x -e: the old image's total at exec, the new image's after" {
	require_breakpoints
	ct_run -T 0 -e -c "$BP" "$W/wl_calls" 1 100 0 exec
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_equal "$(ct_rows exec | head -1)" "1 300"
	assert_equal "$(ct_rows exit)" "1 100"
}

@test "msr/tsc/ counts per LWP, each above zero" {
	require_breakpoints
	[ -d /sys/bus/event_source/devices/msr ] || skip "no msr PMU"
	ct_run -T 0 -c "msr/tsc/,$BP" "$W/wl_calls" 3 20000
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	run ct_rows lwp_exit
	[ "${#lines[@]}" -eq 3 ]
	local l
	for l in "${lines[@]}"; do
		read -r lwp tsc calls <<<"$l"
		[ "$tsc" -gt 0 ]
		[ "$calls" -eq $(( (lwp) * 20000 )) ]
	done
}

@test "msr/tsc/ with ticks: an LWP's count only grows, its ticks add up to no more than its total" {
	[ -d /sys/bus/event_source/devices/msr ] || skip "no msr PMU"
	ct_run -T 0.05 -c msr/tsc/ "$W/ct_steady" 2 20000 20 5
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# The LWPs ran: their totals are above zero. A tick holds what the
	# LWP counted in its interval, nothing when it did not run then, and
	# never less: a count that went back would print as a value near
	# 2^64, more than its total.
	[ "$(ct_count lwp_exit)" -eq 2 ]
	run awk '$2 != 1 && $3 == "lwp_exit" && $4 <= 0' "$T/out"
	[ -z "$output" ]
	run awk '$2 != 1 && ($3 == "tick" || $3 == "gap") { s[$2] += $4 }
	    $2 != 1 && $3 == "lwp_exit" && s[$2] > $4 { print }' "$T/out"
	[ -z "$output" ]
}

@test "uprobe:PATH:SYMBOL counts the same calls per LWP, -f and -e" {
	[ -d /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
	local spec="uprobe:$W/wl_calls:wl_target"
	# Beside the breakpoint where one fires; alone, the counts still hold.
	if [ "$BP_COUNT" = 30 ] && ! breakpoints_refused; then
		spec="$spec,$BP"
	fi
	ct_run -T 0 -f -e -c "$spec" "$W/wl_calls" 2 100 1 exec
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# Both events count the same, on every row.
	run awk 'NR > 1 && NF >= 6 && $5 ~ /^[0-9]+$/ && $5 != $6' "$T/out"
	[ -z "$output" ]
	run awk '$4 == "lwp_exit" { print $3, $5 }' "$T/out"
	assert_equal "$(sort -n <<<"$output" | tr '\n' ' ')" "2 200 3 300 "
	[ "$(ct_count -f fork)" -eq 1 ]
	[ "$(ct_rows -f exec | awk '$NF ~ /^[0-9]+$/ { print $NF }')" = 600 ]
}
