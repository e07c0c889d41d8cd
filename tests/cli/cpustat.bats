#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cpustat against the real kernel: per-CPU rows, totals, set rotation,
# -p, -T, -t, -n, -s, --cpus, csv/json, signals, exclusivity, bad input
# and privileges. Expected values come from the kernel's own behaviour
# (time passes at one second per second on every CPU; a program makes a
# known number of system calls), never from a previous run of cpustat.

bats_require_minimum_version 1.5.0
load cpustat_helper

usage_text() {
	printf '%s\n' "Usage:" \
	    "	cpustat -c spec [-c spec]... [-p period] [-T u|d]" \
	    "		[-sntD] [--format=table|csv|json|trace|openmetrics|prometheus]" \
	    "		[--output=file | --output-fd=fd] [-C list | --cpus=list]" \
	    "		[--per-core | --per-die | --per-socket | --per-node |" \
	    "		 --per-cache[=Ln]]" \
	    "		[--shared | --exclusive] [--metrics] [-M name[,name]]" \
	    "		[--listen=addr:port] [--web-config=file] [--linger=secs]" \
	    "		[interval [count]]" \
	    "	cpustat --input=file [-M name[,name]] [--format=...]" \
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
	    "	--format=table|csv|json|trace|openmetrics|prometheus" \
	    "		  output format, default table" \
	    "	--output=file" \
	    "		  write cpu statistics to this file" \
	    "	--output-fd=fd" \
	    "		  write cpu statistics to this open descriptor" \
	    "	--listen=addr:port" \
	    "		  serve the counts as metrics over HTTP at /metrics" \
	    "	--web-config=file" \
	    "		  TLS and users for --listen (Prometheus's web config)" \
	    "	--linger=secs" \
	    "		  after the count of intervals, serve the final counts" \
	    "		  until a scrape takes them, secs at most (--listen)" \
	    "	--metrics" \
	    "		  add perf's derived metrics (insn per cycle, CPUs" \
	    "		  utilized, ...) to each row of counts" \
	    "	-M name[,name]" \
	    "		  count perf's metrics and metric groups of this CPU" \
	    "		  (TopdownL1, tma_retiring, MemoryBW: --list names them)" \
	    "	--metric-only" \
	    "		  print the metrics alone, a column each" \
	    "	--metric-no-group" \
	    "		  open each metric's events without a group" \
	    "	--metric-no-threshold" \
	    "		  show every metric, not only under crossed thresholds" \
	    "	--input=file" \
	    "		  print a JSON Lines record again instead of counting" \
	    "	--dry-run print what would be counted, and exit" \
	    "	-C list, --cpus=list" \
	    "		  measure only these CPUs (e.g. 0-3,6)" \
	    "	--per-core, --per-die, --per-socket, --per-node" \
	    "		  a row per core (S0-D0-C1), die (S0-D0), socket (S0)" \
	    "		  or NUMA node (N0), its CPUs summed, per interval" \
	    "	--per-cache[=Ln]" \
	    "		  a row per cache of level n (S0-D0-L3-ID0; without n," \
	    "		  the highest), its CPUs summed, per interval" \
	    "	--shared  count hardware events without holding counters" \
	    "		  (multiplexed with everyone)" \
	    "	--exclusive" \
	    "		  hold each CPU's whole PMU, as Solaris did" \
	    "	--list[=glob]" \
	    "		  list every countable event (matching glob), and exit" \
	    "	--help	  print this usage and exit" \
	    "	--version print the version and exit" \
	    "" \
	    "	Without -c, perf stat's default events, as far as this" \
	    "	machine counts them. perf users: -a and -A (what cpustat" \
	    "	does), -e event (-c), -I msec, -x sep, -j (--json), -o file." \
	    "" \
	    "	Use cputrack(1) to monitor per-process statistics."
}

# ---------------------------------------------------------------------
# Rows, title, per-CPU counts

@test "title line and row format are the original's, one row per CPU per interval" {
	run --separate-stderr "$CPUSTAT" -c task-clock,context-switches 0.2 3
	assert_success
	[ -z "$stderr" ]
	assert_equal "${lines[0]}" "   time cpu event      pic0      pic1 "
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, others = parse_table(sys.argv[1])
if others != ["   time cpu event      pic0      pic1 "]:
    die("unexpected lines %r" % others)
# An absolute schedule: the k-th interval ends at 0.2 k s. A sample time
# that passed before its thread could run is held by a gap row.
check_intervals(rows, 0.2, 3)
for r in rows:
    if len(r.values) != 2:
        die("want 2 values: %r" % r.line)
if [r.label for r in rows][-1] != "total":
    die("the total row must come last")
' "$T/out"
}

@test "task-clock counts its CPU's time, idle or not: all the time its counter is enabled, and no more than the rows' time" {
	run --separate-stderr "$CPUSTAT" --format=csv -c task-clock 0.25 4
	assert_success
	[ -z "$stderr" ]
	printf '%s\n' "$output" >"$T/out"
	pycheck '
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["label"] in ("tick", "gap"):
        by.setdefault(int(r["cpu"]), []).append(r)
if sorted(by) != CPUS:
    die("rows for CPUs %r, want %r" % (sorted(by), CPUS))
for cpu, l in by.items():
    if not 1 <= len(l) <= 4:
        die("cpu%d: %d rows for 4 intervals" % (cpu, len(l)))
    # A CPU'"'"'s software counter is never multiplexed: it runs all the
    # time it is enabled, and task-clock counts that time, ns for ns,
    # whatever the CPU does (the kernel reads the two together).
    if any(r["running_ns"] != r["enabled_ns"] for r in l):
        die("cpu%d: a software counter multiplexed: %r" % (cpu, l))
    clock = sum(int(r["task-clock"]) for r in l)
    enabled = sum(int(r["enabled_ns"]) for r in l)
    if abs(clock - enabled) > 1e6:
        die("cpu%d: task-clock %d ns, enabled %d ns" % (cpu, clock, enabled))
    # Enabled after the start, and read before each row'"'"'s time (in us).
    held = 0
    for r in l:
        held += int(r["enabled_ns"])
        if held > float(r["time"]) * 1e9 + 1e3:
            die("cpu%d: %d ns enabled by %s s" % (cpu, held, r["time"]))
' "$T/out"
}

@test "context switches are counted on the CPU where they happen" {
	cpu=$(last_cpu)
	env --default-signal=INT "$CPUSTAT" -c context-switches 0.1 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	# Its first rows: it counts on every CPU.
	wait_rows "$T/out" 1
	# 1000 sleeps on one CPU: each one switches the program out.
	taskset -c "$cpu" "$PY" -c '
import time
for i in range(1000):
    time.sleep(0.0001)
'
	wait_rows "$T/out" $(($(rows_of "$T/out" "$cpu") + 2)) "$cpu"
	kill -INT "$BG_PIDS"
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

@test "a tracepoint counts exactly what one CPU did: 20000 sched_rr_get_interval calls" {
	ensure_tracefs
	# A system call nothing else on the machine makes.
	local call=syscalls:sys_enter_sched_rr_get_interval
	[ -d "/sys/kernel/tracing/events/${call/://}" ] ||
		skip "no $call tracepoint in this kernel"
	cpu=$(last_cpu)
	env --default-signal=INT "$CPUSTAT" -c "$call" 0.1 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_rows "$T/out" 1
	taskset -c "$cpu" "$PY" -c '
import os
for i in range(20000):
    os.sched_rr_get_interval(0)
'
	wait_rows "$T/out" $(($(rows_of "$T/out" "$cpu") + 2)) "$cpu"
	kill -INT "$BG_PIDS"
	bg_wait
	[ ! -s "$T/err" ]
	pycheck '
cpu = int(sys.argv[2])
rows, _ = parse_table(sys.argv[1])
by = ticks_by_cpu(rows)
n = sum(r.values[0] for r in by[cpu])
others = sum(r.values[0] for c, l in by.items() if c != cpu for r in l)
if n != 20000 or others != 0:
    die("cpu%d counted %d calls, the others %d; want 20000 and 0" % (cpu, n, others))
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
# A slice holds what its set counted since the CPU'"'"'s previous row, never
# more; a sample time missed makes a gap row, after which the next set
# takes its turn.
by = check_intervals(rows, 0.1, 6, clock=lambda r: r.spec == specs[1], rotating=True)
for cpu, l in by.items():
    got = [r.spec for r in l]
    if got != (specs * 2)[:len(l)]:
        die("cpu%d: sets %r, want them in turn" % (cpu, got))
    for r in l:
        if len(r.values) != (2 if r.spec == specs[1] else 1):
            die("wrong number of values: %r" % r.line)
check_totals(rows, len(CPUS))
totals = [r.spec for r in rows if r.label == "total"]
if totals != [t for t in specs if t in {r.spec for r in rows if r.label != "total"}]:
    die("totals in set order wanted: %r" % totals)
' "$T/out"
}

# ---------------------------------------------------------------------
# -p, -T, -t, -n, -s

@test "-p: with 2 sets, interval 0.2 and -p 1, rows come in cycles with a rest between, and none after the last" {
	run --separate-stderr "$CPUSTAT" -p 1 -c context-switches -c task-clock 0.2 2
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1])
# The count counts cycles: 2 cycles of 2 sets. Each cycle is one period
# (1 s): 2 samples of 0.2 s, then 0.6 s of rest, which is not counted.
by = check_intervals(rows, 0.2, 4, dues=[0.2, 0.4, 1.2, 1.4],
    clock=lambda r: r.spec == "task-clock", rotating=True)
for cpu, l in by.items():
    if [r.spec for r in l] != ["context-switches", "task-clock"] * (len(l) // 2) + ["context-switches"] * (len(l) % 2):
        die("cpu%d sets %r" % (cpu, [r.spec for r in l]))
check_totals(rows, len(CPUS))
' "$T/out"
	# No rest after the last cycle: a run of one cycle of 0.1 s ends with
	# its sample, not after the rest of a 60 s period.
	run --separate-stderr timeout 30 "$CPUSTAT" -p 60 -c task-clock 0.1 1
	assert_success
	[ "$(grep -c ' tick ' <<<"$output")" -eq "$(ncpus)" ]
}

@test "-p also works with a single set (the original ignored it), and the rest is not counted" {
	run --separate-stderr "$CPUSTAT" -t -p 0.5 -c task-clock 0.2 3
	assert_success
	assert_equal "${lines[0]}" "   time cpu event       tsc      pic0 "
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1], tick=True)
# Samples at 0.2, 0.7 and 1.2 s: each tick holds its own 0.2 s at most,
# never the 0.3 s rest before it.
by = check_intervals(rows, 0.2, 3, dues=[0.2, 0.7, 1.2])
for cpu, l in by.items():
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
body, i, nrows, last = lines[1:], 0, 0, before
row = re.compile(r" *[0-9.]+ +[0-9]+ +(tick|gap) ")
while i + 1 < len(body) and row.match(body[i + 1]):
    # Read while the run ran, rows in time order.
    if not re.fullmatch(r"[0-9]+", body[i]) or not last <= int(body[i]) <= after:
        die("want a unix time before %r, got %r" % (body[i + 1], body[i]))
    last = int(body[i])
    nrows += 1
    i += 2
# A row per CPU per interval; a sample time missed makes one gap row of 2.
if not len(CPUS) <= nrows <= 2 * len(CPUS):
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
# soak_watch PID MODE: watch the soakers of cpustat PID, its rows in
# $T/out, until they did what MODE says (60 s at most, a bound for a run
# that hangs), and check that there is one per CPU, pinned there:
#   spin   each one is spinning (runnable: R) from the time it is first
#          seen so, to the end, and runs: its CPU time grows;
#   sleep  each one is seen asleep (S) twice, two rows of every CPU apart,
#          its CPU time the same: it did not run in between;
#   both   each one is seen spinning, then asleep, then spinning again.
# What it checks is the soakers' state, not the CPU time they got: a
# SCHED_IDLE thread runs only when nothing else wants its CPU, and on a
# busy machine it may wait a long time for that.
soak_watch() {
	"$PY" - "$1" "$2" "$T/out" "$(cpu_list)" <<'EOF'
import glob, os, sys, time

pid, mode, rows_file = sys.argv[1], sys.argv[2], sys.argv[3]
cpus = sorted(int(c) for c in sys.argv[4].split(","))

def rows_per_cpu():
    n = dict.fromkeys(cpus, 0)
    for line in open(rows_file):
        f = line.split()
        if len(f) > 3 and f[2] in ("tick", "gap"):
            n[int(f[1])] = n.get(int(f[1]), 0) + 1
    return n

def soakers():
    """cpu: (state, ns run) of each SCHED_IDLE thread, by its CPU."""
    out = {}
    for t in glob.glob("/proc/%s/task/*" % pid):
        try:
            stat = open(t + "/stat").read().rsplit(") ", 1)[1].split()
            # Field 41 of stat is the policy; SCHED_IDLE is 5.
            if stat[38] != "5":
                continue
            allowed = [l.split()[1] for l in open(t + "/status")
                       if l.startswith("Cpus_allowed_list")][0]
            if not allowed.isdigit() or int(allowed) in out:
                sys.exit("a soaker is not pinned to a CPU of its own: %s" % allowed)
            out[int(allowed)] = (stat[0], int(open(t + "/schedstat").read().split()[0]))
        except (OSError, IndexError):
            pass
    return out

deadline = time.monotonic() + 60
seen = {c: [] for c in cpus}
first = {}
while True:
    if time.monotonic() > deadline:
        sys.exit("after 60 s, what the soakers did: %r" % {c: "".join(s) for c, s in seen.items()})
    now = soakers()
    if sorted(now) != cpus:
        if not os.path.exists("/proc/%s" % pid):
            sys.exit("cpustat ended")
        time.sleep(0.01)
        continue
    done = True
    for c, (state, ran) in now.items():
        s = seen[c]
        if not s or s[-1] != state:
            s.append(state)
        if mode == "spin":
            if state == "R" and c not in first:
                first[c] = ran
            if c in first and state != "R":
                sys.exit("the soaker of cpu%d stopped spinning (%s)" % (c, state))
            done = done and c in first and ran > first[c]
        elif mode == "sleep":
            # Seen asleep: from then on, until it is seen otherwise.
            if state != "S" or (c in first and ran != first[c][0]):
                first.pop(c, None)
            elif c not in first:
                first[c] = (ran, rows_per_cpu())
            done = done and c in first and all(
                n >= first[c][1][k] + 2 for k, n in rows_per_cpu().items())
        else:
            done = done and "RSR" in "".join(x for x in s if x in "RS")
    if done:
        break
    time.sleep(0.01)
print("soakers: %r" % {c: "".join(s) for c, s in seen.items()})
EOF
}

@test "-s: soaker threads spin on every CPU while a system-only set is bound" {
	env --default-signal=INT "$CPUSTAT" -s -c context-switches,nouser,sys 0.5 \
	    >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	# Its first rows: it counts, and a signal ends it with its totals.
	wait_rows "$T/out" 1
	soak_watch "$BG_PIDS" spin
	kill -INT "$BG_PIDS"
	bg_wait
	[ ! -s "$T/err" ]
}

@test "-s: soakers stay asleep while the bound set counts user mode" {
	env --default-signal=INT "$CPUSTAT" -s -c context-switches 0.5 \
	    >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	# Its first rows: it counts, and a signal ends it with its totals.
	wait_rows "$T/out" 1
	soak_watch "$BG_PIDS" sleep
	kill -INT "$BG_PIDS"
	bg_wait
	[ ! -s "$T/err" ]
}

@test "-s with sets rotating: soakers spin in the system-only slices, and sleep in the others" {
	env --default-signal=INT "$CPUSTAT" -s -c context-switches \
	    -c context-switches,nouser,sys 0.5 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	# Its first rows: it counts, and a signal ends it with its totals.
	wait_rows "$T/out" 1
	soak_watch "$BG_PIDS" both
	kill -INT "$BG_PIDS"
	bg_wait
	[ ! -s "$T/err" ]
}

# ---------------------------------------------------------------------
# CPUs

@test "--cpus=0 measures CPU 0 only; the total's cpu field reads all, not CPU 1" {
	"$PY" -c 'import os, sys; sys.exit(0 in os.sched_getaffinity(0) and 1)' &&
		skip "CPU 0 is not in our affinity mask"
	run --separate-stderr "$CPUSTAT" --cpus=0 -c task-clock 0.1 2
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1])
if sorted(ticks_by_cpu(rows)) != [0]:
    die("want rows for cpu0 only")
check_totals(rows, "all")
' "$T/out"
	# The machine formats say how many.
	run --separate-stderr "$CPUSTAT" --cpus=0 --format=json -c task-clock 0.1 1
	assert_success
	printf '%s\n' "$output" >"$T/json"
	pycheck '
total = [json.loads(l) for l in open(sys.argv[1])][-1]
if total["label"] != "total" or total["ncpus"] != 1:
    die("want a total of 1 CPU: %r" % total)
' "$T/json"
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

# ---------------------------------------------------------------------
# Machine-readable output

@test "--format=csv: the header first, one column per event, the run's facts, numbers as numbers" {
	run --separate-stderr "$CPUSTAT" --format=csv -c context-switches \
	    -c task-clock,context-switches 0.1 4
	assert_success
	assert_equal "${lines[0]}" "time,pid,lwp,tid,cpu,ncpus,label,set,enabled_ns,running_ns,tsc,context-switches,task-clock,proc,child,args,not_counted,partial,key,value"
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
ticks = [r for r in rows if r["label"] in ("tick", "gap")]
totals = [r for r in rows if r["label"] == "total"]
if len(totals) != 2:
    die("%d totals" % len(totals))
# A row per CPU per interval; a sample time missed makes one gap row of
# several.
for cpu in CPUS:
    mine = [r for r in ticks if int(r["cpu"]) == cpu]
    if not 1 <= len(mine) <= 4 or (len(mine) < 4 and all(r["label"] == "tick" for r in mine)):
        die("cpu%d: rows %r for 4 intervals" % (cpu, [r["label"] for r in mine]))
last, prev = 0.0, {}
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
    if r["label"] in ("tick", "gap"):
        if int(r["cpu"]) not in CPUS or r["ncpus"] != "":
            die("bad cpu %r" % r)
        # The sets take turns: a row holds what its set counted since the
        # CPU'"'"'s previous row (times in us), or since the start, and the
        # LEAK of its previous turn.
        en, cpu = int(r["enabled_ns"]), int(r["cpu"])
        since = float(r["time"]) - prev.get(cpu, 0.0)
        if en > (since + LEAK) * 1e9 + 1e3 or int(r["running_ns"]) > en:
            die("a row counts its own interval, %.6f s: %r" % (since, r))
        prev[cpu] = float(r["time"])
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
for k in ("tool_version", "host", "start", "start_epoch_ns", "machine"):
    if k not in head:
        die("%s missing from the head %r" % (k, head))
machine = head.pop("machine")
for k in ("tool_version", "host", "start", "start_epoch_ns"):
    del head[k]
# The facts --input needs: the CPU id, and CPUs counted system-wide.
if not machine["cpuid"] or machine["num_cpus_online"] < len(CPUS) or not machine["system_wide"]:
    die("machine %r" % machine)
if head != {"schema": "cpctools", "version": 2, "tool": "cpustat", "per_unit": None, "sets": [
        {"set": 0, "spec": "context-switches", "events": [{"name": "context-switches", "unit": "count"}]},
        {"set": 1, "spec": "task-clock", "events": [{"name": "task-clock", "unit": "ns"}]}]}:
    die("head object %r" % head)
isint = lambda v: type(v) is int
for r in rows:
    for k in ("time", "pid", "proc", "lwp", "tid", "cpu", "ncpus", "label", "set", "spec", "counters", "enabled_ns", "running_ns", "tsc", "not_counted", "partial"):
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
ticks = [r for r in rows if r["label"] in ("tick", "gap")]
totals = [r for r in rows if r["label"] == "total"]
# A row per CPU per interval; a sample time missed makes one gap row of 2.
if not len(CPUS) <= len(ticks) <= 2 * len(CPUS) or [t["set"] for t in totals] != [0, 1][:len({r["set"] for r in ticks})]:
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
	# Block buffering would hold the rows back until a buffer was full
	# (4 KiB: a hundred rows) or the run ended.
	wait_rows "$T/out" 1
	[ "$(stat -c %s "$T/out")" -lt 4096 ]
	running "$BG_PIDS"
	kill -INT "$BG_PIDS"
	bg_wait
}

# ---------------------------------------------------------------------
# Signals

@test "SIGINT, SIGTERM and SIGHUP mid-run print the totals and exit 0" {
	for sig in INT TERM HUP; do
		# The run before's rows would do for wait_rows: the background
		# job empties the file in its own time.
		rm -f "$T/out" "$T/err"
		env --default-signal=INT "$CPUSTAT" -c context-switches,task-clock 0.1 >"$T/out" 2>"$T/err" 3>&- &
		BG_PIDS=$!
		wait_rows "$T/out" 2
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

# A stop that comes after a sample time, before the CPUs' threads have
# taken it: cpustat is stopped (SIGSTOP) before its first sample time,
# and SIGTERM comes while it is stopped, after that time. When it goes
# on, each CPU's thread still takes the sample that was due: every CPU
# has its row and the total holds them all, exit 0. It took none where
# the thread saw the stop first, or only some ("1 of 2 CPUs not
# counted", exit 1: seen in CI, a SIGTERM just after a sample time on a
# loaded machine, one CPU's thread not yet awake).
@test "a stop after a sample time: every CPU still counts the interval that was due" {
	local n
	for n in 1 2 3; do
		# The run before's header would do for wait_for, and its
		# stop would come before cpustat's start.
		rm -f "$T/out" "$T/err"
		env --default-signal=INT "$CPUSTAT" -c task-clock 0.3 >"$T/out" 2>"$T/err" 3>&- &
		BG_PIDS=$!
		wait_for grep -q '^ *time' "$T/out"
		kill -STOP "$BG_PIDS"
		sleep 0.45 # not a wait: stopped past its first sample time (0.3 s); at most 3 tries
		kill -TERM "$BG_PIDS"
		kill -CONT "$BG_PIDS"
		rc=0
		bg_wait || rc=$?
		cat "$T/out" "$T/err"
		[ "$rc" -eq 0 ]
		[ ! -s "$T/err" ]
		[ "$(rows_of "$T/out")" -ge 1 ]
		rows_then_total "$T/out"
	done
}

# sig_awaited PID: PID's main thread waits for its signals (in
# sigtimedwait, its wchan says), every other thread blocking them: a
# signal sent before could reach a thread that does not block it yet (a
# sanitizer's own), and end the process by its default action.
sig_awaited() {
	grep -q sigtimedwait "/proc/$1/wchan" 2>/dev/null
}

@test "a signal before the first interval ends: the total says so, no error, exit 0" {
	for sig in INT TERM; do
		env --default-signal=INT "$CPUSTAT" -c task-clock 30 >"$T/out" 2>"$T/err" 3>&- &
		BG_PIDS=$!
		wait_while "$BG_PIDS" sig_awaited "$BG_PIDS"
		kill -"$sig" "$BG_PIDS"
		rc=0
		bg_wait || rc=$?
		echo "SIG$sig: exit $rc"
		cat "$T/out" "$T/err"
		[ "$rc" -eq 0 ]
		[ ! -s "$T/err" ]
		run ! grep -q ' tick ' "$T/out"
		# Not a 0: nothing was summed.
		grep -qE "^ +[0-9.]+ +0 total +- # not counted: the run was stopped before the set's first interval ended\$" "$T/out"
	done
}

# sig_ignored PID SIG: SIG is ignored by PID (the SigIgn mask of /proc).
sig_ignored() {
	local mask
	mask=$(awk '/^SigIgn:/ { print $2 }' "/proc/$1/status")
	(((0x$mask >> ($(kill -l "$2") - 1)) & 1))
}

# still_counting PID FILE N: PID, alive, gives FILE N more rows of every
# CPU.
still_counting() {
	wait_while "$1" rows_at_least "$2" $(($(rows_of "$2") + $3)) "$(cpu_list)"
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
	wait_rows "$T/out" 1
	sig_ignored "$BG_PIDS" "$sig"
	kill -"$sig" "$BG_PIDS"
	still_counting "$BG_PIDS" "$T/out" 2
	kill -"$ender" "$BG_PIDS"
	bg_wait || rc=$?
	echo "SIG$sig ignored, then SIG$ender: exit $rc"
	[ "$rc" -eq 0 ]
	[ ! -s "$T/err" ]
	rows_then_total "$T/out"
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
	wait_rows "$T/out" 1
	# A row of every CPU, and no total: it goes on.
	running "$BG_PIDS"
	run ! grep -q ' total ' "$T/out"
	kill -INT "$BG_PIDS"
	bg_wait
	[ ! -s "$T/err" ]
	pycheck '
rows, _ = parse_table(sys.argv[1])
for cpu, l in ticks_by_cpu(rows).items():
    # The first row stands for the sample times that passed before it was
    # read, 5 s apart: read after the last of them, before the next.
    n = l[0].intervals
    if not 5.0 * n - ROUND <= l[0].time < 5.0 * (n + 1) + ROUND:
        die("cpu%d: a row of %d intervals at %.3f s" % (cpu, n, l[0].time))
' "$T/out"
}

# ---------------------------------------------------------------------
# Missed intervals: a stopped cpustat (SIGSTOP, as a debugger or Ctrl-Z
# would) misses sample times. When it runs again, each CPU's next row is a
# gap row holding all the intervals since its previous row, and saying
# so; ticks keep to their own intervals; the count counts intervals. A
# stop of S seconds lasts S seconds at least: the row read after it holds
# all of it, and every sample time that passed meanwhile. The runs last
# long enough for the test to stop them on a slow machine, where it may
# take seconds to see their first rows.

# stop_run PID SECONDS: stop PID for SECONDS (from when it is stopped),
# then let it go on.
stop_run() {
	kill -STOP "$1"
	stopped "$1"
	sleep "$2" # not a wait: the stop lasts SECONDS
	kill -CONT "$1"
}

# asleep PID: until every thread of PID sleeps: cpustat's CPU threads
# have done what follows their rows, and wait for a sample time.
asleep() {
	wait_for all_threads_sleep "$1"
}
all_threads_sleep() {
	! grep -qv '^S$' <(awk '{ sub(/^.*\) /, ""); print $1 }' /proc/"$1"/task/*/stat)
}

@test "stopped for 2.5 intervals: a gap row per CPU holds them, saying how many; ticks hold their own interval; the count counts intervals" {
	"$CPUSTAT" -c task-clock,context-switches 0.2 50 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_rows "$T/out" 1
	asleep "$BG_PIDS"
	stop_run "$BG_PIDS" 0.5
	bg_wait
	cat "$T/out" "$T/err"
	# Nothing was lost: nothing to say on stderr, and status 0.
	[ ! -s "$T/err" ]
	pycheck '
rows, _ = parse_table(sys.argv[1])
# 50 intervals of 0.2 s, whatever was missed: the last sample is due at
# 10 s, and the rows stand for 50 intervals, fewer rows than that.
by = check_intervals(rows, 0.2, 50)
for cpu, l in by.items():
    # The stop, 0.5 s: a gap row of 2 intervals or more holds it.
    if not [r for r in l if r.label == "gap" and r.secs >= 0.5 - ROUND]:
        die("cpu%d: want a gap row for the stop: %r" % (cpu, [r.line for r in l]))
# The totals sum the ticks and the gap rows, of every CPU.
totals = [r for r in rows if r.label == "total"]
if len(totals) != 1 or totals[0].cpu != len(CPUS):
    die("want one total of %d CPUs: %r" % (len(CPUS), [r.line for r in totals]))
if totals[0].values != [sum(r.values[i] for r in rows if r.label != "total") for i in range(2)]:
    die("the total is not the sum of the tick and gap rows")
' "$T/out"
}

@test "stopped past the end of the count: the run ends as soon as it runs again, its gap rows holding the intervals left" {
	"$CPUSTAT" -c task-clock 0.2 50 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_rows "$T/out" 1
	# Stopped longer than the whole run.
	asleep "$BG_PIDS"
	stop_run "$BG_PIDS" 11
	bg_wait
	cat "$T/out" "$T/err"
	[ ! -s "$T/err" ]
	pycheck '
rows, _ = parse_table(sys.argv[1])
by = check_intervals(rows, 0.2, 50)
for cpu, l in by.items():
    # The intervals left were over while it was stopped: one gap row,
    # the last, stands for them all, and holds the stop.
    if l[-1].label != "gap" or l[-1].secs < 11 - ROUND:
        die("cpu%d: want the last row a gap row holding the stop: %r" % (cpu, [r.line for r in l]))
if rows[-1].label != "total" or rows[-1].cpu != len(CPUS):
    die("want the total of every CPU last")
' "$T/out"
}

@test "-p: a stop across a rest is held by a gap row, rest and all; the count still counts cycles" {
	# Samples at 0.2 0.4 | rest | 5.2 5.4 | rest | 10.2 10.4; stopped in
	# the first rest, once every CPU's threads wait for its end, for 5.5 s:
	# past the rest and the second cycle's sample times.
	"$CPUSTAT" -p 5 -c task-clock -c context-switches 0.2 3 >"$T/out" 2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_rows "$T/out" 2
	asleep "$BG_PIDS"
	stop_run "$BG_PIDS" 5.5
	bg_wait
	cat "$T/out" "$T/err"
	[ ! -s "$T/err" ]
	pycheck '
rows, _ = parse_table(sys.argv[1])
by = check_intervals(rows, 0.2, 6, dues=[0.2, 0.4, 5.2, 5.4, 10.2, 10.4],
    clock=lambda r: r.spec == "task-clock", rotating=True)
for cpu, l in by.items():
    gaps = [r for r in l if r.label == "gap"]
    # Task-clock took over when the rest began: it holds the rest and the
    # stop, more than the time since the rest ended (5.0 s) would be.
    if len(gaps) != 1 or gaps[0].spec != "task-clock" or gaps[0].values[0] / 1e9 <= gaps[0].time - 5.0 + 2 * ROUND:
        die("cpu%d: want one gap row of task-clock holding the rest: %r" % (cpu, [r.line for r in l]))
    # Before it, the first cycle; after it, the sets take turns again.
    if [r.spec for r in l] != ["task-clock", "context-switches", "task-clock", "context-switches", "task-clock"]:
        die("cpu%d: sets %r" % (cpu, [r.line for r in l]))
if [r.spec for r in rows if r.label == "total"] != ["task-clock", "context-switches"]:
    die("want a total per set")
' "$T/out"
}

@test "gap rows in CSV, JSON and the metrics: labelled gap, enabled_ns their real length; cpustat_gap_intervals_total counts them" {
	local fmt
	for fmt in json csv; do
		"$CPUSTAT" --format=$fmt -c task-clock -c context-switches 0.2 50 \
		    >"$T/$fmt" 2>"$T/err" 3>&- &
		BG_PIDS=$!
		wait_line "$T/$fmt" '"label":"tick"|,tick,'
		asleep "$BG_PIDS"
		stop_run "$BG_PIDS" 0.5
		bg_wait
		[ ! -s "$T/err" ]
	done
	pycheck '
def check(rows, fmt):
    by = {}
    for r in rows:
        if r["label"] in ("tick", "gap"):
            by.setdefault(int(r["cpu"]), []).append(r)
    if sorted(by) != CPUS:
        die("%s: rows for CPUs %r" % (fmt, sorted(by)))
    for cpu, l in by.items():
        prev = 0.0
        for r in l:
            t, en = float(r["time"]), int(r["enabled_ns"])
            # The sets take turns: a row holds what its set counted since
            # the CPU'"'"'s previous row was read (times in us), and the
            # LEAK of its previous turn.
            if en > (t - prev + LEAK) * 1e9 + 1e3:
                die("%s: enabled_ns is more than the row'"'"'s length: %r" % (fmt, r))
            prev = t
        # The stop, 0.5 s: a gap row holds it, and a gap row stands for 2
        # intervals or more: fewer rows than intervals.
        if not [r for r in l if r["label"] == "gap" and int(r["enabled_ns"]) >= 0.5e9]:
            die("%s: cpu%d: no gap row holds the stop: %r" % (fmt, cpu, l))
        if len(l) >= 50:
            die("%s: cpu%d: %d rows for 50 intervals" % (fmt, cpu, len(l)))
check([json.loads(l) for l in open(sys.argv[1])][1:], "json")
check([r for r in csv.DictReader(open(sys.argv[2])) if r["label"] != "meta"], "csv")
' "$T/json" "$T/csv"
	# The metrics: the intervals of gap rows. The file is replaced at each
	# row: stopped once the first rows are in, for 2.5 intervals at least.
	"$CPUSTAT" --format=openmetrics --output="$T/om" -c task-clock 0.5 20 \
	    2>"$T/err" 3>&- &
	BG_PIDS=$!
	wait_line "$T/om" '^cpustat_event_seconds_total'
	asleep "$BG_PIDS"
	stop_run "$BG_PIDS" 1.2
	bg_wait
	[ ! -s "$T/err" ]
	cat "$T/om"
	pycheck '
gaps = {}
for line in open(sys.argv[1]):
    m = re.match(r"cpustat_gap_intervals_total\{cpu=\"([0-9]+)\",set=\"0\"\} ([0-9]+)$", line)
    if m:
        gaps[int(m.group(1))] = int(m.group(2))
if sorted(gaps) != CPUS:
    die("want cpustat_gap_intervals_total for every CPU: %r" % gaps)
if any(not 2 <= v <= 20 for v in gaps.values()):
    die("gap intervals %r, stopped 2.4 intervals" % gaps)
' "$T/om"
	# Never stopped: every CPU has it, 0 where its rows had no gap (and a
	# gap row holds 2 intervals or more).
	run --separate-stderr "$CPUSTAT" --format=openmetrics --output="$T/om" -c task-clock 0.1 3
	assert_success
	pycheck '
gaps = {}
for line in open(sys.argv[1]):
    m = re.match(r"cpustat_gap_intervals_total\{cpu=\"([0-9]+)\",set=\"0\"\} ([0-9]+)$", line)
    if m:
        gaps[int(m.group(1))] = int(m.group(2))
if sorted(gaps) != CPUS or any(v not in (0, 2, 3) for v in gaps.values()):
    die("want cpustat_gap_intervals_total 0, 2 or 3 for every CPU: %r" % gaps)
' "$T/om"
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
    check_totals(rows, "all")
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
	wait_line "$T/first" "$TICK_ROW"
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

@test "--exclusive holds nothing for software events: a second cpustat counts beside it, exit 0" {
	env --default-signal=INT "$CPUSTAT" --exclusive -c task-clock 0.2 >"$T/first" 2>"$T/first.err" 3>&- &
	BG_PIDS=$!
	wait_line "$T/first" "$TICK_ROW"
	run --separate-stderr "$CPUSTAT" --exclusive -c task-clock 0.1 2
	assert_success
	[ -z "$stderr" ]
	printf '%s\n' "$output" >"$T/out"
	pycheck '
rows, _ = parse_table(sys.argv[1])
if sorted(ticks_by_cpu(rows)) != sorted(CPUS):
    die("every CPU should have been measured: %r" % sorted(ticks_by_cpu(rows)))
' "$T/out"
	kill -INT "$BG_PIDS"
	bg_wait
	[ ! -s "$T/first.err" ]
}

@test "with a PMU: two default cpustats of cycles count side by side; a second --exclusive is refused on every CPU with the cause" {
	require_pmu
	env --default-signal=INT "$CPUSTAT" -c cycles 0.2 >"$T/first" 2>"$T/first.err" 3>&- &
	BG_PIDS=$!
	wait_line "$T/first" "$TICK_ROW"
	run --separate-stderr "$CPUSTAT" -c cycles 0.1 2
	assert_success
	run --separate-stderr "$CPUSTAT" --exclusive -c cycles 0.1 1
	assert_failure 1
	for cpu in $("$PY" -c 'import os; print(*sorted(os.sched_getaffinity(0)))'); do
		grep -qF "cpustat: cpu$cpu - Resource temporarily unavailable: holding the whole PMU of cpu$cpu needs all its " <<<"$stderr" ||
			fail "no line for cpu$cpu: $stderr"
	done
	grep -qxF "cpustat: without --exclusive, cpustat counts beside them" <<<"$stderr"
	kill -INT "$BG_PIDS"
	bg_wait
	[ ! -s "$T/first.err" ]
}

@test "after a cpustat is killed with SIGKILL, the next cpustat runs" {
	"$CPUSTAT" -c task-clock 0.2 >"$T/first" 2>&1 3>&- &
	BG_PIDS=$!
	wait_line "$T/first" "$TICK_ROW"
	kill -KILL "$BG_PIDS"
	bg_wait || true
	run --separate-stderr "$CPUSTAT" -c task-clock 0.1 1
	assert_success
	[ -z "$stderr" ]
}

# ---------------------------------------------------------------------
# Bad input

# bad_input EXPECTED-MESSAGE ARGS...: exit 2, and the message alone on
# stderr, one line (the usage is -h's).
bad_input() {
	local msg=$1
	shift
	run --separate-stderr "$CPUSTAT" "$@"
	echo "cpustat $*: $status: $stderr"
	assert_failure 2
	[ -z "$output" ]
	assert_equal "$stderr" "$msg"
}

@test "bad intervals and counts: invalid argument, one line, exit 2" {
	for arg in 0 -1 abc 1x 0.0001 -0.5 inf nan ''; do
		bad_input "cpustat: invalid argument \"$arg\"" -c task-clock "$arg"
	done
	for count in 0 -1 abc 1.5 1x; do
		bad_input "cpustat: invalid argument \"$count\"" -c task-clock 1 "$count"
	done
	bad_input 'cpustat: too many operands: "3" (an interval and a count at most)' -c task-clock 1 2 3
}

@test "perf stat's -a CMD and letters cpustat refuses: one line saying what to type, exit 2" {
	bad_input "cpustat: -a sleep 1: cpustat counts the machine for interval [count], not a command's life: type cpustat 1 1" -a sleep 1
	bad_input "cpustat: -a make: cpustat counts the machine for interval [count], not a command's life: type cpustat secs 1, or cputrack make for the command alone" -a -c task-clock make all
	bad_input "cpustat: -i: cpustat counts whole CPUs, where no task inherits counters: drop -i (perf's --no-inherit)" -a -i -c task-clock 1 1
	bad_input "cpustat: -g: each -c set is counted as one group already: drop -g (perf's --group)" -g -c task-clock
	bad_input "cpustat: -d: cpustat has no detailed sets: name the events with -c, or a metric group with -M (perf's -d)" -d 1 1
	bad_input "cpustat: -v: cpustat's -D says what it does (perf's --verbose)" -v -c task-clock
	bad_input "cpustat: -B: cpustat prints plain numbers: drop -B (perf's --big-num)" -B -c task-clock
	bad_input "cpustat: -q: cpustat has no quiet mode: send the rows to a file with -o file (perf's --quiet)" -q -c task-clock
	bad_input "cpustat: -S: cpustat calls no sync(): drop -S (perf's --sync)" -S -c task-clock
	bad_input "cpustat: --per-thread: cpustat counts whole CPUs; a row per thread is cputrack's (cputrack -p pid)" --per-thread -c task-clock
	bad_input "cpustat: --timeout=1500: cpustat stops after interval [count]: type cpustat 1.5 1" --timeout 1500 -c task-clock
	bad_input "cpustat: --timeout=x: not a number of milliseconds; cpustat stops after interval [count]: type cpustat secs 1" --timeout=x -c task-clock
	bad_input "cpustat: --interval-count=3: cpustat's count is an operand: type cpustat -I msec 3" --interval-count 3 -c task-clock
	# Without -a, a word is a bad interval still, as the original said.
	bad_input 'cpustat: invalid argument "sleep"' -c task-clock sleep 1
}

@test "-o FILE, perf's letter, writes the rows to FILE as --output does" {
	out=$BATS_TEST_TMPDIR/o.txt
	run --separate-stderr "$CPUSTAT" -a -o "$out" -c task-clock 0.1 1
	assert_success
	[ -z "$output" ] || fail "stdout not empty: $output"
	[ -z "$stderr" ] || fail "stderr not empty: $stderr"
	run cat "$out"
	assert_line --index 0 --regexp '^ +time +cpu +event +pic0 *$'
	assert_line --regexp '^ +0\.[0-9]+ +[0-9]+ +total +[0-9]+ *$'
}

@test "bad -T, -p, spec, option: one line each, exit 2" {
	bad_input 'cpustat: invalid argument "x" for -T (u or d)' -T x -c task-clock
	bad_input 'cpustat: invalid parameter "abc"' -p abc -c task-clock
	bad_input 'cpustat: invalid parameter "-1"' -p -1 -c task-clock
	bad_input 'cpustat: invalid parameter "1s"' -p 1s -c task-clock
	bad_input "cpustat: bad token 'foo=bar'" -c task-clock,foo=bar
	bad_input "cpustat: repeated 'pic0' token" -c pic0=task-clock,pic0=cs
	# A name of no event: one line, with the nearest names, no usage.
	run --separate-stderr "$CPUSTAT" -c foo
	assert_failure 2
	assert_equal "$stderr" "cpustat: bad token 'foo': no event has that name (--list lists them)"
	run --separate-stderr "$CPUSTAT" -D -c task-clok 1 1
	assert_failure 2
	assert_equal "$stderr" "cpustat: cpc_strtoset: bad token 'task-clok'; did you mean task-clock?"
	bad_input "cpustat: invalid option -- 'Z'" -Z -c task-clock
	bad_input "cpustat: option requires an argument -- 'c'" -c
	bad_input "cpustat: unrecognized option '--bogus'" --bogus -c task-clock
	bad_input 'cpustat: invalid format "xml" (table, csv, json, trace, openmetrics or prometheus)' --format=xml -c task-clock
	bad_input 'cpustat: invalid CPU list "1-0"' --cpus=1-0 -c task-clock
	bad_input 'cpustat: invalid CPU list "x"' --cpus=x -c task-clock
	bad_input 'cpustat: --shared and --exclusive exclude each other' --shared --exclusive -c task-clock
	bad_input 'cpustat: --shared and --exclusive exclude each other' --exclusive --shared -c task-clock
}

@test "no argument at all: the usage on stderr, exit 2" {
	run --separate-stderr "$CPUSTAT"
	assert_failure 2
	[ -z "$output" ]
	assert_equal "$stderr" "$(usage_text)"
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
