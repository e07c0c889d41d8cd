#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# Sets of several perf groups: each {...} of a -c is a group of its own
# (cpc_set_group), the events outside braces the set's first, a set may
# hold more events than cpc_npic, and its counts are scaled by each
# group's own time (cpc_set_scale). Tracepoints count exactly and never
# wait for a counter: every group counts every call, under both engines
# (tests/bpf runs this file again with the BPF engine). The scaling of
# hardware groups that take turns is proven on the hardware suite's
# emulated PMU (tests/hw/guest-suite, groups.*).

load cputrack_helper

EXIT=syscalls:sys_exit_write
PRIO=syscalls:sys_enter_getpriority
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

setup() {
	ct_setup
	ensure_tracefs
	CS=$CPUSTAT
	[ -d /sys/kernel/tracing/events/syscalls/sys_enter_write ] ||
		skip "no syscalls:sys_enter_write tracepoint"
}

teardown() {
	ct_teardown
}

# The counters a set of one group holds here: cpc_npic, as -h lists them.
npic() {
	"$CT" -h 2>&1 | sed -n 's/^\tevent\[0-\([0-9]*\)\].*/\1/p' |
	    awk '{ print $1 + 1; exit }'
}

# Twelve requests: the writes' entries and returns in the set's first
# group, then in three more, each mixed with a tracepoint that the
# workload never fires.
TWELVE="$WRITE,$EXIT,{$WRITE,$EXIT,$PRIO},{$EXIT,$WRITE,$WRITE,$PRIO},{$PRIO,$EXIT,$WRITE}"
# The values each of the twelve counts, per write and per getpriority
# call of the workload (which makes none).
WHAT="w w w w p w w w p p w w"

# The values of a table row (label $1, LWP $2) as "w" for WANT writes,
# "p" for no getpriority call, "?" for anything else.
shape() {
	ct_rows "$1" | awk -v lwp="$2" -v want="$3" '$1 == lwp {
		s = ""
		for (i = 2; i <= NF; i++)
			s = s (s == "" ? "" : " ") ($i == want ? "w" : $i == 0 ? "p" : "?")
		print s }'
}

@test "twelve events in four groups, more than a set of one holds: each group counts every write, per LWP and process" {
	local n
	n=$(npic)
	[ "$n" -ge 1 ]
	ct_run -T 0 -c "$TWELVE" "$W/wl_threads" 2 500 100
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# One column per request: the set holds 12 where one group holds n.
	[ "$(head -1 "$T/out" | wc -w)" -eq $((3 + 12)) ]
	[ "$n" -lt 12 ] || echo "note: this PMU's sets hold $n events"
	[ "$(ct_count lwp_exit)" -eq 2 ]
	[ "$(shape lwp_exit 2 500)" = "$WHAT" ]
	[ "$(shape lwp_exit 3 500)" = "$WHAT" ]
	[ "$(shape exit 1 1100)" = "$WHAT" ]
}

@test "--dry-run says each request's group in a set of groups, and nothing where there is one" {
	ct_run --dry-run -c "cs:u,{$WRITE,$EXIT},{page-faults:u}" "$W/wl_threads" 1 10
	[ "$status" -eq 0 ]
	[ "$output" = "set 0: cs:u,{$WRITE,$EXIT},{page-faults:u}
 pic0 context-switches:u (cs:u) group 0
  type 1 config 0x3 (no kernel)
 pic1 $WRITE ($WRITE) group 1
  type 2 config $(xargs printf '%#x' </sys/kernel/tracing/events/syscalls/sys_enter_write/id)
 pic2 $EXIT ($EXIT) group 1
  type 2 config $(xargs printf '%#x' </sys/kernel/tracing/events/syscalls/sys_exit_write/id)
 pic3 page-faults:u (page-faults:u) group 2
  type 1 config 0x2 (no kernel)" ]
	ct_run --dry-run -c "{$WRITE,$EXIT}" "$W/wl_threads" 1 10
	[ "$status" -eq 0 ]
	[[ $output != *group* ]]
}

@test "a set of groups in csv and json: ran all its enabled time, nothing said, every group's count exact" {
	ct_run --format=csv -T 0 -c "$TWELVE" "$W/wl_threads" 1 300
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	"$PY" - "$T/out" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["label"] == "exit"]
assert len(rows) == 1, rows
r = rows[0]
assert int(r["enabled_ns"]) > 0 and r["running_ns"] == r["enabled_ns"], r
counts = [v for k, v in r.items() if k.startswith("syscalls:")]
assert len(counts) == 12, r
assert sorted(counts) == ["0"] * 3 + ["300"] * 9, counts
EOF
	ct_run --format=json -T 0 -c "$TWELVE" "$W/wl_threads" 1 300
	[ "$status" -eq 0 ]
	grep '"label":"exit"' "$T/out" >"$T/exit"
	[ "$(grep -o '"[a-z_:]*write[#a-z0-9:]*":300' "$T/exit" | wc -l)" -eq 9 ]
	[ "$(grep -o '"[a-z_:]*getpriority[#a-z0-9:]*":0' "$T/exit" | wc -l)" -eq 3 ]
}

@test "a group of more events than a group holds: one line naming it and why, exit 2, nothing run" {
	local n i g=""
	n=$(npic)
	for ((i = 0; i <= n; i++)); do g="$g${g:+,}$WRITE"; done
	ct_run -c "$EXIT,{$EXIT},{$g}" "$W/wl_threads" 1 10
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: '$WRITE': group 2 ({...}) holds at most $n events; split it into more groups" ]
	# The events outside braces are a group too.
	ct_run -c "$g,{$EXIT}" "$W/wl_threads" 1 10
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: '$WRITE': the events outside braces are one group, of at most $n events; put some in a {...} group" ]
	# Without braces, a set is one group: the Solaris refusal.
	ct_run -c "$g" "$W/wl_threads" 1 10
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: bad token '$WRITE'" ]
}

@test "more events than a set of groups holds: one line, exit 2" {
	local n i s=""
	n=$(npic)
	# 257 events in groups of n at most.
	for ((i = 0; i < 257; i++)); do
		if ((i % n != 0)); then
			s="$s,$WRITE"
		elif ((i == 0)); then
			s="{$WRITE"
		else
			s="$s},{$WRITE"
		fi
	done
	s="$s}"
	ct_run -c "$s" "$W/wl_threads" 1 10
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: '$WRITE': a set of groups counts at most 256 events; spread them over more -c sets" ]
}

@test "a tracepoint glob in a group fills what its group has left, and is refused past it" {
	local n m
	n=$(npic)
	m=$(ls -d /sys/kernel/tracing/events/syscalls/sys_enter_* | wc -l)
	[ "$m" -gt "$n" ] || skip "only $m syscall tracepoints"
	ct_run -c "$WRITE,{$EXIT,syscalls:sys_enter_*}" "$W/wl_threads" 1 10
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: syscalls:sys_enter_*: matches $m tracepoints, more than the $((n - 1)) counters left in this group (a group counts at most $n events); narrow the pattern, or spread it over more {...} groups" ]
	ct_run -T 0 -c "$WRITE,{$EXIT},{syscalls:sys_enter_writ*}" "$W/wl_threads" 1 40
	[ "$status" -eq 0 ]
	# sys_enter_write and sys_enter_writev, in group 2, in tracefs's
	# order: 40 writes, none of writev.
	[[ $(ct_rows exit) =~ ^1\ 40\ 40\ (40\ 0|0\ 40)$ ]]
}

@test "braces cannot nest, and {a,b} alone is one group as before" {
	ct_run -c "{$WRITE,{$EXIT}}" "$W/wl_threads" 1 10
	[ "$status" -eq 2 ]
	[[ $stderr == "cputrack: bad token '{$WRITE,{$EXIT}}'" ]]
	ct_run -T 0 -c "{$WRITE,$EXIT}:k" "$W/wl_threads" 1 25
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(ct_rows exit)" = "1 25 25" ]
}

# Sets that take turns (CPCTOOLS_SET_SWITCH: one libcpc set per spec,
# switched as hardware sets are, cpc_set_switch): each set counts while
# it has the turn, its groups together, and the two sets' turns add up to
# every write, the next starting before the current stops (clients.bats
# says by how much). The BPF engine turns its sets at its own reads, to
# within a write or so. A switch is one ioctl per group: a thread running
# on another CPU meanwhile counts in some of a set's groups and not in
# the others, for as long as the switch takes (cputrack(1)), which on a
# loaded machine can be milliseconds (one CI run: more than 1%). On one
# CPU with cputrack, the thread runs only where cputrack leaves the CPU,
# between switches.
@test "two sets of groups taking turns: each set's groups count alike, the turns add up to every write" {
	local sum least=200000 cpu
	[ "$ENGINE" != bpf ] || least=199000
	cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, /[-,]/); print a[1] }' /proc/self/status)
	taskset -pc "$cpu" "$BASHPID" >/dev/null
	CPCTOOLS_SET_SWITCH=1 ct_run -T 0.01 -c "$TWELVE" \
	    -c "{$WRITE,$PRIO},{$EXIT,$WRITE}" "$W/wl_threads" 1 200000
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ "$(ct_count tick)" -ge 2 ]
	# The exit rows: one per set, each group's writes within 1% of the
	# set's first.
	ct_rows exit | awk '{
		for (i = 2; i <= NF && $i != "#"; i++)
			if ($i != 0 && ($i < 0.99 * $2 || $i > 1.01 * $2)) exit 1
	}'
	sum=$(ct_rows exit | awk '{ s += $2 } END { print s }')
	echo "counted: $sum"
	[ "$sum" -ge "$least" ]
	[ "$sum" -le 202000 ]
}

# A set whose groups have an event of a PMU (not software, not a
# tracepoint) is opened group by group under every engine: the BPF
# engine too, which --engine=auto then keeps. msr/tsc/ never waits for a
# counter, so every group runs all its time: the writes count exactly,
# and the row's running time is its enabled time.
@test "groups with events of a PMU: every engine counts them apart, exactly; auto keeps the BPF engine" {
	[ -d /sys/bus/event_source/devices/msr ] || skip "no msr PMU"
	local spec="msr/tsc/,{$WRITE,$EXIT}" row
	ct_run --format=csv -T 0 -c "$spec" "$W/wl_threads" 2 30 5
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	[ -z "$stderr" ]
	# exit: enabled_ns, running_ns, the tsc's count, the writes.
	row=$(awk -F, '$7 == "exit" { print $9, $10, $12, $13, $14 }' "$T/out")
	echo "exit row: $row"
	[[ $row =~ ^([0-9]+)\ ([0-9]+)\ [1-9][0-9]*\ 65\ 65$ ]] ||
		fail "not every write counted in every group"
	[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] ||
		fail "the groups never took turns, yet ran less than enabled"
	[ "$ENGINE" = bpf ] || return 0
	"$CPUTRACK_BIN" --engine=auto -v -T 0 -c "$spec" "$W/wl_threads" 1 30 \
	    >"$T/out" 2>"$T/err"
	[ "$(cat "$T/err")" = "cputrack: --engine=auto: counting with the BPF engine" ] ||
		fail "auto did not keep the BPF engine: $(cat "$T/err")"
}

@test "cpustat: a set of groups on each CPU, more events than a set of one holds: every group counts every call on the CPU" {
	[ "$ENGINE" != bpf ] || skip "cpustat has no engine: cli.event_groups runs this"
	[ -d /sys/kernel/tracing/events/syscalls/sys_enter_getpriority ] ||
		skip "no syscalls:sys_enter_getpriority tracepoint"
	local cpu pid x=syscalls:sys_exit_getpriority
	cpu=$("$PY" -c 'import os; print(max(os.sched_getaffinity(0)))')
	"$CS" --cpus="$cpu" -c "$PRIO,$x,{$PRIO,$x,$PRIO},{$x,$PRIO,$PRIO,$x},{$WRITE,$PRIO,$x}" \
	    0.1 30 >"$T/out" 2>"$T/err" &
	pid=$!
	ct_bg "$pid"
	wait_line "$T/out" "^ *[0-9.]+ +$cpu +tick "
	taskset -c "$cpu" "$W/wl_getpriority" 3000
	wait "$pid"
	[ ! -s "$T/err" ] || { cat "$T/err"; false; }
	# The total: every getpriority entry and return, in every group,
	# alike (others' calls on the CPU are counted too: 3000 is a floor).
	awk '$3 == "total" {
		n = $4
		for (i = 4; i <= 15; i++) if (i != 13 && $i != n) exit 1
		exit !(n >= 3000 && NF == 15)
	}' "$T/out" || { cat "$T/out"; false; }
}
