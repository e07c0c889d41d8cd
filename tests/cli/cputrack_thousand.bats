#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# cputrack -f on a target that forks a thousand children: each child is
# reported exactly once, with exact counts, and nothing hangs. Slow-ish
# and large, so it is a file of its own (ctest -R cputrack_thousand).

load cputrack_helper

# A thousand traced processes take a loaded machine minutes.
CT_TIMEOUT=400

setup() {
	ct_setup
	ensure_tracefs
}

teardown() {
	ct_teardown
}

# Check the -f table in $T/out: $1 children, each with a fork row and one
# exit row of $2 writes; the parent's exit row is $3. With $4 = together,
# the children were alive together, so no two of them share a pid; else
# a pid may come back once its first owner is reaped (pid_max is 32768 on
# many machines, and a busy one goes round it in a minute), so the pids
# are compared as lists with repeats.
check_children() {
	local n=$1 k=$2 parent_k=$3 together=${4:-} parent
	parent=$(awk 'NR == 2 { print $2 }' "$T/out")
	[ "$(ct_count -f fork)" -eq "$n" ]
	if [ "$together" = together ]; then
		[ "$(awk '$4 == "fork" { print $NF }' "$T/out" | sort -u | wc -l)" -eq "$n" ]
	fi
	# Every fork row comes from the parent.
	[ "$(awk -v p="$parent" '$4 == "fork" && $2 != p' "$T/out" | wc -l)" -eq 0 ]
	# One exit row per fork row's child, and only for the children forked.
	diff <(awk '$4 == "fork" { print $NF }' "$T/out" | sort) \
	    <(ct_rows -f exit | awk -v p="$parent" '$1 != p { print $1 }' | sort)
	[ "$(ct_rows -f exit | awk -v p="$parent" -v k="$k" '$1 != p && $3 != k' | wc -l)" -eq 0 ]
	[ "$(ct_rows -f exit | awk -v p="$parent" '$1 == p { print $3 }')" = "$parent_k" ]
}

@test "1000 children at once (-f -T 0): each reported once, exactly, and the total equals perf stat" {
	ct_run -f -T 0 -c "$WRITE" "$W/ct_forkmany" 1000 7
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	check_children 1000 7 0 together
	[ "$(ct_sum -f exit)" -eq 7000 ]
	[ "$(perf_count "$WRITE" "$W/ct_forkmany" 1000 7)" -eq 7000 ]
}

@test "1000 children at once with ticks and three events: exact, no hang" {
	ct_run -f -T 0.05 -c "$WRITE,task-clock,page-faults" "$W/ct_forkmany" 1000 7
	[ "$status" -eq 0 ]
	# A child killed by a signal is said on stderr, by cputrack and, with
	# the signal, by ct_forkmany; the kernel's log tells whether something
	# outside the run (the OOM killer) killed it.
	[ -z "$stderr" ] || {
		echo "stderr: $stderr"
		dmesg 2>/dev/null | grep -iE 'oom|killed process' | tail -5
		false
	}
	check_children 1000 7 0 together
	# Each child's ticks never exceed its total.
	[ "$(ct_rows -f tick | awk '{ s[$1] += $3 } END { for (p in s) if (s[p] > 7) print p }' | wc -l)" -eq 0 ]
}

@test "1000 short-lived children (fork tree 1 x 1000): each once, exactly" {
	ct_run -f -T 0 -c "$WRITE" "$W/wl_forktree" 1 1000 5
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	check_children 1000 5 5
}

@test "a fork tree of 1111 processes over three generations (-f): every process once, exactly" {
	ct_run -f -T 0.05 -c "$WRITE" "$W/wl_forktree" 3 10 3
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(ct_count -f fork)" -eq 1110 ]
	[ "$(ct_count -f exit)" -eq 1111 ]
	[ "$(ct_rows -f exit | awk '$3 != 3' | wc -l)" -eq 0 ]
	# Each fork row's child has one exit row. A pid may come back within
	# the run once its first owner is reaped (see check_children), so
	# the pids are compared as lists with repeats, not as sets.
	diff <(awk '$4 == "fork" { print $NF }' "$T/out" | sort) \
	    <(ct_rows -f exit | awk '{ print $1 }' | sort | grep -vx "$(awk 'NR == 2 { print $2 }' "$T/out")")
}

@test "without -f: 1000 fork rows, the children run untracked to their end" {
	ct_run -T 0 -c "$WRITE" "$W/ct_forkmany" 1000 7
	[ "$status" -eq 0 ]
	[ "$(ct_count fork)" -eq 1000 ]
	[ "$(ct_count exit)" -eq 1 ]
	[ "$(ct_rows exit)" = "1 0" ]
}

@test "out of file descriptors: children that cannot be counted are named, none hangs or is left" {
	local rc=0 forkmany
	forkmany=$(wl_own ct_forkmany)
	(
		ulimit -S -n 200 && ulimit -H -n 200 &&
		exec timeout -k 5 "$CT_TIMEOUT" "$CT" -f -T 0 -c "$WRITE,task-clock,page-faults" \
		    "$forkmany" 1000 7
	) >"$T/out" 2>"$T/err" || rc=$?
	grep -q 'Resource temporarily unavailable' "$T/err" && skip "a cpustat elsewhere took the counters"
	local parent counted lost
	parent=$(awk 'NR == 2 { print $2 }' "$T/out")
	[ "$(ct_count -f fork)" -eq 1000 ]
	counted=$(ct_rows -f exit | awk -v p="$parent" '$1 != p' | wc -l)
	lost=$(grep -c '^cputrack: cannot follow pid [0-9]*$' "$T/err" || true)
	if [ "$ENGINE" = bpf ]; then
		# Counters per CPU, not per thread: a few descriptors in all,
		# and every child counted exactly.
		[ "$rc" -eq 0 ]
		[ ! -s "$T/err" ]
		[ "$counted" -eq 1000 ]
		[ "$(ct_rows -f exit | awk -v p="$parent" '$1 != p && $3 != 7' | wc -l)" -eq 0 ]
		[ -z "$(pgrep -f "^$forkmany 1000 7\$")" ]
		return
	fi
	# Children not followed leave the run's counts incomplete.
	[ "$rc" -eq 1 ]
	# Each child is either counted exactly or named as not followed.
	[ $((counted + lost)) -eq 1000 ]
	[ "$counted" -gt 0 ]
	[ "$lost" -gt 0 ]
	[ "$(ct_rows -f exit | awk -v p="$parent" '$1 != p && $3 != 7' | wc -l)" -eq 0 ]
	grep -qE '^ *[0-9]+: init_lwp: can.t bind perf counters to lwp1 - Too many open files$' "$T/err"
	# No child is left behind (one let go may still be finishing its
	# writes on a loaded machine; one left stopped never ends).
	wait_for none_left "$forkmany"
}

# none_left PATH: no process runs PATH 1000 7; else each one left, said.
none_left() {
	local p left
	left=$(pgrep -f "^$1 1000 7\$") || return 0
	for p in $left; do
		echo "left: $p, state $(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)"
	done
	return 1
}
