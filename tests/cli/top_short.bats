#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cputop -b with processes that live less than a refresh: each is shown
# once, ended, with its counts over the refresh (not over its short life),
# and every one is in the final totals with its exact counts, its owner
# kept; many ended processes of one command are one line after the first
# screenful, and the screen says so.
load cputrack_helper

setup() {
	ct_setup
}

teardown() {
	ct_teardown
}

# The blocks of -b's output, each a screen, ended by an empty line; the
# last is the totals at the end.
last_block() {
	awk 'BEGIN { RS = "" } { b = $0 } END { print b }' "$1"
}

# The screens before the totals.
refresh_blocks() {
	awk 'BEGIN { RS = ""; ORS = "\n\n" } NR > 1 { print b } { b = $0 }' "$1"
}

# A rate's cell (1.23K/s) as a number.
rate_awk='function rate(s,  m) {
	m = 1; if (s ~ /K\/s/) m = 1e3; if (s ~ /M\/s/) m = 1e6
	if (s ~ /G\/s/) m = 1e9; return (s + 0) * m }'

# top_gated ARGS...: cputrack --top -b ARGS in the background (CPID), its
# screens in $T/out, its command's input the gate: a command that reads
# a line there waits for the test (gate_release), not for a time.
top_gated() {
	gate_open
	"$CT" --top -b "$@" <"$T/gate" >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
}

# ended_shown NAME N: until the screens before the totals show N ended
# lines of NAME.
ended_shown() {
	wait_while "$CPID" ended_lines "$1" "$2" ||
	    { cat "$T/out" "$T/err"; false; }
}
ended_lines() {
	[ "$(awk -v n="$1" '$NF == "<ended>" && $(NF - 1) == n' "$T/out" |
	    wc -l)" -ge "$2" ]
}

@test "-b: processes of a millisecond each, shown once at their rate over the refresh, all in the exact totals" {
	local me
	me=$(id -un)
	# The command waits at the gate until the screens have shown all
	# three: a loaded machine may refresh later than a time would allow.
	top_gated -T 0.5 -c "$WRITE,task-clock" -ef sh -c \
	    'for i in 1 2 3; do "$0" 2 500; done; read -r go' "$W/wl_threads"
	ended_shown wl_threads 3
	gate_release
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	last_block "$T/out" >"$T/totals"
	grep -q 'totals since the start' "$T/totals"
	# Three wl_threads, each its 2 x 500 writes, its owner named.
	awk -v me="$me" '$NF == "<ended>" && $(NF - 1) == "wl_threads" {
	    n++; if ($4 != 1000 || $2 != me) bad++; sum += $4; pid[$1] }
	    END { p = 0; for (k in pid) p++
		exit !(n == 3 && p == 3 && !bad && sum == 3000) }' \
	    "$T/totals" || { cat "$T/totals"; false; }
	# In the refreshes, each once, ended, its 1000 writes at a rate over
	# a refresh (2.2K/s at most over one of 0.5 s, with the ticks'
	# slack; a late refresh makes it less), not over its millisecond of
	# life (a million a second), and far under a CPU.
	refresh_blocks "$T/out" >"$T/screens"
	awk "$rate_awk"' $NF == "<ended>" && $(NF - 1) == "wl_threads" {
	    n++; seen[$1]++
	    if (rate($4) > 2200 || rate($4) <= 0 || $5 + 0 > 0.5) bad++ }
	    END { p = 0; for (k in seen) { p++; if (seen[k] != 1) bad++ }
		exit !(n == 3 && p == 3 && !bad) }' \
	    "$T/screens" || { cat "$T/screens"; false; }
}

@test "-b: a child that ticked and ended shows its counts on its ended line" {
	# The command waits at the gate until a screen has shown the child
	# ended.
	top_gated -T 0.2 -c "$WRITE" -ef sh -c '"$0" 1 10 3 100; read -r go' \
	    "$W/ct_steady"
	ended_shown ct_steady 1
	gate_release
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	# Its ended line has a rate, not a blank cell.
	refresh_blocks "$T/out" >"$T/screens"
	awk "$rate_awk"' $NF == "<ended>" && $(NF - 1) == "ct_steady" {
	    n++; if ($4 !~ /\/s$/) bad++ }
	    END { exit !(n == 1 && !bad) }' "$T/screens" ||
	    { cat "$T/screens"; false; }
	last_block "$T/out" >"$T/totals"
	awk '$(NF - 1) == "ct_steady" && $4 == 1000 { f = 1 } END { exit !f }' \
	    "$T/totals" || { cat "$T/totals"; false; }
}

@test "-b: past the first screenful, the ended processes of a command are one line with their counts summed, and said" {
	run --separate-stderr "$CT" --top -b -T 0.3 -c "$WRITE" -ef sh -c \
	    'i=0; while [ $i -lt 200 ]; do "$0" 1 3; i=$((i + 1)); done' \
	    "$W/wl_threads"
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	echo "$output" >"$T/out"
	last_block "$T/out" >"$T/totals"
	# 20 lines as they are, then one for the rest, which says how many:
	# 200 processes of 3 writes each, all of them.
	grep -qE '^\(below: [0-9]+ ended processes, one line per command: NAME xN, their counts summed\)$' \
	    "$T/totals" || { cat "$T/totals"; false; }
	awk '$NF == "<ended>" && $(NF - 1) == "wl_threads" {
		alone++; sum += $4; if ($4 != 3) bad++ }
	    $NF == "<ended>" && $(NF - 1) ~ /^x[0-9]+$/ && $(NF - 2) == "wl_threads" {
		lines++; n += substr($(NF - 1), 2); sum += $(NF - 3) }
	    END { exit !(alone == 20 && lines == 1 && alone + n == 200 &&
		sum == 600 && !bad) }' "$T/totals" || { cat "$T/totals"; false; }
	# No screen lists more than its first 20 and the line of the rest
	# (which one ended process alone past them is, as it was).
	awk 'BEGIN { RS = "" } {
	    k = 0; m = split($0, l, "\n")
	    for (i = 1; i <= m; i++) if (l[i] ~ / wl_threads <ended>$/) k++
	    if (k > 21) bad++ } END { exit !!bad }' "$T/out" ||
	    { cat "$T/out"; false; }
}
