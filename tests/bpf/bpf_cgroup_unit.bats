#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# dist/cpctools-cputrack-exporter@.service: a template unit, the instance
# naming the cgroup; and dist/cpctools-node-exporter.service, every cgroup
# of the machine apart. Each is installed, never enabled, accepted by
# systemd-analyze and rated 2.5 or lower by its security review; and its
# command line, as systemd would run it with its environment, exports
# real cgroups' counts exactly and stops at SIGTERM with status 0. The
# node unit's runs as a user of its own with the unit's capabilities
# alone: CAP_BPF and CAP_PERFMON, no CAP_SYS_PTRACE.

load bpf_helper

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

setup() {
	bd_setup
	SRC=${SOURCE_DIR:-$BATS_TEST_DIRNAME/../..}
	command -v cmake >/dev/null || skip "cmake is not installed"
	cmake -S "$SRC" -B "$T/b" -DCMAKE_INSTALL_PREFIX="$T/prefix" \
	    >"$T/cmake.log" 2>&1 || { cat "$T/cmake.log"; false; }
	UNIT=$T/b/cmd/cpctools-cputrack-exporter@.service
	NODE=$T/b/cmd/cpctools-node-exporter.service
	mkdir -p "$T/prefix/bin"
	command_copy "$CPUTRACK" "$T/prefix/bin" >/dev/null
}

teardown() {
	if [ -n "${CG:-}" ]; then
		find "$CG" -name cgroup.procs -exec cat {} + 2>/dev/null |
		    while read -r p; do kill -KILL "$p" 2>/dev/null || true; done
	fi
	ct_teardown
	[ -z "${CG:-}" ] ||
	    find "$CG" -depth -type d -exec rmdir {} + 2>/dev/null || true
}

# instance_file INSTANCE: the unit as systemd would load that instance.
instance_file() {
	cp "$UNIT" "$T/cpctools-cputrack-exporter@$1.service"
	echo "$T/cpctools-cputrack-exporter@$1.service"
}

# unit_argv INSTANCE LISTEN EVENTS [UNIT [VAR=VALUE...]]: argv, the unit's
# ExecStart for the instance (%I its unescaped name), with its
# Environment= and CPUTRACK_LISTEN, CPUTRACK_EVENTS and the others given
# set as "systemctl edit" would (unit_argv.py).
unit_argv() {
	"$PY" "$BATS_TEST_DIRNAME/../cli/unit_argv.py" "${4:-$UNIT}" \
	    "%I=$(systemd-escape --unescape "$1")" CPUTRACK_LISTEN="$2" \
	    CPUTRACK_EVENTS="$3" "${@:5}" >"$T/argv"
	mapfile -t argv <"$T/argv"
}

# made_cgroup NAME: a cgroup NAME under the cgroup2 mount, as $CG.
made_cgroup() {
	local cgm
	cgm=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup2") print $5; break } }' \
	    /proc/self/mountinfo | head -n 1)
	[ -n "$cgm" ] || skip "no cgroup v2 hierarchy is mounted here"
	mkdir "$cgm/$1" || skip "cannot make a cgroup under $cgm"
	CG=$cgm/$1
}

free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

@test "the template unit is installed under lib/systemd/system and left disabled; its instance names the cgroup" {
	grep -F 'file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system" TYPE FILE FILES "'"$UNIT"'")' \
	    "$T/b/cmd/cmake_install.cmake"
	run ! grep -rq 'wants' "$T/b/cmd/cmake_install.cmake"
	grep -qx 'WantedBy=multi-user.target' "$UNIT"
	grep -qx "ExecStart=$T/prefix/bin/cputrack --cgroup=/%I --format=openmetrics --listen=\${CPUTRACK_LISTEN} --output=/dev/null -T \${CPUTRACK_INTERVAL} \$CPUTRACK_EVENTS" "$UNIT"
	grep -qx 'Environment=CPUTRACK_LISTEN=127.0.0.1:9418' "$UNIT"
	grep -qx 'IPAddressAllow=localhost' "$UNIT"
}

@test "systemd-analyze verify accepts an instance of the unit" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
	run systemd-analyze verify --man=no "$(instance_file system.slice-nginx.service)"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "systemd-analyze security rates the unit 2.5 or lower" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (Debian's systemd package)"
	systemd-analyze security --help 2>&1 | grep -q -- '--offline' ||
		skip "this systemd-analyze cannot review a unit file offline (systemd 250 or later can)"
	local f
	f=$(instance_file system.slice-nginx.service)
	run systemd-analyze security --offline=yes --no-pager "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	systemd-analyze security --offline=yes --no-pager --threshold=25 "$f" >/dev/null
}

# scraped PORT GREP_ARGS...: /metrics on 127.0.0.1:PORT, kept in $T/m,
# has a line that grep -q GREP_ARGS finds.
scraped() {
	curl -sf "http://127.0.0.1:$1/metrics" >"$T/m" && grep -q "${@:2}" "$T/m"
}

@test "its command, run as systemd runs it for an instance, exports the cgroup's counts exactly; SIGTERM stops it, status 0" {
	command -v systemd-escape >/dev/null || skip "systemd-escape is not installed (Debian's systemd package)"
	local name=cpctools-unit-$$-$BATS_TEST_NUMBER port
	made_cgroup "$name"
	port=$(free_port)
	unit_argv "$(systemd-escape --path "/$name")" "127.0.0.1:$port" "-c $WRITE"
	echo "${argv[*]}"
	[ "${argv[0]}" = "$T/prefix/bin/cputrack" ]
	[ "${argv[1]}" = "--cgroup=/$name" ]
	mkfifo "$T/gate"
	"$W/wl_gate" 2 25 <"$T/gate" >"$T/target.out" &
	TPID=$!
	ct_bg "$TPID"
	exec 7>"$T/gate"
	wait_line "$T/target.out" '^ready$'
	echo "$TPID" >"$CG/cgroup.procs"
	"${argv[@]}" >"$T/rows" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	local series="cputrack_cgroup_events_total{cgroup=\"/$name\",event=\"$WRITE\",set=\"0\"}"
	wait_while "$CPID" scraped "$port" -F "$series "
	echo >&7
	exec 7>&-
	wait "$TPID"
	wait_while "$CPID" scraped "$port" -xF "$series 50" ||
	    { cat "$T/m" "$T/err"; false; }
	kill -TERM "$CPID"
	wait "$CPID"
	[ ! -s "$T/err" ]
	[ ! -s "$T/rows" ]
}

@test "the node unit is installed under lib/systemd/system and left disabled; it counts every cgroup apart, on loopback" {
	grep -F 'file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system" TYPE FILE FILES "'"$NODE"'")' \
	    "$T/b/cmd/cmake_install.cmake"
	grep -qx 'WantedBy=multi-user.target' "$NODE"
	grep -qx "ExecStart=$T/prefix/bin/cputrack --for-each-cgroup=\${CPUTRACK_CGROUPS} --format=openmetrics --listen=\${CPUTRACK_LISTEN} --output=/dev/null -T \${CPUTRACK_INTERVAL} \$CPUTRACK_EVENTS" "$NODE"
	grep -qx 'Environment="CPUTRACK_CGROUPS=/,depth=3"' "$NODE"
	grep -qx 'Environment=CPUTRACK_LISTEN=127.0.0.1:9419' "$NODE"
	grep -qx 'IPAddressAllow=localhost' "$NODE"
	# The sandbox is the template's, less CAP_SYS_PTRACE and the filter
	# of process_vm_writev that goes with it.
	grep -qx 'AmbientCapabilities=CAP_BPF CAP_PERFMON' "$NODE"
	grep -qx 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON' "$NODE"
	diff <(sandbox_of "$UNIT" | sed -e 's/ CAP_SYS_PTRACE$//' \
	    -e '/^SystemCallFilter=~process_vm_writev$/d') \
	    <(sandbox_of "$NODE")
}

# sandbox_of UNIT: its settings from Restart= on, without comments.
sandbox_of() {
	sed -n '/^Restart=/,$p' "$1" | grep -v '^#'
}

# unit_caps UNIT: its AmbientCapabilities= as setpriv takes them
# (+bpf,+perfmon).
unit_caps() {
	sed -n 's/^AmbientCapabilities=//p' "$1" | tr 'A-Z ' 'a-z\n' |
	    sed 's/^cap_/+/' | paste -sd, -
}

@test "systemd-analyze verify accepts the node unit, and its security review rates it 2.5 or lower" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
	cp "$NODE" "$T/cpctools-node-exporter.service"
	run systemd-analyze verify --man=no "$T/cpctools-node-exporter.service"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	systemd-analyze security --help 2>&1 | grep -q -- '--offline' ||
		skip "this systemd-analyze cannot review a unit file offline (systemd 250 or later can)"
	systemd-analyze security --offline=yes --no-pager --threshold=25 \
	    "$T/cpctools-node-exporter.service" >/dev/null
}

@test "the node unit's command, as systemd runs it (a user of its own, the unit's capabilities alone), exports each cgroup below its directory apart, exactly; SIGTERM stops it, status 0" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local name=cpctools-node-$$-$BATS_TEST_NUMBER port svc out caps tp uid
	made_cgroup "$name"
	mkdir "$CG/a.service" "$CG/b.service" "$CG/b.service/deeper"
	port=$(free_port)
	# tracefs is root's: the tracepoint is named by its id.
	tp=$(cat /sys/kernel/tracing/events/syscalls/sys_enter_write/id)
	unit_argv node "127.0.0.1:$port" "-c tracepoint/config=$tp/" "$NODE" \
	    CPUTRACK_CGROUPS="/$name,depth=1"
	echo "${argv[*]}"
	[ "${argv[1]}" = "--for-each-cgroup=/$name,depth=1" ]
	# DynamicUser=, AmbientCapabilities=, CapabilityBoundingSet=,
	# NoNewPrivileges=: the installed command, where that user reaches it.
	nobody_dir >/dev/null
	chmod 755 "$T" "$T/prefix" "$T/prefix/bin"
	caps=$(unit_caps "$NODE")
	[ "$caps" = +bpf,+perfmon ]
	uid=$((61184 + $$ % 4000))
	setpriv --reuid="$uid" --regid="$uid" --clear-groups \
	    --inh-caps=-all,"$caps" --ambient-caps=-all,"$caps" \
	    --bounding-set=-all,"$caps" --no-new-privs -- \
	    "${argv[@]}" >"$T/rows" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_while "$CPID" scraped "$port" -F "cgroup=\"/$name\""
	# Each waits at its gate, outside, and is moved into its cgroup.
	for svc in a.service:10 b.service/deeper:20; do
		mkfifo "$T/gate"
		# A file of its own: the job truncates it after the gate opens,
		# and the last one's "ready" would let it be moved too early.
		out="$T/target-${svc%%/*}.out"
		"$W/wl_gate" 1 "${svc#*:}" <"$T/gate" >"$out" &
		TPID=$!
		ct_bg "$TPID"
		exec 7>"$T/gate"
		wait_line "$out" '^ready$'
		echo "$TPID" >"$CG/${svc%:*}/cgroup.procs"
		echo >&7
		exec 7>&-
		wait "$TPID"
		rm "$T/gate"
	done
	local series="cputrack_cgroup_events_total{cgroup=\"/$name/%s\",event=\"tracepoint/config=$tp/\",set=\"0\"} %s"
	# shellcheck disable=SC2059 # the format is the series'
	wait_while "$CPID" scraped "$port" -xF "$(printf "$series" a.service 10)" ||
	    { cat "$T/m" "$T/err"; false; }
	# shellcheck disable=SC2059
	wait_while "$CPID" scraped "$port" -xF "$(printf "$series" b.service 20)" ||
	    { cat "$T/m" "$T/err"; false; }
	run ! grep -q "cgroup=\"/$name/b.service/deeper\"" "$T/m"
	kill -TERM "$CPID"
	wait "$CPID"
	[ ! -s "$T/err" ]
	[ ! -s "$T/rows" ]
}

# filter_allows UNIT NAME: whether UNIT's SystemCallFilter= lines, their
# sets expanded by systemd-analyze syscall-filter and the ~ lines taken
# out, let NAME through, as systemd builds the seccomp filter from them.
filter_allows() {
	"$PY" - "$1" "$2" <<'PYEOF'
import subprocess, sys
def expand(name):
    out = subprocess.run(["systemd-analyze", "syscall-filter", name],
                         capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines()[1:]:
        word = line.strip()
        if word and not word.startswith("#"):
            names |= expand(word) if word.startswith("@") else {word}
    return names
allow, deny = set(), set()
for line in open(sys.argv[1]):
    if not line.startswith("SystemCallFilter="):
        continue
    value = line.strip().split("=", 1)[1]
    into = allow
    if value.startswith("~"):
        into, value = deny, value[1:]
    for word in value.split():
        into |= expand(word) if word.startswith("@") else {word}
assert allow, "no SystemCallFilter= in " + sys.argv[1]
sys.exit(0 if sys.argv[2] in allow - deny else 1)
PYEOF
}

@test "the unit that holds CAP_SYS_PTRACE lets the listener write no other process's memory: process_vm_writev is refused" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (Debian's systemd package): the filter cannot be expanded"
	grep -qx 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_PTRACE' "$UNIT"
	# @system-service takes it in with @ipc.
	filter_allows "$UNIT" process_vm_readv
	filter_allows "$UNIT" bpf
	run filter_allows "$UNIT" process_vm_writev
	echo "$status $output"
	[ "$status" -eq 1 ]
	# The node unit has no CAP_SYS_PTRACE: process_vm_writev reaches
	# only its own processes there, and stays.
	run ! grep -q '^[^#]*CAP_SYS_PTRACE' "$NODE"
	filter_allows "$NODE" bpf
	filter_allows "$NODE" process_vm_writev
	# The refusal is EPERM, which the ptrace engine's answer to a
	# request takes as its cue to write with PTRACE_POKEDATA instead.
	grep -qx 'SystemCallErrorNumber=EPERM' "$UNIT"
}
