# SPDX-License-Identifier: BSD-2-Clause
# shellcheck disable=SC2034 # the .bats files that load it read what it sets
# Shared by the cpustat*.bats tests: their set-up and teardown, and Python
# helpers that parse and check cpustat's rows.
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
        # A total of CPUs chosen by -C reads "all" where its CPUs would be.
        cpu = f[1] if f[1] == "all" and f[2] == "total" else int(f[1])
        r.line, r.time, r.cpu, r.label = line, float(f[0]), cpu, f[2]
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
        want = "%7.3f %3s %5s " % (r.time, r.cpu, r.label)
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
    """Each set total equals the sum of its rows; its cpu field is ncpu
    ("all" for the CPUs -C chose)."""
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
            die("total cpu field %s, want %s: %r" % (t.cpu, ncpu, t.line))
        if sums.get(t.spec, [0] * len(t.values)) != t.values:
            die("total %r is not the sum of its rows %r" % (t.line, sums.get(t.spec)))
    if sorted(sums) != sorted(t.spec for t in totals):
        die("one total per set wanted: rows %r totals %r" % (sorted(sums), [t.spec for t in totals]))

# Rows print their time in ms (%7.3f): half of one either way.
ROUND = 0.0005
# A set sampled goes on counting until the next set takes its turn, a few
# us later (the row is made in between); its next turn holds that too.
LEAK = 0.005

def due_times(interval, count, dues):
    """The sample times of a run: every interval, or the list given (-p)."""
    return dues if dues is not None else [interval * (k + 1) for k in range(count)]

def check_intervals(rows, interval, count, dues=None, clock=None, rotating=False):
    """The rows of each CPU, in time order, checked against what cpustat
    says of them, never against the time they took to come:
    - they stand for count intervals in all: a tick for 1, a gap row for
      the 2 or more its note says;
    - none is read before its sample time (the sample time of the last
      interval it stands for: dues[N - 1], by default N x interval);
    - what a row holds began once the previous row of its CPU was read,
      so after the sample time of that row, and for a tick after its own
      interval began (an interval before its sample time: after the rest,
      with -p, which is not counted); the counters were bound after the
      start. Task-clock counts the time of its CPU: a row holds no more
      than that time, up to its own time; and up to each row, the rows
      hold no more than the time of that row. The note of a gap row says
      the seconds it holds;
    - with sets taking turns (rotating), a set takes over once the
      previous row of its CPU was read: a row holds no more than the
      time since, and the LEAK of its previous turn.
    clock(r) says whether the first value of a row is task-clock (of
    every row when clock is None)."""
    by = ticks_by_cpu(rows)
    if sorted(by) != CPUS:
        die("rows for CPUs %r, want %r" % (sorted(by), CPUS))
    due = [0.0] + due_times(interval, count, dues)
    slack = ROUND + (LEAK if rotating else 0)
    for cpu, l in by.items():
        if sum(r.intervals for r in l) != count:
            die("cpu%d: rows stand for %r intervals, want %d in all" % (cpu, [r.intervals for r in l], count))
        n, held_sum, prev = 0, 0.0, 0.0
        for r in l:
            began = due[n]
            n += r.intervals
            if r.label == "tick":
                began = due[n] - interval
            elif r.intervals < 2:
                die("a gap row stands for 2 intervals or more: %r" % r.line)
            if r.time < due[n] - ROUND:
                die("cpu%d: read before its sample time %.3f: %r" % (cpu, due[n], r.line))
            if clock is None or clock(r):
                held = r.values[0] / 1e9
                held_sum += held
                if held > r.time - began + slack:
                    die("cpu%d: holds %.4f s, begun at %.3f s: %r" % (cpu, held, began, r.line))
                if held_sum > r.time + slack:
                    die("cpu%d: %.4f s counted by %.3f s: %r" % (cpu, held_sum, r.time, r.line))
                if rotating and held > r.time - prev + ROUND + slack:
                    die("cpu%d: holds %.4f s, %.3f s since its previous row: %r" % (cpu, held, r.time - prev, r.line))
                if r.label == "gap" and abs(r.secs - held) > 0.002:
                    die("the gap row does not say what it holds: %r" % r.line)
            prev = r.time
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

# rows_then_total FILE: the rows of FILE (the table) end with the total
# rows, each the sum of its set's rows over every measured CPU.
rows_then_total() {
	pycheck '
rows, _ = parse_table(sys.argv[1])
if rows[-1].label != "total":
    die("want the rows, then the total")
check_totals(rows, len(CPUS))
' "$1"
}

TICK_ROW='^ *[0-9]+\.[0-9]{3} +[0-9]+  tick '

# rows_of FILE [CPU]: how many tick and gap rows CPU has in FILE (the
# table format); without CPU, the fewest any measured CPU has.
rows_of() {
	awk -v cpus="${2:-$(cpu_list)}" '
	    $3 == "tick" || $3 == "gap" { n[$2]++ }
	    END {
		k = split(cpus, c, ",")
		for (i = 1; i <= k; i++)
			if (i == 1 || n[c[i]] + 0 < m)
				m = n[c[i]] + 0
		print m
	    }' "$1"
}

cpu_list() {
	"$PY" -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))'
}

# wait_rows FILE N [CPU]: until CPU (every measured CPU) has N tick and gap
# rows in FILE. A test that waits for a CPU's rows to come after
# something happened knows that the second of them was read after it: the
# first may have been read before, and written after.
wait_rows() {
	local cpus=${3:-$(cpu_list)}
	wait_for rows_at_least "$1" "$2" "$cpus" && return 0
	echo "no $2 rows of CPUs $cpus in $1:" >&2
	cat "$1" >&2
	return 1
}
rows_at_least() {
	[ "$(rows_of "$1" "$3")" -ge "$2" ]
}

# stopped PID: until PID is stopped (SIGSTOP delivered: state T), so that
# what it wrote so far is all it wrote before the stop.
stopped() {
	wait_for state_is "$1" T
}
state_is() {
	[ "$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null)" = "$2" ]
}

# A shell without job control (this one) starts a background job with
# SIGINT ignored, and cpustat keeps an ignored SIGINT ignored. A job that
# a test ends with SIGINT is started with it at its default, as from an
# interactive shell: env --default-signal=INT.

setup() {
	[ -x "${CPUSTAT:-}" ] || fail "CPUSTAT must name the cpustat binary (ctest sets it)"
	T=$BATS_TEST_TMPDIR
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
		if [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(readlink -f "$CPUSTAT")" ]; then
			kill -KILL "$p" 2>/dev/null || true
		fi
	done
	return 0
}
