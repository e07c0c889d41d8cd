#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# One exporter for every cgroup of a machine, end to end: cputrack
# --for-each-cgroup --listen counts a real cgroup v2 directory while
# Debian's Prometheus scrapes it every second and evaluates the shipped
# rules. The test makes 50 cgroups, runs workloads of exactly known
# counts in some, moves a process from one to another, removes 20 and
# makes 10 more: Prometheus has each cgroup's exact count, nothing outside
# the directory is counted, cputrack holds as many descriptors after as
# before, and the rules' rate of a paced service is the rate at which it
# wrote, read from its own /proc/PID/io, within 2 %.
#
# Everything listens on 127.0.0.1, on free ports, with its own
# configuration and data in the test's directory, and is stopped by the
# test.

bats_require_minimum_version 1.5.0

load fleet_helper

WRITE=syscalls:sys_enter_write
GETPRIO=syscalls:sys_enter_getpriority
RATE=2000

start_cputrack() {
	watched cputrack "$CPUTRACK" --for-each-cgroup="$CG" -T 0.5 \
	    --format=openmetrics --listen=127.0.0.1:"$CT_PORT" -o /dev/null \
	    -c "$WRITE,$GETPRIO" >"$D/cputrack.out" 2>"$D/cputrack.err"
	wait_http "http://127.0.0.1:$CT_PORT/metrics" 30
}

setup_file() {
	export D=$BATS_FILE_TMPDIR
	[ -x "${CPUTRACK:-}" ] || return 0
	export CGM CG NAME CT_PORT PROM_PORT
	NAME=cpctools-node-$$
	cgroup_fleet_ready "$NAME" paced.service || return 0
	CT_PORT=$(free_port)
	PROM_PORT=$(free_port)
	cat >"$D/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		  evaluation_interval: 1s
		rule_files:
		  - $SOURCE_DIR/dist/prometheus/cpctools.rules.yml
		scrape_configs:
		  - job_name: node
		    static_configs:
		      - targets: ['127.0.0.1:$CT_PORT']
	EOF
	if ! start_cputrack; then
		echo "cputrack would not serve: $(cat "$D/cputrack.err")" >"$D/failed"
		return 0
	fi
	sh -c 'echo $$ >"$1/cgroup.procs"; exec "$2" "$3"' sh \
	    "$CG/paced.service" "$WORKLOADS/wl_paced" "$RATE" >/dev/null 2>&1 &
	remember paced $!
	count_writes paced_io "$CG/paced.service"
	start_prometheus || true
}

teardown_file() {
	stop_daemons cputrack prometheus paced paced_io
	find "$CG" -name cgroup.procs -exec cat {} + 2>/dev/null |
	    while read -r p; do kill -KILL "$p" 2>/dev/null || true; done
	[ -n "${CG:-}" ] &&
	    find "$CG" -depth -type d -exec rmdir {} + 2>/dev/null || true
}

setup() {
	fleet_ready CPUTRACK
}

# in_cgroup DIR PROGRAM ARGS...: PROGRAM run in cgroup DIR (below $CG),
# to its end.
in_cgroup() {
	sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$CG/$1" \
	    "$WORKLOADS/$2" "${@:3}" >/dev/null
}

# served CGROUP EVENT VALUE: cputrack serves that cgroup's count.
served() {
	curl -sf "http://127.0.0.1:$CT_PORT/metrics" |
	    grep -qxF "cputrack_cgroup_events_total{cgroup=\"/$NAME$1\",event=\"$2\",set=\"0\"} $3"
}

# scraped CGROUP EVENT: the last value Prometheus scraped of the cgroup's
# count (its series may have ended), or "none".
scraped() {
	promql "last_over_time(cputrack_cgroup_events_total{job=\"node\",cgroup=\"/$NAME$1\",event=\"$2\"}[10m])" "$(now)"
}

scraped_is() {
	[ "$(scraped "$1" "$2")" = "$3" ]
}

# Descriptors cputrack holds, its clients' sockets aside.
descriptors() {
	find "/proc/$(daemon_pid cputrack)/fd" -mindepth 1 \
	    ! -lname 'socket:*' | wc -l
}

@test "50 cgroups, 20 removed, 10 made, a process moved: Prometheus has each cgroup's exact count, nothing outside; the descriptors stay" {
	local before i k
	wait_for served "" "$GETPRIO" 0
	before=$(descriptors)
	for i in $(seq -w 1 50); do
		mkdir "$CG/c$i"
	done
	# 100 x i calls in each of the first 20.
	for i in $(seq 1 20); do
		in_cgroup "c$(printf %02d "$i")" wl_getpriority $((100 * i))
	done
	# Outside the directory: counted nowhere.
	"$WORKLOADS/wl_getpriority" 999
	# One process, 30 writes in c21, moved, 30 more in c22.
	mkfifo "$D/steps"
	"$WORKLOADS/wl_steps" 1 30 <"$D/steps" &
	local mover=$!
	echo "$mover" >"$CG/c21/cgroup.procs"
	exec {k}>"$D/steps"
	echo w >&"$k"
	wait_for served /c21 "$WRITE" 30
	echo "$mover" >"$CG/c22/cgroup.procs"
	echo w >&"$k"
	wait_for served /c22 "$WRITE" 30
	echo q >&"$k"
	exec {k}>&-
	wait "$mover"
	wait_for served /c20 "$GETPRIO" 2000
	# Remove 20: ten that counted, ten that never had a process.
	for i in $(seq 11 20) $(seq 41 50); do
		rmdir "$CG/c$i"
	done
	# And make 10 more, 7 x i calls in each.
	for i in $(seq 1 10); do
		mkdir "$CG/n$i"
		in_cgroup "n$i" wl_getpriority $((7 * i))
	done
	wait_for served /n10 "$GETPRIO" 70
	for i in $(seq 1 20); do
		wait_for scraped_is "/c$(printf %02d "$i")" "$GETPRIO" $((100 * i)) ||
		    { scraped "/c$(printf %02d "$i")" "$GETPRIO"; false; }
	done
	for i in $(seq 1 10); do
		wait_for scraped_is "/n$i" "$GETPRIO" $((7 * i))
	done
	wait_for scraped_is /c21 "$WRITE" 30
	wait_for scraped_is /c22 "$WRITE" 30
	[ "$(scraped /c21 "$GETPRIO")" = 0 ]
	[ "$(scraped "" "$GETPRIO")" = 0 ]
	# Cgroups where nothing ran have no series; nothing outside was
	# counted.
	[ "$(scraped /c45 "$GETPRIO")" = none ]
	[ "$(promql "count(cputrack_cgroup_events_total{job=\"node\",cgroup!~\"/$NAME.*\"})" "$(now)")" = none ]
	# The descriptors are as many as before the 50 cgroups.
	[ "$(descriptors)" -eq "$before" ]
}

# window_full: the rules' window (1m) full of the service's samples: one
# from more than a minute ago in Prometheus, and in the service's own
# count of its writes.
window_full() {
	local t
	t=$(now)
	[ "$(promql "cputrack_cgroup_events_total{job=\"node\",cgroup=\"/$NAME/paced.service\",event=\"$WRITE\"} offset 61s" "$t")" != none ] &&
	    awk -v t="$t" 'NF == 2 && $1 <= t - 61 { f = 1 } END { exit !f }' "$D/paced_io.io"
}

@test "the rules' rate of a paced service, counted beside the others, is what it wrote within 2 %" {
	local scaled t wrote
	wait_for window_full
	t=$(now)
	scaled=$(promql "cgroup_event:cputrack_cgroup_events:rate1m{job=\"node\",cgroup=\"/$NAME/paced.service\",event=\"$WRITE\"}" "$t")
	# The service's own rate over the same minute.
	wrote=$(writes_rate paced_io "$t")
	echo "scaled $scaled, the service wrote $wrote a second"
	"$PY" -c 'import sys; v, w = map(float, sys.argv[1:]); sys.exit(abs(v - w) > w * 0.02)' "$scaled" "$wrote"
}

@test "everything stops: cputrack exits 0, having said nothing; nothing is left listening" {
	stop_daemons cputrack prometheus paced paced_io
	wait_for status_kept cputrack
	cat "$D/cputrack.err"
	[ "$(cat "$D/cputrack.rc")" -eq 0 ]
	[ ! -s "$D/cputrack.err" ]
	local p
	for p in "$CT_PORT" "$PROM_PORT"; do
		run ! curl -s -o /dev/null "http://127.0.0.1:$p/"
	done
}

