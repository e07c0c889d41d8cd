#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# What a start costs, and what it says of it.
#
# A start reads only what the run's names need. Where debugfs is mounted,
# as systemd mounts it, libpfm4's perf PMU reads the id of every
# tracepoint when it initializes (thousands of files): a run that names
# only software events does not initialize it, and a name only that PMU
# knows still counts. The environment libpfm4 is initialized under is
# not the one the counted command gets. -D times each phase of the start.

load output_helper

setup() {
	out_setup
}

teardown() {
	out_teardown
}

# with_debugfs COMMAND...: COMMAND under strace (its own openat calls to
# $T/trace: the ptrace engine traces the counted command itself), in a
# mount namespace of its own where debugfs is mounted with tracefs under
# it; exits 98 where it is not.
with_debugfs() {
	command -v strace >/dev/null ||
	    skip "strace is not installed (scripts/deps installs it)"
	[ "$(id -u)" -eq 0 ] || skip "mounting debugfs needs root"
	unshare --mount --propagation private true 2>/dev/null ||
		skip "new mount namespaces cannot be made here"
	ASAN_OPTIONS=$(asan_under_ptrace) unshare --mount --propagation private sh -c '
		mountpoint -q /sys/kernel/debug ||
		    mount -t debugfs debugfs /sys/kernel/debug || exit 99
		[ -d /sys/kernel/debug/tracing/events ] || exit 98
		out=$1
		shift
		exec strace -qq -e trace=openat -o "$out" "$@"' \
	    sh "$T/trace" "$@"
}

# tracing_files: the files under tracefs or debugfs that $T/trace opened.
tracing_files() {
	grep -E '"/sys/kernel/(tracing|debug)(/|")' "$T/trace" || true
}

@test "cputrack naming only software events opens no tracefs or debugfs file" {
	run with_debugfs "$CT" -c task-clock,context-switches,page-faults true
	[ "$status" -ne 98 ] || skip "debugfs shows no tracing/ here"
	[ "$status" -eq 0 ]
	[ -z "$(tracing_files)" ] || { tracing_files | head; false; }
	[[ $output == *" exit "* ]]
}

@test "cpustat naming only a software event opens no tracefs or debugfs file" {
	run with_debugfs "$CS" -c cpu-clock 0.01 1
	[ "$status" -ne 98 ] || skip "debugfs shows no tracing/ here"
	[ "$status" -eq 0 ]
	[ -z "$(tracing_files)" ] || { tracing_files | head; false; }
	[[ $output == *" tick "* ]]
}

@test "a name only libpfm4's perf PMU knows still counts where debugfs is mounted" {
	local name
	for name in perf::PERF_COUNT_SW_TASK_CLOCK PERF_COUNT_SW_PAGE_FAULTS; do
		run with_debugfs "$CT" -c "$name" true
		[ "$status" -ne 98 ] || skip "debugfs shows no tracing/ here"
		[ "$status" -eq 0 ] || { echo "$name: $output"; false; }
		awk '$3 == "exit" && $4 > 0 { ok = 1 }
		    END { exit !ok }' <<<"$output" ||
		    { echo "$name: $output"; false; }
	done
}

# with_pfm_debug COMMAND...: COMMAND with libpfm4's debug lines on; it
# prints them (pfmlib_*.c) while it initializes.
with_pfm_debug() {
	env LIBPFM_VERBOSE=1 LIBPFM_DEBUG=1 "$@"
}

@test "libpfm4 is initialized by a name that needs it, never by the start" {
	run with_pfm_debug "$CT" -o "$T/rows" -c perf::PERF_COUNT_SW_TASK_CLOCK true
	[ "$status" -eq 0 ] || { echo "$output" | tail; false; }
	[[ $output == *pfmlib* ]] || { echo "no libpfm4 line: $output"; false; }
	run with_pfm_debug "$CT" -o "$T/rows" \
	    -c task-clock,page-faults,syscalls:sys_enter_write true
	[ "$status" -eq 0 ] || { echo "$output" | tail; false; }
	[[ $output != *pfmlib* ]] || { grep -m3 pfmlib <<<"$output"; false; }
	local events=cpu-clock
	[ ! -d /sys/bus/event_source/devices/msr ] || events+=,msr/tsc/
	run with_pfm_debug "$CS" -c "$events" 0.01 1
	[ "$status" -eq 0 ] || { echo "$output" | tail; false; }
	[[ $output != *pfmlib* ]] || { grep -m3 pfmlib <<<"$output"; false; }
	[[ $output == *" tick "* ]]
}

@test "the counted command gets the environment cputrack was started with" {
	run env -u LIBPFM_DISABLED_PMUS "$CT" -o "$T/rows" -c task-clock \
	    sh -c 'echo "disabled=${LIBPFM_DISABLED_PMUS-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = "disabled=unset" ]
	run env LIBPFM_DISABLED_PMUS=amd64 "$CT" -o "$T/rows" -c task-clock \
	    sh -c 'echo "disabled=${LIBPFM_DISABLED_PMUS-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = "disabled=amd64" ]
}

# phases LINE: the names of the phases a -D start line gives, in order.
phases() {
	sed -e 's/^[a-z]*: start: //' -e 's/; from main.*//' \
	    -e 's/ [0-9.]* ms//g' <<<"$1" | tr -d '\n'
}

@test "cputrack -D times each phase of its start, in order, and only with -D" {
	run "$CT" -o "$T/rows" -c task-clock true
	[ "$status" -eq 0 ]
	[[ $output != *"start:"* ]]
	run "$CT" -D -o "$T/rows" -c task-clock true
	[ "$status" -eq 0 ]
	local line
	line=$(grep '^cputrack: start: ' <<<"$output")
	[[ $line =~ \ from\ main\ [0-9.]+\ ms ]] || { echo "$line"; false; }
	[[ "$(phases "$line")" =~ ^"before main (fork, exec, dynamic linking; CPU time), locale, libcpc (PMUs), options and spec, spec check, "(BPF|ptrace)" engine, command's fork and exec, counting, end"$ ]] ||
	    { echo "$line"; false; }
	[[ $line =~ from\ the\ process\'s\ start\ [0-9]+\ ms ]] ||
	    { echo "$line"; false; }
}

@test "cpustat -D times each phase of its start, in order" {
	run "$CS" -D -c cpu-clock 0.01 1
	[ "$status" -eq 0 ]
	local line
	line=$(grep '^cpustat: start: ' <<<"$output")
	[ "$(phases "$line")" = "before main (fork, exec, dynamic linking; CPU time), locale, libcpc (PMUs), options and spec, spec check, CPUs' workers started, counting, end" ] ||
	    { echo "$line"; false; }
}
