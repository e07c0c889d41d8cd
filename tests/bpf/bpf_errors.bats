#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# When the BPF engine cannot run, one line says why and the status is 2:
# no privilege (CAP_BPF and CAP_PERFMON are enough without root), or a pid
# namespace of its own. --engine=auto then counts with ptrace. A cpustat
# of software events, before or during a run, excludes nothing.

load bpf_helper

setup() {
	bd_setup
}

teardown() {
	ct_teardown
}

@test "not root and no capabilities: one line naming what is needed, exit 2" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	status=0
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	    "$(nobody_path "$D")" -c task-clock "$W/wl_threads" 1 1 >"$T/out" 2>"$T/err" ||
	    status=$?
	[ "$status" -eq 2 ]
	[ ! -s "$T/out" ]
	[ "$(cat "$T/err")" = "bpfdrive: the BPF engine needs CAP_BPF and CAP_PERFMON (or root)" ]
}

@test "CAP_BPF and CAP_PERFMON without root are enough" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	status=0
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
	    "$(nobody_path "$D")" -c page-faults "$(nobody_path "$W/wl_threads")" 2 10 >"$T/out" 2>"$T/err" ||
	    status=$?
	counters_taken && skip "a cpustat elsewhere held the counters"
	[ "$status" -eq 0 ]
	[ "$(bd_count lwp_exit)" -eq 3 ]
	[ "$(bd_rows exit_total | awk '{ print $3 }')" -gt 0 ]
}

@test "--engine=auto: BPF where it can run, ptrace where not; only -v says which, and why not BPF" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local ct wl
	ct_run --engine=auto -v -c "$WRITE" "$W/wl_threads" 2 10
	[ "$status" -eq 0 ]
	[ "$(cat "$T/err")" = "cputrack: --engine=auto: counting with the BPF engine" ]
	[ "$(ct_rows exit)" = "1 20" ]
	ct_run --engine=auto -c "$WRITE" "$W/wl_threads" 2 10
	[ "$status" -eq 0 ]
	[ ! -s "$T/err" ]
	[ "$(ct_rows exit)" = "1 20" ]
	# Without privilege: ptrace, which needs none to count user mode.
	ct=$(nobody_path "$CPUTRACK")
	wl=$(nobody_path "$W/wl_threads")
	for v in -v ""; do
		status=0
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		    --inh-caps=-all "$ct" --engine=auto $v -c page-faults \
		    "$wl" 2 10 >"$T/out" 2>"$T/err" || status=$?
		[ "$status" -eq 0 ] || { cat "$T/err"; false; }
		[ "$(ct_count lwp_exit)" -eq 2 ]
		if [ -n "$v" ]; then
			[ "$(cat "$T/err")" = "cputrack: --engine=auto: counting with ptrace: the BPF engine needs CAP_BPF and CAP_PERFMON (or root)" ]
			grep -q ' init_lwp ' "$T/out"
		else
			[ ! -s "$T/err" ]
		fi
	done
}

# A cpustat of the same software event on every CPU, counting until the
# test ends; waits for its first row.
start_cpustat() {
	"$CPUSTAT" -c "$WRITE" 0.1 >"$T/cs.out" 2>"$T/cs.err" &
	CS=$!
	ct_bg "$CS"
	wait_while "$CS" grep -q ' tick ' "$T/cs.out"
}

@test "a cpustat counting the same event, before and during the run, changes nothing: exact, exit 0" {
	start_cpustat
	status=0
	"$D" -T 50 -c "$WRITE" "$W/ct_steady" 2 10 20 10 >"$T/out" 2>"$T/err" ||
	    status=$?
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(bd_count lwp_exit)" -eq 3 ]
	[ "$(bd_rows exit_total | awk '{ print $3 }')" -eq 200 ]
	running "$CS"
	[ ! -s "$T/cs.err" ]
}

@test "in a pid namespace of its own: refused, one line, exit 2" {
	command -v unshare >/dev/null || skip "unshare is not installed"
	status=0
	timeout 60 unshare -p -f --mount-proc "$D" -c task-clock \
	    "$W/ct_marker" "$T/ran" >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 2 ]
	[ "$(cat "$T/err")" = "bpfdrive: the BPF engine runs only in the initial pid namespace (this one is a container's)" ]
	[ ! -e "$T/ran" ]
}

# The refusal comes after the programs loaded, while the command waited,
# forked, to exec: that one ends unrun, and ptrace runs the command once.
@test "in a pid namespace of its own, --engine=auto: ptrace counts, the command runs once, nothing is left" {
	command -v unshare >/dev/null || skip "unshare is not installed"
	status=0
	timeout 60 unshare -p -f --mount-proc "$CPUTRACK" --engine=auto -v \
	    -c task-clock sh -c 'echo x >>"$1"; ps -e -o comm=' sh "$T/ran" \
	    >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(cat "$T/err")" = "cputrack: --engine=auto: counting with ptrace: the BPF engine runs only in the initial pid namespace (this one is a container's)" ]
	[ "$(cat "$T/ran")" = "x" ]
	# In the namespace: cputrack, the command and its ps; no guard.
	[ "$(grep -c -e '^cputrack' -e '^sh$' -e '^ps$' "$T/out")" -eq 3 ]
	! grep -q 'cputrack-guard' "$T/out"
}

@test "too few file descriptors: at every limit, one line that says so, never the verifier's refusal" {
	command -v prlimit >/dev/null || skip "prlimit is not installed"
	local n try
	for n in $(seq 8 2 60); do
		for try in $(seq 10); do
			status=0
			prlimit --nofile=$n:$n "$CPUTRACK" --engine=bpf \
			    -c "$WRITE,page-faults" "$W/wl_threads" 1 1 \
			    >"$T/out" 2>"$T/err" || status=$?
			counters_taken || break
			sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 10 tries
		done
		echo "ulimit -n $n: exit $status: $(cat "$T/err")"
		grep -q verifier "$T/err" && fail "the verifier's log reached the user"
		grep -q '^libbpf' "$T/err" && fail "libbpf's own lines reached the user"
		[ "$status" -eq 0 ] ||
		    grep -qE 'file descriptors|open files' "$T/err"
	done
	# With room enough, it counts.
	[ "$status" -eq 0 ]
}
