#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# kernel.perf_event_paranoid 3 as a user: a kernel with Debian's patch
# (Debian's, Ubuntu's) refuses users every counter at 3; one without it
# takes 3 as 2, where users count their own processes in user mode. What
# cputrack and cpustat do and say follows the kernel they run on, as the
# kernel itself answers a user's perf_event_open(2) (asked here without
# cpctools). The level is set as root for each run alone, and restored.
load terminal_helper

setup() {
	ct_setup
	WAS=$(cat /proc/sys/kernel/perf_event_paranoid)
	user_setup 50
	cp "$BUILD_DIR/cmd/cpustat" "$(nobody_dir)/cpustat"
	USER_CT=$(nobody_dir)/cputrack
	USER_CS=$(nobody_dir)/cpustat
}

teardown() {
	sysctl -qw kernel.perf_event_paranoid="$WAS"
	ct_teardown
}

# as_user_at_3 COMMAND...: run as the test's user at level 3 (bats' run,
# stderr apart), the level restored after.
as_user_at_3() {
	sysctl -qw kernel.perf_event_paranoid=3
	run --separate-stderr "${AS_USER[@]}" "$@"
	sysctl -qw kernel.perf_event_paranoid="$WAS"
}

@test "paranoid 3: a user's own process in user mode counts where the kernel allows it, and the refusal says Debian's level only where it refuses" {
	local debian="Permission denied: kernel.perf_event_paranoid is 3, which this kernel (with Debian's and Ubuntu's patch) takes as performance counters only to root or CAP_PERFMON; 'sudo sysctl kernel.perf_event_paranoid=2' lets users count their own processes in user mode (1: kernel mode too), or 'sudo setcap cap_perfmon+ep' the command (PERMISSIONS in cputrack(1))"
	local allows
	allows=$(user_counts_at_3)
	echo "# the kernel at 3 lets a user count in user mode: $allows" >&3
	as_user_at_3 "$USER_CT" -c task-clock /bin/true
	if [ "$allows" = yes ]; then
		[ "$status" -eq 0 ] || { echo "$stderr"; false; }
		grep -qE '^ +[0-9.]+ +1 +exit +[0-9]+ *$' <<<"$output"
	else
		[ "$status" -eq 2 ]
		[ "$stderr" = "cputrack: task-clock: $debian" ] || { echo "$stderr"; false; }
	fi
	# Kernel mode, asked for, and of an event the kernel counts so.
	as_user_at_3 "$USER_CT" -c cpu-clock:uk /bin/true
	[ "$status" -eq 2 ]
	if [ "$allows" = yes ]; then
		[ "$stderr" = "cputrack: cpu-clock:uk: Permission denied: it counts kernel mode (its :k modifier asks for it), which kernel.perf_event_paranoid 3 allows only to root or CAP_PERFMON; count user mode only, or lower it to 1" ] ||
		    { echo "$stderr"; false; }
	else
		[ "$stderr" = "cputrack: cpu-clock:uk: $debian" ] || { echo "$stderr"; false; }
	fi
	as_user_at_3 "$USER_CT" -c context-switches /bin/true
	[ "$status" -eq 2 ]
	if [ "$allows" = yes ]; then
		[ "$stderr" = "cputrack: context-switches: Permission denied: it counts kernel mode (the kernel counts it in its own context), which kernel.perf_event_paranoid 3 allows only to root or CAP_PERFMON; lower it to 1, or run with CAP_PERFMON" ] ||
		    { echo "$stderr"; false; }
	else
		[ "$stderr" = "cputrack: context-switches: $debian" ] || { echo "$stderr"; false; }
	fi
}

@test "paranoid 3: cpustat as a user is told what counting a whole CPU needs, on either kernel" {
	as_user_at_3 "$USER_CS" -c task-clock 0.1 1
	[ "$status" -eq 2 ]
	grep -qxF "cpustat: task-clock: Permission denied: counting a whole CPU needs root or CAP_PERFMON while kernel.perf_event_paranoid is 3 (above 0); lower it to 0, or run with CAP_PERFMON" <<<"$stderr" ||
	    { echo "$stderr"; false; }
	run ! grep -q "lets users count their own processes" <<<"$stderr"
}
