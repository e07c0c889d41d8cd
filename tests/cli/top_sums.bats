#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The live view's figures add up, in a real terminal (tmux): with every
# process's threads shown (H), in the list and in the tree (V), a
# process's line is the sum of its threads' lines, its THR their count,
# the header's counts those of the lines, and all of it as ps(1) sees the
# same processes; in totals (exact) and in rates (to the cells' rounding),
# at 120 columns and at 60, where COMMAND stays.
load terminal_helper

setup() {
	ct_setup
	command -v tmux >/dev/null || skip "tmux is not installed"
	TOP=$BUILD_DIR/cmd/cputop
	PY=$(python3 -c "import sys; print(sys.executable)")
	terminal_open "cpsums$$" 120 40
	tmux set-option -t "$S" status off
	# The command forks a family, then only waits: a parent with 3
	# threads of its own and children with 1 and 2, forked, not
	# exec'd, each thread writing to /dev/null at a pace.
	cat >"$T/family.py" <<'EOF'
import os, threading, time
def work():
    fd = os.open("/dev/null", os.O_WRONLY)
    while True:
        os.write(fd, b"x")
        time.sleep(0.01)
def family(n, children):
    pids = []
    for c in children:
        pid = os.fork()
        if pid == 0:
            family(*c)
        pids.append(pid)
    for _ in range(n):
        threading.Thread(target=work, daemon=True).start()
    while True:
        time.sleep(1)
if os.fork() == 0:
    family(3, [(1, []), (2, [])])
os.wait()
EOF
}

teardown() {
	tmux kill-server 2>/dev/null || true
	ct_teardown
}

# sums_check totals|rates: the screen's figures, checked (see the top);
# what does not add up is said, and the screen.
sums_check() {
	local pids pid
	screen >"$T/screen"
	# The family as ps sees it: its processes and their threads.
	pids=$(pgrep -f -x "$PY $T/family.py" | sort -n)
	for pid in $pids; do
		echo "$pid $(ps -o nlwp= -p "$pid")"
	done >"$T/ps"
	awk -v mode="$1" -v py="$PY" -f <(sums_awk) "$T/ps" "$T/screen" ||
	    { cat "$T/screen" "$T/ps"; return 1; }
}

sums_awk() {
	cat <<'AWK'
function fail(why) { print why; bad = 1 }
# A cell's value: a count, a rate (/s), with K, M or G.
function value(s,   m) {
	sub(/\*$/, "", s); sub(/\/s$/, "", s)
	m = 1
	if (s ~ /K$/) m = 1e3; else if (s ~ /M$/) m = 1e6; else if (s ~ /G$/) m = 1e9
	sub(/[KMG]$/, "", s)
	return s * m
}
# How far a shown cell may be from its value: none for a total, half of
# its last digit (3 significant ones, or 0.1) for a rate.
function slack(s,   v) {
	if (mode == "totals") return 0
	v = value(s); return v >= 100 ? v * 0.005 : 0.05
}
function close_process(   c, d) {
	if (!proc) return
	if (nthr != thr) fail("process " proc ": THR " thr ", " nthr " thread lines")
	for (c = first; c <= last; c++) {
		d = pv[c] - sum[c]; if (d < 0) d = -d
		if (d > room[c] + 0) fail("process " proc ", column " c ": " pv[c] ", its threads " sum[c])
	}
	proc = ""
}
FNR == NR { ps[$1] = $2; nps++; next }
/^watching / { split($0, h, ": "); split(h[length(h)], w, /[ ,]+/)
	hprocs = w[1]; hthreads = w[3] }
/^ +PID / {
	title = 1
	# A process line's value fields; a thread line's, one before
	# (no THR).
	for (i = 1; i <= NF; i++) if ($i == "THR") first = i + 1
	last = NF - 1
	if ($NF != "COMMAND") fail("no COMMAND column")
	next
}
title && substr($0, 1, 7) ~ /^ *[0-9]+$/ {
	if ($NF !~ /^python3/ && $NF != "`-") fail("no command's name: " $0)
	if (substr($0, 18, 5) ~ /[0-9]/) {
		close_process()
		proc = $1; thr = $3; nthr = 0; procs++; threads += thr
		if (!($1 in ps)) fail("process " $1 " is not the family's")
		else if (ps[$1] != thr) fail("process " $1 ": THR " thr ", ps " ps[$1])
		for (c = first; c <= last; c++) { pv[c] = value($c); sum[c] = 0; room[c] = slack($c) }
		next
	}
	nthr++
	for (c = first; c <= last; c++) { sum[c] += value($(c - 1)); room[c] += slack($(c - 1)) }
}
END {
	close_process()
	if (procs != nps || hprocs != nps) fail("processes: " procs " lines, header " hprocs ", ps " nps)
	if (hthreads != threads) fail("threads: THR sums to " threads ", header " hthreads)
	exit bad
}
AWK
}

# view_sums: in totals and in rates, the screen paused so that it is
# read whole, the figures checked.
view_sums() {
	local mode
	for mode in totals rates; do
		# The header's words may be cut at 60 columns: the cells say
		# which, a rate's with its /s.
		if [ "$mode" = totals ]; then
			keys a
			wait_for not screen_has '[0-9]/s '
		else
			wait_screen '[0-9]/s '
		fi
		keys Space
		wait_screen '; PAUSED'
		sums_check "$mode"
		keys Space
		wait_for not screen_has '; PAUSED'
		if [ "$mode" = totals ]; then
			keys a
		fi
	done
}

@test "threads and tree, at 120 and 60 columns: a process's line sums its threads'; header, THR and ps agree" {
	in_terminal "$TOP" -T 0.3 -c "context-switches,$WRITE" "$PY" "$T/family.py"
	wait_screen "^watching '$PY': 4 processes, 10 threads\$"
	keys H
	wait_for lines_are 14
	view_sums
	keys V
	wait_screen '; tree$'
	view_sums
	tmux resize-window -t "$S" -x 60 -y 40
	wait_for not screen_has '^.{61}'
	whole_or_why 60 40
	view_sums
	keys V
	wait_for not screen_has '; tree$'
	view_sums
	keys q
}

# lines_are N: the screen has N lines of a process or thread.
lines_are() {
	[ "$(screen | awk '/^ +PID / { t = 1; next }
	    t && substr($0, 1, 7) ~ /^ *[0-9]+$/ { n++ } END { print n + 0 }')" -eq "$1" ]
}
