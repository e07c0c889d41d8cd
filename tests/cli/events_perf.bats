#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# Event names against perf stat itself, through cputrack.
#
# 1. Every name `perf list` prints here but the tracepoints (those are
#    compared in unit.test_events_perf, all of them): software and tool
#    events, PMU events, hardware and cache events where there is a PMU,
#    and perf's templates made real (rNNN, cpu/t=v/, mem:<addr>). Each is
#    run under perf stat and under cputrack (-c NAME,sys: every mode, as
#    perf stat counts as root) on a workload: where the event is exact
#    here the two values are equal; otherwise both count, or both refuse.
#    perf's tool events (duration_time, user_time, system_time) are the
#    documented difference: cputrack refuses them, saying why; so are
#    the events of a PMU with a cpumask (RAPL's power, uncore), which
#    count a whole socket and no thread: perf stat counts them for the
#    socket over the run, cputrack refuses them in one line.
# 2. Each syntax form cputrack reads (docs/events.md), against its perf
#    stat spelling, the same way.
#
# Workloads: wl_calls calls wl_target exactly 1000 + 2000 + 3000 times
# (three LWPs) and writes wl_calls_made as often; ct_steady 1 50 0 1
# makes exactly 50 write(2) calls.

load cputrack_helper

setup() {
	ct_setup
	command -v perf >/dev/null || skip "perf is not installed"
	CALLS=("$W/wl_calls" 2 1000)
	# What the BPF engine's refusal of a breakpoint says, in part.
	BP_REFUSED="a breakpoint is armed on every CPU"
	WRITES=("$W/ct_steady" 1 50 0 1)
	ADDR=$(nm "$W/wl_calls" | awk '$3 == "wl_target" { print "0x" $1 }')
	DATA=$(nm "$W/wl_calls" | awk '$3 == "wl_calls_made" { print "0x" $1 }')
}

teardown() {
	ct_teardown
	perf probe -q -d 'probe_wl_calls:*' >/dev/null 2>&1 || true
}

# perf_vals EVENTS WORKLOAD...: perf stat's values, one per event, in
# order ("-" for an event it did not count); status 1 if perf refused
# the whole run.
perf_vals() {
	local events=$1
	shift
	timeout 120 perf stat -x, -o "$T/perf" -e "$events" -- "$@" \
	    >/dev/null 2>"$T/perf.err" || return 1
	awk -F, '/^#/ || NF < 3 { next }
	    { printf "%s ", ($1 ~ /^</) ? "-" : $1 } END { print "" }' \
	    "$T/perf" | sed 's/ $//'
}

# our_vals SPEC WORKLOAD...: cputrack's values over the whole run (its
# exit row), one per request; status 2 (or 1) and $T/err when refused.
our_vals() {
	local spec=$1 try
	shift
	for try in $(seq 10); do
		status=0
		timeout -k 5 120 "$CT" -T 0 -c "$spec" "$@" >"$T/out" \
		    2>"$T/err" || status=$?
		counters_taken || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 10 tries
	done
	[ "$status" -eq 0 ] || return "$status"
	awk '$3 == "exit" { s = ""; for (i = 4; i <= NF; i++) s = s \
	    (s == "" ? "" : " ") $i; last = s } END { print last }' "$T/out"
}

# agrees: whether compare's outcomes (its mode, o and p, orc and prc)
# agree as its mode wants.
agrees() {
	case $mode in
	exact)
		[ "$orc" -eq 0 ] && [ "$prc" -eq 0 ] && [ "$o" = "$p" ]
		;;
	count)
		[ "$orc" -eq 0 ] && [ "$prc" -eq 0 ] &&
		    [ "$(wc -w <<<"$o")" -eq "$(wc -w <<<"$p")" ]
		;;
	refuse)
		[ "$orc" -ne 0 ] && [ "$prc" -ne 0 ] &&
		    [ "$(wc -l <"$T/err")" -ge 1 ] &&
		    ! grep -q "bad token" "$T/err"
		;;
	refused:*)
		# A documented difference: cputrack refuses, saying why.
		[ "$orc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		    grep -qF "${mode#refused:}" "$T/err"
		;;
	socket)
		[ "$orc" -eq 2 ] && [ "$prc" -eq 0 ] &&
		    [ "$(wc -l <"$T/err")" -eq 1 ] &&
		    grep -qF "counts a whole socket" "$T/err"
		;;
	esac
}

# compare LABEL MODE OURSPEC PERFEVENTS WORKLOAD...: MODE exact (same
# values), count (both count), refuse (both refuse), refused:TEXT (a
# documented difference: cputrack refuses, in one line saying TEXT), or
# socket (a socket PMU's event: perf counts it, cputrack refuses it).
# Appends a line to $T/table; returns 1 on a mismatch.
compare() {
	local label=$1 mode=$2 ours=$3 theirs=$4 o p orc=0 prc=0 result
	shift 4
	o=$(our_vals "$ours" "$@") || orc=$?
	p=$(perf_vals "$theirs" "$@") || prc=$?
	# perf refuses an event it cannot open with "<not supported>".
	[ "$prc" -eq 0 ] && [ -n "$p" ] && [ "${p//[- ]/}" != "" ] ||
		prc=1
	result=0
	agrees || result=$?
	printf '%-44s %-7s ours: %-18s perf: %s%s\n' "$label" "$mode" \
	    "$([ "$orc" -eq 0 ] && echo "$o" || echo "refused ($orc)")" \
	    "$([ "$prc" -eq 0 ] && echo "$p" || echo refused)" \
	    "$([ "$result" -eq 0 ] && echo "" || echo "   <-- DIFFERS: $(head -c 300 "$T/err")")" \
	    >>"$T/table"
	return "$result"
}

# show_table: the rows that differ first, where a cut log keeps them,
# then the whole table.
show_table() {
	grep -F -- '<-- DIFFERS' "$T/table" || true
	cat "$T/table"
}

# socket_pmu NAME: whether NAME is an event of a PMU with a cpumask.
socket_pmu() {
	local pmu=${1%%/*}
	[ "$pmu" != "$1" ] || return 1
	[ -e "/sys/bus/event_source/devices/$pmu/cpumask" ]
}

# How a name perf list prints is compared, from what it is.
mode_of() {
	if socket_pmu "$1"; then
		echo socket
		return
	fi
	case $1 in
	mem:*)
		if breakpoints_refused; then
			echo "refused:$BP_REFUSED"
		else
			echo exact
		fi
		;;
	alignment-faults | emulation-faults | dummy | bpf-output | msr/smi/) echo exact ;;
	duration_time | user_time | system_time)
		echo "refused:a perf tool event" ;;
	# Statically defined probes of binaries perf has cached: neither can
	# count one before `perf probe` makes it a tracepoint.
	sdt_*:*) echo refuse ;;
	*) echo count ;;
	esac
}

@test "every name perf list prints, but tracepoints: cputrack counts it as perf stat does, or both refuse it" {
	local names=() n line mode bad=0 pmu=false
	require_breakpoint_symbols
	ls /sys/bus/event_source/devices/ |
	    grep -qE '^(cpu|cpu_core|cpu_atom|armv[78]_.*|arm_.*)$' && pmu=true
	while IFS= read -r line; do
		case $line in
		*"[Tracepoint event]"* | *"[Raw hardware event descriptor]"* | \
		    *"[Hardware breakpoint]"*) continue ;;
		*"event]"*) ;;
		*) continue ;;
		esac
		line=${line%%\[*}
		for n in ${line// OR / }; do
			names+=("$n")
		done
	done < <(perf list 2>/dev/null)
	# perf's templates, made real here.
	perf list 2>/dev/null | grep -q 'rNNN' && names+=(r1a8)
	perf list 2>/dev/null | grep -q 'cpu/t1=v1' && names+=(cpu/event=0x3c/)
	perf list 2>/dev/null | grep -q 'mem:<addr>' && names+=("mem:$ADDR:x")
	[ "${#names[@]}" -gt 10 ]
	for n in "${names[@]}"; do
		mode=$(mode_of "$n")
		case $n in
		r1a8 | cpu/event=0x3c/) $pmu || mode=refuse ;;
		esac
		compare "$n" "$mode" "$n,sys" "$n" "${CALLS[@]}" || bad=$((bad + 1))
	done
	show_table
	echo "${#names[@]} names of perf list compared, $bad differ"
	[ "$bad" -eq 0 ]
}

require_breakpoint_symbols() {
	[ -n "$ADDR" ] && [ -n "$DATA" ] ||
		skip "nm found no wl_target or wl_calls_made in wl_calls"
	[ -d /sys/bus/event_source/devices/breakpoint ] ||
		skip "this kernel has no breakpoint PMU"
}

@test "each syntax form: cputrack counts as perf stat does, or both refuse" {
	local bad=0 pmu=false tp=false
	require_breakpoint_symbols
	ensure_tracefs
	ls /sys/bus/event_source/devices/ |
	    grep -qE '^(cpu|cpu_core|cpu_atom|armv[78]_.*|arm_.*)$' && pmu=true
	f() { compare "$@" || bad=$((bad + 1)); }

	# pmu/term=value,.../ and pmu/event/, from sysfs; a PMU's bare event.
	if [ -d /sys/bus/event_source/devices/msr ]; then
		if [ -e /sys/bus/event_source/devices/msr/events/smi ]; then
			f "pmu/term=value/" exact "msr/event=0x4/" "msr/event=0x4/" "${CALLS[@]}"
			f "pmu/term=value,term=value/" exact "msr/event=0x4,config1=0/" "msr/event=0x4,config1=0/" "${CALLS[@]}"
			f "pmu/event/" exact "msr/smi/" "msr/smi/" "${CALLS[@]}"
			f "a PMU's event, bare" exact "smi" "smi" "${CALLS[@]}"
		else
			# No SMI counter on this CPU: the same forms on the TSC.
			f "pmu/term=value/" count "msr/event=0x0/" "msr/event=0x0/" "${CALLS[@]}"
			f "pmu/term=value,term=value/" count "msr/event=0x0,config1=0/" "msr/event=0x0,config1=0/" "${CALLS[@]}"
			f "a PMU's event, bare" count "tsc" "tsc" "${CALLS[@]}"
		fi
		f "pmu/event/ (msr/tsc/)" count "msr/tsc/" "msr/tsc/" "${CALLS[@]}"
		f "pmu/event/ with a mode it cannot split" refuse "msr/tsc/u" "msr/tsc/u" "${CALLS[@]}"
		f "pmu/unknown term/" refuse "msr/bogus/" "msr/bogus/" "${CALLS[@]}"
	fi
	f "a PMU this kernel lacks" refuse "nosuchpmu/event=1/" "nosuchpmu/event=1/" "${CALLS[@]}"
	f "software/term/ (cpu-clock/period=N/)" count "cpu-clock/period=1000/,sys" "cpu-clock/period=1000/" "${CALLS[@]}"

	# Breakpoints: execution, writes, reads and writes; refused where the
	# engine refuses them (breakpoints_refused).
	local bp_exact=exact bp_count=count
	if breakpoints_refused; then
		bp_exact="refused:$BP_REFUSED" bp_count="refused:$BP_REFUSED"
	fi
	f "mem:ADDR:x" "$bp_exact" "mem:$ADDR:x" "mem:$ADDR:x" "${CALLS[@]}"
	# User mode on both sides: perf stat, counting from inside exec, also
	# sees the kernel zero the page of wl_calls_made as it loads it.
	f "mem:ADDR/8:w" "$bp_exact" "mem:$DATA/8:w" "mem:$DATA/8:w:u" "${CALLS[@]}"
	f "mem:ADDR (rw, 4 bytes)" "$bp_exact" "mem:$DATA" "mem:$DATA:u" "${CALLS[@]}"
	f "mem:ADDR/8:w, every mode" "$bp_count" "mem:$DATA/8:w,sys" "mem:$DATA/8:w" "${CALLS[@]}"
	f "mem:ADDR:x:u" "$bp_exact" "mem:$ADDR:x:u" "mem:$ADDR:x:u" "${CALLS[@]}"

	# Probes: ours through the uprobe PMU, perf's through perf probe.
	if [ -d /sys/bus/event_source/devices/uprobe ] &&
	    perf probe -q -x "$W/wl_calls" wl_target >/dev/null 2>&1 &&
	    perf probe -q -x "$W/wl_calls" 'wl_target%return' >/dev/null 2>&1; then
		f "uprobe:PATH:SYMBOL" exact "uprobe:$W/wl_calls:wl_target" "probe_wl_calls:wl_target" "${CALLS[@]}"
		f "uretprobe:PATH:SYMBOL" exact "uretprobe:$W/wl_calls:wl_target" "probe_wl_calls:wl_target__return" "${CALLS[@]}"
		f "perf probe's tracepoint" exact "probe_wl_calls:wl_target" "probe_wl_calls:wl_target" "${CALLS[@]}"
	else
		echo "no uprobes here (perf probe -x failed): uprobe forms not compared" >>"$T/table"
	fi
	if [ ! -d /sys/bus/event_source/devices/kprobe ]; then
		# No kprobe PMU (CONFIG_KPROBE_EVENTS): perf probe cannot either.
		perf probe -q -a do_sys_openat2 >/dev/null 2>&1 &&
		    perf probe -q -d do_sys_openat2 && bad=$((bad + 1))
		f "kprobe:FUNCTION" refuse "kprobe:do_sys_openat2" "kprobes:do_sys_openat2" "${CALLS[@]}"
	fi

	# Tracepoints, modifiers, groups, globs.
	f "subsystem:event" exact "syscalls:sys_enter_write" "syscalls:sys_enter_write" "${WRITES[@]}"
	f ":u" exact "syscalls:sys_enter_write:u" "syscalls:sys_enter_write:u" "${WRITES[@]}"
	f ":k" exact "syscalls:sys_enter_write:k" "syscalls:sys_enter_write:k" "${WRITES[@]}"
	f ":uk" exact "syscalls:sys_enter_write:uk" "syscalls:sys_enter_write:uk" "${WRITES[@]}"
	f ":h" exact "syscalls:sys_enter_write:h" "syscalls:sys_enter_write:h" "${WRITES[@]}"
	f ":H" exact "syscalls:sys_enter_write:H" "syscalls:sys_enter_write:H" "${WRITES[@]}"
	f ":G" exact "syscalls:sys_enter_write:G" "syscalls:sys_enter_write:G" "${WRITES[@]}"
	f ":p" exact "syscalls:sys_enter_write:p" "syscalls:sys_enter_write:p" "${WRITES[@]}"
	f ":pp" exact "syscalls:sys_enter_write:pp" "syscalls:sys_enter_write:pp" "${WRITES[@]}"
	f ":ppp" exact "syscalls:sys_enter_write:ppp" "syscalls:sys_enter_write:ppp" "${WRITES[@]}"
	f "software event:u" count "task-clock:u" "task-clock:u" "${WRITES[@]}"
	f "kernel-context event:u" exact "cs:u" "cs:u" "${WRITES[@]}"
	f "{a,b}" exact "{syscalls:sys_enter_write,syscalls:sys_exit_write}" "{syscalls:sys_enter_write,syscalls:sys_exit_write}" "${WRITES[@]}"
	f "{a,b}:mods" exact "{syscalls:sys_enter_write,syscalls:sys_exit_write}:k" "{syscalls:sys_enter_write,syscalls:sys_exit_write}:k" "${WRITES[@]}"
	# A glob: perf and tracefs order the matches differently; compare
	# each match by name.
	local m
	for m in $(grep -E '^syscalls:sys_enter_w' /sys/kernel/tracing/available_events); do
		f "glob syscalls:sys_enter_w* ($m)" exact "$m" "$m" "${WRITES[@]}"
	done
	local ours theirs
	ours=$(our_vals "syscalls:sys_enter_w*" "${WRITES[@]}" | tr ' ' '\n' | sort -n | xargs)
	theirs=$(perf_vals "syscalls:sys_enter_w*" "${WRITES[@]}" | tr ' ' '\n' | sort -n | xargs)
	if [ "$ours" != "$theirs" ]; then
		bad=$((bad + 1))
		echo "glob syscalls:sys_enter_w*, sorted: ours $ours, perf $theirs   <-- DIFFERS" >>"$T/table"
	fi
	f "unknown tracepoint" refuse "syscalls:nonexistent" "syscalls:nonexistent" "${WRITES[@]}"

	# perf's software events, aliases and tool events; raw codes.
	f "software event" count "task-clock,sys" "task-clock" "${WRITES[@]}"
	f "software alias (cs)" count "cs" "cs" "${WRITES[@]}"
	f "software alias (faults)" count "faults,sys" "faults" "${WRITES[@]}"
	f "alignment-faults" exact "alignment-faults,sys" "alignment-faults" "${WRITES[@]}"
	f "dummy" exact "dummy" "dummy" "${WRITES[@]}"
	f "tool event (duration_time)" "refused:a perf tool event" "duration_time" "duration_time" "${WRITES[@]}"
	f "perf modifier for sampling (:S)" "refused:means nothing when counting" "task-clock:S" "task-clock:S" "${WRITES[@]}"
	if $pmu; then
		f "rNNNN" count "r00c0,sys" "r00c0" "${CALLS[@]}"
		f "hardware event" count "instructions,sys" "instructions" "${CALLS[@]}"
	else
		f "rNNNN (no PMU)" refuse "r00c0" "r00c0" "${CALLS[@]}"
		f "hardware event (no PMU)" refuse "instructions" "instructions" "${CALLS[@]}"
		f "cache event (no PMU)" refuse "L1-dcache-load-misses" "L1-dcache-load-misses" "${CALLS[@]}"
		f "PAPI name (no PMU)" refuse "PAPI_tot_ins" "instructions" "${CALLS[@]}"
		f "UltraSPARC name (no PMU)" refuse "EC_ref" "cache-references" "${CALLS[@]}"
	fi
	f "libpfm4 name (perf::CS)" count "perf::CS" "cs" "${WRITES[@]}"

	# The Solaris syntax, mixed in.
	f "picN=" exact "pic3=syscalls:sys_enter_write" "syscalls:sys_enter_write" "${WRITES[@]}"
	f "nouser (a kernel event counts anyway)" exact "syscalls:sys_enter_write,nouser" "syscalls:sys_enter_write" "${WRITES[@]}"
	f "picN= with perf syntax and sys" exact "pic0=syscalls:sys_exit_write:k,{syscalls:sys_enter_write},sys" "syscalls:sys_exit_write:k,syscalls:sys_enter_write" "${WRITES[@]}"
	f "mem: and a tracepoint, Solaris style" "$bp_exact" "pic1=mem:$ADDR:x,pic2=syscalls:sys_enter_write" "mem:$ADDR:x,syscalls:sys_enter_write" "${CALLS[@]}"

	show_table
	echo "$bad forms differ"
	[ "$bad" -eq 0 ]
}

# The SIGTRAP the kernel sends for a debug exception no handler claimed,
# which a breakpoint counter's own exception becomes where a hypervisor
# loses the guest's DR6: wl_debugtrap queues itself that very signal
# between its two halves of writes. The ptrace engine drops it, and auto
# counts such a run with ptrace; the BPF engine, which traces no target,
# refuses the breakpoint and starts nothing.
@test "mem: a debug trap no handler claimed is dropped: the target runs to its end, each write counted" {
	local var counted
	case $(uname -m) in
	x86_64 | i?86) ;;
	*) skip "debug traps are dropped on x86 alone (arm64's BRK would trap again)" ;;
	esac
	require_breakpoint_symbols
	var=$(nm "$W/wl_debugtrap" |
	    awk '$3 == "wl_debugtrap_writes" { print "0x" $1 }')
	[ -n "$var" ] || {
		echo "nm found no wl_debugtrap_writes in wl_debugtrap"
		return 1
	}
	if [ "$ENGINE" = bpf ]; then
		run -2 --separate-stderr "$CT" -T 0 -c "mem:$var/8:w" "$W/wl_debugtrap" 1000
		[ "$stderr" = "$(breakpoint_refusal "mem:$var/8:w")" ]
		[ -z "$output" ]
		return
	fi
	run -0 "$CT" -T 0 -c "mem:$var/8:w" "$W/wl_debugtrap" 1000
	[[ $output != *SIGTRAP* ]] || {
		echo "the target was killed: $output"
		return 1
	}
	counted=$(awk '$3 == "exit" { print $4 }' <<<"$output")
	[ "$counted" = 2000 ] || {
		echo "counted $counted writes of 2000"
		return 1
	}
	# auto leaves a run that counts a breakpoint to ptrace; -v says why.
	run -0 --separate-stderr "$CT" --engine=auto -v -T 0 \
	    -c "mem:$var/8:w" "$W/wl_debugtrap" 1000
	[ "$stderr" = "cputrack: --engine=auto: counting with ptrace: a breakpoint counted: only the ptrace engine keeps a debug trap that the kernel sends for it from its process" ]
	[ "$(awk '$3 == "exit" { print $4 }' <<<"$output")" = 2000 ]
}
