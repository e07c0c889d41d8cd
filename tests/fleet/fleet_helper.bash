# SPDX-License-Identifier: BSD-2-Clause
# Shared by the fleet tests: Debian's Prometheus installed where it is
# missing (its services kept from starting), free loopback ports, and
# queries of a Prometheus this test started ($PROM_PORT).
load ../cli/helper

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# fleet_ready VAR: each test's start: the command $VAR names (ctest sets
# it), and the daemons setup_file started, or why not: a failure where
# ours would not build, start or serve ($D/failed), a skip where the
# machine lacks what they need ($D/skip).
fleet_ready() {
	[ -x "${!1:-}" ] || fail "$1 must name the ${1,,} binary (ctest sets it)"
	[ ! -s "$D/failed" ] || fail "$(cat "$D/failed")"
	[ ! -s "$D/skip" ] || skip "$(cat "$D/skip")"
	[ -s "$D/prometheus.pid" ] || skip "Prometheus was not started"
}

# now: the time since the epoch, as PromQL's instants are given.
now() {
	"$PY" -c 'import time; print("%.3f" % time.time())'
}

# Install what is missing, services kept from starting.
install_packages() {
	local need='' p
	for p in prometheus prometheus-node-exporter; do
		command -v "$p" >/dev/null || need="$need $p"
	done
	[ -n "$need" ] || return 0
	[ "$(id -u)" -eq 0 ] || return 1
	# What runs already (another monitoring setup on this machine, another
	# test's instances) is not this install's.
	daemons >"$BATS_FILE_TMPDIR/daemons.before"
	command -v apt-get >/dev/null || return 1
	local ours=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		ours=1
	fi
	local rc=0
	{
		apt-get update -qq &&
		    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		    --no-install-recommends $need
	} >"$BATS_FILE_TMPDIR/apt.log" 2>&1 || rc=$?
	[ -z "$ours" ] || rm -f /usr/sbin/policy-rc.d
	return "$rc"
}

# daemons: the pid and arguments of each prometheus or node_exporter
# running on this machine, a line each.
daemons() {
	"$PY" - <<'EOF'
import os
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
    except OSError:
        continue
    name = os.path.basename(argv[0]).decode(errors="replace")
    if name in ("prometheus", "prometheus-node-exporter"):
        print(pid, *(a.decode(errors="replace") for a in argv[1:] if a))
EOF
}

free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_http URL: until URL answers 200. A second argument, a bound of
# its own that older callers give, is ignored: wait_for's is the bound.
wait_http() {
	wait_for http_ok "$1"
}
http_ok() {
	curl -sf -o /dev/null "$1"
}

# start_prometheus: Debian's Prometheus on 127.0.0.1:$PROM_PORT with
# $D/prometheus.yml, its data in $D/data, its log in $D/prometheus.log and
# its pid in $D/prometheus.pid; until it is ready.
start_prometheus() {
	mkdir -p "$D/data"
	prometheus --config.file="$D/prometheus.yml" --storage.tsdb.path="$D/data" \
	    --web.listen-address=127.0.0.1:"$PROM_PORT" \
	    --storage.tsdb.retention.time=1h >"$D/prometheus.log" 2>&1 &
	remember prometheus $!
	wait_http "http://127.0.0.1:$PROM_PORT/-/ready"
}

# remember NAME [PID]: daemon NAME is PID (by default, the pid already
# in $D/NAME.pid), kept in $D/NAME.pid with its start time in
# $D/NAME.start, so that daemon_pid knows it from a later one.
remember() {
	[ -z "$2" ] || echo "$2" >"$D/$1.pid"
	start_time "$(cat "$D/$1.pid")" >"$D/$1.start"
}

# watched NAME CMD...: CMD started in the background under a shell that
# waits for it; its pid goes to $D/NAME.pid (remembered) and, once it
# ends, its exit status to $D/NAME.rc. The tests, which stop it, are not
# its parent, so they could not learn its status otherwise.
watched() {
	local name=$1
	shift
	rm -f "$D/$name.pid" "$D/$name.rc"
	PIDF=$D/$name.pid RCF=$D/$name.rc bash -c \
	    '"$@" & echo $! >"$PIDF"; wait $!; echo $? >"$RCF"' sh "$@" &
	wait_filled "$D/$name.pid" && remember "$name"
}

# daemon_pid NAME: the pid in $D/NAME.pid while it is still the daemon
# remember saw there; nothing once it is gone or was never seen.
daemon_pid() {
	local p start
	[ -s "$D/$1.pid" ] && [ -s "$D/$1.start" ] || return 0
	p=$(cat "$D/$1.pid")
	start=$(start_time "$p")
	[ "$start" != "$(cat "$D/$1.start")" ] || echo "$p"
}

# cgroup_fleet_ready NAME [CHILD...]: for a file of cputrack's fleet
# tests: root, curl and Prometheus there, the cgroup $CG (NAME, with its
# CHILD cgroups) made under the cgroup2 mount $CGM, and tracefs mounted.
# Otherwise why not, in $D/skip, and status 1.
cgroup_fleet_ready() {
	local c
	[ "$(id -u)" -eq 0 ] ||
	    { echo "the BPF engine needs root" >"$D/skip"; return 1; }
	command -v curl >/dev/null ||
	    { echo "curl is not installed" >"$D/skip"; return 1; }
	if ! install_packages; then
		echo "cannot install prometheus: $(tail -1 "$D/apt.log" 2>/dev/null)" >"$D/skip"
		return 1
	fi
	CGM=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup2") print $5; break } }' \
	    /proc/self/mountinfo | head -n 1)
	[ -n "$CGM" ] ||
	    { echo "no cgroup v2 hierarchy is mounted here" >"$D/skip"; return 1; }
	CG=$CGM/$1
	mkdir "$CG" ||
	    { echo "cannot make a cgroup under $CGM" >"$D/skip"; return 1; }
	for c in "${@:2}"; do
		mkdir "$CG/$c"
	done
	if ! [ -d /sys/kernel/tracing/events/syscalls/sys_enter_write ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	fi
}

# status_kept NAME: the watched daemon NAME's exit status is in
# $D/NAME.rc, or it was never started.
status_kept() {
	[ -s "$D/$1.rc" ] || [ ! -s "$D/$1.pid" ]
}

# gone NAME: until daemon NAME is no more.
gone() {
	wait_for daemon_ended "$1"
}
# A zombie whose parent is gone (setup_file's shell) waits for a reaper
# that may never come: it has ended all the same (running says so).
daemon_ended() {
	local p
	p=$(daemon_pid "$1")
	[ -z "$p" ] || ! running "$p"
}

# stop_daemons NAME...: the daemons daemon_pid names, all sent SIGTERM
# at once; then each one not gone, SIGKILL.
stop_daemons() {
	local f p names=()
	for f in "$@"; do
		p=$(daemon_pid "$f")
		[ -n "$p" ] || continue
		kill -TERM "$p" 2>/dev/null || true
		names+=("$f")
	done
	for f in "${names[@]}"; do
		gone "$f" && continue
		p=$(daemon_pid "$f")
		[ -z "$p" ] || kill -KILL "$p" 2>/dev/null || true
		gone "$f" || true
	done
}

# promql EXPR TIME: the value of an instant query, or "none".
promql() {
	"$PY" - "$PROM_PORT" "$1" "$2" <<'EOF'
import json, sys, urllib.parse, urllib.request
port, expr, t = sys.argv[1:4]
url = "http://127.0.0.1:%s/api/v1/query?%s" % (port,
    urllib.parse.urlencode({"query": expr, "time": t}))
reply = json.load(urllib.request.urlopen(url, timeout=10))
assert reply["status"] == "success", reply
res = reply["data"]["result"]
print(res[0]["value"][1] if len(res) == 1 else "none" if not res else "many: %r" % res)
EOF
}

# start_incumbents: the machine's own monitoring, as a host that runs
# these tools has it: a Prometheus on 127.0.0.1:9090 and a node_exporter
# on 127.0.0.1:9100, the ports they take by default, unless something
# listens there already (which is the same case). The test's own daemons
# must go beside them on free ports; incumbents_alive checks they did.
start_incumbents() {
	mkdir -p "$D/incumbent"
	if ! curl -s -o /dev/null http://127.0.0.1:9090/; then
		printf 'global:\n  scrape_interval: 15s\n' >"$D/incumbent/prometheus.yml"
		prometheus --config.file="$D/incumbent/prometheus.yml" \
		    --storage.tsdb.path="$D/incumbent/data" \
		    --web.listen-address=127.0.0.1:9090 \
		    >"$D/incumbent/prometheus.log" 2>&1 &
		remember incumbent_prometheus $!
	fi
	if ! curl -s -o /dev/null http://127.0.0.1:9100/; then
		prometheus-node-exporter --web.listen-address=127.0.0.1:9100 \
		    --collector.disable-defaults --collector.loadavg \
		    >"$D/incumbent/node.log" 2>&1 &
		remember incumbent_node $!
	fi
	wait_http http://127.0.0.1:9090/-/ready &&
	    wait_http http://127.0.0.1:9100/metrics
}

# incumbents_alive: both still answer, and those started here still run.
incumbents_alive() {
	local f
	curl -sf -o /dev/null http://127.0.0.1:9090/-/ready &&
	    curl -sf -o /dev/null http://127.0.0.1:9100/metrics || return 1
	for f in incumbent_prometheus incumbent_node; do
		[ ! -s "$D/$f.pid" ] || [ -n "$(daemon_pid "$f")" ] || return 1
	done
}

# count_writes NAME CGROUP: in the background (remembered as NAME), the
# write calls the processes of CGROUP made, read from the kernel's own
# count of each (/proc/PID/io) ten times a second, each line "TIME
# TOTAL" in $D/NAME.io; a process that left keeps its last count. A
# paced service writes late on a busy machine: its rate is what it did.
count_writes() {
	"$PY" - "$2" >"$D/$1.io" 2>/dev/null <<'PYEOF' &
import sys, time
procs, last = sys.argv[1] + "/cgroup.procs", {}
while True:
    try:
        pids = open(procs).read().split()
    except OSError:
        pids = []
    for pid in pids:
        try:
            for line in open("/proc/%s/io" % pid):
                if line.startswith("syscw:"):
                    last[pid] = int(line.split()[1])
        except OSError:
            pass
    print("%.3f %d" % (time.time(), sum(last.values())), flush=True)
    time.sleep(0.1)
PYEOF
	remember "$1" $!
}

# writes_rate NAME T: the write calls a second that count_writes NAME saw
# over the minute before the instant T, once it has read past T.
writes_rate() {
	"$PY" - "$D/$1.io" "$2" <<'PYEOF'
import sys, time
t = float(sys.argv[2])
def readings():
    return [tuple(map(float, l.split())) for l in open(sys.argv[1])
            if len(l.split()) == 2]
deadline = time.monotonic() + 60
while (rows := readings())[-1][0] < t and time.monotonic() < deadline:
    time.sleep(0.1)
def at(when):
    for (t0, n0), (t1, n1) in zip(rows, rows[1:]):
        if t0 <= when <= t1:
            return n0 + (n1 - n0) * (when - t0) / (t1 - t0)
    sys.exit("no count of the writes around %.3f" % when)
print("%.1f" % ((at(t) - at(t - 60)) / 60))
PYEOF
}
