#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The machine formats as standard readers take them: JSON always valid
# UTF-8, CSV whose first line is its header (csv.DictReader, pandas), the
# run's facts in every stream, rows in time order, values not counted
# never 0 (in every format), partial totals, and where the rows go
# (--output, --output-fd), apart from what the program prints.

load output_helper

setup() {
	out_setup
}

teardown() {
	out_teardown
}

@test "json and csv: an exec argument that is not UTF-8 still gives valid UTF-8, JSON that parses; CSV escapes its bytes, JSON gives U+FFFD" {
	local fmt
	for fmt in json csv; do
		ct_run --format=$fmt -e -T 0 -c "$WRITE" \
		    sh -c 'exec /bin/true "a$(printf "\377\300")b"'
		[ "$status" -eq 0 ]
		"$PY" - "$T/out" "$fmt" <<'EOF'
import csv, io, json, sys
raw = open(sys.argv[1], "rb").read()
assert b"\xff" not in raw and b"\xc0" not in raw, raw
text = raw.decode("utf-8")      # strict: raises on a bad byte
if sys.argv[2] == "json":
    rows = [json.loads(l) for l in text.splitlines()]
else:
    rows = list(csv.DictReader(io.StringIO(text)))
marker = [r for r in rows if r.get("label") == "exec" and r.get("set") in (None, "")]
assert len(marker) == 1, rows
# The names rule (cpctools-output(5)): \xNN in CSV, U+FFFD in JSON.
want = "/bin/true a\ufffd\ufffdb" if sys.argv[2] == "json" else \
    "/bin/true a\\xff\\xc0b"
assert marker[0]["args"] == want, marker
EOF
	done
}

@test "csv: csv.DictReader and pandas.read_csv take it with their defaults" {
	need_py pandas
	ct_run --format=csv -f -T 0.05 -c "$WRITE,task-clock" -c page-faults \
	    "$W/wl_forktree" 1 2 30
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'EOF'
import csv, sys
import pandas
df = pandas.read_csv(sys.argv[1])
rows = list(csv.DictReader(open(sys.argv[1])))
assert list(df.columns) == list(rows[0].keys()), (list(df.columns), list(rows[0]))
assert len(df) == len(rows)
meta = df[df.label == "meta"].set_index("key")["value"]
assert meta["schema"] == "cpctools" and meta["version"] == "2", meta
assert meta["unit.task-clock"] == "ns" and meta["unit.page-faults"] == "count"
exits = df[df.label == "exit"]
# One exit row per set the process was counted in: a process that
# starts while set 1 is on may never be counted in set 0.
assert exits.pid.nunique() == 3 and not exits.duplicated(["pid", "set"]).any(), exits
assert set(exits.set) <= {0, 1}, exits
# The sets take turns every 50 ms: set 0 counts the writes made in its
# turns (none, on a machine so busy that they all fell in set 1's), all
# of them only if the processes wrote within its first.
assert 0 <= exits[exits.set == 0]["syscalls:sys_enter_write"].sum() <= 90
assert list(df[df.label != "meta"].time) == sorted(df[df.label != "meta"].time)
forks = df[df.label == "fork"]
assert sorted(forks.child.astype(int)) == sorted(exits[exits.pid != forks.pid.iloc[0]].pid.unique())
EOF
	# With no ticks, no turns: set 0 counts every write.
	ct_run --format=csv -f -T 0 -c "$WRITE,task-clock" -c page-faults \
	    "$W/wl_forktree" 1 2 30
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'EOF'
import sys
import pandas
df = pandas.read_csv(sys.argv[1])
exits = df[df.label == "exit"]
assert len(exits) == 3 and set(exits.set) == {0}, exits
assert exits["syscalls:sys_enter_write"].sum() == 90, exits
EOF
}

@test "every stream names the schema, tool and version, host, start, and each event's unit" {
	local fmt
	local before after
	before=$(date +%s%N)
	ct_run --format=json -T 0 -c task-clock,cpu-clock,"$WRITE" "$W/wl_threads" 1 5
	after=$(date +%s%N)
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" "$(hostname)" "$("$CT" --version | head -n 1)" "$before" "$after" <<'EOF'
import json, sys, time
head = json.loads(open(sys.argv[1]).readline())
assert head["schema"] == "cpctools" and head["version"] == 2
assert head["tool"] == "cputrack" and sys.argv[3].endswith(" " + head["tool_version"]), head
assert head["host"] == sys.argv[2]
# The run started while the command ran.
assert int(sys.argv[4]) <= head["start_epoch_ns"] <= int(sys.argv[5]), head
units = {e["name"]: e["unit"] for s in head["sets"] for e in s["events"]}
assert units == {"task-clock": "ns", "cpu-clock": "ns", "syscalls:sys_enter_write": "count"}, units
EOF
	# The clocks in any spelling libpfm4 knows are nanoseconds.
	ct_run --format=csv -T 0 -c perf::TASK-CLOCK,perf::PERF_COUNT_SW_CPU_CLOCK,cs "$W/wl_threads" 1 5
	[ "$status" -eq 0 ]
	grep -qx '0.000000,,,,,,meta,,,,,,,,,,,,,unit.perf::TASK-CLOCK,ns' "$T/out"
	grep -qx '0.000000,,,,,,meta,,,,,,,,,,,,,unit.perf::PERF_COUNT_SW_CPU_CLOCK,ns' "$T/out"
	grep -qx '0.000000,,,,,,meta,,,,,,,,,,,,,unit.context-switches,count' "$T/out"
	grep -qE "^0.000000,,,,,,meta,,,,,,,,,,,,,tool_version,[0-9.]+\$" "$T/out"
}

@test "rows are in time order: per-set totals of cputrack and cpustat never go back" {
	ct_run --format=json -T 0.03 -c "$WRITE" -c task-clock -c page-faults \
	    "$W/ct_steady" 2 5 20 10
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
t = [r["time"] for r in rows]
assert t == sorted(t), [(r["label"], r["set"], r["time"]) for r in rows]
assert len([r for r in rows if r["label"] == "exit"]) == 3
EOF
	# The table too, to its three decimals.
	ct_run -T 0.03 -c "$WRITE" -c task-clock -c page-faults "$W/ct_steady" 2 5 20 10
	[ "$status" -eq 0 ]
	tail -n +2 "$T/out" | awk '{ if ($1 < last) { print "back in time: " $0; exit 1 } last = $1 }'
	cs_run --format=csv -c context-switches -c task-clock -c page-faults 0.05 5
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'EOF'
import csv, sys
t = [float(r["time"]) for r in csv.DictReader(open(sys.argv[1]))]
assert t == sorted(t), t
EOF
}

@test "cpustat as nobody (EACCES): the totals are no number, with the reason, in every format; exit 1" {
	[ "$(id -u)" = 0 ] || skip "needs root to run as nobody"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local paranoid
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	[ "$paranoid" -ge 1 ] || skip "kernel.perf_event_paranoid=$paranoid lets anyone count CPU-wide"
	as_nobody_cpustat -c task-clock -c context-switches 0.1 2
	if [ "$status" -eq 2 ] && [[ $stderr == *"Permission denied: counting a whole CPU needs"* ]]; then
		skip "this cpustat refuses before counting what it may not count"
	fi
	[ "$status" -eq 1 ]
	[[ ${lines[1]} =~ ^\ +[0-9.]+\ +0\ total\ +-\ #\ task-clock\;\ not\ counted:\ permission\ denied$ ]]
	[[ ${lines[2]} =~ ^\ +[0-9.]+\ +0\ total\ +-\ #\ context-switches\;\ not\ counted:\ permission\ denied$ ]]
	grep -qx "cpustat: total of set 0: not counted: permission denied" <<<"$stderr"

	as_nobody_cpustat --format=json -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" >"$T/json"
	"$PY" - "$T/json" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
assert len(rows) == 1 and rows[0]["label"] == "total", rows
t = rows[0]
assert t["counters"] == {"task-clock": None}, t
assert t["enabled_ns"] is None and t["running_ns"] is None and t["ncpus"] == 0, t
assert t["not_counted"] == "permission denied", t
EOF

	as_nobody_cpustat --format=csv -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" >"$T/csv"
	"$PY" - "$T/csv" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] == "total"]
assert len(rows) == 1, rows
t = rows[0]
assert t["task-clock"] == "" and t["enabled_ns"] == "" and t["ncpus"] == "0", t
assert t["not_counted"] == "permission denied", t
EOF

	as_nobody_cpustat --format=openmetrics -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" >"$T/om"
	om_check "$T/om"
	run ! grep -q '^cpustat_event' "$T/om"
	grep -qx 'cpustat_not_counted{set="0",reason="permission denied"} 1' "$T/om"
}

# hold_cpus CPULIST: a cpustat of ours holding the PMU of CPULIST (a
# hardware event), until teardown. Only hardware counters are held: on a
# machine without a PMU these tests skip, and tests/hw holds one for real.
hold_cpus() {
	local holder
	"$CS" --cpus="$1" -c instructions 0.2 >"$T/holder" 2>&1 3>&- &
	holder=$!
	ct_bg "$holder"
	wait_while "$holder" grep -q tick "$T/holder"
}

@test "cpustat with every CPU held by another: the totals are no number, with the reason, in every format; exit 1" {
	require_pmu
	local all fmt
	all=$("$PY" -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')
	hold_cpus "$all"
	for fmt in table csv json openmetrics; do
		run --separate-stderr timeout 60 "$CS" --format=$fmt -c instructions -c cycles 0.1 2
		[ "$status" -eq 1 ]
		# Each reason is said once.
		[ "$(grep -c total <<<"$stderr")" -eq 1 ]
		grep -qx "cpustat: total of set 0: not counted: no CPU could be counted" <<<"$stderr"
		printf '%s\n' "$output" >"$T/$fmt"
	done
	[[ $(sed -n 2p "$T/table") =~ ^\ +[0-9.]+\ +0\ total\ +-\ #\ instructions\;\ not\ counted:\ no\ CPU\ could\ be\ counted$ ]]
	[[ $(sed -n 3p "$T/table") =~ ^\ +[0-9.]+\ +0\ total\ +-\ #\ cycles\;\ not\ counted:\ no\ CPU\ could\ be\ counted$ ]]
	"$PY" - "$T/csv" "$T/json" <<'EOF'
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] == "total"]
assert [(r["instructions"], r["cycles"], r["enabled_ns"], r["ncpus"], r["not_counted"]) for r in rows] == \
    [("", "", "", "0", "no CPU could be counted")] * 2, rows
rows = [json.loads(l) for l in open(sys.argv[2])][1:]
assert [r["counters"] for r in rows] == [{"instructions": None}, {"cycles": None}], rows
assert all(r["enabled_ns"] is None and r["not_counted"] == "no CPU could be counted" for r in rows)
EOF
	om_check "$T/openmetrics"
	run ! grep -q '^cpustat_event' "$T/openmetrics"
	grep -qx 'cpustat_not_counted{set="0",reason="no CPU could be counted"} 1' "$T/openmetrics"
}

@test "cpustat with a CPU held by another: the total sums the others and says it is partial; exit 1" {
	require_pmu
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	local first n
	first=$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))')
	n=$("$PY" -c 'import os; print(len(os.sched_getaffinity(0)))')
	hold_cpus "$first"
	run --separate-stderr timeout 60 "$CS" --format=json -c instructions 0.1 2
	[ "$status" -eq 1 ]
	grep -qx "cpustat: total of set 0 is partial: 1 of $n CPUs not counted" <<<"$stderr"
	printf '%s\n' "$output" >"$T/json"
	"$PY" - "$n" "$T/json" <<'EOF'
import json, sys
n = int(sys.argv[1])
rows = [json.loads(l) for l in open(sys.argv[2])][1:]
ticks = [r for r in rows if r["label"] in ("tick", "gap")]
total = [r for r in rows if r["label"] == "total"]
assert len(total) == 1 and total[0]["ncpus"] == n - 1, total
assert total[0]["partial"] == "1 of %d CPUs not counted" % n, total
assert total[0]["counters"]["instructions"] == sum(r["counters"]["instructions"] for r in ticks)
assert total[0]["not_counted"] is None
EOF
}

@test "--output-fd: the rows on the descriptor, the program's own output apart; the program does not get it" {
	local try
	for try in 1 2 3 4 5; do
		status=0
		timeout 60 "$CT" --format=json --output-fd=3 -e -T 0 -c "$WRITE" \
		    sh -c 'ls /proc/$$/fd; exec "$0" 50 7' "$W/wl_print" \
		    3>"$T/rows" >"$T/prog" 2>"$T/err" || status=$?
		counters_taken || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 5 tries
	done
	[ "$status" -eq 0 ]
	[ ! -s "$T/err" ]
	# The program's lines, and only them, on its standard output.
	grep -qx 'line 48: {"not": "a row of counts"' "$T/prog"
	run ! grep -q '"schema"' "$T/prog"
	# Descriptor 3 was cputrack's, not the program's: the program has
	# what it has when run bare, but 3.
	sh -c 'ls /proc/$$/fd' 3>/dev/null | grep -vx 3 | sort >"$T/bare"
	grep -E '^[0-9]+$' "$T/prog" | sort >"$T/ours"
	diff "$T/bare" "$T/ours"
	"$PY" - "$T/rows" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["schema"] == "cpctools"
exit_rows = [r for r in rows if r.get("label") == "exit"]
# 50 lines written to stdout by the program, 7 to /dev/null.
assert [r["counters"]["syscalls:sys_enter_write"] for r in exit_rows] == [57], exit_rows
EOF
}

@test "-o FILE is not open in the program either" {
	ct_run -o "$T/rows" -T 0 -c "$WRITE" sh -c 'ls /proc/$$/fd'
	[ "$status" -eq 0 ]
	diff <(sh -c 'ls /proc/$$/fd' | sort) <(sort <<<"$output")
	grep -q ' exit ' "$T/rows"
}

@test "--output-fd and --output: bad descriptors and both at once are refused, nothing started" {
	run --separate-stderr "$CT" --output-fd=9 -c "$WRITE" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: cannot write to descriptor 9: Bad file descriptor" ]
	[ ! -e "$T/ran" ]
	run --separate-stderr "$CT" --output-fd=4 -c "$WRITE" "$W/ct_marker" "$T/ran" 4</dev/null
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: cannot write to descriptor 4: it is open for reading only" ]
	[ ! -e "$T/ran" ]
	run --separate-stderr "$CT" --output-fd=x -c "$WRITE" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "cputrack: invalid descriptor 'x'" ]
	run --separate-stderr "$CT" -o "$T/x" --output-fd=1 -c "$WRITE" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "cputrack: -o and --output-fd cannot be given together" ]
	[ ! -e "$T/ran" ]
	[ ! -e "$T/x" ]
	run --separate-stderr "$CS" --output-fd=9 -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	[ "$stderr" = "cpustat: cannot write to descriptor 9: Bad file descriptor" ]
	run --separate-stderr "$CS" --output-fd=-1 -c task-clock 0.1 1
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = 'cpustat: invalid descriptor "-1"' ]
	run --separate-stderr "$CS" --output="$T/x" --output-fd=1 -c task-clock 0.1 1
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "cpustat: --output and --output-fd cannot be given together" ]
	run --separate-stderr "$CS" --output=/nonexistent/dir/x -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	[ "$stderr" = "cpustat: cannot open '/nonexistent/dir/x' for writing: No such file or directory" ]
}

@test "cpustat --output=FILE and --output-fd: the rows there, nothing on stdout" {
	cs_run --output="$T/rows.csv" --format=csv -c task-clock 0.1 2
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# A row per CPU per interval; a sample time missed makes one gap row
	# of both.
	local n rows
	n=$("$PY" -c 'import os; print(len(os.sched_getaffinity(0)))')
	rows=$(grep -cE ',(tick|gap),' "$T/rows.csv")
	[ "$rows" -ge "$n" ]
	[ "$rows" -le $((2 * n)) ]
	cs_run --output-fd=2 -c task-clock 0.1 1
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -q ' total ' "$T/err"
}

# same_event_twice FORMAT FILE: FILE, in FORMAT, names the two counters of
# one event apart (user and kernel, then the same modes on pic0 and pic1)
# and gives each its own value: no key, column or series twice.
same_event_twice() {
	"$PY" - "$1" "$2" <<'EOF'
import csv, io, json, re, sys
fmt, text = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
names = {"page-faults:u", "page-faults:k"}
if fmt == "csv":
    head = next(csv.reader(io.StringIO(text)))
    assert len(head) == len(set(head)), head
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r["set"] == "0"]
    assert names <= set(head), head
    assert rows and all(r["page-faults:u"] != "" and r["page-faults:k"] != "" for r in rows), rows
    assert any(int(r["page-faults:u"]) > 0 for r in rows), rows
elif fmt == "json":
    def unique(pairs):
        keys = [k for k, _ in pairs]
        assert len(keys) == len(set(keys)), keys
        return dict(pairs)
    objs = [json.loads(l, object_pairs_hook=unique) for l in text.splitlines()]
    assert [e["name"] for e in objs[0]["sets"][0]["events"]] == ["page-faults:u", "page-faults:k"], objs[0]
    rows = [o for o in objs[1:] if o.get("set") == 0]
    assert rows and all(set(o["counters"]) == names for o in rows), rows
    assert any(o["counters"]["page-faults:u"] > 0 for o in rows), rows
else:
    series = re.findall(r'^([a-z_]+\{[^}]*\}) \S+$', text, re.M)
    assert len(series) == len(set(series)), [s for s in series if series.count(s) > 1]
    events = set(re.findall(r'event="([^"]*)"', text))
    assert events == names, events
EOF
}

@test "one event twice in a set: each counter named apart in every format, both commands" {
	local fmt loop spec=page-faults,page-faults,nouser1,sys1
	for fmt in csv json openmetrics prometheus; do
		ct_run --format=$fmt -T 0.05 -c "$spec" "$W/ct_steady" 1 10 5 20
		[ "$status" -eq 0 ] || { cat "$T/err"; false; }
		same_event_twice $fmt "$T/out"
		case $fmt in
		openmetrics) om_check "$T/out" ;;
		prometheus) prometheus_check "$T/out" ;;
		esac
		# An idle machine may fault no page in 0.2 s: new processes do.
		(while :; do /bin/true; done) &
		loop=$!
		ct_bg "$loop"
		cs_run --format=$fmt -c "$spec" 0.1 2
		end_bg "$loop"
		[ "$status" -eq 0 ] || { cat "$T/err"; false; }
		same_event_twice $fmt "$T/out"
	done
	# The same modes too: the counter tells them apart; a tracepoint
	# counts in both modes, so each counts every write.
	ct_run --format=csv -T 0 -c "$WRITE,$WRITE" "$W/ct_marker" /dev/null 7
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] == "exit"]
w = "syscalls:sys_enter_write:u"
assert [(r[w + "#pic0"], r[w + "#pic1"]) for r in rows] == [("7", "7")], rows
EOF
}

@test "one event in two spellings: one column and one series, by its canonical name; the spec as written" {
	ct_run --format=csv -T 0 -c faults -c page-faults "$W/ct_marker" /dev/null 3
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	head -1 "$T/out" | tr , '\n' >"$T/columns"
	[ "$(grep -cx page-faults "$T/columns")" -eq 1 ]
	run ! grep -qx faults "$T/columns"
	grep -q ',meta,.*,set.0,faults$' "$T/out"
	grep -q ',meta,.*,set.1,page-faults$' "$T/out"
	ct_run --format=json -T 0 -c cs:k "$W/ct_marker" /dev/null 3
	[ "$status" -eq 0 ]
	"$PY" - "$T/out" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["sets"][0]["spec"] == "cs:k", lines[0]
assert [e["name"] for e in lines[0]["sets"][0]["events"]] == ["context-switches:k"]
assert all(list(r["counters"]) == ["context-switches:k"] for r in lines[1:] if r.get("counters")), lines
PY
	cs_run --format=openmetrics -c cs,sys 0.1 1
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	grep -q 'event="context-switches"' "$T/out"
	run ! grep -q 'event="cs"' "$T/out"
	grep -q '^cpustat_set_info{set="0",spec="cs,sys"} 1$' "$T/out"
}
