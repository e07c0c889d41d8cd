#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# The programs a BPF run loads, as -D lists them: the kernel's verifier
# checks each one at every start, so a run loads only those its options
# can use. A command's run, whatever it follows (-f, -e), needs every hook
# of its threads; a run attached to a process (-p) starts none, and loads
# no hook of a command's signals; each cgroup counted apart tracks no
# thread and starts no command, and loads none of them. Each run counts
# exactly.

load cgroup_helper

setup() {
	bd_setup
}

teardown() {
	if [ -n "${CG:-}" ]; then
		cg_teardown
	else
		ct_teardown
	fi
}

# programs: the programs the -D line in $T/err lists, and its count of
# those loaded and attached.
programs() {
	sed -n 's/^cputrack: the BPF engine counts: programs \([^;]*; [0-9]* loaded, [0-9]* attached\);.*/\1/p' "$T/err"
}

@test "a command's run loads the hooks of its threads, forks, execs, exits and signals, with or without -f and -e, and counts each thread exactly" {
	local opts
	for opts in "" -f -e "-f -e"; do
		# shellcheck disable=SC2086 # the options, a word each
		timeout -k 5 120 "$CPUTRACK" --engine=bpf -D $opts -c "$WRITE" \
		    "$W/wl_threads" 2 5 >"$T/out" 2>"$T/err" ||
		    { cat "$T/err"; false; }
		[ "$(programs)" = "on_switch flush whoami on_signal on_fork on_newtask on_exec on_exit; 8 loaded, 6 attached" ] ||
		    { echo "options '$opts'"; cat "$T/err"; false; }
		# With -f a pid column comes first: the event is the one
		# before the count.
		[ "$(awk '$(NF - 1) == "lwp_exit" { print $NF }' "$T/out" |
		    sort | uniq -c | awk '{ print $1, $2 }')" = "2 5" ] ||
		    { echo "options '$opts'"; cat "$T/out"; false; }
	done
}

@test "-p loads the hooks of its threads, forks, execs and exits, none of a command's signals, and counts each thread exactly" {
	# Two threads of 50 writes each, from the gate on.
	gated w 2 50
	start_cputrack_until ' tick ' --engine=bpf -D -T 0.1 -c "$WRITE" \
	    -p "$(pid_of w)"
	open_gate w
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(programs)" = "on_switch flush whoami on_fork on_newtask on_exec on_exit; 7 loaded, 5 attached" ] ||
	    { cat "$T/err"; false; }
	[ "$(awk '$(NF - 1) == "lwp_exit" { print $NF }' "$T/out" |
	    sort | uniq -c | awk '{ print $1, $2 }')" = "2 50" ] ||
	    { cat "$T/out"; false; }
}

@test "--for-each-cgroup loads no hook of threads, forks, execs, exits or signals, and counts its cgroups exactly" {
	cg_setup
	# Two threads of 50 writes each, in sub, from the gate on.
	gated w 2 50 into "$CG/sub"
	start_cputrack_until ' cgroup ' -D --for-each-cgroup="/$NAME" -T 0.1 \
	    -c "$WRITE"
	open_gate w
	wait "$(pid_of w)"
	wait_while "$CPID" sub_counted 100 || { cat "$T/out" "$T/err"; false; }
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ]
	# The cgroup hooks are loaded apart, where the kernel has them.
	local want="on_switch flush whoami on_migrate on_cgroup_made on_cgroup_removed"
	[ "$(programs | sed 's/;.*//; s/!//g')" = "$want" ] ||
	    { cat "$T/err"; false; }
	programs | grep -Eq '^on_switch flush whoami .*; [36] loaded, [1-4] attached$' ||
	    { cat "$T/err"; false; }
	sub_counted 100
}

# sub_counted N: the cgroup rows of $CG/sub add up to N.
sub_counted() {
	[ "$(awk -v name="/$NAME/sub" '$2 == 0 && $NF == name &&
	    $4 == "cgroup" { s += $5 } END { print s + 0 }' "$T/out")" = "$1" ]
}
