#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# --listen across a network: TLS, basic authentication and a bearer
# token from the exporter toolkit's web configuration (--web-config). The
# test makes a CA, a certificate for 127.0.0.1, a bcrypt password and a
# token; Debian's Prometheus scrapes cpustat over TLS with the CA, with
# the right password or token (up), with none, with a wrong password
# and with a wrong token (refused: down), and without TLS (down). curl
# says the same, status by status.
#
# Everything listens on 127.0.0.1, on free ports, with its own files in
# the test's directory, and is stopped by the test.

bats_require_minimum_version 1.5.0

load fleet_helper

# ca, then a certificate for 127.0.0.1 that it signs; a password hashed
# with bcrypt; a token, and a wrong one; the web configuration naming
# them.
make_credentials() {
	local d=$D/tls
	mkdir -p "$d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -keyout "$d/ca.key" -out "$d/ca.crt" -days 2 \
	    -subj /CN=cpctools-test-ca 2>/dev/null &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -keyout "$d/server.key" -out "$d/server.csr" \
	    -subj /CN=127.0.0.1 2>/dev/null &&
	printf 'subjectAltName=IP:127.0.0.1\n' >"$d/ext" &&
	openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" \
	    -CAkey "$d/ca.key" -CAcreateserial -out "$d/server.crt" -days 2 \
	    -extfile "$d/ext" 2>/dev/null || return 1
	chmod 600 "$d/server.key"
	HASH=$(/usr/bin/python3 -W ignore -c 'import crypt, sys
print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))' "$PASSWORD")
	[[ $HASH == '$2'* ]] || return 1
	head -c 32 /dev/urandom | base64 >"$d/token"
	head -c 32 /dev/urandom | base64 >"$d/wrong.token"
	chmod 600 "$d/token" "$d/wrong.token"
	cat >"$d/web.yml" <<-EOF
		tls_server_config:
		  cert_file: server.crt
		  key_file: server.key
		basic_auth_users:
		  prometheus: $HASH
		bearer_token_file: token
	EOF
}

setup_file() {
	export D=$BATS_FILE_TMPDIR PASSWORD=correct-horse
	[ -x "${CPUSTAT:-}" ] || return 0
	local c
	for c in curl openssl /usr/bin/python3; do
		command -v "$c" >/dev/null ||
		    { echo "$c is not installed" >"$D/skip"; return 0; }
	done
	if ! install_packages; then
		echo "cannot install prometheus: $(tail -1 "$D/apt.log" 2>/dev/null)" >"$D/skip"
		return 0
	fi
	make_credentials ||
	    { echo "cannot make a certificate or a bcrypt hash here" >"$D/skip"; return 0; }
	export CS_PORT PROM_PORT
	CS_PORT=$(free_port)
	PROM_PORT=$(free_port)
	cat >"$D/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		scrape_configs:
		  - job_name: auth
		    scheme: https
		    tls_config:
		      ca_file: $D/tls/ca.crt
		    basic_auth:
		      username: prometheus
		      password: $PASSWORD
		    static_configs:
		      - targets: ['127.0.0.1:$CS_PORT']
		  - job_name: nocredentials
		    scheme: https
		    tls_config:
		      ca_file: $D/tls/ca.crt
		    static_configs:
		      - targets: ['127.0.0.1:$CS_PORT']
		  - job_name: wrongpassword
		    scheme: https
		    tls_config:
		      ca_file: $D/tls/ca.crt
		    basic_auth:
		      username: prometheus
		      password: wrong-$PASSWORD
		    static_configs:
		      - targets: ['127.0.0.1:$CS_PORT']
		  - job_name: token
		    scheme: https
		    tls_config:
		      ca_file: $D/tls/ca.crt
		    authorization:
		      credentials_file: $D/tls/token
		    static_configs:
		      - targets: ['127.0.0.1:$CS_PORT']
		  - job_name: wrongtoken
		    scheme: https
		    tls_config:
		      ca_file: $D/tls/ca.crt
		    authorization:
		      credentials_file: $D/tls/wrong.token
		    static_configs:
		      - targets: ['127.0.0.1:$CS_PORT']
		  - job_name: plainhttp
		    static_configs:
		      - targets: ['127.0.0.1:$CS_PORT']
	EOF
	"$CPUSTAT" --shared --listen=127.0.0.1:"$CS_PORT" \
	    --web-config="$D/tls/web.yml" --output=/dev/null -c task-clock 0.5 \
	    >"$D/cpustat.out" 2>"$D/cpustat.err" &
	remember cpustat $!
	start_prometheus || true
}

stop_all() {
	stop_daemons cpustat prometheus
}

teardown_file() {
	stop_all
}

setup() {
	fleet_ready CPUSTAT
}

# status_of ARGS...: the HTTP status curl gets from cpustat's /metrics
# over TLS, the CA trusted; 000 where there was no HTTP answer.
status_of() {
	curl -s -o /dev/null -w '%{http_code}' --cacert "$D/tls/ca.crt" "$@" \
	    "https://127.0.0.1:$CS_PORT/metrics" || true
}

# let_in: cpustat's /metrics answers the right user 200.
let_in() {
	[ "$(status_of -u "prometheus:$PASSWORD")" = 200 ]
}

# tls_answers PORT: an HTTPS server on PORT, its CA trusted, answers.
tls_answers() {
	curl -s -o /dev/null --cacert "$D/tls/ca.crt" "https://127.0.0.1:$1/metrics"
}

# all_scraped: Prometheus has scraped every job, the auth and token jobs
# with up 1.
all_scraped() {
	[ "$(promql 'count(up{job=~"auth|token|nocredentials|wrongpassword|wrongtoken|plainhttp"})' "$(now)")" = 6 ] &&
	    [ "$(promql 'up{job="auth"}' "$(now)")" = 1 ] &&
	    [ "$(promql 'up{job="token"}' "$(now)")" = 1 ]
}

@test "curl: the metrics over TLS to the right user and password, or the token; 401 to none, a wrong one, an unknown user or a wrong token; nothing over plain HTTP; the probes to anyone" {
	wait_for let_in
	[ "$(status_of -u "prometheus:$PASSWORD")" = 200 ]
	curl -sf --cacert "$D/tls/ca.crt" -u "prometheus:$PASSWORD" \
	    "https://127.0.0.1:$CS_PORT/metrics" | grep -q '^cpctools_build_info{tool="cpustat"'
	[ "$(status_of)" = 401 ]
	[ "$(status_of -u "prometheus:wrong")" = 401 ]
	[ "$(status_of -u "someone:$PASSWORD")" = 401 ]
	[ "$(status_of --oauth2-bearer "$(cat "$D/tls/token")")" = 200 ]
	[ "$(status_of --oauth2-bearer "$(cat "$D/tls/wrong.token")")" = 401 ]
	curl -sI --cacert "$D/tls/ca.crt" "https://127.0.0.1:$CS_PORT/metrics" |
	    grep -qi '^www-authenticate: basic realm="cpctools"'
	# A client that does not trust the CA is refused by TLS itself.
	run ! curl -sf -o /dev/null -u "prometheus:$PASSWORD" \
	    "https://127.0.0.1:$CS_PORT/metrics"
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$CS_PORT/metrics" || true)" != 200 ]
	# The probes' paths over TLS, as a kubelet asks: no password, no series.
	[ "$(curl -sf --cacert "$D/tls/ca.crt" "https://127.0.0.1:$CS_PORT/-/healthy")" = healthy ]
	[ "$(curl -sf --cacert "$D/tls/ca.crt" "https://127.0.0.1:$CS_PORT/-/ready")" = ready ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$D/tls/ca.crt" "https://127.0.0.1:$CS_PORT/")" = 401 ]
}

@test "TLS versions: 1.2 and 1.3 by default; min_version TLS13 refuses a TLS 1.2 client, max_version TLS12 a TLS 1.3-only one" {
	local port pid cfg
	[ "$(status_of --tls-max 1.2 -u "prometheus:$PASSWORD")" = 200 ]
	[ "$(status_of --tlsv1.3 -u "prometheus:$PASSWORD")" = 200 ]
	for cfg in "min_version: TLS13" "max_version: TLS12"; do
		sed "/key_file:/a\\  $cfg" "$D/tls/web.yml" >"$D/tls/versions.yml"
		port=$(free_port)
		"$CPUTRACK" --listen=127.0.0.1:"$port" \
		    --web-config="$D/tls/versions.yml" -o /dev/null \
		    -c task-clock sleep 600 2>"$D/versions.err" &
		pid=$!
		wait_while "$pid" tls_answers "$port" || true
		case $cfg in
		min*)
			[ "$(CS_PORT=$port status_of --tlsv1.3 -u "prometheus:$PASSWORD")" = 200 ]
			[ "$(CS_PORT=$port status_of --tls-max 1.2 -u "prometheus:$PASSWORD")" = 000 ] ;;
		max*)
			[ "$(CS_PORT=$port status_of --tls-max 1.2 -u "prometheus:$PASSWORD")" = 200 ]
			[ "$(CS_PORT=$port status_of --tlsv1.3 -u "prometheus:$PASSWORD")" = 000 ] ;;
		esac
		# The TLS refusals were the library's: cputrack said nothing.
		run ! grep -q . "$D/versions.err"
		kill -TERM "$pid"
		wait "$pid" || true
	done
}

@test "Prometheus scrapes with the right password or token (up 1, series stored) and is refused without them, with a wrong password, a wrong token and without TLS (up 0)" {
	local job up jobs="auth token nocredentials wrongpassword wrongtoken plainhttp"
	# Until every job has been scraped: Prometheus spreads the jobs'
	# first scrapes over the interval, and the auth job has scraped once
	# cpustat served it.
	wait_for all_scraped || true
	for job in $jobs; do
		up=$(promql "up{job=\"$job\"}" "$(now)")
		echo "$job: up $up"
		case $job in
		auth | token) [ "$up" = 1 ] ;;
		*) [ "$up" = 0 ] ;;
		esac
	done
	[[ $(promql 'count(cpustat_event_seconds_total{job="auth"})' "$(now)") =~ ^[1-9][0-9]*$ ]]
	[[ $(promql 'count(cpustat_event_seconds_total{job="token"})' "$(now)") =~ ^[1-9][0-9]*$ ]]
	[ "$(promql 'count(cpustat_event_seconds_total{job="nocredentials"})' "$(now)")" = none ]
}

@test "everything stops: cpustat exits 0 and said nothing" {
	stop_all
	[ ! -s "$D/cpustat.err" ] || { cat "$D/cpustat.err"; false; }
	[ -z "$(daemon_pid cpustat)" ]
	! curl -s -o /dev/null --cacert "$D/tls/ca.crt" "https://127.0.0.1:$CS_PORT/"
}
