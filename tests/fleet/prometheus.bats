#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cpustat in the monitoring engine servers already run, end to end, with
# Debian's own packages: Prometheus scrapes `cpustat --listen` every
# second, and node_exporter's textfile collector reads the file that
# `cpustat --format=openmetrics --output=FILE` replaces at each change
# (one cpustat does both: only one may count on a CPU at a time).
# Prometheus scrapes node_exporter too. A workload makes an exact number
# of getpriority(2) calls, a system call hardly anything else makes, on
# one CPU; the increase PromQL reports for that CPU and for
# syscalls:sys_enter_getpriority, through each route, is that number,
# give or take what the same span counts with no workload (none, on a
# quiet machine).
#
# Everything listens on 127.0.0.1 only, on free ports, with its own
# configuration and data in the test's directory, and is stopped by the
# test: nothing is left running. The packages are installed with apt
# where they are missing, with a policy-rc.d that keeps their services
# from starting.

bats_require_minimum_version 1.5.0
load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash

load fleet_helper

EVENT=syscalls:sys_enter_getpriority
CALLS=123457

# The one cpustat: /metrics on 127.0.0.1, the textfile, no rows; its exit
# status in cpustat.rc once it ends.
start_cpustat() {
	local try
	for try in $(seq 10); do
		watched cpustat "$CPUSTAT" --listen=127.0.0.1:"$CS_PORT" \
		    --format=openmetrics --output="$D/textfile/cpustat.prom" \
		    -c "$EVENT" 0.5 >"$D/cpustat.out" 2>"$D/cpustat.err"
		if wait_http "http://127.0.0.1:$CS_PORT/metrics" 10 &&
		    ! grep -qE 'Resource temporarily unavailable|went offline' "$D/cpustat.err"; then
			return 0
		fi
		stop_daemons cpustat
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 10 tries
	done
	return 1
}

setup_file() {
	export D=$BATS_FILE_TMPDIR
	[ -x "${CPUSTAT:-}" ] || return 0
	command -v curl >/dev/null || return 0
	if ! install_packages; then
		echo "cannot install prometheus and prometheus-node-exporter: $(tail -1 "$D/apt.log" 2>/dev/null)" >"$D/skip"
		return 0
	fi
	if ! [ -d /sys/kernel/tracing/events/syscalls/sys_enter_getpriority ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	fi
	[ -d /sys/kernel/tracing/events/syscalls/sys_enter_getpriority ] ||
		{ echo "no tracepoint $EVENT (tracefs)" >"$D/skip"; return 0; }
	export CS_PORT NE_PORT PROM_PORT CPU
	CS_PORT=$(free_port)
	NE_PORT=$(free_port)
	PROM_PORT=$(free_port)
	CPU=$("$PY" -c 'import os; print(max(os.sched_getaffinity(0)))')
	mkdir -p "$D/textfile"
	cat >"$D/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		scrape_configs:
		  - job_name: cpustat
		    static_configs:
		      - targets: ['127.0.0.1:$CS_PORT']
		  - job_name: node
		    static_configs:
		      - targets: ['127.0.0.1:$NE_PORT']
	EOF
	start_cpustat || { echo "cpustat would not start: $(cat "$D/cpustat.err")" >"$D/failed"; return 0; }
	prometheus-node-exporter --web.listen-address=127.0.0.1:"$NE_PORT" \
	    --collector.disable-defaults --collector.textfile \
	    --collector.textfile.directory="$D/textfile" >"$D/node.log" 2>&1 &
	remember node $!
	start_prometheus || true
	wait_http "http://127.0.0.1:$NE_PORT/metrics" 30 || true
}

# Stop what is ours, by pid, with SIGTERM (cpustat prints its totals,
# its status goes to cpustat.rc); then SIGKILL whatever did not stop.
stop_all() {
	stop_daemons cpustat prometheus node
	wait_for status_kept cpustat || true
}

teardown_file() {
	stop_all
}

setup() {
	fleet_ready CPUSTAT
	command -v curl >/dev/null || skip "curl is not installed"
}

# The series of the pinned CPU and the event, through a job.
series() {
	echo "cpustat_events_total{job=\"$1\",cpu=\"$CPU\",event=\"$EVENT\"}"
}

# increase JOB FROM TO: what PromQL reports the counter rose by between
# two instants, as the difference of the samples it holds then.
increase() {
	local ms
	ms=$("$PY" -c 'import sys; print(round((float(sys.argv[2]) - float(sys.argv[1])) * 1000))' "$2" "$3")
	promql "$(series "$1") - $(series "$1") offset ${ms}ms" "$3"
}

# wait_series JOB: until Prometheus holds the series through JOB.
wait_series() {
	wait_for has_series "$1"
}
has_series() {
	[[ $(promql "$(series "$1")" "$(now)") =~ ^[0-9]+$ ]]
}

@test "Debian's Prometheus and node_exporter run on the loopback, scraping cpustat and its textfile" {
	grep -q 'Server is ready to receive web requests' "$D/prometheus.log" ||
		wait_http "http://127.0.0.1:$PROM_PORT/-/ready" 30
	wait_series cpustat || { cat "$D/prometheus.log" "$D/cpustat.err"; false; }
	wait_series node || { cat "$D/node.log"; ls -l "$D/textfile"; false; }
	# Every listening socket of the three is on 127.0.0.1.
	local p pid inode
	for p in cpustat node prometheus; do
		pid=$(cat "$D/$p.pid")
		run "$PY" - "$pid" <<'EOF'
import os, sys
pid = sys.argv[1]
inodes = set()
for fd in os.listdir("/proc/%s/fd" % pid):
    try:
        link = os.readlink("/proc/%s/fd/%s" % (pid, fd))
    except OSError:
        continue
    if link.startswith("socket:["):
        inodes.add(link[8:-1])
listening = []
for table in ("tcp", "tcp6"):
    for line in list(open("/proc/%s/net/%s" % (pid, table)))[1:]:
        f = line.split()
        if f[9] in inodes and f[3] == "0A":
            listening.append((table, f[1]))
assert listening, "not listening"
for table, local in listening:
    addr = local.split(":")[0]
    assert table == "tcp" and addr == "0100007F", (table, local)
print(listening)
EOF
		echo "$p: $output"
		[ "$status" -eq 0 ]
	done
}

@test "promtool check metrics accepts what cpustat serves; a strict OpenMetrics parser takes what Prometheus and the textfile get" {
	curl -sf "http://127.0.0.1:$CS_PORT/metrics" >"$D/text.prom"
	promtool check metrics <"$D/text.prom"
	grep -q "^# TYPE cpustat_events_total counter$" "$D/text.prom"
	curl -sf -H 'Accept: application/openmetrics-text;version=1.0.0' \
	    "http://127.0.0.1:$CS_PORT/metrics" >"$D/om.prom"
	cp "$D/textfile/cpustat.prom" "$D/file.prom"
	"$PY" - "$D/om.prom" "$D/file.prom" <<'EOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
for path in sys.argv[1:]:
    text = open(path).read()
    assert text.endswith("# EOF\n"), path
    names = {f.name for f in text_string_to_metric_families(text)}
    assert "cpustat_events" in names, (path, names)
EOF
	# What node_exporter makes of the file, promtool takes too.
	curl -sf "http://127.0.0.1:$NE_PORT/metrics" | grep '^cpustat_\|^# .* cpustat_' >"$D/node.prom"
	promtool check metrics <"$D/node.prom"
}

@test "PromQL: the increase for the pinned CPU and the tracepoint is the workload's count, through --listen and through the textfile" {
	wait_series cpustat
	wait_series node
	# With no workload: what the event counts anyway in the same span.
	local t0 t1 t2 quiet_cs quiet_ne inc_cs inc_ne
	sleep 2
	t0=$(now)
	sleep 4
	t1=$(now)
	quiet_cs=$(increase cpustat "$t0" "$t1")
	quiet_ne=$(increase node "$t0" "$t1")
	# The workload, on CPU $CPU alone, and every count scraped after it.
	taskset -c "$CPU" "$WORKLOADS/wl_getpriority" "$CALLS"
	sleep 4
	t2=$(now)
	inc_cs=$(increase cpustat "$t1" "$t2")
	inc_ne=$(increase node "$t1" "$t2")
	echo "cpu $CPU, $EVENT: with no workload +$quiet_cs (--listen), +$quiet_ne (textfile);"
	echo "with $CALLS calls: +$inc_cs (--listen), +$inc_ne (textfile)"
	"$PY" - "$CALLS" "$quiet_cs" "$inc_cs" "$quiet_ne" "$inc_ne" <<'EOF'
import sys
calls = int(sys.argv[1])
for quiet, inc in ((sys.argv[2], sys.argv[3]), (sys.argv[4], sys.argv[5])):
    quiet, inc = float(quiet), float(inc)
    assert abs(inc - calls) <= quiet, (calls, inc, quiet)
EOF
	# The same through the per-set metadata Prometheus keeps.
	[ "$(promql 'cpustat_set_info{job="cpustat",set="0"}' "$t2")" = 1 ]
}

@test "everything stops: cpustat exits 0 with its totals, and nothing is left running or listening" {
	stop_all
	[ "$(cat "$D/cpustat.rc")" -eq 0 ]
	[ ! -s "$D/cpustat.err" ]
	local p
	for p in cpustat node prometheus; do
		[ -z "$(daemon_pid "$p")" ]
	done
	for p in "$CS_PORT" "$NE_PORT" "$PROM_PORT"; do
		run ! curl -s -o /dev/null "http://127.0.0.1:$p/"
	done
	# Where this test installed the packages, apt started neither
	# package's service: no prometheus or node_exporter runs that did not
	# run before the install, except with a loopback address of its own,
	# as this test's (and those of another run of it) are started.
	if [ -f "$D/daemons.before" ]; then
		daemons | while read -r pid args; do
			awk -v p="$pid" '$1 == p { f = 1 } END { exit !f }' \
			    "$D/daemons.before" && continue
			[[ " $args" == *" --web.listen-address=127.0.0.1:"* ]] && continue
			echo "started by the install and still running: $pid $args"
			exit 1
		done
	fi
}
