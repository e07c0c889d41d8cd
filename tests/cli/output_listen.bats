#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# --listen=ADDR:PORT: /metrics over HTTP while counting, OpenMetrics for a
# client that asks for it and the Prometheus text format for others; bad
# addresses and taken ports said before anything starts; the socket never
# in a command cputrack starts; and memory bounded, under valgrind too,
# whether a scraper comes, never comes, or connects and says nothing.

load output_helper

setup() {
	out_setup
	command -v curl >/dev/null || skip "curl is not installed"
	if "$CS" --listen=127.0.0.1:1 2>&1 | grep -q 'no HTTP server'; then
		skip "this build has no HTTP server (libmicrohttpd)"
	fi
}

teardown() {
	out_teardown
}

# start_cpustat FUNCTION [HOST]: FUNCTION (which execs cpustat, listening
# on HOST, 127.0.0.1 by default, port $PORT) in the background, once the
# CPUs are free, and again if a cpustat elsewhere took one first; until
# /metrics answers. CSPID is cpustat's pid.
start_cpustat() {
	local try i
	for try in 1 2 3 4 5 6; do
		PORT=$(free_port)
		ct_wait_counters
		"$1" >"$T/rows" 2>"$T/err" &
		CSPID=$!
		ct_bg "$CSPID"
		for i in $(seq 100); do
			curl -sf "http://${2:-127.0.0.1}:$PORT/metrics" >/dev/null && break
			kill -0 "$CSPID" 2>/dev/null || break
			sleep 0.1
		done
		if ! grep -q 'Resource temporarily unavailable' "$T/err"; then
			kill -0 "$CSPID" 2>/dev/null && return 0
			break
		fi
		kill -KILL "$CSPID" 2>/dev/null || true
		wait "$CSPID" 2>/dev/null || true
		sleep 1
	done
	cat "$T/err"
	return 1
}

# wait_sample HOST: until cpustat on HOST:$PORT has counted an interval
# on every CPU.
wait_sample() {
	local i
	for i in $(seq 150); do
		curl -sf "http://$1:$PORT/metrics" >"$T/sample" &&
		    every_cpu_counted "$T/sample" && return 0
		sleep 0.1
	done
	return 1
}

@test "/metrics: OpenMetrics for Prometheus's Accept, the text format for others; 404, 405, HEAD" {
	start_cpustat_port() { exec "$CS" --listen=127.0.0.1:"$PORT" --output=/dev/null -c "$WRITE,task-clock" 0.1; }
	start_cpustat start_cpustat_port
	wait_sample 127.0.0.1
	http_get "http://127.0.0.1:$PORT/metrics" "$PROMETHEUS_ACCEPT" >"$T/om"
	grep -qi '^content-type: application/openmetrics-text; version=1.0.0; charset=utf-8' "$T/headers"
	om_check "$T/om"
	grep -qE '^cpustat_events_total\{cpu="[0-9]+",event="syscalls:sys_enter_write",set="0"\} [0-9]+$' "$T/om"
	http_get "http://127.0.0.1:$PORT/metrics" >"$T/prom"
	grep -qi '^content-type: text/plain; version=0.0.4; charset=utf-8' "$T/headers"
	grep -q '^# TYPE cpustat_events_total counter$' "$T/prom"
	promtool_check "$T/prom"
	run curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/"
	[ "$output" = 404 ]
	run curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/metrics"
	[ "$output" = 405 ]
	run curl -sI -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics"
	[ "$output" = 200 ]
	kill -TERM "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ]
	[ ! -s "$T/rows" ]
}

@test "--listen on IPv6 and on every address" {
	"$PY" -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null ||
		skip "no IPv6 loopback here"
	six() { exec "$CS" --listen="[::1]:$PORT" --output=/dev/null -c task-clock 0.2; }
	start_cpustat six '[::1]'
	wait_sample "[::1]"
	kill -TERM "$CSPID"
	wait "$CSPID"
	every() { exec "$CS" --listen=":$PORT" --output=/dev/null -c task-clock 0.2; }
	start_cpustat every
	wait_sample 127.0.0.1
	wait_sample "[::1]"
	kill -TERM "$CSPID"
	wait "$CSPID"
}

@test "--listen: a bad address is a usage error; a taken port ends the run before anything starts, exit 1" {
	local bad
	for bad in 127.0.0.1 127.0.0.1: :0 :65536 :-1 :9x ::1:9100 '[::1]9100' '[]:80' 'x:y'; do
		run --separate-stderr "$CT" --listen="$bad" -c "$WRITE" "$W/ct_marker" "$T/ran"
		[ "$status" -eq 2 ]
		[ "${stderr_lines[0]}" = "cputrack: invalid listen address '$bad' (addr:port, [addr6]:port or :port)" ]
		run --separate-stderr "$CS" --listen="$bad" -c task-clock 0.1 1
		[ "$status" -eq 2 ]
		[ "${stderr_lines[0]}" = "cpustat: invalid listen address \"$bad\" (addr:port, [addr6]:port or :port)" ]
	done
	[ ! -e "$T/ran" ]
	# A port somebody listens on.
	local port
	port=$(free_port)
	"$PY" -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
open(sys.argv[2], "w").close(); time.sleep(30)' "$port" "$T/taken" &
	ct_bg $!
	wait_file "$T/taken"
	run --separate-stderr "$CT" --listen=127.0.0.1:"$port" -c "$WRITE" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: cannot listen on '127.0.0.1:$port': Address already in use" ]
	[ ! -e "$T/ran" ]
	run --separate-stderr "$CS" --listen=127.0.0.1:"$port" -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	[ "$stderr" = "cpustat: cannot listen on '127.0.0.1:$port': Address already in use" ]
	[ -z "$output" ]
	run --separate-stderr "$CS" --listen=no.such.host.invalid:9100 -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	[[ $stderr == "cpustat: cannot listen on 'no.such.host.invalid:9100': "* ]]
}

@test "cputrack --listen while counting: a thread's counter grows between scrapes; the socket is not the program's" {
	local try port i
	for try in 1 2 3 4 5; do
		port=$(free_port)
		ct_wait_counters
		"$CT" --listen=127.0.0.1:"$port" -o "$T/rows" -e -T 0.1 -c "$WRITE" \
		    sh -c 'ls -l /proc/$$/fd >"$1"; exec "$2" 1 10 50 40' sh \
		    "$T/fds" "$W/ct_steady" 2>"$T/err" &
		CPID=$!
		ct_bg "$CPID"
		for i in $(seq 100); do
			curl -sf "http://127.0.0.1:$port/metrics" >"$T/m1" &&
			    grep -q 'lwp="2",comm="ct_steady"' "$T/m1" && break
			sleep 0.05
		done
		grep -q 'lwp="2",comm="ct_steady"' "$T/m1" 2>/dev/null && break
		wait "$CPID" || true
		counters_taken || break
	done
	sleep 0.5
	curl -sf "http://127.0.0.1:$port/metrics" >"$T/m2"
	wait "$CPID"
	[ ! -s "$T/err" ]
	! grep -q socket: "$T/fds"
	local a b
	a=$(sed -nE 's/^cputrack_events_total\{pid="[0-9]+",lwp="2",comm="ct_steady",event="syscalls:sys_enter_write",set="0"\} ([0-9]+)$/\1/p' "$T/m1")
	b=$(sed -nE 's/^cputrack_events_total\{pid="[0-9]+",lwp="2",comm="ct_steady",event="syscalls:sys_enter_write",set="0"\} ([0-9]+)$/\1/p' "$T/m2")
	echo "scrapes: $a then $b"
	[ "$a" -lt "$b" ] && [ "$b" -le 400 ]
	promtool_check "$T/m2"
}

# VmRSS of a process, in kB.
rss() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"
}

@test "no scraper ever comes: memory stays flat; one that connects and says nothing is let go" {
	quiet() { exec "$CS" --listen=127.0.0.1:"$PORT" --output=/dev/null -c "$WRITE,task-clock" -c context-switches 0.001; }
	start_cpustat quiet
	wait_sample 127.0.0.1
	sleep 2
	local before after
	before=$(rss "$CSPID")
	# Thousands of intervals on every CPU, no request.
	sleep 6
	after=$(rss "$CSPID")
	echo "VmRSS ${before} kB, then ${after} kB"
	[ "$after" -le $((before + 256)) ]
	# Twenty-four silent connections: 16 are served at once, the others
	# wait their turn, and the server closes each when it has said nothing
	# for 10 s.
	"$PY" - "$PORT" <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
conns = []
for i in range(24):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.settimeout(120)
    conns.append(s)
start = time.time()
for s in conns:
    try:
        data = s.recv(100)
    except ConnectionResetError:
        data = b""
    assert data == b"", ("a silent connection got an answer", data)
print("closed after %.1f s" % (time.time() - start))
EOF
	after=$(rss "$CSPID")
	echo "VmRSS after the silent connections: ${after} kB"
	[ "$after" -le $((before + 1024)) ]
	curl -sf "http://127.0.0.1:$PORT/metrics" >"$T/m"
	grep -q '^cpustat_events_total' "$T/m"
	kill -TERM "$CSPID"
	wait "$CSPID"
}

@test "valgrind: cpustat --listen, scraped and not, then stopped: no errors, no leaks" {
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	if ldd "$CS" | grep -qE 'libasan|libubsan' || grep -q __asan_init "$CS"; then
		skip "sanitizer build: valgrind cannot run it (the sanitizers check this build)"
	fi
	vg() {
		exec valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		    --error-exitcode=99 "$CS" --listen=127.0.0.1:"$PORT" \
		    --format=openmetrics --output="$T/v.prom" -c "$WRITE" 0.1 100
	}
	start_cpustat vg
	wait_sample 127.0.0.1
	local i
	for i in 1 2 3 4 5; do
		curl -sf -H "Accept: $PROMETHEUS_ACCEPT" "http://127.0.0.1:$PORT/metrics" >"$T/m"
		om_check "$T/m"
		sleep 0.3
	done
	# And a connection that never sends its request.
	"$PY" -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); time.sleep(1)' "$PORT"
	kill -TERM "$CSPID"
	local rc=0
	wait "$CSPID" || rc=$?
	cat "$T/err"
	[ "$rc" -eq 0 ]
	[ ! -s "$T/err" ]
	om_check "$T/v.prom"
}
