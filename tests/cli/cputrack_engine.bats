#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# The engine a run takes when --engine is not given: auto, the BPF engine
# wherever it can run and ptrace otherwise, or CPCTOOLS_ENGINE's. The
# command tells which engine counted it: its own TracerPid is 0 under the
# BPF engine, cputrack's pid under ptrace. Each test names the engines it
# expects, so this file runs once, with the real command (not the BPF
# pass's wrapper), and without the suite's CPCTOOLS_ENGINE.

load cputrack_helper

setup() {
	ct_setup
	CT=${CPUTRACK_BIN:-$CPUTRACK}
	D=$T
	unset CPCTOOLS_ENGINE
	AUTO_BPF="cputrack: --engine=auto: counting with the BPF engine"
	NO_CAPS="the BPF engine needs CAP_BPF and CAP_PERFMON (or root)"
}

teardown() {
	ct_teardown
}

# bpf_here: skip, with the reason cputrack gives, where the BPF engine
# cannot run for root.
bpf_here() {
	local line
	line=$("$CT" --version | sed -n 's/^engine: //p')
	case $line in
	*"the BPF engine here") ;;
	*) skip "the BPF engine cannot run here: $line" ;;
	esac
}

# traced_by ARGS...: cputrack ARGS -v -o $D/rows with a command that
# prints its own TracerPid into $D/tracer; stderr in $D/err.
traced_by() {
	timeout 120 "$@" -v -o "$D/rows" -c page-faults \
	    awk -v out="$D/tracer" \
	    '$1 == "TracerPid:" { print $2 > out }' /proc/self/status \
	    2>"$D/err" || { cat "$D/err"; false; }
	[ "$(awk '$3 == "exit" && $4 ~ /^[0-9]+$/' "$D/rows" | wc -l)" -eq 1 ]
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

@test "no --engine, as root: the BPF engine counts, and the command is not traced" {
	bpf_here
	traced_by "$CT"
	[ "$(cat "$D/tracer")" -eq 0 ]
	[ "$(cat "$D/err")" = "$AUTO_BPF" ]
}

@test "CPCTOOLS_ENGINE=ptrace: the run traces its command, and says nothing of engines" {
	CPCTOOLS_ENGINE=ptrace traced_by "$CT"
	[ "$(cat "$D/tracer")" -gt 0 ]
	[ ! -s "$D/err" ]
}

@test "--engine wins over CPCTOOLS_ENGINE" {
	bpf_here
	CPCTOOLS_ENGINE=ptrace traced_by "$CT" --engine=auto
	[ "$(cat "$D/tracer")" -eq 0 ]
	CPCTOOLS_ENGINE=bpf traced_by "$CT" --engine=ptrace
	[ "$(cat "$D/tracer")" -gt 0 ]
}

@test "CPCTOOLS_ENGINE that names no engine: one line, exit 2, nothing started" {
	CPCTOOLS_ENGINE=perf run -2 --separate-stderr \
	    "$CT" -c page-faults touch "$T/ran"
	[ -z "$output" ]
	[ "$stderr" = "cputrack: invalid engine 'perf' in CPCTOOLS_ENGINE (bpf, ptrace or auto)" ]
	[ ! -e "$T/ran" ]
	# --engine settles it: the variable is not read.
	CPCTOOLS_ENGINE=perf run -0 "$CT" --engine=ptrace -o "$T/rows" \
	    -c page-faults touch "$T/ran"
	[ -e "$T/ran" ]
}

@test "--version and -h say the default engine and which one it takes here" {
	bpf_here
	run -0 "$CT" --version
	[ "${lines[1]}" = "engine: auto (the default): the BPF engine here" ]
	run -0 "$CT" -h
	[[ $output == *$'\tengine: auto (the default): the BPF engine here'* ]]
	CPCTOOLS_ENGINE=ptrace run -0 "$CT" --version
	[ "${lines[1]}" = "engine: ptrace (CPCTOOLS_ENGINE)" ]
}

@test "no --engine, as a user without CAP_BPF: ptrace counts, -v says why, --version too" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to become nobody"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local nb
	nb=$(nobody_path "$CT")
	D=$(nobody_dir)
	chmod 0777 "$D"
	traced_by setpriv --reuid=nobody --regid=nogroup --clear-groups "$nb"
	[ "$(cat "$D/tracer")" -gt 0 ]
	[ "$(cat "$D/err")" = "cputrack: --engine=auto: counting with ptrace: $NO_CAPS" ]
	# Without -v, nothing is said: the run is as it always was.
	run -0 --separate-stderr as_nobody "$nb" -o "$D/rows2" -c page-faults true
	[ -z "$stderr" ]
	run -0 as_nobody "$nb" --version
	[ "${lines[1]}" = "engine: auto (the default): ptrace here ($NO_CAPS)" ]
}

@test "no --engine: a program that marks its sections with cpc_enable is left to ptrace, which serves it" {
	bpf_here
	ensure_tracefs
	local marked=$BUILD_DIR/tests/clients/cpc_marked
	run -0 --separate-stderr timeout 120 "$CT" -v -T 0 -c "$WRITE" \
	    "$marked" 100 1000
	[ "$stderr" = "cputrack: --engine=auto: counting with ptrace: $marked may mark its own sections with cpc_enable and cpc_disable, which only the ptrace engine serves" ]
	# Only the 1000 writes of its marked section are counted.
	[ "$(awk '$3 == "exit" { print $4 }' <<<"$output")" = 1000 ]
	# Asked for, the BPF engine counts it whole: the program's first
	# cpc_disable fails, and it stops after saying so (one write).
	run -0 --separate-stderr timeout 120 "$CT" --engine=bpf -T 0 \
	    -c "$WRITE" "$marked" 100 1000
	[ "$(awk '$3 == "exit" { print $4 }' <<<"$output")" = 1 ]
}
