#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# A command that the live view starts, as a person runs one, as root and
# as a user (tmux: keys sent, the screen and its history read back): what
# it prints never lands on the view but in a pane of its last lines, and
# is on the terminal, whole and in order, once the view is gone, before
# the totals; cputop exits with its status (3, Python's 2, make's 2). With
# -b it writes as under cputrack. A user's build through a resize: make's
# whole output and status, and totals that perf stat, counting the same
# run, agrees with, as root's do.
load terminal_helper

setup() {
	ct_setup
	command -v tmux >/dev/null || skip "tmux is not installed"
	terminal_open "cpcmd$$" 100 30
	tmux set-option -t "$S" status off
	tmux set-option -t "$S" history-limit 20000
}

teardown() {
	tmux kill-server 2>/dev/null || true
	ct_teardown
}

# in_terminal_rc COMMAND: typed at the prompt, its exit status to $T/rc
# when it ends.
in_terminal_rc() {
	rm -f "$T/rc"
	keys "$* ; echo \$? >$T/rc" Enter
}

# talker DIR: a script in DIR, named for this test, that writes lines
# out-1, err-1 (on standard error), ... err-12, waits for a line on its
# input, writes "last line" and exits 3; its path.
talker() {
	cat >"$1/talk$$" <<'EOF'
#!/bin/sh
i=1
while [ $i -le 12 ]; do
	echo "out-$i"
	echo "err-$i" >&2
	i=$((i + 1))
done
read -r x
echo "last line"
exit 3
EOF
	chmod 0755 "$1/talk$$"
	echo "$1/talk$$"
}

# talked: the talker's lines in the terminal's history, in order.
talked() {
	# At the end of a line: where the shell's echo of the command filled
	# whole lines, the joined history has the first line after it.
	history | grep -oE '(out|err)-[0-9]+$|last line$'
}

# the talker's lines, as written.
talk_written() {
	local i
	for i in $(seq 12); do
		echo "out-$i"
		echo "err-$i"
	done
	echo "last line"
}

# talk TOP...: the talker under the view at the terminal: its last lines
# in the pane while the view is whole; then all of them, in order, before
# the totals, and the status 3.
talk() {
	local script gate
	script=$(talker "$(nobody_dir)")
	gate=$(nobody_dir)/gate$$
	mkfifo -m 0666 "$gate"
	exec 9<>"$gate"
	in_terminal_rc "$@" -T 0.2 -c task-clock "$script" "<$gate"
	wait_screen '^output of .*: 24 lines'
	wait_screen '^err-12$'
	# Nothing of it on the view: the view whole, its lines in the pane
	# alone, below its title.
	whole_or_why 100 30
	screen | awk '/^output of / { p = 1 } /^(out|err)-[0-9]+$/ && !p { bad = 1 }
	    END { exit bad }' || { screen; false; }
	echo >&9
	wait_filled "$T/rc"
	[ "$(cat "$T/rc")" -eq 3 ]
	[ "$(talked)" = "$(talk_written)" ] || { history; false; }
	# The totals come after the command's last line.
	history | awk '/^last line$/ { l = NR } /totals since the start/ { t = NR }
	    END { exit !(l && t > l) }'
	exec 9>&-
}

@test "as root: the command's lines in a pane, never on the view; then all of them in order on the terminal, and its status 3" {
	talk "$CT" --top
}

@test "as a user: the command's lines in a pane, never on the view; then all of them in order on the terminal, and its status 3" {
	user_setup 10
	talk "${AS_USER[*]}" "$USER_TOP"
}

@test "Python's error is on the terminal once the view is gone, and cputop's status is Python's, 2" {
	# Debian's, not a wrapper that execs it (pyenv's shims).
	[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is not installed"
	local missing=$T/missing-$$.py
	in_terminal_rc "$CT" --top -T 0.2 -c task-clock /usr/bin/python3 "$missing"
	wait_filled "$T/rc"
	[ "$(cat "$T/rc")" -eq 2 ] || { history; false; }
	history | grep -qF "can't open file '$missing'" || { history; false; }
}

@test "o hides the pane and shows it again; q: the command dies of SIGINT, its lines kept" {
	local script gate
	script=$(talker "$T")
	mkfifo "$T/gate"
	exec 8<>"$T/gate"
	in_terminal_rc "$CT" --top -T 0.2 -c task-clock "$script" "<$T/gate"
	wait_screen '^output of .*: 24 lines'
	keys o
	wait_for not screen_has '^output of '
	keys o
	wait_screen '^output of '
	# Ended by SIGINT, as on Ctrl-C: the shell drops the rest of its line,
	# and is asked the status on a line of its own.
	keys q
	wait_screen 'totals since the start'
	wait_screen '^bash-[0-9.]+# ?$'
	keys "echo \$? >$T/rc" Enter
	wait_filled "$T/rc"
	[ "$(cat "$T/rc")" -eq 130 ]
	[ "$(talked)" = "$(talk_written | head -n 24)" ] || { history; false; }
}

@test "a standard error sent to a file goes there, as without the view; standard output comes on the terminal" {
	in_terminal_rc "$CT" --top -T 0.2 -c task-clock sh -c \
	    "'echo out-$$; echo err-$$ >&2; exit 3'" "2>$T/log"
	wait_filled "$T/rc"
	[ "$(cat "$T/rc")" -eq 3 ]
	history | grep -qx "out-$$" || { history; false; }
	history | grep -qx "err-$$" && fail "the standard error came on the terminal"
	grep -qx "err-$$" "$T/log"
}

@test "-b: the command writes on standard output and error as under cputrack, among the screens; the status is its own" {
	run --separate-stderr "$CT" --top -b -T 0.2 -c task-clock sh -c \
	    'echo out-b; echo err-b >&2; exit 3'
	[ "$status" -eq 3 ] || { echo "$stderr"; false; }
	grep -qx out-b <<<"$output"
	grep -qx err-b <<<"$stderr"
	grep -q 'totals since the start' <<<"$output"
}

# builder DIR: a build of this test's, in DIR: make (a link named for the
# test) runs 4 targets, 2 at once, each a loop of 40 short commands (named
# for the test) that write a line each; target c fails, so make exits 2;
# target a waits for a line on the gate, DIR/gate, first. Its Makefile.
builder() {
	local d=$1 n
	ln -sf "$(command -v make)" "$d/mk$$"
	ln -sf "$(realpath "$W/wl_threads")" "$d/wl$$"
	mkfifo -m 0666 "$d/gate"
	{
		printf 'all: a b c d\n'
		for n in a b c d; do
			printf '%s:\n' "$n"
			if [ "$n" = a ]; then
				printf '\t@read x <%s/gate\n' "$d"
			fi
			printf '\t@for i in $$(seq 40); do %s/wl%s 1 2; echo %s-$$i; done\n' \
			    "$d" "$$" "$n"
			if [ "$n" = c ]; then
				printf '\t@exit 1\n'
			fi
		done
	} >"$d/Makefile"
	chmod -R a+rX "$d"
}

# The build's lines, as make writes them (its own last).
build_lines() {
	history | grep -xE '[abcd]-[0-9]+' | sort -u
}

# build_faults TOTALS: the page faults of every line of the totals but
# perf's, a folded line's (NAME xN) too, read in the column's place.
build_faults() {
	awk '/^ +PID USER +THR / { at = index($0, "page-fault") + 9; next }
	    at && $0 !~ / perf( <ended>)?$/ {
		v = substr($0, at - 9, 10); sub(/^ +/, "", v)
		if (v ~ /^[0-9]+$/) n += v }
	    END { print n + 0 }' "$1"
}

# build TOP...: perf stat counting make -j2 under the view (which follows
# every process of it, with no -ef), through a resize both ways; make's
# lines, its status, and the view's totals of the build within 1% of perf
# stat's.
build() {
	local d out
	command -v make >/dev/null || skip "make is not installed"
	command -v perf >/dev/null || skip "perf is not installed"
	d=$(nobody_dir)/build
	mkdir -m 0777 "$d"
	builder "$d"
	out=$d/perf.out
	exec 9<>"$d/gate"
	in_terminal_rc cd "$d" "&&" "$@" -T 0.2 -c page-faults \
	    perf stat -x, -o "$out" -e page-faults:u "./mk$$" -k -j2
	wait_screen " mk$$\$"
	tmux resize-window -t "$S" -x 80 -y 24
	wait_for screen_whole 80 24 || whole_or_why 80 24
	tmux resize-window -t "$S" -x 100 -y 30
	wait_for screen_whole 100 30 || whole_or_why 100 30
	echo >&9
	wait_filled "$T/rc"
	exec 9>&-
	# make's own status, as perf stat passes it on: the target that failed.
	[ "$(cat "$T/rc")" -eq 2 ] || { history; false; }
	[ "$(build_lines | wc -l)" -eq 160 ] || { history; false; }
	history | grep -q "mk$$: \\*\\*\\* \\[Makefile:.*c\\] Error 1" ||
	    { history; false; }
	# The build's page faults in the totals (every line but perf's), and
	# perf stat's, of the same run.
	history | awk '/totals since the start/ { t = 1 } t' >"$T/totals"
	build_faults "$T/totals" >"$T/n"
	awk -v n="$(cat "$T/n")" -v perf="$(awk -F, '$3 == "page-faults:u" { print $1 }' "$out")" '
	    BEGIN { d = n - perf; if (d < 0) d = -d
		if (perf > 0 && d <= perf / 100) exit 0
		print "the view counted " n ", perf stat " perf; exit 1 }' ||
	    { cat "$T/totals"; false; }
}

@test "as a user: make -j2 in a terminal, resized both ways: make's whole output, its status, and the build's totals as perf stat counts them" {
	user_setup 11
	build "${AS_USER[*]}" "$USER_TOP"
}

@test "as root: make -j2 in a terminal, resized both ways: make's whole output, its status, and the build's totals as perf stat counts them" {
	build "$CT" --top
}
