#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The node daemon as Kubernetes runs it, under a real container runtime:
# Debian's podman with runc. scripts/image builds the image from the
# Debian packages (the package_debs fixture's); the daemon runs from it
# with the security settings of the DaemonSet's pod template
# (dist/kubernetes/base/daemonset.yaml, with the tracepoints and seccomp
# overlays, turned into podman's options by k8s_podman): a pid namespace
# of its own (no hostPID), root with CAP_BPF and CAP_PERFMON alone (no
# CAP_SYS_PTRACE), no new privileges, the seccomp profile of the overlay,
# a read-only root, the host's cgroup hierarchy and tracefs read-only, the
# memory limit, and a cgroup namespace of its own. Two workload containers started
# after it (wl_hold, linked static, FROM scratch) make 1,000 and 2,000
# getpriority(2) calls: a container runtime makes write(2) calls in the
# container's cgroup before its program starts, getpriority none.
# Debian's Prometheus scrapes the daemon; each container's series has
# its container_id and runtime labels and its exact count. The daemon
# counts as exactly under containerd's and Docker's default seccomp
# profiles (tests/fleet/seccomp), what RuntimeDefault gives it on a node,
# and under an older default that refuses perf_event_open(2) without
# CAP_SYS_ADMIN says the seccomp filter refused it. The probes
# answer, and SIGTERM ends the daemon, status 0, before podman's
# 1-second SIGKILL would.
#
# Everything listens on 127.0.0.1, on free ports; the images, containers
# and Prometheus are the test's and are removed at the end.

bats_require_minimum_version 1.5.0

load fleet_helper

EVENT=syscalls:sys_enter_getpriority
RUNC=(--runtime runc --ulimit nofile=4096:4096 --ulimit nproc=4096:4096)

# podman_ready: podman and runc there (installed with apt where
# missing), and a container runs; otherwise why not, in $D/skip.
podman_ready() {
	local need='' p
	for p in podman runc; do
		command -v "$p" >/dev/null || need="$need $p"
	done
	if [ -n "$need" ]; then
		{
			apt-get update -qq &&
			    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			    --no-install-recommends $need
		} >"$D/apt-podman.log" 2>&1 ||
		    { echo "cannot install$need: $(tail -n 1 "$D/apt-podman.log")" >"$D/skip"; return 1; }
	fi
	if ! podman info >"$D/podman-info" 2>&1; then
		echo "podman cannot run here: $(tail -n 1 "$D/podman-info")" >"$D/skip"
		return 1
	fi
}

# build_workload: wl_hold, static, as the image $WL_IMAGE.
build_workload() {
	mkdir -p "$D/wl"
	cc -static -O2 -o "$D/wl/wl_hold" "$SOURCE_DIR/tests/workloads/wl_hold.c" &&
	    printf 'FROM scratch\nCOPY wl_hold /wl_hold\nENTRYPOINT ["/wl_hold"]\n' \
	    >"$D/wl/Containerfile" &&
	    podman build -q -t "$WL_IMAGE" "$D/wl" >"$D/wl/build.log" 2>&1
}

# start_daemon: the DaemonSet's container, counting $EVENT and the
# clock at half-second ticks, published on 127.0.0.1:$CT_PORT.
start_daemon() {
	local opts=() line k=$SOURCE_DIR/dist/kubernetes
	local patches=("$k/tracepoints/tracefs.yaml" "$k/seccomp/localhost.yaml")
	# podman makes a volume read-only at its top alone: on a hybrid host,
	# the unified hierarchy alone, as the cgroup-unified component has it.
	if grep -q ' /sys/fs/cgroup/unified .* - cgroup2 ' /proc/self/mountinfo; then
		patches+=("$k/cgroup-unified/unified.yaml")
	fi
	while IFS= read -r line; do
		[ "$line" = -- ] && break
		opts+=("$line")
	done < <("$SOURCE_DIR/tests/fleet/k8s_podman" \
	    "$k/base/daemonset.yaml" "${patches[@]}")
	printf '%s\n' "${opts[@]}" >"$D/daemon.opts"
	podman run -d --name "$NAME-daemon" "${RUNC[@]}" "${opts[@]}" \
	    -p "127.0.0.1:$CT_PORT:9419" "$IMAGE" \
	    --for-each-cgroup=/,depth=4,readonly --format=openmetrics --listen=:9419 \
	    --output=/dev/null -T 0.5 -c "$EVENT,task-clock" \
	    >"$D/daemon.id" 2>"$D/daemon.err"
}

# start_workload NAME N: a container making N calls; its id in $D/NAME.id.
start_workload() {
	mkdir -p "$D/$1"
	podman run -d --name "$NAME-$1" "${RUNC[@]}" -v "$D/$1:/out" \
	    "$WL_IMAGE" "$2" /out/done >"$D/$1.id" 2>"$D/$1.err"
}

setup_file() {
	export D=$BATS_FILE_TMPDIR
	export NAME=cpctools-test-$$ IMAGE=localhost/cpctools-test:$$
	export WL_IMAGE=localhost/cpctools-test-wl:$$ CT_PORT PROM_PORT
	local debs=${BUILD_DIR:-}/package/build-deb/packages
	[ "$(id -u)" -eq 0 ] ||
	    { echo "podman runs the daemon as root here" >"$D/skip"; return 0; }
	ls "$debs"/cpctools_*.deb >/dev/null 2>&1 ||
	    { echo "no packages in $debs (package.deb_build makes them)" >"$D/skip"; return 0; }
	podman_ready || return 0
	install_packages ||
	    { echo "cannot install prometheus: $(tail -1 "$D/apt.log" 2>/dev/null)" >"$D/skip"; return 0; }
	if ! [ -d /sys/kernel/tracing/events/syscalls ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	fi
	"$SOURCE_DIR/scripts/image" --debs "$debs" --tag "$IMAGE" \
	    --work "$BUILD_DIR/package/image" >"$D/image.out" 2>"$D/image.err" ||
	    { echo "scripts/image failed: $(tail -n 1 "$D/image.err")" >"$D/failed"; return 0; }
	build_workload ||
	    { echo "the workload image cannot be built: $(tail -n 1 "$D/wl/build.log")" >"$D/failed"; return 0; }
	CT_PORT=$(free_port)
	PROM_PORT=$(free_port)
	start_daemon || { echo "podman cannot run the daemon: $(cat "$D/daemon.err")" >"$D/failed"; return 0; }
	wait_http "http://127.0.0.1:$CT_PORT/-/ready" || true
	cat >"$D/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		scrape_configs:
		  - job_name: cpctools-node
		    static_configs:
		      - targets: ['127.0.0.1:$CT_PORT']
	EOF
	start_prometheus || true
	# After the daemon: counted from their first thread.
	start_workload one 1000
	start_workload two 2000
}

teardown_file() {
	stop_daemons prometheus
	podman rm -f -t 0 "$NAME-daemon" "$NAME-one" "$NAME-two" \
	    "$NAME-containerd" "$NAME-w-containerd" "$NAME-moby" \
	    "$NAME-w-moby" "$NAME-old" >/dev/null 2>&1 || true
	podman rmi -f "$IMAGE" "$WL_IMAGE" >/dev/null 2>&1 || true
}

setup() {
	[ ! -s "$D/failed" ] || fail "$(cat "$D/failed")"
	[ ! -s "$D/skip" ] || skip "$(cat "$D/skip")"
	[ -s "$D/prometheus.pid" ] || skip "Prometheus was not started"
}

# container_count NAME: Prometheus's value of the container's series.
container_count() {
	promql "cputrack_cgroup_events_total{job=\"cpctools-node\",event=\"$EVENT\",container_id=\"$(cat "$D/$1.id")\",runtime=\"podman\"}" "$(now)"
}

# counted NAME N: the container ran to its end and Prometheus has its N.
counted() {
	[ -e "$D/$1/done" ] && [ "$(container_count "$1")" = "$2" ]
}

@test "the image: FROM scratch, cputrack the entry point, labelled with its version and source, small" {
	local size
	cat "$D/image.err"
	[ "$(podman image inspect -f '{{index .Config.Entrypoint 0}}' "$IMAGE")" = /usr/bin/cputrack ]
	[ "$(podman image inspect -f '{{index .Config.Labels "org.opencontainers.image.version"}}' "$IMAGE")" = \
	    "$(dpkg-parsechangelog -l "$SOURCE_DIR/debian/changelog" -S Version)" ]
	[ -n "$(podman image inspect -f '{{index .Config.Labels "org.opencontainers.image.source"}}' "$IMAGE")" ]
	# One layer: the root the script made, nothing under it.
	[ "$(podman image inspect -f '{{len .RootFS.Layers}}' "$IMAGE")" -eq 1 ]
	size=$(podman image inspect -f '{{.Size}}' "$IMAGE")
	echo "size: $size bytes"
	[ "$size" -lt $((32 << 20)) ]
	# No shell, no package manager: cputrack's ELF closure and copyrights.
	run ! podman run --rm "${RUNC[@]}" --entrypoint /bin/sh "$IMAGE" -c true 2>/dev/null
	podman run --rm "${RUNC[@]}" "$IMAGE" --version | grep -q '^cputrack'
}

@test "the daemon runs with the pod template's settings alone: CAP_BPF and CAP_PERFMON, no new privileges, seccomp, root read-only, its own pid namespace" {
	local pid caps
	pid=$(podman inspect -f '{{.State.Pid}}' "$NAME-daemon")
	cat "$D/daemon.opts"
	[ "$pid" -gt 0 ]
	# CAP_PERFMON 38, CAP_BPF 39: nothing more (no CAP_SYS_PTRACE, 19),
	# and nothing more can be had.
	caps=$(printf '%016x' $(((1 << 38) | (1 << 39))))
	grep -qx "CapEff:	$caps" "/proc/$pid/status"
	grep -qx "CapBnd:	$caps" "/proc/$pid/status"
	grep -qx 'NoNewPrivs:	1' "/proc/$pid/status"
	grep -qx 'Seccomp:	2' "/proc/$pid/status"
	grep -qE '^Uid:	0	' "/proc/$pid/status"
	grep -qE ' / [^ ]* ro[, ]' "/proc/$pid/mountinfo"
	# Its cgroup namespace is its own, and the host's cgroups are named
	# as outside it.
	[ "$(readlink "/proc/$pid/ns/cgroup")" != "$(readlink /proc/self/ns/cgroup)" ]
	# So is its pid namespace, where it is the first process.
	run ! grep -qx -- --pid=host "$D/daemon.opts"
	[ "$(readlink "/proc/$pid/ns/pid")" != "$(readlink /proc/self/ns/pid)" ]
	grep -qE '^NSpid:	[0-9]+	1$' "/proc/$pid/status"
}

@test "each workload container, started after the daemon, has its container_id and its exact count in Prometheus" {
	wait_for counted one 1000 ||
	    { podman logs "$NAME-daemon"; curl -s "http://127.0.0.1:$CT_PORT/metrics" | grep libpod; false; }
	wait_for counted two 2000
	# Its cgroup, as the host names it (podman's cgroupfs layout).
	[ "$(promql "count(cputrack_cgroup_events_total{job=\"cpctools-node\",event=\"$EVENT\",cgroup=~\"/.*libpod-$(cat "$D/one.id").*\"})" "$(now)")" = 1 ]
}

# profile_daemon NAME PROFILE: the daemon as start_daemon has it, but
# under the seccomp profile PROFILE ("" for podman's own default), on a
# port of its own in $D/NAME.port; its container's name is $NAME-NAME.
profile_daemon() {
	local opts=() line port
	while IFS= read -r line; do
		[[ $line == --security-opt=seccomp=* ]] || opts+=("$line")
	done <"$D/daemon.opts"
	[ -z "$2" ] || opts+=("--security-opt=seccomp=$2")
	port=$(free_port)
	echo "$port" >"$D/$1.port"
	podman run -d --name "$NAME-$1" "${RUNC[@]}" "${opts[@]}" \
	    -p "127.0.0.1:$port:9419" "$IMAGE" \
	    --for-each-cgroup=/,depth=4,readonly --format=openmetrics \
	    --listen=:9419 --output=/dev/null -T 0.5 -c "$EVENT,task-clock" \
	    >/dev/null 2>"$D/$1.err"
}

# served_count NAME ID N: the daemon NAME serves container ID's count N.
served_count() {
	curl -sf "http://127.0.0.1:$(cat "$D/$1.port")/metrics" |
	    grep -E "^cputrack_cgroup_events_total\{.*container_id=\"$2\".*event=\"$EVENT\".*\} $3\$"
}

# counts_under NAME PROFILE: the daemon under PROFILE counts a workload
# container of 1,500 calls exactly, its seccomp filter on.
counts_under() {
	local pid
	profile_daemon "$1" "$2" ||
	    { echo "$1: $(cat "$D/$1.err")"; return 1; }
	wait_http "http://127.0.0.1:$(cat "$D/$1.port")/-/ready" ||
	    { podman logs "$NAME-$1"; return 1; }
	pid=$(podman inspect -f '{{.State.Pid}}' "$NAME-$1")
	grep -qx 'Seccomp:	2' "/proc/$pid/status" ||
	    { echo "$1: no seccomp filter"; return 1; }
	start_workload "w-$1" 1500
	wait_for served_count "$1" "$(cat "$D/w-$1.id")" 1500 ||
	    { podman logs "$NAME-$1"; return 1; }
	podman rm -f -t 0 "$NAME-$1" "$NAME-w-$1" >/dev/null
}

@test "under containerd's and Docker's default seccomp profiles, the daemon counts a container exactly" {
	counts_under containerd "$SOURCE_DIR/tests/fleet/seccomp/containerd-default.json"
	counts_under moby "$SOURCE_DIR/tests/fleet/seccomp/moby-default.json"
}

@test "under an older default that allows perf_event_open only with CAP_SYS_ADMIN, the refusal is said as the seccomp filter's, for each event" {
	admin_only_default ||
	    skip "podman's default profile here lets perf_event_open through without CAP_SYS_ADMIN"
	profile_daemon old ""
	wait_for container_ended "$NAME-old"
	podman logs "$NAME-old" >"$D/old.log" 2>&1
	cat "$D/old.log"
	podman rm -f -t 0 "$NAME-old" >/dev/null
	grep -q 'seccomp filter' "$D/old.log"
	run ! grep -q 'security module' "$D/old.log"
}

# admin_only_default: podman's own default profile (Debian 12's,
# containers-common 0.50) lets perf_event_open through only with
# CAP_SYS_ADMIN.
admin_only_default() {
	"$PY" - /usr/share/containers/seccomp.json <<-'PYEOF'
		import json, sys
		try:
		    rules = json.load(open(sys.argv[1]))["syscalls"]
		except OSError:
		    sys.exit(1)
		sys.exit(not any("perf_event_open" in r["names"] and
		    r.get("includes", {}).get("caps") == ["CAP_SYS_ADMIN"]
		    for r in rules))
	PYEOF
}

# container_ended NAME: podman says it exited.
container_ended() {
	[ "$(podman inspect -f '{{.State.Status}}' "$1")" = exited ]
}

@test "the probes: /-/healthy and /-/ready answer 200 with one line, no series" {
	[ "$(curl -sf "http://127.0.0.1:$CT_PORT/-/healthy")" = healthy ]
	[ "$(curl -sf "http://127.0.0.1:$CT_PORT/-/ready")" = ready ]
}

@test "SIGTERM, as the kubelet stops it: the daemon ends by itself, status 0, before podman's SIGKILL a second later" {
	podman stop -t 1 "$NAME-daemon" >/dev/null
	[ "$(podman inspect -f '{{.State.ExitCode}}' "$NAME-daemon")" = 0 ]
	podman logs "$NAME-daemon" >"$D/daemon.log" 2>&1
	cat "$D/daemon.log"
	[ ! -s "$D/daemon.log" ]
}
