# SPDX-License-Identifier: BSD-2-Clause
# shellcheck disable=SC2034 # the .bats files that load it read what it sets
# Shared set-up for the CLI tests.
load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash

# LeakSanitizer stops a program that runs under ptrace (strace, gdb): the
# ASAN_OPTIONS for a command of ours that strace runs, which turn its
# leak check off (the tests that do not trace it keep theirs). Builds
# without sanitizers ignore them.
asan_under_ptrace() {
	echo "${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}

# mandoc_clean PAGE...: mandoc's lint finds no warning in any PAGE.
mandoc_clean() {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	local page
	for page in "$@"; do
		run mandoc -Tlint -W warning "$page"
		assert_success
		assert_output ""
	done
}

# Tracepoint events need tracefs; mount it when we may.
ensure_tracefs() {
	[ -d /sys/kernel/tracing/events ] && return 0
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events ] ||
		skip "tracefs is not mounted and cannot be mounted here"
}

# Hardware-event tests need a core PMU in the kernel.
require_pmu() {
	# shellcheck disable=SC2010 # the names are the kernel's PMUs'
	ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core|cpu_atom|armv[78]_.*|arm_.*)$' ||
		skip "no hardware PMU in this kernel (VM without a virtual PMU)"
}

# nobody_path FILE: a path by which nobody can run FILE, printed. FILE
# itself where nobody can reach it; otherwise (the build tree under /root,
# mode 0700, in a fresh root) a copy in the test's own temporary
# directory, whose directories are made passable to others (0711: they
# can be crossed, not listed) so that the copy can be reached.
nobody_path() {
	local f=$1 d
	if setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$f"; then
		echo "$f"
		return
	fi
	d=$(nobody_dir)
	cp "$f" "$d/"
	chmod 0755 "$d/${f##*/}"
	echo "$d/${f##*/}"
}

# http_module_of FILE: where this build's cputrack or cpustat FILE looks
# for the HTTP module it loads for --listen, relative to its directory
# (the path it was built with, which the build tree keeps too); nothing
# for a build without one.
http_module_of() {
	strings -n 8 "$1" | grep -m 1 '/cpctools/http\.so$' || true
}

# command_copy FILE DIR: FILE (this build's cputrack or cpustat) copied
# into DIR, with its HTTP module where it looks for it from there. The
# copy's path, printed.
command_copy() {
	local f=$1 d=$2 rel
	cp "$f" "$d/"
	chmod 0755 "$d/${f##*/}"
	rel=$(http_module_of "$f")
	if [ -n "$rel" ]; then
		mkdir -p "$(dirname "$d/$rel")"
		cp "$(dirname "$f")/$rel" "$d/$rel"
	fi
	echo "$d/${f##*/}"
}

# nobody_dir: the test's directory that nobody can reach, made, printed.
nobody_dir() {
	local d=$BATS_TEST_TMPDIR/nobody p
	if [ ! -d "$d" ]; then
		mkdir -m 0755 "$d"
		p=$BATS_TEST_TMPDIR
		while [ "$p" != "$(dirname "$BATS_RUN_TMPDIR")" ] && [ "$p" != / ]; do
			chmod o+x "$p"
			p=$(dirname "$p")
		done
	fi
	echo "$d"
}

# nobody_cputrack: sets NB_CT to nobody_path of $CPUTRACK; where that is
# the BPF engine's wrapper, the command it runs (CPUTRACK_BIN) is made
# reachable too, and exported for it.
nobody_cputrack() {
	if [ -n "${CPUTRACK_BIN:-}" ]; then
		CPUTRACK_BIN=$(nobody_path "$CPUTRACK_BIN")
		export CPUTRACK_BIN
	fi
	NB_CT=$(nobody_path "$CPUTRACK")
}

# The start time of process $1 (/proc/PID/stat's field 22, in clock
# ticks since boot), or nothing once it is gone. A pid and its start time
# name one process; a pid alone may by now be another's, as tests that
# run beside this one make and end processes by the thousand.
start_time() {
	awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null
}

# The one wait of the tests (wait_for, wait_while) and running: in a
# file of plain bash, which scripts outside bats (tests/package/run-deb)
# source too.
# shellcheck source=wait.bash
source "$(dirname "${BASH_SOURCE[0]}")/wait.bash"

# wait_path TEST FILE: until test(1)'s TEST (-e, -s) holds of FILE.
# wait_file: until FILE exists. wait_filled: until it holds something,
# for a file that a shell's "echo ... >FILE" writes, which exists, empty,
# before the echo.
wait_path() {
	wait_for test "$1" "$2"
}
wait_file() { wait_path -e "$1"; }
wait_filled() { wait_path -s "$1"; }

# wait_line FILE ERE: until a line of FILE matches; shows FILE if none
# does.
wait_line() {
	wait_for grep -qsE -- "$2" "$1" && return 0
	echo "no line of $1 matches /$2/:" >&2
	cat "$1" >&2
	return 1
}
