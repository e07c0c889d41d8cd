#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# Pods by name, end to end: a Burstable pod laid out as the kubelet's
# systemd driver makes it under a kubelet root of the test's (the pod's
# cgroup, its sandbox's and its container app's, each with a process: wl_hold,
# 1,000 getpriority(2) calls in app, none in the sandbox); cputrack
# --for-each-cgroup counts them as the DaemonSet does; a made-up
# kube-state-metrics (a file served on loopback) names the pod and app;
# Debian's Prometheus scrapes both and evaluates the shipped rules. Each
# container's series is named (the sandbox, which kube-state-metrics does
# not list, "<unlisted>"), app's count is exact, and each query of the
# dashboard's per-pod row returns series: those of instructions per cycle
# and TopDown only where a hardware PMU counts them.

bats_require_minimum_version 1.5.0

load fleet_helper

EVENT=syscalls:sys_enter_getpriority
UID_=0f2c6a1e-9b3d-4c5e-8f70-1a2b3c4d5e6f
APP=4b825dc642cb6eb9a060e54bf8d69288fbee4904aa1b2c3d4e5f60718293a4b5
PAUSE=a94a8fe5ccb19ba61c4c0873d391e987982fbbd3b9e9c8a7f6e5d4c3b2a19087

# in_cgroup DIR N NAME: wl_hold making N calls, started in DIR.
in_cgroup() {
	sh -c 'echo $$ >"$1/cgroup.procs"; exec "$2" "$3" "$4"' sh "$1" \
	    "$WORKLOADS/wl_hold" "$2" "$D/$3.done" >/dev/null 2>&1 &
	remember "$3" $!
}

setup_file() {
	export D=$BATS_FILE_TMPDIR
	[ -x "${CPUTRACK:-}" ] || return 0
	export CGM CG POD CT_PORT PROM_PORT KSM_PORT
	# A kubelet root as kind's nodes have it (--cgroup-root), in systemd's
	# chain of slices from the hierarchy's root: only root makes those.
	# Short, so that the container's path stays under the 255 bytes of a
	# cgroup label (longer ones are shortened, cpctools-output(5)).
	local root=cpt$$
	local qos=$root-kubepods.slice/$root-kubepods-burstable.slice
	local pod=$root-kubepods-burstable-pod${UID_//-/_}.slice
	cgroup_fleet_ready "$root.slice" "$root-kubepods.slice" "$qos" \
	    "$qos/$pod" "$qos/$pod/cri-containerd-$APP.scope" \
	    "$qos/$pod/cri-containerd-$PAUSE.scope" || return 0
	POD=$CG/$qos/$pod
	CT_PORT=$(free_port)
	PROM_PORT=$(free_port)
	KSM_PORT=$(free_port)
	watched cputrack "$CPUTRACK" --for-each-cgroup="$CG,depth=4" \
	    --format=openmetrics --listen=127.0.0.1:"$CT_PORT" -o /dev/null \
	    -T 0.5 -c "$EVENT,task-clock" >/dev/null 2>"$D/cputrack.err"
	wait_http "http://127.0.0.1:$CT_PORT/-/ready" ||
	    { echo "cputrack would not serve: $(cat "$D/cputrack.err")" >"$D/failed"; return 0; }
	in_cgroup "$POD/cri-containerd-$APP.scope" 1000 app
	in_cgroup "$POD/cri-containerd-$PAUSE.scope" 0 pause
	mkdir -p "$D/ksm"
	cat >"$D/ksm/metrics" <<-EOF
		kube_pod_info{namespace="shop",pod="web-5d8f",uid="$UID_",node="n"} 1
		kube_pod_container_info{namespace="shop",pod="web-5d8f",uid="$UID_",container="app",container_id="containerd://$APP"} 1
	EOF
	(cd "$D/ksm" && exec "$PY" -m http.server --bind 127.0.0.1 "$KSM_PORT") \
	    >/dev/null 2>&1 &
	remember ksm $!
	cat >"$D/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		  evaluation_interval: 1s
		rule_files:
		  - $SOURCE_DIR/dist/prometheus/cpctools.rules.yml
		scrape_configs:
		  - job_name: cpctools-node
		    static_configs:
		      - targets: ['127.0.0.1:$CT_PORT']
		  - job_name: kube-state-metrics
		    honor_labels: true
		    static_configs:
		      - targets: ['127.0.0.1:$KSM_PORT']
	EOF
	start_prometheus || true
}

teardown_file() {
	stop_daemons cputrack prometheus ksm app pause
	local c
	for c in "cri-containerd-$APP.scope" "cri-containerd-$PAUSE.scope" ""; do
		[ -n "${POD:-}" ] && rmdir "$POD/$c" 2>/dev/null || true
	done
	[ -n "${CG:-}" ] && rmdir "${POD%/*}" "${POD%/*/*}" "$CG" 2>/dev/null || true
}

setup() {
	fleet_ready CPUTRACK
}

# has_value QUERY: the instant query has a value.
has_value() {
	[[ $(promql "$1" "$(now)") =~ ^[0-9.e+-]+$ ]]
}

@test "each container is named by the join with kube-state-metrics, the sandbox unlisted, and app's count is exact" {
	wait_for has_value "container_event:cputrack_cgroup_events:rate1m{namespace=\"shop\",pod=\"web-5d8f\",container=\"app\",event=\"$EVENT\"}" ||
	    { cat "$D/prometheus.log" "$D/cputrack.err"; false; }
	wait_for has_value "container_event:cputrack_cgroup_events:rate1m{namespace=\"shop\",pod=\"web-5d8f\",container=\"<unlisted>\",event=\"task-clock\"} or container_event:cputrack_cgroup_events:rate1m{namespace=\"shop\",pod=\"web-5d8f\",container=\"<unlisted>\",event=\"$EVENT\"}"
	[ -e "$D/app.done" ]
	[ "$(promql "cputrack_cgroup_events_total{job=\"cpctools-node\",event=\"$EVENT\",pod_uid=\"$UID_\",container_id=\"$APP\",qos_class=\"Burstable\",runtime=\"containerd\"} * on (container_id) group_left (container) container_id:cpctools_kube_container:info" "$(now)")" = 1000 ]
}

@test "the dashboard's per-pod row: each query returns series (IPC and TopDown where a hardware PMU counts them)" {
	wait_for has_value "pod:cputrack_cpus_utilized:rate1m{namespace=\"shop\"}"
	local pmu=
	[ -e /sys/bus/event_source/devices/cpu/events/instructions ] ||
	    [ -e /sys/bus/event_source/devices/cpu_core ] || pmu="no hardware PMU here"
	"$PY" - "$SOURCE_DIR/dist/grafana/cpctools-dashboard.json" "$PROM_PORT" "$pmu" <<'EOF'
import json, sys, urllib.parse, urllib.request
path, port, nopmu = sys.argv[1:4]
dash = json.load(open(path))
panels, inrow = [], False
for p in dash["panels"]:
    if p["type"] == "row":
        inrow = p["title"].startswith("Per pod")
        continue
    if inrow:
        panels.append(p)
assert len(panels) == 5, [p["title"] for p in panels]
for p in panels:
    expr = p["targets"][0]["expr"]
    expr = (expr.replace("$job", ".*").replace("$namespace", ".*")
            .replace("$event", ".*"))
    url = "http://127.0.0.1:%s/api/v1/query?%s" % (port,
        urllib.parse.urlencode({"query": expr}))
    reply = json.load(urllib.request.urlopen(url, timeout=10))
    assert reply["status"] == "success", (p["title"], reply)
    n = len(reply["data"]["result"])
    hw = "per cycle" in p["title"] or "TopDown" in p["title"]
    print("%-40s %d series%s" % (p["title"], n,
          " (%s)" % nopmu if hw and nopmu else ""))
    if hw and nopmu:
        continue
    assert n > 0, p["title"]
EOF
}
