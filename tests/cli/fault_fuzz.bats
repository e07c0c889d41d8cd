#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# Regression tests for what the fuzz targets (tests/fuzz) found. Each
# input is also kept in tests/fuzz/corpus/, which every fuzz run replays.

load helper

# Found by fuzz_cpustat_args (UBSan: "1e+303 is outside the range of
# representable values of type 'long'"): a -p period out of range was
# converted to milliseconds before it was refused.
@test "cpustat -p out of range: invalid parameter, one line, exit 2, no overflow" {
	for p in 1e300 1e303 -1e300 inf nan 1e9; do
		run "$CPUSTAT" -c task-clock -p "$p" 1 1
		[ "$status" -eq 2 ]
		[ "$output" = "cpustat: invalid parameter \"$p\"" ]
	done
}
