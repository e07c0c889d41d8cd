#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# cputrack --cgroup: every thread of every process in a real cgroup v2
# directory and below it, those there at the start, started in it and
# moved into it, counted exactly from then on, and nothing outside it;
# a process that leaves is let go with its totals. The ptrace engine
# refuses it before anything starts.

load cgroup_helper

setup() {
	cg_setup
}

teardown() {
	cg_teardown
}

@test "--cgroup: there at the start, started in it, moved into it, below it: counted exactly; outside: not" {
	gated before 2 100 into "$CG"
	start_cputrack_until ' cgroup ' --cgroup="/$NAME" -T 0.2 -c "$WRITE"
	# Started in a cgroup below it; moved into it from outside; outside.
	gated started 3 50 into "$CG/sub"
	gated moved 1 70
	echo "$(pid_of moved)" >"$CG/cgroup.procs"
	gated outside 1 33
	open_gate before
	open_gate started
	open_gate moved
	open_gate outside
	wait_rows exit 3 || { cat "$T/out" "$T/err"; false; }
	kill -INT "$CPID"
	wait_cputrack
	cat "$T/err"
	[ "$status" -eq 0 ]
	# Its "ready" came before the run; the workers' writes after it.
	[ "$(rows_of "$(pid_of before)" exit)" = 200 ]
	[ "$(rows_of "$(pid_of before)" lwp_exit | sort | tr '\n' ' ')" = "100 100 " ]
	[ "$(rows_of "$(pid_of started)" exit)" = 151 ]
	[ "$(rows_of "$(pid_of started)" lwp_exit | tr '\n' ' ')" = "50 50 50 " ]
	[ "$(rows_of "$(pid_of moved)" exit)" = 70 ]
	[ -z "$(awk -v pid="$(pid_of outside)" '$2 == pid' "$T/out")" ]
	# The cgroup's rows add up to its processes' totals, and so does its
	# total at the end.
	[ "$(awk '$4 == "cgroup" { s += $5 } END { print s }' "$T/out")" = 421 ]
	[ "$(awk '$2 == 0 && $4 == "total" { print $5 }' "$T/out")" = 421 ]
}

@test "--cgroup: a process that leaves is let go with its totals (leave), counted no more; the run goes on while the cgroup is empty" {
	gated leaving 1 40 into "$CG"
	start_cputrack_until ' cgroup ' --cgroup="$CG" -T 0.2 -c "$WRITE"
	wait_rows cgroup 2
	echo "$(pid_of leaving)" >"$CGM/cgroup.procs"
	open_gate leaving
	wait_rows leave 1 || { cat "$T/out" "$T/err"; false; }
	wait "$(pid_of leaving)"
	# Empty now: it goes on ticking.
	local n
	n=$(awk '$4 == "cgroup"' "$T/out" | wc -l)
	wait_rows cgroup $((n + 3))
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ]
	# Its ready write came before the run; its 40 after it left are
	# not counted.
	[ "$(rows_of "$(pid_of leaving)" leave)" = 0 ]
	[ -z "$(rows_of "$(pid_of leaving)" exit)" ]
	[ "$(awk '$2 == 0 && $4 == "total" { print $5 }' "$T/out")" = 0 ]
}

@test "--cgroup: the ptrace engine, -p, a command and a bad directory are refused before anything starts" {
	run -2 "$CPUTRACK" --engine=ptrace --cgroup="/$NAME" -c "$WRITE"
	[ "$output" = "cputrack: --cgroup needs the BPF engine: the ptrace engine cannot see a process come into a cgroup" ]
	run -2 "$CPUTRACK" --cgroup="/$NAME" -p 1 -c "$WRITE"
	[ "${lines[0]}" = "cputrack: --cgroup and -p cannot be given together" ]
	run -2 "$CPUTRACK" --cgroup="/$NAME" -c "$WRITE" true
	[ "${lines[0]}" = "cputrack: --cgroup and a command ('true') cannot be given together" ]
	run -2 "$CPUTRACK" --cgroup=/no-such-cgroup-"$NAME" -c "$WRITE"
	[ "$output" = "cputrack: --cgroup '/no-such-cgroup-$NAME': no such cgroup under $CGM" ]
	run -2 "$CPUTRACK" --cgroup="$NAME/cgroup.procs" -c "$WRITE"
	[ "$output" = "cputrack: --cgroup '$NAME/cgroup.procs': not a cgroup v2 directory (the hierarchy is mounted on $CGM)" ]
	run -2 "$CPUTRACK" --cgroup="/$NAME" --pass-status -c "$WRITE"
	[ "$output" = "cputrack: --pass-status needs a command to start, not --cgroup" ]
}

@test "--cgroup in OpenMetrics: a series per cgroup holds what its threads counted there; its rows make no process series" {
	gated moved 2 30
	echo "$(pid_of moved)" >"$CG/cgroup.procs"
	"$CPUTRACK" --cgroup="/$NAME" -T 0.2 --format=openmetrics \
	    -o "$T/m.prom" -c "$WRITE" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	local series="cputrack_cgroup_events_total{cgroup=\"/$NAME\",event=\"$WRITE\",set=\"0\"}"
	wait_file "$T/m.prom"
	open_gate moved
	wait "$(pid_of moved)"
	wait_while "$CPID" grep -qxF "$series 60" "$T/m.prom" ||
	    { cat "$T/m.prom"; false; }
	grep -q "^cputrack_cgroup_running_seconds_total{cgroup=\"/$NAME\",set=\"0\"} " "$T/m.prom"
	run ! grep -q 'pid="0"' "$T/m.prom"
	kill -TERM "$CPID"
	wait "$CPID"
}

# own_cgroup PID: the cgroup v2 path of process PID.
own_cgroup() {
	sed -n 's/^0:://p' "/proc/$1/cgroup"
}

@test "--cgroup in OpenMetrics: each process's series carry the cgroup label of the cgroup it is in" {
	gated there 1 20
	moved there "$CG"
	"$CPUTRACK" --cgroup="/$NAME" -T 0.2 --format=openmetrics \
	    -o "$T/m.prom" -c "$WRITE" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_file "$T/m.prom"
	gated below 2 10 into "$CG/sub"
	open_gate there
	open_gate below
	wait "$(pid_of there)" "$(pid_of below)"
	local series="cputrack_process_events_total{pid=\"%s\",comm=\"wl_gate\",cgroup=\"%s\",event=\"$WRITE\",set=\"0\"} %s"
	# shellcheck disable=SC2059 # the format is the series'
	wait_while "$CPID" grep -qxF "$(printf "$series" "$(pid_of there)" "/$NAME" 20)" "$T/m.prom" ||
	    { cat "$T/m.prom"; false; }
	# Its "ready" was counted: it came after it moved itself.
	# shellcheck disable=SC2059
	wait_while "$CPID" grep -qxF "$(printf "$series" "$(pid_of below)" "/$NAME/sub" 21)" "$T/m.prom" ||
	    { cat "$T/m.prom"; false; }
	kill -TERM "$CPID"
	wait "$CPID"
}

@test "a command's series carry its cgroup; a new image's, the cgroup it moved itself into before its exec, under both engines" {
	local engine own
	own=$(own_cgroup $$)
	[ -n "$own" ] || skip "this shell is in no cgroup v2 hierarchy"
	mkdir "$CG/a"
	for engine in ptrace bpf; do
		"$CPUTRACK" --engine="$engine" -e -T 0 --format=openmetrics \
		    -c "$WRITE" sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" "$3" 3' \
		    sh "$CG/a" "$W/ct_marker" "$T/ran" >"$T/out" 2>"$T/err" ||
		    { cat "$T/err"; false; }
		grep -qE "^cputrack_process_events_total\{pid=\"[0-9]+\",comm=\"sh\",cgroup=\"$own\",event=\"$WRITE\",set=\"0\"\} [0-9]+$" "$T/out" ||
		    { echo "$engine"; cat "$T/out"; false; }
		grep -qxE "cputrack_process_events_total\{pid=\"[0-9]+\",comm=\"ct_marker\",cgroup=\"/$NAME/a\",event=\"$WRITE\",set=\"0\"\} 3" "$T/out" ||
		    { echo "$engine"; cat "$T/out"; false; }
	done
}
