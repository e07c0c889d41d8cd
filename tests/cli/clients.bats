# SPDX-License-Identifier: BSD-2-Clause
# Programs written the way real Solaris programs use libcpc and libpctx
# (tests/clients/): the fork model of a Solaris controller, and targets
# that mark their code with cpc_enable, cpc_disable and
# cpc_count_usr_events while cputrack holds the counters.
load cputrack_helper

setup() {
	ct_setup
	ensure_tracefs
	C=$BUILD_DIR/tests/clients
}

teardown() {
	ct_teardown
}

# sol_track [args...]: run the Solaris-style controller, again if a
# cpustat elsewhere took the counters meanwhile (exit 3: a failed sample).
sol_run() {
	local try
	for try in $(seq 10); do
		status=0
		timeout -k 5 60 "$C/sol_track" "$@" >"$T/out" 2>"$T/err" ||
		    status=$?
		grep -q 'Resource temporarily unavailable' "$T/err" || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 10 tries
	done
}

# run_rows N: $T/out has N run rows.
run_rows() {
	[ "$(awk '$3 == "run"' "$T/out" | wc -l)" -ge "$1" ]
}

@test "a Solaris controller's fork handler runs in a copy of it: every child is tracked to its end, with its own ticks, and the parent too" {
	# 7 processes; each writes 100, forks, sleeps 0.3 s, writes 100.
	local forkslow
	forkslow=$(wl_own wl_forkslow)
	sol_run -f -T 50 "$WRITE" "$forkslow" 2 2 100 300
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	# The copies that track the children may end after the first one,
	# as their processes may outlive the root: wait for their rows.
	wait_for run_rows 7
	# Each process: one exit row with exactly 200, one run row with 0.
	[ "$(awk '$3 == "exit" && $4 == 200' "$T/out" | wc -l)" -eq 7 ]
	[ "$(awk '$3 == "exit"' "$T/out" | wc -l)" -eq 7 ]
	[ "$(awk '$3 == "run" && $4 == 0' "$T/out" | wc -l)" -eq 7 ]
	# The fork rows name parent, forking LWP and child, in that order:
	# 6 children, each of a process that has its own rows.
	[ "$(awk '$3 == "fork" && $2 == 1' "$T/out" | wc -l)" -eq 6 ]
	awk '$3 == "fork" { print $1; print $4 }' "$T/out" | sort -u >"$T/forkpids"
	awk '$3 == "exit" { print $1 }' "$T/out" | sort -u >"$T/exitpids"
	diff "$T/forkpids" "$T/exitpids"
	# Every process, children included, was sampled at ticks, and its
	# ticks add up to no more than its total.
	[ "$(awk '$3 == "tick" { print $1 }' "$T/out" | sort -u | wc -l)" -eq 7 ]
	awk '$3 == "tick" { s[$1] += $4 } $3 == "exit" { e[$1] = $4 }
	    END { for (p in e) if (s[p] > e[p]) exit 1 }' "$T/out"
	# Nothing is left behind: no copy, no stopped or traced child.
	run ! pgrep -f "sol_track -f -T 50 $WRITE" >/dev/null
	! pgrep -f "$forkslow 2 2 100 300" >/dev/null
}

@test "a Solaris controller without -f: the children run untracked, the parent is counted alone" {
	sol_run -T 50 "$WRITE" "$W/wl_forkslow" 1 2 100 100
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(awk '$3 == "exit"' "$T/out")" = "$(awk '$3 == "exit" { print }' "$T/out" | head -n 1)" ]
	[ "$(awk '$3 == "exit" { print $4 }' "$T/out")" = 200 ]
	! grep -q ' fork ' "$T/out"
}

# A target's cpc_enable, cpc_disable and cpc_count_usr_events ask its
# tracer, which acts on the counters it bound to the LWP before the LWP
# goes on. The BPF engine traces nothing: there is no one to ask.
served_by_engine() {
	[ "$ENGINE" != bpf ] ||
	    skip "the BPF engine traces nothing, so no controller serves the target's requests (see the BPF case)"
}

@test "BPF engine: the target has no controller to ask; cpc_disable fails with EINVAL, as without one, and the count is whole" {
	[ "$ENGINE" = bpf ] ||
	    skip "the ptrace engine serves the target's requests (the cases above)"
	ct_run -c "$WRITE" "$C/cpc_marked" 100 1000
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	grep -qx 'cpc_disable: Invalid argument' "$T/err"
	# Its one write is that message: it stopped at its first call.
	[ "$(ct_rows exit)" = "1 1" ] || { cat "$T/out" "$T/err"; false; }
}

@test "cpc_enable and cpc_disable in the target turn the counters cputrack bound on and off: only the marked section is counted" {
	served_by_engine
	ct_run -c "$WRITE" "$C/cpc_marked" 100 1000
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_rows exit)" = "1 1000" ] || { cat "$T/out" "$T/err"; false; }
}

@test "cpc_disable around an unmarked section: everything else is counted" {
	served_by_engine
	ct_run -c "$WRITE" "$C/cpc_marked" -u 100 1000
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_rows exit)" = "1 200" ] || { cat "$T/out" "$T/err"; false; }
}

# Two sets of tracepoints count as one perf group, and a switch is
# bookkeeping at one read of it: the section is counted exactly once,
# whichever set counted each part of it. The section lasts 50 ticks or
# more here (half a microsecond a write), and 10 on a machine ten times
# as fast.
@test "cpc_enable and cpc_disable act on every set of the LWP: with two sets taking turns the section is counted exactly once" {
	served_by_engine
	local sum
	ct_run -T 0.002 -c "$WRITE" -c "$WRITE" "$C/cpc_marked" 20000 500000
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_count tick)" -ge 10 ] || { cat "$T/out"; false; }
	sum=$(ct_rows exit | awk '{ s += $2 } END { print s }')
	[ "$sum" -eq 500000 ] || { cat "$T/out"; false; }
}

# Sets that take turns on the counters (hardware events; forced here with
# CPCTOOLS_SET_SWITCH) overlap at a switch: the next starts before the
# current stops, and what the LWP does between the two calls to its CPU
# counts in both (about 0.2% here, where such a call takes 20 us;
# bench/run measures it). Counted twice, or not at all, would be 100% off.
@test "with sets taking turns on the counters, the section is counted once, within 1%" {
	served_by_engine
	local sum
	CPCTOOLS_SET_SWITCH=1 ct_run -T 0.01 -c "$WRITE" -c "$WRITE" \
	    "$C/cpc_marked" 20000 100000
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	sum=$(ct_rows exit | awk '{ s += $2 } END { print s }')
	echo "counted: $sum"
	[ "$sum" -ge 100000 ]
	[ "$sum" -le 101000 ]
}

@test "cpc_count_usr_events in the target: under nouser, only the section's user-mode page faults are counted" {
	served_by_engine
	ct_run -c page-faults,nouser "$C/cpc_usr_section" 100 1000
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_rows exit)" = "1 1000" ] || { cat "$T/out" "$T/err"; false; }
}

@test "without a controller, cpc_enable and cpc_disable fail with EINVAL, as on Solaris" {
	run "$C/cpc_marked" 1 1
	[ "$status" -eq 3 ]
	[ "$output" = "cpc_disable: Invalid argument" ]
}

@test "under another tracer (strace), cpc_disable fails with EINVAL and no stray signal reaches the program" {
	command -v strace >/dev/null || skip "strace is not installed"
	run strace -f -e trace=none -o "$T/strace" "$C/cpc_marked" 1 1
	[ "$status" -eq 3 ] || { echo "$output"; cat "$T/strace"; false; }
	! grep -q 'SIGURG' "$T/strace"
}
