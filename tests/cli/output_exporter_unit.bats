#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# dist/cpctools-cpustat-exporter.service: installed, never enabled,
# accepted by systemd-analyze, and its command line, as systemd would run
# it with its environment, is a working exporter that SIGTERM stops.

load output_helper

setup() {
	out_setup
	SRC=${SOURCE_DIR:-$BATS_TEST_DIRNAME/../..}
	command -v cmake >/dev/null || skip "cmake is not installed"
	# Configure (and install) a tree of its own, under a prefix in $T.
	cmake -S "$SRC" -B "$T/b" -DCMAKE_INSTALL_PREFIX="$T/prefix" \
	    >"$T/cmake.log" 2>&1 || { cat "$T/cmake.log"; false; }
	UNIT=$T/b/cmd/cpctools-cpustat-exporter.service
}

teardown() {
	out_teardown
}

@test "the unit is installed under lib/systemd/system and left disabled" {
	# The install rule, as cmake wrote it for this tree.
	grep -F 'file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system" TYPE FILE FILES "'"$UNIT"'")' \
	    "$T/b/cmd/cmake_install.cmake"
	# Nothing enables it: no .wants link is installed.
	! grep -rq 'wants' "$T/b/cmd/cmake_install.cmake"
	grep -qx 'WantedBy=multi-user.target' "$UNIT"
	grep -qx "ExecStart=$T/prefix/bin/cpustat --listen=\${CPUSTAT_LISTEN} --output=/dev/null \$CPUSTAT_EVENTS \${CPUSTAT_INTERVAL}" "$UNIT"
}

@test "systemd-analyze verify accepts the unit" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
	mkdir -p "$T/prefix/bin"
	cp "$CS" "$T/prefix/bin/cpustat"
	run systemd-analyze verify --man=no "$UNIT"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "its command, run as systemd runs it, exports the default events; SIGTERM stops it, status 0" {
	mkdir -p "$T/prefix/bin"
	cp "$CS" "$T/prefix/bin/cpustat"
	local port
	port=$(free_port)
	# ExecStart with the unit's Environment=, CPUSTAT_LISTEN overridden as
	# "systemctl edit" would: ${VAR} is one word, $VAR is split at blanks.
	"$PY" - "$UNIT" "127.0.0.1:$port" >"$T/argv" <<'EOF'
import re, shlex, sys
env, execstart = {}, None
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("Environment="):
        for item in shlex.split(line[len("Environment="):]):
            k, v = item.split("=", 1)
            env[k] = v
    elif line.startswith("ExecStart="):
        execstart = line[len("ExecStart="):]
env["CPUSTAT_LISTEN"] = sys.argv[2]
argv = []
for word in execstart.split():
    m = re.fullmatch(r"\$([A-Z_]+)", word)
    if m:
        argv += env[m.group(1)].split()
    else:
        argv.append(re.sub(r"\$\{([A-Z_]+)\}", lambda g: env[g.group(1)], word))
print("\n".join(argv))
EOF
	mapfile -t argv <"$T/argv"
	echo "${argv[*]}"
	[ "${argv[0]}" = "$T/prefix/bin/cpustat" ]
	local try i
	for try in 1 2 3 4 5; do
		ct_wait_counters
		"${argv[@]}" >"$T/rows" 2>"$T/err" &
		CPID=$!
		ct_bg "$CPID"
		for i in $(seq 150); do
			curl -sf "http://127.0.0.1:$port/metrics" >"$T/m" &&
			    every_cpu_counted "$T/m" && break
			kill -0 "$CPID" 2>/dev/null || break
			sleep 0.1
		done
		grep -q 'Resource temporarily unavailable' "$T/err" || break
		kill -KILL "$CPID" 2>/dev/null || true
		wait "$CPID" 2>/dev/null || true
	done
	for e in context-switches cpu-migrations page-faults; do
		grep -qE "^cpustat_events_total\\{cpu=\"[0-9]+\",event=\"$e\",set=\"0\"\\} [0-9]+\$" "$T/m"
	done
	grep -qE '^cpustat_event_seconds_total\{cpu="[0-9]+",event="task-clock",set="0"\} [0-9.]+$' "$T/m"
	kill -TERM "$CPID"
	wait "$CPID"
	[ ! -s "$T/err" ]
	[ ! -s "$T/rows" ]
}
