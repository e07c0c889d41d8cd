#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# cputrack never writes a value it did not count as a number: an LWP past
# the descriptor limit, a program the user may not count. (Hardware events
# on a CPU whose PMU a cpustat holds are the QEMU suite's: tests/hw.) Each is no number with its reason, in every format; a
# total that leaves an LWP out says so on the row and on stderr; the run
# exits 1. The BPF engine opens its counters per CPU, not per LWP, before
# the command starts: a limit too low for them is said then (exit 2), and
# one that fits them fits every LWP; nobody cannot load it at all.

load output_helper

setup() {
	out_setup
	ensure_tracefs
}

teardown() {
	out_teardown
	if [ -n "${SHARED:-}" ]; then
		rm -rf "$SHARED"
	fi
}

# Under a descriptor limit of 30, 40 threads alive at once (each makes 10
# writes, then waits for all the others; the main thread makes its 10
# after): those that fit are counted, exactly; the others are left out of
# the exit total.
fd_limited() {
	(
		ulimit -S -n 30 && ulimit -H -n 30 &&
		exec timeout -k 5 120 "$CT" -T 0 "$@" -c "$WRITE" \
		    "$W/tt_manythreads" 40 10
	) >"$T/out" 2>"$T/err"
}

# possible_cpus: how many CPUs the kernel may bring online (libbpf's
# count, by which the BPF engine opens its counters).
possible_cpus() {
	tr , '\n' </sys/devices/system/cpu/possible |
	    awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }'
}

@test "fd limit: only the LWPs that fit are counted; the exit total says how many it leaves out, in every format; exit 1" {
	local fmt rc counted
	if [ "$ENGINE" = bpf ]; then
		# The BPF engine opens its counters per CPU, one for each
		# event (here one), and 40 descriptors for itself, all before
		# the command starts: where the limit leaves too few it says
		# so, exit 2, and nothing ran (ct_marker would have made its
		# file). What it leaves is the limit less what is open: at
		# most what the descriptors passed down leave.
		local need=$(($(possible_cpus) + 40)) inherited left
		inherited=$( (ulimit -S -n 30 && ulimit -H -n 30 &&
		    exec ls /proc/self/fd) | wc -l)
		for fmt in table csv json; do
			rc=0
			(
				ulimit -S -n 30 && ulimit -H -n 30 &&
				exec timeout -k 5 120 "$CT" -T 0 --format=$fmt \
				    -c "$WRITE" "$W/ct_marker" "$T/ran"
			) >"$T/out" 2>"$T/err" || rc=$?
			[ "$rc" -eq 2 ] || { cat "$T/err"; false; }
			[ ! -s "$T/out" ]
			[ ! -e "$T/ran" ]
			[ "$(wc -l <"$T/err")" -eq 1 ]
			left=$(sed -nE "s/^cputrack: --engine=bpf: the BPF engine needs $need file descriptors \(one per CPU per event, and 40 for itself\), and the limit \(ulimit -n, 30\) leaves ([0-9]+)\$/\1/p" "$T/err")
			[ -n "$left" ] || { cat "$T/err"; false; }
			# (Shown if the test fails. ls's own directory is one of those
			# it counted.)
			echo "need $need, inherited $inherited, left $left"
			[ "$left" -le $((30 - (inherited - 1))) ]
		done
		return
	fi
	for fmt in table csv json; do
		rc=0
		fd_limited --format=$fmt || rc=$?
		[ "$rc" -eq 1 ] || { cat "$T/err"; false; }
		cp "$T/out" "$T/$fmt"
		grep -qx 'cputrack: out of file descriptors: the limit is 30 open files (RLIMIT_NOFILE); LWPs beyond it are not counted; raise it with ulimit -n' "$T/err"
		grep -qE '^cputrack: pid [0-9]+ lwp 1 exit of set 0 is partial: [0-9]+ LWPs not counted \(out of file descriptors\)$' "$T/err"
	done
	# Table: every LWP counted wrote exactly its writes; the total is
	# theirs and the main thread's, and names the others.
	counted=$(awk '$3 == "lwp_exit"' "$T/table" | wc -l)
	[ "$counted" -gt 0 ]
	[ "$counted" -lt 40 ]
	[ "$(awk '$3 == "lwp_exit" && $4 != 10' "$T/table" | wc -l)" -eq 0 ]
	awk '$3 == "exit"' "$T/table" >"$T/exit"
	[[ $(cat "$T/exit") =~ ^\ +[0-9.]+\ +1\ +exit\ +$(((counted + 1) * 10))\ +#\ partial:\ $((40 - counted))\ LWPs\ not\ counted\ \(out\ of\ file\ descriptors\)$ ]]
	"$PY" - "$T/csv" "$T/json" "$WRITE" <<'EOF'
import csv, json, sys
ev = sys.argv[3]
for rows in ([r for r in csv.DictReader(open(sys.argv[1])) if r["label"] != "meta"],
             [json.loads(l) for l in open(sys.argv[2])][1:]):
    get = (lambda r: r["counters"][ev]) if "counters" in rows[0] else (lambda r: int(r[ev]))
    lwps = [r for r in rows if r["label"] == "lwp_exit"]
    exit_ = [r for r in rows if r["label"] == "exit"]
    assert 0 < len(lwps) < 40 and all(get(r) == 10 for r in lwps), lwps
    assert len(exit_) == 1 and get(exit_[0]) == 10 * (len(lwps) + 1), exit_
    assert exit_[0]["partial"] == "%d LWPs not counted (out of file descriptors)" % (40 - len(lwps)), exit_
    assert exit_[0]["not_counted"] in (None, ""), exit_
EOF
}

@test "fd limit under -f: a child that cannot be followed at all is named, and the run exits 1" {
	local rc=0 debug=
	# The BPF engine's note of switches the kernel hid (counted_exactly).
	[ "$ENGINE" != bpf ] || debug=-D
	(
		ulimit -S -n 60 && ulimit -H -n 60 &&
		exec timeout -k 5 120 "$CT" $debug -f -T 0 -c "$WRITE" \
		    "$W/ct_forkmany" 200 7
	) >"$T/out" 2>"$T/err" || rc=$?
	if [ "$ENGINE" = bpf ]; then
		# Its counters are per CPU, not per process: every child is
		# followed and counted exactly, nothing said, exit 0.
		[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
		[ "$(grep -v '^cputrack: the BPF engine counts: programs \|^cputrack: note: the kernel hid \|^cputrack: start: ' "$T/err" | wc -l)" -eq 0 ]
		local parent pid n
		parent=$(awk 'NR == 2 { print $2 }' "$T/out")
		[ "$(ct_count -f fork)" -eq 200 ]
		[ "$(ct_rows -f exit | awk -v p="$parent" '$1 != p' | wc -l)" -eq 200 ]
		while read -r pid n; do
			counted_exactly "$n" 7 || { echo "pid $pid"; false; }
		done < <(ct_rows -f exit | awk -v p="$parent" '$1 != p { print $1, $3 }')
		return
	fi
	grep -q 'cannot follow pid' "$T/err" || skip "every child fitted in 60 descriptors"
	[ "$rc" -eq 1 ]
	# The children followed were counted exactly.
	[ "$(awk 'NR > 1 && $4 == "exit" && $5 != 7' "$T/out" | awk -v p="$(awk 'NR == 2 { print $2 }' "$T/out")" '$2 != p' | wc -l)" -eq 0 ]
}

@test "permission denied (an execute-only program, as nobody): its rows are no number with the reason; exit 1" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to make the programs and become nobody"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	SHARED=$(mktemp -d /tmp/cputrack-bats.XXXXXX)
	chmod 0777 "$SHARED"
	cp "$W/ct_marker" "$SHARED/xonly"
	chmod 0111 "$SHARED/xonly"
	cp "$W/ct_exec" "$SHARED/ct_exec"
	chmod 0755 "$SHARED/ct_exec"
	local fmt rc
	if [ "$ENGINE" = bpf ]; then
		# Without CAP_BPF and CAP_PERFMON the BPF engine cannot load at
		# all: one line says so, exit 2, and nothing ran (xonly would
		# have made $SHARED/ran).
		nobody_cputrack
		for fmt in table json; do
			rc=0
			setpriv --reuid=nobody --regid=nogroup --clear-groups \
			    timeout 60 "$NB_CT" --format=$fmt -e -c task-clock \
			    -c page-faults "$SHARED/ct_exec" 4 "$SHARED/xonly" \
			    "$SHARED/ran" 0 300 >"$T/$fmt" 2>"$T/err" || rc=$?
			[ "$rc" -eq 2 ]
			[ ! -s "$T/$fmt" ]
			[ "$(cat "$T/err")" = "cputrack: --engine=bpf: the BPF engine needs CAP_BPF and CAP_PERFMON (or root)" ]
			[ ! -e "$SHARED/ran" ]
		done
		return
	fi
	for fmt in table json; do
		rc=0
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		    timeout 60 "$CT" --format=$fmt -e -c task-clock -c page-faults \
		    "$SHARED/ct_exec" 4 "$SHARED/xonly" "$SHARED/ran" 0 300 \
		    >"$T/$fmt" 2>"$T/err" || rc=$?
		[ "$rc" -eq 1 ]
		grep -qE '^cputrack: pid [0-9]+ lwp 1 init_lwp of set 0: not counted: permission denied$' "$T/err"
		# The program it could not count runs on to its end, untraced,
		# after cputrack has gone: waited for, so that it writes
		# nothing into $SHARED once the test ends.
		wait_file "$SHARED/ran"
		rm -f "$SHARED/ran"
	done
	[[ $(grep -c 'init_lwp' "$T/table") -eq 2 ]]
	grep -qE '^ +[0-9.]+ +1 +init_lwp +- +# task-clock; not counted: permission denied$' "$T/table"
	grep -qE '^ +[0-9.]+ +1 +init_lwp +- +# page-faults; not counted: permission denied$' "$T/table"
	"$PY" - "$T/json" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
init = [r for r in rows if r["label"] == "init_lwp"]
assert [list(r["counters"].values()) for r in init] == [[None], [None]], init
assert all(r["not_counted"] == "permission denied" and r["enabled_ns"] is None for r in init), init
EOF
}

# Sets take turns at the ticks: without one (-T 0), or where the command
# ends before the first, a set after the first never counts. cputrack says
# so once per set, as cpustat says of its totals, and writes no row of it:
# no count of 0 that it did not make.
@test "a set that never got its turn: one line on stderr, no row of it" {
	local fmt
	for fmt in csv json; do
		ct_run --format=$fmt -T 0 -c task-clock -c page-faults \
		    -c cs "$W/wl_spin_for" 0 10
		[ "$status" -eq 0 ]
		[ "$(grep -c . "$T/err")" -eq 2 ] || { cat "$T/err"; false; }
		grep -qx "cputrack: set 1: not counted: the run ended before the set's turn" "$T/err"
		grep -qx "cputrack: set 2: not counted: the run ended before the set's turn" "$T/err"
		cp "$T/out" "$T/$fmt"
	done
	"$PY" - "$T/csv" "$T/json" <<'PY'
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] != "meta"]
assert rows and {r["set"] for r in rows} == {"0"}, rows
assert all(r["page-faults"] == "" and r["context-switches"] == ""
           for r in rows), rows
jrows = [json.loads(l) for l in open(sys.argv[2])][1:]
assert jrows and {r["set"] for r in jrows} == {0}, jrows
PY
	# With ticks, every set has its turns: nothing is said.
	ct_run -T 0.05 -c task-clock -c page-faults "$W/wl_spin_for" 0 300
	[ "$status" -eq 0 ]
	[ ! -s "$T/err" ] || { cat "$T/err"; false; }
	[ "$(grep -cE ' exit +[0-9]+ +# page-faults$' "$T/out")" -eq 1 ]
}
