#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# Every key cputop(1) documents, pressed once in one run of the view in a
# real terminal (tmux), each with the effect the page gives it: on a
# family of three processes with threads (a Python that forks two
# children), which ignores SIGINT, so that q and then Ctrl-C escalate.
load terminal_helper

setup() {
	ct_setup
	command -v tmux >/dev/null || skip "tmux is not installed"
	TOP=$BUILD_DIR/cmd/cputop
	PY=$(python3 -c "import sys; print(sys.executable)")
	terminal_open "cpevery$$" 240 40
	tmux set-option -t "$S" status off
	# Three processes: the parent with 3 threads of its own, its
	# children with 1 and 2; each thread writes to /dev/null at a pace.
	cat >"$T/family.py" <<'EOF'
import os, signal, threading, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
def work():
    fd = os.open("/dev/null", os.O_WRONLY)
    while True:
        os.write(fd, b"x")
        time.sleep(0.01)
def start(n):
    for _ in range(n):
        threading.Thread(target=work, daemon=True).start()
children = []
for n in (1, 2):
    pid = os.fork()
    if pid == 0:
        start(n)
        while True:
            time.sleep(1)
    children.append(pid)
start(3)
print("ready", flush=True)
for pid in children:
    os.waitpid(pid, 0)
EOF
}

teardown() {
	tmux kill-server 2>/dev/null || true
	ct_teardown
}

# threads_shown: for each process line of the screen, in order, its pid
# and the count of thread lines under it ("PID:N ..."). A process line
# has a THR count; a thread line a pid and no THR.
threads_shown() {
	screen | awk '
	    /^ +PID/ { t = 1; next }
	    t && substr($0, 1, 7) ~ /^ *[0-9]+$/ && substr($0, 18, 5) ~ /[0-9]/ {
		n++; pid[n] = $1; under[n] = 0; next }
	    t && n && substr($0, 1, 7) ~ /^ *[0-9]+$/ { under[n]++ }
	    END { for (i = 1; i <= n; i++) printf "%s:%d ", pid[i], under[i] }'
}

# shown_is PATTERN: threads_shown matches the ERE PATTERN, whole.
shown_is() {
	[[ "$(threads_shown)" =~ ^$1$ ]]
}

# wait_shown PATTERN: until threads_shown matches, or what it was, said.
wait_shown() {
	wait_for shown_is "$1" && return 0
	echo "threads shown: $(threads_shown), not $1" >&2
	screen >&2
	return 1
}

# The pane's terminal, where the test writes behind the view's back.
pane_tty() {
	tmux display -p -t "$S" '#{pane_tty}'
}

@test "every key of cputop(1), pressed once: each does what the page says" {
	local p='[0-9]+'
	rm -f "$T/rc"
	keys "$TOP -T 0.3 -M Default $PY $T/family.py; echo \$? >$T/rc" Enter
	wait_screen "^watching '$PY': 3 processes, 9 threads\$"
	wait_screen '^ready$'
	wait_screen '^sorted by task-clock$'

	# ?: the keys; any key goes back (and does nothing else).
	keys '?'
	wait_screen '^Keys$'
	keys r
	wait_screen '^sorted by task-clock$'
	run ! screen_has '^Keys$'

	# < and >: the column to the left, to the right.
	keys '>'
	wait_screen '^sorted by context-sw$'
	keys '<' '<' '<' '<' '<' '<'
	wait_screen '^sorted by PID$'
	# r: the other order, and back.
	keys r
	wait_screen '^sorted by PID, lowest first$'
	keys r
	wait_screen '^sorted by PID$'
	# Highest pid first: the second child (2 threads of its own), the
	# first, the parent.
	wait_shown "$p:0 $p:0 $p:0 "

	# Home, End, Up, Down, Page Up, Page Down select a process; t shows
	# the selected one's threads (one process's at a time), again: none.
	keys Home t
	wait_shown "$p:3 $p:0 $p:0 "
	keys t
	wait_shown "$p:0 $p:0 $p:0 "
	keys Down t
	wait_shown "$p:0 $p:2 $p:0 "
	keys End t
	wait_shown "$p:0 $p:0 $p:4 "
	keys Up t
	wait_shown "$p:0 $p:2 $p:0 "
	keys PPage t
	wait_shown "$p:3 $p:0 $p:0 "
	keys NPage t
	wait_shown "$p:0 $p:0 $p:4 "
	keys t
	wait_shown "$p:0 $p:0 $p:0 "

	# H: every process's threads; again: none.
	keys H
	wait_shown "$p:3 $p:2 $p:4 "
	keys H
	wait_shown "$p:0 $p:0 $p:0 "

	# a: totals since the start, clocks in seconds; again: rates.
	keys a
	wait_screen '; totals since the start, clocks in seconds$'
	wait_screen ' [0-9.]+s +[0-9]+ .* python3$'
	keys a
	wait_screen '; per second, clocks in CPUs$'

	# P: by CPU (task-clock); M: says what to press.
	keys P
	wait_screen '^sorted by task-clock$'
	keys M
	wait_screen '^M: memory is not a column .* < and > choose the column$'

	# V: a tree, the children under the parent; again: the list.
	keys V
	wait_screen '^sorted by task-clock; tree$'
	wait_for screen_count_is ' `- python3$' 2
	keys V
	wait_screen '^sorted by task-clock$'
	run ! screen_has '`- '

	# c: the command lines; again: the names.
	keys c
	wait_for screen_count_is " $PY $T/family.py\$" 3
	keys c
	wait_for screen_count_is ' python3$' 3

	# C: the CGROUP column; again: gone.
	keys C
	wait_screen '^ +PID USER +THR .* CGROUP +COMMAND$'
	keys C
	wait_for not screen_has ' CGROUP '

	# g: a line per cgroup, its processes counted; again: processes.
	keys g
	wait_screen '^sorted by task-clock; by cgroup$'
	wait_screen ' \(3 processes\)$'
	keys g
	wait_for screen_count_is ' python3$' 3

	# /: a filter, taken by Enter; Escape clears it.
	keys / n o n e Enter
	wait_screen "^sorted by task-clock; showing 'none'\$"
	wait_shown ''
	keys Escape
	wait_screen '^sorted by task-clock$'
	wait_shown "$p:0 $p:0 $p:0 "

	# o: the pane of the command's output, hidden; again: shown.
	keys o
	wait_for not screen_has "^output of '"
	keys o
	wait_screen "^output of '$PY': 1 line"

	# T: -M's metrics alone; again: the counts too.
	keys T
	wait_screen '^ +PID USER +THR CPUs_utili cs_per_sec migrations page_fault COMMAND$'
	keys T
	wait_screen '^ +PID USER +THR task-clock '

	# space: paused, said; Ctrl-L draws every cell again: a text
	# written behind the view's back is gone.
	keys Space
	wait_screen '^sorted by task-clock; PAUSED$'
	printf '\033[30;1Hnot the view' >"$(pane_tty)"
	wait_screen '^not the view'
	keys C-l
	wait_for not screen_has 'not the view'
	keys Space
	wait_screen '^sorted by task-clock$'

	# + and -: a refresh one counting interval longer, shorter, never
	# below it (- at the least, then +: one interval more than it).
	keys +
	wait_screen ' refresh 0\.6 s \(counted every 0\.3 s\)$'
	keys -
	wait_screen ' refresh 0\.3 s \(counted every 0\.3 s\)$'
	keys - +
	wait_screen ' refresh 0\.6 s \(counted every 0\.3 s\)$'

	# i: the keyboard to the command, said; Ctrl-] gives it back.
	keys i
	wait_screen "^typing to '$PY': every key is its"
	keys C-]
	wait_screen "^output of '$PY': 1 line"

	# q: SIGINT, which the family ignores, said; Ctrl-C as q again:
	# SIGTERM, and the view ends with the command, its status its.
	keys q
	wait_screen "^q: SIGINT sent to '$PY' \\(q again: SIGTERM\\)"
	wait_for screen_count_is ' python3$' 3
	keys C-c
	wait_screen 'totals since the start'
	wait_filled "$T/rc"
	[ "$(cat "$T/rc")" -eq 143 ]
}

# screen_count_is ERE N: N lines of the screen match.
screen_count_is() {
	[ "$(screen | grep -cE "$1")" -eq "$2" ]
}
