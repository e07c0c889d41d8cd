#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# --listen against a crowd: hundreds of clients, each from a loopback
# address of its own (127.1.x.y, which any local user may bind), holding
# connections that say nothing, or sending wrong passwords again and
# again (from addresses of their own, or from the scraper's own), each
# connecting again as soon as it is cut. A scraper with the
# right password is answered every time: one whose password passed before
# (a returning scraper), and one whose password is checked now (a new
# scraper, as after a rotation). The exporter runs with the descriptors
# the units give it, so that it keeps its bound of all clients (256
# connections). How long each scrape took is shown: each is bounded by a
# scrape's time-out (10 s), what Prometheus gives it by default. A
# scraper with the bearer token (bearer_token_file) is answered apart
# from the password checks: on its first try within the time-out, and
# again within a second, whatever the flood of wrong passwords.

load output_helper

setup() {
	out_setup
	need_listener
	"$PY" -c 'import socket; socket.socket().bind(("127.1.3.250", 0))' 2>/dev/null ||
		skip "127.1.3.250 cannot be bound here (no loopback /8)"
	CROWD=$SOURCE_DIR/tests/cli/crowd.py
}

teardown() {
	touch "$T/stop"
	out_teardown
}

# web_config COST USER:PASSWORD...: $T/web.yml with those users.
web_config() {
	local cost=$1 u
	shift
	{
		echo 'basic_auth_users:'
		for u in "$@"; do
			printf '  %s: %s\n' "${u%%:*}" "$(bcrypt_hash "${u#*:}" "$cost")"
		done
	} >"$T/web.yml"
	chmod 600 "$T/web.yml"
}

# with_token: $T/web.yml names $T/token too, a random token, as a
# Secret's would be made (head -c 32 /dev/urandom | base64).
with_token() {
	head -c 32 /dev/urandom | base64 >"$T/token"
	chmod 600 "$T/token"
	echo 'bearer_token_file: token' >>"$T/web.yml"
}

# start_exporter: cpustat --listen with $T/web.yml, in the background
# (CSPID), until it answers; with 4096 descriptors, whose sixteenth is
# the bound of all clients that the units' 65536 give too (256).
start_exporter() {
	PORT=$(free_port)
	(
		ulimit -n 4096
		exec "$CS" --shared --listen=127.0.0.1:"$PORT" \
		    --web-config="$T/web.yml" --output=/dev/null -c task-clock 0.5
	) >"$T/rows" 2>"$T/err" &
	CSPID=$!
	ct_bg "$CSPID"
	wait_while "$CSPID" curl -s -o /dev/null "http://127.0.0.1:$PORT/"
}

# start_crowd MODE N: crowd.py MODE with N clients, in the background
# (CROWD_PID), until all N hold a connection or have had an answer.
start_crowd() {
	rm -f "$T/stop" "$T/crowd"
	(
		ulimit -n 8192
		exec "$PY" "$CROWD" "$1" "$PORT" "$2" "$T/crowd" "$T/stop"
	) &
	CROWD_PID=$!
	ct_bg "$CROWD_PID"
	crowd_made() {
		[ -s "$T/crowd" ] && [ "$(awk '{ print $4 }' "$T/crowd")" -ge "$1" ]
	}
	wait_while "$CROWD_PID" crowd_made "$2"
}

# end_round: the crowd told to stop and gone, the exporter ended by
# SIGTERM, having said nothing on standard error.
end_round() {
	touch "$T/stop"
	wait "$CROWD_PID"
	kill -TERM "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ] || { cat "$T/err"; return 1; }
}

# crowd_closed N: N of the crowd's connections have ended, answered or cut.
crowd_closed() {
	[ "$(awk '{ print $6 }' "$T/crowd")" -ge "$1" ]
}

# scrape USER:PASSWORD WHAT: one scrape, bounded by a scrape's time-out;
# it must be answered with the metrics. Its time is shown, with the crowd.
scrape() {
	scrape_as "$2" 10 -u "$1"
}

# scrape_token WHAT SECONDS: one scrape with the bearer token, bounded by
# SECONDS; it must be answered with the metrics.
scrape_token() {
	scrape_as "$1" "$2" -H "Authorization: Bearer $(cat "$T/token")"
}

# scrape_as WHAT SECONDS CURL-ARGS...: one scrape with the credentials
# of CURL-ARGS, bounded by SECONDS, answered with the metrics.
scrape_as() {
	local said what=$1 bound=$2
	shift 2
	running "$CROWD_PID"
	run curl -sS --max-time "$bound" -o "$T/scrape" -w '%{http_code} %{time_total}' \
	    "$@" "http://127.0.0.1:$PORT/metrics"
	said="$what scrape: HTTP status and seconds: $output; crowd: $(cat "$T/crowd")"
	echo "$said"
	echo "# $said" >&3
	[ "$status" -eq 0 ]
	[ "${output%% *}" = 200 ]
	grep -q '^cpustat_start_time_seconds ' "$T/scrape"
}

# scrapes_in_crowd MODE N: with the crowd of MODE and N, three returning
# scrapes and three new ones, each answered; the crowd was cut and came
# again meanwhile, or was refused.
scrapes_in_crowd() {
	web_config 10 prom:s3cret s1:one s2:two s3:three
	start_exporter
	# The returning scraper's password passes once before the crowd.
	run curl -s -o /dev/null -w '%{http_code}' -u prom:s3cret \
	    "http://127.0.0.1:$PORT/metrics"
	[ "$output" = 200 ]
	start_crowd "$1" "$2"
	local i
	for i in 1 2 3; do
		scrape prom:s3cret returning
	done
	for i in one:s1 two:s2 three:s3; do
		scrape "${i#*:}:${i%%:*}" new
	done
	# The crowd was there all along, and makes more connections than it
	# holds: it was cut, or answered, and comes again (an idle one cut
	# is let go some seconds later, not at once: the exporter holds it
	# so that it does not come back thousands of times a second).
	wait_while "$CROWD_PID" crowd_closed 1
	[ "$(awk '{ print $4 }' "$T/crowd")" -gt "$2" ]
	end_round
}

@test "300 idle connections from 300 addresses: returning and new scrapers answered, every time" {
	scrapes_in_crowd idle 300
}

@test "1,000 idle connections from 1,000 addresses: returning and new scrapers answered, every time" {
	scrapes_in_crowd idle 1000
}

@test "300 addresses sending wrong passwords, each its own: returning and new scrapers answered, every time" {
	scrapes_in_crowd guess 300
}

@test "a rotation: 80 addresses keep the old password on an exporter just started (bcrypt cost 12); the new password is answered, 3 times of 3" {
	local round
	web_config 12 prom:new
	for round in 1 2 3; do
		start_exporter
		start_crowd rotated 80
		scrape prom:new "round $round: new password"
		end_round
	done
}

@test "5 connections from the scraper's own address, each sending a wrong password new each time (bcrypt cost 10): a new scraper's first try is answered, a bearer token's at once, 3 times of 3" {
	local round
	web_config 10 prom:s3cret
	with_token
	for round in 1 2 3; do
		start_exporter
		start_crowd own 5
		# The address has been refused again and again before the
		# scraper asks.
		wait_while "$CROWD_PID" crowd_closed 10
		scrape_token "round $round: bearer token, first try, on the crowd's address" 10
		scrape_token "round $round: bearer token, again" 1
		scrape prom:s3cret "round $round: new scraper on the crowd's address"
		end_round
	done
}

@test "a fresh address in a fresh /24 for each wrong password, 20 a second (bcrypt cost 10): a bearer token's first try is answered, and again within 1 s, 3 times of 3; a wrong token 401 within 1 s" {
	local round
	web_config 10 prom:s3cret
	with_token
	for round in 1 2 3; do
		start_exporter
		start_crowd fresh 20
		# The flood outruns the checker: its checks wait longer than
		# a scrape's time-out, and are cut unanswered, as a new
		# password's first try was.
		crowd_outran() { grep -q ' closed:' "$T/crowd"; }
		wait_while "$CROWD_PID" crowd_outran
		scrape_token "round $round: bearer token, first try" 10
		scrape_token "round $round: bearer token, again" 1
		scrape_token "round $round: bearer token, once more" 1
		# A wrong token: 401 within a second, not behind the checks.
		echo "Authorization: Bearer $(head -c 32 /dev/urandom | base64)" >"$T/wrong"
		run curl -sS --max-time 1 -o /dev/null -w '%{http_code}' -H @"$T/wrong" \
		    "http://127.0.0.1:$PORT/metrics"
		[ "$output" = 401 ]
		end_round
	done
}
