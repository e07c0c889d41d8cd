#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The Prometheus rules cpctools ships (dist/prometheus): promtool, from
# Debian's prometheus package, accepts them, and its unit tests
# (cpctools_rules_test.yml) prove the scaled rates of sets that take
# turns, the derived instructions per cycle and the alerts.

bats_require_minimum_version 1.5.0

load fleet_helper

setup() {
	SRC=${SOURCE_DIR:-$BATS_TEST_DIRNAME/../..}
	RULES=$SRC/dist/prometheus/cpctools.rules.yml
	install_packages ||
	    skip "cannot install prometheus: $(tail -1 "$BATS_FILE_TMPDIR/apt.log" 2>/dev/null)"
	command -v promtool >/dev/null || skip "promtool is not installed"
}

@test "promtool check rules accepts the shipped rules, every one" {
	run promtool check rules "$RULES"
	echo "$output"
	[ "$status" -eq 0 ]
	# Every rule of the file, recording and alerting, was read.
	local n
	n=$(grep -cE '^ *- (record|alert):' "$RULES")
	[[ $output == *"SUCCESS: $n rules found"* ]]
}

@test "promtool test rules: scaled rates of two sets taking turns, per cgroup, process and CPU; instructions per cycle; CPUs utilized, GHz and K/sec; the alerts" {
	run promtool test rules "$SRC/tests/fleet/cpctools_rules_test.yml"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *SUCCESS* ]]
}
