#!/usr/bin/env bats
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

def parse_table(path, tick=False):
    """Rows of a table, each checked against the original printf formats:
    "%7.3f %3d %5s ", ["%9lld "], "%9lld " per value, then " # spec"."""
    rows, others = [], []
    for line in open(path).read().split("\n"):
        if line == "":
            continue
        left, sep, spec = line.partition(" # ")
        f = left.split()
        if len(f) < 4 or f[2] not in ("tick", "total"):
            others.append(line)
            continue
        r = Row()
        r.line, r.time, r.cpu, r.label = line, float(f[0]), int(f[1]), f[2]
        nums = [int(x) for x in f[3:]]
        r.tick = nums.pop(0) if tick else None
        r.values, r.spec = nums, (spec if sep else None)
        want = "%7.3f %3d %5s " % (r.time, r.cpu, r.label)
        if tick:
            want += "%9d " % r.tick
        want += "".join("%9d " % v for v in r.values)
        if sep:
            want += (" # " if r.label == "tick" else "# ") + spec
        if line != want:
            die("row not in the original format:\n%r\nwanted\n%r" % (line, want))
        rows.append(r)
    return rows, others

def ticks_by_cpu(rows):
    by = {}
    for r in rows:
        if r.label == "tick":
            by.setdefault(r.cpu, []).append(r)
    for l in by.values():
        l.sort(key=lambda r: r.time)
    return by

def check_totals(rows, ncpu):
    """Each set total equals the sum of its rows; its cpu field is ncpu."""
    sums, totals = {}, [r for r in rows if r.label == "total"]
    for r in rows:
        if r.label == "tick":
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
	    "		[-sntD] [interval [count]]" \
	    "" \
	    "	-c spec	  specify processor events to be monitored" \
	    "	-n	  suppress titles" \
	    "	-p period cycle through event list periodically" \
	    "	-s	  run user soaker thread for system-only events" \
	    "	-t	  include tsc register" \
	    "	-T d|u	  Display a timestamp in date (d) or unix time_t (u)" \
	    "	-D	  enable debug mode" \
	    "	-h	  print extended usage information" \
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
	"$CPUSTAT" -c syscalls:sys_enter_getppid 0.4 2 >"$T/out" 2>"$T/err" 3>&- &
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
if tot.tick != sum(r.tick for r in rows if r.label == "tick"):
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

@test "--format=csv: a versioned header, one column per event, numbers as numbers" {
	run --separate-stderr "$CPUSTAT" --format=csv -c context-switches \
	    -c task-clock,context-switches 0.1 4
	assert_success
	assert_equal "${lines[0]}" "# cpctools csv 1 cpustat"
	printf '%s\n' "$output" >"$T/out"
	pycheck '
lines = open(sys.argv[1]).read().split("\n")
rd = list(csv.reader(lines[1:-1]))
head, rows = rd[0], rd[1:]
want = "time,pid,lwp,tid,cpu,label,set,enabled_ns,running_ns,tsc,context-switches,task-clock,info".split(",")
if head != want:
    die("header %r" % head)
col = {k: i for i, k in enumerate(head)}
ticks = [r for r in rows if r[col["label"]] == "tick"]
totals = [r for r in rows if r[col["label"]] == "total"]
if len(ticks) != 4 * len(CPUS) or len(totals) != 2:
    die("%d tick rows, %d totals" % (len(ticks), len(totals)))
for r in rows:
    float(r[col["time"]])
    if r[col["pid"]] or r[col["lwp"]] or r[col["tid"]] or r[col["tsc"]] or r[col["info"]]:
        die("fields that do not apply must be empty: %r" % r)
    s = int(r[col["set"]])
    for k in ("cpu", "enabled_ns", "running_ns", "context-switches"):
        int(r[col[k]])
    if s == 1:
        int(r[col["task-clock"]])
    elif r[col["task-clock"]] != "":
        die("set 0 has no task-clock: %r" % r)
    if r[col["label"]] == "tick":
        if int(r[col["cpu"]]) not in CPUS:
            die("bad cpu %r" % r)
        en = int(r[col["enabled_ns"]])
        if not 0.5e8 < en < 1.3e8 or int(r[col["running_ns"]]) > en:
            die("a row counts its own 0.1 s: %r" % r)
for t in totals:
    s = t[col["set"]]
    if int(t[col["cpu"]]) != len(CPUS):
        die("total cpu field %r" % t)
    for k in ("context-switches", "task-clock", "enabled_ns"):
        if t[col[k]] == "":
            continue
        if int(t[col[k]]) != sum(int(r[col[k]]) for r in ticks if r[col["set"]] == s):
            die("total %s is not the sum of its rows" % k)
' "$T/out"
}

@test "--format=json: a schema object, then one object per row with numbers as numbers" {
	run --separate-stderr "$CPUSTAT" --format=json -t -c context-switches \
	    -c task-clock 0.1 2
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
head, rows = objs[0], objs[1:]
if head != {"schema": "cpctools", "version": 1, "tool": "cpustat", "sets": [
        {"set": 0, "spec": "context-switches", "events": ["context-switches"]},
        {"set": 1, "spec": "task-clock", "events": ["task-clock"]}]}:
    die("schema object %r" % head)
isint = lambda v: type(v) is int
for r in rows:
    for k in ("time", "pid", "lwp", "tid", "cpu", "label", "set", "spec", "counters", "enabled_ns", "running_ns", "tsc"):
        if k not in r:
            die("%s missing: %r" % (k, r))
    if r["pid"] is not None or r["lwp"] is not None or r["tid"] is not None:
        die("pid/lwp/tid do not apply: %r" % r)
    if not isinstance(r["time"], float) or not all(isint(r[k]) for k in ("cpu", "set", "enabled_ns", "running_ns", "tsc")):
        die("numbers must be numbers: %r" % r)
    if not all(isint(v) for v in r["counters"].values()):
        die("counters must be numbers: %r" % r)
    if r["spec"] != head["sets"][r["set"]]["spec"] or list(r["counters"]) != head["sets"][r["set"]]["events"]:
        die("row does not match its set: %r" % r)
ticks = [r for r in rows if r["label"] == "tick"]
totals = [r for r in rows if r["label"] == "total"]
if len(ticks) != 2 * len(CPUS) or [t["set"] for t in totals] != [0, 1]:
    die("rows %d totals %r" % (len(ticks), totals))
for t in totals:
    mine = [r for r in ticks if r["set"] == t["set"]]
    if t["cpu"] != len(CPUS):
        die("total cpu field %r" % t)
    for k in ("enabled_ns", "running_ns", "tsc"):
        if t[k] != sum(r[k] for r in mine):
            die("total %s is not the sum of its rows" % k)
    for e in t["counters"]:
        if t["counters"][e] != sum(r["counters"][e] for r in mine):
            die("total %s is not the sum of its rows" % e)
' "$T/out"
}

@test "rows reach a pipe or file the moment their interval ends" {
	"$CPUSTAT" -c task-clock 0.3 >"$T/out" 2>"$T/err" 3>&- &
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
		"$CPUSTAT" -c context-switches,task-clock 0.1 >"$T/out" 2>"$T/err" 3>&- &
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

@test "the default interval is 5 seconds, and the count unlimited" {
	"$CPUSTAT" -c task-clock >"$T/out" 2>"$T/err" 3>&- &
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
# Exclusivity (the cputrack directions are in the cputrack tests)

@test "a second cpustat on the same CPUs: cpuN - Resource temporarily unavailable, exit 1" {
	"$CPUSTAT" -c task-clock 0.2 >"$T/first" 2>"$T/first.err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/first" "$TICK_ROW"
	run --separate-stderr "$CPUSTAT" -c task-clock 0.1 1
	assert_failure 1
	want=$("$PY" -c 'import os; print("\n".join("cpustat: cpu%d - Resource temporarily unavailable" % c for c in sorted(os.sched_getaffinity(0))))')
	assert_equal "$(printf '%s\n' "$stderr" | sort -V)" "$want"
	# As in the original: the title, then a total of zeros.
	assert_equal "${lines[0]}" "   time cpu event      pic0 "
	[[ ${lines[1]} =~ ^\ +[0-9]+\.[0-9]{3}\ +$(ncpus)\ total\ {9}0\ $ ]]
	[ "${#lines[@]}" -eq 2 ]
	# The first one is undisturbed.
	kill -INT "$BG_PIDS"
	bg_wait
	[ ! -s "$T/first.err" ]
}

@test "only the CPUs in use are refused; disjoint CPU lists run side by side" {
	[ "$(ncpus)" -ge 2 ] || skip "needs 2 CPUs"
	a=$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))')
	b=$(last_cpu)
	"$CPUSTAT" --cpus="$a" -c task-clock 0.2 >"$T/first" 2>"$T/first.err" 3>&- &
	BG_PIDS=$!
	wait_for "$T/first" "$TICK_ROW"
	run --separate-stderr "$CPUSTAT" --cpus="$b" -c task-clock 0.1 2
	assert_success
	run --separate-stderr "$CPUSTAT" -c task-clock 0.1 2
	assert_failure 1
	assert_equal "$stderr" "cpustat: cpu$a - Resource temporarily unavailable"
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1])
if sorted(ticks_by_cpu(rows)) != [int(sys.argv[2])]:
    die("the free CPU should have been measured")
' "$T/out" "$b"
	kill -INT "$BG_PIDS"
	bg_wait
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
	# The lock directory is where the documentation says.
	[ -d /run/cpctools ]
	for cpu in $("$PY" -c 'import os; print(*sorted(os.sched_getaffinity(0)))'); do
		[ -e "/run/cpctools/cpu$cpu.lock" ]
	done
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
	bad_input 'cpustat: invalid format "xml" (table, csv or json)' --format=xml -c task-clock
	bad_input 'cpustat: invalid CPU list "1-0"' --cpus=1-0 -c task-clock
	bad_input 'cpustat: invalid CPU list "x"' --cpus=x -c task-clock
}

@test "-h: the usage on stdout, then the capabilities listing, exit 0" {
	run --separate-stderr "$CPUSTAT" -h
	assert_success
	[ -z "$stderr" ]
	usage_text >"$T/usage"
	printf '%s\n' "$output" >"$T/out"
	diff <(head -n 14 "$T/out") "$T/usage"
	assert_equal "$(sed -n 15p "$T/out")" ""
	pycheck '
lines = open(sys.argv[1]).read().split("\n")[15:]
if not lines[0].startswith("\tCPU performance counter interface: ") or len(lines[0]) <= 36:
    die("interface line %r" % lines[0])
for want in ["\tevent specification syntax:",
             "\t[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]",
             "\tGeneric Events:", "\tSee generic_events(3CPC) for descriptions of these events",
             "\tPlatform Specific Events:"]:
    if want not in lines:
        die("missing %r" % want)
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

@test "unprivileged (as nobody): cpuN - Permission denied for each CPU, one hint, exit 1" {
	[ "$(id -u)" = 0 ] || skip "needs root to run as nobody"
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	[ "$paranoid" -ge 1 ] || skip "kernel.perf_event_paranoid=$paranoid lets anyone count CPU-wide"
	bin=$(nobody_copy)
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin" -c task-clock 0.1 1
	rm -rf "${bin%/cpustat}"
	assert_failure 1
	printf '%s\n' "$stderr"
	want=$("$PY" -c 'import os; print("\n".join("cpustat: cpu%d - Permission denied" % c for c in sorted(os.sched_getaffinity(0))))')
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -v 'needs root' | sort -V)" "$want"
	[ "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'needs root')" -eq 1 ]
	hint=$(printf '%s\n' "${stderr_lines[@]}" | grep 'needs root')
	assert_equal "$hint" "cpustat: system-wide counting needs root, CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 0 (it is $paranoid)"
	assert_equal "${lines[0]}" "   time cpu event      pic0 "
	[[ ${lines[1]} == *" total         0 " ]]
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
