#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The live view as a person uses it (tmux: keys sent, the screen and its
# history read back): g's lines are sums of their processes, never of the
# machine's own line, and agree with the header; a 60-column window keeps
# COMMAND and the header's counts; i hands the keyboard to the command
# (cat, Python) until Ctrl-] gives it back; q escalates from SIGINT to
# SIGTERM on a command that ignores SIGINT, each said; a /dev/tty prompt
# stays in the pane; an endless writer's output takes bounded memory and
# its lines left out are said; P and M answer as top's users expect;
# --help is cputop's own.
load terminal_helper

setup() {
	ct_setup
	command -v tmux >/dev/null || skip "tmux is not installed"
	TOP=$BUILD_DIR/cmd/cputop
	terminal_open "cpkeys$$" 120 30
	tmux set-option -t "$S" status off
	# A long history, which only a window made after it has.
	tmux set-option -t "$S" history-limit 200000
	tmux new-window -k -t "$S:0" "bash --norc --noprofile"
}

teardown() {
	tmux kill-server 2>/dev/null || true
	ct_teardown
}

# in_terminal_rc COMMAND: typed at the prompt, its exit status to $T/rc
# when it ends (a command that dies of SIGINT drops the rest of the line:
# the status is asked again at the prompt by rc_at_prompt).
in_terminal_rc() {
	rm -f "$T/rc"
	keys "$* ; echo \$? >$T/rc" Enter
}

# rc_at_prompt: the status of the command that ended, asked at the prompt
# once it is back.
rc_at_prompt() {
	wait_screen '^bash-[0-9.]+# ?$'
	keys "echo \$? >$T/rc" Enter
	wait_filled "$T/rc"
	cat "$T/rc"
}

@test "g: a line per cgroup sums its processes, never the machine's own line; groups, header and / line agree" {
	# Every group whole on the screen: the longest cgroup paths, and
	# the other tests' cgroups, fit.
	tmux resize-window -t "$S" -x 400 -y 150
	in_terminal "$CT" --top -T 0.3
	wait_screen '^watching (the whole machine|every process)'
	keys g
	wait_screen '^sorted by task-clock; by cgroup'
	# One screen, read whole: the header's counts, the / line (pid 0:
	# the whole machine's, under an engine that counts cgroups), the
	# groups' processes, threads and CPUs.
	wait_for screen_has ' \([0-9]+ process(es)?(, [0-9]+ ended)?\)$'
	screen >"$T/screen"
	awk '
	    /^watching / { split($0, a, ": "); h = a[length(a)]
		n = split(h, w, /[ ,;]+/); procs = w[1]; threads = w[3]
		ended = (h ~ /ended$/) ? w[5] : 0 }
	    /^ +PID / { for (i = 1; i <= NF; i++) col[$i] = i; t = 1; next }
	    t && $NF == "/" && $1 ~ /^[0-9.]+$/ { total = $1; next }
	    t && match($0, / \([0-9]+ process(es)?(, [0-9]+ ended)?\)$/) {
		split(substr($0, RSTART + 2), g, /[ ,)]+/)
		gp += g[1]; if (g[3] != "") ge += g[3]
		gt += $2; gc += $3; groups++ }
	    END {
		printf "header %d processes %d threads %d ended; groups %d: %d processes %d threads %d ended, %.2f CPUs; / %s\n",
		    procs, threads, ended, groups, gp, gt, ge, gc, total
		if (groups == 0 || gp != procs || gt != threads || ge != ended)
			exit 1
		# Each group rounds its CPUs to 0.01; the / line is the sum
		# of every one (counted twice, it was twice the / line).
		if (total != "" && gc > total * 1.1 + 0.01 * groups + 0.05)
			exit 1
	    }' "$T/screen" || { cat "$T/screen"; false; }
	keys q
}

@test "as root, a 60-column window: COMMAND stays, the value columns that do not fit hidden and said" {
	tmux resize-window -t "$S" -x 60 -y 20
	in_terminal "$CT" --top -T 0.3 "$W/ct_steady" 1 30 50 0
	wait_screen '^ +PID USER +THR .* COMMAND$'
	wait_screen ' ct_steady$'
	wait_screen '^sorted by task-clock; [0-9]+ columns? hidden$'
	# No line wider than the window, the process's cells whole.
	whole_or_why 60 20
	keys q
}

@test "as a user, a 60-column window: the header's counts whole, COMMAND on every process line" {
	local ud
	user_setup 40
	ud=$(user_dir)
	tmux resize-window -t "$S" -x 60 -y 20
	in_terminal "${AS_USER[*]}" bash --norc --noprofile
	wait_for pgrep -U "$USER_ID" -x bash
	keys "$USER_TOP -T 0.3; echo \$? >$ud/rc" Enter
	wait_screen '^watching your processes: [0-9]+ process(es)?, [0-9]+ threads?$'
	wait_screen ' bash$'
	whole_or_why 60 20
	keys q
	wait_filled "$ud/rc"
	[ "$(cat "$ud/rc")" -eq 0 ]
}

@test "i hands the keyboard to cat, said in the pane's title; Ctrl-] gives it back; q: SIGINT" {
	in_terminal_rc "$TOP" -T 0.3 -c task-clock cat
	wait_screen "^'cat' waits for input: i types to it"
	keys i
	wait_screen "^typing to 'cat': every key is its, Ctrl-\\] gives them back"
	keys "hello there" Enter
	# The terminal's echo, then cat's own line.
	wait_for screen_count_is '^hello there$' 2
	# q while typing is cat's: a q on its line, not an end.
	keys q
	wait_screen '^q$'
	keys C-]
	wait_screen "^'cat' waits for input: i types to it \\(3 lines"
	# cat dies of SIGINT, and cputop of it too, as on Ctrl-C.
	keys q
	[ "$(rc_at_prompt)" -eq 130 ]
	history | grep -qx 'hello there'
}

@test "as a user: typing to cat through i, and q's SIGINT ends it and cputop with it" {
	local ud
	user_setup 41
	ud=$(user_dir)
	in_terminal "${AS_USER[*]}" bash --norc --noprofile
	wait_for pgrep -U "$USER_ID" -x bash
	keys "$USER_TOP -T 0.3 -c task-clock cat; echo \$? >$ud/rc" Enter
	wait_screen "^'cat' waits for input: i types to it"
	keys i "from a user" Enter C-]
	wait_for screen_count_is '^from a user$' 2
	keys q
	# Dead of SIGINT: the shell drops the rest of the line.
	wait_screen '^bash-[0-9.]+\$ ?$'
	keys "echo \$? >$ud/rc" Enter
	wait_filled "$ud/rc"
	[ "$(cat "$ud/rc")" -eq 130 ]
	history | grep -qx 'from a user'
}

# screen_count_is ERE N: N lines of the screen match.
screen_count_is() {
	[ "$(screen | grep -cE "$1")" -eq "$2" ]
}

@test "typing to Python through i; q: SIGINT that Python takes, then SIGTERM, each said, and cputop ends with it" {
	[ -x /usr/bin/python3 ] || skip "Debian's python3 is not installed"
	in_terminal_rc "$TOP" -T 0.3 -c task-clock /usr/bin/python3 -q
	wait_screen "^'/usr/bin/python3' waits for input"
	keys i "print(6 * 7)" Enter C-]
	wait_screen '^42$'
	keys q
	wait_screen "^q: SIGINT sent to '/usr/bin/python3' \\(q again: SIGTERM\\)"
	# Python's REPL takes SIGINT and goes on: the view is there still.
	wait_screen '^KeyboardInterrupt$'
	wait_screen "^'/usr/bin/python3' waits for input"
	keys q
	wait_screen 'totals since the start'
	# Dead of SIGTERM, as the command: the shell's line goes on.
	wait_filled "$T/rc"
	[ "$(cat "$T/rc")" -eq 143 ]
}

@test "q on a command that ignores SIGINT: SIGINT, then SIGTERM, each said; the view ends with it" {
	in_terminal_rc "$TOP" -T 0.3 -c task-clock sh -c "'trap \"\" INT; echo ready; exec sleep 300'"
	wait_screen '^ready$'
	wait_screen ' sleep$'
	keys q
	wait_screen "^q: SIGINT sent to 'sh' \\(q again: SIGTERM\\)"
	# It ignores SIGINT: still running, the view still drawn.
	wait_screen ' sleep$'
	screen | grep -q ' sleep$'
	keys q
	wait_screen 'totals since the start'
	# Dead of SIGTERM, as the command: the shell's line goes on.
	wait_filled "$T/rc"
	[ "$(cat "$T/rc")" -eq 143 ]
}

@test "a prompt on /dev/tty stays in the pane, and the answer typed through i reaches it" {
	in_terminal_rc "$TOP" -T 0.3 -c task-clock sh -c \
	    "'printf \"secret: \" >/dev/tty; read -r x </dev/tty; echo \"got \$x\"'"
	wait_screen "^'sh' waits for input"
	wait_screen '^secret: ?$'
	# The view whole: the prompt is in the pane, never over the header.
	screen | sed -n 1p | grep -q '^cputop  '
	keys i "abc" Enter
	wait_filled "$T/rc"
	[ "$(cat "$T/rc")" -eq 0 ]
	history | grep -qx 'got abc'
}

# output_memory PID: the kB cputop holds of its command's output: its
# resident memory and the memory file's size.
output_memory() {
	local rss file=0 fd
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status")
	for fd in /proc/"$1"/fd/*; do
		case $(readlink "$fd") in
		*memfd:cputop-output*) file=$(($(stat -L -c %s "$fd") / 1024)) ;;
		esac
	done
	echo $((rss + file))
}

# pane_lines_over N: the pane's title counts more than N lines.
pane_lines_over() {
	local n
	n=$(screen | sed -nE "s/^output of 'yes': ([0-9]+) lines.*/\\1/p")
	[ -n "$n" ] && [ "$n" -gt "$1" ]
}

# shell_child NAME: the pid of the terminal's shell's child NAME.
shell_child() {
	pgrep -P "$(tmux display -p -t "$S" '#{pane_pid}')" -x "$1"
}

@test "cputop yes: its output takes bounded memory, measured as it writes on" {
	local pid before after
	in_terminal "$TOP" -T 0.3 -c task-clock yes
	wait_for shell_child cputop
	pid=$(shell_child cputop)
	wait_for pgrep -P "$pid" -x yes
	# 3 bytes a line through the terminal: past 3 million lines, both
	# bounds (4 MiB each) are full.
	wait_for pane_lines_over 3000000
	before=$(output_memory "$pid")
	wait_for pane_lines_over 9000000
	after=$(output_memory "$pid")
	echo "output's memory: $before kB, then $after kB" >&2
	# The 6 million lines between are 12 MB of output (2 bytes each): a
	# store that kept them all grows by that. The view's own pages and
	# the allocator's move the figure by a MiB or so.
	[ "$after" -le $((before + 4096)) ]
	keys q
	wait_while "$pid" not pgrep -P "$pid" -x yes
}

@test "an output past the bounds: its first and last lines at the end, and the count of those left out where they were" {
	# 10000 lines of 1001 bytes (1002 through the terminal): 10 MB.
	in_terminal "$TOP" -T 0.3 -c task-clock sh -c \
	    "'yes \"\$(printf %01000d 7)\" | head -n 10000; echo last line'"
	wait_screen 'totals since the start'
	history >"$T/history"
	awk '/^0+7$/ { n++ }
	    /^\[cputop: [0-9]+ lines of the command.s output left out here\]$/ {
		left = $2 }
	    /^last line$/ { last = NR }
	    END { printf "%d whole lines, %d left out\n", n, left
		exit !(left > 0 && last && n + left >= 9999 && n + left <= 10000) }' \
	    "$T/history" || { tail -n 5 "$T/history"; false; }
}

@test "P sorts by CPU as top's P; M says what to press" {
	in_terminal "$CT" --top -T 0.3 -c context-switches,task-clock "$W/ct_steady" 1 30 50 0
	wait_screen '^sorted by context-sw$'
	keys P
	wait_screen '^sorted by task-clock$'
	keys M
	wait_screen '^M: memory is not a column .* < and > choose the column$'
	keys '<'
	wait_for not screen_has '^M: memory'
	keys q
}

@test "cputop --help: cputop's own usage, without the rows' options it refuses" {
	run "$TOP" --help
	[ "$status" -eq 0 ]
	grep -q '^	cputop \[-c events\]' <<<"$output"
	grep -q 'i types to the command' <<<"$output"
	run ! grep -qE -- '--format=|-o file|--listen=|--output-fd=fd' <<<"$output"
	run "$CT" --help
	grep -q -- '--format=table' <<<"$output"
}
