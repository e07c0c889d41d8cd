#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# Where ptrace cannot go, cputrack --engine=bpf counts, exactly: a process
# that strace traces (-p, and a command strace runs), a set-uid program
# that an unprivileged user's command execs, and the faults the kernel
# takes for a forked child before a tracer can bind its counters. Each
# is checked against what the ptrace engine does with the same target,
# and against strace's own log or perf stat.

load bpf_helper

setup() {
	bd_setup
	PY=$(python3 -c "import sys; print(sys.executable)")
}

teardown() {
	exec 7>&- 2>/dev/null || true
	ct_teardown
	if [ -n "${SHARED:-}" ]; then
		rm -rf "$SHARED"
	fi
}

# gated COMMAND...: start COMMAND with its stdin on a gate; sets TPID once
# it printed "ready". open_gate lets it go on.
gated() {
	rm -f "$T/gate"
	mkfifo "$T/gate"
	"$@" <"$T/gate" >"$T/target.out" &
	TPID=$!
	ct_bg "$TPID"
	exec 7>"$T/gate"
	wait_line "$T/target.out" '^ready$'
}

open_gate() {
	echo >&7
	exec 7>&-
}

# Start a command in the background (stdout $2, stderr $3) and remember it.
background() {
	local out=$1 err=$2
	shift 2
	"$@" >"$out" 2>"$err" &
	ct_bg $!
	BG=$!
}

# Wait until the cputrack $1 has written its title to $2.
title_out() {
	wait_while "$1" test -s "$2"
}

# "tid value" of the lwp_exit rows of CSV $1 (the first event).
csv_lwp_exits() {
	awk -F, '$7 == "lwp_exit" && $8 == "0" { print $4, $12 }' "$1" | sort
}

# strace ($SPID) traces $TPID, and said it attached.
strace_attached() {
	[ "$(tracer_of "$TPID")" = "$SPID" ] &&
	    grep -q attached "$T/strace.err"
}

strace_p_scenario() {
	gated "$W/wl_gate" 3 700 100
	strace -f -e trace=write -o "$T/strace.log" -p "$TPID" 2>"$T/strace.err" &
	SPID=$!
	ct_bg "$SPID"
	wait_for strace_attached
	# The ptrace engine must refuse it: one tracer per process.
	ct_run --engine=ptrace -p "$TPID" -c "$WRITE"
	PT_STATUS=$status
	cp "$T/err" "$T/pt.err"
	background "$T/bpf.csv" "$T/bpf.err" "$CT" --engine=bpf --format=csv \
	    -T 0.1 -p "$TPID" -c "$WRITE"
	CPID=$BG
	title_out "$CPID" "$T/bpf.csv"
	perf_stat_bg "$TPID" "$T/perf" --per-thread -x, -e "$WRITE"
	PPID_=$PERF_PID
	open_gate
	status=0
	wait "$CPID" || status=$?
	wait "$PPID_" || true
	wait "$SPID" || true
	cp "$T/bpf.err" "$T/err"
}

@test "-p: a process that strace traces: the ptrace engine refuses, naming strace and the BPF engine; the BPF engine counts every thread exactly, as strace and perf stat see them" {
	command -v strace >/dev/null || skip "strace is not installed"
	command -v perf >/dev/null || skip "perf is not installed"
	strace_p_scenario
	counters_taken && skip "a cpustat elsewhere took the counters"
	[ "$PT_STATUS" -eq 1 ]
	[ "$(cat "$T/pt.err")" = "cputrack: pid $TPID is already being traced
cputrack: failed to capture pid $TPID
cputrack: pid $TPID is traced by pid $SPID (strace), and a process has one tracer: --engine=bpf counts it without tracing it" ]
	[ "$status" -eq 0 ]
	[ ! -s "$T/err" ]
	# 100 writes each before the attach, 700 after: the BPF engine counts
	# 700 per thread, and so do perf stat --per-thread and strace.
	[ "$(csv_lwp_exits "$T/bpf.csv" | awk '{ print $2 }' | sort -u)" = 700 ]
	[ "$(csv_lwp_exits "$T/bpf.csv" | wc -l)" -eq 3 ]
	diff <(awk -F, -v e="$WRITE" '$4 == e && $2 > 0 {
	    n = split($1, a, "-"); print a[n], $2 }' "$T/perf" | sort) \
	    <(csv_lwp_exits "$T/bpf.csv")
	diff <(awk '$2 ~ /^write\(/ { n[$1]++ } END { for (t in n) print t, n[t] }' \
	    "$T/strace.log" | sort) <(csv_lwp_exits "$T/bpf.csv")
	[ "$(awk -F, '$7 == "exit" { print $2, $12 }' "$T/bpf.csv")" = "$TPID 2100" ]
}

@test "a command that strace -f runs: under the ptrace engine strace cannot trace it; the BPF engine counts it exactly, as strace and perf stat see it" {
	command -v strace >/dev/null || skip "strace is not installed"
	command -v perf >/dev/null || skip "perf is not installed"
	# ptrace: cputrack traces strace's child first, so strace cannot.
	ct_run --engine=ptrace -f -e -T 0 -c "$WRITE" \
	    strace -f -e trace=write -o "$T/pt-strace.log" "$W/wl_threads" 3 400
	grep -q 'PTRACE_TRACEME: Operation not permitted' "$T/err"
	[ "$(grep -cF "# '$W/wl_threads" "$T/out")" -eq 0 ]
	# BPF: strace, perf stat and the engine all count the same run.
	ct_run --engine=bpf -v -f -e -T 0.05 --format=csv -c "$WRITE" \
	    perf stat -x, -o "$T/perf" -e "$WRITE" -- \
	    strace -f -e trace=write -o "$T/strace.log" "$W/wl_threads" 3 400
	[ "$status" -eq 0 ]
	# strace's probes of what the kernel offers end by signals.
	[ "$(grep -cvE '^cputrack: [0-9]+: process terminated: killed by SIG[A-Z0-9]+( \(core dumped\))?$' "$T/err")" -eq 0 ]
	cp "$T/out" "$T/bpf.csv"
	run python3 "$BATS_TEST_DIRNAME/equal_check.py" "$T/bpf.csv" - \
	    "$T/perf" --perf-exact "$WRITE"
	echo "$output"
	[ "$status" -eq 0 ]
	# The workload's process: 400 writes in each of its 3 threads (its
	# exec marker's arguments in column 15, with one event).
	local child
	child=$(awk -F, -v w="$W/wl_threads 3 400" '$7 == "exec" &&
	    $15 == w { print $2 }' "$T/bpf.csv")
	[ -n "$child" ]
	[ "$(awk -F, -v p="$child" '$7 == "lwp_exit" && $2 == p { print $12 }' \
	    "$T/bpf.csv" | sort -u)" = 400 ]
	[ "$(awk -F, -v p="$child" '$7 == "exit" && $2 == p { print $12 }' \
	    "$T/bpf.csv")" -eq 1200 ]
	# strace saw the same writes, thread by thread.
	diff <(awk '$2 ~ /^write\(/ { n[$1]++ } END { for (t in n) print t, n[t] }' \
	    "$T/strace.log" | sort) \
	    <(awk -F, -v p="$child" '$7 == "lwp_exit" && $2 == p { print $4, $12 }' \
	    "$T/bpf.csv" | sort)
}

# A set-uid root copy of ct_marker and ct_exec in a directory everybody
# can read.
make_setuid() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to make a set-uid root program"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	SHARED=$(mktemp -d /tmp/bpf-where.XXXXXX)
	chmod 0777 "$SHARED"
	cp "$W/ct_marker" "$SHARED/setuid"
	chmod 4755 "$SHARED/setuid"
	cp "$W/ct_exec" "$SHARED/ct_exec"
	chmod 0755 "$SHARED/ct_exec"
	cp "$CT" "$SHARED/cputrack"
	chmod 0755 "$SHARED/cputrack"
}

# As nobody, with CAP_BPF and CAP_PERFMON: all that the BPF engine needs,
# and counting per CPU needs CAP_PERFMON. The ptrace engine runs with the
# same.
as_nobody_perfmon() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon "$@"
}

# setuid_run ENGINE FILE: nobody's cputrack follows ct_exec 4 into the
# set-uid program (6 writes, then it creates FILE). tracefs is root's
# alone: the tracepoint is named by its id.
setuid_run() {
	local rc=0
	rm -f "$2"
	as_nobody_perfmon timeout 60 "$SHARED/cputrack" --engine="$1" -e -T 0 \
	    -c "tracepoint/config=$TP_ID/" "$SHARED/ct_exec" 4 \
	    "$SHARED/setuid" "$2" 6 >"$T/out" 2>"$T/err" || rc=$?
	status=$rc
}

@test "nobody execs a set-uid program: the BPF engine lets it run with its privileges, uncounted; the ptrace engine runs it without them, counted" {
	make_setuid
	TP_ID=$(cat /sys/kernel/tracing/events/syscalls/sys_enter_write/id)
	setuid_run bpf "$SHARED/ran.bpf"
	# The image before the exec is counted; nobody could not ptrace the
	# set-uid one, so it is not, however soon it ends.
	[ "$status" -eq 1 ] || { cat "$T/err"; false; }
	[ "$(awk '$3 == "exec" && NF == 4 { print $4 }' "$T/out")" -eq 4 ]
	grep -qE "^ *[0-9]+: init_lwp: can't bind perf counters to lwp1 - Permission denied\$" "$T/err"
	grep -qE "^cputrack: [0-9]+: execed a program that cannot be tracked\$" "$T/err"
	grep -qE ' init_lwp +- +# not counted: permission denied$' "$T/out"
	[ -z "$(awk '$3 == "exit"' "$T/out")" ]
	# It ran as its owner: nothing traced it.
	[ "$(stat -c %U "$SHARED/ran.bpf")" = root ]
	# The ptrace engine counts it, but only by taking the program's
	# privileges away (a tracer without them cannot trace it with them).
	setuid_run ptrace "$SHARED/ran.pt"
	counters_taken && skip "a cpustat elsewhere took the counters"
	[ "$status" -eq 0 ]
	[ "$(awk '$3 == "exit" { print $4 }' "$T/out")" -eq 6 ]
	grep -qE "^cputrack: [0-9]+: set-id program runs without its privileges while traced\$" "$T/err"
	[ "$(stat -c %U "$SHARED/ran.pt")" = nobody ]
}

@test "nobody starts a set-uid program under the BPF engine: it runs with its privileges, not counted, exit 1" {
	make_setuid
	TP_ID=$(cat /sys/kernel/tracing/events/syscalls/sys_enter_write/id)
	local rc=0
	as_nobody_perfmon timeout 60 "$SHARED/cputrack" --engine=bpf -T 0 \
	    -c "tracepoint/config=$TP_ID/" "$SHARED/setuid" "$SHARED/ran" 6 \
	    >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 1 ] || { cat "$T/err"; false; }
	grep -qE "^cputrack: [0-9]+: execed a program that cannot be tracked\$" "$T/err"
	grep -qE ' init_lwp +- +# not counted: permission denied$' "$T/out"
	[ -z "$(awk '$3 == "exit" || $3 == "exec"' "$T/out")" ]
	# It ran, as its owner, to its end.
	wait_file "$SHARED/ran"
	[ "$(stat -c %U "$SHARED/ran")" = root ]
}

@test "nobody without CAP_BPF and CAP_PERFMON: --engine=bpf says what it needs, exit 2, the command never runs" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local rc=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	    "$(nobody_path "$CT")" --engine=bpf -c task-clock "$W/ct_marker" "$T/ran" \
	    >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 2 ]
	[ ! -s "$T/out" ]
	[ "$(cat "$T/err")" = "cputrack: --engine=bpf: the BPF engine needs CAP_BPF and CAP_PERFMON (or root)" ]
	[ ! -e "$T/ran" ]
}

forks_scenario() {
	gated "$PY" -c '
import os, sys
print("ready", flush=True)
sys.stdin.readline()
kids = []
for i in range(40):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
'
	local ev="page-faults:u,page-faults:k"
	background "$T/bpf.csv" "$T/bpf.err" "$CT" --engine=bpf -f -T 0 \
	    --format=csv -p "$TPID" -c "$ev"
	BPID=$BG
	background "$T/pt.csv" "$T/pt.err" "$CT" --engine=ptrace -f -T 0 \
	    --format=csv -p "$TPID" -c "$ev"
	TRPID=$BG
	title_out "$BPID" "$T/bpf.csv"
	title_out "$TRPID" "$T/pt.csv"
	perf_stat_bg "$TPID" "$T/perf" -x, -e "$ev"
	PPID_=$PERF_PID
	open_gate
	status=0
	wait "$BPID" || status=$?
	PT_STATUS=0
	wait "$TRPID" || PT_STATUS=$?
	wait "$PPID_" || true
	cat "$T/bpf.err" "$T/pt.err" >"$T/err"
}

# Column $2 of the exit rows of CSV $1, summed.
csv_exit_sum() {
	awk -F, -v c="$2" '$7 == "exit" && $8 == "0" { s += $c } END { print s + 0 }' "$1"
}

@test "faults the kernel takes for forked children: the BPF engine counts them all, as perf stat does; the ptrace engine binds too late for some" {
	command -v perf >/dev/null || skip "perf is not installed"
	forks_scenario
	counters_taken && skip "a cpustat elsewhere took the counters"
	[ "$status" -eq 0 ]
	[ "$PT_STATUS" -eq 0 ]
	[ ! -s "$T/err" ]
	# 41 processes, in both engines.
	[ "$(awk -F, '$7 == "exit"' "$T/bpf.csv" | wc -l)" -eq 41 ]
	[ "$(awk -F, '$7 == "exit"' "$T/pt.csv" | wc -l)" -eq 41 ]
	local perf_u perf_k
	perf_u=$(awk -F, '$3 == "page-faults:u" { print $1 }' "$T/perf")
	perf_k=$(awk -F, '$3 == "page-faults:k" { print $1 }' "$T/perf")
	echo "# perf stat: $perf_u user, $perf_k kernel;" \
	    "bpf: $(csv_exit_sum "$T/bpf.csv" 12), $(csv_exit_sum "$T/bpf.csv" 13);" \
	    "ptrace: $(csv_exit_sum "$T/pt.csv" 12), $(csv_exit_sum "$T/pt.csv" 13)"
	# User-mode faults: all three the same.
	[ "$(csv_exit_sum "$T/bpf.csv" 12)" -eq "$perf_u" ]
	[ "$(csv_exit_sum "$T/pt.csv" 12)" -eq "$perf_u" ]
	# Kernel-mode faults: the BPF engine has every one perf stat has.
	[ "$(csv_exit_sum "$T/bpf.csv" 13)" -eq "$perf_k" ]
	# A child's first, as the kernel stores its tid for it, comes before
	# the ptrace engine can bind its counters: never more, often fewer.
	[ "$(csv_exit_sum "$T/pt.csv" 13)" -le "$perf_k" ]
	# The parent's own are the same in both engines.
	[ "$(awk -F, -v p="$TPID" '$7 == "exit" && $2 == p { print $12, $13 }' "$T/bpf.csv")" = \
	    "$(awk -F, -v p="$TPID" '$7 == "exit" && $2 == p { print $12, $13 }' "$T/pt.csv")" ]
}
