#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cpustat's listener from its start to its end: scraped while it counts,
# then, with --linger, once the count is done, after which it ends. Its
# name puts it in the ThreadSanitizer pass (scripts/test --tsan), which
# watches the server's thread and the main thread that stops it.

bats_require_minimum_version 1.5.0
load output_helper

setup() {
	out_setup
	need_listener
}

teardown() {
	out_teardown
}

@test "cpustat --listen --linger: scraped while counting and once the count is done, then it ends, saying nothing" {
	local port
	port=$(free_port)
	"$CS" --listen=127.0.0.1:"$port" --linger=600 --output="$T/rows" \
	    -c task-clock 0.1 3 2>"$T/err" &
	CSPID=$!
	ct_bg "$CSPID"
	wait_while "$CSPID" curl -sf -o "$T/during" \
	    "http://127.0.0.1:$port/metrics"
	wait_while "$CSPID" lingering "$port"
	curl -sf "http://127.0.0.1:$port/metrics" >"$T/final"
	grep -q '^cpustat_event_seconds_total{cpu=' "$T/final"
	wait_for ended "$CSPID"
	wait "$CSPID"
	[ ! -s "$T/err" ]
	grep -q ' total ' "$T/rows"
}
