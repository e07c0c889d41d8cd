#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cpustat against the real kernel: per-CPU rows, totals, set rotation,
# -p, -T, -t, -n, -s, --cpus, csv/json, signals, exclusivity, bad input
# and privileges. Expected values come from the kernel's own behaviour
# (time passes at one second per second on every CPU; a program makes a
# known number of system calls), never from a previous run of cpustat.

bats_require_minimum_version 1.5.0
load helper

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# Python helpers shared by the checks below.
PYLIB='
import csv, json, os, re, sys

def die(msg):
    print(msg)
    sys.exit(1)

# The CPUs cpustat measures: online ones in our affinity mask.
CPUS = sorted(os.sched_getaffinity(0))

class Row:
    pass

GAP_NOTE = re.compile(r"(?:^|; )([0-9]+) intervals in ([0-9]+\.[0-9]{3}) s$")

def parse_table(path, tick=False):
    """Rows of a table, each checked against the original printf formats:
    "%7.3f %3d %5s ", ["%9lld "], "%9lld " per value, then " # spec".
    Each gets the intervals it stands for: 1 for a tick. A gap row (the
    sample times of some intervals were missed: cpustat was stopped, or
    the machine too busy to run it in time) is a tick labelled gap whose
    comment, after its spec and "; " with several sets, is "N intervals
    in S s": it stands for N intervals, and holds S seconds."""
    rows, others = [], []
    for line in open(path).read().split("\n"):
        if line == "":
            continue
        left, sep, spec = line.partition(" # ")
        f = left.split()
        if len(f) < 4 or f[2] not in ("tick", "gap", "total"):
            others.append(line)
            continue
        r = Row()
        r.line, r.time, r.cpu, r.label = line, float(f[0]), int(f[1]), f[2]
        nums = [int(x) for x in f[3:]]
        r.tick = nums.pop(0) if tick else None
        r.values, r.spec = nums, (spec if sep else None)
        r.intervals, r.secs = 1, None
        if r.label == "gap":
            m = GAP_NOTE.search(spec)
            if m is None:
                die("a gap row says how many intervals, in how long: %r" % line)
            r.intervals, r.secs = int(m.group(1)), float(m.group(2))
            r.spec = spec[:m.start()] or None
        want = "%7.3f %3d %5s " % (r.time, r.cpu, r.label)
        if tick:
            want += "%9d " % r.tick
        want += "".join("%9d " % v for v in r.values)
        if sep:
            want += (" # " if r.label != "total" else "# ") + spec
        if line != want:
            die("row not in the original format:\n%r\nwanted\n%r" % (line, want))
        rows.append(r)
    return rows, others

def ticks_by_cpu(rows):
    """The rows of each CPU, in time order: its ticks, and its gap rows."""
    by = {}
    for r in rows:
        if r.label != "total":
            by.setdefault(r.cpu, []).append(r)
    for l in by.values():
        l.sort(key=lambda r: r.time)
    return by

def check_totals(rows, ncpu):
    """Each set total equals the sum of its rows; its cpu field is ncpu."""
    sums, totals = {}, [r for r in rows if r.label == "total"]
    for r in rows:
        if r.label != "total":
            s = sums.setdefault(r.spec, [0] * len(r.values))
            for i, v in enumerate(r.values):
                s[i] += v
    if not totals:
        die("no total row")
    for t in totals:
        if t.cpu != ncpu:
            die("total cpu field %d, want %d CPUs: %r" % (t.cpu, ncpu, t.line))
        if sums.get(t.spec, [0] * len(t.values)) != t.values:
            die("total %r is not the sum of its rows %r" % (t.line, sums.get(t.spec)))
    if sorted(sums) != sorted(t.spec for t in totals):
        die("one total per set wanted: rows %r totals %r" % (sorted(sums), [t.spec for t in totals]))

def check_intervals(rows, interval, count):
    """The rows of each CPU stand for count intervals in all. A tick holds its
    own interval only: less than two. A gap row of N intervals holds more
    than N - 1 and less than N + 1 (it ends a little after a sample time,
    and began a little after another), but for a first row: its CPU may
    have begun counting late. Task-clock, the first value, counts the
    time of its CPU: one ns per ns."""
    by = ticks_by_cpu(rows)
    if sorted(by) != CPUS:
        die("rows for CPUs %r, want %r" % (sorted(by), CPUS))
    for cpu, l in by.items():
        if sum(r.intervals for r in l) != count:
            die("cpu%d: rows stand for %r intervals, want %d in all" % (cpu, [r.intervals for r in l], count))
        for r in l:
            held = r.values[0] / 1e9
            if r.label == "tick" and held >= 2 * interval:
                die("a tick holds more than its interval: %r" % r.line)
            low = (r.intervals - 1) * interval if r is not l[0] else 0
            if r.label == "gap" and not low < held < (r.intervals + 1) * interval:
                die("a gap row of %d intervals holds %.3f s: %r" % (r.intervals, held, r.line))
            if r.label == "gap" and (r.intervals < 2 or abs(r.secs - held) > 0.002):
                die("the gap row does not say what it holds: %r" % r.line)
    return by
'

pycheck() {
	local code=$1
	shift
	"$PY" -c "$PYLIB
$code" "$@"
}

ncpus() { "$PY" -c 'import os; print(len(os.sched_getaffinity(0)))'; }
last_cpu() { "$PY" -c 'import os; print(max(os.sched_getaffinity(0)))'; }

# wait_for FILE REGEX [SECONDS]: until a line of FILE matches.
wait_for() {
	local i
	for ((i = 0; i < ${3:-10} * 20; i++)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "timed out waiting for /$2/ in $1:" >&2
	cat "$1" >&2
	return 1
}

TICK_ROW='^ *[0-9]+\.[0-9]{3} +[0-9]+  tick '

# A shell without job control (this one) starts a background job with
# SIGINT ignored, and cpustat keeps an ignored SIGINT ignored. A job that
# a test ends with SIGINT is started with it at its default, as from an
# interactive shell: env --default-signal=INT.

# True when no process holds a CPU binding (libcpc's any.lock is free).
# The file is never created here: libcpc makes it writable by all.
cpus_free() {
	[ ! -e /run/cpctools/any.lock ] || flock -n -x /run/cpctools/any.lock true
}

setup() {
	[ -x "${CPUSTAT:-}" ] || fail "CPUSTAT must name the cpustat binary (ctest sets it)"
	T=$BATS_TEST_TMPDIR
	# Exclusivity is system-wide: let another run's cpustat finish first.
	local i
	for ((i = 0; i < 300; i++)); do
		cpus_free && return 0
		sleep 0.1
	done
}

# Wait for the cpustat started in the background (BG_PIDS), and forget
# it, so that teardown never signals a pid that is no longer ours.
bg_wait() {
	local rc=0
	wait "$BG_PIDS" || rc=$?
	BG_PIDS=
	return "$rc"
}

teardown() {
	# Never leave a cpustat of ours holding the CPUs (a failed test).
	local p
	for p in ${BG_PIDS:-}; do
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(readlink -f "$CPUSTAT")" ] &&
			kill -KILL "$p" 2>/dev/null
	done
	return 0
}

usage_text() {
	printf '%s\n' "Usage:" \
	    "	cpustat -c spec [-c spec]... [-p period] [-T u|d]" \
	    "		[-sntD] [--format=table|csv|json|openmetrics|prometheus]" \
	    "		[--output=file | --output-fd=fd] [--listen=addr:port]" \
	    "		[--cpus=list] [interval [count]]" \
	    "	cpustat --list[=glob] | --help | --version" \
	    "" \
	    "	-c spec	  specify processor events to be monitored" \
	    "	-n	  suppress titles" \
	    "	-p period cycle through event list periodically" \
	    "	-s	  run user soaker thread for system-only events" \
	    "	-t	  include tsc register" \
	    "	-T d|u	  Display a timestamp in date (d) or unix time_t (u)" \
	    "	-D	  enable debug mode" \
	    "	-h	  print extended usage information" \
	    "	--format=table|csv|json|openmetrics|prometheus" \
	    "		  output format, default table" \
	    "	--output=file" \
	    "		  write cpu statistics to this file" \
	    "	--output-fd=fd" \
	    "		  write cpu statistics to this open descriptor" \
	    "	--listen=addr:port" \
	    "		  serve the counts as metrics over HTTP at /metrics" \
	    "	--cpus=list" \
	    "		  measure only these CPUs (e.g. 0-3,6)" \
	    "	--list[=glob]" \
	    "		  list every countable event (matching glob), and exit" \
	    "	--help	  print this usage and exit" \
	    "	--version print the version and exit" \
	    "" \
	    "	Use cputrack(1) to monitor per-process statistics."
}

# ---------------------------------------------------------------------
# Rows, title, per-CPU counts

@test "title line and row format are the original's, one tick row per CPU per interval" {
	run --separate-stderr "$CPUSTAT" -c context-switches,task-clock 0.2 3
	assert_success
	[ -z "$stderr" ]
	assert_equal "${lines[0]}" "   time cpu event      pic0      pic1 "
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, others = parse_table(sys.argv[1])
if others != ["   time cpu event      pic0      pic1 "]:
    die("unexpected lines %r" % others)
by = ticks_by_cpu(rows)
if sorted(by) != CPUS:
    die("rows for CPUs %r, measured CPUs are %r" % (sorted(by), CPUS))
for cpu, l in by.items():
    if len(l) != 3:
        die("cpu%d: %d rows, want 3" % (cpu, len(l)))
    for k, r in enumerate(l, 1):
        # An absolute schedule: the k-th row comes at k intervals.
        if abs(r.time - 0.2 * k) > 0.1:
            die("cpu%d row %d at %.3f s, want about %.1f" % (cpu, k, r.time, 0.2 * k))
        if len(r.values) != 2:
            die("want 2 values: %r" % r.line)
if [r.label for r in rows][-1] != "total":
    die("the total row must come last")
' "$T/out"
}

@test "task-clock summed over the CPUs is about interval x CPUs, every interval" {
	n=$(ncpus)
	run --separate-stderr "$CPUSTAT" -c task-clock 0.25 4
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
n = int(sys.argv[2])
rows, _ = parse_table(sys.argv[1])
by = ticks_by_cpu(rows)
for k in range(4):
    total = sum(l[k].values[0] for l in by.values())
    want = 0.25e9 * n
    # Each CPU counts its own clock: 1 ns per ns, idle or not. The 20%
    # leaves room for a sampling thread that wakes late on a busy machine
    # or a VM whose host stalls it for a moment.
    if abs(total - want) > 0.20 * want:
        die("interval %d: task-clock %d ns over %d CPUs, want about %d" % (k + 1, total, n, want))
' "$T/out" "$n"
}

@test "context switches are counted on the CPU where they happen" {
	cpu=$(last_cpu)
	"$CPUSTAT" -c context-switches 0.3 3 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/out" 'time cpu'
	sleep 0.05
	# 1000 sleeps on one CPU: each one switches the program out.
	taskset -c "$cpu" "$PY" -c '
import time
for i in range(1000):
    time.sleep(0.0001)
'
	bg_wait
	[ ! -s "$T/err" ]
	pycheck '
cpu = int(sys.argv[2])
rows, _ = parse_table(sys.argv[1])
by = ticks_by_cpu(rows)
n = sum(r.values[0] for r in by[cpu])
if n < 1000:
    die("cpu%d counted %d context switches, want at least 1000" % (cpu, n))
' "$T/out" "$cpu"
}

@test "a tracepoint counts exactly what one CPU did: 20000 getppid calls" {
	ensure_tracefs
	[ -d /sys/kernel/tracing/events/syscalls/sys_enter_getppid ] ||
		skip "no syscalls:sys_enter_getppid tracepoint in this kernel"
	cpu=$(last_cpu)
	# Intervals enough for Python to start and finish on a busy machine.
	"$CPUSTAT" -c syscalls:sys_enter_getppid 0.4 6 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/out" 'time cpu'
	sleep 0.05
	taskset -c "$cpu" "$PY" -c '
import os
for i in range(20000):
    os.getppid()
'
	bg_wait
	[ ! -s "$T/err" ]
	pycheck '
cpu = int(sys.argv[2])
rows, _ = parse_table(sys.argv[1])
n = sum(r.values[0] for r in ticks_by_cpu(rows)[cpu])
# Other programs (shell start-ups) call getppid now and then.
if not 20000 <= n <= 20500:
    die("cpu%d counted %d getppid calls, want 20000 (+ a few others)" % (cpu, n))
' "$T/out" "$cpu"
}

@test "the total row of each set is the sum of its rows, and its cpu field the number of CPUs" {
	run --separate-stderr "$CPUSTAT" -c context-switches,task-clock 0.1 3
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck 'rows, _ = parse_table(sys.argv[1]); check_totals(rows, int(sys.argv[2]))' \
	    "$T/out" "$(ncpus)"
}

@test "several -c sets rotate on every sample of every CPU, rows carry # spec" {
	run --separate-stderr "$CPUSTAT" -c context-switches -c task-clock,cpu-clock \
	    -c sched:sched_switch 0.1 6
	assert_success
	[ -z "$stderr" ]
	# The title shows set 0 only (a quirk kept from the original).
	assert_equal "${lines[0]}" "   time cpu event      pic0 "
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1])
specs = ["context-switches", "task-clock,cpu-clock", "sched:sched_switch"]
by = ticks_by_cpu(rows)
if sorted(by) != CPUS:
    die("rows for CPUs %r, want %r" % (sorted(by), CPUS))
for cpu, l in by.items():
    got = [r.spec for r in l]
    if got != specs * 2:
        die("cpu%d: sets %r, want %r" % (cpu, got, specs * 2))
    for r in l:
        if len(r.values) != (2 if r.spec == specs[1] else 1):
            die("wrong number of values: %r" % r.line)
        # A slice never counts more than its 0.1 s; a start delayed by a
        # stall of the VM host may make it count less.
        if r.spec == specs[1] and not 0.5e8 < r.values[0] < 1.2e8:
            die("task-clock of a 0.1 s slice: %r" % r.line)
check_totals(rows, len(CPUS))
totals = [r.spec for r in rows if r.label == "total"]
if totals != specs:
    die("totals in set order wanted: %r" % totals)
' "$T/out"
}

# ---------------------------------------------------------------------
# -p, -T, -t, -n, -s

@test "-p: with 2 sets, interval 0.2 and -p 1, rows come in cycles with a rest between" {
	start=$(date +%s.%N)
	run --separate-stderr "$CPUSTAT" -p 1 -c context-switches -c task-clock 0.2 2
	end=$(date +%s.%N)
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
start, end = float(sys.argv[2]), float(sys.argv[3])
rows, _ = parse_table(sys.argv[1])
# The count counts cycles: 2 cycles of 2 sets. Each cycle is one period
# (1 s): 2 samples of 0.2 s, then 0.6 s of rest.
for cpu, l in ticks_by_cpu(rows).items():
    times = [r.time for r in l]
    want = [0.2, 0.4, 1.2, 1.4]
    if len(times) != 4 or any(abs(t - w) > 0.08 for t, w in zip(times, want)):
        die("cpu%d rows at %r, want about %r" % (cpu, times, want))
    if [r.spec for r in l] != ["context-switches", "task-clock"] * 2:
        die("cpu%d sets %r" % (cpu, [r.spec for r in l]))
    # A slice counts its own 0.2 s, not the rest before it (the lower
    # bound leaves room for a start delayed by the VM host).
    for r in l:
        if r.spec == "task-clock" and not 1e8 < r.values[0] < 2.3e8:
            die("task-clock slice %r" % r.line)
check_totals(rows, len(CPUS))
# No rest after the last cycle: the run ends with its last sample.
if not 1.35 < end - start < 2.2:
    die("run took %.2f s, want about 1.4" % (end - start))
' "$T/out" "$start" "$end"
}

@test "-p also works with a single set (the original ignored it), and the rest is not counted" {
	run --separate-stderr "$CPUSTAT" -t -p 0.5 -c task-clock 0.2 3
	assert_success
	assert_equal "${lines[0]}" "   time cpu event       tsc      pic0 "
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1], tick=True)
for cpu, l in ticks_by_cpu(rows).items():
    times = [r.time for r in l]
    if len(times) != 3 or any(abs(t - w) > 0.08 for t, w in zip(times, [0.2, 0.7, 1.2])):
        die("cpu%d rows at %r, want about 0.2 0.7 1.2" % (cpu, times))
    for r in l:
        # 0.2 s of counting per row, never the 0.3 s rest as well. The
        # lower bound leaves room for a start delayed by the VM host.
        if not 0.5 * 2e8 < r.values[0] < 1.15 * 2e8:
            die("row does not cover its own 0.2 s only: %r" % r.line)
    # The tsc column covers the same time as the counter, in every row.
    rate = l[0].tick / l[0].values[0]
    for r in l:
        if r.tick <= 0 or abs(r.tick / r.values[0] - rate) > 0.1 * rate:
            die("tsc and counter disagree: %r" % r.line)
check_totals(rows, len(CPUS))
' "$T/out"
}

@test "-T u prints a unix time line before every row, not before the title or totals" {
	before=$(date +%s)
	run --separate-stderr "$CPUSTAT" -T u -c task-clock 0.2 2
	after=$(date +%s)
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
lines = open(sys.argv[1]).read().rstrip("\n").split("\n")
before, after = int(sys.argv[2]), int(sys.argv[3])
if lines[0] != "   time cpu event      pic0 ":
    die("title %r" % lines[0])
body, i, nrows = lines[1:], 0, 0
while i < len(body) and "tick" in body[i + 1 if i + 1 < len(body) else i]:
    if not re.fullmatch(r"[0-9]+", body[i]) or not before <= int(body[i]) <= after:
        die("want a unix time before %r, got %r" % (body[i + 1], body[i]))
    nrows += 1
    i += 2
if nrows != 2 * len(CPUS):
    die("%d timestamped rows, want %d" % (nrows, 2 * len(CPUS)))
if len(body[i:]) != 1 or " total " not in body[i]:
    die("after the rows, want only the total: %r" % body[i:])
' "$T/out" "$before" "$after"
}

@test "-T d prints a date(1) line before every row" {
	before=$(date +%s)
	LC_ALL=C run --separate-stderr "$CPUSTAT" -T d -c task-clock 0.2 1
	after=$(date +%s)
	assert_success
	n=$(ncpus)
	[ "${#lines[@]}" -eq $((1 + 2 * n + 1)) ]
	for ((i = 1; i < 1 + 2 * n; i += 2)); do
		# C locale date(1) format: "Sun Nov 22 07:13:08 UTC 2026".
		[[ ${lines[i]} =~ ^[A-Z][a-z]{2}\ [A-Z][a-z]{2}\ [\ 0-9][0-9]\ [0-9]{2}:[0-9]{2}:[0-9]{2}\ [A-Z+0-9-]+\ [0-9]{4}$ ]]
		t=$(date -d "${lines[i]}" +%s)
		((before <= t && t <= after))
		[[ ${lines[i + 1]} =~ $TICK_ROW ]]
	done
	[[ ${lines[-1]} == *" total "* ]]
}

@test "-t adds the tsc column after the event column" {
	run --separate-stderr "$CPUSTAT" -t -c context-switches 0.2 2
	assert_success
	assert_equal "${lines[0]}" "   time cpu event       tsc      pic0 "
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1], tick=True)
for r in rows:
    if r.tick <= 0:
        die("no tsc: %r" % r.line)
tot = [r for r in rows if r.label == "total"][0]
if tot.tick != sum(r.tick for r in rows if r.label != "total"):
    die("total tsc is not the sum of the rows")
' "$T/out"
}

@test "-n drops the title; the total is still printed" {
	run --separate-stderr "$CPUSTAT" -n -c task-clock 0.1 2
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, others = parse_table(sys.argv[1])
if others:
    die("unexpected lines %r" % others)
if len([r for r in rows if r.label == "total"]) != 1:
    die("want one total")
' "$T/out"
}

# The soaker threads: SCHED_IDLE, each pinned to its CPU, spinning while
# a system-only set (every counter nouser) is bound and asleep otherwise.
# soak_check PID SECONDS spin|sleep [FILE PATTERN]: watch the soakers of
# PID for SECONDS and check that there is one per CPU, pinned there, and
# that each one took the CPU time nobody else wanted (spin), or none
# (sleep). With FILE and PATTERN, the window is one slice of rotating sets:
# it starts 80 ms after PATTERN first shows in FILE (the rows that end the
# slice before), and it must end before the next rows; a machine too slow
# for that exits 75.
soak_check() {
	"$PY" - "$@" <<'EOF'
import glob, os, re, sys, time

pid, secs, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3]
slice_file, slice_rows = (sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else (None, None)
hz = os.sysconf("SC_CLK_TCK")

def output_size():
    return os.path.getsize(slice_file)

def wait_for_slice():
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with open(slice_file) as f:
            if any(re.search(slice_rows, l) for l in f):
                time.sleep(0.08)
                return output_size()
        time.sleep(0.01)
    sys.exit("timed out waiting for /%s/ in %s" % (slice_rows, slice_file))

def soakers():
    out = {}
    for t in glob.glob("/proc/%s/task/*" % pid):
        try:
            stat = open(t + "/stat").read()
            # Field 41 of stat is the policy; SCHED_IDLE is 5.
            if stat.rsplit(") ", 1)[1].split()[38] != "5":
                continue
            cpus = [l.split()[1] for l in open(t + "/status")
                    if l.startswith("Cpus_allowed_list")][0]
            out[t] = (cpus, int(open(t + "/schedstat").read().split()[0]) / 1e6)
        except (OSError, IndexError):
            pass
    return out

def cpustat():
    # Per CPU: ms idle, ms stolen by the hypervisor, ms busy.
    out = {}
    for l in open("/proc/stat"):
        f = l.split()
        if f[0].startswith("cpu") and f[0] != "cpu":
            v = [int(x) * 1000 / hz for x in f[1:9]]
            out[f[0][3:]] = (v[3] + v[4], v[7], v[0] + v[1] + v[2] + v[5] + v[6])
    return out

size = wait_for_slice() if slice_file else None
a, sa, t0 = soakers(), cpustat(), time.monotonic()
time.sleep(secs)
b, sb, t1 = soakers(), cpustat(), time.monotonic()
if slice_file and output_size() != size:
    print("the window ran into the next slice: this machine was too slow")
    sys.exit(75)
window = (t1 - t0) * 1000
want = sorted(int(c) for c in os.sched_getaffinity(0))
got = sorted(int(a[t][0]) for t in a if t in b and a[t][0].isdigit())
if got != want or len(a) != len(want):
    sys.exit("want one soaker pinned to each of CPUs %r, got %r" % (want, [v[0] for v in a.values()]))
free_somewhere = False
for t in sorted(a):
    cpu, ran = a[t][0], b[t][1] - a[t][1]
    idle, steal, busy = (y - x for x, y in zip(sa[cpu], sb[cpu]))
    others = max(busy - ran, 0)
    free = max(window - others - steal, 0)
    print("cpu%s: soaker ran %.0f ms of %.0f; idle %.0f, others %.0f, stolen %.0f"
          % (cpu, ran, window, idle, others, steal))
    if mode == "sleep":
        if ran > 0.02 * window:
            sys.exit("the soaker of cpu%s ran while the set counts user mode" % cpu)
        continue
    if idle > 0.1 * window + 20:
        sys.exit("cpu%s idled %.0f ms with its soaker spinning" % (cpu, idle))
    if free > 0.2 * window:
        free_somewhere = True
        # Its CPU did not idle: the soaker took what was free (tick
        # accounting is coarse, hence the margins).
        if ran < 0.5 * free - 20:
            sys.exit("the soaker of cpu%s took %.0f of %.0f free ms" % (cpu, ran, free))
if mode == "spin" and not free_somewhere:
    print("every CPU was busy with other work: nothing left for a soaker")
    sys.exit(77)
EOF
}

# soak_ok STATUS: 77 means the machine left no room to see the soakers,
# 75 that it was too slow to look inside one slice.
soak_ok() {
	[ "$1" -eq 77 ] && skip "the CPUs were busy with other work; a SCHED_IDLE soaker gets no time then"
	[ "$1" -eq 75 ] && skip "the machine was too slow to watch the soakers within one 0.5 s slice"
	[ "$1" -eq 0 ]
}

@test "-s: soaker threads spin on every CPU while a system-only set is bound" {
	"$CPUSTAT" -s -c context-switches,nouser,sys 0.5 3 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/out" "$TICK_ROW"
	rc=0
	soak_check "$BG_PIDS" 0.3 spin || rc=$?
	bg_wait
	[ ! -s "$T/err" ]
	soak_ok "$rc"
}

@test "-s: soakers stay asleep while the bound set counts user mode" {
	"$CPUSTAT" -s -c context-switches 0.5 3 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/out" "$TICK_ROW"
	soak_check "$BG_PIDS" 0.3 sleep
	bg_wait
	[ ! -s "$T/err" ]
}

@test "-s with sets rotating: soakers spin only in the system-only slices" {
	# Slices of 0.5 s: user set, system-only set, user set, system-only.
	# Each check looks at 0.25 s in the middle of a slice.
	"$CPUSTAT" -s -c context-switches -c context-switches,nouser,sys 0.5 4 \
	    >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	# The first rows end the user slice: the system-only one begins.
	rc=0
	soak_check "$BG_PIDS" 0.25 spin "$T/out" "$TICK_ROW" || rc=$?
	# Its rows end it: a user slice begins.
	rc2=0
	soak_check "$BG_PIDS" 0.25 sleep "$T/out" 'nouser,sys$' || rc2=$?
	bg_wait
	[ ! -s "$T/err" ]
	# A failure of either check counts before a skip of the other.
	[[ "$rc $rc2" =~ ^(0|75|77)\ (0|75|77)$ ]]
	soak_ok "$rc"
	soak_ok "$rc2"
}

# ---------------------------------------------------------------------
# CPUs

@test "--cpus=0 measures CPU 0 only; the total's cpu field is 1" {
	"$PY" -c 'import os, sys; sys.exit(0 in os.sched_getaffinity(0) and 1)' &&
		skip "CPU 0 is not in our affinity mask"
	run --separate-stderr "$CPUSTAT" --cpus=0 -c task-clock 0.1 2
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1])
if sorted(ticks_by_cpu(rows)) != [0]:
    die("want rows for cpu0 only")
check_totals(rows, 1)
' "$T/out"
}

@test "the affinity mask (taskset) limits the CPUs measured, like a processor set" {
	cpu=$(last_cpu)
	run --separate-stderr taskset -c "$cpu" "$CPUSTAT" -c task-clock 0.1 2
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1])
if sorted(ticks_by_cpu(rows)) != [int(sys.argv[2])]:
    die("want rows for cpu%s only" % sys.argv[2])
check_totals(rows, 1)
' "$T/out" "$cpu"
	# --cpus outside the mask leaves nothing to measure.
	other=$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))')
	[ "$other" != "$cpu" ] || skip "one CPU only"
	run --separate-stderr taskset -c "$cpu" "$CPUSTAT" --cpus="$other" -c task-clock 0.1 1
	assert_failure 1
	[[ $stderr == "cpustat: no CPU to measure: "* ]]
}

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

# ---------------------------------------------------------------------
# Machine-readable output

@test "--format=csv: the header first, one column per event, the run's facts, numbers as numbers" {
	run --separate-stderr "$CPUSTAT" --format=csv -c context-switches \
	    -c task-clock,context-switches 0.1 4
	assert_success
	assert_equal "${lines[0]}" "time,pid,lwp,tid,cpu,ncpus,label,set,enabled_ns,running_ns,tsc,context-switches,task-clock,child,args,not_counted,partial,key,value"
	printf '%s\n' "$output" >"$T/out"
	pycheck '
every = list(csv.DictReader(open(sys.argv[1])))
meta = {r["key"]: r["value"] for r in every if r["label"] == "meta"}
want = {"schema": "cpctools", "version": "2", "tool": "cpustat",
    "set.0": "context-switches", "set.1": "task-clock,context-switches",
    "unit.context-switches": "count", "unit.task-clock": "ns"}
if any(meta.get(k) != v for k, v in want.items()):
    die("meta rows %r" % meta)
rows = [r for r in every if r["label"] != "meta"]
ticks = [r for r in rows if r["label"] == "tick"]
totals = [r for r in rows if r["label"] == "total"]
if len(ticks) != 4 * len(CPUS) or len(totals) != 2:
    die("%d tick rows, %d totals" % (len(ticks), len(totals)))
last = 0.0
for r in rows:
    if float(r["time"]) < last:
        die("rows go back in time: %r" % r)
    last = float(r["time"])
    if r["pid"] or r["lwp"] or r["tid"] or r["tsc"] or r["child"] or r["args"]:
        die("fields that do not apply must be empty: %r" % r)
    if r["not_counted"] or r["partial"]:
        die("everything was counted: %r" % r)
    s = int(r["set"])
    for k in ("enabled_ns", "running_ns", "context-switches"):
        int(r[k])
    if s == 1:
        int(r["task-clock"])
    elif r["task-clock"] != "":
        die("set 0 has no task-clock: %r" % r)
    if r["label"] == "tick":
        if int(r["cpu"]) not in CPUS or r["ncpus"] != "":
            die("bad cpu %r" % r)
        en = int(r["enabled_ns"])
        if not 0.5e8 < en < 1.3e8 or int(r["running_ns"]) > en:
            die("a row counts its own 0.1 s: %r" % r)
for t in totals:
    s = t["set"]
    if t["cpu"] != "" or int(t["ncpus"]) != len(CPUS):
        die("a total has the CPUs counted in ncpus, and no cpu: %r" % t)
    for k in ("context-switches", "task-clock", "enabled_ns"):
        if t[k] == "":
            continue
        if int(t[k]) != sum(int(r[k]) for r in ticks if r["set"] == s):
            die("total %s is not the sum of its rows" % k)
' "$T/out"
}

@test "--format=json: the head object, then one object per row with numbers as numbers" {
	run --separate-stderr "$CPUSTAT" --format=json -t -c context-switches \
	    -c task-clock 0.1 2
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
head, rows = objs[0], objs[1:]
for k in ("tool_version", "host", "start", "start_epoch_ns"):
    if k not in head:
        die("%s missing from the head %r" % (k, head))
    del head[k]
if head != {"schema": "cpctools", "version": 2, "tool": "cpustat", "sets": [
        {"set": 0, "spec": "context-switches", "events": [{"name": "context-switches", "unit": "count"}]},
        {"set": 1, "spec": "task-clock", "events": [{"name": "task-clock", "unit": "ns"}]}]}:
    die("head object %r" % head)
isint = lambda v: type(v) is int
for r in rows:
    for k in ("time", "pid", "lwp", "tid", "cpu", "ncpus", "label", "set", "spec", "counters", "enabled_ns", "running_ns", "tsc", "not_counted", "partial"):
        if k not in r:
            die("%s missing: %r" % (k, r))
    if r["pid"] is not None or r["lwp"] is not None or r["tid"] is not None:
        die("pid/lwp/tid do not apply: %r" % r)
    if r["not_counted"] is not None or r["partial"] is not None:
        die("everything was counted: %r" % r)
    if not isinstance(r["time"], float) or not all(isint(r[k]) for k in ("set", "enabled_ns", "running_ns", "tsc")):
        die("numbers must be numbers: %r" % r)
    if not all(isint(v) for v in r["counters"].values()):
        die("counters must be numbers: %r" % r)
    if r["spec"] != head["sets"][r["set"]]["spec"] or list(r["counters"]) != [e["name"] for e in head["sets"][r["set"]]["events"]]:
        die("row does not match its set: %r" % r)
ticks = [r for r in rows if r["label"] == "tick"]
totals = [r for r in rows if r["label"] == "total"]
if len(ticks) != 2 * len(CPUS) or [t["set"] for t in totals] != [0, 1]:
    die("rows %d totals %r" % (len(ticks), totals))
for r in ticks:
    if not isint(r["cpu"]) or r["ncpus"] is not None:
        die("a tick has its cpu, no ncpus: %r" % r)
for t in totals:
    mine = [r for r in ticks if r["set"] == t["set"]]
    if t["cpu"] is not None or t["ncpus"] != len(CPUS):
        die("a total has the CPUs counted in ncpus, and no cpu: %r" % t)
    for k in ("enabled_ns", "running_ns", "tsc"):
        if t[k] != sum(r[k] for r in mine):
            die("total %s is not the sum of its rows" % k)
    for e in t["counters"]:
        if t["counters"][e] != sum(r["counters"][e] for r in mine):
            die("total %s is not the sum of its rows" % e)
times = [r["time"] for r in rows]
if times != sorted(times):
    die("rows go back in time: %r" % times)
' "$T/out"
}

@test "rows reach a pipe or file the moment their interval ends" {
	env --default-signal=INT "$CPUSTAT" -c task-clock 0.3 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	# Block buffering would hold the rows back for many intervals.
	wait_for "$T/out" "$TICK_ROW" 2
	kill -INT "$BG_PIDS"
	bg_wait
}

# ---------------------------------------------------------------------
# Signals

@test "SIGINT, SIGTERM and SIGHUP mid-run print the totals and exit 0" {
	for sig in INT TERM HUP; do
		env --default-signal=INT "$CPUSTAT" -c context-switches,task-clock 0.1 >"$T/out" 2>"$T/err" 3>&- &
		BG_PIDS=$!
		wait_for "$T/out" "$TICK_ROW"
		sleep 0.15
		kill -"$sig" "$BG_PIDS"
		rc=0
		bg_wait || rc=$?
		echo "SIG$sig: exit $rc"
		[ "$rc" -eq 0 ]
		[ ! -s "$T/err" ]
		pycheck '
rows, _ = parse_table(sys.argv[1])
if rows[-1].label != "total" or len(rows) < 1 + len(CPUS):
    die("want rows then the total")
check_totals(rows, len(CPUS))
' "$T/out"
	done
}

# sig_ignored PID SIG: SIG is ignored by PID (the SigIgn mask of /proc).
sig_ignored() {
	local mask
	mask=$(awk '/^SigIgn:/ { print $2 }' "/proc/$1/status")
	(((0x$mask >> ($(kill -l "$2") - 1)) & 1))
}

# tick_rows FILE: how many tick rows FILE has.
tick_rows() { grep -cE "$TICK_ROW" "$1" || true; }

# still_counting PID FILE N: PID is alive, and FILE gets N more tick rows.
still_counting() {
	local want i
	want=$(($(tick_rows "$2") + $3))
	for ((i = 0; i < 200; i++)); do
		kill -0 "$1" 2>/dev/null || { echo "cpustat ended" >&2; return 1; }
		[ "$(tick_rows "$2")" -ge "$want" ] && return 0
		sleep 0.05
	done
	echo "no new rows after the signal" >&2
	return 1
}

# ignored_case SIG ENDER START...: START runs cpustat with SIG ignored
# (and ENDER at its default, whatever this shell was given); SIG leaves it
# counting, ENDER then ends it with its totals, status 0. Its count only
# bounds a run that something stopped.
ignored_case() {
	local sig=$1 ender=$2 rc=0
	shift 2
	env --default-signal="$ender" "$@" -c task-clock 0.1 600 </dev/null \
	    >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/out" "$TICK_ROW"
	sig_ignored "$BG_PIDS" "$sig"
	kill -"$sig" "$BG_PIDS"
	still_counting "$BG_PIDS" "$T/out" $((2 * $(ncpus)))
	kill -"$ender" "$BG_PIDS"
	bg_wait || rc=$?
	echo "SIG$sig ignored, then SIG$ender: exit $rc"
	[ "$rc" -eq 0 ]
	[ ! -s "$T/err" ]
	pycheck '
rows, _ = parse_table(sys.argv[1])
if rows[-1].label != "total":
    die("want rows then the total")
check_totals(rows, len(CPUS))
' "$T/out"
}

@test "SIGHUP, SIGINT and SIGTERM ignored when cpustat starts stay ignored; another signal then ends it with its totals" {
	# nohup, and a shell that ignores SIGHUP before it runs cpustat.
	ignored_case HUP TERM nohup "$CPUSTAT"
	ignored_case HUP TERM sh -c 'trap "" HUP; exec "$0" "$@"' "$CPUSTAT"
	ignored_case HUP INT env --ignore-signal=HUP "$CPUSTAT"
	# A script's background job (this shell's &) has SIGINT ignored.
	ignored_case INT TERM "$CPUSTAT"
	ignored_case TERM HUP env --ignore-signal=TERM "$CPUSTAT"
}

@test "the default interval is 5 seconds, and the count unlimited" {
	env --default-signal=INT "$CPUSTAT" -c task-clock >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	sleep 5.5
	kill -INT "$BG_PIDS"
	bg_wait
	pycheck '
rows, _ = parse_table(sys.argv[1])
by = ticks_by_cpu(rows)
for cpu, l in by.items():
    if len(l) != 1 or abs(l[0].time - 5.0) > 0.1:
        die("cpu%d: want one row at 5 s: %r" % (cpu, [r.line for r in l]))
' "$T/out"
}

# ---------------------------------------------------------------------
# Missed intervals: a stopped cpustat (SIGSTOP, as a debugger or Ctrl-Z
# would) misses sample times. When it runs again, each CPU's next row is a
# gap row holding all the intervals since its previous row, and saying
# so; ticks keep to their own intervals; the count counts intervals.

# stop_run PID SECONDS: stop PID for SECONDS, then let it go on.
stop_run() {
	kill -STOP "$1"
	sleep "$2"
	kill -CONT "$1"
}

@test "stopped for 2.5 intervals: a gap row per CPU holds them, saying how many; ticks hold their own interval; the count counts intervals" {
	"$CPUSTAT" -c task-clock,context-switches 0.2 10 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/out" "$TICK_ROW"
	sleep 0.1
	stop_run "$BG_PIDS" 0.5
	bg_wait
	cat "$T/out" "$T/err"
	# Nothing was lost: nothing to say on stderr, and status 0.
	[ ! -s "$T/err" ]
	pycheck '
rows, _ = parse_table(sys.argv[1])
by = check_intervals(rows, 0.2, 10)
for cpu, l in by.items():
    # The stop, 0.5 s: one gap row of 2 intervals or more holds it.
    stop = [r for r in l if r.label == "gap" and r.secs >= 0.5]
    if len(stop) != 1:
        die("cpu%d: want one gap row for the stop: %r" % (cpu, [r.line for r in l]))
    # 10 intervals of 0.2 s: the last sample is due at 2 s, whatever was
    # missed (10 rows after the stop would end at 2.5 s and later).
    if not 2.0 <= l[-1].time < 2.5:
        die("cpu%d: last row at %.3f s, want 2.0" % (cpu, l[-1].time))
# The totals sum the ticks and the gap rows, of every CPU.
totals = [r for r in rows if r.label == "total"]
if len(totals) != 1 or totals[0].cpu != len(CPUS):
    die("want one total of %d CPUs: %r" % (len(CPUS), [r.line for r in totals]))
if totals[0].values != [sum(r.values[i] for r in rows if r.label != "total") for i in range(2)]:
    die("the total is not the sum of the tick and gap rows")
' "$T/out"
}

@test "stopped past the end of the count: the run ends as soon as it runs again, its gap rows holding the intervals left" {
	"$CPUSTAT" -c task-clock 0.1 5 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/out" "$TICK_ROW"
	stop_run "$BG_PIDS" 1
	bg_wait
	cat "$T/out" "$T/err"
	[ ! -s "$T/err" ]
	pycheck '
rows, _ = parse_table(sys.argv[1])
by = ticks_by_cpu(rows)
for cpu, l in by.items():
    # The intervals left were over while it was stopped: one gap row,
    # the last, stands for them all.
    if sum(r.intervals for r in l) != 5 or l[-1].label != "gap":
        die("cpu%d: want rows for 5 intervals, the last a gap row: %r" % (cpu, [r.line for r in l]))
    if l[-1].secs < 0.9:
        die("cpu%d: the gap row does not hold the stop: %r" % (cpu, l[-1].line))
if rows[-1].label != "total" or rows[-1].cpu != len(CPUS):
    die("want the total of every CPU last")
' "$T/out"
}

@test "-p: a stop across a rest is held by a gap row, rest and all; the count still counts cycles" {
	# Samples at 0.2 0.4 | rest | 1.2 1.4 | rest | 2.2 2.4; stopped from
	# 0.5 to 1.5, in the first rest and past two sample times.
	"$CPUSTAT" -p 1 -c task-clock -c context-switches 0.2 3 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/out" 'context-switches$'
	sleep 0.05
	stop_run "$BG_PIDS" 1
	bg_wait
	cat "$T/out" "$T/err"
	[ ! -s "$T/err" ]
	pycheck '
rows, _ = parse_table(sys.argv[1])
for cpu, l in ticks_by_cpu(rows).items():
    if sum(r.intervals for r in l) != 6:
        die("cpu%d: want rows for 3 cycles of 2 sets: %r" % (cpu, [r.line for r in l]))
    gaps = [r for r in l if r.label == "gap"]
    # Task-clock took over when the rest began: it holds the rest and the
    # stop, 1 s and more.
    if len(gaps) != 1 or gaps[0].spec != "task-clock" or gaps[0].values[0] < 0.99e9:
        die("cpu%d: want one gap row of task-clock holding the rest: %r" % (cpu, [r.line for r in l]))
    if not 2.4 <= l[-1].time < 2.9:
        die("cpu%d: the third cycle ends at 2.4 s, not %.3f" % (cpu, l[-1].time))
    # After the gap the sets take turns again, and rest again.
    after = l[l.index(gaps[0]) + 1:]
    if [r.spec for r in after] != ["context-switches", "task-clock"] or after[0].time < 2.2:
        die("cpu%d: after the gap: %r" % (cpu, [r.line for r in after]))
if [r.spec for r in rows if r.label == "total"] != ["task-clock", "context-switches"]:
    die("want a total per set")
' "$T/out"
}

@test "gap rows in CSV, JSON and the metrics: labelled gap, enabled_ns their real length; cpustat_gap_intervals_total counts them" {
	"$CPUSTAT" --format=json -c task-clock 0.2 8 >"$T/json" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/json" '"label":"tick"'
	sleep 0.1
	stop_run "$BG_PIDS" 0.5
	bg_wait
	[ ! -s "$T/err" ]
	"$CPUSTAT" --format=csv -c task-clock 0.2 8 >"$T/csv" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/csv" ',tick,'
	sleep 0.1
	stop_run "$BG_PIDS" 0.5
	bg_wait
	[ ! -s "$T/err" ]
	pycheck '
def check(rows, fmt):
    by = {}
    for r in rows:
        if r["label"] in ("tick", "gap"):
            by.setdefault(int(r["cpu"]), []).append(r)
    if sorted(by) != CPUS:
        die("%s: rows for CPUs %r" % (fmt, sorted(by)))
    for cpu, l in by.items():
        prev, n = 0, 0
        for r in l:
            us = round(float(r["time"]) * 1e6)
            en = int(r["enabled_ns"])
            # The intervals a row stands for: the sample times (each 0.2 s
            # from the start) between the previous row of its CPU and it.
            k = us // 200000 - prev // 200000
            n += k
            if r["label"] != ("gap" if k > 1 else "tick"):
                die("%s: a row of %d intervals labelled %s: %r" % (fmt, k, r["label"], r))
            # (Rows read at once on two CPUs may take the later time.)
            if prev and abs(en / 1e3 - (us - prev)) > 100000:
                die("%s: enabled_ns is not the real length of the row: %r" % (fmt, r))
            if prev and r["label"] == "gap" and en < 0.5e9:
                die("%s: the gap row does not hold the stop: %r" % (fmt, r))
            prev = us
        if n != 8 or not [r for r in l if r["label"] == "gap"]:
            die("%s: cpu%d: rows stand for %d intervals, want 8, one gap row" % (fmt, cpu, n))
check([json.loads(l) for l in open(sys.argv[1])][1:], "json")
check([r for r in csv.DictReader(open(sys.argv[2])) if r["label"] != "meta"], "csv")
' "$T/json" "$T/csv"
	# The metrics: the intervals of gap rows, 0 for a CPU without any. The
	# file is replaced at each row: stopped once the first rows are in.
	for how in stop nostop; do
		"$CPUSTAT" --format=openmetrics --output="$T/om" -c task-clock 0.5 3 \
		    2>"$T/err" 3>&- &
		BG_PIDS=$!
		if [ "$how" = stop ]; then
			wait_for "$T/om" '^cpustat_event_seconds_total'
			stop_run "$BG_PIDS" 1.2
		fi
		bg_wait
		cat "$T/om"
		pycheck '
stopped = sys.argv[2] == "stop"
gaps = {}
for line in open(sys.argv[1]):
    m = re.match(r"cpustat_gap_intervals_total\{cpu=\"([0-9]+)\",set=\"0\"\} ([0-9]+)$", line)
    if m:
        gaps[int(m.group(1))] = int(m.group(2))
if sorted(gaps) != CPUS:
    die("want cpustat_gap_intervals_total for every CPU: %r" % gaps)
if any((v < 2) if stopped else (v != 0) for v in gaps.values()):
    die("gap intervals %r, %s" % (gaps, "stopped 2.5 intervals" if stopped else "never stopped"))
' "$T/om" "$how"
		[ ! -s "$T/err" ]
	done
}

@test "total rows count the CPUs that counted, not those asked for: --cpus naming a CPU that is not online" {
	all=$("$PY" -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')
	"$PY" -c 'import os, sys; sys.exit(os.path.exists("/sys/devices/system/cpu/cpu1000"))' ||
		skip "this machine has a CPU 1000"
	for fmt in table json; do
		run --separate-stderr "$CPUSTAT" --format=$fmt --cpus="$all,1000" -c task-clock 0.1 2
		assert_success
		[ -z "$stderr" ]
		printf '%s\n' "$output" >"$T/out"
		pycheck '
if sys.argv[2] == "table":
    rows, _ = parse_table(sys.argv[1])
    check_totals(rows, len(CPUS))
    if " # " in rows[-1].line:
        die("not partial: CPU 1000 was never a CPU to count: %r" % rows[-1].line)
else:
    total = [json.loads(l) for l in open(sys.argv[1])][-1]
    if total["label"] != "total" or total["ncpus"] != len(CPUS) or total["partial"] is not None:
        die("want a total of %d CPUs: %r" % (len(CPUS), total))
' "$T/out" "$fmt"
	done
}

# ---------------------------------------------------------------------
# Exclusivity (the cputrack directions are in the cputrack tests)

# Software events and tracepoints exclude nobody; a CPU's hardware events
# are held by one cpustat (docs/architecture.md): that needs a PMU, and is
# proved in the QEMU suite (tests/hw).
@test "two cpustats of the same software events on the same CPUs both count, exit 0" {
	env --default-signal=INT "$CPUSTAT" -c task-clock 0.2 >"$T/first" 2>"$T/first.err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/first" "$TICK_ROW"
	run --separate-stderr "$CPUSTAT" -c task-clock 0.1 2
	assert_success
	[ -z "$stderr" ]
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1])
if sorted(ticks_by_cpu(rows)) != sorted(CPUS):
    die("every CPU should have been measured: %r" % sorted(ticks_by_cpu(rows)))
' "$T/out"
	# The first one is undisturbed.
	kill -INT "$BG_PIDS"
	bg_wait
	[ ! -s "$T/first.err" ]
}

@test "after a cpustat is killed with SIGKILL, the next cpustat runs" {
	"$CPUSTAT" -c task-clock 0.2 >"$T/first" 2>&1 3>&- &
	BG_PIDS=$!
	wait_for "$T/first" "$TICK_ROW"
	kill -KILL "$BG_PIDS"
	bg_wait || true
	run --separate-stderr "$CPUSTAT" -c task-clock 0.1 1
	assert_success
	[ -z "$stderr" ]
}

# ---------------------------------------------------------------------
# Bad input

# bad_input EXPECTED-MESSAGE ARGS...: exit 2, the message, then usage.
bad_input() {
	local msg=$1
	shift
	run --separate-stderr "$CPUSTAT" "$@"
	echo "cpustat $*: $status: $stderr"
	assert_failure 2
	[ -z "$output" ]
	if [ -n "$msg" ]; then
		assert_equal "${stderr_lines[0]}" "$msg"
		assert_equal "$(printf '%s\n' "${stderr_lines[@]:1}")" "$(usage_text | grep -v '^$')"
	else
		assert_equal "$(printf '%s\n' "${stderr_lines[@]}")" "$(usage_text | grep -v '^$')"
	fi
}

@test "bad intervals and counts: invalid argument, usage, exit 2" {
	for arg in 0 -1 abc 1x 0.0001 -0.5 inf nan ''; do
		bad_input "cpustat: invalid argument \"$arg\"" -c task-clock "$arg"
	done
	for count in 0 -1 abc 1.5 1x; do
		bad_input "cpustat: invalid argument \"$count\"" -c task-clock 1 "$count"
	done
	# Three operands: the usage alone, as in the original.
	bad_input "" -c task-clock 1 2 3
}

@test "bad -T, -p, spec, option; no -c: usage errors, exit 2" {
	bad_input 'cpustat: invalid argument "x" for -T (u or d)' -T x -c task-clock
	bad_input 'cpustat: invalid parameter "abc"' -p abc -c task-clock
	bad_input 'cpustat: invalid parameter "-1"' -p -1 -c task-clock
	bad_input 'cpustat: invalid parameter "1s"' -p 1s -c task-clock
	bad_input "cpustat: bad token 'foo'" -c foo
	bad_input "cpustat: bad token 'foo=bar'" -c task-clock,foo=bar
	bad_input "cpustat: repeated 'pic0' token" -c pic0=task-clock,pic0=cs
	bad_input "cpustat: cpc_strtoset: bad token 'foo'" -D -c foo
	bad_input "" 
	bad_input "" 1 2
	bad_input "cpustat: invalid option -- 'x'" -x -c task-clock
	bad_input "cpustat: option requires an argument -- 'c'" -c
	bad_input "cpustat: unrecognized option '--bogus'" --bogus -c task-clock
	bad_input 'cpustat: invalid format "xml" (table, csv, json, openmetrics or prometheus)' --format=xml -c task-clock
	bad_input 'cpustat: invalid CPU list "1-0"' --cpus=1-0 -c task-clock
	bad_input 'cpustat: invalid CPU list "x"' --cpus=x -c task-clock
}

@test "-h: the usage on stdout, then the capabilities listing, exit 0" {
	run --separate-stderr "$CPUSTAT" -h
	assert_success
	[ -z "$stderr" ]
	usage_text >"$T/usage"
	printf '%s\n' "$output" >"$T/out"
	n=$(wc -l <"$T/usage")
	diff <(head -n "$n" "$T/out") "$T/usage"
	assert_equal "$(sed -n "$((n + 1))p" "$T/out")" ""
	N=$((n + 1)) pycheck '
lines = open(sys.argv[1]).read().split("\n")[int(os.environ["N"]):]
if not lines[0].startswith("\tCPU performance counter interface: ") or len(lines[0]) <= 36:
    die("interface line %r" % lines[0])
for want in ["\tevent specification syntax:",
             "\t[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]",
             "\tPlatform Specific Events:"]:
    if want not in lines:
        die("missing %r" % want)
# Generic events only where some map on this CPU, with their reference.
if ("\tGeneric Events:" in lines) != ("\tSee generic_events(3CPC) for descriptions of these events" in lines):
    die("generic events block half there")
# The platform block: "\tevent[0-7]: " then names, each with a trailing
# space, wrapped onto lines indented by 17 spaces.
i = lines.index("\tPlatform Specific Events:") + 2
if not lines[i].startswith("\tevent[0-7]: "):
    die("event line %r" % lines[i])
names = lines[i][len("\tevent[0-7]: "):]
while lines[i + 1].startswith(" " * 17):
    i += 1
    names += lines[i][17:]
if not names.endswith(" ") or "task-clock" not in names.split() or "context-switches" not in names.split():
    die("event names %r" % names)
attrs = [l for l in lines if l.startswith("\tattributes: ")]
if len(attrs) != 1 or not attrs[0].endswith("nouser sys "):
    die("attributes line %r" % attrs)
' "$T/out"
}

@test "a hardware event without a PMU: one line naming it and why, exit 2" {
	if ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core|cpu_atom|armv[78]_.*|arm_.*)$'; then
		skip "this kernel has a hardware PMU"
	fi
	run --separate-stderr "$CPUSTAT" -c cycles 0.1 1
	assert_failure 2
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ ${stderr_lines[0]} == "cpustat: cycles "* ]]
	[[ ${stderr_lines[0]} == *"no hardware counters"* ]]
}

@test "hardware events count on every CPU where there is a PMU" {
	require_pmu
	run --separate-stderr "$CPUSTAT" -c cycles,nouser,sys -c instructions 0.2 2
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1])
for r in rows:
    if r.values[0] <= 0:
        die("nothing counted: %r" % r.line)
check_totals(rows, len(CPUS))
' "$T/out"
}

# ---------------------------------------------------------------------
# Privileges

# A copy of cpustat that nobody can reach and run.
nobody_copy() {
	local d
	d=$(mktemp -d)
	chmod 755 "$d"
	cp "$CPUSTAT" "$d/cpustat"
	chmod 755 "$d/cpustat"
	echo "$d/cpustat"
}

@test "unprivileged (as nobody): refused before any CPU is bound, one line per request with the cause and the fix, exit 2" {
	[ "$(id -u)" = 0 ] || skip "needs root to run as nobody"
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	[ "$paranoid" -ge 1 ] || skip "kernel.perf_event_paranoid=$paranoid lets anyone count CPU-wide"
	bin=$(nobody_copy)
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin" -c task-clock -c cs 0.1 1
	rm -rf "${bin%/cpustat}"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	assert_equal "${#stderr_lines[@]}" 2
	for ev in task-clock cs; do
		printf '%s\n' "${stderr_lines[@]}" | grep -qxF "cpustat: $ev: Permission denied: counting a whole CPU needs root or CAP_PERFMON while kernel.perf_event_paranoid is $paranoid (above 0); lower it to 0, or run with CAP_PERFMON"
	done
}

@test "unprivileged with CAP_PERFMON counts, as the hint says" {
	[ "$(id -u)" = 0 ] || skip "needs root to run as nobody"
	bin=$(nobody_copy)
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    --inh-caps=+perfmon --ambient-caps=+perfmon "$bin" -c task-clock 0.1 1
	rm -rf "${bin%/cpustat}"
	if [ "$status" -ne 0 ] && [[ $stderr == *setpriv* ]]; then
		skip "CAP_PERFMON is unknown here: $stderr"
	fi
	assert_success
	[ -z "$stderr" ]
}

@test "a cpustat given cap_perfmon with setcap counts for any user, as the man page says" {
	[ "$(id -u)" = 0 ] || skip "needs root to run as nobody"
	command -v setcap >/dev/null || skip "setcap is not installed"
	bin=$(nobody_copy)
	setcap cap_perfmon+ep "$bin" 2>/dev/null || {
		rm -rf "${bin%/cpustat}"
		skip "file capabilities cannot be set here"
	}
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin" -c task-clock 0.1 1
	rm -rf "${bin%/cpustat}"
	assert_success
	[ -z "$stderr" ]
}
