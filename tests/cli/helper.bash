# SPDX-License-Identifier: BSD-2-Clause
# Shared set-up for the CLI tests.
load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash

# Tracepoint events need tracefs; mount it when we may.
ensure_tracefs() {
	[ -d /sys/kernel/tracing/events ] && return 0
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events ] ||
		skip "tracefs is not mounted and cannot be mounted here"
}

# Hardware-event tests need a core PMU in the kernel.
require_pmu() {
	ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core|cpu_atom|armv[78]_.*|arm_.*)$' ||
		skip "no hardware PMU in this kernel (VM without a virtual PMU)"
}
