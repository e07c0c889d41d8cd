#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# Every recipe of the manual pages, cpctools-output(5) included (each
# command line of their example blocks) and of the README is run, as written, with a program that
# prints: ./prog is tests/workloads/wl_print, whose own output (lines that
# look like rows of every format) goes where the program's goes. A recipe
# passes when it ends as documented and what it makes (JSON for jq, a CSV
# file, a metrics file, /metrics) is what a standard reader takes.
#
# What a recipe names that is not here is made: ./prog, a Makefile for
# "make -j4", pid 1234 and the pids of nginx (a process that prints, for
# -p), node_exporter's textfile directory (one in the test's directory),
# the ports (free ones), and taskset's CPUs (this machine's, where it has
# fewer); the live view (--top) runs in batch mode, for want of a
# terminal. Recipes that need a hardware PMU are refused without one, with
# exit status 2 and the reason, as the pages say; with one they must run.

load output_helper

setup() {
	out_setup
	SRC=${SOURCE_DIR:-$BATS_TEST_DIRNAME/../..}
	command -v jq >/dev/null || skip "jq is not installed (scripts/deps installs it)"
	command -v curl >/dev/null || skip "curl is not installed"
	R=$T/run
	mkdir -p "$R/textfile"
	ln -s "$W/wl_print" "$R/prog"
	ln -s "$BUILD_DIR" "$R/build"
	printf 'all: a b\na:\n\t./prog 20 5 1\nb:\n\t./prog 30 5 1\n' >"$R/Makefile"
	PATH=$(dirname "$CT"):$(dirname "$CS"):$PATH
	# Pid 1234 of the -p recipes, and tid 1234 of --tid's: a process
	# that prints all the time, its one thread.
	sh -c 'for i in $(seq 36000); do echo "still here"; sleep 0.05; done' >"$T/printer.out" & # not a wait: it prints all the time; at most 36000 lines (30 min)
	PRINTER=$!
	ct_bg "$PRINTER"
	if ls /sys/bus/event_source/devices/ |
	    grep -qE '^(cpu|cpu_core|cpu_atom|armv[78]_.*|arm_.*)$'; then
		PMU=1
	else
		PMU=0
	fi
	CPUS=$("$PY" -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')
}

teardown() {
	out_teardown
}

# recipes FILE: the command lines of FILE's example blocks (a man page's
# .EX/.EE, the README's indented code), one a line, continued lines
# ending in "|" joined.
recipes() {
	"$PY" - "$1" <<'EOF'
import re, sys
path = sys.argv[1]
start = re.compile(r"(cputrack|cpustat|taskset -c [0-9,]+ cpustat) ")
out, buf = [], None

def take(s):
    global buf
    if buf is not None:
        buf += " " + s.strip()
        if not buf.endswith("|"):
            out.append(buf)
            buf = None
        return
    s = s.strip()
    if s.startswith("$ "):
        s = s[2:]
    if start.match(s):
        if s.endswith("|"):
            buf = s
        else:
            out.append(s)

if path.endswith(".md"):
    for line in open(path):
        if line.startswith("    "):
            take(line.rstrip("\n"))
else:
    ex = False
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith(".EX"):
            ex = True
        elif line.startswith(".EE"):
            ex, buf = False, None
        elif ex and not line.startswith("."):
            for a, b in (("\\-", "-"), ("\\(aq", "'"), ("\\(dq", '"'),
                         ("\\fB", ""), ("\\fP", ""), ("\\fI", ""),
                         ("\\fR", ""), ("\\&", ""), ("\\e", "\\")):
                line = line.replace(a, b)
            take(line)
print("\n".join(out))
EOF
}

# What the recipe becomes here (see the top).
localize() {
	local cmd=$1 port
	port=$(free_port)
	cmd=${cmd//-p 1234/-p $PRINTER}
	cmd=${cmd//--tid=1234/--tid=$PRINTER}
	cmd=${cmd//'-p "$(pgrep -d, nginx)"'/-p $PRINTER}
	cmd=${cmd//\/var\/lib\/prometheus\/node-exporter\//$R/textfile/}
	cmd=${cmd//127.0.0.1:9417/127.0.0.1:$port}
	cmd=${cmd//127.0.0.1:9418/127.0.0.1:$port}
	# The live view needs a terminal, which a recipe has not here: its
	# batch mode (-b) counts the same and prints the view as text.
	cmd=${cmd/--top /--top -b }
	if [[ $cmd =~ ^taskset\ -c\ ([0-9,]+)\  ]]; then
		"$PY" -c 'import os, sys
want = {int(c) for c in sys.argv[1].split(",")}
sys.exit(0 if want <= os.sched_getaffinity(0) else 1)' "${BASH_REMATCH[1]}" ||
			cmd="taskset -c $CPUS ${cmd#taskset -c "${BASH_REMATCH[1]}" }"
	fi
	printf '%s\n' "$cmd"
}

# The status the pages promise: 2 for events this machine cannot count.
expected_status() {
	if [[ $1 == *EC_ref* ]]; then
		echo 2
	elif [[ $PMU == 0 && $1 =~ (cycles|instructions|cache-misses|Cycle_cnt|Instr_cnt|=0xc0|-M\ (IPC|Branch|Cache|Topdown|Pipeline|MemoryBW|Power|tma_)) ]]; then
		echo 2
	else
		echo 0
	fi
}

# run_one RECIPE: run it in $R as the pages show it; check what it makes.
run_one() {
	local recipe=$1 cmd want rc try port
	cmd=$(localize "$recipe")
	want=$(expected_status "$cmd")
	echo "# $cmd (want $want)"
	# Another run's cpustat, or a test taking a CPU offline, disturbs a
	# run on this machine: then it runs again.
	for try in 1 2 3 4 5 6 7 8 9 10; do
		rm -f "$R"/*.csv "$R/textfile"/*
		rc=0
		if [[ $cmd == *--listen=* ]]; then
			run_listening "$cmd" || rc=$?
		elif [[ $cmd == *cpustat* ]]; then
			run_counting "$cmd" || rc=$?
		elif [[ $cmd =~ (\ -p\ |--tid=)[0-9] && $cmd != *" -N "* ]]; then
			run_attached "$cmd" || rc=$?
		else
			run_timed "$cmd" || rc=$?
		fi
		grep -qE 'Resource temporarily unavailable|contents invalidated|went offline' \
		    "$T/err" || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 10 tries
	done
	if [ "$rc" -ne "$want" ]; then
		echo "exit $rc, wanted $want"
		cat "$T/err"
		return 1
	fi
	if [ "$want" -eq 2 ]; then
		grep -qE 'hardware event|no hardware PMU|no exact Linux equivalent|no such metric or metric group' "$T/err"
		return
	fi
	check_made "$cmd"
}

# start_bounded SECS GRACE CMD: recipe CMD (bash -c, in $R) in a session
# and process group of its own, GROUP, sent SIGINT after SECS seconds and
# SIGKILL GRACE seconds later by a watchdog, WATCHDOG (end_bounded ends
# it). Not timeout(1): it sends SIGCONT right after its signal, and a
# SIGCONT discards the SIGSTOP of a ptrace attach not yet taken, which
# LeakSanitizer's stop of every thread, at the exit of a sanitizer
# build's cputrack, then waits for forever (wl_attach_cont shows it).
start_bounded() {
	local secs=$1 grace=$2 cmd=$3
	(cd "$R" && exec env --default-signal=INT setsid \
	    bash -o pipefail -c "$cmd") >"$T/out" 2>"$T/err" &
	GROUP=$!
	(
		local nap
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM
		# Not a wait: the bound of the run, as timeout(1)'s was.
		sleep "$secs" &
		nap=$!
		wait "$nap"
		kill -INT -- -"$GROUP" 2>/dev/null || exit 0
		sleep "$grace" &
		nap=$!
		wait "$nap"
		kill -KILL -- -"$GROUP" 2>/dev/null
	) >/dev/null 2>&1 3>&- &
	WATCHDOG=$!
}

# end_bounded: the watchdog of start_bounded, and its sleep, once its
# group has ended.
end_bounded() {
	kill "$WATCHDOG" 2>/dev/null || true
	wait "$WATCHDOG" 2>/dev/null || true
}

# run_timed CMD: a recipe that ends by itself, or by SIGINT after a
# minute; one that does not end on SIGINT shows what it is doing, then
# is killed.
run_timed() {
	local cmd=$1 rc=0
	start_bounded 60 30 "$cmd"
	WAIT_BOUND_S=80 gone "$GROUP" || still_running "$GROUP"
	wait "$GROUP" || rc=$?
	end_bounded
	return "$rc"
}

# run_attached CMD: a cputrack recipe that counts a running process
# until interrupted: once it has printed a tick, SIGINT, as a user's
# Ctrl-C; cputrack lets the process go on (the later -p recipes count
# it), prints its totals and exits 0.
run_attached() {
	local cmd=$1 rc=0 late=0
	start_bounded 60 30 "$cmd"
	if ! WAIT_BOUND_S=50 wait_while "$GROUP" grep -q ' tick ' "$T/out" &&
	    running "$GROUP"; then
		still_running "$GROUP" "has not ticked"
		late=1
	fi
	kill -INT -- -"$GROUP" 2>/dev/null || true
	gone "$GROUP" || still_running "$GROUP"
	wait "$GROUP" || rc=$?
	end_bounded
	running "$PRINTER" || { echo "the Ctrl-C ended the process counted"; rc=1; }
	[ "$late" = 0 ] || { echo "no tick in 50 s"; rc=1; }
	return "$rc"
}

# recipe_counted CMD: what cpustat recipe CMD made so far (its rows on
# stdout, in a CSV file or a metrics file) has counts of every set on
# every CPU it measures: those of taskset -c, --cpus= and -C in our affinity
# mask; a row of a socket, die or core counts for its CPUs. A run stopped
# before a set's turn has no total for it.
recipe_counted() {
	"$PY" - "$1" "$T/out" "$R" <<'EOF'
import csv, glob, os, re, sys
cmd, out, run = sys.argv[1:4]
# A README line's comment after the command is not the command's.
cmd = re.sub(r"\s+#\s.*$", "", cmd)

def cpulist(text):
    cpus = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        cpus.update(range(int(a), int(b or a) + 1))
    return cpus

want = set(os.sched_getaffinity(0))
for pattern in (r"taskset -c ([0-9,-]+) ", r"--cpus=([0-9,-]+)",
                r"(?:^| )-C ([0-9,-]+)"):
    m = re.search(pattern, cmd)
    if m:
        want &= cpulist(m.group(1))
# Each -c or -e of cpustat (not taskset's -c) is a set; without either,
# the default events are one.
nsets = len(re.findall(r" -[ce] ", cmd[cmd.index("cpustat"):])) or 1
seen = {}

def topology(cpu, name):
    try:
        return int(open("/sys/devices/system/cpu/cpu%d/topology/%s" % (cpu, name)).read())
    except (OSError, ValueError):
        return -1

def unit_cpus(socket, die, core):
    """The CPUs measured that a row of a unit (--per-socket, -die, -core) sums."""
    return {c for c in want
            if topology(c, "physical_package_id") == socket
            and die in (None, topology(c, "die_id"))
            and core in (None, topology(c, "core_id"))}

def number(field):
    return None if field in (None, "") else int(field)

def counted(cpus, set_key):
    for c in cpus:
        seen.setdefault(c, set()).add(set_key)

for line in open(out, errors="replace"):
    f = line.split()
    set_key = line.partition(" # ")[2].split(";")[0]
    if len(f) > 3 and f[2] in ("tick", "gap") and f[1].isdigit():
        counted({int(f[1])}, set_key)
    elif len(f) > 4 and f[3] in ("tick", "gap"):
        unit = re.fullmatch(r"S(\d+)(?:-D(\d+))?(?:-C(\d+))?", f[1])
        if unit:
            counted(unit_cpus(*map(number, unit.groups())), set_key)
for path in glob.glob(run + "/*.csv"):
    for r in csv.DictReader(open(path)):
        if r.get("label") not in ("tick", "gap"):
            continue
        if r["cpu"] != "":
            counted({int(r["cpu"])}, r["set"])
        elif r.get("socket", "") != "":
            counted(unit_cpus(number(r["socket"]), number(r.get("die")),
                              number(r.get("core"))), r["set"])
for path in glob.glob(run + "/textfile/*.prom"):
    for c, k in re.findall(r'^cpustat_running_seconds_total\{cpu="(\d+)",set="(\d+)"', open(path).read(), re.M):
        seen.setdefault(int(c), set()).add(k)
# Measuring none of our CPUs, it has nothing to count: it ends by itself.
sys.exit(0 if want and all(len(seen.get(c, ())) >= nsets for c in want) else 1)
EOF
}

# run_counting CMD: a cpustat recipe, in $R. One without a count runs
# until interrupted, and some count for minutes: once it has counted on
# every CPU it measures, SIGINT, as a user would; cpustat prints its
# totals and exits 0. A recipe with a count may end first.
run_counting() {
	local cmd=$1 pid rc=0 since late=0
	# The watchdog's SIGKILL comes after the waits below: a run that
	# does not end shows what it is doing before it is killed.
	start_bounded 180 $((WAIT_BOUND_S + 30)) "$cmd"
	pid=$GROUP
	# One that has not counted within the library's bound shows what it
	# is doing before it is interrupted (the watchdog comes later), and
	# fails.
	if ! wait_while "$pid" recipe_counted "$cmd" && running "$pid"; then
		still_running "$pid" "has not counted"
		late=1
	fi
	# SIGINT to the whole group, as a terminal's Ctrl-C, and no SIGCONT.
	kill -INT -- -"$pid" 2>/dev/null || true
	since=$SECONDS
	gone "$pid" || still_running "$pid"
	[ $((SECONDS - since)) -lt 10 ] ||
	    echo "# it took $((SECONDS - since)) s to end after SIGINT" >&3
	wait "$pid" || rc=$?
	end_bounded
	[ "$late" = 0 ] || { echo "no counts on every CPU in ${WAIT_BOUND_S} s"; rc=1; }
	return "$rc"
}

# still_running PID [WHY]: what PID and its descendants are doing, on
# stderr, for a run that did not end on SIGINT (or WHY): each one's
# signal state, kernel stack and, where gdb is installed, every thread's
# user stack.
still_running() {
	local p
	echo "pid $1 ${2:-still runs after SIGINT}:" >&2
	for p in $({ echo "$1"; pgrep -g "$(ps -o pgid= "$1" | tr -d " ")"; } | sort -un); do
		[ -d "/proc/$p" ] || continue
		echo "--- $p: $(tr '\0' ' ' <"/proc/$p/cmdline")" >&2
		grep -E '^(State|SigQ|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt):' \
		    "/proc/$p/status" >&2
		cat "/proc/$p/stack" >&2 2>/dev/null
		if command -v gdb >/dev/null; then
			timeout 30 gdb -q -batch -p "$p" \
			    -ex 'thread apply all bt' >&2 2>&1 </dev/null
		fi
	done
}

# A recipe that serves /metrics: scrape it while it runs, then SIGTERM.
run_listening() {
	local cmd=$1 port pid
	port=${cmd##*127.0.0.1:}
	port=${port%% *}
	(cd "$R" && exec bash -c "exec $cmd") >"$T/out" 2>"$T/err" &
	pid=$!
	# Until it has counted (cpustat: on every CPU, so that stopping it
	# leaves none out of the totals).
	# A program that ends first ends its cputrack: the last scrape is
	# what it served.
	rm -f "$T/scraped"
	wait_while "$pid" served_counts "$cmd" "$port" || true
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid"
	om_check "$T/scraped"
}

# served_counts CMD PORT: the recipe CMD's /metrics on PORT, kept in
# $T/scraped, has counted (cpustat's on every CPU).
served_counts() {
	curl -sf -H "Accept: $PROMETHEUS_ACCEPT" "http://127.0.0.1:$2/metrics" \
	    >"$T/scrape" && mv "$T/scrape" "$T/scraped" &&
	    grep -q '_total{' "$T/scraped" &&
	    { [[ $1 != cpustat* ]] || every_cpu_counted "$T/scraped"; }
}

# What a recipe made is what a standard reader takes.
check_made() {
	local cmd=$1 f sep
	if [[ $cmd == *"| jq"* ]]; then
		[ -s "$T/out" ] && jq -e . "$T/out" >/dev/null ||
			{ echo "jq said: $(cat "$T/out")"; return 1; }
	fi
	# A CSV of -x SEP is read with that separator.
	sep=,
	[[ $cmd =~ \ -x\ \'(.)\' ]] && sep=${BASH_REMATCH[1]}
	for f in "$R"/*.csv; do
		[ -e "$f" ] || continue
		"$PY" -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter=sys.argv[2]))
assert list(rows[0])[0] == "time" and rows[0]["label"] == "meta", rows[:2]
assert any(r["label"] in ("exit", "total") for r in rows)' "$f" "$sep" || return 1
	done
	for f in "$R/textfile"/*; do
		[ -e "$f" ] || continue
		if [[ $cmd == *openmetrics* ]]; then
			om_check "$f" || return 1
		else
			prometheus_check "$f" || return 1
		fi
	done
	return 0
}

# run_all FILE MIN: every recipe of FILE (at least MIN of them). Under
# the BPF engine, those of cputrack: the ptrace run has cpustat's.
run_all() {
	local n=0 failed=0 recipe
	while IFS= read -r recipe; do
		[ -n "$recipe" ] || continue
		n=$((n + 1))
		[ "${ENGINE:-}" != bpf ] || [[ $recipe == *cputrack* ]] ||
			continue
		run_one "$recipe" || { echo "FAILED: $recipe"; failed=$((failed + 1)); }
	done < <(recipes "$1")
	echo "$n recipes, $failed failed"
	[ "$n" -ge "$2" ] && [ "$failed" -eq 0 ]
}

@test "every recipe of cputrack(1) runs as written, with a program that prints" {
	run_all "$SRC/man1/cputrack.1" 16
}

@test "every recipe of cpustat(1) runs as written" {
	[ "${ENGINE:-}" != bpf ] ||
	    skip "cpustat's recipes run no cputrack: the ptrace run has them"
	run_all "$SRC/man1/cpustat.1" 11
}

@test "every recipe of cpctools-output(5) runs as written" {
	run_all "$SRC/man5/cpctools-output.5" 6
}

@test "every recipe of the README runs as written" {
	run_all "$SRC/README.md" 15
}

@test "the jq recipe sums the exit rows even though the program prints lines like JSON rows" {
	local try
	for try in 1 2 3 4 5; do
		(cd "$R" && bash -o pipefail -c \
		    "cputrack --format=json --output-fd=3 -T 0 -c $WRITE ./prog 40 9 1 3>&1 1>&2 |
		    jq -s 'map(select(.label == \"exit\") | .counters[\"$WRITE\"]) | add'") \
		    >"$T/out" 2>"$T/err" || true
		counters_taken || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 5 tries
	done
	# 40 lines to the terminal (here, stderr) and 9 writes to /dev/null.
	[ "$(cat "$T/out")" = 49 ]
	[ "$(grep -c '^line ' "$T/err")" -eq 40 ]
}

@test "why the recipes are not ended by timeout(1): its SIGCONT loses the SIGSTOP of a ptrace attach" {
	# A SIGSTOP that PTRACE_ATTACH sent and the thread has not taken yet
	# (here: it waits in vfork) is discarded by a SIGCONT: the tracer,
	# waiting for that stop as LeakSanitizer does at a sanitizer build's
	# exit, never sees it.
	[ "$("$W/wl_attach_cont")" = stopped ]
	[ "$("$W/wl_attach_cont" cont)" = "never stopped" ]
	# timeout(1) sends SIGCONT right after the signal it was asked to.
	command -v strace >/dev/null || skip "strace is not installed"
	strace -f -qq -e trace=kill -o "$T/timeout.trace" \
	    timeout -s INT 0.2 sleep 30 || true
	grep -q 'SIGINT' "$T/timeout.trace"
	grep -q 'SIGCONT' "$T/timeout.trace"
	# The recipes' bound sends SIGINT to the group, and no SIGCONT.
	start_bounded 0.3 30 'trap "echo CONT" CONT; trap "echo INT; exit 0" INT
	    sleep 30'
	gone "$GROUP"
	wait "$GROUP"
	end_bounded
	[ "$(cat "$T/out")" = INT ]
}
