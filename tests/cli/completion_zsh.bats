#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# The zsh completions as a person uses them: an interactive zsh in tmux
# after compinit, keys typed, Tab pressed, the screen read back. Every test
# runs twice: against the built commands with the tree's completion files,
# and against a staging install (cmake --install), whose completions are in
# the prefix's site-functions, put in front of fpath as zsh does for
# /usr/local/share/zsh/site-functions.

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
}

setup() {
	command -v tmux >/dev/null || skip "tmux is not installed"
	command -v zsh >/dev/null || skip "zsh is not installed"
	ensure_tracefs
	export HOME=$BATS_TEST_TMPDIR
	ORIG_PATH=$PATH
}

teardown() {
	tty_stop
}

# use built|installed [FPATH after ours]: start zsh on that tree.
use() {
	tty_stop
	WHERE=$1
	if [ "$1" = built ]; then
		export PATH=$BUILD_DIR/cmd:$ORIG_PATH
		export ZSH_FPATH=$BUILD_DIR/completions${2:+:$2}
	else
		export PATH=$STAGE/bin:$ORIG_PATH
		export ZSH_FPATH=$STAGE/share/zsh/site-functions${2:+:$2}
	fi
	tty_start zsh
}

# expect TEXT LINE [N [KEYS]]: TEXT, N Tabs (default 1) and KEYS leave the
# line LINE, to the character.
expect() {
	tty_complete "$1" "${3:-1}" "${4:-}" || return 1
	[ "$TTY_LINE" = "$2" ] ||
		fail "[$WHERE] '$1' + ${3:-1} Tab${4:+ + '$4'}: the line reads '$TTY_LINE', want '$2'"
}

# listed TEXT WORD...: TEXT and a Tab list every WORD (zsh lists the
# matches of an ambiguous word at once).
listed() {
	local text=$1 w
	shift
	tty_complete "$text" 1 || return 1
	for w in "$@"; do
		tty_listing | tr -s ' ' '\n' | grep -qxF -- "$w" ||
			fail "[$WHERE] '$text' + Tab does not list '$w':
$(tty_listing)"
	done
}

@test "the staging install puts the zsh completions in the prefix's site-functions" {
	[ -f "$STAGE/share/zsh/site-functions/_cputrack" ]
	[ -f "$STAGE/share/zsh/site-functions/_cpustat" ]
	[ ! -e "$STAGE/share/zsh/vendor-completions" ]
}

@test "cputrack -c: an item gets a comma, which a space takes back" {
	for where in built installed; do
		use $where
		expect "cputrack -c task-cl" "cputrack -c task-clock,"
		expect "cputrack -c task-cl" "cputrack -c task-clock " 1 " "
		expect "cputrack -c task-clock,page-fa" "cputrack -c task-clock,page-faults,"
		expect "cputrack -c task-clock,pic1=page-f" "cputrack -c task-clock,pic1=page-faults,"
		expect "cputrack -c task-clock,nou" "cputrack -c task-clock,nouser,"
	done
}

# The names of a Skylake-SP, whatever this machine is (PERF_CPUID).
@test "-M: the metrics and metric groups of --list, each with a comma after it" {
	export PERF_CPUID=GenuineIntel-6-55-4
	for where in built installed; do
		use $where
		expect "cputrack -M Pipe" "cputrack -M Pipeline,"
		expect "cputrack -M Pipeline,tma_ms_sw" "cputrack -M Pipeline,tma_ms_switches,"
		expect "cputrack --metric-groups=Branche" "cputrack --metric-groups=Branches,"
		expect "cpustat -M Pipe" "cpustat -M Pipeline,"
		expect "cpustat -M MemoryBW,Branche" "cpustat -M MemoryBW,Branches,"
		expect "cpustat --metric-groups=tma_lock_l" "cpustat --metric-groups=tma_lock_latency,"
	done
}

@test "cputrack -c: picN= and tracepoints, and what -h lists" {
	[ -d /sys/kernel/tracing/events/syscalls ] ||
		skip "no syscalls tracepoints in /sys/kernel/tracing"
	local events attrs
	events=$("$CPUTRACK" -h | awk '
	    /^\tevent[^:]*:/ { sub(/^\tevent[^:]*:/, ""); print; m = 1; next }
	    /^ +[^ ]/ && m { print; next } { m = 0 }' | tr -s ' ' '\n' | grep '^c')
	# The attributes this CPU's PMU has (none but nouser and sys without one).
	attrs=$("$CPUTRACK" -h | sed -n 's/^\tattributes://p' | tr -s ' ' '\n' |
	    grep '^c' || true)
	for where in built installed; do
		use $where
		expect "cputrack -c task-clock,pic1" "cputrack -c task-clock,pic1="
		expect "cputrack -c syscal" "cputrack -c syscalls:"
		expect "cputrack -c syscalls:sys_enter_getpp" \
		    "cputrack -c syscalls:sys_enter_getppid,"
		# shellcheck disable=SC2086
		listed "cputrack -c task-clock,c" $events $attrs
	done
}

@test "cputrack: options, --format= values, the command" {
	for where in built installed; do
		use $where
		listed "cputrack -" -c -p -T -N -o --format
		expect "cputrack --form" "cputrack --format="
		expect "cputrack --format=j" "cputrack --format=json "
		expect "cputrack --format=op" "cputrack --format=openmetrics "
		expect "cputrack --format=tr" "cputrack --format=trace "
		expect "cputrack --engine=b" "cputrack --engine=bpf "
		# --metrics and --metric-groups= share "--metric".
		expect "cputrack --metr" "cputrack --metric"
		expect "cputrack --metrics" "cputrack --metrics "
		expect "cputrack --metric-g" "cputrack --metric-groups="
		expect "cputrack -c task-clock -T 0.5 ech" "cputrack -c task-clock -T 0.5 echo"
		expect "cputrack --ti" "cputrack --tid="
		# After a comma, the threads not listed yet.
		listed "cputrack --tid=1," 2
		expect "cputrack -c task-clock -T 0.5 echo /et" "cputrack -c task-clock -T 0.5 echo /etc/"
	done
}

# Made from the sinks' table (cmd/cli/sinks.def): each command's own.
@test "the sinks' options: each command's, their arguments" {
	for where in built installed; do
		use $where
		expect "cputrack --liste" "cputrack --listen="
		expect "cputrack --web-config=/et" "cputrack --web-config=/etc/"
		expect "cputrack --thread-s" "cputrack --thread-series "
		expect "cputrack --to" "cputrack --top "
		listed "cputrack -" -b --linger
		expect "cpustat --ling" "cpustat --linger="
		expect "cpustat --web-config=/et" "cpustat --web-config=/etc/"
		# cputrack's alone, and the live view cpustat has not.
		expect "cpustat --thread-s" "cpustat --thread-s"
		expect "cpustat --to" "cpustat --to"
	done
}

@test "cpustat: events, options, --format= values, -T" {
	for where in built installed; do
		use $where
		expect "cpustat -c task-cl" "cpustat -c task-clock,"
		expect "cpustat -c pic1=cont" "cpustat -c pic1=context-switches,"
		expect "cpustat -c sched:sched_swi" "cpustat -c sched:sched_switch,"
		expect "cpustat --cp" "cpustat --cpus="
		expect "cpustat --sh" "cpustat --shared "
		expect "cpustat --per-so" "cpustat --per-socket "
		expect "cpustat --per-n" "cpustat --per-node "
		expect "cpustat --exc" "cpustat --exclusive "
		# --metrics and --metric-groups= share "--metric".
		expect "cpustat --metr" "cpustat --metric"
		expect "cpustat --metrics" "cpustat --metrics "
		expect "cpustat --metric-g" "cpustat --metric-groups="
		expect "cpustat --format=cs" "cpustat --format=csv "
		expect "cpustat --format=pr" "cpustat --format=prometheus "
		expect "cpustat --format=tr" "cpustat --format=trace "
		listed "cpustat -c task-clock -T " d u
		expect "cpustat -o /et" "cpustat -o /etc/"
	done
}

@test "another cpustat: its own completion further along fpath, else file names" {
	local root theirs
	root=$(debian_cpustat_root "$BUILD_DIR/tests/debian-cpustat") || skip "$root"
	theirs=$root/usr/sbin/cpustat
	[ "$root" = / ] && theirs=/usr/sbin/cpustat
	# Debian's cpustat has no zsh completion: stand in for one.
	local other=$BATS_TEST_TMPDIR/other-functions
	mkdir -p "$other"
	printf '#compdef cpustat\n_arguments "--theirs[an option of the other cpustat]"\n' \
	    >"$other/_cpustat"
	for where in built installed; do
		use $where "$other"
		expect "$theirs --the" "$theirs --theirs "
		expect "cpustat -c task-cl" "cpustat -c task-clock,"
		expect "$theirs -c task-cl" "$theirs -c task-cl"
		use $where
		expect "$theirs /etc/hostna" "$theirs /etc/hostname "
		expect "$theirs -c task-cl" "$theirs -c task-cl"
	done
}
