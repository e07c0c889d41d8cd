#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# A build without the BPF engine (here: CPCTOOLS_BPF=OFF; the same holds
# when libbpf, bpftool or clang is missing) still builds the commands;
# the engine's row stays in cputrack's table, and says in one line why
# it cannot be used.

load bpf_helper

setup() {
	T=$BATS_TEST_TMPDIR
	why="this build has no BPF engine: it was turned off at build time (CPCTOOLS_BPF=OFF)"
}

build_without_bpf() {
	cmake -S "$SOURCE_DIR" -B "$T/build" -DCPCTOOLS_BPF=OFF \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$T/configure" 2>&1
	grep -q "BPF engine: not built, it was turned off" "$T/configure"
	cmake --build "$T/build" -j2 --target cputrack cpustat \
	    >"$T/make" 2>&1
	[ -x "$T/build/cmd/cputrack" ]
	[ -x "$T/build/cmd/cpustat" ]
}

@test "built without the engine: --engine=bpf says why, exit 2; auto counts with ptrace" {
	build_without_bpf
	run --separate-stderr "$T/build/cmd/cputrack" --engine=bpf \
	    -c task-clock "$BUILD_DIR/tests/workloads/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --engine=bpf: $why" ]
	[ ! -e "$T/ran" ]

	run --separate-stderr "$T/build/cmd/cputrack" -v -c task-clock \
	    "$BUILD_DIR/tests/workloads/ct_marker" "$T/ran"
	[ "$status" -eq 0 ]
	[ "$stderr" = "cputrack: --engine=auto: counting with ptrace: $why" ]
	[ -e "$T/ran" ]
	[[ "$output" == *" exit "* ]]

	run "$T/build/cmd/cputrack" --version
	[ "$status" -eq 0 ]
	[[ "$output" == *"engine: auto (the default): ptrace here ($why)"* ]]
}
