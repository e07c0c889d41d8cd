#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# --listen=ADDR:PORT: /metrics over HTTP while counting, OpenMetrics for a
# client that asks for it and the Prometheus text format for others; bad
# addresses and taken ports said before anything starts; the socket never
# in a command cputrack starts; memory bounded, under valgrind too,
# whether a scraper comes, never comes, or connects and says nothing; and
# slow clients, however many their sockets, never keep a scrape from
# being answered.

load output_helper

setup() {
	out_setup
	need_listener
}

teardown() {
	out_teardown
}

# start_cpustat FUNCTION [HOST]: FUNCTION (which execs cpustat, listening
# on HOST, 127.0.0.1 by default, port $PORT) in the background, once the
# CPUs are free, and again if a cpustat elsewhere took one first, or
# another test the port (chosen free, then taken before the bind); until
# /metrics answers. CSPID is cpustat's pid.
start_cpustat() {
	local try
	for try in 1 2 3 4 5 6; do
		PORT=$(free_port)
		# A try before's error would answer the grep below: the
		# background job empties the file in its own time.
		rm -f "$T/rows" "$T/err"
		"$1" >"$T/rows" 2>"$T/err" &
		CSPID=$!
		ct_bg "$CSPID"
		wait_while "$CSPID" curl -sf -o /dev/null \
		    "http://${2:-127.0.0.1}:$PORT/metrics" || true
		if ! grep -q 'Resource temporarily unavailable\|Address already in use' "$T/err"; then
			curl -sf "http://${2:-127.0.0.1}:$PORT/metrics" >/dev/null && return 0
			break
		fi
		kill -KILL "$CSPID" 2>/dev/null || true
		wait "$CSPID" 2>/dev/null || true
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 6 tries
	done
	cat "$T/err"
	return 1
}

# wait_sample HOST: until cpustat on HOST:$PORT has counted an interval
# on every CPU.
wait_sample() {
	wait_while "$CSPID" sampled "$1"
}
sampled() {
	curl -sf "http://$1:$PORT/metrics" >"$T/sample" &&
	    every_cpu_counted "$T/sample"
}

@test "/metrics: OpenMetrics for Prometheus's Accept, the text format for others; / a landing page; /-/healthy and /-/ready; 404, 405, HEAD; keep-alive" {
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
	# / a landing page that links to the metrics, as node_exporter's.
	http_get "http://127.0.0.1:$PORT/" >"$T/landing"
	grep -qi '^content-type: text/html; charset=utf-8' "$T/headers"
	grep -q '<a href="/metrics">' "$T/landing"
	run ! grep -q 'The run has ended' "$T/landing"
	# The probes' paths, as Prometheus's: one short line, no series.
	[ "$(curl -sf "http://127.0.0.1:$PORT/-/healthy")" = healthy ]
	[ "$(curl -sf "http://127.0.0.1:$PORT/-/ready")" = ready ]
	run curl -sI -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/-/ready"
	[ "$output" = 200 ]
	run curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/-/other"
	[ "$output" = 404 ]
	run curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/nothing"
	[ "$output" = 404 ]
	run curl -s -o /dev/null -w '%{http_code}' -X POST -d body "http://127.0.0.1:$PORT/metrics"
	[ "$output" = 405 ]
	# Keep-alive: three requests, one connection; none says "close".
	run curl -sS -D "$T/headers" -o /dev/null -o /dev/null -o /dev/null \
	    -w '%{http_code} %{num_connects}\n' "http://127.0.0.1:$PORT/metrics" \
	    "http://127.0.0.1:$PORT/" "http://127.0.0.1:$PORT/metrics"
	[ "${lines[0]}" = "200 1" ]
	[ "${lines[1]}" = "200 0" ]
	[ "${lines[2]}" = "200 0" ]
	run ! grep -qi '^connection: close' "$T/headers"
	run curl -sI -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics"
	[ "$output" = 200 ]
	kill -TERM "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ]
	[ ! -s "$T/rows" ]
}

@test "/metrics says how the exporter itself does: process_*, rows dropped, the scrape's time, cputrack's engine; a textfile does not" {
	start_cpustat_port() { exec "$CS" --listen=127.0.0.1:"$PORT" --format=openmetrics --output="$T/file.prom" -c task-clock 0.1; }
	start_cpustat start_cpustat_port
	wait_sample 127.0.0.1
	http_get "http://127.0.0.1:$PORT/metrics" "$PROMETHEUS_ACCEPT" >"$T/om"
	om_check "$T/om"
	local f pid
	pid=$CSPID
	for f in process_cpu_seconds_total process_resident_memory_bytes \
	    process_virtual_memory_bytes process_open_fds process_max_fds \
	    process_start_time_seconds cpustat_rows_dropped_total \
	    cpustat_scrape_duration_seconds; do
		grep -qE "^$f [0-9.]+\$" "$T/om" || fail "no $f"
	done
	grep -qx 'cpustat_rows_dropped_total 0' "$T/om"
	# What the kernel says of the process: its limit exactly, and its
	# descriptors give or take the scrape's own connections.
	local fds max
	fds=$(awk '$1 == "process_open_fds" { print $2 }' "$T/om")
	max=$(awk '/^Max open files/ { print $4 }' "/proc/$pid/limits")
	[ "$(awk '$1 == "process_max_fds" { print $2 }' "$T/om")" = "$max" ]
	[ "$fds" -gt 2 ]
	[ "$fds" -le $(($(ls "/proc/$pid/fd" | wc -l) + 4)) ]
	# cpustat has no engine; its textfile, which node_exporter merges with
	# its own process_*, has none of these.
	run ! grep -q 'engine_info' "$T/om"
	run ! grep -qE '^(process_|cpustat_rows_dropped|cpustat_scrape_duration)' "$T/file.prom"
	kill -TERM "$CSPID"
	wait "$CSPID"
	# cputrack names the engine it runs.
	PORT=$(free_port)
	"$CT" --listen=127.0.0.1:"$PORT" --format=openmetrics -o /dev/null \
	    -T 0.1 -c task-clock "$W/wl_idle" 1 3 >"$T/ct.out" 2>"$T/ct.err" &
	CSPID=$!
	ct_bg "$CSPID"
	wait_while "$CSPID" engine_served || true
	grep -qx "cputrack_engine_info{engine=\"${ENGINE:-ptrace}\"} 1" "$T/ct.m"
	kill -TERM "$CSPID"
	wait "$CSPID" || true
}

# engine_served: cputrack's /metrics on $PORT, kept in $T/ct.m, names
# its engine.
engine_served() {
	curl -sf "http://127.0.0.1:$PORT/metrics" >"$T/ct.m" &&
	    grep -q engine_info "$T/ct.m"
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

# linger_run LINE CMD...: CMD (a cputrack or cpustat --listen on $port,
# rows to $T/rows) in the background, as LPID, until its rows have a line
# that matches LINE: the run has ended by itself.
linger_run() {
	local line=$1
	shift
	"$@" >"$T/lout" 2>"$T/lerr" &
	LPID=$!
	ct_bg "$LPID"
	wait_line "$T/rows" "$line"
}

# linger_end: until LPID has ended; its status is 0 and it said nothing.
linger_end() {
	local st=0
	wait_for ended "$LPID"
	wait "$LPID" || st=$?
	[ "$st" -eq 0 ] || { cat "$T/lerr"; false; }
	[ ! -s "$T/lerr" ]
}

@test "--linger: a run that ended serves its final counts until a scrape takes them, the time passes or a signal comes" {
	local port sig bad
	port=$(free_port)
	# cputrack: the command has ended, its exit row written; the
	# listener is still there, with its totals, until a scrape has them.
	linger_run ' exit ' "$CT" --listen=127.0.0.1:"$port" --linger=600 \
	    -o "$T/rows" -c "$WRITE" "$W/ct_marker" /dev/null 7
	wait_while "$LPID" lingering "$port"
	# Its counts go on no more: not ready, still healthy; neither probe
	# takes the final counts.
	run curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/-/ready"
	[ "$output" = 503 ]
	[ "$(curl -s "http://127.0.0.1:$port/-/ready")" = "the run has ended" ]
	[ "$(curl -sf "http://127.0.0.1:$port/-/healthy")" = healthy ]
	lingering "$port"
	http_get "http://127.0.0.1:$port/metrics" "$PROMETHEUS_ACCEPT" >"$T/final"
	grep -qE '^cputrack_process_events_total\{pid="[0-9]+",comm="ct_marker",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} 7$' "$T/final"
	om_check "$T/final"
	linger_end
	# cpustat: its count of intervals done, its totals written.
	linger_run ' total ' "$CS" --listen=127.0.0.1:"$port" --linger=600 \
	    --output="$T/rows" -c task-clock 0.1 2
	wait_while "$LPID" lingering "$port"
	http_get "http://127.0.0.1:$port/metrics" >"$T/final"
	grep -q '^cpustat_event_seconds_total{cpu=' "$T/final"
	linger_end
	# No scrape: the time ends it.
	linger_run ' exit ' "$CT" --listen=127.0.0.1:"$port" --linger=0.2 \
	    -o "$T/rows" -c "$WRITE" "$W/ct_marker" /dev/null 7
	linger_end
	# A signal ends it at once, and the run's status stays. (A job that
	# a script starts in the background ignores SIGINT, as cputrack then
	# does: SIGTERM and SIGHUP.)
	for sig in TERM HUP; do
		linger_run ' exit ' "$CT" --listen=127.0.0.1:"$port" \
		    --linger=600 -o "$T/rows" -c "$WRITE" "$W/ct_marker" /dev/null 7
		wait_while "$LPID" lingering "$port"
		kill -"$sig" "$LPID"
		linger_end
	done
	# Without --listen there is nothing to linger; a bad time is said.
	run --separate-stderr "$CT" --linger=5 -c "$WRITE" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --linger needs --listen: it keeps the listener up" ]
	run --separate-stderr "$CS" --linger=5 -c task-clock 0.1 1
	[ "$status" -eq 2 ]
	[ "$stderr" = "cpustat: --linger needs --listen: it keeps the listener up" ]
	for bad in -1 x 1e9 ''; do
		run --separate-stderr "$CT" --listen=127.0.0.1:"$port" \
		    --linger="$bad" -c "$WRITE" "$W/ct_marker" "$T/ran"
		[ "$status" -eq 2 ]
		[ "$stderr" = "cputrack: invalid linger time '$bad' (seconds, 0 to 86400)" ]
	done
	[ ! -e "$T/ran" ]
}

# maps_run CMD ARGS...: CMD ARGS... counting a shell that copies CMD's
# memory map (its parent's) to $T/maps; status and stderr as run sets them.
maps_run() {
	rm -f "$T/maps"
	# shellcheck disable=SC2016 # $PPID is the shell's, the command's own
	run --separate-stderr "$@" -c task-clock sh -c 'cat /proc/$PPID/maps >"$1"' sh "$T/maps"
}

# module_refused CMD REASON: CMD --listen is refused before anything
# starts, exit 1, with REASON after the address.
module_refused() {
	run --separate-stderr "$1" --listen=127.0.0.1:"$PORT" -c task-clock "$W/ct_marker" "$T/ran"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: cannot listen on '127.0.0.1:$PORT': $2" ]
	[ ! -e "$T/ran" ]
}

@test "the HTTP server is a module: mapped by a run that listens alone, found from where the command is, refused where another user could have written it" {
	local tree bin rel mod engine=${CPUTRACK_BIN:+--engine=bpf}
	PORT=$(free_port)
	maps_run "$CT" --output=/dev/null
	[ "$status" -eq 0 ]
	[ -s "$T/maps" ]
	run ! grep -E 'libmicrohttpd|libgnutls|libyaml|/http\.so$' "$T/maps"
	maps_run "$CT" --listen=127.0.0.1:"$PORT" --output=/dev/null
	[ "$status" -eq 0 ]
	grep -q '/libmicrohttpd\.so' "$T/maps"
	grep -q '/cpctools/http\.so$' "$T/maps"
	# A copy of the command loads the module beside it, not the build's.
	tree=$(nobody_dir)/tree
	mkdir -m 0755 "$tree" "$tree/bin"
	bin=$(command_copy "${CPUTRACK_BIN:-$CT}" "$tree/bin")
	rel=$(http_module_of "$bin")
	[ -n "$rel" ]
	mod=$(realpath -m "$tree/bin/$rel")
	maps_run "$bin" $engine --listen=127.0.0.1:"$PORT" --output=/dev/null
	[ "$status" -eq 0 ]
	grep -qF " $mod" "$T/maps"
	# Written, or writable, by others: not loaded.
	chmod g+w "$mod"
	module_refused "$bin" "$mod: it, or its directory, may have been written by another user"
	chmod g-w "$mod"
	chown daemon "$mod"
	module_refused "$bin" "$mod: it, or its directory, may have been written by another user"
	chown root "$mod"
	chmod o+w "$(dirname "$mod")"
	module_refused "$bin" "$mod: it, or its directory, may have been written by another user"
	chmod o-w "$(dirname "$mod")"
	mv "$mod" "$mod.gone"
	module_refused "$bin" "$mod: No such file or directory"
	mv "$mod.gone" "$mod"
	# A user's own build loads its own module.
	[ "$(id -u)" = 0 ] || return 0
	chown -R nobody "$tree"
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    "$bin" --engine=ptrace --listen=127.0.0.1:"$PORT" --output=/dev/null -c task-clock true
	echo "$stderr"
	[ "$status" -eq 0 ]
}

@test "cputrack --listen while counting: a thread's counter grows between scrapes; the socket is not the program's" {
	# The target writes a step of 10 at each w through the gate and ends
	# at q: each scrape waits for the step before it, never for a time.
	local try port m
	for try in 1 2 3 4 5; do
		rm -f "$T/gate"
		gate_open
		port=$(free_port)
		"$CT" --thread-series --listen=127.0.0.1:"$port" -o "$T/rows" -e -T 0.1 -c "$WRITE" \
		    sh -c 'ls -l /proc/$$/fd >"$1"; exec "$2" 1 10' sh \
		    "$T/fds" "$W/wl_steps" <"$T/gate" 2>"$T/err" &
		CPID=$!
		ct_bg "$CPID"
		gate_send w
		lwp2_writes_reach 1 10 && break
		gate_send q
		wait "$CPID" || true
		counters_taken || break
	done
	gate_send w
	lwp2_writes_reach 2 20
	gate_send q
	wait "$CPID"
	[ ! -s "$T/err" ]
	run ! grep -q socket: "$T/fds"
	for m in 1 2; do
		promtool_check "$T/m$m"
	done
}

# lwp2_writes_reach N WRITES: scrape the background cputrack ($CPID, on
# $port) into $T/mN until LWP 2's write counter is WRITES; fails if it
# passes WRITES or cputrack ends first.
lwp2_writes_reach() {
	local v=
	wait_while "$CPID" lwp2_writes_past "$1" "$2" &&
	    [ "$v" = "$2" ] && return 0
	echo "scrape $1: LWP 2 wrote '$v', not $2" >&2
	return 1
}
# lwp2_writes_past N WRITES: a scrape into $T/mN in which LWP 2's write
# counter, kept in v, is WRITES or more.
lwp2_writes_past() {
	curl -sf "http://127.0.0.1:$port/metrics" >"$T/m$1" &&
	    v=$(sed -nE 's#^cputrack_events_total\{pid="[0-9]+",lwp="2",comm="wl_steps",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} ([0-9]+)$#\1#p' "$T/m$1") &&
	    [ -n "$v" ] && [ "$v" -ge "$2" ]
}

# abuse SOURCES N INTERVAL [paced]: in the background, N connections to
# 127.0.0.1:$PORT from each address of SOURCES (comma-separated), each
# sending the first byte of a long request at once and the next every
# INTERVAL seconds, for 60 s at most. One the server closes is made again
# at once, or with "paced", at the next byte. $T/abuse says how many it
# holds, has made and has seen closed; it exists once all are open.
# ABPID is its pid.
abuse() {
	rm -f "$T/abuse"
	"$PY" - "$PORT" "$1" "$2" "$3" "$T/abuse" "${4:-}" <<'EOF' &
import os, select, socket, sys, time
port, n, interval, status = int(sys.argv[1]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
paced = sys.argv[6] == "paced"
sources = sys.argv[2].split(",")
request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4000
held, made, closed, sent = {}, 0, 0, 1
def fill():
    global made
    for src in sources:
        while list(held.values()).count(src) < n:
            s = socket.socket()
            try:
                s.bind((src, 0))
                s.settimeout(2)
                s.connect(("127.0.0.1", port))
                s.send(request[:1])
            except OSError:
                s.close()
                return
            held[s] = src
            made += 1
end = time.time() + 60
nextbyte = time.time() + interval
fill()
while time.time() < end:
    if not paced:
        fill()
    tmp = status + ".new"
    with open(tmp, "w") as f:
        f.write("holds %d made %d closed %d\n" % (len(held), made, closed))
    os.rename(tmp, status)
    ready, _, _ = select.select(list(held), [], [], 0.05)
    for s in ready:
        try:
            gone = s.recv(4096) == b""
        except OSError:
            gone = True
        if gone:
            s.close()
            del held[s]
            closed += 1
    if time.time() >= nextbyte:
        fill()
        for s in held:
            try:
                s.send(request[sent % len(request):sent % len(request) + 1])
            except OSError:
                pass
        sent += 1
        nextbyte = time.time() + interval
EOF
	ABPID=$!
	ct_bg "$ABPID"
	wait_file "$T/abuse"
}

# scrape_while_abused: three scrapes from 127.0.0.1, 0.3 s apart, each
# bounded by curl's own 5 s, while the abuser holds its connections: each
# must be answered, with the counts. The time each took is said
# (measured, not asserted: a loaded machine may be slow, and a
# locked-out scrape is not answered at all).
scrape_while_abused() {
	local i said
	for i in 1 2 3; do
		sleep 0.3 # not a wait: the scrapes are spread over the abuser's hold; at most 3 passes
		running "$ABPID"
		run curl -sS --max-time 5 -o "$T/scrape" \
		    -w '%{http_code} %{time_total}' "http://127.0.0.1:$PORT/metrics"
		said="scrape $i: HTTP status and seconds: $output; abuser: $(cat "$T/abuse")"
		echo "$said"
		# In the TAP output too, as a comment, passed or not.
		echo "# $said" >&3
		[ "$status" -eq 0 ]
		[ "${output%% *}" = 200 ]
		grep -q '^cpustat_event_seconds_total{cpu=' "$T/scrape"
	done
	running "$ABPID"
}

@test "16 slow sockets from another client (127.0.0.2): a scrape from 127.0.0.1 is answered while they are held" {
	"$PY" -c 'import socket; socket.socket().bind(("127.0.0.2", 0))' 2>/dev/null ||
		skip "127.0.0.2 cannot be bound here (no loopback /8)"
	slow() { exec "$CS" --listen=127.0.0.1:"$PORT" --output=/dev/null -c task-clock 0.2; }
	start_cpustat slow
	wait_sample 127.0.0.1
	abuse 127.0.0.2 16 8
	scrape_while_abused
	# Its sockets beyond the client's four were closed, and made again:
	# cut at once, let go some seconds later (the exporter holds a cut
	# connection that never asked, so that it does not come back at once).
	abuse_closed() { [ "$(awk '{ print $6 }' "$T/abuse")" -ge "$1" ]; }
	wait_while "$ABPID" abuse_closed 12
	kill -TERM "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ]
}

@test "16 slow sockets from the scraper's own address: its scrape still makes room and is answered" {
	same() { exec "$CS" --listen=127.0.0.1:"$PORT" --output=/dev/null -c task-clock 0.2; }
	start_cpustat same
	wait_sample 127.0.0.1
	# Its connections open again at its own pace, with its next byte: one
	# address's four connections are shared by all its clients, so one
	# that connects again as fast as it is cut competes with a scraper at
	# its own address (not at others, as the test above shows).
	abuse 127.0.0.1 16 8 paced
	scrape_while_abused
	kill -TERM "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ]
}

@test "slow sockets from many addresses, past the bound of all clients: a scrape is answered" {
	"$PY" -c 'import socket; socket.socket().bind(("127.0.0.9", 0))' 2>/dev/null ||
		skip "127.0.0.9 cannot be bound here (no loopback /8)"
	# 256 descriptors: all clients together hold 16 connections; eight
	# addresses of four each are twice that.
	many() { ulimit -n 256; exec "$CS" --listen=127.0.0.1:"$PORT" --output=/dev/null -c task-clock 0.2; }
	start_cpustat many
	wait_sample 127.0.0.1
	abuse 127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5,127.0.0.6,127.0.0.7,127.0.0.8,127.0.0.9 4 8
	scrape_while_abused
	kill -TERM "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ]
}

@test "a request sent a byte at a time is cut before it is whole" {
	drip() { exec "$CS" --listen=127.0.0.1:"$PORT" --output=/dev/null -c task-clock 0.2; }
	start_cpustat drip
	wait_sample 127.0.0.1
	# A byte every half second renews any timeout counted from the last
	# byte; the whole request (4 kB of header) would take half an hour.
	"$PY" - "$PORT" <<'EOF'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4000
start = time.time()
s.settimeout(0.5)
for i in range(len(request)):
    if time.time() - start > 60:
        sys.exit("still connected after 60 s, %d bytes sent" % i)
    try:
        s.send(request[i:i + 1])
        data = s.recv(100)
    except socket.timeout:
        continue
    except OSError:
        data = b""
    assert data == b"", ("the server answered a request not yet whole", data)
    break
print("cut after %.1f s, %d bytes" % (time.time() - start, i + 1))
EOF
	curl -sf "http://127.0.0.1:$PORT/metrics" >/dev/null
	kill -TERM "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ]
}

# VmRSS of a process, in kB.
rss() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"
}

# password_metric NAME: the value of cpustat_http_passwords_NAME_total in
# a scrape with the right password.
password_metric() {
	curl -sS --fail-with-body -u prom:s3cret "http://127.0.0.1:$PORT/metrics" |
	    awk -v n="cpustat_http_passwords_$1_total" '$1 == n { print $2 }'
}

# guess ADDRESS N: a client that sends wrong passwords from ADDRESS, N
# connections at a time, again and again, each a password not tried
# before (one tried before is refused from memory, with no check), until
# $T/stop is made.
guess() {
	local i n
	for i in $(seq "$2"); do
		n=0
		while [ ! -e "$T/stop" ]; do
			n=$((n + 1))
			curl -s -o /dev/null --interface "$1" \
			    -u "prom:guess$1.$i.$n" "http://127.0.0.1:$PORT/metrics"
		done &
	done
	wait
}

@test "--web-config: a FIFO is refused at once, not waited on; a private key every user may read is refused; one its group may read is taken" {
	local port
	port=$(free_port)
	mkfifo "$T/web.fifo"
	# Nothing writes the FIFO: an open that waited would wait for ever.
	run timeout 60 "$CS" --listen=127.0.0.1:"$port" --web-config="$T/web.fifo" \
	    --output=/dev/null -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	[ "$output" = "cpustat: --web-config '$T/web.fifo': the file '$T/web.fifo' is not a regular file" ]
	command -v openssl >/dev/null || skip "openssl is not installed"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -keyout "$T/server.key" -out "$T/server.crt" -subj /CN=localhost \
	    -days 1 2>/dev/null
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n' \
	    >"$T/tls.yml"
	chmod 644 "$T/tls.yml" "$T/server.key"
	run timeout 60 "$CS" --listen=127.0.0.1:"$port" --web-config="$T/tls.yml" \
	    --output=/dev/null -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	[ "$output" = "cpustat: --web-config '$T/tls.yml': line 3: key_file '$T/server.key' may be read by every user: chmod o-r it" ]
	chmod 640 "$T/server.key"
	run timeout 60 "$CS" --listen=127.0.0.1:"$port" --web-config="$T/tls.yml" \
	    --output=/dev/null -c task-clock 0.1 1
	[ "$status" -eq 0 ]
}

@test "--web-config users: a password that passed is let in at once while 40 clients send wrong ones; the checks are counted; wrong and unknown users 401" {
	"$PY" -c 'import socket; socket.socket().bind(("127.0.0.2", 0))' 2>/dev/null ||
		skip "127.0.0.2 cannot be bound here (no loopback /8)"
	# Cost 10: each wrong password holds the checker for tens of ms.
	printf 'basic_auth_users:\n  prom: %s\n' "$(bcrypt_hash s3cret 10)" >"$T/web.yml"
	chmod 600 "$T/web.yml"
	authed() { exec "$CS" --listen=127.0.0.1:"$PORT" --web-config="$T/web.yml" --output=/dev/null -c task-clock 0.2; }
	PORT=$(free_port)
	authed >"$T/rows" 2>"$T/err" &
	CSPID=$!
	ct_bg "$CSPID"
	wait_while "$CSPID" curl -s -o /dev/null "http://127.0.0.1:$PORT/"
	run curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics"
	[ "$output" = 401 ]
	run curl -s -o /dev/null -w '%{http_code}' -u prom:wrong "http://127.0.0.1:$PORT/metrics"
	[ "$output" = 401 ]
	run curl -s -o /dev/null -w '%{http_code}' -u nobody:s3cret "http://127.0.0.1:$PORT/metrics"
	[ "$output" = 401 ]
	# The right one: checked once, then remembered.
	[ "$(password_metric checked)" -eq 3 ]
	[ "$(password_metric remembered)" -eq 1 ]
	# 20 clients on another address and 20 on the scraper's own.
	guess 127.0.0.2 20 &
	GUESS2=$!
	guess 127.0.0.1 20 &
	GUESS1=$!
	many_checked() { [ "$(password_metric checked)" -ge 40 ]; }
	wait_for many_checked
	local i before after
	before=$(password_metric remembered)
	for i in $(seq 10); do
		run curl -sS -o "$T/scrape" -w '%{http_code}' -u prom:s3cret "http://127.0.0.1:$PORT/metrics"
		echo "scrape $i: $output"
		[ "$output" = 200 ]
		grep -q '^cpustat_event_seconds_total{cpu=' "$T/scrape"
	done
	after=$(password_metric remembered)
	# Each of the 10, and the look itself, let in from memory.
	[ "$after" -eq $((before + 11)) ]
	# A scraper on a busy machine: its request comes 100 ms after its
	# connection, as the crowd's connections come and go.
	run "$PY" - "$PORT" <<'PYEOF'
import base64, socket, sys, time
auth = base64.b64encode(b"prom:s3cret")
for i in range(10):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
    time.sleep(0.1)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Basic " + auth + b"\r\n\r\n")
    print(s.recv(12)[9:12].decode() or "closed")
    s.close()
PYEOF
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | sort | uniq -c | awk '{ print $1, $2 }')" = "10 200" ]
	touch "$T/stop"
	wait "$GUESS1" "$GUESS2"
	kill -TERM "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ]
}

# start_guarded: cpustat --listen with $T/web.yml, in the background
# (CSPID), until it answers.
start_guarded() {
	PORT=$(free_port)
	"$CS" --listen=127.0.0.1:"$PORT" --web-config="$T/web.yml" \
	    --output=/dev/null -c task-clock 0.2 >"$T/rows" 2>"$T/err" &
	CSPID=$!
	ct_bg "$CSPID"
	wait_while "$CSPID" curl -s -o /dev/null "http://127.0.0.1:$PORT/"
}

# bearer_code TOKEN [CURL-ARGS...]: the status of /metrics with TOKEN,
# its headers in $T/head.
bearer_code() {
	local token=$1
	shift
	echo "Authorization: Bearer $token" >"$T/bearer"
	curl -sS -o "$T/scrape" -D "$T/head" -w '%{http_code}' -H @"$T/bearer" \
	    "$@" "http://127.0.0.1:$PORT/metrics"
}

@test "--web-config bearer_token_file: the token is let in, a wrong one 401 without a password check; a token alone asks for it; a short one is refused in one line" {
	local token i
	token=$(head -c 32 /dev/urandom | base64)
	echo "$token" >"$T/token"
	chmod 600 "$T/token"
	printf 'basic_auth_users:\n  prom: %s\nbearer_token_file: token\n' \
	    "$(bcrypt_hash s3cret 10)" >"$T/web.yml"
	chmod 600 "$T/web.yml"
	start_guarded
	run bearer_code "$token"
	[ "$output" = 200 ]
	grep -q '^cpustat_start_time_seconds ' "$T/scrape"
	# The password too, checked once (this look's).
	[ "$(password_metric checked)" -eq 1 ]
	# Wrong tokens, of the right length and not: 401, each naming both
	# schemes, and never a password check.
	for i in $(seq 20); do
		run bearer_code "$(head -c 32 /dev/urandom | base64)"
		[ "$output" = 401 ]
	done
	run bearer_code "${token%?}"
	[ "$output" = 401 ]
	grep -q '^WWW-Authenticate: Bearer realm="cpctools"' "$T/head"
	grep -q '^WWW-Authenticate: Basic realm="cpctools"' "$T/head"
	[ "$(password_metric checked)" -eq 1 ]
	[ "$(password_metric busy)" -eq 0 ]
	kill -TERM "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ]

	# A token alone: nothing else is let in, and the answer asks for it.
	echo 'bearer_token_file: token' >"$T/web.yml"
	start_guarded
	run curl -s -o /dev/null -D "$T/head" -w '%{http_code}' "http://127.0.0.1:$PORT/metrics"
	[ "$output" = 401 ]
	grep -q '^WWW-Authenticate: Bearer realm="cpctools"' "$T/head"
	run grep -c '^WWW-Authenticate: Basic' "$T/head"
	[ "$output" = 0 ]
	run curl -s -o /dev/null -w '%{http_code}' -u prom:s3cret "http://127.0.0.1:$PORT/metrics"
	[ "$output" = 401 ]
	run bearer_code "$token"
	[ "$output" = 200 ]
	kill -TERM "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ]

	# A token a person could guess is refused before anything starts.
	echo s3cret >"$T/token"
	run timeout 60 "$CS" --listen=127.0.0.1:"$(free_port)" --web-config="$T/web.yml" \
	    --output=/dev/null -c task-clock 0.1 1
	[ "$status" -eq 1 ]
	[ "$output" = "cpustat: --web-config '$T/web.yml': line 1: bearer_token_file holds a token of 6 characters: one of 32 or more is needed, random (head -c 32 /dev/urandom | base64)" ]
}

@test "--web-config: 80 addresses sending wrong passwords do not keep a right one not yet checked out; each answer comes as its check ends" {
	"$PY" -c 'import socket; socket.socket().bind(("127.0.0.90", 0))' 2>/dev/null ||
		skip "127.0.0.90 cannot be bound here (no loopback /8)"
	# Cost 8: a check takes milliseconds, longer than a guess takes to
	# come again, so that every flooder always has one waiting.
	{
		printf 'basic_auth_users:\n  prom: %s\n' "$(bcrypt_hash guessme 8)"
		printf '  s1: %s\n  s2: %s\n  s3: %s\n' "$(bcrypt_hash one 8)" \
		    "$(bcrypt_hash two 8)" "$(bcrypt_hash three 8)"
	} >"$T/web.yml"
	chmod 600 "$T/web.yml"
	# Descriptors enough for the bound of all clients, 256 connections,
	# as the units give.
	flooded() { ulimit -n 4096; exec "$CS" --listen=127.0.0.1:"$PORT" --web-config="$T/web.yml" --output=/dev/null -c task-clock 0.2; }
	PORT=$(free_port)
	flooded >"$T/rows" 2>"$T/err" &
	CSPID=$!
	ct_bg "$CSPID"
	wait_while "$CSPID" curl -s -o /dev/null "http://127.0.0.1:$PORT/"
	# Checks asked for one after another, with nothing else to do: each
	# answered as it ends, not at the server's next quarter second. From
	# an address of its own: the scraper's has made no check before.
	"$PY" - "$PORT" <<'PYEOF'
import base64, socket, sys, time
port = int(sys.argv[1])
took = []
for i in range(8):
    s = socket.create_connection(("127.0.0.1", port), timeout=10,
                                 source_address=("127.0.0.90", 0))
    auth = base64.b64encode(b"prom:wrong%d" % i)
    start = time.monotonic()
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " + auth + b"\r\n\r\n")
    head = s.recv(100)
    took.append(time.monotonic() - start)
    s.close()
    assert head.startswith(b"HTTP/1.1 401"), head
took.sort()
# How long each took is bench's to judge, not a test's: shown only.
print("wrong passwords answered in", ["%.3f" % t for t in took])
PYEOF
	# 80 clients, one address each, each sending a wrong password again as
	# soon as its last is answered, until $T/stop is made.
	"$PY" - "$PORT" "$T/stop" "$T/flood" <<'PYEOF' &
import base64, os, socket, sys, threading
port, stop, said = int(sys.argv[1]), sys.argv[2], sys.argv[3]
answers = {}
lock = threading.Lock()
def guess(n):
    auth = base64.b64encode(b"prom:guess%d" % n)
    while not os.path.exists(stop):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=15,
                                         source_address=("127.0.0.%d" % (n + 2), 0))
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " + auth + b"\r\n\r\n")
            code = s.recv(12)[9:12].decode() or "closed"
            s.close()
        except OSError as e:
            code = type(e).__name__
        with lock:
            answers[code] = answers.get(code, 0) + 1
            with open(said + ".tmp", "w") as f:
                f.write(" ".join("%s:%d" % kv for kv in sorted(answers.items())) + "\n")
            os.replace(said + ".tmp", said)
threads = [threading.Thread(target=guess, args=(n,)) for n in range(80)]
for t in threads:
    t.start()
for t in threads:
    t.join()
PYEOF
	FLOOD=$!
	ct_bg "$FLOOD"
	# The flood under way: every flooder answered twice, as many times.
	flood_answered() { [ -s "$T/flood" ] && [ "$(tr ' ' '\n' <"$T/flood" | awk -F: '{ n += $2 } END { print n + 0 }')" -ge 160 ]; }
	wait_while "$FLOOD" flood_answered
	local user said
	for user in s1:one s2:two s3:three; do
		# Each user's password checked here for the first time.
		run curl -sS --max-time 10 -o "$T/scrape" -w '%{http_code} %{time_total}' \
		    -u "$user" "http://127.0.0.1:$PORT/metrics"
		said="scrape as ${user%%:*}: HTTP status and seconds: $output; flood: $(cat "$T/flood")"
		echo "$said"
		echo "# $said" >&3
		[ "$status" -eq 0 ]
		[ "${output%% *}" = 200 ]
		grep -q '^cpustat_event_seconds_total{cpu=' "$T/scrape"
	done
	touch "$T/stop"
	wait "$FLOOD"
	kill -TERM "$CSPID"
	wait "$CSPID"
	cat "$T/err"
	[ ! -s "$T/err" ]
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
	# Twenty-four silent connections from one client: it keeps four, and
	# the server closes each whose request has not come in 5 s.
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

@test "valgrind: cpustat --listen, scraped, not, and by slow clients, then stopped: no errors, no leaks" {
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	if ldd "$CS" | grep -qE 'libasan|libubsan' || grep -q __asan_init "$CS"; then
		skip "sanitizer build: valgrind cannot run it (the sanitizers check this build)"
	fi
	vg() {
		exec valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		    --error-exitcode=99 "$CS" --listen=127.0.0.1:"$PORT" \
		    --format=openmetrics --output="$T/v.prom" -c "$WRITE" 0.1
	}
	start_cpustat vg
	wait_sample 127.0.0.1
	local i
	for i in 1 2 3 4 5; do
		curl -sf -H "Accept: $PROMETHEUS_ACCEPT" "http://127.0.0.1:$PORT/metrics" >"$T/m"
		om_check "$T/m"
		sleep 0.3 # not a wait: the scrapes are spread over cpustat's intervals; at most 5 passes
	done
	# And a connection that never sends its request.
	"$PY" -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); time.sleep(1)' "$PORT"
	# And eight that send a byte now and then: four are cut at once, and a
	# scrape makes room for itself.
	abuse 127.0.0.1 8 8 paced
	curl -sf "http://127.0.0.1:$PORT/metrics" >"$T/m"
	kill -TERM "$CSPID"
	local rc=0
	wait "$CSPID" || rc=$?
	cat "$T/err"
	[ "$rc" -eq 0 ]
	[ ! -s "$T/err" ]
	om_check "$T/v.prom"
}
