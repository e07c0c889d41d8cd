# SPDX-License-Identifier: BSD-2-Clause
# shellcheck disable=SC2034 # the .bats files that load it read what it sets
# Shared set-up for the cputrack*.bats tests.
load helper
bats_require_minimum_version 1.5.0

WRITE=syscalls:sys_enter_write

# The engine CPUTRACK counts with: ptrace (the default), or bpf, where
# CPUTRACK is a wrapper that adds --engine=bpf (tests/bpf). Where the
# engines differ, a test expects what the engine in use does.
ENGINE=${ENGINE:-ptrace}

ct_setup() {
	T=$BATS_TEST_TMPDIR
	W=$WORKLOADS
	CT=$CPUTRACK
	CT_PIDS=()
	declare -gA CT_STARTS=()
}

# wl_own NAME: the path of workload NAME through a link in this test's
# own directory. Its command line is then this test's alone: pgrep -f
# finds it, and not the same workload run by a test beside this one (the
# BPF variants run the same tests at the same time).
wl_own() {
	ln -sf "$(realpath "$W/$1")" "$T/$1"
	echo "$T/$1"
}

# wl_named NAME: workload NAME through a link in this test's own
# directory under a name of its own: WL_PATH, and its name WL_NAME. The
# process's name (the link's first 15 bytes) is then this test's alone:
# a view of the whole machine, where another test may run the same
# workload beside this one, shows it by that name and no other's.
wl_named() {
	WL_NAME=$(printf 'w%s_%s_%s' "$$" "${BATS_TEST_NUMBER:-0}" "$1" |
	    cut -c1-15)
	WL_PATH=$T/$WL_NAME
	ln -sf "$(realpath "$W/$1")" "$WL_PATH"
}

# descendants PID: the processes below PID, deepest last.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}

# Kill whatever a test started in the background, and what that started
# (cputrack under timeout, its command), and reap it: a process left
# holding the test's descriptors would keep bats waiting for ever.
ct_teardown() {
	local p
	# A command a failed test left at the gate goes on to its end (wl_gate
	# past it, wl_steps told q): it holds the gate open for writing, so
	# it would wait there for ever, and bats with it, for the test's
	# descriptors it holds too.
	if [ -p "$T/gate" ] && { true >&8; } 2>/dev/null; then
		printf 'q\n' >&8 2>/dev/null || true
	fi
	for p in "${CT_PIDS[@]}"; do
		[ -n "${CT_STARTS[$p]:-}" ] &&
			[ "$(start_time "$p")" = "${CT_STARTS[$p]}" ] || continue
		# shellcheck disable=SC2046 # one pid a word
		kill -KILL $(descendants "$p") "$p" 2>/dev/null || true
	done
	for p in "${CT_PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
}

# Writes pid $1 has made so far (/proc/PID/io syscw): the kernel's own
# count, to wait on.
syscw() {
	awk '$1 == "syscw:" { print $2 }' "/proc/$1/io"
}

# writes_past PID N: until pid PID has made more than N writes.
writes_past() {
	wait_for more_writes_than "$1" "$2"
}
more_writes_than() {
	[ "$(syscw "$1")" -gt "$2" ]
}

# ticks_sampled [-f] SAMPLES LWPS: $T/out's tick rows are of LWPs 1 to
# LWPS, each with SAMPLES rows at most, one a sample it was there for (on
# a loaded machine, a sample can come before a thread starts, or be
# skipped: a deadline missed). The rows of one sample are read one after
# the other, so their times may differ. -f: the pid column is there.
ticks_sampled() {
	local pc=0
	if [ "$1" = -f ]; then pc=1; shift; fi
	awk -v pc=$pc -v samples="$1" -v lwps="$2" '
	    $(3 + pc) != "tick" && $(3 + pc) != "gap" { next }
	    { n = $(3 + pc) == "gap" ? $(NF - 1) : 1 }
	    $(2 + pc) < 1 || $(2 + pc) > lwps || (rows[$(2 + pc)] += n) > samples { bad = 1 }
	    END { exit bad || length(rows) == 0 }' "$T/out"
}

# Remember a background process for teardown, which kills it only if it
# is still that process: never one that took its pid since.
ct_bg() {
	CT_PIDS+=("$1")
	CT_STARTS[$1]=$(start_time "$1")
}

# end_bg PID [SIGNAL]: send SIGNAL (TERM unless given) to a process that
# ct_bg remembers, only while it is still that process, and reap it.
end_bg() {
	if [ "$(start_time "$1")" = "${CT_STARTS[$1]:-}" ]; then
		kill -"${2:-TERM}" "$1" 2>/dev/null || true
	fi
	wait "$1" 2>/dev/null || true
}

# perf_stat_bg PID OUT [perf stat args...]: perf stat ARGS -p PID in the
# background, its counts to OUT, its messages to $T/perf.err; returns
# once it has enabled its events, and sets PERF_PID. Its counters' file
# descriptors are no sign of that: perf stat opens them disabled and
# enables them after, and a target let go in between does work that
# perf stat never counts. The fifos are opened read-write here, which
# never waits, so a perf stat that fails to start cannot hang the test.
perf_stat_bg() {
	local pid=$1 out=$2 ctl=$T/perf.ctl ack=$T/perf.ack reply='' cfd afd
	shift 2
	rm -f "$ctl" "$ack"
	mkfifo "$ctl" "$ack"
	exec {cfd}<>"$ctl" {afd}<>"$ack"
	perf stat -D -1 --control "fifo:$ctl,$ack" "$@" -p "$pid" -o "$out" \
	    2>"$T/perf.err" &
	PERF_PID=$!
	ct_bg "$PERF_PID"
	echo enable >&"$cfd"
	read -r -t 60 reply <&"$afd" || true
	exec {cfd}>&- {afd}<&-
	[ "$reply" = ack ] ||
	    { echo "perf stat did not enable its events: $(cat "$T/perf.err")"; return 1; }
}

# ct_run [cputrack args...]: run cputrack under a timeout (CT_TIMEOUT s,
# by default 120: a bound for a run that hangs). Sets status, output
# (stdout), lines and stderr; the raw files are $T/out and $T/err.
ct_run() {
	status=0
	timeout -k 5 "${CT_TIMEOUT:-120}" "$CT" "$@" >"$T/out" 2>"$T/err" || status=$?
	output=$(cat "$T/out")
	stderr=$(cat "$T/err")
	mapfile -t lines <"$T/out"
	# Shown if the test fails: many check that nothing was said.
	[ "$status" -eq 0 ] && [ -z "$stderr" ] ||
	    echo "cputrack exit $status: $stderr"
}

# Rows of the table in $T/out whose label is $1; "-f" first for pid rows.
# Prints "lwp value..." (or "pid lwp value...") without time and label.
# tick: the gap rows too (ticks that came late, holding several
# intervals), without what their comment adds ("# N intervals", or
# "; N intervals" after a set's spec), so that they read as tick rows.
ct_rows() {
	local pidcol=0
	if [ "$1" = -f ]; then pidcol=1; shift; fi
	awk -v want="$1" -v pc="$pidcol" '
	    NR == 1 && $1 == "time" { next }
	    want == "tick" && $(3 + pc) == "gap" {
		NF -= 2
		if ($NF == "#") NF--
		else sub(/;$/, "", $NF)
		$(3 + pc) = "tick"
	    }
	    $(3 + pc) == want {
		s = ""
		for (i = 2; i <= NF; i++) if (i != 3 + pc) s = s (s == "" ? "" : " ") $i
		print s
	    }' "$T/out"
}

# gaps_as_ticks FILE: the table FILE with each gap row (a tick that came
# late, holding several intervals) written as a tick row: label tick, and
# its comment without "N intervals", for a test that reads rows by shape.
gaps_as_ticks() {
	sed -E 's/^([ 0-9.]*[0-9] +) gap /\1tick /
	    s/ # [0-9]+ intervals$//; s/; [0-9]+ intervals$//
	    s/# [0-9]+ intervals; /# /; s/; [0-9]+ intervals;/;/' "$1"
}

# The number of table rows whose label is $1 ("-f" first as above); for
# tick, the intervals they hold (a gap row holds several).
ct_count() {
	local pidcol=0
	if [ "$1" = -f ]; then pidcol=1; shift; fi
	awk -v want="$1" -v pc="$pidcol" '
	    NR == 1 && $1 == "time" { next }
	    $(3 + pc) == want { n++ }
	    want == "tick" && $(3 + pc) == "gap" { n += $(NF - 1) }
	    END { print n + 0 }' "$T/out"
}

# Sum of the last column of the rows ct_rows prints.
ct_sum() {
	ct_rows "$@" | awk '{ s += $NF } END { print s + 0 }'
}

# Whether the engine in use refuses a breakpoint (mem:): the BPF engine
# on x86, where a debug trap a hypervisor loses kills its task with a
# SIGTRAP that only a tracer drops (tests/bpf/bpf_breakpoint.bats).
breakpoints_refused() {
	[ "$ENGINE" = bpf ] || return 1
	case $(uname -m) in
	x86_64 | i?86) return 0 ;;
	*) return 1 ;;
	esac
}

# The line cputrack says when the BPF engine refuses breakpoint EVENT.
breakpoint_refusal() {
	echo "cputrack: --engine=bpf: $1: a breakpoint is armed on every CPU, where a debug trap a hypervisor loses kills the task that hit it with SIGTRAP; only the ptrace engine drops that trap (--engine=ptrace)"
}

# How many switches out of a task the kernel hides from tracing landed on
# a tracked thread, as the BPF engine's debug note (-D) in $1 (default
# $T/err) says; 0 where it said none.
bpf_hidden() {
	sed -n 's/.*the kernel hid \([0-9]*\) switches.*/\1/p' "${1:-$T/err}" |
	    grep . || echo 0
}

# counted_exactly VALUE WANT [ERRFILE]: VALUE is WANT. Where the BPF engine
# said (bpf_hidden ERRFILE) that the kernel hid switches, a thread's count
# may also hold what the hidden task counted, so VALUE is at least WANT.
# Says what it saw when it fails.
counted_exactly() {
	local hid
	hid=$(bpf_hidden "${3:-$T/err}")
	if [ "$hid" -eq 0 ]; then
		[ "$1" -eq "$2" ] && return 0
	else
		[ "$1" -ge "$2" ] && return 0
	fi
	echo "counted $1, expected $2 ($hid hidden switches)" >&2
	return 1
}

# What perf stat counts for the same event over the whole run (inherit).
perf_count() {
	local event=$1; shift
	command -v perf >/dev/null || skip "perf is not installed"
	timeout 120 perf stat -x, -e "$event" -o "$T/perf" -- "$@" >/dev/null ||
		{ cat "$T/perf" >&2; return 1; }
	# What perf printed, seen where a test that compares it fails.
	sed 's/^/perf stat: /' "$T/perf" >&2
	awk -F, -v e="$event" '$3 == e { print $1 }' "$T/perf"
}

# start_target COMMAND...: a long-running target (for -p, --tid) in the
# background, its input $CT_STDIN (by default /dev/null); sets TPID.
start_target() {
	"$@" <"${CT_STDIN:-/dev/null}" >"$T/target.out" 2>&1 &
	TPID=$!
	ct_bg "$TPID"
}

# start_gated NAME COMMAND...: COMMAND in the background with its input a
# FIFO of its own, $T/NAME.gate, held open here; its output in
# $T/NAME.out. Sets TPID, and GATE: the descriptor that feeds it.
start_gated() {
	local fifo=$T/$1.gate
	mkfifo "$fifo"
	exec {GATE}<>"$fifo"
	"${@:2}" <"$fifo" >"$T/$1.out" 2>&1 &
	TPID=$!
	ct_bg "$TPID"
}

# gate_open: a FIFO, $T/gate, held open here (descriptor 8, read and
# write, so that opening it never blocks) for a command to wait at: one
# started with <"$T/gate" that reads its input to a newline (wl_gate, a
# shell's read) waits there until gate_release. A test that waits for an
# event rather than a time lets its command go on that way. (A command
# started in the background needs the redirection on itself: bash gives
# it /dev/null otherwise. bg_until takes it from CT_STDIN.)
gate_open() {
	mkfifo "$T/gate"
	exec 8<>"$T/gate"
}

gate_release() {
	echo >&8
}

# gate_send TEXT: TEXT through the gate (wl_steps: w for a step, q to end).
gate_send() {
	printf '%s' "$1" >&8
}

# wait_rows_until AWK: until the awk program AWK, run on $T/out, exits 0;
# fails if the background cputrack ($CPID) ended without rows that pass.
# Gap rows read as tick rows (gaps_as_ticks): a loaded machine turns any
# tick into a gap that holds its counts.
wait_rows_until() {
	wait_while "$CPID" rows_pass "$1" && return 0
	echo "rows not as awaited ($1):" >&2
	cat "$T/out" "$T/err" >&2
	return 1
}
rows_pass() {
	awk "$1" <(gaps_as_ticks "$T/out")
}

# threads PID N: until process PID has N threads.
threads() {
	wait_for thread_count "$1" "$2"
}
thread_count() {
	[ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -eq "$2" ]
}

# gone PID: until process PID has ended (a zombie has).
gone() {
	wait_for not running "$1"
}
not() {
	! "$@"
}

# The state letter of /proc/PID/stat.
proc_state() {
	awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null
}

# TracerPid of a process.
tracer_of() {
	awk '$1 == "TracerPid:" { print $2 }' "/proc/$1/status" 2>/dev/null
}

# traced_by PID TRACER: process PID's tracer is TRACER (0: none).
traced_by() {
	[ "$(tracer_of "$1")" = "$2" ]
}

# assert_free PID: until process PID runs untraced and is not stopped.
assert_free() {
	wait_for untraced_and_running "$1" && return 0
	echo "pid $1: state '$(proc_state "$1")', TracerPid '$(tracer_of "$1")'" >&2
	return 1
}
untraced_and_running() {
	local st
	st=$(proc_state "$1")
	[ -n "$st" ] && [ "$st" != T ] && [ "$st" != t ] &&
	    [ "$(tracer_of "$1")" = 0 ]
}

# signals_between_ticks WRITES ROWS OPTION...: cputrack -v -T 60 OPTION...
# of the gated wl_steps target $TPID, whose LWP 3 it counts, ended by
# SIGINT, SIGTERM and SIGHUP in turn once the target made WRITES more
# writes (a step of its threads: gate_send ww); no tick comes in the
# minute. Each run exits 0, quiet, with last tick rows that are ROWS
# (ct_rows tick's LWPs and counts, on one line), no totals, and leaves
# the target untraced.
signals_between_ticks() {
	local writes=$1 rows=$2 sig before
	shift 2
	for sig in INT TERM HUP; do
		# Once every LWP's counters are bound (-v: its init_lwp row),
		# not once the title is out: the writes must come after.
		start_cputrack_until ' 3 +init_lwp ' -v -T 60 "$@" -c "$WRITE"
		before=$(syscw "$TPID")
		gate_send ww
		writes_past "$TPID" $((before + writes - 1))
		kill -"$sig" "$CPID"
		wait_cputrack
		[ "$status" -eq 0 ] || { echo "SIG$sig: $status"; cat "$T/err"; false; }
		[ -z "$(cat "$T/err")" ]
		[ "$(ct_rows tick | tr '\n' ' ')" = "$rows" ] ||
		    { echo "SIG$sig"; cat "$T/out"; false; }
		run ! grep -qE ' (exit|lwp_exit) ' "$T/out"
		assert_free "$TPID"
	done
}

# The exec marker's text for a command line: its first 80 bytes of
# /proc/PID/cmdline, NULs as spaces, without the separator the cut may
# leave at the end (psargs, as on Solaris).
psargs() {
	local s="$*"
	s=${s:0:80}
	printf '%s' "${s%" "}"
}

# Whether $T/err says a cpustat elsewhere took or invalidated the counters.
counters_taken() {
	grep -qE 'Resource temporarily unavailable|contents invalidated' "$T/err"
}

# bg_until PATTERN COMMAND...: run COMMAND in the background (its input
# $CT_STDIN, by default /dev/null, as bash gives a background command)
# and wait until its output ($T/out) matches PATTERN; run it again (up to
# 8 times) if a cpustat elsewhere took the counters first. Sets CPID.
bg_until() {
	local pattern=$1
	shift
	for _ in 1 2 3 4 5 6 7 8; do
		# Gone before the start: the background job empties its files
		# in its own time, and a file of the run before may match.
		rm -f "$T/out" "$T/err"
		"$@" <"${CT_STDIN:-/dev/null}" >"$T/out" 2>"$T/err" &
		CPID=$!
		ct_bg "$CPID"
		wait_while "$CPID" grep -qE "$pattern" "$T/out" 2>/dev/null &&
		    return 0
		running "$CPID" && return 1
		counters_taken || return 1
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 8 tries
	done
	return 1
}

# Wait for the background cputrack ($CPID); sets status.
wait_cputrack() {
	status=0
	wait "$CPID" || status=$?
}

# ended PID: whether process PID is gone or a zombie.
ended() {
	! running "$1"
}

# show_stuck PID...: what each process and each of its threads is doing
# (state, kernel wait channel, system call, and with gdb the stacks), for
# a run that should have ended and has not.
show_stuck() {
	local p t
	for p in "$@"; do
		for t in /proc/"$p"/task/*; do
			[ -e "$t/stat" ] || continue
			echo "$p/${t##*/} $(cut -d' ' -f2,3 "$t/stat" 2>/dev/null)" \
			    "wchan=$(cat "$t/wchan" 2>/dev/null)" \
			    "syscall=$(cut -d' ' -f1 "$t/syscall" 2>/dev/null)"
		done
		if command -v gdb >/dev/null; then
			timeout 60 gdb -p "$p" -batch -nx \
			    -ex 'thread apply all bt' 2>&1 | grep -E '^(#|Thread)' ||
			    true
		fi
	done
	return 0
}

# start_cputrack_until PATTERN [cputrack args...]: bg_until with cputrack
# under a timeout (CT_TIMEOUT s, by default 120, as ct_run's), with default
# SIGINT/SIGQUIT (see below). timeout runs in its foreground mode, where it
# passes a signal to cputrack alone, not to its process group, which holds
# a command that cputrack started.
start_cputrack_until() {
	local pattern=$1
	shift
	bg_until "$pattern" timeout --foreground -k 5 "${CT_TIMEOUT:-120}" \
	    env --default-signal=INT,QUIT "$CT" "$@"
}
