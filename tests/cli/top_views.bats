#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The live view's other ways of showing processes, in a real terminal
# (tmux): a tree (V), each process's command line (c), a cgroup column (C)
# and a line per cgroup (g), --for-each-cgroup's cgroups as lines, and
# -M's metrics as columns, alone with T.
load terminal_helper

setup() {
	ct_setup
	command -v tmux >/dev/null || skip "tmux is not installed"
	terminal_open "cpviews$$" 120 24
	tmux set-option -t "$S" status off
	CG=
}

teardown() {
	tmux kill-server 2>/dev/null || true
	if [ -n "$CG" ]; then
		find "$CG" -name cgroup.procs -exec cat {} + 2>/dev/null |
		    while read -r p; do kill -KILL "$p" 2>/dev/null || true; done
	fi
	ct_teardown
	[ -z "$CG" ] || find "$CG" -depth -type d -exec rmdir {} + 2>/dev/null || true
}

# A cgroup of the test's own, $CG (its name in the hierarchy /$NAME),
# under the cgroup v2 mount, or a skip that says why there is none.
cgroup_open() {
	local mnt
	mnt=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup2") print $5; break } }' \
	    /proc/self/mountinfo | head -n 1)
	[ -n "$mnt" ] || skip "no cgroup v2 hierarchy is mounted here"
	NAME=cpv-$$-$BATS_TEST_NUMBER
	mkdir "$mnt/$NAME" "$mnt/$NAME/sub" ||
	    skip "cannot make a cgroup under $mnt (a container's read-only one)"
	CG=$mnt/$NAME
}

@test "V: each process under its parent, indented; again: the list" {
	in_terminal "$CT" --top -ef -T 0.3 -c "$WRITE" sh -c \
	    "'sh -c \"\\\"\\\$0\\\" 1 5 50 0 & wait\" \"\$0\" & wait'" \
	    "$W/ct_steady"
	wait_screen ' [0-9.]+[K]?/s +ct_steady$'
	keys V
	wait_screen '^sorted by sys_enter_; tree$'
	# The command's sh, its sh under it, and ct_steady under that.
	wait_screen ' 0\.0/s `- sh$'
	wait_screen ' [0-9.]+[K]?/s    `- ct_steady$'
	screen >"$T/screen"
	awk '/^ +PID / { t = 1; next }
	    t && $NF == "sh" && $(NF - 1) != "`-" { r = NR }
	    t && $NF == "sh" && $(NF - 1) == "`-" { s = NR }
	    t && $NF == "ct_steady" { c = NR }
	    END { exit !(r && r < s && s + 1 == c) }' "$T/screen" ||
	    { cat "$T/screen"; false; }
	keys V
	wait_screen '^sorted by sys_enter_$'
	screen | grep -q '`- ' && fail "a tree shown in the flat view"
	keys q
}

@test "c: each process's command line, read when it is first seen; again: the names" {
	in_terminal "$CT" --top -ef -T 0.3 -c "$WRITE" sh -c \
	    "'\"\$0\" 1 5 50 0 one two'" "$W/ct_steady"
	wait_screen ' [0-9.]+[K]?/s +ct_steady$'
	keys c
	wait_screen " [0-9.]+[K]?/s +$W/ct_steady 1 5 50 0 one two\$"
	wait_screen " 0\\.0/s +sh -c \"\\\$0\" 1 5 50 0 one two $W/ct_steady\$"
	keys c
	wait_screen ' [0-9.]+[K]?/s +ct_steady$'
	keys q
}

@test "C: a column with each process's cgroup; g: a line per cgroup, its processes summed" {
	cgroup_open
	# The workload moves itself into the test's cgroup, then runs.
	in_terminal "$CT" --top -ef -T 0.3 -c "$WRITE" sh -c \
	    "'sh -c \"echo \\\$\\\$ >\\\"\\\$1/cgroup.procs\\\"; exec \\\"\\\$0\\\" 1 5 50 0\" \"\$0\" \"\$1\" & wait'" \
	    "$W/ct_steady" "$CG/sub"
	wait_screen ' [0-9.]+[K]?/s +ct_steady$'
	keys C
	wait_screen "^ +PID USER +THR sys_enter_ CGROUP +COMMAND\$"
	wait_screen " [0-9.]+[K]?/s /$NAME/sub +ct_steady\$"
	keys g
	wait_screen '^sorted by sys_enter_; by cgroup$'
	# ct_steady's cgroup: its one process, its rate; the shells' apart.
	wait_screen " root +[0-9]+ +[0-9.]+[K]?/s .* /$NAME/sub \\(1 process\\)\$"
	screen | grep -q ' ct_steady$' && fail "ct_steady shown in the cgroup view"
	keys g
	wait_screen ' [0-9.]+[K]?/s .* ct_steady$'
	keys q
}

@test "--for-each-cgroup --top: a line per cgroup, its rate, and its totals at the end" {
	[ "${ENGINE:-}" = bpf ] ||
	    skip "--for-each-cgroup needs the BPF engine (the bpf pass runs this)"
	cgroup_open
	sh -c 'echo $$ >"$1/cgroup.procs"; exec "$2" 1 5 50 0' sh "$CG/sub" \
	    "$W/ct_steady" &
	ct_bg $!
	in_terminal "$CT" --top -T 0.3 --for-each-cgroup="/$NAME" -c "$WRITE"
	wait_screen " [0-9.]+[K]?/s /$NAME/sub\$"
	keys q
	wait_screen 'totals since the start'
	wait_screen " [0-9]+ /$NAME/sub\$"
}

# perf's Default metrics count on any machine (the software events'):
# TopDown's shares are the same columns on a machine with a PMU.
@test "-M: a column per metric of each process, from its own counts; T: the metrics alone" {
	in_terminal "$CT" --top -T 0.3 -M Default "$W/wl_spin_for" 0 30000
	# The command's name is cut to the column's width.
	wait_screen ' [0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +wl_spin_f[a-z_]*$'
	screen >"$T/screen"
	# CPUs_utilized is task-clock's CPUs over the same refresh (the
	# spinner's share of a CPU, less on a busy machine).
	awk '/^ +PID / { for (i = 1; i <= NF; i++) col[$i] = i; next }
	    $NF ~ /^wl_spin_f/ { tc = $col["task-clock"]; cu = $col["CPUs_utili"] }
	    END { d = tc - cu; if (d < 0) d = -d
		exit !(cu > 0 && d <= 0.011) }' "$T/screen" ||
	    { cat "$T/screen"; false; }
	keys T
	wait_screen '^ +PID USER +THR CPUs_utili cs_per_sec migrations page_fault COMMAND *$'
	screen | grep -q 'task-clock ' && fail "task-clock shown before T"
	keys T
	wait_screen '^ +PID USER +THR task-clock '
	keys q
}

@test "cputop(1) and the help screen name V, c, C and g, and the CGROUP column" {
	local man=$SOURCE_DIR/man1/cputop.1 key
	[ -z "$(mandoc -Tlint -W warning "$man")" ]
	for key in V c C g T; do
		sed -n '/^\.SH KEYS/,/^\.SH /p' "$man" | grep -qE "^\.BR? $key( |\$)" ||
		    { echo "key $key is not in cputop(1)"; false; }
		grep -qE "^	\"  $key  +[a-z]" "$SOURCE_DIR/cmd/output/top/top_view.c" ||
		    { echo "key $key is not on the help screen"; false; }
	done
	grep -q '^\.B CGROUP$' "$man"
}
