#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cputrack as a service's exporter, end to end: a "service" in a real
# cgroup v2 directory makes write(2) calls at an exactly known pace
# (wl_paced); cputrack --cgroup --listen counts it with two sets taking
# turns at its ticks; Debian's Prometheus scrapes it every second and evaluates the
# shipped rules (dist/prometheus/cpctools.rules.yml). The service is
# restarted inside the cgroup: a new process, a new pid. The cgroup's
# series goes on without a reset, and the rules' scaled rate of each set
# is the rate at which the service wrote (the kernel's own count of its
# write calls) within 2 %, where each set's raw rate is only its share
# of it; the rules' CPUs utilized of the one-thread service, from
# the task-clock of one set, is above 0 and at most 1.
#
# Everything listens on 127.0.0.1, on free ports, with its own
# configuration and data in the test's directory, and is stopped by the
# test.

bats_require_minimum_version 1.5.0

load fleet_helper

WRITE=syscalls:sys_enter_write
RATE=2000

# start_service: the service's process puts itself into the cgroup and
# runs the paced workload; its pid in $D/svc.pid.
start_service() {
	sh -c 'echo $$ >"$1/cgroup.procs"; exec "$2" "$3"' sh "$CG" \
	    "$WORKLOADS/wl_paced" "$RATE" >/dev/null 2>&1 &
	remember svc $!
}

stop_service() {
	stop_daemons svc
}

start_cputrack() {
	watched cputrack "$CPUTRACK" --cgroup="$CG" -T 0.5 \
	    --format=openmetrics --listen=127.0.0.1:"$CT_PORT" -o /dev/null \
	    -c "$WRITE" -c "$WRITE,task-clock" \
	    >"$D/cputrack.out" 2>"$D/cputrack.err"
	wait_http "http://127.0.0.1:$CT_PORT/metrics" 30
}

setup_file() {
	export D=$BATS_FILE_TMPDIR
	[ -x "${CPUTRACK:-}" ] || return 0
	export CGM CG CT_PORT PROM_PORT
	cgroup_fleet_ready cpctools-fleet-$$ || return 0
	start_incumbents ||
	    { echo "the machine's own Prometheus or node_exporter would not start" >"$D/skip"; return 0; }
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
		  - job_name: cputrack
		    static_configs:
		      - targets: ['127.0.0.1:$CT_PORT']
	EOF
	start_service
	count_writes svc_io "$CG"
	if ! start_cputrack; then
		echo "cputrack would not serve: $(cat "$D/cputrack.err")" >"$D/failed"
		return 0
	fi
	start_prometheus || true
}

stop_all() {
	stop_daemons cputrack prometheus
	wait_for status_kept cputrack || true
	[ -s "$D/svc.pid" ] && stop_service
}


teardown_file() {
	stop_all
	stop_daemons incumbent_prometheus incumbent_node svc_io
	[ -n "${CG:-}" ] && rmdir "$CG" 2>/dev/null || true
}

setup() {
	fleet_ready CPUTRACK
}

# wait_value EXPR: until the instant query EXPR has one numeric value.
wait_value() {
	wait_for has_value "$1"
}
has_value() {
	[[ $(promql "$1" "$(now)") =~ ^[0-9.e+-]+$ ]]
}

# within PERCENT VALUE WANT
within() {
	"$PY" -c 'import sys; p, v, w = map(float, sys.argv[1:]); sys.exit(abs(v - w) > w * p / 100)' "$@"
}

@test "through a restart of the service in its cgroup the series goes on, and the rules' scaled rate of each set is what it wrote within 2 %" {
	local set scaled raw old new t wrote
	old=$(cat "$D/svc.pid")
	echo "$old" >"$D/old.pid"
	wait_value "cgroup_event:cputrack_cgroup_events:rate1m{job=\"cputrack\",set=\"1\"}" ||
	    { cat "$D/prometheus.log" "$D/cputrack.err"; false; }
	# The first process, then the second, till the rules' whole window
	# (1m) holds samples of the run: rate() then extrapolates nothing.
	sleep 35
	stop_service
	start_service
	new=$(cat "$D/svc.pid")
	sleep 30
	t=$(now)
	wrote=$(writes_rate svc_io "$t")
	for set in 0 1; do
		scaled=$(promql "cgroup_event:cputrack_cgroup_events:rate1m{job=\"cputrack\",cgroup=\"/${CG#"$CGM"/}\",event=\"$WRITE\",set=\"$set\"}" "$t")
		raw=$(promql "rate(cputrack_cgroup_events_total{job=\"cputrack\",event=\"$WRITE\",set=\"$set\"}[1m])" "$t")
		echo "set $set: scaled $scaled, raw $raw, the service wrote $wrote a second"
		within 2 "$scaled" "$wrote"
		# The sets took turns: each counted only part of the time.
		"$PY" -c 'import sys; r, w = map(float, sys.argv[1:]); sys.exit(not 0.2 * w < r < 0.8 * w)' "$raw" "$wrote"
		# One series throughout: no reset at the restart.
		[ "$(promql "resets(cputrack_cgroup_events_total{job=\"cputrack\",event=\"$WRITE\",set=\"$set\"}[2m])" "$t")" = 0 ]
	done
	# CPUs utilized from set 1's task-clock, scaled by its share of the
	# time: the service is one thread, and its two processes never ran
	# at once, so more than 0 and at most 1 CPU (2 % over for rate()'s
	# extrapolation, as above).
	scaled=$(promql "cgroup:cputrack_cpus_utilized:rate1m{job=\"cputrack\",cgroup=\"/${CG#"$CGM"/}\"}" "$t")
	echo "CPUs utilized: $scaled"
	"$PY" -c 'import sys; v = float(sys.argv[1]); sys.exit(not 0 < v <= 1.02)' "$scaled"
	# The restarted service is a new process: a new pid label.
	[[ $(promql "max(cputrack_process_events_total{job=\"cputrack\",pid=\"$old\",set=\"0\"})" "$t") =~ ^[0-9]+$ ]]
	[[ $(promql "max(cputrack_process_events_total{job=\"cputrack\",pid=\"$new\",set=\"0\"})" "$t") =~ ^[0-9]+$ ]]
}

@test "the Grafana dashboard: its panels are whole, each query is one Prometheus takes, and the service's show its series" {
	"$PY" - "$SOURCE_DIR/dist/grafana/cpctools-dashboard.json" "$PROM_PORT" \
	    "/${CG#"$CGM"/}" <<'EOF'
import json, sys, urllib.parse, urllib.request
path, port, cgroup = sys.argv[1:4]
dash = json.load(open(path))
assert dash["uid"] and dash["title"] and dash["schemaVersion"] >= 30
names = [v["name"] for v in dash["templating"]["list"]]
assert names[0] == "datasource", names
ids, exprs = set(), []
for p in dash["panels"]:
    assert p["id"] not in ids, p["id"]
    ids.add(p["id"])
    g = p["gridPos"]
    assert g["x"] + g["w"] <= 24 and g["w"] > 0 and g["h"] > 0, p["title"]
    for t in p.get("targets", []):
        assert t["datasource"]["uid"] == "${datasource}", p["title"]
        exprs.append((p["title"], t["expr"]))
for v in dash["templating"]["list"][1:]:
    q = v["query"]["query"]
    assert q.startswith("label_values(") and q.endswith(")"), q
    exprs.append((v["name"], q[len("label_values("):].rsplit(",", 1)[0]))
assert len(exprs) >= 10, exprs
def query(expr):
    url = "http://127.0.0.1:%s/api/v1/query?%s" % (port,
        urllib.parse.urlencode({"query": expr}))
    try:
        reply = json.load(urllib.request.urlopen(url, timeout=10))
    except urllib.error.HTTPError as e:
        reply = json.load(e)
    assert reply["status"] == "success", (expr, reply)
    return reply["data"]["result"]
for title, expr in exprs:
    expr = (expr.replace("$__rate_interval", "1m").replace("$job", ".*")
            .replace("$cgroup", cgroup).replace("$event", ".*")
            .replace("$namespace", ".*"))
    result = query(expr)
    print("%-45s %d series" % (title, len(result)))
    if title == "Events a second, per service":
        assert len(result) == 2, result  # one per set
    if title == "CPUs utilized, per service":
        # One, from the set that counts task-clock: a one-thread service.
        assert len(result) == 1 and 0 < float(result[0]["value"][1]) <= 1.05, result
EOF
}

@test "a Prometheus and a node_exporter of the machine's own, on their usual ports, ran beside it all along, untouched" {
	incumbents_alive
}

@test "everything stops: cputrack exits 0, having said only that a signal ended the first service; nothing is left listening" {
	stop_all
	cat "$D/cputrack.err"
	[ "$(cat "$D/cputrack.rc")" -eq 0 ]
	grep -qxE "cputrack: $(cat "$D/old.pid"): process terminated: killed by SIG[A-Z]+" "$D/cputrack.err"
	[ "$(wc -l <"$D/cputrack.err")" -eq 1 ]
	local p
	for p in cputrack prometheus; do
		[ -z "$(daemon_pid "$p")" ]
	done
	for p in "$CT_PORT" "$PROM_PORT"; do
		run ! curl -s -o /dev/null "http://127.0.0.1:$p/"
	done
}
