#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# A build without the BPF engine (here: CPCTOOLS_BPF=OFF; the same holds
# when libbpf, bpftool or clang is missing) still builds the commands,
# and the engine says, in one line, why it cannot be used.

load bpf_helper

setup() {
	T=$BATS_TEST_TMPDIR
}

@test "built without the engine: the commands build, and the engine says why, exit 2" {
	cmake -S "$SOURCE_DIR" -B "$T/build" -DCPCTOOLS_BPF=OFF \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$T/configure" 2>&1
	grep -q "BPF engine: not built, it was turned off" "$T/configure"
	cmake --build "$T/build" -j2 --target cputrack cpustat bpfdrive \
	    >"$T/make" 2>&1
	[ -x "$T/build/cmd/cputrack" ]
	[ -x "$T/build/cmd/cpustat" ]
	why="this build has no BPF engine: it was turned off at build time (CPCTOOLS_BPF=OFF)"
	run "$T/build/tests/bpf/bpfdrive" -u
	[ "$status" -eq 2 ]
	[ "$output" = "$why" ]
	run --separate-stderr "$T/build/tests/bpf/bpfdrive" -c task-clock \
	    "$BUILD_DIR/tests/workloads/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ "$stderr" = "bpfdrive: $why" ]
	[ ! -e "$T/ran" ]
}
