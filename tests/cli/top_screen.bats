#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The live view's screen in a real terminal (tmux: keys sent, the screen
# read back), as the user and as root: a resize, smaller then larger,
# while rows come and go, redraws the whole view at once, the header and
# every row whole, also while the view is paused (nothing else would draw
# again); Ctrl-L draws every cell again over what another program wrote;
# Escape clears the filter, as in htop. The processes watched are a
# command's, each named for this test.
load terminal_helper

setup() {
	ct_setup
	command -v tmux >/dev/null || skip "tmux is not installed"
	terminal_open "cpscr$$" 120 35
	tmux set-option -t "$S" status off
	TOP=$BUILD_DIR/cmd/cputop
}

teardown() {
	tmux kill-server 2>/dev/null || true
	ct_teardown
}

# churn DIR: a script in DIR that starts short processes named for this
# test, without end, so that the view's rows change at each refresh; its
# path. (A user runs it: DIR is one the user may read.)
churn() {
	local name=scr$$
	ln -sf "$(realpath "$W/wl_threads")" "$1/$name"
	printf '#!/bin/sh\nwhile :; do "%s" 1 50; "%s" 2 20; done\n' \
	    "$1/$name" "$1/$name" >"$1/churn$$"
	chmod 0755 "$1/churn$$"
	echo "$1/churn$$"
}

# resized COLUMNS LINES: the window resized, then the view whole in it.
resized() {
	tmux resize-window -t "$S" -x "$1" -y "$2"
	wait_for screen_whole "$1" "$2" || whole_or_why "$1" "$2"
}

# resize_both_ways TOP...: the view of a command that churns, resized
# smaller and larger while rows change, then paused; q.
resize_both_ways() {
	local script
	script=$(churn "$(nobody_dir)")
	in_terminal "$@" -ef -T 0.2 -c task-clock,page-faults "$script"
	wait_screen " scr$$ *( <ended>)?\$"
	resized 120 35
	resized 80 24
	resized 120 35
	# Paused: nothing changes, and nothing else draws the cells again.
	keys Space
	wait_screen 'PAUSED'
	resized 80 24
	resized 100 30
	keys Space
	keys q
	wait_screen 'totals since the start'
}

@test "as root: a resize, smaller then larger, while rows change or not, redraws the whole view at once" {
	resize_both_ways "$CT" --top
}

@test "as a user: a resize, smaller then larger, while rows change or not, redraws the whole view at once" {
	user_setup 20
	resize_both_ways "${AS_USER[*]}" "$USER_TOP"
}

@test "Ctrl-L draws every cell again, over what another program wrote on the terminal" {
	local tty
	in_terminal "$CT" --top -T 0.2 -c task-clock "$W/ct_steady" 1 1 50 0
	wait_screen ' ct_steady$'
	keys Space
	wait_screen 'PAUSED'
	# Another program's bytes on the terminal, which curses does not know.
	tty=$(tmux display-message -p -t "$S" '#{pane_tty}')
	printf '\033[12;20HJUNK-%s-JUNK' "$$" >"$tty"
	wait_screen "JUNK-$$-JUNK"
	keys C-l
	wait_for not screen_has "JUNK-$$-JUNK"
	whole_or_why 120 35
	keys q
}

@test "/ then Escape clears the filter, and Escape clears one in use, as htop" {
	in_terminal "$CT" --top -ef -T 0.2 -c task-clock sh -c \
	    "'\"\$0\" 1 1 50 0 & \"\$0\" 1 1 50 0 & wait'" "$W/ct_steady"
	wait_screen ' sh$'
	keys / c t _ s Enter
	wait_screen "showing 'ct_s'"
	wait_for not screen_has ' sh$'
	# While a new one is typed: the old one goes too.
	keys / x y z Escape
	wait_for not screen_has "showing '"
	wait_screen ' sh$'
	keys / c t _ s Enter
	wait_screen "showing 'ct_s'"
	keys Escape
	wait_for not screen_has "showing '"
	wait_screen ' sh$'
	keys q
}
