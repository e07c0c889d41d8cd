#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# --input: a record of a real run (-j) read back. Every format gives the
# record's rows, field by field, with the record's host, start and
# version; from a file or from standard input; with several sets; at the
# pace of a reader that stops, losing nothing. A malformed record is one
# line that names its line and field, exit 2, and its row is not
# written; memory stays bounded on any input; options of a run are
# refused; text from a record reaches the table inert.

load output_helper

setup() {
	out_setup
	need_py json
}

teardown() {
	local p
	# A reader left stopped by a failed test would hold a pipe for ever.
	for p in $(cat "$T"/reader 2>/dev/null); do
		kill -CONT "$p" 2>/dev/null || true
	done
	if [ -n "${CG:-}" ]; then
		find "$CG" -name cgroup.procs -exec cat {} + 2>/dev/null |
		    while read -r p; do kill -KILL "$p" 2>/dev/null || true; done
	fi
	out_teardown
	[ -z "${CG:-}" ] || find "$CG" -depth -type d -exec rmdir {} + 2>/dev/null || true
}

# record [cputrack args...]: a run's record in $T/rec.json, its origin
# changed to a host and a start of its own ("recorded", 2001-02-03), so
# that what reads it back shows the record's and not its own.
record() {
	ct_run -j "$@"
	[ "$status" -eq 0 ] || return 1
	"$PY" - "$T/out" "$T/rec.json" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
head = json.loads(lines[0])
head["host"] = "recorded"
head["start"] = "2001-02-03T04:05:06.000000007Z"
head["start_epoch_ns"] = 981173106000000007
head["tool_version"] = "0.0.7"
with open(sys.argv[2], "w") as f:
    f.write(json.dumps(head, separators=(",", ":")) + "\n")
    for l in lines[1:]:
        f.write(l + "\n")
EOF
}

# replay ARGS...: "$CT" --input ARGS..., output in $T/rep, stderr in
# $T/rep.err; sets status.
replay() {
	status=0
	timeout -k 5 120 "$CT" --input "$@" >"$T/rep" 2>"$T/rep.err" || status=$?
	[ "$status" -eq 0 ] || cat "$T/rep.err"
}

@test "JSON: the record again, byte for byte, from a file and from standard input, with several sets" {
	record -f -T 0.01 -c task-clock -c syscalls:sys_enter_getpriority \
	    "$W/wl_spin_for" 0 300
	# Both sets have rows, and forks of the tree are there.
	"$PY" - "$T/rec.json" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
sets = {r["set"] for r in rows if r["set"] is not None}
assert sets == {0, 1}, sets
EOF
	replay "$T/rec.json" -j
	[ "$status" -eq 0 ]
	cmp "$T/rec.json" "$T/rep"
	[ ! -s "$T/rep.err" ]
	status=0
	"$CT" --input - -j <"$T/rec.json" >"$T/stdin.json" 2>"$T/rep.err" ||
	    status=$?
	[ "$status" -eq 0 ]
	cmp "$T/rec.json" "$T/stdin.json"
}

@test "CSV, table and trace: each row of the record, field by field, with the record's host, start and version" {
	record -f -T 0.02 -c task-clock,syscalls:sys_enter_write \
	    "$W/wl_forktree" 2 2 300
	replay "$T/rec.json" --format=csv
	[ "$status" -eq 0 ]
	cp "$T/rep" "$T/rep.csv"
	replay "$T/rec.json"
	[ "$status" -eq 0 ]
	cp "$T/rep" "$T/rep.table"
	replay "$T/rec.json" --format=trace
	[ "$status" -eq 0 ]
	cp "$T/rep" "$T/rep.trace"
	"$PY" - "$T/rec.json" "$T/rep.csv" "$T/rep.table" "$T/rep.trace" <<'EOF'
import csv, json, sys
rec = [json.loads(l) for l in open(sys.argv[1])]
head, rows = rec[0], rec[1:]
names = [e["name"] for e in head["sets"][0]["events"]]
assert len(rows) > 7 and any(r["label"] == "fork" for r in rows), rows

def empty(v):
    return "" if v is None else str(v)

# CSV: the meta rows say the record's origin; every row, every field.
meta, got = {}, []
for r in csv.DictReader(open(sys.argv[2])):
    if r["label"] == "meta":
        meta[r["key"]] = r["value"]
    else:
        got.append(r)
assert (meta["host"], meta["start"], meta["start_epoch_ns"], meta["tool_version"]) == \
    ("recorded", head["start"], str(head["start_epoch_ns"]), "0.0.7"), meta
assert len(got) == len(rows), (len(got), len(rows))
for want, r in zip(rows, got):
    assert abs(float(r["time"]) - want["time"]) < 1e-9, (r, want)
    for k in ("pid", "lwp", "tid", "label", "set", "enabled_ns", "running_ns",
              "proc", "child", "not_counted", "partial"):
        assert r[k] == empty(want.get(k)), (k, r, want)
    for n in names:
        want_v = (want.get("counters") or {}).get(n)
        assert r[n] == empty(want_v), (n, r, want)

# The table: the origin, then a row per row, pid, lwp and counts as
# recorded (-f: the pid column).
table = open(sys.argv[3]).read().splitlines()
assert table[0] == "# cputrack 0.0.7 on recorded, started " + head["start"], table[0]
assert table[1].split() == ["time", "pid", "lwp", "event", "pic0", "pic1"], table[1]
assert len(table) == 2 + len(rows), table
for want, line in zip(rows, table[2:]):
    f = line.split()
    assert f[0] == "%.3f" % want["time"] and f[1] == str(want["pid"]) and \
        f[2] == str(want["lwp"]) and f[3] == want["label"], (line, want)
    if want["set"] is not None:
        assert f[4:6] == [str(want["counters"][n]) for n in names], (line, want)
    else:
        assert f[5] == str(want["child"]), (line, want)

# The trace: the record's facts, and a counter event of each row's counts.
trace = json.load(open(sys.argv[4]))
facts = [e for e in trace if e["name"] == "cpctools"][0]["args"]
assert (facts["host"], facts["start"], facts["tool_version"]) == \
    ("recorded", head["start"], "0.0.7"), facts
counters = [e for e in trace if e["ph"] == "C"]
for want in rows:
    if want["set"] is None:
        continue
    assert any(e["pid"] == want["pid"] and abs(e["ts"] - want["time"] * 1e6) < 1.5
               and e["args"] == want["counters"] for e in counters), want
EOF
}

@test "openmetrics and prometheus: each process's totals as recorded, the record's version and start" {
	record -T 0.02 -c task-clock,syscalls:sys_enter_getpriority \
	    "$W/wl_getpriority" 2000
	local format
	for format in openmetrics prometheus; do
		replay "$T/rec.json" --format=$format
		[ "$status" -eq 0 ]
		"$PY" - "$T/rec.json" "$T/rep" "$format" <<'EOF'
import json, re, sys
rec = [json.loads(l) for l in open(sys.argv[1])]
head, rows = rec[0], rec[1:]
text = open(sys.argv[2]).read()
assert 'cpctools_build_info{tool="cputrack",version="0.0.7"} 1' in text, text
assert "cputrack_start_time_seconds 981173106.000000007\n" in text, text
assert text.endswith("# EOF\n") == (sys.argv[3] == "openmetrics"), text[-40:]
ex = [r for r in rows if r["label"] == "exit"][0]
pid, c = ex["pid"], ex["counters"]
def sample(name, event):
    m = re.search(r'^%s\{pid="%d",[^}]*event="%s"[^}]*\} (\S+)$' % (name, pid, re.escape(event)), text, re.M)
    assert m, (name, event, text)
    return m.group(1)
assert int(sample("cputrack_process_events_total", "syscalls:sys_enter_getpriority")) == \
    c["syscalls:sys_enter_getpriority"] == 2000, c
assert sample("cputrack_process_event_seconds_total", "task-clock") == "%.9f" % (c["task-clock"] / 1e9), c
EOF
	done
}

@test "cpustat: the record again in JSON, the table's CPUs, and --per-socket's units as recorded" {
	cs_run -j -c task-clock 0.1 2
	[ "$status" -eq 0 ]
	cp "$T/out" "$T/cs.json"
	run "$CS" --input "$T/cs.json" -j
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$T/cs.json")" ]
	run "$CS" --input "$T/cs.json"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/cs.table"
	"$PY" - "$T/cs.json" "$T/cs.table" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
table = open(sys.argv[2]).read().splitlines()
assert table[0].startswith("# cpustat ") and table[1].split() == ["time", "cpu", "event", "pic0"], table
assert len(table) == 2 + len(rows), table
for want, line in zip(rows, table[2:]):
    f = line.split()
    cpu = want["cpu"] if want["cpu"] is not None else want["ncpus"]
    assert f[1:4] == [str(cpu), want["label"], str(want["counters"]["task-clock"])], (line, want)
EOF
	cs_run -j --per-socket -c task-clock 0.1 1
	[ "$status" -eq 0 ]
	cp "$T/out" "$T/sock.json"
	run "$CS" --input "$T/sock.json" -j
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$T/sock.json")" ]
	run "$CS" --input "$T/sock.json"
	[ "$status" -eq 0 ]
	[ "$(echo "${lines[1]}" | tr -s ' ')" = " time unit cpus event pic0 " ]
	[[ ${lines[2]} =~ ^\ +[0-9.]+\ S0\ +[0-9]+\ +tick\ +[0-9]+\ $ ]]
}

# replay_stopped: cputrack --input ARGS | a reader that stops itself at
# once and later copies the rows to $T/rep; in the background. cputrack's
# pid in $T/ct, its status in $T/rc, its stderr in $T/rep.err.
replay_stopped() {
	rm -f "$T/rc" "$T/reader" "$T/ct" "$T/rep"
	{
		"$CT" --input "$@" 2>"$T/rep.err" &
		echo $! >"$T/ct"
		rc=0
		wait $! || rc=$?
		echo "$rc" >"$T/rc"
	} | {
		sh -c 'echo $$ >"$1"; kill -STOP $$; exec cat >"$2"' sh \
		    "$T/reader" "$T/rep"
	} &
	ct_bg $!
	wait_filled "$T/reader"
	wait_filled "$T/ct"
}

# held PID: process PID waits for its output: a thread writes to a full
# pipe, and the one that reads the record waits for room.
held() {
	grep -q pipe_write /proc/"$1"/task/*/wchan &&
	    grep -q futex /proc/"$1"/task/*/wchan
}

@test "a reader that stops: the replay waits for it, and every row comes, none dropped, exit 0" {
	record -T 0.05 -c task-clock,syscalls:sys_enter_getpriority \
	    "$W/wl_getpriority" 10
	# 20,000 rows, some 8 MB of JSON: more than the pipe and the queue.
	"$PY" - "$T/rec.json" "$T/big.json" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
row = json.loads(lines[-1])
with open(sys.argv[2], "w") as f:
    f.write(lines[0] + "\n")
    for i in range(20000):
        row["time"] = i / 1000
        row["counters"]["syscalls:sys_enter_getpriority"] = i
        f.write(json.dumps(row, separators=(",", ":")) + "\n")
EOF
	replay_stopped "$T/big.json" -j
	local ct
	ct=$(cat "$T/ct")
	wait_while "$ct" held "$ct"
	[ ! -e "$T/rc" ]
	kill -CONT "$(cat "$T/reader")"
	wait_filled "$T/rc"
	[ "$(cat "$T/rc")" -eq 0 ]
	[ ! -s "$T/rep.err" ]
	wait_for cmp -s "$T/big.json" "$T/rep"
}

# bad_record LINE MESSAGE: --input $T/bad.json fails with exit 2 and the
# one line MESSAGE about line LINE, and writes no row of that line.
bad_record() {
	local line=$1 message=$2
	run --separate-stderr "$CT" --input "$T/bad.json" -j
	[ "$status" -eq 2 ] || { echo "exit $status: $stderr"; return 1; }
	[ "$stderr" = "cputrack: --input $T/bad.json: line $line: $message" ] ||
	    { echo "said: $stderr"; echo "want: line $line: $message"; return 1; }
	# The head and the rows before the bad line, no more.
	[ "${#lines[@]}" -le $((line - 1)) ] ||
	    { echo "wrote ${#lines[@]} lines before line $line"; return 1; }
}

# mutate LINE PYTHON: $T/bad.json, the record with line LINE's object
# (o) changed by the Python statement.
mutate() {
	"$PY" - "$T/rec.json" "$T/bad.json" "$1" "$2" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
n = int(sys.argv[3])
o = json.loads(lines[n - 1])
exec(sys.argv[4])
lines[n - 1] = json.dumps(o, separators=(",", ":"))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
EOF
}

@test "a malformed record: one line naming its line and field, exit 2, nothing of that line written" {
	record -T 0.05 -c task-clock,syscalls:sys_enter_getpriority \
	    "$W/wl_getpriority" 10
	local last
	last=$(wc -l <"$T/rec.json")
	mutate 1 'o["machine"]["smt_on"] = "yes"'
	bad_record 1 '"machine.smt_on": not 0 or 1, false or true'
	mutate 1 'del o["machine"]["slots"]'
	bad_record 1 '"machine.slots": missing (the formulas need it)'
	mutate 1 'o["version"] = 99'
	bad_record 1 '"version": 99 is out of range (1 to 2)'
	mutate 1 'o["sets"] = []'
	bad_record 1 '"sets": not 1 to 1024 recorded sets'
	mutate 1 'o["start"] = "yesterday"'
	bad_record 1 '"start": not an RFC 3339 time'
	mutate "$last" 'o["counters"]["task-clock"] = -1'
	bad_record "$last" '"counters.task-clock": not a count (an integer from 0)'
	mutate "$last" 'o["counters"]["task-clock"] = "12"'
	bad_record "$last" '"counters.task-clock": not a count (an integer from 0)'
	mutate "$last" 'o["counters"]["bogus"] = 1'
	bad_record "$last" '"counters.bogus": not a counter of its set'
	mutate "$last" 'del o["counters"]'
	bad_record "$last" '"counters": missing'
	mutate "$last" 'o["counters"]["task-clock"] = None'
	bad_record "$last" '"counters.task-clock": null in a row counted'
	mutate "$last" 'o["enabled_ns"] = 2**63 - 1'
	bad_record "$last" '"enabled_ns": 9223372036854775807 is out of range (0 to 4611686018427387904)'
	mutate "$last" 'o["enabled_ns"] = -2**63'
	bad_record "$last" '"enabled_ns": -9223372036854775808 is out of range (0 to 4611686018427387904)'
	mutate "$last" 'o["running_ns"] = o["enabled_ns"] + 1'
	bad_record "$last" '"running_ns": more than "enabled_ns"'
	mutate "$last" 'o["time"] = -1'
	bad_record "$last" '"time": not seconds from 0'
	mutate "$last" 'o["label"] = "bogus"'
	bad_record "$last" '"label": not a row'"'"'s label'
	mutate "$last" 'o["set"] = 5'
	bad_record "$last" '"set": 5 is out of range (0 to 0)'
	mutate "$last" 'o["pid"] = "1"'
	bad_record "$last" '"pid": not an integer'
	mutate "$last" 'o["tsc"] = -5'
	bad_record "$last" '"tsc": -5 is out of range (0 to 9223372036854775807)'
	# Two records joined: the second's head.
	cat "$T/rec.json" "$T/rec.json" >"$T/bad.json"
	bad_record $((last + 1)) "a second record's head: records of two runs are joined; read each alone"
	# A count beyond a 64-bit integer, and a line that is no JSON.
	sed "${last}s/\"task-clock\":[0-9]*/\"task-clock\":18446744073709551616/" \
	    "$T/rec.json" >"$T/bad.json"
	run --separate-stderr "$CT" --input "$T/bad.json" -j
	[ "$status" -eq 2 ]
	[[ $stderr == "cputrack: --input $T/bad.json: line $last: not a JSON object: too big integer"* ]]
	{ head -n 1 "$T/rec.json"; echo '{"time":'; } >"$T/bad.json"
	run --separate-stderr "$CT" --input "$T/bad.json" -j
	[ "$status" -eq 2 ]
	[[ $stderr == "cputrack: --input $T/bad.json: line 2: not a JSON object: "* ]]
}

# max_rss_kb COMMAND...: the command's peak resident memory in KiB; its
# status in $T/max.rc, its stderr in $T/max.err.
max_rss_kb() {
	"$PY" - "$T" "$@" <<'EOF'
import resource, subprocess, sys
with open(sys.argv[1] + "/max.err", "w") as err:
    rc = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err, timeout=60)
open(sys.argv[1] + "/max.rc", "w").write("%d\n" % rc)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
}

@test "memory stays bounded: /dev/zero and a line of 64 MB are refused at 1 MiB, in one line" {
	local kb
	kb=$(max_rss_kb "$CT" --input=/dev/zero)
	[ "$(cat "$T/max.rc")" -eq 2 ]
	[ "$(cat "$T/max.err")" = "cputrack: --input /dev/zero: line 1: longer than 1048576 bytes: not a record's line" ]
	[ "$kb" -lt 65536 ] || { echo "$kb KiB"; false; }
	record -T 0.05 -c task-clock "$W/wl_getpriority" 10
	{
		head -n 1 "$T/rec.json"
		head -c 67108864 /dev/zero | tr '\0' ' '
		echo
	} >"$T/huge.json"
	kb=$(max_rss_kb "$CT" --input "$T/huge.json" -j)
	[ "$(cat "$T/max.rc")" -eq 2 ]
	[ "$(cat "$T/max.err")" = "cputrack: --input $T/huge.json: line 2: longer than 1048576 bytes: not a record's line" ]
	[ "$kb" -lt 65536 ] || { echo "$kb KiB"; false; }
}

@test "options of a run are refused in one line; -t reads a record's tsc, or is refused where it has none" {
	record -T 0.05 -c task-clock "$W/wl_getpriority" 10
	local opt
	for opt in "-p 1" "-T 1" "-r 2" "-f" "--per-thread"; do
		# shellcheck disable=SC2086 # the option and its argument
		run --separate-stderr "$CT" --input "$T/rec.json" $opt
		[ "$status" -eq 2 ]
		[ "$stderr" = "cputrack: ${opt%% *} cannot be given with --input: a record is read back as it was counted, not counted again" ]
		[ -z "$output" ]
	done
	run --separate-stderr "$CS" --input "$T/rec.json" --per-socket
	[ "$status" -eq 2 ]
	[ "$stderr" = "cpustat: --per-socket cannot be given with --input: a record is read back as it was counted, not counted again" ]
	run --separate-stderr "$CT" --input "$T/rec.json" -t
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --input $T/rec.json: line 2: \"tsc\": none in the record (made without -t): -t cannot show it" ]
	[[ $output != *" exit "* ]]
	record -t -T 0.05 -c task-clock "$W/wl_getpriority" 10
	replay "$T/rec.json" -t
	[ "$status" -eq 0 ]
	"$PY" - "$T/rec.json" "$T/rep" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
table = open(sys.argv[2]).read().splitlines()[2:]
assert len(table) == len(rows) and rows, table
for want, line in zip(rows, table):
    assert line.split()[3] == str(want["tsc"]), (line, want)
EOF
}

@test "text from a record reaches the table inert: ESC, BEL, CR, C1 and U+202E as \\xNN" {
	record -T 0.05 -c task-clock "$W/wl_getpriority" 10
	local last
	last=$(wc -l <"$T/rec.json")
	mutate "$last" 'o["not_counted"] = "a\x1b[2Jb\x07c\rd\x9be\u202ef"; o["counters"]["task-clock"] = None; o["enabled_ns"] = o["running_ns"] = None'
	run --separate-stderr "$CT" --input "$T/bad.json"
	[ "$status" -eq 1 ]
	[[ $output == *'# not counted: a\x1b[2Jb\x07c\x0dd\xc2\x9be\xe2\x80\xaef'* ]]
	if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80\xae' <<<"$output"; then
		fail "a raw control character in the table: $output"
	fi
	# A name the record gives, quoted in an error, is inert too.
	mutate "$last" 'o["counters"]["\x1b]0;x\x07"] = 1'
	bad_record "$last" '"counters.\x1b]0;x\x07": not a counter of its set'
}


# cg_sum FILE NAME: the sum of the getpriority counts of cgroup NAME's
# cgroup rows in the JSON of FILE.
cg_sum() {
	"$PY" - "$1" "$2" <<'PYEOF'
import json, sys
n = 0
for l in open(sys.argv[1]).read().splitlines()[1:]:
    r = json.loads(l)
    if r["label"] == "cgroup" and r.get("cgroup") == sys.argv[2]:
        n += r["counters"]["syscalls:sys_enter_getpriority"] or 0
print(n)
PYEOF
}
sums_are() {
	[ "$(cg_sum "$T/out" "/$NAME/a")" -eq 300 ] &&
	    [ "$(cg_sum "$T/out" "/$NAME/b")" -eq 700 ]
}

@test "--for-each-cgroup: JSON and CSV rows name their cgroup, and the replay keeps cgroups apart" {
	[ "${ENGINE:-}" = bpf ] ||
	    skip "--for-each-cgroup needs the BPF engine (the bpf pass runs this)"
	local mnt
	mnt=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup2") print $5; break } }' \
	    /proc/self/mountinfo | head -n 1)
	[ -n "$mnt" ] || skip "no cgroup v2 hierarchy is mounted here"
	NAME=cpctools-replay-$$-$BATS_TEST_NUMBER
	CG=$mnt/$NAME
	mkdir "$CG" "$CG/a" "$CG/b" ||
	    skip "cannot make a cgroup under $mnt (a container's read-only one)"
	start_cputrack_until '"label":"cgroup"' --for-each-cgroup="/$NAME" \
	    -T 0.1 -c syscalls:sys_enter_getpriority -j
	sh -c 'echo $$ >"$1/cgroup.procs"; exec "$2" 300' sh "$CG/a" \
	    "$W/wl_getpriority"
	sh -c 'echo $$ >"$1/cgroup.procs"; exec "$2" 700' sh "$CG/b" \
	    "$W/wl_getpriority"
	wait_while "$CPID" sums_are || { cat "$T/out" "$T/err"; false; }
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ]
	cp "$T/out" "$T/cg.json"
	# Read back: the same rows, each cgroup's apart, in JSON and CSV.
	replay "$T/cg.json" -j
	[ "$status" -eq 0 ]
	cmp "$T/cg.json" "$T/rep"
	[ "$(cg_sum "$T/rep" "/$NAME/a")" -eq 300 ]
	[ "$(cg_sum "$T/rep" "/$NAME/b")" -eq 700 ]
	replay "$T/cg.json" --format=csv
	[ "$status" -eq 0 ]
	"$PY" - "$T/rep" "/$NAME" <<'PYEOF'
import csv, sys
sums = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["label"] == "cgroup":
        v = r["syscalls:sys_enter_getpriority"]
        sums[r["cgroup"]] = sums.get(r["cgroup"], 0) + int(v or 0)
assert sums.get(sys.argv[2] + "/a") == 300 and sums.get(sys.argv[2] + "/b") == 700, sums
PYEOF
	# The table names each cgroup's rows (pid and LWP 0), as the run's did.
	replay "$T/cg.json"
	[ "$status" -eq 0 ]
	grep -qE "^ +[0-9.]+ +0 +0 +cgroup +[0-9]+ +# /$NAME/a\$" "$T/rep"
	grep -qE "^ +[0-9.]+ +0 +0 +cgroup +[0-9]+ +# /$NAME/b\$" "$T/rep"
}
