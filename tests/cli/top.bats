#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cputrack --top and cputop, as a person uses them: in a real terminal
# (tmux: keys sent, the screen read back) with threads and a child that
# come after the start, a -p target that must run on after q, the keys
# that sort, filter, show threads and totals, a resized window; and -b,
# the view as text, whose counts are checked; the whole machine; the
# refusals.
load terminal_helper

setup() {
	ct_setup
	command -v tmux >/dev/null || skip "tmux is not installed"
	terminal_open "cptop$$" 80 24
	tmux set-option -t "$S" status off
	TOP=$BUILD_DIR/cmd/cputop
}

teardown() {
	tmux kill-server 2>/dev/null || true
	ct_teardown
}

# quit_status: q, then (once the prompt is back: the totals are out)
# the exit status the shell saw. A run that q ended with a command of its
# own dies of SIGINT, as on Ctrl-C, and the shell drops the rest of a
# line it was on: so the status is asked for on a line of its own.
quit_status() {
	keys q
	wait_screen 'totals since the start'
	wait_screen '^bash-[0-9.]+# ?$'
	keys "echo \$? >$T/rc" Enter
	wait_filled "$T/rc"
	cat "$T/rc"
}

# in_terminal_rc COMMAND: typed at the prompt, its exit status to $T/rc
# when it ends; quit_rc: q, then that status. The whole machine's totals
# after q may take more than the screen, past any line to wait for.
in_terminal_rc() {
	rm -f "$T/rc"
	keys "$* ; echo \$? >$T/rc" Enter
}
quit_rc() {
	keys q
	wait_filled "$T/rc"
	cat "$T/rc"
}

# A process line's field N for the process named COMM in a block.
proc_field() {
	awk -v c="$1" -v n="$2" '$NF == c || ($(NF - 1) == c && $NF == "<ended>") { print $n; exit }'
}

@test "-b: a screen per refresh, threads counted as they come, then the exact totals" {
	gate_open
	"$CT" --top -b -T 0.2 -c "$WRITE" "$W/wl_steps" 2 10 <"$T/gate" \
	    >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	# The title, the process with its three threads.
	wait_rows_until '/^ +PID USER +THR sys_enter_ COMMAND$/ { t = 1 }
	    t && $NF == "wl_steps" && $3 == 3 { f = 1; exit } END { exit !f }'
	gate_send w
	# 20 writes in a refresh: a rate, per second, on the process line.
	wait_rows_until '$NF == "wl_steps" && $4 ~ /\/s$/ && $4 + 0 > 0 { f = 1; exit }
	    END { exit !f }'
	gate_send w
	gate_send q
	wait_cputrack
	[ "$status" -eq 0 ]
	[ ! -s "$T/err" ]
	last_block "$T/out" >"$T/totals"
	grep -q 'totals since the start' "$T/totals"
	[ "$(proc_field wl_steps 4 <"$T/totals")" = 40 ]
	# Every screen says what it watches and counts.
	[ "$(grep -c "^watching '$W/wl_steps'" "$T/out")" -eq \
	    "$(grep -c '^ *PID USER' "$T/out")" ]
}

@test "-b: processes sorted by the first event's rate, the busier first" {
	"$CT" --top -b -ef -T 0.2 -c "$WRITE" sh -c \
	    '"$0" 1 5 20 0 & "$0" 1 50 20 0 & wait' "$W/ct_steady" \
	    >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	# A screen with both, each with its rate.
	wait_rows_until 'BEGIN { RS = "" } {
	    n = 0; m = split($0, l, "\n")
	    for (i = 1; i <= m; i++) if (l[i] ~ /\/s +ct_steady$/) n++
	    if (n == 2) { found = 1; exit } }
	    END { exit !found }'
	# shellcheck disable=SC2046 # one pid a word
	kill $(descendants "$CPID" | tail -n 2)
	wait_cputrack
	# In each screen that has both, the first has the higher rate.
	awk 'BEGIN { RS = "" } {
	    n = split($0, l, "\n"); k = 0
	    for (i = 1; i <= n; i++) {
		split(l[i], f, " ")
		if (f[5] == "ct_steady" && f[4] ~ /\/s$/) r[++k] = f[4]
	    }
	    if (k == 2) { both++; if (scale(r[1]) < scale(r[2])) bad++ } }
	    function scale(s,  m) { m = 1; if (s ~ /K/) m = 1000; if (s ~ /M/) m = 1e6; return (s + 0) * m }
	    END { exit !(both > 0 && bad == 0) }' "$T/out"
}

@test "-b: an event that counts user mode only by Solaris's rule says so in the header, where perf stat would count kernel mode too" {
	local spec
	# As root, who may count kernel mode.
	run --separate-stderr "$CT" --top -b -N 1 -T 0.2 -c page-faults,context-switches true
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	grep -qx "page-faults: user mode only, by Solaris's rule (perf stat counts kernel mode too: add ,sys)" <<<"$output" ||
	    { echo "$output"; false; }
	# Modes said, or an event the kernel counts in its own context: no line.
	for spec in page-faults,sys page-faults:u context-switches task-clock; do
		run --separate-stderr "$CT" --top -b -N 1 -T 0.2 -c "$spec" true
		[ "$status" -eq 0 ] || { echo "$stderr"; false; }
		! grep -q 'user mode only' <<<"$output" || { echo "$spec: $output"; false; }
	done
	# A user whom kernel.perf_event_paranoid 2 allows user mode alone:
	# perf stat counts only that too.
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ] ||
	    skip "kernel.perf_event_paranoid is below 2: users may count kernel mode here"
	user_setup 4
	run --separate-stderr "${AS_USER[@]}" "$USER_TOP" -b -N 1 -T 0.2 -c page-faults true
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	grep -q '^-c page-faults' <<<"$output"
	! grep -q 'user mode only' <<<"$output"
}

@test "in a terminal: threads and a child that come later, H with each thread's name, then q and the totals" {
	gate_open
	in_terminal "$CT" --top -ef -T 0.3 -c "$WRITE" sh -c \
	    "'read x; \"\$0\" 2 10 step'" "$W/wl_steps" "<$T/gate"
	wait_screen '^ +[0-9]+ +[^ ]+ +1 .* sh$'
	screen | grep -q wl_steps && fail "wl_steps is shown before it ran"
	gate_release
	wait_screen '^ +[0-9]+ +[^ ]+ +3 .* wl_steps$'
	keys H
	# The process's threads under it, indented, each with its own name.
	wait_screen '^ +[0-9]+ +[^ ]+ +[^ ]+ +  step-1$'
	wait_screen '^ +[0-9]+ +[^ ]+ +[^ ]+ +  step-2$'
	[ "$(screen | grep -cE '  wl_steps$')" -eq 1 ]
	gate_send w
	wait_screen ' [0-9.]+[KM]?/s +wl_steps$'
	# Ended by SIGINT, as on Ctrl-C.
	[ "$(quit_status)" -eq 130 ]
	# The terminal as it was, with the totals under the prompt's line.
	screen | grep -q 'totals since the start'
	[ "$(screen | proc_field wl_steps 4)" = 20 ]
	! screen | grep -q 'q quit'
}

@test "in a terminal: q leaves a -p target running, untraced, not stopped" {
	start_target "$W/ct_steady" 1 1 50 0
	in_terminal "$CT" --top -T 0.3 -c "$WRITE" -p "$TPID"
	wait_screen "^ +$TPID .* ct_steady\$"
	wait_screen " [0-9.]+/s +ct_steady\$"
	[ "$(quit_status)" -eq 0 ]
	assert_free "$TPID"
	# The same process (its start time), and it goes on writing.
	[ "$(start_time "$TPID")" = "${CT_STARTS[$TPID]}" ]
	local before
	before=$(syscw "$TPID")
	writes_past "$TPID" $((before + 3))
}

@test "in a terminal: sort, help, filter, totals, pause and a resized window" {
	in_terminal "$CT" --top -ef -T 0.3 -c "task-clock,$WRITE" sh -c \
	    "'\"\$0\" 1 50 50 0'" "$W/ct_steady"
	wait_screen '^sorted by task-clock$'
	wait_screen 'ct_steady$'
	keys '>'
	wait_screen '^sorted by sys_enter_$'
	keys r
	wait_screen '^sorted by sys_enter_, lowest first$'
	keys '?'
	wait_screen '^  q, Ctrl-C  quit'
	screen | grep -q '^sorted by' && fail "the sort line is shown over the help"
	keys x
	wait_screen '^sorted by'
	keys / c t _ s t Enter
	wait_screen "showing 'ct_st'"
	screen | grep -qE ' sh$' && fail "sh is shown under the filter ct_st"
	keys a
	wait_screen 'totals since the start'
	keys Space
	wait_screen 'PAUSED'
	keys Space
	tmux resize-window -t "$S" -x 60 -y 15
	# The footer on the 15th and last line of the smaller window.
	wait_screen_line 15 '^q quit'
	screen >"$T/screen"
	[ "$(wc -l <"$T/screen")" -eq 15 ]
	[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/screen")" -le 60 ]
	[ "$(quit_status)" -eq 130 ]
}

@test "in a terminal: + and - refresh less or more often, never more often than it counts" {
	in_terminal "$CT" --top -T 0.3 -c task-clock "$W/ct_steady" 1 50 50 0
	wait_screen 'refresh 0.3 s \(counted every 0.3 s\)'
	keys +
	wait_screen 'refresh 0.6 s \(counted every 0.3 s\)'
	keys + +
	wait_screen 'refresh 1.2 s \(counted every 0.3 s\)'
	keys - - -
	wait_screen 'refresh 0.3 s \(counted every 0.3 s\)'
	# Never below the counting interval: two more, then r, which
	# redraws once they are taken.
	keys - - r
	wait_screen '^sorted by task-clock, lowest first$'
	screen_has 'refresh 0.3 s \(counted every 0.3 s\)'
	[ "$(quit_status)" -eq 130 ]
}

@test "cputop -b: the whole machine, every process, pid 1 and one of the test's" {
	"$BUILD_DIR/cmd/cputrack" --engine=bpf -c task-clock true \
	    >/dev/null 2>"$T/why" ||
	    skip "the BPF engine cannot run here: $(cat "$T/why")"
	start_target "$(wl_own ct_steady)" 1 1 50 0
	run --separate-stderr "$TOP" -b -T 0.3 -N 2 -c context-switches
	# With the suite's thousands of processes beside it, the kernel's
	# ring of records may overflow, which is said (exit 1); a process
	# that was there at the start and not tracked is a fault.
	[ "$status" -eq 0 ] || { [ "$status" -eq 1 ] &&
	    [[ $stderr == *"counts are incomplete"*" 0 processes could not be tracked"* ]]; } ||
	    { echo "$stderr"; false; }
	grep -q '^watching the whole machine: [0-9]* processes' <<<"$output"
	last_block <(echo "$output") >"$T/totals"
	awk '$1 == 1 { f = 1 } END { exit !f }' "$T/totals"
	awk -v p="$TPID" '$1 == p && $NF == "ct_steady" { f = 1 } END { exit !f }' \
	    "$T/totals"
}

@test "bare cputop and cputrack --top, as root: the default view of the whole machine, then q" {
	local cmd
	# With --engine=ptrace, which traces only a target: counted from
	# outside.
	for cmd in "$TOP" "$BUILD_DIR/cmd/cputrack --top" "$TOP --engine=ptrace"; do
		start_target "$W/ct_steady" 1 1 50 0
		in_terminal_rc "$cmd"
		# The default events, every process: the test's among them.
		wait_screen '^watching (the whole machine|every process)'
		wait_screen '^-c task-clock'
		# The test's process, among many: shown alone.
		keys / ct_steady Enter
		wait_screen "^ +$TPID +root .* ct_steady\$"
		[ "$(quit_rc)" -eq 0 ]
		assert_free "$TPID"
		end_bg "$TPID"
	done
}

# example_commands: the commands of cputop(1)'s EXAMPLES, one command a line.
example_commands() {
	mandoc -Tascii "$SOURCE_DIR/man1/cputop.1" | col -b |
	    awk '/^EXAMPLES/ { e = 1; next } /^SEE ALSO/ { e = 0 }
		e && $1 == "$" { sub(/^[ \t]*\$ /, ""); print }'
}

@test "cputop(1): every example runs" {
	command -v make >/dev/null || skip "make is not installed"
	local examples
	examples=$(example_commands)
	# The page's examples, as the test runs them below.
	[ "$(wc -l <<<"$examples")" -eq 6 ] || { echo "$examples"; false; }
	# cputop alone: the test of a bare cputop above.
	grep -qx 'cputop' <<<"$examples"
	grep -qx 'sudo cputop -c context-switches,raw_syscalls:sys_enter' <<<"$examples"
	grep -qx 'cputop -c task-clock,page-faults make -j8' <<<"$examples"
	grep -qx 'cputop -p "$(pidof redis-server)"' <<<"$examples"
	grep -qx 'sudo cputop -M TopdownL1 -p "$(pidof mysqld)"' <<<"$examples"
	grep -qx 'sudo cputop -b -N 10 -c task-clock > top.txt' <<<"$examples"
	# The whole machine (the test runs as root).
	in_terminal_rc "$TOP" -c context-switches,raw_syscalls:sys_enter
	wait_screen '^ +PID USER +THR context-sw raw_syscal COMMAND$'
	wait_screen '^watching the whole machine'
	[ "$(quit_rc)" -eq 0 ]
	# A build: two compilers (sh, sleep) that come and go.
	printf 'all: a b\na:\n\tsleep 0.5\nb:\n\tsleep 0.5\n' >"$T/Makefile"
	in_terminal_rc cd "$T" "&&" "$TOP" -c task-clock,page-faults make -j8
	wait_filled "$T/rc"
	[ "$(cat "$T/rc")" -eq 0 ]
	# A server, by its name (the test's own: the other engine's run of
	# this file has one too), which runs on after q.
	local server=redis-$$
	ln -s "$W/ct_steady" "$T/$server"
	start_target "$T/$server" 1 1 50 0
	in_terminal "$TOP" -p "\"\$(pidof $server)\""
	wait_screen "^ +$TPID .* $server\$"
	[ "$(quit_status)" -eq 0 ]
	# TopDown of a server's threads: columns where the machine has a PMU
	# and an Intel model's metrics; elsewhere one line says why not.
	local rc=0
	"$TOP" -b -N 1 -M TopdownL1 -p "$(pidof "$server")" >"$T/td" 2>"$T/td.err" || rc=$?
	if [ "$rc" -eq 0 ]; then
		grep -qE '^ +PID USER +THR .*frontend_b' "$T/td"
	else
		[ "$rc" -eq 2 ]
		[ "$(wc -l <"$T/td.err")" -eq 1 ]
		grep -qE '^cputop: -M TopdownL1: (no such metric|none of its)' "$T/td.err" ||
		    { cat "$T/td.err"; false; }
	fi
	assert_free "$TPID"
	# Ten screens into a file.
	(cd "$T" && "$TOP" -b -N 10 -c task-clock >top.txt)
	[ "$(grep -c '^ *PID USER' "$T/top.txt")" -ge 10 ]
	grep -q 'totals since the start' "$T/top.txt"
}

# runs_sleep PID: process PID runs sleep (setpriv has changed user and
# exec'd it).
runs_sleep() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = sleep ]
}

# user_runs N NAME: the user (user_setup) has N processes named NAME; a
# condition of its own, so that each look counts them again.
user_runs() {
	[ "$(pgrep -U "$USER_ID" -x "$2" | wc -l)" -eq "$1" ]
}

# none_traced UID: no process of user UID has a tracer.
none_traced() {
	local pid
	for pid in $(pgrep -U "$1"); do
		traced_by "$pid" 0 || [ ! -e "/proc/$pid" ] ||
		    { echo "pid $pid ($(cat "/proc/$pid/comm")) is traced" >&2; return 1; }
	done
}

@test "cputop -b as a user the BPF engine refuses: that user's processes counted from outside, none traced, and why not every user's" {
	command -v strace >/dev/null || skip "strace is not installed (scripts/deps installs it)"
	local own roots tracer traced
	user_setup 0
	"${AS_USER[@]}" sleep 600 & # not a wait: a process of the user's
	own=$!
	ct_bg "$own"
	sleep 600 & # not a wait: a process of root's, not the user's
	roots=$!
	ct_bg "$roots"
	# One of the user's that a debugger traces: counted too, and its
	# tracer stays the debugger.
	"${AS_USER[@]}" strace -o /dev/null sleep 600 & # not a wait: a traced process
	tracer=$!
	ct_bg "$tracer"
	wait_for runs_sleep "$own"
	wait_for pgrep -U "$USER_ID" -x -P "$tracer" sleep
	traced=$(pgrep -U "$USER_ID" -x -P "$tracer" sleep)
	run --separate-stderr "${AS_USER[@]}" "$USER_TOP" -b -T 0.3 -N 2 -c task-clock
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	[ -z "$stderr" ] || { echo "$stderr"; false; }
	grep -q '^watching your processes (for every user.s, the BPF engine needs CAP_BPF and CAP_PERFMON (or root)): 3 processes' <<<"$output" ||
	    { echo "$output"; false; }
	grep -q "^counted from outside: what starts and ends between two scans counts in its process's line, or its parent's\$" <<<"$output"
	grep -q ' engine scan ' <<<"$output"
	last_block <(echo "$output") >"$T/totals"
	local p
	for p in "$own" "$traced"; do
		awk -v p="$p" -v u="$USER_ID" '$1 == p && $2 == u && $NF == "sleep" { f = 1 } END { exit !f }' \
		    "$T/totals" || { echo "$output"; false; }
	done
	run ! awk -v p="$roots" '$1 == p { f = 1 } END { exit !f }' "$T/totals"
	assert_free "$own"
	traced_by "$traced" "$(pgrep -U "$USER_ID" -x strace)"
}

@test "in a terminal, as a user: bare cputop shows their processes and leaves their other window alone: untraced, and a setuid program keeps its privilege" {
	local suid ud
	user_setup 1
	# A setuid-root id, root's, in a directory of root's no other may write.
	suid=$BATS_TEST_TMPDIR/suid
	mkdir -m 0755 "$suid"
	cp "$(command -v id)" "$suid/id"
	chmod 4755 "$suid/id"
	! findmnt -no OPTIONS -T "$suid" | grep -qw nosuid ||
	    skip "the test's directory is mounted nosuid: no setuid program runs there"
	# Where the user's shells write what the test reads.
	ud=$BATS_TEST_TMPDIR/user
	mkdir -m 0700 "$ud"
	chown "$USER_ID:$USER_ID" "$ud"
	# The user's other session: a shell in a window of its own.
	tmux new-window -d -t "$S:1" "${AS_USER[*]} bash --norc --noprofile"
	wait_for pgrep -U "$USER_ID" -x bash
	# The user's view, in the first window.
	in_terminal "${AS_USER[*]}" bash --norc --noprofile
	wait_for user_runs 2 bash
	keys "$USER_TOP; echo \$? >$ud/rc" Enter
	wait_screen '^watching your processes'
	wait_screen '^counted from outside'
	wait_screen "^ +[0-9]+ +$USER_ID +1 .* bash\$"
	# Its other window: nothing traced, and the setuid program is root.
	none_traced "$USER_ID"
	tmux send-keys -t "$S:1" "$suid/id -u >$ud/euid; cat /proc/\$\$/status >$ud/status" Enter
	wait_filled "$ud/status"
	[ "$(cat "$ud/euid")" = 0 ]
	grep -qE '^TracerPid:\s+0$' "$ud/status"
	none_traced "$USER_ID"
	keys q
	wait_filled "$ud/rc"
	[ "$(cat "$ud/rc")" -eq 0 ]
}

@test "cputop as a user with few file descriptors: the busiest process counted first, those left out said" {
	local spin i
	user_setup 3
	"${AS_USER[@]}" "$W/wl_spin" 1 & # not a wait: the user's busiest
	spin=$!
	ct_bg "$spin"
	for i in $(seq 30); do
		"${AS_USER[@]}" sleep 600 & # not a wait: idle processes of the user's
		ct_bg $!
	done
	wait_for user_runs 30 sleep
	# 90 descriptors: room for a few processes: a descriptor a thread,
	# its stat's and two for its sentinel (cputop_unseen.h).
	run --separate-stderr "${AS_USER[@]}" prlimit --nofile=90:90 \
	    "$USER_TOP" -b -T 0.3 -N 2 -c task-clock
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	[ "$(sed -n 1p <<<"$stderr")" = "cputop: out of file descriptors: the limit is 90 open files (RLIMIT_NOFILE); LWPs beyond it are not counted; raise it with ulimit -n" ] ||
	    { echo "$stderr"; false; }
	[[ $(sed -n 2p <<<"$stderr") =~ ^cputop:\ out\ of\ file\ descriptors:\ the\ busiest\ threads\ are\ counted\;\ not\ counted:\ ([0-9]+)\ whole\ processes\ \(sleep\ x([0-9]+)\)$ ]] &&
	    [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] ||
	    { echo "$stderr"; false; }
	last_block <(echo "$output") >"$T/totals"
	awk -v p="$spin" '$1 == p && $NF == "wl_spin" && $4 + 0 > 0 { f = 1 } END { exit !f }' \
	    "$T/totals" || { echo "$output"; false; }
	# Some sleeps counted, not all.
	[ "$(grep -c ' sleep$' "$T/totals")" -gt 0 ]
	[ "$(grep -c ' sleep$' "$T/totals")" -lt 30 ]
}

@test "at kernel.perf_event_paranoid 3: the one line says what to do" {
	local was
	user_setup 2
	was=$(cat /proc/sys/kernel/perf_event_paranoid)
	# Only for the run: other tests count as users at the usual value.
	sysctl -qw kernel.perf_event_paranoid=3
	run --separate-stderr "${AS_USER[@]}" "$USER_TOP" -b -N 1 -c context-switches
	sysctl -qw kernel.perf_event_paranoid="$was"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	# A kernel without Debian's patch takes 3 as 2: kernel mode is what
	# it refuses (paranoid_levels.bats).
	if [ "$(user_counts_at_3)" = yes ]; then
		[[ $stderr == "cputop: context-switches: Permission denied: it counts kernel mode (the kernel counts it in its own context), which kernel.perf_event_paranoid 3 allows only to root or CAP_PERFMON; lower it to 1, or run with CAP_PERFMON" ]] ||
		    { echo "$stderr"; false; }
	else
		[[ $stderr == "cputop: context-switches: Permission denied: kernel.perf_event_paranoid is 3, which this kernel (with Debian's and Ubuntu's patch) takes as performance counters only to root or CAP_PERFMON; 'sudo sysctl kernel.perf_event_paranoid=2' lets users count their own processes in user mode (1: kernel mode too), or 'sudo setcap cap_perfmon+ep' the command (PERMISSIONS in cputrack(1))" ]] ||
		    { echo "$stderr"; false; }
	fi
}

@test "cputop as root without a mounted cgroup v2 hierarchy: every process counted from outside, in one line that names no option" {
	command -v unshare >/dev/null || skip "unshare is not installed"
	start_target "$W/ct_steady" 1 1 50 0
	# A mount namespace of its own (private: the host keeps its mounts)
	# with every cgroup hierarchy unmounted.
	run --separate-stderr unshare -m sh -c \
	    'umount -R -l /sys/fs/cgroup && ! grep -q " - cgroup2 " /proc/self/mountinfo &&
	     exec "$0" -b -T 0.3 -N 2 -c task-clock' "$TOP"
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	[ "$(sed -n 1p <<<"$stderr")" = "cputop: no cgroup v2 hierarchy is mounted: counting every process from outside, one by one" ] ||
	    { echo "$stderr"; false; }
	# A busy machine's every process may be more than cputop can count
	# or follow between two scans: then it says so, and nothing else.
	! sed 1d <<<"$stderr" | grep -v \
	    -e "^cputop: out of file descriptors: " \
	    -e "^cputop: every process is counted now, each thread of it$" \
	    -e "^cputop: the kernel lost [0-9]* counts of tasks that ended between two scans (its buffers were full, or a task's came in part)$" ||
	    { echo "$stderr"; false; }
	grep -q '^watching every process (no cgroup v2 hierarchy is mounted): [0-9]* processes' <<<"$output"
	last_block <(echo "$output") >"$T/totals"
	awk -v p="$TPID" '$1 == p && $NF == "ct_steady" { f = 1 } END { exit !f }' "$T/totals"
	assert_free "$TPID"
}

@test "cputop counting every process from outside leaves other tools' counts alone: perf stat's writes of a fork tree, 30 times beside it, each exact" {
	command -v unshare >/dev/null || skip "unshare is not installed"
	command -v perf >/dev/null || skip "perf is not installed"
	# Its sentinels are inherited by what this shell starts: perf stat,
	# and the command perf stat counts with counters of its own.
	unshare -m sh -c 'umount -R -l /sys/fs/cgroup && exec "$0" -b -T 0.2 -c task-clock' \
	    "$TOP" >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_line "$T/out" '^watching every process'
	local i
	for i in $(seq 30); do
		perf_count "$WRITE" "$W/wl_forktree" 2 3 250 >>"$T/counts" 2>/dev/null
	done
	kill -TERM "$CPID"
	wait "$CPID" || true
	# A count swapped with a sentinel's is its task-clock: nanoseconds.
	[ "$(sort "$T/counts" | uniq -c | awk '{ print $1, $2 }')" = "30 3250" ] ||
	    { sort "$T/counts" | uniq -c; false; }
}

@test "cputop with no target, counted from outside: a process's exact totals, its threads' last counts read at their end" {
	# A name of the test's own: other tests run wl_steps beside it, and
	# their ended lines would be folded with its.
	wl_named wl_steps
	start_gated steps "$WL_PATH" 2 10
	threads "$TPID" 3
	# The ptrace engine traces only a target: every process is counted
	# from outside.
	"$TOP" --engine=ptrace -b -T 1 -c "$WRITE" >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_rows_until "\$1 == $TPID && \$3 == 3 && \$NF == \"$WL_NAME\" { f = 1; exit } END { exit !f }"
	grep -q ' engine scan ' "$T/out"
	printf w >&"$GATE"
	wait_rows_until "\$1 == $TPID && \$4 ~ /\\/s\$/ && \$4 + 0 > 0 { f = 1; exit } END { exit !f }"
	# The second step, then the end: the threads' counts are final.
	printf wq >&"$GATE"
	wait_rows_until "\$1 == $TPID && \$NF == \"<ended>\" { f = 1; exit } END { exit !f }"
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ] || { echo "status $status"; cat "$T/err"; false; }
	last_block "$T/out" >"$T/totals"
	grep -q 'totals since the start' "$T/totals"
	[ "$(proc_field "$WL_NAME" 4 <"$T/totals")" = 40 ] || { cat "$T/totals"; false; }
}

@test "refused: no terminal without -b, -b without --top, --top with rows' options" {
	run --separate-stderr "$CT" --top -c "$WRITE" true
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --top draws on a terminal and standard output is not one: -b prints the view as text" ]
	run --separate-stderr "$CT" -b -c "$WRITE" true
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: -b prints the live view: it needs --top (or cputop)" ]
	run --separate-stderr "$CT" --top -b --format=csv -c "$WRITE" true
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --top shows the counts itself: not with --format, -o, --output-fd or --listen" ]
	run --separate-stderr "$CT" --top -b -T 0 -c "$WRITE" true
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --top refreshes at each interval: -T 0 gives none" ]
}

@test "in a terminal: colour where the terminal has it, none with NO_COLOR" {
	in_terminal "$CT" --top -T 0.3 -c "$WRITE" "$W/ct_steady" 1 1 50 0
	wait_screen '^sorted by'
	# The header's colour: cyan, SGR 36.
	tmux capture-pane -t "$S" -p -e | grep -q $'\e\\[36m'
	keys q
	wait_screen '^bash-[0-9.]+# ?$'
	keys clear Enter
	in_terminal NO_COLOR=1 "$CT" --top -T 0.3 -c "$WRITE" "$W/ct_steady" 1 1 50 0
	wait_screen '^sorted by'
	tmux capture-pane -t "$S" -p -e | grep -q $'\e\\[3[0-7]m' && fail "a colour under NO_COLOR"
	keys q
}

@test "cputop(1): clean, and it names every key of the help screen" {
	local man=$SOURCE_DIR/man1/cputop.1 key
	[ -z "$(mandoc -Tlint -W warning "$man")" ]
	# The help's keys (its lines "  KEY  text"), each under KEYS.
	for key in '\?' '<' '>' r t H a / space '\+' q; do
		sed -n '/^\.SH KEYS/,/^\.SH /p' "$man" |
		    grep -qE "^\.BR? (|.*[ \"])$key([ \"]|\$)" ||
		    { echo "key $key is not in cputop(1)"; false; }
	done
	grep -q '^\.B \\-b$' "$man"
}
