#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The counts as metrics: --format=openmetrics (a strict OpenMetrics parser
# takes it), --format=prometheus (promtool check metrics takes it), the
# families, labels, units and values, exact for a workload of known
# counts, and -o/--output FILE replaced whole at each change.

load output_helper

setup() {
	out_setup
}

teardown() {
	out_teardown
}

# The samples of a metrics file as "name{labels} value" lines, sorted.
samples() {
	grep -v '^#' "$1" | sort
}

@test "cputrack --format=openmetrics: families, units, labels pid/lwp/comm/cgroup/event/set, exact counts, # EOF" {
	ct_run --thread-series --format=openmetrics -T 0 -c "$WRITE,task-clock" "$W/wl_threads" 2 1000 7
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	om_check "$T/out"
	"$PY" - "$T/out" "$(sed -n 's/^0:://p' "/proc/$$/cgroup")" <<'EOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
# The process's cgroup, where it is in a cgroup v2 hierarchy: this shell's.
cgroup = sys.argv[2]
cg = {"cgroup"} if cgroup else set()
# The counts, not their _created samples (om_check checks those).
for f in fams.values():
    f.samples = [s for s in f.samples if not s.name.endswith("_created")]
ev = fams["cputrack_events"]
assert ev.type == "counter" and ev.unit == "", ev
w = {int(s.labels["lwp"]): s.value for s in ev.samples
     if s.labels["event"] == "syscalls:sys_enter_write"}
# LWP 1 made 7 writes before starting the threads; 2 and 3 made 1000 each.
assert w == {1: 7, 2: 1000, 3: 1000}, w
for s in ev.samples:
    assert s.name == "cputrack_events_total"
    assert set(s.labels) == {"pid", "lwp", "comm", "event", "set"} | cg, s
    assert s.labels["comm"] == "wl_threads" and s.labels["set"] == "0", s
    assert s.labels.get("cgroup", "") == cgroup, s
clocks = fams["cputrack_event_seconds"]
assert clocks.type == "counter" and clocks.unit == "seconds"
assert {s.labels["event"] for s in clocks.samples} == {"task-clock"}
assert all(0 < s.value < 10 for s in clocks.samples)
for name in ("cputrack_enabled_seconds", "cputrack_running_seconds"):
    f = fams[name]
    assert f.type == "counter" and f.unit == "seconds", f
    assert len(f.samples) == 3 and all(set(s.labels) == {"pid", "lwp", "comm", "set"} | cg for s in f.samples)
proc = fams["cputrack_process_events"]
pw = [s.value for s in proc.samples if s.labels["event"] == "syscalls:sys_enter_write"]
assert pw == [2007], pw
assert set(proc.samples[0].labels) == {"pid", "comm", "event", "set"} | cg
assert fams["cputrack_set_info"].type == "gauge"
assert fams["cputrack_set_info"].samples[0].labels == {"set": "0", "spec": "syscalls:sys_enter_write,task-clock"}
build = fams["cpctools_build_info"].samples[0].labels
assert set(build) == {"tool", "version"} and build["tool"] == "cputrack" and build["version"], build
assert fams["cputrack_start_time_seconds"].unit == "seconds"
assert "cputrack_not_counted" not in fams and "cputrack_partial" not in fams
EOF
}

@test "cpustat --format=openmetrics and --format=prometheus: a strict parser and promtool take them; the values are the rows'" {
	cs_run --format=openmetrics -c "$WRITE,task-clock" -c context-switches 0.1 4
	[ "$status" -eq 0 ]
	om_check "$T/out"
	grep -q '^# TYPE cpustat_events counter$' "$T/out"
	grep -q '^# UNIT cpustat_event_seconds seconds$' "$T/out"
	grep -qE '^cpustat_events_total\{cpu="[0-9]+",event="syscalls:sys_enter_write",set="0"\} [0-9]+$' "$T/out"
	grep -qE '^cpustat_enabled_seconds_total\{cpu="[0-9]+",set="1"\} 0\.[0-9]{9}$' "$T/out"
	cs_run --format=prometheus -c "$WRITE,task-clock" -c context-switches 0.1 4
	[ "$status" -eq 0 ]
	run ! grep -qE '^# (UNIT|EOF)' "$T/out"
	grep -q '^# TYPE cpustat_events_total counter$' "$T/out"
	promtool_check "$T/out"
}

# rows_of_every_cpu N: $T/rows holds N tick or gap rows or more.
rows_of_every_cpu() {
	[ "$(grep -cE '"label":"(tick|gap)"' "$T/rows")" -ge "$1" ]
}
# rows_or_taken N: that, or $T/err says a cpustat elsewhere took the
# counters.
rows_or_taken() {
	rows_of_every_cpu "$1" ||
	    grep -q 'Resource temporarily unavailable' "$T/err"
}

@test "metrics and rows of one run agree: --format=json with --listen, scraped at the end" {
	local port try rows
	# Once it has rows of every CPU, scrape it, then stop it.
	rows=$("$PY" -c 'import os; print(2 * len(os.sched_getaffinity(0)))')
	for try in 1 2 3 4 5; do
		port=$(free_port)
		# A try before's error would answer rows_or_taken: the
		# background job empties the file in its own time.
		rm -f "$T/rows" "$T/err"
		"$CS" --format=json --listen=127.0.0.1:"$port" -c context-switches,task-clock \
		    0.1 >"$T/rows" 2>"$T/err" &
		ct_bg $!
		wait_while "${CT_PIDS[-1]}" rows_or_taken "$rows" || true
		grep -q 'Resource temporarily unavailable' "$T/err" || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 5 tries
	done
	wait_while "${CT_PIDS[-1]}" rows_of_every_cpu "$rows"
	http_get "http://127.0.0.1:$port/metrics" >"$T/m1"
	promtool_check "$T/m1"
	kill -TERM "${CT_PIDS[-1]}"
	wait "${CT_PIDS[-1]}"
	"$PY" - "$T/rows" "$T/m1" <<'EOF'
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
m = {}
for line in open(sys.argv[2]):
    g = re.match(r'cpustat_events_total\{cpu="(\d+)",event="context-switches",set="0"\} (\d+)$', line)
    if g:
        m[int(g.group(1))] = int(g.group(2))
ticks = {}
for r in rows:
    if r["label"] in ("tick", "gap"):
        ticks.setdefault(r["cpu"], []).append(r["counters"]["context-switches"])
# The scrape came between two rows: it is the sum of the first k rows.
for cpu, v in m.items():
    sums = [sum(ticks[cpu][:k]) for k in range(len(ticks[cpu]) + 1)]
    assert v in sums, (cpu, v, sums)
assert m, "no cpustat_events_total in the scrape"
EOF
}

# stopped PID: process PID is stopped (its state T).
stopped() {
	[ "$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null)" = T ]
}

@test "--output=FILE with a metrics format: the file is replaced whole at each change, never seen half written" {
	local dir=$T/textfile
	mkdir "$dir"
	local before after
	before=$(date +%s%N)
	# It stops itself before cpustat starts: the reader lets it go once
	# it is ready to read.
	(umask 022; kill -STOP "$BASHPID"; exec "$CS" --format=openmetrics \
	    --output="$dir/cpustat.prom" -c task-clock 0.01 300 2>"$T/err") &
	ct_bg $!
	wait_for stopped "${CT_PIDS[-1]}"
	# Read it as node_exporter does, as fast as we can, while it changes,
	# and once more when the run has ended (60 s at most: a bound for a
	# run that hangs).
	"$PY" - "$dir/cpustat.prom" "${CT_PIDS[-1]}" <<'EOF'
import os, re, signal, sys, time
from prometheus_client.openmetrics.parser import text_string_to_metric_families
path, pid = sys.argv[1], int(sys.argv[2])
os.kill(pid, signal.SIGCONT)

def running():
    try:
        return open("/proc/%d/stat" % pid).read().rsplit(") ", 1)[1][0] != "Z"
    except OSError:
        return False

def enabled(text):
    return sum(float(v) for v in re.findall(r"^cpustat_enabled_seconds_total\{[^}]*\} (\S+)$", text, re.M))

seen, reads, last = set(), 0, 0.0
deadline = time.monotonic() + 60
while True:
    alive = running()
    try:
        text = open(path).read()
    except FileNotFoundError:
        text = None
    if text is not None:
        reads += 1
        assert text.endswith("# EOF\n"), "a part of the file: %r" % text[-60:]
        list(text_string_to_metric_families(text))
        seen.add(text)
        # Each version holds more than the one before.
        assert enabled(text) >= last, (enabled(text), last)
        last = enabled(text)
    if not alive:
        break
    assert time.monotonic() < deadline, "cpustat still runs after 60 s"
# Read as it changed: more than one version, none of them half written.
assert len(seen) > 1, (len(seen), reads)
print(len(seen), "versions in", reads, "reads")
EOF
	wait "${CT_PIDS[-1]}"
	after=$(date +%s%N)
	[ ! -s "$T/err" ]
	# No temporary file left beside it; readable by the collector's user.
	[ "$(ls -A "$dir")" = cpustat.prom ]
	[ "$(stat -c %a "$dir/cpustat.prom")" = 644 ]
	om_check "$dir/cpustat.prom"
	# The last version has the whole run, read when it had ended: every
	# CPU's time, no more than the run lasted.
	"$PY" - "$dir/cpustat.prom" "$before" "$after" <<'EOF'
import os, re, sys
text = open(sys.argv[1]).read()
secs = (int(sys.argv[3]) - int(sys.argv[2])) / 1e9
cpus = {int(c): float(v) for c, v in re.findall(r'^cpustat_enabled_seconds_total\{cpu="(\d+)",set="0"\} (\S+)$', text, re.M)}
assert sorted(cpus) == sorted(os.sched_getaffinity(0)), cpus
assert all(0 < v <= secs for v in cpus.values()), (cpus, secs)
EOF
}

@test "--output=FILE with a metrics format in a directory that cannot take it: said, exit 1, nothing counted" {
	run --separate-stderr "$CS" --format=openmetrics --output=/nonexistent/x.prom -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	[ "$stderr" = "cpustat: cannot write '/nonexistent/x.prom': No such file or directory" ]
	run --separate-stderr "$CT" --thread-series --format=prometheus -o /nonexistent/x.prom -c "$WRITE" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: cannot write '/nonexistent/x.prom': No such file or directory" ]
	[ ! -e "$T/ran" ]
}

# thread_writes FILE: the writes of ct_steady's thread (LWP 2) in the
# metrics file FILE.
thread_writes() {
	sed -nE 's#^cputrack_events_total\{pid="[0-9]+",lwp="2",comm="ct_steady",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} ([0-9]+)$#\1#p' "$1"
}

# written_early: a copy of $T/m.prom, in $T/early.prom (its writes kept
# in early), in which ct_steady's thread has written.
written_early() {
	cp "$T/m.prom" "$T/early.prom" 2>/dev/null &&
	    early=$(thread_writes "$T/early.prom") &&
	    [ "${early:-0}" -gt 0 ]
}

@test "cputrack -o FILE.prom while it runs: a thread's counter grows, the process's is exact at its exit" {
	local try early final
	for try in 1 2 3 4 5; do
		rm -f "$T/m.prom" "$T/early.prom"
		timeout 60 "$CT" --thread-series --format=prometheus -o "$T/m.prom" -T 0.1 -c "$WRITE" \
		    "$W/ct_steady" 1 10 50 30 2>"$T/err" &
		CPID=$!
		ct_bg "$CPID"
		# A version of the file from while the thread writes: the first
		# in which it has written.
		wait_while "$CPID" written_early || true
		wait "$CPID" || true
		if counters_taken; then
			sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 5 tries
			continue
		fi
		# A loaded machine may run it all before a version from while
		# it wrote is seen: then again.
		early=$(thread_writes "$T/early.prom" 2>/dev/null) || early=0
		[ "${early:-0}" -gt 0 ] && [ "$early" -lt 300 ] && break
	done
	[ ! -s "$T/err" ] || { cat "$T/err"; false; }
	promtool_check "$T/m.prom"
	early=$(thread_writes "$T/early.prom")
	final=$(thread_writes "$T/m.prom")
	[ "$early" -gt 0 ]
	[ "$early" -lt 300 ]
	[ "$final" -eq 300 ]
	grep -qE '^cputrack_process_events_total\{pid="[0-9]+",comm="ct_steady",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} 300$' "$T/m.prom"
}

@test "cputrack metrics across execs (-e) and forks (-f): counters never go down, names follow the image" {
	ct_run --thread-series --format=openmetrics -e -T 0 -c "$WRITE" "$W/wl_exec_chain" 3 5
	[ "$status" -eq 0 ]
	om_check "$T/out"
	# Four images, five writes each, all LWP 1: its counter goes on.
	"$PY" - "$T/out" <<'EOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
# The counts, not their _created samples (om_check checks those).
for f in fams.values():
    f.samples = [s for s in f.samples if not s.name.endswith("_created")]
lwp = [s for s in fams["cputrack_events"].samples if s.labels["lwp"] == "1"]
assert sum(s.value for s in lwp) == 20, lwp
assert sum(s.value for s in fams["cputrack_process_events"].samples) == 20
en = sum(s.value for s in fams["cputrack_enabled_seconds"].samples)
assert en > 0, en
EOF
	ct_run --thread-series --format=openmetrics -ef -T 0 -c "$WRITE" "$W/wl_vfork_exec" 3 "$W/wl_threads" 2 4
	[ "$status" -eq 0 ]
	om_check "$T/out"
	# The child under its first name until its exec, and its new image's
	# threads under the new one; the parent's 3 writes.
	grep -qE '^cputrack_process_events_total\{pid="[0-9]+",comm="wl_vfork_exec",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} 0$' "$T/out"
	grep -qE '^cputrack_process_events_total\{pid="[0-9]+",comm="wl_threads",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} 8$' "$T/out"
	grep -qE '^cputrack_process_events_total\{pid="[0-9]+",comm="wl_vfork_exec",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} 3$' "$T/out"
	[ "$(grep -cE '^cputrack_events_total\{pid="[0-9]+",lwp="[23]",comm="wl_threads",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} 4$' "$T/out")" -eq 2 ]
}

@test "--output with a metrics format never renames over what is not a regular file (/dev/null, a FIFO)" {
	mkfifo "$T/fifo"
	cat "$T/fifo" >"$T/got" &
	ct_bg $!
	cs_run --format=openmetrics --output="$T/fifo" -c task-clock 0.1 2
	[ "$status" -eq 0 ] || { echo "status $status: $stderr"; false; }
	wait "${CT_PIDS[-1]}"
	[ -p "$T/fifo" ]
	[ "$(grep -c '^# EOF$' "$T/got")" -eq 1 ]
	om_check "$T/got"
	cs_run --format=prometheus --output=/dev/null -c task-clock 0.1 1
	[ "$status" -eq 0 ] || { echo "status $status: $stderr"; false; }
	[ -c /dev/null ]
	[ -z "$(ls /dev | grep -F 'null.')" ]
}

@test "cputrack metrics under -T 0: the comm label of a command whose first row is its exit" {
	# No row comes before the exit: the name is the one the command had
	# while it ran, not read after it was gone.
	ct_run --thread-series --format=openmetrics -T 0 -c "$WRITE" "$W/ct_marker" "$T/ran" 3
	[ "$status" -eq 0 ]
	om_check "$T/out"
	grep -qE '^cputrack_events_total\{pid="[0-9]+",lwp="1",comm="ct_marker",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} 3$' "$T/out"
	grep -qE '^cputrack_process_events_total\{pid="[0-9]+",comm="ct_marker",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} 3$' "$T/out"
	[ "$(grep -c 'comm=""' "$T/out")" -eq 0 ]
}

@test "cputrack metrics by default: a series per process, none per LWP; --thread-series adds them, summing to the process's" {
	ct_run --format=openmetrics -T 0 -c "$WRITE,task-clock" "$W/wl_threads" 2 1000 7
	[ "$status" -eq 0 ]
	om_check "$T/out"
	run ! grep -q 'lwp="' "$T/out"
	grep -qE '^cputrack_process_events_total\{pid="[0-9]+",comm="wl_threads",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} 2007$' "$T/out"
	grep -qE '^cputrack_process_enabled_seconds_total\{pid="[0-9]+",comm="wl_threads",'"$CGRE"'set="0"\} [0-9.]+$' "$T/out"
	grep -qE '^cputrack_process_running_seconds_total\{pid="[0-9]+",comm="wl_threads",'"$CGRE"'set="0"\} [0-9.]+$' "$T/out"
	cp "$T/out" "$T/plain"
	ct_run --thread-series --format=openmetrics -T 0 -c "$WRITE,task-clock" "$W/wl_threads" 2 1000 7
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
# The counts, not their _created samples (om_check checks those).
for f in fams.values():
    f.samples = [s for s in f.samples if not s.name.endswith("_created")]
for lwp, proc in (("cputrack_events", "cputrack_process_events"),
                  ("cputrack_enabled_seconds", "cputrack_process_enabled_seconds"),
                  ("cputrack_running_seconds", "cputrack_process_running_seconds")):
    keys = lambda s: tuple(sorted((k, v) for k, v in s.labels.items() if k != "lwp"))
    sums = {}
    for s in fams[lwp].samples:
        sums[keys(s)] = sums.get(keys(s), 0) + s.value
    whole = {keys(s): s.value for s in fams[proc].samples}
    assert sums.keys() == whole.keys(), (sums, whole)
    assert all(abs(sums[k] - whole[k]) < 1e-6 for k in sums), (lwp, sums, whole)
PY
	run --separate-stderr "$CT" --thread-series -c "$WRITE" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --thread-series needs metrics: --format=openmetrics, --format=prometheus or --listen" ]
	[ ! -e "$T/ran" ]
}
