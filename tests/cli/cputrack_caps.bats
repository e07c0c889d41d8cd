#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# A cputrack given cap_perfmon with setcap, run by an unprivileged user:
# it starts commands and captures the user's processes, and counts what
# CAP_PERFMON allows (kernel mode too), as the man page says; without
# the capability the same request is refused before anything starts.
# The BPF engine needs CAP_BPF as well: with cap_perfmon alone it is
# refused (--engine=auto counts with ptrace instead), and a copy given
# cap_bpf,cap_perfmon counts with it.

load cputrack_helper

setup() {
	ct_setup
	[ "$(id -u)" -eq 0 ] || skip "needs root to set file capabilities and become nobody"
	command -v setcap >/dev/null || skip "setcap is not installed"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	# The program itself: under the BPF engine CPUTRACK is a script, and
	# a script's file capabilities are not a program's. Its copies are
	# then run with --engine=bpf (ENG), as the script runs it.
	BIN=$CT
	ENG=()
	if [ "$ENGINE" = bpf ]; then
		BIN=$CPUTRACK_BIN
		ENG=(--engine=bpf)
	fi
	# A copy nobody may run, in a directory nobody may read.
	CAPDIR=$(mktemp -d /tmp/cputrack-caps.XXXXXX)
	chmod 0755 "$CAPDIR"
	cp "$BIN" "$CAPDIR/cputrack"
	cp "$W/wl_threads" "$W/wl_idle" "$W/ct_marker" "$CAPDIR/"
	chmod 0755 "$CAPDIR"/*
	mkdir -m 0755 "$CAPDIR/nocap"
	cp "$BIN" "$CAPDIR/nocap/cputrack"
	chmod 0755 "$CAPDIR/nocap/cputrack"
	# Where nobody's ct_marker may leave its file, had it run.
	mkdir -m 0777 "$CAPDIR/w"
	setcap cap_perfmon+ep "$CAPDIR/cputrack" 2>/dev/null ||
		skip "file capabilities cannot be set here"
	PARANOID=$(cat /proc/sys/kernel/perf_event_paranoid)
}

teardown() {
	ct_teardown
	rm -rf "${CAPDIR:-/nonexistent}"
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# What the BPF engine says, as its one line, to a cputrack without CAP_BPF
# and CAP_PERFMON (its name: a copy's is cputrack too).
NO_BPF="cputrack: --engine=bpf: the BPF engine needs CAP_BPF and CAP_PERFMON (or root)"

# refused_bpf COPY ARGS...: nobody's COPY, given --engine=bpf and ARGS,
# says NO_BPF alone and exits 2, having started nothing.
refused_bpf() {
	local copy=$1 rc=0
	shift
	as_nobody timeout 60 "$copy" --engine=bpf "$@" >"$T/out" 2>"$T/err" ||
	    rc=$?
	[ "$rc" -eq 2 ] || { echo "exit $rc"; cat "$T/err"; false; }
	[ ! -s "$T/out" ]
	[ "$(cat "$T/err")" = "$NO_BPF" ]
}

# said FILE: what a -D run said, but the line that times its start.
said() {
	grep -v '^cputrack: start: ' "$1" || true
}

# What --engine=auto says under -D where the BPF engine may not count.
AUTO_PTRACE="cputrack: the BPF engine cannot count here (the BPF engine needs CAP_BPF and CAP_PERFMON (or root)): counting with ptrace"

# start_nobody_idle: nobody's wl_idle (2 threads, 30 s) in the background,
# once it is ready; sets TPID. Not through a function ($! would be a
# subshell's) and through a shell: the first exec after setpriv leaves a
# program undumpable.
start_nobody_idle() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    sh -c 'exec "$0" 2 30' "$CAPDIR/wl_idle" >"$T/target.out" 2>&1 &
	TPID=$!
	ct_bg "$TPID"
	wait_line "$T/target.out" '^ready$' || true
}

@test "setcap cap_perfmon: nobody's cputrack starts a command and counts kernel-mode cs per LWP; exit 0" {
	[ "$PARANOID" -ge 2 ] || skip "kernel.perf_event_paranoid=$PARANOID lets anyone count kernel mode"
	local rc=0 auto=()
	if [ "$ENGINE" = bpf ]; then
		# CAP_PERFMON alone: the BPF engine is refused before the
		# command starts (it would have made the marker file) ...
		refused_bpf "$CAPDIR/cputrack" -T 0.2 -c task-clock,cs \
		    "$CAPDIR/ct_marker" "$CAPDIR/w/ran"
		[ ! -e "$CAPDIR/w/ran" ]
		# ... and --engine=auto counts with ptrace, saying why (-D).
		auto=(--engine=auto -D)
	fi
	as_nobody timeout 300 "$CAPDIR/cputrack" "${auto[@]}" -T 0.2 -c task-clock,cs \
	    "$CAPDIR/wl_threads" 2 1000000 >"$T/out" 2>"$T/err" || rc=$?
	grep -q 'CAP_PERFMON is unknown\|Invalid argument' "$T/err" && skip "this kernel has no CAP_PERFMON: $(head -1 "$T/err")"
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	if [ "$ENGINE" = bpf ]; then
		[ "$(said "$T/err")" = "$AUTO_PTRACE" ]
	else
		[ ! -s "$T/err" ]
	fi
	# Each thread counted its own time and switches.
	[ "$(awk '$3 == "lwp_exit" && $4 > 0 && $5 > 0' "$T/out" | wc -l)" -eq 2 ]
	[ "$(awk '$3 == "exit"' "$T/out" | wc -l)" -eq 1 ]
	# The same request without the capability is refused up front (under
	# either engine: the events are checked before the engine starts).
	rc=0
	as_nobody timeout 60 "$CAPDIR/nocap/cputrack" "${ENG[@]}" -c task-clock,cs \
	    "$CAPDIR/wl_threads" 2 1000 >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 2 ]
	[ ! -s "$T/out" ]
	grep -q '^cputrack: cs: Permission denied: it counts kernel mode' "$T/err"
}

@test "setcap cap_perfmon: nobody's cputrack captures nobody's process with -p, and lets it run on" {
	start_nobody_idle
	local tpid=$TPID rc=0 auto=()
	if [ "$ENGINE" = bpf ]; then
		# The BPF engine is refused, and the target was not touched;
		# --engine=auto captures it with ptrace.
		refused_bpf "$CAPDIR/cputrack" -N 2 -T 0.2 -p "$tpid" -c task-clock
		assert_free "$tpid"
		auto=(--engine=auto -D)
	fi
	as_nobody timeout 60 "$CAPDIR/cputrack" "${auto[@]}" -N 2 -T 0.2 -p "$tpid" \
	    -c task-clock >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	[ "$ENGINE" != bpf ] || [ "$(said "$T/err")" = "$AUTO_PTRACE" ]
	[ "$(ct_count tick)" -ge 2 ]
	assert_free "$tpid"
}

# CAP_BPF and CAP_PERFMON are what the BPF engine needs: no CAP_SYS_ADMIN,
# and, from Linux 5.11, which charges BPF memory to the memory cgroup and
# not to RLIMIT_MEMLOCK, no CAP_SYS_RESOURCE or locked memory either (on
# 5.10 libbpf raises that limit, which may need them). The ptrace run has
# nothing of its own to add here.
@test "setcap cap_bpf,cap_perfmon: nobody's cputrack counts with the BPF engine, a command's LWPs and nobody's process; not root's" {
	[ "$ENGINE" = bpf ] || skip "the BPF engine's case: the run with ENGINE=bpf has it"
	mkdir -m 0755 "$CAPDIR/bpf"
	cp "$BIN" "$CAPDIR/bpf/cputrack"
	chmod 0755 "$CAPDIR/bpf/cputrack"
	setcap cap_bpf,cap_perfmon+ep "$CAPDIR/bpf/cputrack" 2>/dev/null ||
		skip "setcap knows no cap_bpf here"
	local rc=0 nolock=false
	printf '5.11\n%s\n' "$(uname -r)" | sort -VC && nolock=true
	(
		if $nolock; then ulimit -l 0; fi
		as_nobody timeout 300 "$CAPDIR/bpf/cputrack" --engine=bpf -D \
		    -T 0.2 -c task-clock,cs "$CAPDIR/wl_threads" 2 1000000
	) >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	# The BPF engine counted (-D says so), and said nothing else but its
	# note of switches the kernel hid from it.
	[[ "$(said "$T/err" | sed -n 1p)" == "cputrack: the BPF engine counts: programs "* ]]
	[ "$(said "$T/err" | sed 1d | grep -vc '^cputrack: note: the kernel hid [0-9]* switches')" -eq 0 ]
	# Each thread counted its own time and switches, kernel mode too.
	[ "$(awk '$3 == "lwp_exit" && $4 > 0 && $5 > 0' "$T/out" | wc -l)" -eq 2 ]
	[ "$(awk '$3 == "exit"' "$T/out" | wc -l)" -eq 1 ]
	# nobody's process with -p: counted, and never stopped or traced.
	start_nobody_idle
	local tpid=$TPID
	rc=0
	as_nobody timeout 60 "$CAPDIR/bpf/cputrack" --engine=bpf -N 2 -T 0.2 \
	    -p "$tpid" -c task-clock >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	[ ! -s "$T/err" ]
	[ "$(ct_count tick)" -ge 2 ]
	assert_free "$tpid"
	# root's process: the BPF engine, which counts per CPU, could; it
	# is refused as ptrace refuses it, by its owner.
	sleep 30 &
	local root_pid=$!
	ct_bg "$root_pid"
	rc=0
	as_nobody timeout 60 "$CAPDIR/bpf/cputrack" --engine=bpf -c task-clock \
	    -p "$root_pid" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 1 ]
	[ ! -s "$T/out" ]
	[ "$(cat "$T/err")" = "cputrack: pid $root_pid: permission denied
cputrack: failed to capture pid $root_pid
cputrack: pid $root_pid belongs to another user (uid 0): only that user or root may count it" ]
	assert_free "$root_pid"
}

# nobody_tree: $CAPDIR/tree.sh, as fault_injection.bats's tree_command
# makes it: a child that execs $CAPDIR/sleeper and a child shell that
# makes one more; "made" once it has started them.
nobody_tree() {
	cp /bin/sleep "$CAPDIR/sleeper"
	cat >"$CAPDIR/tree.sh" <<EOF
#!/bin/sh
"$CAPDIR/sleeper" 1001 &
sh -c '"\$0" 1002 & wait' "$CAPDIR/sleeper" &
echo made
wait
EOF
	chmod 0755 "$CAPDIR/sleeper" "$CAPDIR/tree.sh"
}

# both_sleepers: whether $CAPDIR/sleeper runs twice, the tree's two.
both_sleepers() {
	[ "$(pgrep -fc "^$CAPDIR/sleeper")" -eq 2 ]
}

# The copy of cputrack nobody runs under the engine of this pass, with
# the capabilities it needs: cap_perfmon (ptrace), cap_bpf,cap_perfmon
# (the BPF engine); KILLED_CT, and its engine in KILLED_ENG.
nobody_engine() {
	KILLED_CT=$CAPDIR/cputrack
	KILLED_ENG=--engine=ptrace
	if [ "$ENGINE" = bpf ]; then
		mkdir -p -m 0755 "$CAPDIR/bpf"
		cp "$BIN" "$CAPDIR/bpf/cputrack"
		chmod 0755 "$CAPDIR/bpf/cputrack"
		setcap cap_bpf,cap_perfmon+ep "$CAPDIR/bpf/cputrack" 2>/dev/null ||
			skip "setcap knows no cap_bpf here"
		KILLED_CT=$CAPDIR/bpf/cputrack
		KILLED_ENG=--engine=bpf
	fi
}

@test "nobody's cputrack SIGKILLed: with -f the command and every process it made die; without, the command, and what it made runs on" {
	local f p cmd tree follow
	nobody_engine
	nobody_tree
	for f in -f ""; do
		follow=()
		[ -z "$f" ] || follow=("$f")
		bg_until '^made$' setpriv --reuid=nobody --regid=nogroup \
		    --clear-groups "$KILLED_CT" "$KILLED_ENG" "${follow[@]}" \
		    -T 0.1 -c task-clock "$CAPDIR/tree.sh"
		# The command, cputrack's child (setpriv exec'd it).
		cmd=$(pgrep -P "$CPID" || true)
		[ -n "$cmd" ] || { cat "$T/out" "$T/err"; false; }
		wait_for both_sleepers
		tree=$(pgrep -f "^$CAPDIR/sleeper")
		kill -KILL "$CPID"
		wait "$CPID" || true
		gone "$cmd"
		for p in $tree; do
			if [ -n "$f" ]; then
				gone "$p"
			else
				ct_bg "$p"
				running "$p"
				[ "$(proc_state "$p")" != T ]
				end_bg "$p" KILL
			fi
		done
	done
}
