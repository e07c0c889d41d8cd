#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# Safe on a shared server: the tools share nothing through files (no path
# under /run, /tmp or /var is touched but the ones the user names), a user
# without privilege cannot change what root counts, a cputrack given file
# capabilities counts only what its user could trace (both engines), and
# the exporter unit's own command line runs beside an exact cputrack.

load cputrack_helper

setup() {
	ct_setup
	ensure_tracefs
	[ -x "${CPUSTAT:-}" ] || fail "CPUSTAT must name the cpustat binary"
	BIN=${CPUTRACK_BIN:-$CPUTRACK}
}

teardown() {
	ct_teardown
	[ -z "${PRIV:-}" ] || rm -rf "$PRIV"
	[ -z "${CG:-}" ] || rmdir "$CG" 2>/dev/null || true
}

# Whether this build has the BPF engine and this machine runs it.
bpf_runs() {
	"$BIN" --engine=bpf -c task-clock true >/dev/null 2>&1
}

# The engines to try: ptrace, and bpf where it runs.
engines() {
	echo ptrace
	if bpf_runs; then
		echo bpf
	fi
	return 0
}

# A directory every user can read, outside /root and the build tree, for
# copies of the binaries that nobody runs.
private_bin_dir() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to become nobody and set capabilities"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	PRIV=$(mktemp -d)
	chmod 0755 "$PRIV"
}

as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# The paths under /run, /tmp and /var that a trace ($1) shows touched,
# other than those given after it and the files of the tree under test:
# a tree cloned under /tmp runs its own binaries and libraries from there.
shared_paths() {
	local trace=$1
	shift
	TREES="$SOURCE_DIR:$BUILD_DIR:$W:$(dirname "$BIN"):$(dirname "$CPUSTAT")" \
	    "$PY" - "$trace" "$@" <<'EOF'
import os, re, sys
named = set(sys.argv[2:])
trees = [os.path.realpath(d) for d in os.environ["TREES"].split(":") if d]

def of_tree(path):
    real = os.path.realpath(path)
    return any(real == t or real.startswith(t + "/") for t in trees)

seen = set()
for line in open(sys.argv[1]):
    for path in re.findall(r'"(/(?:run|tmp|var)(?:/[^"]*)?)"', line):
        if path not in named and not of_tree(path):
            seen.add(path)
for p in sorted(seen):
    print(p)
EOF
}

PY=${PY:-python3}

@test "no file under /run, /tmp or /var but the user's own: cputrack (both engines) and cpustat, traced" {
	command -v strace >/dev/null || skip "strace is not installed"
	local e out="$T/rows.csv" found
	# The ptrace engine attaches to a running process (strace cannot
	# follow the child a ptrace engine traces itself).
	"$W/ct_steady" 1 5 100 0 >/dev/null 2>&1 3>&- &
	local target=$!
	ct_bg "$target"
	ASAN_OPTIONS=$(asan_under_ptrace) \
	    strace -f -qq -e trace=%file -o "$T/ptrace.trace" \
	    "$BIN" --engine=ptrace -N 3 -T 0.1 -p "$target" -c "task-clock,$WRITE" \
	    --format=csv --output="$out" 2>"$T/err"
	[ -s "$out" ] || { cat "$T/err"; false; }
	found=$(shared_paths "$T/ptrace.trace" "$out")
	[ -z "$found" ] || { echo "ptrace engine touched: $found"; false; }
	assert_free "$target"
	if bpf_runs; then
		ASAN_OPTIONS=$(asan_under_ptrace) \
		    strace -f -qq -e trace=%file -o "$T/bpf.trace" \
		    "$BIN" --engine=bpf -c "task-clock,$WRITE" --format=csv \
		    --output="$out" "$W/wl_threads" 2 10 2>"$T/err"
		grep -q ',exit,' "$out"
		found=$(shared_paths "$T/bpf.trace" "$out")
		[ -z "$found" ] || { echo "BPF engine touched: $found"; false; }
	fi
	ASAN_OPTIONS=$(asan_under_ptrace) \
	    strace -f -qq -e trace=%file -o "$T/cpustat.trace" \
	    "$CPUSTAT" -c "task-clock,$WRITE" --format=csv --output="$out" 0.1 2
	grep -q ',tick,' "$out"
	found=$(shared_paths "$T/cpustat.trace" "$out")
	[ -z "$found" ] || { echo "cpustat touched: $found"; false; }
}

@test "a user without privilege cannot change what root's cputrack and cpustat count, or whether they run" {
	private_bin_dir
	cp "$BIN" "$CPUSTAT" "$W/wl_threads" "$PRIV/"
	# Root counts exactly, both tools, while nobody does what it can:
	# counts its own program under both tools, fails to count root's,
	# and fills /tmp with files named as the lock files once were.
	"$CPUSTAT" -c "$WRITE" 0.1 >"$T/cs.out" 2>"$T/cs.err" 3>&- &
	local cs=$!
	ct_bg "$cs"
	wait_line "$T/cs.out" ' tick '
	(
		cd "$PRIV"
		for f in any.lock cpu0.lock cpu1.lock generation; do
			as_nobody sh -c "ln -s /etc/shadow /tmp/$f.$$ 2>/dev/null; : > /tmp/x.$f.$$" || true
		done
		as_nobody ./cputrack -c task-clock ./wl_threads 2 100 || true
		as_nobody ./cpustat -c task-clock 0.1 3 || true
		as_nobody ./cputrack -c task-clock -p "$cs" || true
	) >"$T/nobody.out" 2>&1 3>&- &
	local nb=$!
	ct_bg "$nb"
	local e
	for e in $(engines); do
		status=0
		"$BIN" --engine="$e" -c "task-clock,$WRITE" "$W/wl_threads" 4 500 \
		    >"$T/out" 2>"$T/err" || status=$?
		[ "$status" -eq 0 ] || { cat "$T/err"; false; }
		[ -z "$(cat "$T/err")" ]
		# One exit row: task-clock counted, and exactly 4 x 500 writes.
		[ "$(ct_rows exit | awk '{ print $NF }')" -eq 2000 ]
	done
	wait "$nb" || true
	# nobody was refused root's process, and said so.
	grep -q "pid $cs: permission denied" "$T/nobody.out"
	running "$cs"
	kill -TERM "$cs"
	wait "$cs" || true
	[ ! -s "$T/cs.err" ]
	[ "$(grep -c ' tick ' "$T/cs.out")" -ge 2 ]
	rm -f /tmp/*.lock.$$ /tmp/generation.$$ /tmp/x.*.$$
}

@test "a cputrack with file capabilities run by nobody cannot count a root process (both engines)" {
	private_bin_dir
	command -v setcap >/dev/null || skip "setcap is not installed (libcap2-bin)"
	cp "$BIN" "$PRIV/cputrack"
	setcap cap_perfmon,cap_bpf+ep "$PRIV/cputrack" ||
	    skip "this file system keeps no capabilities"
	"$W/ct_steady" 1 5 100 0 >/dev/null 2>&1 3>&- &
	local target=$! e
	ct_bg "$target"
	for e in $(engines); do
		status=0
		as_nobody "$PRIV/cputrack" --engine="$e" -c task-clock -p "$target" \
		    >"$T/out" 2>"$T/err" || status=$?
		[ "$status" -eq 1 ]
		[ "$(cat "$T/err")" = "cputrack: pid $target: permission denied
cputrack: failed to capture pid $target
cputrack: pid $target belongs to another user (uid 0): only that user or root may count it" ]
		[ ! -s "$T/out" ]
		assert_free "$target"
	done
	# Its own commands it counts.
	for e in $(engines); do
		status=0
		as_nobody "$PRIV/cputrack" --engine="$e" -c task-clock /bin/true \
		    >"$T/out" 2>"$T/err" || status=$?
		[ "$status" -eq 0 ] || { cat "$T/err"; false; }
		[ "$(ct_count exit)" -eq 1 ]
	done
}

@test "a cputrack with file capabilities stops counting a program that its exec makes set-id (BPF engine)" {
	private_bin_dir
	command -v setcap >/dev/null || skip "setcap is not installed (libcap2-bin)"
	bpf_runs || skip "the BPF engine does not run here"
	cp "$BIN" "$PRIV/cputrack"
	setcap cap_perfmon,cap_bpf+ep "$PRIV/cputrack" ||
	    skip "this file system keeps no capabilities"
	# A set-user-ID root copy of a program.
	cp /bin/sleep "$PRIV/suid_sleep"
	chown root:root "$PRIV/suid_sleep"
	chmod 4755 "$PRIV/suid_sleep"
	status=0
	as_nobody "$PRIV/cputrack" --engine=bpf -e -c task-clock \
	    /bin/sh -c "exec $PRIV/suid_sleep 1" >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 1 ]
	grep -qE "^ *[0-9]+: init_lwp: can't bind perf counters to lwp1 - Permission denied$" "$T/err"
	grep -qE "^cputrack: [0-9]+: execed a program that cannot be tracked$" "$T/err"
	# The image before the exec is counted; the set-id one is not.
	[ "$(ct_count exec)" -ge 1 ]
	grep -qE ' init_lwp +- +# not counted: permission denied$' "$T/out"
	[ "$(ct_count exit)" -eq 0 ]
}

@test "a cputrack --cgroup with file capabilities run by nobody counts nobody's processes there, but not one that holds a capability it lacks (BPF engine)" {
	private_bin_dir
	command -v setcap >/dev/null || skip "setcap is not installed (libcap2-bin)"
	bpf_runs || skip "the BPF engine does not run here"
	local cgm
	cgm=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo | head -n 1)
	[ -n "$cgm" ] || skip "no cgroup v2 hierarchy is mounted here"
	CG=$cgm/cpctools-bats-$$-$BATS_TEST_NUMBER
	mkdir "$CG" || skip "cannot make a cgroup under $cgm"
	cp "$BIN" "$PRIV/cputrack"
	setcap cap_perfmon,cap_bpf+ep "$PRIV/cputrack" ||
	    skip "this file system keeps no capabilities"
	# Both nobody's, in the cgroup; the second keeps CAP_NET_RAW.
	sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$CG" \
	    setpriv --reuid=65534 --regid=65534 --clear-groups "$W/wl_spin" 0 &
	local plain=$!
	ct_bg "$plain"
	sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$CG" \
	    setpriv --reuid=65534 --regid=65534 --clear-groups \
	    --inh-caps=+net_raw --ambient-caps=+net_raw "$W/wl_spin" 0 &
	local capable=$!
	ct_bg "$capable"
	has_net_raw() { grep -q '^CapPrm:.*2000$' "/proc/$capable/status"; }
	wait_while "$capable" has_net_raw
	# Five samples of the spinning pair; then root's, with
	# CAP_SYS_PTRACE, which counts both.
	status=0
	as_nobody "$PRIV/cputrack" --cgroup="/${CG#"$cgm"/}" -T 0.2 -N 5 \
	    -c task-clock >"$T/out" 2>"$T/err" || status=$?
	cat "$T/err"
	[ "$status" -eq 0 ]
	grep -qE "^ +[0-9.]+ +$plain +1 +tick " "$T/out"
	run ! grep -qE "^ +[0-9.]+ +$capable " "$T/out"
	"$BIN" --cgroup="/${CG#"$cgm"/}" -T 0.2 -N 5 -c task-clock >"$T/root"
	grep -qE "^ +[0-9.]+ +$plain +1 +tick " "$T/root"
	grep -qE "^ +[0-9.]+ +$capable +1 +tick " "$T/root"
	kill -KILL "$plain" "$capable" 2>/dev/null || true
	wait "$plain" "$capable" 2>/dev/null || true
	rmdir "$CG"
	CG=
}

# A TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# counts_served PORT: cpustat's /metrics on PORT, kept in $T/scrape, has
# counts.
counts_served() {
	curl -sf "http://127.0.0.1:$1/metrics" >"$T/scrape" 2>/dev/null &&
	    grep -q '^cpustat_events_total' "$T/scrape"
}

@test "the exporter unit's own command line runs while cputrack counts task-clock and writes exactly" {
	local unit="$SOURCE_DIR/dist/cpctools-cpustat-exporter.service.in"
	local port cmd
	port=$(free_port)
	# ExecStart as systemd would expand it, with this build's cpustat and
	# a free port in place of the unit's.
	cmd=$("$PY" - "$unit" "$CPUSTAT" "127.0.0.1:$port" <<'EOF'
import re, shlex, sys
env, start = {}, None
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("Environment="):
        for k, v in [shlex.split(line[len("Environment="):])[0].split("=", 1)]:
            env[k] = v
    elif line.startswith("ExecStart="):
        start = line[len("ExecStart="):]
env["CPUSTAT_LISTEN"] = sys.argv[3]
start = start.replace("@CPCTOOLS_CPUSTAT_PATH@", sys.argv[2])
# ${VAR} is one word; $VAR splits at white space, as systemd does.
start = re.sub(r"\$\{(\w+)\}", lambda m: shlex.quote(env[m.group(1)]), start)
start = re.sub(r"\$(\w+)", lambda m: env[m.group(1)], start)
print(start)
EOF
)
	[[ "$cmd" == "$CPUSTAT --shared --listen=127.0.0.1:$port "* ]]
	# (exec: the pid is cpustat's, not a subshell's.)
	eval "exec $cmd" >"$T/exporter.out" 2>"$T/exporter.err" 3>&- &
	local ex=$!
	ct_bg "$ex"
	# Counting: a first interval is in (the counts are per interval).
	wait_while "$ex" counts_served "$port" || true
	grep -q '^cpustat_events_total' "$T/scrape"
	# (Under the BPF engine, a switch the kernel hid may add a hidden
	# task's writes to a thread: -D says so, and counted_exactly allows it.)
	local e debug
	for e in $(engines); do
		status=0
		debug=
		[ "$e" != bpf ] || debug=-D
		"$BIN" $debug --engine="$e" -c "task-clock,$WRITE" \
		    "$W/wl_threads" 3 1000 >"$T/out" 2>"$T/err" || status=$?
		[ "$status" -eq 0 ] || { cat "$T/err"; false; }
		run ! grep -v -e '^cputrack: the BPF engine counts' \
		    -e '^cputrack: note: the kernel hid' -e '^cputrack: start: ' "$T/err"
		counted_exactly "$(ct_rows exit | awk '{ print $NF }')" 3000 ||
		    { cat "$T/out" "$T/err"; false; }
		[ "$(ct_rows exit | awk '{ print $(NF - 1) }')" -gt 0 ]
	done
	running "$ex"
	curl -sf "http://127.0.0.1:$port/metrics" >"$T/scrape"
	grep -q '^cpustat_events_total' "$T/scrape"
	kill -TERM "$ex"
	wait "$ex" || true
	[ ! -s "$T/exporter.err" ] || { cat "$T/exporter.err"; false; }
}
