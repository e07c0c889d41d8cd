#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# perf stat's habits: the default events, perf's options where the letter
# is free (-I, -x, -j, -G, --per-thread, -r; cpustat's -a, -A, -e), one
# line for a perf letter that means something else here, and the line
# that names each column. Exact counts come from syscalls:sys_enter_write,
# which ct_marker and ct_forkmany make an exact number of times.

load cputrack_helper

setup() {
	ct_setup
	PY=${PYTHON:-python3}
}

teardown() {
	ct_teardown
}

assert_usage_error() {
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$(cat "$T/err")" = "$1" ]
}

# The events perf stat counts by default that this machine has a PMU for.
hardware_defaults() {
	local e
	for e in cycles instructions branches branch-misses; do
		if "$CT" --list="$e" | cut -f1 | grep -qx "$e"; then
			printf '%s\n' "$e"
		fi
	done
	return 0
}

@test "no -c: perf stat's default events, named, with their metrics" {
	ct_run "$W/ct_marker" "$T/ran" 5
	[ "$status" -eq 0 ]
	[ -e "$T/ran" ]
	want="# pic0=task-clock pic1=context-switches pic2=cpu-migrations pic3=page-faults"
	hw=$(hardware_defaults)
	if [ -z "$hw" ]; then
		[ "${lines[0]}" = "$want (the default events; no PMU here counts cycles, instructions, branches, branch-misses)" ]
	else
		n=4
		for e in $hw; do want="$want pic$n=$e"; n=$((n + 1)); done
		[ "${lines[0]}" = "$want (the default events)" ]
	fi
	[[ ${lines[1]} == "   time lwp      event      pic0 "* ]]
	exit_row=$(grep ' exit ' "$T/out")
	[[ $exit_row == *"CPUs utilized"*"K/sec page-faults"* ]]
	# Each count is a number; task-clock and page-faults are never 0.
	read -r _ _ _ clock _ _ faults _ <<<"$exit_row"
	[ "$clock" -gt 0 ]
	[ "$faults" -gt 0 ]
}

@test "no -c as a user: what the kernel lets that user count, and why the rest is left out" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run cputrack as nobody"
	local ct paranoid
	ct=$(nobody_path "${CPUTRACK_BIN:-$CT}")
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	status=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    timeout 60 "$ct" "$(nobody_path "$W/ct_marker")" /dev/null \
	    >"$T/out" 2>"$T/err" </dev/null || status=$?
	[ "$status" -eq 0 ]
	[ ! -s "$T/err" ]
	if [ "$paranoid" -ge 2 ]; then
		[[ $(head -1 "$T/out") == "# pic0=task-clock pic1=page-faults (the default events; "*"context-switches, cpu-migrations: the kernel counts them in its own context, which kernel.perf_event_paranoid allows only up to 1 or with CAP_PERFMON)" ]]
	else
		[[ $(head -1 "$T/out") == "# pic0=task-clock pic1=context-switches pic2=cpu-migrations pic3=page-faults"* ]]
	fi
	grep -q ' exit .*CPUs utilized' "$T/out"
}

@test "-h ends with the default events here, and what they leave out and why" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: what root counts by default"
	run --separate-stderr timeout 30 "$CT" -h
	[ "$status" -eq 0 ]
	hw=$(hardware_defaults | paste -sd, -)
	want="task-clock,context-switches,cpu-migrations,page-faults${hw:+,$hw}"
	[ "${lines[-2]}" = "	default events (without -c): $want,sys" ] ||
	    [ "${lines[-1]}" = "	default events (without -c): $want,sys" ]
	if [ -z "$hw" ]; then
		[ "${lines[-1]}" = "	(no PMU here counts cycles, instructions, branches, branch-misses)" ]
	fi
	run --separate-stderr timeout 30 "$CPUSTAT" -h
	[ "$status" -eq 0 ]
	assert_line --regexp "^	default events \(without -c\): cpu-clock,context-switches,cpu-migrations,page-faults"
}

@test "no -c, CSV: the default events' columns and their metrics" {
	ct_run --format=csv "$W/ct_marker" "$T/ran"
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
head = list(rows[0].keys())
for e in ("task-clock", "context-switches", "cpu-migrations", "page-faults"):
    assert e in head, head
assert "metric.cpus_utilized" in head, head
ex = [r for r in rows if r["label"] == "exit"]
assert len(ex) == 1 and int(ex[0]["task-clock"]) > 0, ex
assert float(ex[0]["metric.cpus_utilized"]) > 0, ex
EOF
}

@test "cpustat without -c: the default events per CPU, with cpu-clock's CPUs utilized" {
	run --separate-stderr timeout 60 "$CPUSTAT" 0.2 1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ ${lines[0]} == "# pic0=cpu-clock pic1=context-switches pic2=cpu-migrations pic3=page-faults"* ]]
	total=$(grep ' total ' <<<"$output")
	[[ $total == *" CPUs utilized"* ]]
	# CPUs utilized is cpu-clock over the row's elapsed time, exactly.
	timeout 60 "$CPUSTAT" --format=csv 0.2 1 >"$T/cs.csv"
	"$PY" - "$T/cs.csv" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["label"] in ("tick", "total")]
assert rows, rows
for r in rows:
    want = int(r["cpu-clock"]) / int(r["elapsed_ns"])
    assert abs(float(r["metric.cpus_utilized"]) - want) <= 1e-12 * want, r
EOF
}

@test "a terminal is told which event each column counts; a pipe gets the original bytes" {
	script -qec "$CT -c $WRITE $W/ct_marker $T/ran 3" /dev/null >"$T/tty" </dev/null
	tr -d '\r' <"$T/tty" >"$T/tty.txt"
	[ "$(sed -n 1p "$T/tty.txt")" = "# pic0=$WRITE" ]
	[ "$(sed -n 2p "$T/tty.txt")" = "   time lwp      event      pic0 " ]
	ct_run -c "$WRITE" "$W/ct_marker" "$T/ran" 3
	[ "${lines[0]}" = "   time lwp      event      pic0 " ]
	# -n: no title, and no names either.
	script -qec "$CT -n -c $WRITE $W/ct_marker $T/ran 3" /dev/null >"$T/tty" </dev/null
	run ! grep -q '^# pic0' "$T/tty"
	grep -q ' exit ' "$T/tty"
}

@test "-I msec is the interval in milliseconds; with -T it is a usage error" {
	# Three ticks of 0.1 s end the run long before the command's 30 s
	# (as seconds they would outlast ct_run's bound, and fail).
	ct_run -I 100 -N 3 -c "$WRITE" "$(wl_own ct_marker)" "$T/ran" 0 30000
	[ "$status" -eq 0 ]
	[ "$(ct_count tick)" -eq 3 ]
	[ ! -e "$T/ran" ]
	pkill -f "$T/ct_marker" || true
	ct_run -T 1 -I 100 -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: -T and -I cannot be given together"
	ct_run -I 0 -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: invalid interval '0' for -I (milliseconds, 1 or more)"
}

@test "-x SEP: CSV with that separator, a field holding it quoted" {
	# Short arguments: an exec row's are cut at 80 bytes, as Solaris's.
	ln -s "$W/ct_marker" "$T/m"
	cd "$T"
	ct_run -e -x ';' -c "$WRITE" sh -c "exec ./m 'a;b' 4"
	[ "$status" -eq 0 ]
	[ -e "$T/a;b" ]
	"$PY" - "$T/out" "./m a;b 4" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1]), delimiter=";"))
head = rows[0]
assert head[:3] == ["time", "pid", "lwp"], head
assert all(len(r) == len(head) for r in rows), [r for r in rows if len(r) != len(head)]
rows = [dict(zip(head, r)) for r in rows[1:]]
ex = [r for r in rows if r["label"] == "exec"]
assert any(r["args"] == sys.argv[2] for r in ex), ex
exits = [r for r in rows if r["label"] == "exit"]
assert [r["syscalls:sys_enter_write"] for r in exits] == ["4"], exits
EOF
	ct_run -x ab -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: invalid separator 'ab' (one character, not a quote or a line end)"
}

@test "-j and --json are --format=json; a second format is a usage error" {
	ct_run -j -c "$WRITE" "$W/ct_marker" "$T/ran" 2
	[ "$status" -eq 0 ]
	cp "$T/out" "$T/j"
	ct_run --json -c "$WRITE" "$W/ct_marker" "$T/ran" 2
	[ "$status" -eq 0 ]
	for f in "$T/j" "$T/out"; do
		"$PY" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["schema"] == "cpctools", rows[0]
ex = [r for r in rows[1:] if r["label"] == "exit"]
assert ex[0]["counters"]["syscalls:sys_enter_write"] == 2, ex
' "$f"
	done
	ct_run -x , --format=json -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: -x and --format cannot be given together"
	ct_run --format=csv -j -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: --format and -j cannot be given together"
}

@test "-G is --cgroup, --per-thread changes nothing" {
	ct_run -G /no/such/cgroup -c "$WRITE"
	g_status=$status g_err=$(cat "$T/err")
	ct_run --cgroup=/no/such/cgroup -c "$WRITE"
	[ "$g_status" -eq "$status" ]
	[ "$g_status" -eq 2 ]
	[ "$g_err" = "$(cat "$T/err")" ]
	[ -n "$g_err" ]
	ct_run --per-thread -c "$WRITE" "$W/ct_marker" "$T/ran" 3
	[ "$status" -eq 0 ]
	[ "$(ct_rows exit)" = "1 3" ]
}

@test "perf's -e, -t and -a mean something else here: one line that says what to type" {
	ct_run -e cycles "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: -e follows exec here; to count cycles, use -c cycles (perf's -e)"
	# perf's list of events, answered the same way.
	ct_run -e task-clock,page-faults "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: -e follows exec here; to count task-clock,page-faults, use -c task-clock,page-faults (perf's -e)"
	ct_run -c "$WRITE" -t 8568
	assert_usage_error "cputrack: -t adds the tsc column here; to count thread 8568, use --tid=8568 (perf's -t)"
	ct_run -a -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: -a: cputrack counts processes; count every CPU with cpustat (perf's -a)"
	[ ! -e "$T/ran" ]
	# A program of that name is run, as it always was.
	mkdir "$T/bin"
	ln -s "$W/ct_marker" "$T/bin/cycles"
	PATH=$T/bin:$PATH ct_run -e -c "$WRITE" cycles "$T/ran" 2
	[ "$status" -eq 0 ]
	[ "$(ct_rows exit)" = "1 2" ]
}

@test "cpustat: -a, -A and -e are perf's; -I msec with a count; -G and -r answered" {
	run --separate-stderr timeout 60 "$CPUSTAT" -a -A -e "$WRITE" -I 100 2
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = "   time cpu event      pic0 " ]
	# Two intervals of 0.1 s (of 100 s they would outlast the bound of
	# 60): two ticks of each CPU, or a gap row that holds both ("# 2
	# intervals in 0.2 s") where a busy machine missed a sample time,
	# then the total.
	[ "$(awk '$3 == "tick" { n[$2]++ } $3 == "gap" { n[$2] += $(NF - 4) }
	    END { for (c in n) if (n[c] != 2) print c }' <<<"$output" |
	    wc -l)" -eq 0 ]
	[ "$(awk '$3 == "tick" || $3 == "gap"' <<<"$output" | wc -l)" -gt 0 ]
	[ "$(grep -c ' total ' <<<"$output")" -eq 1 ]
	run --separate-stderr "$CPUSTAT" -I 100 1 2
	[ "$status" -eq 2 ]
	[ "$stderr" = 'cpustat: too many operands: "2" (with -I, a count at most)' ]
	run --separate-stderr "$CPUSTAT" -G /sys/fs/cgroup/x
	[ "$status" -eq 2 ]
	[ "$stderr" = "cpustat: -G: cpustat counts whole CPUs; count a cgroup with cputrack --cgroup=/sys/fs/cgroup/x" ]
	run --separate-stderr "$CPUSTAT" -r 5
	[ "$status" -eq 2 ]
	[ "$stderr" = "cpustat: -r: cpustat starts no command to repeat; repeat one with cputrack -r 5 command" ]
}

@test "-r N: each run's rows, then the tree's total over the runs, exact" {
	ct_run -r 3 -f -c "$WRITE" "$W/ct_forkmany" 2 5
	[ "$status" -eq 0 ]
	[ "$(grep -c '^   time' "$T/out")" -eq 3 ]
	[ "$(ct_count -f exit)" -eq 9 ]
	# Two children of 5 writes each, per run.
	[ "$(awk '$1 == "mean" { print $2 }' "$T/out")" = 10 ]
	grep -q '^ *mean  *10  # 3 runs: the tree'"'"'s total per run$' "$T/out"
	grep -q '^ *+-%  *0.00% $' "$T/out"
	grep -q '^ *min  *10 $' "$T/out"
	grep -q '^ *max  *10 $' "$T/out"
}

@test "-r N -n: the summary alone; CSV and JSON give the same numbers" {
	ct_run -r 2 -n -c "$WRITE" "$W/ct_marker" "$T/ran" 7
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	# The summary names its columns, to a file as to a terminal.
	[ "${lines[0]}" = "# pic0=$WRITE" ]
	[[ ${lines[1]} == *" mean         7  # 2 runs: the tree's total per run" ]]
	ct_run -r 2 -n -c "$WRITE,task-clock" "$W/ct_marker" "$T/ran" 7
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "# pic0=$WRITE pic1=task-clock" ]
	[ "$(awk '$1 == "mean" { print $2 }' "$T/out")" = 7 ]
	ct_run -r 2 --format=csv -c "$WRITE" "$W/ct_marker" "$T/ran" 7
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert sum(r["label"] == "schema" or r["key"] == "schema" for r in rows) == 1, rows
s = {r["label"]: r for r in rows if r["key"] == "runs"}
assert set(s) == {"mean", "rse_pct", "min", "max"}, s
assert all(r["value"] == "2" for r in s.values()), s
ev = "syscalls:sys_enter_write"
assert float(s["mean"][ev]) == 7 and float(s["rse_pct"][ev]) == 0, s
assert s["min"][ev] == "7" and s["max"][ev] == "7", s
EOF
	ct_run -r 2 -j -c "$WRITE" "$W/ct_marker" "$T/ran" 7
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert sum("schema" in r for r in rows) == 1, rows
runs = [r for r in rows if r.get("label") == "runs"]
assert len(runs) == 1 and runs[0]["runs"] == 2, runs
c = runs[0]["counters"]["syscalls:sys_enter_write"]
assert c == {"mean": 7.0, "rse_pct": 0.0, "min": 7, "max": 7}, c
EOF
}

@test "-r: a single run has no +-; --pass-status gives the last run's status" {
	ct_run -r 1 -n -c "$WRITE" "$W/ct_marker" "$T/ran" 1
	[ "$status" -eq 0 ]
	grep -q '^ *+-%  *- $' "$T/out"
	ct_run -r 2 --pass-status -c "$WRITE" sh -c 'exit 3'
	[ "$status" -eq 3 ]
	[ "$(ct_count exit)" -eq 2 ]
}

@test "-r: a failed run ends the repeats; -r takes a started command only" {
	ct_run -r 3 -c "$WRITE" "$T/no-such-program"
	[ "$status" -eq 1 ]
	[ "$(grep -c 'failed to start program' "$T/err")" -eq 1 ]
	ct_run -r 2 -c "$WRITE" -p $$
	assert_usage_error "cputrack: -r repeats a command that cputrack starts: give one, not -p, --tid or --cgroup"
	ct_run -r 2 --format=openmetrics -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: -r writes rows and their summary: --format=table, csv or json, without --listen"
	ct_run -r 0 -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: invalid repeat count '0'"
	[ ! -e "$T/ran" ]
}

@test "-r -n: a total that leaves LWPs out is said, and the exit is 1, with no rows written" {
	[ "$ENGINE" = ptrace ] ||
	    skip "the BPF engine refuses this descriptor limit before it starts"
	status=0
	(
		ulimit -S -n 30 && ulimit -H -n 30 &&
		exec timeout -k 5 120 "$CT" -r 1 -n -T 0 -c "$WRITE" \
		    "$W/tt_manythreads" 40 10
	) >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 1 ]
	grep -q '^cputrack: pid [0-9]* lwp 1 exit of set 0 is partial: [0-9]* LWPs not counted' "$T/err"
	[ "$(wc -l <"$T/out")" -eq 5 ]
	[ "$(awk '{ print $1 }' "$T/out" | tr '\n' ' ')" = "# mean +-% min max " ]
}
