#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# Listing and explaining change nothing in the kernel: cputrack -h,
# --list and the "countable here" hint of an event this machine lacks, and
# cpustat's, open no ftrace event (opening ftrace:function switches the
# function tracer on and off across the whole kernel) and at most one
# tracepoint (each costs a grace period), also with debugfs mounted, as
# systemd mounts it: libpfm4 then names every tracepoint again, ftrace's
# own among them.

load output_helper

setup() {
	out_setup
	command -v strace >/dev/null || skip "strace is not installed"
	[ "$(id -u)" -eq 0 ] || skip "mounting debugfs needs root"
	unshare --mount --propagation private true 2>/dev/null ||
		skip "new mount namespaces cannot be made here"
	FTRACE=/sys/kernel/tracing/events/ftrace
	[ -r "$FTRACE/function/id" ] ||
		skip "no ftrace events readable here (tracefs at /sys/kernel/tracing; scripts/tracefs mounts it)"
}

teardown() {
	out_teardown
}

# traced COMMAND...: COMMAND under strace (its perf_event_open calls to
# $T/trace), in a mount namespace of its own where debugfs is mounted.
traced() {
	ASAN_OPTIONS=$(asan_under_ptrace) unshare --mount --propagation private sh -c '
		mountpoint -q /sys/kernel/debug ||
		    mount -t debugfs debugfs /sys/kernel/debug || exit 99
		[ -d /sys/kernel/debug/tracing/events ] || exit 98
		out=$1
		shift
		exec strace -f -qq -e trace=perf_event_open -o "$out" "$@"' \
	    sh "$T/trace" "$@"
}

# opened_nothing_that_changes: $T/trace opened no ftrace event, and one
# tracepoint at most; how many events and tracepoints it opened is said.
opened_nothing_that_changes() {
	local ids id n tp
	ids=$(cat "$FTRACE"/*/id | sort -n)
	n=$(grep -c 'perf_event_open(' "$T/trace" || true)
	tp=$(grep -o 'type=PERF_TYPE_TRACEPOINT, [^}]*config=[0-9]*' "$T/trace" |
	    sed 's/.*config=//' | sort -n)
	echo "# $n events opened; tracepoint ids: $(echo ${tp:-none})" >&3
	for id in $tp; do
		if grep -qx "$id" <<<"$ids"; then
			echo "an ftrace event was opened: id $id ($(grep -lx "$id" "$FTRACE"/*/id))"
			return 1
		fi
	done
	[ "$(wc -w <<<"$tp")" -le 1 ]
}

@test "cputrack -h with debugfs mounted opens no ftrace event, and one tracepoint at most" {
	run traced "$CT" -h
	[ "$status" -ne 98 ] || skip "debugfs shows no tracing/ here"
	[ "$status" -eq 0 ]
	[[ $output == *"Platform Specific Events:"* ]]
	opened_nothing_that_changes
}

@test "cputrack --list with debugfs mounted opens no ftrace event, lists none, and names tracepoints once" {
	run traced "$CT" --list
	[ "$status" -ne 98 ] || skip "debugfs shows no tracing/ here"
	[ "$status" -eq 0 ]
	opened_nothing_that_changes
	grep -q '^ftrace:' <<<"$output" && fail "ftrace: events are listed"
	# Tracepoints by tracefs's names, not again by libpfm4's.
	grep -q $'^syscalls:sys_enter_write\ttracepoint\t' <<<"$output"
	! grep -qE $'^perf::[a-z0-9_]+:[a-z0-9_]+\t' <<<"$output"
}

@test "the hint of what is countable here, and cpustat -h and --list, with debugfs mounted open no ftrace event" {
	# A hardware event where there is no PMU gets the hint; where there
	# is one, it counts: either way nothing is opened that changes state.
	run traced "$CT" -c cycles true
	[ "$status" -ne 98 ] || skip "debugfs shows no tracing/ here"
	opened_nothing_that_changes
	run traced "$CS" -h
	[ "$status" -eq 0 ]
	opened_nothing_that_changes
	run traced "$CS" --list
	[ "$status" -eq 0 ]
	opened_nothing_that_changes
}
