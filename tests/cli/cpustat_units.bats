#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cpustat --per-core, --per-die, --per-socket, --per-node, --per-cache and -C against
# the real kernel: one row per unit per interval, named from this
# machine's sysfs topology (read here by the test itself), each the exact
# sum of its CPUs' counts, the units of an interval in their order: the
# rows of a run add up to its total, which cpustat sums from each CPU's
# own counters, and a tracepoint that one CPU alone hits is counted, all
# of it, in that CPU's unit.

bats_require_minimum_version 1.5.0
load cpustat_helper

# The units this machine's CPUs fall in, read from sysfs by Python.
UNITS='
def topo(cpu, name):
    p = "/sys/devices/system/cpu/cpu%d/topology/%s" % (cpu, name)
    return int(open(p).read()) if os.path.exists(p) else 0

def node(cpu):
    base = "/sys/devices/system/node"
    if not os.path.isdir(base):
        return 0
    for d in os.listdir(base):
        if re.fullmatch(r"node[0-9]+", d):
            text = open("%s/%s/cpulist" % (base, d)).read().strip()
            for part in filter(None, text.split(",")):
                lo, _, hi = part.partition("-")
                if int(lo) <= cpu <= int(hi or lo):
                    return int(d[4:])
    return 0

def cache(cpu, level):
    """The level and id of the data or unified cache of cpu at level (0: its
    highest); a cache without an id is named by its first CPU."""
    base = "/sys/devices/system/cpu/cpu%d/cache" % cpu
    best = None
    for d in os.listdir(base):
        p = "%s/%s/" % (base, d)
        if not re.fullmatch(r"index[0-9]+", d) or open(p + "type").read().strip() == "Instruction":
            continue
        lv = int(open(p + "level").read())
        if os.path.exists(p + "id"):
            cid = int(open(p + "id").read())
        else:
            cid = int(re.split(r"[-,]", open(p + "shared_cpu_list").read().strip())[0])
        if lv == level or (level == 0 and (best is None or lv > best[0])):
            best = (lv, cid)
    return best

def unit_of(cpu, kind):
    s, d, c = topo(cpu, "physical_package_id"), topo(cpu, "die_id"), topo(cpu, "core_id")
    if kind.startswith("cache"):
        lv, cid = cache(cpu, int(re.sub(r"[^0-9]", "", kind) or 0))
        return "S%d-D%d-L%d-ID%d" % (s, d, lv, cid)
    return {"core": "S%d-D%d-C%d" % (s, d, c), "die": "S%d-D%d" % (s, d),
            "socket": "S%d" % s, "node": "N%d" % node(cpu)}[kind]

def units(kind, cpus=CPUS):
    out = {}
    for c in cpus:
        out.setdefault(unit_of(c, kind), []).append(c)
    return out

def json_rows(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    return rows[1:]

def check_units(path, kind, nintervals, cpus=CPUS):
    """One row per unit per interval, each with its CPUs; their sum per
    event is the total, exactly. Without nintervals (a run that SIGINT
    ended), the last row of a unit may hold fewer CPUs: those that sampled
    before the signal."""
    want = units(kind, cpus)
    rows = json_rows(path)
    ticks = [r for r in rows if r["label"] == "tick"]
    totals = [r for r in rows if r["label"] == "total"]
    if len(totals) != 1:
        die("want one total, got %d" % len(totals))
    got = {}
    last = {r["unit"]: r for r in ticks}
    for r in ticks:
        got.setdefault(r["unit"], []).append(r)
        n = len(want.get(r["unit"], []))
        cut = nintervals is None and r is last[r["unit"]] and 0 < r["ncpus"] < n
        if (r["ncpus"] != n and not cut) or r["partial"]:
            die("unit %s: %s CPUs, want %s" % (r["unit"], r["ncpus"], want.get(r["unit"])))
        if r["cpu"] is not None:
            die("a unit row names no CPU: %r" % r)
        if kind != "node":
            s = int(r["unit"][1:].split("-")[0])
            if r["socket"] != s or r["node"] is not None:
                die("fields of %s: %r" % (r["unit"], r))
        if kind.startswith("cache"):
            lv, cid = r["unit"].split("-L")[1].split("-ID")
            if (r["cache_level"], r["cache"], r["core"]) != (int(lv), int(cid), None):
                die("cache fields of %s: %r" % (r["unit"], r))
        elif r["cache_level"] is not None or r["cache"] is not None:
            die("cache fields of %s: %r" % (r["unit"], r))
        if kind == "core" and r["core"] != int(r["unit"].split("-C")[1]):
            die("core field of %s: %r" % (r["unit"], r))
        if kind == "node" and (r["node"] != int(r["unit"][1:]) or r["socket"] is not None):
            die("fields of %s: %r" % (r["unit"], r))
    if sorted(got) != sorted(want):
        die("units %s, want %s" % (sorted(got), sorted(want)))
    for u, l in got.items():
        if nintervals is not None and len(l) != nintervals:
            die("unit %s has %d rows, want %d" % (u, len(l), nintervals))
    # The rows of each interval in the order of the units (S0-D0-C0 before
    # S0-D0-C1), whichever unit sampled first.
    order = sorted(want, key=lambda u: [int(x) for x in re.findall(r"[0-9]+", u)])
    seq = [r["unit"] for r in ticks]
    if nintervals is not None and seq != order * nintervals:
        die("units in the order %s, want %s in each interval" % (seq, order))
    total = totals[0]
    if total["unit"] is not None or total["ncpus"] != len(cpus):
        die("total: %r" % total)
    for e, v in total["counters"].items():
        s = sum(r["counters"][e] for r in ticks)
        if s != v:
            die("%s: the unit rows add up to %d, the total is %d" % (e, s, v))
    return got
'

# units_run ARGS...: run cpustat ARGS, again (3 runs at most) while a CPU
# of a busy machine missed a sample time: the product says so, with a
# gap row and a unit row that leaves that CPU out (partial, exit 1), and
# the checks below need every row whole.
units_run() {
	local try
	for try in 1 2 3; do
		run --separate-stderr "$CPUSTAT" "$@"
		grep -qw gap <<<"$output" || return 0
		echo "run $try: a CPU missed a sample time (a gap row): again"
	done
}

# The tick rows in a JSON file so far, and the units of a kind here.
ticks() { grep -c '"label":"tick"' "$1"; }
ticks_at_least() { [ "$(ticks "$1")" -ge "$2" ]; }
nunits() { "$PY" -c "$PYLIB$UNITS"'
print(len(units(sys.argv[1])))' "$1"; }

@test "--per-socket: a row per socket per interval, its CPUs summed: they add up to the total, exactly" {
	units_run -c cpu-clock,context-switches --per-socket --format=json 0.2 3
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck "$UNITS"'
got = check_units(sys.argv[1], "socket", 3)
# cpu-clock counts wall time on each CPU: a socket of n CPUs, n intervals.
for u, l in got.items():
    for r in l[1:]:
        n = r["ncpus"]
        if not 0.15e9 * n < r["counters"]["cpu-clock"] < 0.25e9 * n:
            die("%s: cpu-clock %d for %d CPUs in 0.2 s" % (u, r["counters"]["cpu-clock"], n))
' "$T/out"
}

@test "--per-core, --per-die and --per-node: the units of sysfs, named S0-D0-C1, S0-D0 and N0, each with its fields" {
	local kind
	for kind in core die node; do
		units_run -c task-clock,context-switches "--per-$kind" --format=json 0.1 2
		assert_success
		printf '%s\n' "$output" >"$T/$kind"
		pycheck "$UNITS"'check_units(sys.argv[1], sys.argv[2], 2)' "$T/$kind" "$kind"
	done
}

@test "--per-cache: a row per cache of the highest level, or of the one named (L1, l2, 2), S0-D0-L3-ID0" {
	[ -d /sys/devices/system/cpu/cpu0/cache/index0 ] ||
		skip "this kernel's sysfs gives the CPUs no caches"
	local kind
	for kind in cache cache=L1 cache=l2 cache=2; do
		units_run -c task-clock,context-switches "--per-$kind" --format=json 0.1 2
		assert_success
		printf '%s\n' "$output" >"$T/$kind"
		pycheck "$UNITS"'check_units(sys.argv[1], sys.argv[2], 2)' "$T/$kind" "$kind"
	done
}

@test "a tracepoint that one CPU alone hits is counted, all of it, in that CPU's core and socket" {
	ensure_tracefs
	local call=syscalls:sys_enter_sched_rr_get_interval kind cpu
	[ -d "/sys/kernel/tracing/events/${call/://}" ] ||
		skip "no $call tracepoint in this kernel"
	cpu=$(last_cpu)
	kinds="core socket"
	[ ! -d /sys/devices/system/cpu/cpu0/cache/index0 ] || kinds+=" cache=L2"
	for kind in $kinds; do
		# The run before's rows would answer wait_for: the background
		# job empties the file in its own time.
		rm -f "$T/out" "$T/err"
		env --default-signal=INT "$CPUSTAT" -c "$call" "--per-$kind" --format=json 0.1 \
		    >"$T/out" 2>"$T/err" 3>&- &
		BG_PIDS=$!
		wait_for ticks_at_least "$T/out" 1
		taskset -c "$cpu" "$PY" -c '
import os
for i in range(20000):
    os.sched_rr_get_interval(0)
'
		# Two intervals more: the calls' last one has its rows.
		wait_for ticks_at_least "$T/out" $(($(ticks "$T/out") + 2 * $(nunits "$kind")))
		kill -INT "$BG_PIDS"
		bg_wait
		[ ! -s "$T/err" ]
		pycheck "$UNITS"'
cpu, kind = int(sys.argv[2]), sys.argv[3]
got = check_units(sys.argv[1], kind, None)
mine = unit_of(cpu, kind)
for u, l in got.items():
    n = sum(r["counters"][sys.argv[4]] for r in l)
    want = 20000 if u == mine else 0
    if n != want:
        die("%s counted %d calls, want %d (cpu%d is in %s)" % (u, n, want, cpu, mine))
' "$T/out" "$cpu" "$kind" "$call"
	done
}

@test "-C, perf's letter, measures the CPUs listed, as --cpus does: a unit row holds only those" {
	cpu=$(last_cpu)
	units_run -c task-clock --per-socket -C "$cpu" --format=json 0.1 2
	assert_success
	printf '%s\n' "$output" >"$T/out"
	pycheck "$UNITS"'check_units(sys.argv[1], "socket", 2, [int(sys.argv[2])])' "$T/out" "$cpu"
	units_run -C "$cpu" -c task-clock 0.1 1
	assert_success
	[[ $(grep -c ' tick ' <<<"$output") = 1 ]]
	[[ $output =~ " $cpu  tick " ]]
}

@test "the table: a unit column and its CPUs; CSV: socket, die, core, node and cache columns; the exporter: the same labels; the trace: a counter per unit" {
	units_run -c context-switches --per-core 0.1 1
	assert_success
	local title='^ +time unit +cpus event +pic0 $'
	local row='^ +[0-9]+\.[0-9]{3} S[0-9]+-D[0-9]+-C[0-9]+ +1  tick +[0-9]+ $'
	local total="^ +[0-9]+\\.[0-9]{3} all +$(ncpus) total +[0-9]+ \$"
	[[ ${lines[0]} =~ $title ]]
	[[ ${lines[1]} =~ $row ]]
	[[ ${lines[-1]} =~ $total ]]
	units_run -c context-switches --per-node --format=csv 0.1 1
	assert_success
	printf '%s\n' "$output" >"$T/csv"
	pycheck "$UNITS"'
rows = list(csv.DictReader(open(sys.argv[1])))
if list(rows[0])[-6:] != ["socket", "die", "core", "node", "cache_level", "cache"]:
    die("columns: %r" % list(rows[0]))
ticks = [r for r in rows if r["label"] == "tick"]
want = units("node")
if sorted("N" + r["node"] for r in ticks) != sorted(want):
    die("nodes %r, want %r" % ([r["node"] for r in ticks], sorted(want)))
for r in ticks:
    if r["socket"] or r["die"] or r["core"] or r["cpu"] or r["cache_level"] or r["cache"]:
        die("a node row names only its node: %r" % r)
' "$T/csv"
	"$CPUSTAT" -c context-switches --per-socket --format=prometheus --output="$T/prom" 0.1 2
	pycheck "$UNITS"'
text = open(sys.argv[1]).read()
for u in units("socket"):
    if not re.search(r"^cpustat_events_total\{socket=\"%s\",event=\"context-switches\",set=\"0\"\} [0-9]+$" % u[1:], text, re.M):
        die("no series of socket %s:\n%s" % (u, text))
if re.search(r"cpu=", text):
    die("unit series have no cpu label:\n" + text)
' "$T/prom"
	if [ -d /sys/devices/system/cpu/cpu0/cache/index0 ]; then
		"$CPUSTAT" -c context-switches --per-cache=L2 --format=prometheus --output="$T/promc" 0.1 1
		pycheck "$UNITS"'
text = open(sys.argv[1]).read()
for u in units("cache=L2"):
    s, d, lv, cid = re.fullmatch(r"S(\d+)-D(\d+)-L(\d+)-ID(\d+)", u).groups()
    want = "socket=\"%s\",die=\"%s\",cache_level=\"%s\",cache=\"%s\",event=" % (s, d, lv, cid)
    if "cpustat_events_total{" + want not in text:
        die("no series of cache %s:\n%s" % (u, text))
' "$T/promc"
	fi

	"$CPUSTAT" -c context-switches --per-core --format=trace --output="$T/trace" 0.1 2
	pycheck "$UNITS"'
events = json.load(open(sys.argv[1]))
names = sorted({e["name"] for e in events if e["ph"] == "C"})
if names != sorted(list(units("core")) + ["total"]):
    die("trace counters %r, want each core and the total" % names)
' "$T/trace"
}

@test "bad --per-* and -C: one line naming the bad token or the conflict, exit 2" {
	run --separate-stderr "$CPUSTAT" -c task-clock --per-core --per-socket 1 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "cpustat: --per-core, --per-die, --per-socket, --per-node and --per-cache exclude each other" ]
	run --separate-stderr "$CPUSTAT" -c task-clock -C 3-1 1 1
	[ "$status" -eq 2 ]
	[ "$stderr" = 'cpustat: invalid CPU list "3-1"' ]
	run --separate-stderr "$CPUSTAT" -c task-clock --per-sockets 1 1
	[ "$status" -eq 2 ]
	[[ $stderr =~ per-sockets ]]
	run --separate-stderr "$CPUSTAT" -c task-clock --per-cache=L0 1 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "cpustat: --per-cache=L0: not a cache level (L1, L2, L3)" ]
	run --separate-stderr "$CPUSTAT" -c task-clock --per-cache --per-node 1 1
	[ "$status" -eq 2 ]
	[[ $stderr == *"exclude each other" ]]
	# A level no CPU has: said before any row, exit 2.
	units_run -c task-clock --per-cache=L9 0.1 1
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ $stderr =~ ^"cpustat: --per-cache=L9: cpu"[0-9]+" has no level 9 cache in sysfs (/sys/devices/system/cpu/cpu"[0-9]+"/cache)"$ ]]
}

@test "a per-socket PMU that the kernel lacks (RAPL's power, an uncore PMU): one line naming it and why, exit 2, in both commands" {
	local ev
	for ev in power/energy-pkg/ uncore_imc/cas_count_read/; do
		[ -e "/sys/bus/event_source/devices/${ev%%/*}" ] ||
			[ -e "/sys/bus/event_source/devices/${ev%%/*}_0" ] &&
			skip "this kernel has a ${ev%%/*} PMU (or its boxes)"
		units_run -c "$ev" --per-socket 0.1 1
		[ "$status" -eq 2 ]
		[ "$stderr" = "cpustat: $ev: no PMU '${ev%%/*}' in this kernel (see /sys/bus/event_source/devices)" ]
		run --separate-stderr "$CPUTRACK" -c "$ev" true
		[ "$status" -eq 2 ]
		[ "$stderr" = "cputrack: $ev: no PMU '${ev%%/*}' in this kernel (see /sys/bus/event_source/devices)" ]
	done
}
