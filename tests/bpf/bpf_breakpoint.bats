#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# A breakpoint counter (mem:) never kills its process. Where a hypervisor
# loses the guest's DR6, the guest's kernel takes a breakpoint's debug
# exception for an INT1 and sends the task a SIGTRAP that kills it
# (docs/events.md, "Breakpoints on a virtual machine"). The ptrace engine
# drops that trap; the BPF engine traces no task and arms the breakpoint
# on every CPU, for every task there, so on x86 it refuses mem: in one
# line, and auto counts a breakpoint with ptrace. Under load, a few
# hundred runs of auto on the counts that died so (reads and writes of
# wl_calls_made) and on wl_debugtrap, which queues itself the very
# SIGTRAP, all run to their end with every access counted.

load bpf_helper

setup() {
	bd_setup
	unset CPCTOOLS_ENGINE
	[ -d /sys/bus/event_source/devices/breakpoint ] ||
		skip "this kernel has no breakpoint PMU"
	DATA=$(nm "$W/wl_calls" | awk '$3 == "wl_calls_made" { print "0x" $1 }')
	ADDR=$(nm "$W/wl_calls" | awk '$3 == "wl_target" { print "0x" $1 }')
	VAR=$(nm "$W/wl_debugtrap" |
	    awk '$3 == "wl_debugtrap_writes" { print "0x" $1 }')
	if [ -z "$DATA" ] || [ -z "$ADDR" ] || [ -z "$VAR" ]; then
		echo "nm found no wl_calls_made, wl_target or wl_debugtrap_writes"
		return 1
	fi
	LOAD=
}

teardown() {
	if [ -n "$LOAD" ]; then
		kill "$LOAD" 2>/dev/null || true
		wait "$LOAD" 2>/dev/null || true
	fi
	ct_teardown
}

x86_only() {
	case $(uname -m) in
	x86_64 | i?86) ;;
	*) skip "only x86 sends an unclaimed debug exception as TRAP_BRKPT: elsewhere the BPF engine counts mem:" ;;
	esac
}

# refused EVENT CPUTRACK-ARGS...: cputrack, its command touching $T/ran,
# exits 2 with the one line that names EVENT, prints no row and starts
# nothing.
refused() {
	local event=$1
	shift
	rm -f "$T/ran"
	run -2 --separate-stderr timeout -k 5 60 "$CT" "$@" touch "$T/ran"
	[ "$stderr" = "$(breakpoint_refusal "$event")" ] ||
		{ echo "for $*: $stderr"; return 1; }
	[ -z "$output" ] || { echo "for $*: rows: $output"; return 1; }
	[ ! -e "$T/ran" ] || { echo "for $*: the command ran"; return 1; }
}

@test "--engine=bpf refuses a breakpoint: one line naming it, exit 2, nothing started" {
	x86_only
	refused "mem:$DATA" --engine=bpf -T 0 -c "mem:$DATA"
	refused "mem:$ADDR:x:u" --engine=bpf -T 0 -c "task-clock,mem:$ADDR:x:u"
	# In the second set, after a tracepoint, Solaris style.
	refused "mem:$DATA/8:w" --engine=bpf -T 0 -c task-clock \
	    -c "pic0=syscalls:sys_enter_write,pic1=mem:$DATA/8:w"
	# The engine named by the environment, as the tests pick it.
	CPCTOOLS_ENGINE=bpf refused "mem:$DATA" -T 0 -c "mem:$DATA"
}

# The line cputop's scan engine refuses a breakpoint with.
scan_refusal() {
	echo "cputop: $1: a debug trap of a breakpoint that a hypervisor loses kills the task that hit it with SIGTRAP; only the ptrace engine, which counts a command (cputop COMMAND), drops that trap"
}

@test "cputop's whole machine refuses a breakpoint, as root and as a user; cputop COMMAND counts it" {
	x86_only
	local top=$BUILD_DIR/cmd/cputop
	# As root the BPF engine refuses it, and the scan that would stand in
	# counts from outside, with no tracer either.
	run -2 --separate-stderr timeout -k 5 60 "$top" -b -N 1 -T 0.2 \
	    -c "mem:$DATA:rw"
	[ "$stderr" = "$(scan_refusal "mem:$DATA:rw")" ] || fail "root: $stderr"
	[ -z "$output" ] || fail "root printed: $output"
	run -2 --separate-stderr timeout -k 5 60 setpriv --reuid=65534 \
	    --regid=65534 --clear-groups "$top" -b -N 1 -T 0.2 -c "mem:$DATA"
	[ "$stderr" = "$(scan_refusal "mem:$DATA")" ] || fail "user: $stderr"
	[ -z "$output" ] || fail "user printed: $output"
	# A command under cputop is traced: wl_calls 2 100 reads and writes
	# wl_calls_made 600 times.
	run -0 --separate-stderr timeout -k 5 60 "$top" -b -T 0.2 \
	    -c "mem:$DATA" "$W/wl_calls" 2 100
	[[ "$output" == *"engine ptrace"* ]] || fail "no ptrace engine: $output"
	awk '$5 == "wl_calls" { last = $4 } END { exit last != 1200 }' \
	    <<<"$output" || fail "not 1200 accesses: $output"
}

# once LABEL WANT ARGS...: one run of cputrack -T 0 ARGS, which must exit
# 0 with WANT accesses in its exit row and no SIGTRAP; says why not.
once() {
	local label=$1 want=$2 got rc=0
	shift 2
	timeout -k 5 120 "$CT" -T 0 "$@" >"$T/out" 2>"$T/err" || rc=$?
	got=$(awk '$3 == "exit" { print $4 }' "$T/out")
	if [ "$rc" -ne 0 ] || [ "$got" != "$want" ] ||
	    grep -q SIGTRAP "$T/out" "$T/err"; then
		echo "$label: exit $rc, counted '$got' of $want: $(cat "$T/out" "$T/err" | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
}

@test "under load, a few hundred runs: a breakpoint counter's target is never killed" {
	x86_only
	local i runs=${BP_RUNS:-300} bad=0
	command -v stress-ng >/dev/null ||
		skip "stress-ng is not installed (scripts/deps test installs it)"
	stress-ng --cpu "$(nproc)" --timeout 900s >/dev/null 2>&1 &
	LOAD=$!
	# auto counts a breakpoint with ptrace, and says why under -v.
	run -0 --separate-stderr "$CT" -v -T 0 -c "mem:$DATA" "$W/wl_calls" 2 100
	[ "$stderr" = "cputrack: --engine=auto: counting with ptrace: a breakpoint counted: only the ptrace engine keeps a debug trap that the kernel sends for it from its process" ]
	for ((i = 1; i <= runs; i++)); do
		# wl_calls 2 100: 100 + 200 + 300 calls, each reading and
		# writing wl_calls_made once.
		once "run $i, mem:DATA (rw, 4 bytes) on wl_calls" 1200 \
		    -c "mem:$DATA" "$W/wl_calls" 2 100 || bad=$((bad + 1))
		# 100 writes, the SIGTRAP, 100 writes.
		once "run $i, mem:VAR/8:w on wl_debugtrap" 200 \
		    -c "mem:$VAR/8:w" "$W/wl_debugtrap" 100 || bad=$((bad + 1))
	done
	echo "$bad of $((2 * runs)) runs failed"
	[ "$bad" -eq 0 ]
}
