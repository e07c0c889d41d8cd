# SPDX-License-Identifier: BSD-2-Clause
# shellcheck disable=SC2034 # the .bats files that load it read what it sets
# A real terminal for the tests that need one (tmux): each test's
# terminal has a tmux server of its own ($S, named by the caller), as the
# other engine's run of the same file may start and end its sessions at
# the same time. Keys go in, the screen comes back as text.
load cputrack_helper

tmux() {
	command tmux -L "$S" "$@"
}

# terminal_open NAME COLUMNS LINES: a session running a plain bash.
terminal_open() {
	S=$1
	tmux new-session -d -s "$S" -x "$2" -y "$3" "bash --norc --noprofile"
}

keys() {
	tmux send-keys -t "$S" "$@"
}

screen() {
	tmux capture-pane -t "$S" -p
}

# wait_screen ERE: until a line of the screen matches.
wait_screen() {
	wait_for screen_has "$1" && return 0
	echo "no line matches '$1' on the screen:" >&2
	screen >&2
	return 1
}
screen_has() {
	screen | grep -qE "$1"
}

# wait_screen_line N ERE: until line N of the screen matches.
wait_screen_line() {
	wait_for screen_line_has "$1" "$2" && return 0
	echo "line $1 of the screen does not match '$2':" >&2
	screen >&2
	return 1
}
screen_line_has() {
	screen | sed -n "$1p" | grep -qE "$2"
}
