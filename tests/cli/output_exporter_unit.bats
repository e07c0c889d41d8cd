#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# dist/cpctools-cpustat-exporter.service: installed, never enabled,
# accepted by systemd-analyze and rated 2.5 or lower by its security
# review, and its command line, as systemd would run it with its
# environment, is a working exporter that SIGTERM stops: as root, and in
# the unit's sandbox (as its own user with CAP_PERFMON alone, within its
# system call filter), while cputrack counts exactly beside it.

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

# unit_argv LISTEN: argv, the unit's ExecStart with its Environment=,
# CPUSTAT_LISTEN set to LISTEN as "systemctl edit" would (unit_argv.py).
unit_argv() {
	"$PY" "$BATS_TEST_DIRNAME/unit_argv.py" "$UNIT" CPUSTAT_LISTEN="$1" \
	    >"$T/argv"
	mapfile -t argv <"$T/argv"
}

@test "the unit is installed under lib/systemd/system and left disabled" {
	# The install rule, as cmake wrote it for this tree.
	grep -F 'file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system" TYPE FILE FILES "'"$UNIT"'")' \
	    "$T/b/cmd/cmake_install.cmake"
	# Nothing enables it: no .wants link is installed.
	run ! grep -rq 'wants' "$T/b/cmd/cmake_install.cmake"
	grep -qx 'WantedBy=multi-user.target' "$UNIT"
	grep -qx "ExecStart=$T/prefix/bin/cpustat --shared --listen=\${CPUSTAT_LISTEN} --output=/dev/null \$CPUSTAT_EVENTS \${CPUSTAT_INTERVAL}" "$UNIT"
	# It serves this machine alone unless told otherwise.
	grep -qx 'Environment=CPUSTAT_LISTEN=127.0.0.1:9417' "$UNIT"
	grep -qx 'IPAddressAllow=localhost' "$UNIT"
}

@test "systemd-analyze verify accepts the unit" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
	mkdir -p "$T/prefix/bin"
	command_copy "$CS" "$T/prefix/bin" >/dev/null
	run systemd-analyze verify --man=no "$UNIT"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# counted_or_taken PORT: /metrics on PORT, kept in $T/m, has counted
# every CPU, or $T/err says a cpustat elsewhere took the counters.
counted_or_taken() {
	{ curl -sf "http://127.0.0.1:$1/metrics" >"$T/m" &&
	    every_cpu_counted "$T/m"; } ||
	    grep -q 'Resource temporarily unavailable' "$T/err"
}

@test "its command, run as systemd runs it, exports the default events; SIGTERM stops it, status 0" {
	mkdir -p "$T/prefix/bin"
	command_copy "$CS" "$T/prefix/bin" >/dev/null
	local port
	port=$(free_port)
	unit_argv "127.0.0.1:$port"
	echo "${argv[*]}"
	[ "${argv[0]}" = "$T/prefix/bin/cpustat" ]
	local try
	for try in 1 2 3 4 5; do
		# A try before's error would answer counted_or_taken: the
		# background job empties the file in its own time.
		rm -f "$T/rows" "$T/err"
		"${argv[@]}" >"$T/rows" 2>"$T/err" &
		CPID=$!
		ct_bg "$CPID"
		wait_while "$CPID" counted_or_taken "$port" || true
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

@test "systemd-analyze security rates the unit 2.5 or lower" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (Debian's systemd package)"
	systemd-analyze security --help 2>&1 | grep -q -- '--offline' ||
		skip "this systemd-analyze cannot review a unit file offline (systemd 250 or later can)"
	run systemd-analyze security --offline=yes --no-pager "$UNIT"
	echo "$output"
	[ "$status" -eq 0 ]
	local level
	level=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' <<<"$output")
	echo "# exposure level: $level" >&3
	# --threshold is in tenths: non-zero exit above 2.5.
	systemd-analyze security --offline=yes --no-pager --threshold=25 "$UNIT" >/dev/null
	awk -v l="$level" 'BEGIN { exit !(l != "" && l <= 2.5) }'
}

# A user id of the range systemd gives DynamicUser= users, that no user
# has and no process runs as.
dynamic_uid() {
	local uid
	while :; do
		uid=$((61184 + RANDOM % 4000))
		getent passwd "$uid" >/dev/null && continue
		pgrep -u "$uid" >/dev/null && continue
		echo "$uid"
		return
	done
}

# sandbox_ready: skip, with the reason, where the unit's sandbox cannot be
# made here (unit_sandbox.bash).
sandbox_ready() {
	[ "$(id -u)" -eq 0 ] || skip "making the unit's sandbox needs root"
	command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
	unshare --mount --ipc --uts --propagation private true 2>/dev/null ||
		skip "new mount namespaces cannot be made here"
	setpriv --inh-caps=+perfmon true 2>/dev/null ||
		skip "this kernel has no CAP_PERFMON (Linux 5.8 and later have it)"
}

# start_sandboxed TRACE: the unit's command line, listening on a free port
# ($PORT), in the unit's sandbox (unit_sandbox.bash), under strace to
# TRACE unless it is "-", until its metrics have counted every CPU.
# SBPID is the sandbox's pid, UPID the command's.
start_sandboxed() {
	local p
	mkdir -p "$T/prefix/bin"
	command_copy "$CS" "$T/prefix/bin" >/dev/null
	chmod 755 "$T" "$T/prefix" "$T/prefix/bin"
	PORT=$(free_port)
	unit_argv "127.0.0.1:$PORT"
	SBUID=$(dynamic_uid)
	: >"$T/trace"
	unshare --mount --ipc --uts --propagation private \
	    bash "$BATS_TEST_DIRNAME/unit_sandbox.bash" "$SBUID" "$1" \
	    "${argv[@]}" >"$T/rows" 2>"$T/err" 7>"$T/sandbox" 8>>"$T/trace" &
	SBPID=$!
	ct_bg "$SBPID"
	wait_while "$SBPID" served_every_cpu || true
	cat "$T/sandbox" "$T/err"
	every_cpu_counted "$T/m"
	UPID=
	for p in "$SBPID" $(descendants "$SBPID"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = cpustat ] && UPID=$p
	done
	[ -n "$UPID" ]
}

# served_every_cpu: /metrics on $PORT, kept in $T/m, has counted every CPU.
served_every_cpu() {
	curl -sf "http://127.0.0.1:$PORT/metrics" >"$T/m" 2>/dev/null &&
	    every_cpu_counted "$T/m"
}

# sandbox_applied: the command runs as the unit would have it: its own
# user and group, CAP_PERFMON alone in every set, no_new_privs, the system
# read-only, a /tmp of its own.
sandbox_applied() {
	local perfmon=0000004000000000
	grep -E '^(Uid|Gid|Groups|Cap|NoNewPrivs)' "/proc/$UPID/status"
	grep -qxE "Uid:\\s+$SBUID\\s+$SBUID\\s+$SBUID\\s+$SBUID" "/proc/$UPID/status"
	grep -qxE "Gid:\\s+$SBUID\\s+$SBUID\\s+$SBUID\\s+$SBUID" "/proc/$UPID/status"
	grep -qxE 'Groups:\s*' "/proc/$UPID/status"
	local set
	for set in CapInh CapPrm CapEff CapBnd CapAmb; do
		grep -qxE "$set:\\s+$perfmon" "/proc/$UPID/status"
	done
	grep -qxE 'NoNewPrivs:\s+1' "/proc/$UPID/status"
	# Its mounts: / read-only, /tmp a tmpfs of its own.
	awk '$5 == "/" { print $6 }' "/proc/$UPID/mountinfo" | grep -qE '(^|,)ro(,|$)'
	awk '$5 == "/tmp" { print $(NF - 2) }' "/proc/$UPID/mountinfo" | grep -qx tmpfs
}

@test "the unit's command in the unit's sandbox counts every CPU; each system call it makes is in its filter" {
	sandbox_ready
	command -v strace >/dev/null || skip "strace is not installed"
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (Debian's systemd package): the filter cannot be expanded"
	# systemd as PID 1 would make this sandbox; there is none here (nor
	# in a container), so unit_sandbox.bash makes the same one, setting
	# for setting, and strace records what the filters would have
	# judged. It runs the installed command from the unit's ExecStart=.
	start_sandboxed /proc/self/fd/8
	sandbox_applied
	for e in context-switches cpu-migrations page-faults; do
		grep -qE "^cpustat_events_total\\{cpu=\"[0-9]+\",event=\"$e\",set=\"0\"\\} [0-9]+\$" "$T/m"
	done
	grep -qE '^cpustat_event_seconds_total\{cpu="[0-9]+",event="task-clock",set="0"\} [0-9.]+$' "$T/m"
	kill -TERM "$UPID"
	wait "$SBPID"
	[ ! -s "$T/err" ]
	[ ! -s "$T/rows" ]
	"$PY" "$BATS_TEST_DIRNAME/unit_syscalls.py" "$T/trace" "$UNIT" "${argv[0]}"
}

@test "the unit's command in its sandbox, and cputrack beside it, counting exactly" {
	sandbox_ready
	start_sandboxed -
	sandbox_applied
	ct_run -T 0 -c task-clock,"$WRITE" "$W/wl_threads" 4 1000
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# Every thread's writes, exactly, and its time on CPU, counted.
	[ "$(ct_rows lwp_exit | awk '{ print $1, $3 }' | sort)" = "$(printf '%s\n' '2 1000' '3 1000' '4 1000' '5 1000')" ]
	[ "$(ct_rows exit | awk '{ print $1, $3 }')" = "1 4000" ]
	ct_rows lwp_exit | awk '$2 !~ /^[0-9]+$/ { exit 1 }'
	# The exporter went on counting through it.
	cp "$T/m" "$T/m0"
	sleep 1.5
	curl -sf "http://127.0.0.1:$PORT/metrics" >"$T/m"
	local a b
	a=$(awk '/^cpustat_running_seconds_total\{cpu="0"/ { print $2 }' "$T/m0")
	b=$(awk '/^cpustat_running_seconds_total\{cpu="0"/ { print $2 }' "$T/m")
	echo "cpu 0 counted $a s, then $b s"
	awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > a) }'
	kill -TERM "$UPID"
	wait "$SBPID"
	[ ! -s "$T/err" ]
}
