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

# in_terminal COMMAND: typed at the terminal's prompt.
in_terminal() {
	keys "$*" Enter
}

# The blocks of -b's output, each a screen, ended by an empty line; the
# last is the totals at the end.
last_block() {
	awk 'BEGIN { RS = "" } { b = $0 } END { print b }' "$1"
}

# history: every line the terminal showed, those scrolled off included.
history() {
	tmux capture-pane -t "$S" -p -S - -J
}

# user_setup OFFSET: a user of the test's own, a uid without a name that
# no other test runs processes as (the view watches every process of its
# user), in a range of its own for each OFFSET (a pid is below 5000000:
# no two tests of a file, nor of its two runs, share one; each file has
# its offsets: top.bats 0 to 9, top_command.bats 10 to 19, top_screen.bats
# 20 to 29, top_scan.bats 30 to 39); AS_USER runs a command as it, USER_ID
# is its uid, and $USER_TOP a cputop it may run.
user_setup() {
	USER_ID=$((3000000 + $1 * 5000000 + $$))
	AS_USER=(setpriv --reuid="$USER_ID" --regid="$USER_ID" --clear-groups)
	pgrep -U "$USER_ID" >/dev/null && fail "user $USER_ID runs processes already"
	local d
	d=$(nobody_dir)
	cp "$BUILD_DIR/cmd/cputrack" "$d/cputrack"
	ln -s cputrack "$d/cputop"
	USER_TOP=$d/cputop
}

# user_counts_at_3: whether the kernel, at kernel.perf_event_paranoid 3,
# lets the test's user (user_setup first) count its own process in user
# mode (a software event, exclude_kernel and exclude_hv): "yes" where it
# takes 3 as 2, "no" with Debian's patch (Debian's, Ubuntu's kernels).
# The kernel's own answer to perf_event_open(2), asked without cpctools
# by Debian's python3 (a root's own may be out of the user's reach); the
# level restored after.
user_counts_at_3() {
	local was answer
	was=$(cat /proc/sys/kernel/perf_event_paranoid)
	sysctl -qw kernel.perf_event_paranoid=3
	answer=$("${AS_USER[@]}" /usr/bin/python3 -c '
import ctypes, os, struct
nr = {"x86_64": 298, "aarch64": 241}[os.uname().machine]
flags = 1 | 1 << 5 | 1 << 6  # disabled, exclude_kernel, exclude_hv
attr = struct.pack("<IIQQQQQIIQ", 1, 64, 1, 0, 0, 0, flags, 0, 0, 0)
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(nr, ctypes.c_char_p(attr), 0, -1, -1, 0)
print("yes" if fd >= 0 else "no")
')
	sysctl -qw kernel.perf_event_paranoid="$was"
	case $answer in
	yes | no) echo "$answer" ;;
	*)
		echo "the kernel's answer at level 3 is unknown: $answer" >&2
		return 1
		;;
	esac
}

# user_dir: a directory of the test's that the user may write (user_setup
# first); its path.
user_dir() {
	local d
	d=$(nobody_dir)/user
	if [ ! -d "$d" ]; then
		mkdir -m 0700 "$d"
		chown "$USER_ID:$USER_ID" "$d"
	fi
	echo "$d"
}

# screen_whole COLUMNS LINES: the view is on the screen whole, no cell
# of another layout left on it: its header from the first line, "sorted
# by" over the title of the columns, each line below it blank or a line of
# cells in the title's columns (a pid, a user, values or - or nothing,
# each right where its column ends, then a command), the footer on line
# LINES and nothing beyond, no line wider than COLUMNS.
screen_whole() {
	screen | awk -v w="$1" -v h="$2" -f <(whole_awk) >/dev/null
}

# whole_or_why COLUMNS LINES: screen_whole, or what is not whole, and the
# screen, said.
whole_or_why() {
	screen | awk -v w="$1" -v h="$2" -f <(whole_awk) && return 0
	screen >&2
	return 1
}
whole_awk() {
	cat <<'AWK'
function fail(why) { if (bad == "") bad = why " (line " NR "): " $0 }
# The value columns after PID (1-7), USER (9-16) and THR (18-22): where
# each ends, from the title's words; where COMMAND begins.
function columns(line,   rest, at, n, word) {
	rest = substr(line, 24); at = 23; n = 0
	while (match(rest, /[^ ]+/)) {
		word = substr(rest, RSTART, RLENGTH)
		if (word ~ /^COMMAND/) { command = at + RSTART; break }
		at += RSTART + RLENGTH - 1
		rest = substr(rest, RSTART + RLENGTH)
		end[++n] = at
	}
	ncols = n
}
function cells_whole(line,   i, from) {
	if (substr(line, 1, 7) !~ /^ *[0-9]*$/ || substr(line, 8, 1) != " " ||
	    substr(line, 17, 1) != " " || substr(line, 18, 5) !~ /^ *[0-9]*$/ ||
	    substr(line, 23, 1) != " ")
		return 0
	from = 24
	for (i = 1; i <= ncols; i++) {
		if (substr(line, from, end[i] - from + 1) !~ /^ *(-|[0-9]+|[0-9.]+[KMGTP]?(\/s)?[*]?|[0-9.]+s[*]?)?$/ ||
		    substr(line, end[i] + 1, 1) != " ")
			return 0
		from = end[i] + 2
	}
	return substr(line, command) ~ /^ *[^ ]/
}
length($0) > w { fail("wider than the window") }
NR == 1 && !/^cputop  [0-9:]+  / { fail("no header") }
NR == 2 && !/^watching / { fail("no watching line") }
/^ +PID USER +THR / && !title {
	title = NR; columns($0)
	if (prev !~ /^sorted by/) fail("no sorted by")
	next
}
{ prev = $0 }
/^output of / { pane = 1 }
title && NR < h && !pane && $0 !~ /^ *$/ && !cells_whole($0) { fail("a row not whole") }
NR == h && !/^q quit/ { fail("no footer") }
NR > h && $0 !~ /^ *$/ { fail("beyond the window") }
END { if (!title) fail("no title"); if (bad != "") { print bad; exit 1 } }
AWK
}
