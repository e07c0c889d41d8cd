#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# The bash completions as a person uses them: an interactive bash in tmux
# with bash-completion, keys typed, Tab pressed, the screen read back.
# Every test runs twice: against the built commands with the tree's
# completion files, and against a staging install (cmake --install) with
# the installed files, which bash-completion finds as it finds those of
# /usr/local (XDG_DATA_DIRS, the prefix's share first).

bats_require_minimum_version 1.5.0
load helper
load completion_helper

setup_file() {
	export STAGE=$BATS_FILE_TMPDIR/prefix
	# Tests run side by side, and every cmake --install of the build
	# writes its install_manifest.txt, which package.install_uninstall
	# reads: installs share the build's install.lock, which that test
	# takes alone.
	flock -s "$BUILD_DIR/install.lock" \
	    cmake --install "$BUILD_DIR" --prefix "$STAGE" >"$BATS_FILE_TMPDIR/install.log" 2>&1 ||
	    { cat "$BATS_FILE_TMPDIR/install.log"; return 1; }
	local c=$BATS_FILE_TMPDIR/built/share/bash-completion/completions
	mkdir -p "$c"
	ln -s "$BUILD_DIR/completions/cputrack.bash" "$c/cputrack"
	ln -s "$BUILD_DIR/completions/cpustat.bash" "$c/cpustat"
}

setup() {
	command -v tmux >/dev/null || skip "tmux is not installed"
	[ -f /usr/share/bash-completion/bash_completion ] ||
		skip "bash-completion is not installed"
	ensure_tracefs
	export HOME=$BATS_TEST_TMPDIR
	export BASH_COMPLETION_USER_DIR=$BATS_TEST_TMPDIR/none
	ORIG_PATH=$PATH
}

teardown() {
	tty_stop
}

# use built|installed [XDG_DATA_DIRS after ours]: start bash on that tree.
use() {
	tty_stop
	WHERE=$1
	if [ "$1" = built ]; then
		export PATH=$BUILD_DIR/cmd:$ORIG_PATH
		export XDG_DATA_DIRS=$BATS_FILE_TMPDIR/built/share:${2:-/usr/share}
	else
		export PATH=$STAGE/bin:$ORIG_PATH
		export XDG_DATA_DIRS=$STAGE/share:${2:-/usr/share}
	fi
	tty_start bash
}

# expect TEXT LINE [N]: TEXT and N Tabs (default 1) leave the line LINE,
# to the character: "x" is completed without a space, "x " with one.
expect() {
	tty_complete "$1" "${3:-1}" || return 1
	[ "$TTY_LINE" = "$2" ] ||
		fail "[$WHERE] '$1' + ${3:-1} Tab: the line reads '$TTY_LINE', want '$2'"
}

# listed TEXT WORD...: TEXT and two Tabs list every WORD.
listed() {
	local text=$1 w
	shift
	tty_complete "$text" 2 || return 1
	for w in "$@"; do
		tty_listing | tr -s ' ' '\n' | grep -qxF -- "$w" ||
			fail "[$WHERE] '$text' + 2 Tab does not list '$w':
$(tty_listing)"
	done
}

# not_listed TEXT WORD...: TEXT and two Tabs list no WORD.
not_listed() {
	local text=$1 w
	shift
	tty_complete "$text" 2 || return 1
	for w in "$@"; do
		! tty_listing | tr -s ' ' '\n' | grep -qxF -- "$w" ||
			fail "[$WHERE] '$text' + 2 Tab lists '$w':
$(tty_listing)"
	done
}

@test "cputrack -c: an event, then another after a comma, no space after either" {
	for where in built installed; do
		use $where
		expect "cputrack -c task-cl" "cputrack -c task-clock"
		expect "cputrack -c task-clock,page-fa" "cputrack -c task-clock,page-faults"
		expect "cputrack -T 1 -c cs -c task-clock,pic3=page-f" \
		    "cputrack -T 1 -c cs -c task-clock,pic3=page-faults"
	done
}

@test "cputrack -c: attributes, picN= and tracepoints" {
	[ -d /sys/kernel/tracing/events/syscalls ] ||
		skip "no syscalls tracepoints in /sys/kernel/tracing"
	for where in built installed; do
		use $where
		expect "cputrack -c task-clock,nou" "cputrack -c task-clock,nouser"
		expect "cputrack -c task-clock,pic1" "cputrack -c task-clock,pic1="
		expect "cputrack -c syscal" "cputrack -c syscalls:"
		expect "cputrack -c syscalls:sys_enter_getpp" \
		    "cputrack -c syscalls:sys_enter_getppid"
		expect "cputrack -c task-clock,syscalls:sys_exit_getpp" \
		    "cputrack -c task-clock,syscalls:sys_exit_getppid"
	done
}

@test "cputrack -c lists what cputrack -h lists, and the subsystems" {
	local events attrs subs
	events=$("$CPUTRACK" -h | awk '
	    /^\tevent[^:]*:/ { sub(/^\tevent[^:]*:/, ""); print; m = 1; next }
	    /^ +[^ ]/ && m { print; next } { m = 0 }' | tr -s ' ' '\n' | grep '^c')
	# The attributes this CPU's PMU has (none but nouser and sys without one).
	attrs=$("$CPUTRACK" -h | sed -n 's/^\tattributes://p' | tr -s ' ' '\n' |
	    grep '^c' || true)
	subs=$(ls /sys/kernel/tracing/events | grep '^c' | sed 's/$/:/')
	for where in built installed; do
		use $where
		# shellcheck disable=SC2086
		listed "cputrack -c task-clock,c" $(printf 'task-clock,%s\n' $events $attrs $subs)
	done
}

@test "cputrack: options, --format= values, the command and its arguments" {
	for where in built installed; do
		use $where
		listed "cputrack -" -c -p -T -N -o --format= --output= \
		    --output-fd= --listen= --engine= --strict-exec --pass-status --list \
		    --metrics
		expect "cputrack --form" "cputrack --format="
		# --metrics and --metric-groups= share "--metric".
		expect "cputrack --metr" "cputrack --metric"
		expect "cputrack --metrics" "cputrack --metrics "
		expect "cputrack --metric-g" "cputrack --metric-groups="
		expect "cputrack --format=j" "cputrack --format=json "
		expect "cputrack --format=op" "cputrack --format=openmetrics "
		expect "cputrack --format=tr" "cputrack --format=trace "
		expect "cputrack --engine=b" "cputrack --engine=bpf "
		expect "cputrack -c task-clock -T 0.5 ech" "cputrack -c task-clock -T 0.5 echo "
		expect "cputrack -c task-clock ls /et" "cputrack -c task-clock ls /etc/"
		listed "cputrack -p " 1
		# A list, after its last comma.
		listed "cputrack -p 1," 1,1
		listed "cputrack -p $$,1 -p 1," 1,1
		# Thread ids, a list too, for --tid.
		expect "cputrack --ti" "cputrack --tid="
		listed "cputrack --tid 1," 1,1
		listed "cputrack --tid=1,1 --tid 1," 1,1
	done
}

# -M's names are those of a Skylake-SP, whatever this machine is: perf's
# PERF_CPUID names the model, as the completion's --list honours it.
@test "cputrack -M: the metrics and metric groups of --list, a list after its last comma" {
	export PERF_CPUID=GenuineIntel-6-55-4
	for where in built installed; do
		use $where
		listed "cputrack -M TopdownL" TopdownL1 TopdownL2 TopdownL3 TopdownL4 \
		    TopdownL5 TopdownL6
		expect "cputrack -M TopdownL1,Pipe" "cputrack -M TopdownL1,Pipeline"
		expect "cputrack -MMemoryBW,tma_fetch_la" "cputrack -MMemoryBW,tma_fetch_latency"
		expect "cputrack --metric-groups=Branche" "cputrack --metric-groups=Branches"
		expect "cputrack --metric-groups Pipeline,Branche" "cputrack --metric-groups Pipeline,Branches"
		# -M takes its list: the command comes after it.
		expect "cputrack -M Pipeline ech" "cputrack -M Pipeline echo "
		# A group or a metric is no event of -c.
		not_listed "cputrack -c task-clock,Topd" task-clock,TopdownL1
		not_listed "cputrack -c task-clock,tma_ret" task-clock,tma_retiring
		expect "cputrack --input /et" "cputrack --input /etc/"
	done
}

@test "cpustat -M: the metrics and metric groups of --list, a list after its last comma" {
	export PERF_CPUID=GenuineIntel-6-55-4
	for where in built installed; do
		use $where
		listed "cpustat -M TopdownL" TopdownL1 TopdownL2 TopdownL6
		expect "cpustat -M TopdownL1,MemoryB" "cpustat -M TopdownL1,MemoryB"
		expect "cpustat -M TopdownL1,MemoryBW,Pipe" "cpustat -M TopdownL1,MemoryBW,Pipeline"
		expect "cpustat -Mtma_fetch_la" "cpustat -Mtma_fetch_latency"
		expect "cpustat --metric-groups=Branche" "cpustat --metric-groups=Branches"
		not_listed "cpustat -c task-clock,Topd" task-clock,TopdownL1
	done
}

@test "cpustat -c: events, attributes, picN=, tracepoints, no space after an item" {
	for where in built installed; do
		use $where
		expect "cpustat -c task-cl" "cpustat -c task-clock"
		expect "cpustat -c task-clock,context-sw" "cpustat -c task-clock,context-switches"
		expect "cpustat -c pic1=cpu-m" "cpustat -c pic1=cpu-migrations"
		expect "cpustat -c task-clock,nou" "cpustat -c task-clock,nouser"
		expect "cpustat -c sched:sched_swi" "cpustat -c sched:sched_switch"
	done
}

@test "cpustat: options, --format= values, -T" {
	for where in built installed; do
		use $where
		listed "cpustat -" -c -h -T --format= --cpus= --output= \
		    --output-fd= --listen= --list --shared --exclusive --metrics -o
		expect "cpustat --cp" "cpustat --cpus="
		expect "cpustat --per-so" "cpustat --per-socket "
		expect "cpustat --per-n" "cpustat --per-node "
		listed "cpustat --per-" --per-cache --per-core --per-die --per-node --per-socket
		expect "cpustat --exc" "cpustat --exclusive "
		# --metrics and --metric-groups= share "--metric".
		expect "cpustat --metr" "cpustat --metric"
		expect "cpustat --metrics" "cpustat --metrics "
		expect "cpustat --metric-g" "cpustat --metric-groups="
		expect "cpustat --sh" "cpustat --shared "
		expect "cpustat --format=cs" "cpustat --format=csv "
		expect "cpustat --format=pr" "cpustat --format=prometheus "
		expect "cpustat --format=tr" "cpustat --format=trace "
		listed "cpustat -c task-clock -T " u d
		expect "cpustat -o /et" "cpustat -o /etc/"
	done
}

# Made from the sinks' table (cmd/cli/sinks.def): each command's own, and
# their arguments, after "=" or as the next word.
@test "the sinks' options: each command's, their arguments" {
	for where in built installed; do
		use $where
		expect "cputrack --liste" "cputrack --listen="
		expect "cputrack --web-config=/et" "cputrack --web-config=/etc/"
		expect "cputrack --web-config /et" "cputrack --web-config /etc/"
		expect "cputrack --thread-s" "cputrack --thread-series "
		expect "cputrack --to" "cputrack --top "
		listed "cputrack -" -b --linger=
		# The option's argument taken, the command after it.
		expect "cputrack --linger 5 ech" "cputrack --linger 5 echo "
		expect "cpustat --ling" "cpustat --linger="
		expect "cpustat --web-config=/et" "cpustat --web-config=/etc/"
		expect "cpustat --web-config /et" "cpustat --web-config /etc/"
		# cputrack's alone, and the live view cpustat has not.
		expect "cpustat --thread-s" "cpustat --thread-s"
		expect "cpustat --to" "cpustat --to"
	done
}

# The build adds them: a new sink option needs no edit of the templates.
@test "the bash templates spell none of the sinks' options" {
	local sink w
	local -a spelt=()
	for sink in $(sed -n 's/^SINK(\([a-z0-9_]*\)_sink,.*/\1/p' \
	    "$SOURCE_DIR/cmd/cli/sinks.def"); do
		mapfile -t -O "${#spelt[@]}" spelt < <(sed -n \
		    -e 's/.*\.name = "\([a-z0-9-]*\)".*/--\1/p' \
		    -e "s/.*\\.letter = '\\(.\\)'.*/-\\1/p" \
		    "$SOURCE_DIR/cmd/output/$sink/$sink.c")
	done
	[[ " ${spelt[*]} " == *" --listen "* && " ${spelt[*]} " == *" -b "* ]] ||
		fail "the sinks' options not found: '${spelt[*]}'"
	for w in "${spelt[@]}"; do
		run grep -nE -e "(^|[ '|(])$w([ =)|';]|\$)" \
		    "$SOURCE_DIR"/completions/*.bash.in
		[ "$status" -eq 1 ] || fail "a template spells $w: $output"
	done
}

@test "Debian's cpustat gets Debian's completion, ours stays ours" {
	local root
	root=$(debian_cpustat_root "$BUILD_DIR/tests/debian-cpustat") || skip "$root"
	local theirs=$root/usr/sbin/cpustat
	[ "$root" = / ] && theirs=/usr/sbin/cpustat
	for where in built installed; do
		# Ours first in the search path, as /usr/local/share before
		# /usr/share; theirs behind it.
		use $where "$root/usr/share"
		listed "$theirs -" -a -q -x -X
		not_listed "$theirs -" --cpus= --format=
		expect "$theirs -n " "$theirs -n maxtasks "
		# Ours again in the same shell, and theirs again.
		expect "cpustat -c task-cl" "cpustat -c task-clock"
		listed "$theirs -" -X
		not_listed "$theirs -c task-" task-clock
	done
}

@test "another program named cpustat never gets our events" {
	local other=$BATS_TEST_TMPDIR/other
	mkdir -p "$other"
	printf '#!/bin/sh\necho "cpustat: a /proc utilisation monitor"\n' >"$other/cpustat"
	chmod +x "$other/cpustat"
	for where in built installed; do
		use $where "$BATS_TEST_TMPDIR/nothing"
		expect "$other/cpustat -c task-cl" "$other/cpustat -c task-cl"
		expect "cpustat -c task-cl" "cpustat -c task-clock"
	done
}
