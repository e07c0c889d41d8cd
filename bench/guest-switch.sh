#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The guest's half of bench/guest-switch, run by /init (tests/qemu/init,
# busybox sh) on the one vCPU of the emulated ARMv8 PMU guest that
# tests/hw/run-qemu-suite --guest boots. Usage: guest-switch.sh ROUNDS:REPS
#
# REPS times, one variant after the other: pingpong ROUNDS bare, then
# tracked by cputrack's BPF engine and by its ptrace engine, and counted
# by perf stat where the initramfs has it (bench/guest-perf), each with a
# set of one group of four hardware events and with a set of three such
# groups (12 events on the PMU's 6 counters, so the kernel takes turns
# with them). cputrack counts user mode, as perf's :u does. Under -icount shift=0 guest time is instructions, so the
# host's load does not change a figure.
#
# Lines on the console, which the host reads:
#   BENCH-START kernel ROUNDS REPS
#   RUN REP VARIANT WALL_NS CPU_NS     pingpong's own figures
#   NOTE VARIANT: line                 what cputrack said, first rep only
#   ERROR VARIANT: why                 with its output under "    | "
#   BENCH-DONE runs=N errors=E

HW=/hw
T=/tmp/bench
mkdir -p $T
cd $HW || exit 1
PATH=$HW:$PATH
ROUNDS=${1%%:*}
REPS=${1##*:}
case "$ROUNDS:$REPS" in
*[!0-9:]* | :* | *:) echo "ERROR mode: want ROUNDS:REPS, got '$1'"; exit 1 ;;
esac

G4=instructions,instructions,instructions,instructions
P4=instructions:u,instructions:u,instructions:u,instructions:u
VARIANTS="bare bpf.1group bpf.3groups ptrace.1group ptrace.3groups"
if perf stat -e instructions:u -o $T/rows true > $T/out 2>&1; then
	VARIANTS="$VARIANTS perf.1group perf.3groups"
	echo "NOTE perf: $(perf version)"
else
	echo "NOTE perf: not in this guest: $(head -1 $T/out)"
fi
# The command that runs the workload, less the set.
tool() {
	case $1 in
	bare) ;;
	bpf.*) echo "cputrack --engine=bpf -T 0 -o $T/rows -c" ;;
	ptrace.*) echo "cputrack --engine=ptrace -T 0 -o $T/rows -c" ;;
	perf.*) echo "perf stat -o $T/rows -e" ;;
	esac
}
# A group in braces is one group to perf; a list without is events
# apart, each in a group of its own. To cputrack it is one group.
set_of() {
	case $1 in
	perf.1group) echo "{$P4}" ;;
	perf.3groups) echo "{$P4},{$P4},{$P4}" ;;
	*.1group) echo "$G4" ;;
	*.3groups) echo "{$G4},{$G4},{$G4}" ;;
	esac
}

runs=0 errors=0
run() {	# run REP VARIANT
	set_spec=$(set_of "$2")
	rm -f $T/rows
	# shellcheck disable=SC2046 # the tool's words
	$(tool "$2") ${set_spec:+"$set_spec"} pingpong "$ROUNDS" > $T/out 2> $T/err
	rc=$?
	# shellcheck disable=SC2046 # WALL_NS CPU_NS
	set -- "$1" "$2" $(tail -1 $T/out)
	if [ $rc != 0 ] || [ $# != 4 ]; then
		echo "ERROR $2: exit $rc"
		sed 's/^/    | /' $T/out $T/err
		errors=$((errors + 1))
		return
	fi
	echo "RUN $1 $2 $3 $4"
	runs=$((runs + 1))
	if [ "$1" = 1 ]; then
		while read -r line; do echo "NOTE $2: $line"; done < $T/err
		# The counts: cputrack's last rows, perf's lines of them.
		if [ -s $T/rows ]; then
			case $2 in
			perf.*) grep instructions $T/rows ;;
			*) grep -v '^ *$' $T/rows | tail -3 ;;
			esac | while read -r line; do echo "NOTE $2: $line"; done
		fi
	fi
}

echo "BENCH-START $(uname -r) $ROUNDS $REPS"
# A first run, not counted: the page cache and the slabs the pipes and
# the thread take.
pingpong "$ROUNDS" > /dev/null
rep=1
while [ $rep -le "$REPS" ]; do
	for v in $VARIANTS; do
		run $rep $v
	done
	rep=$((rep + 1))
done
echo "BENCH-DONE runs=$runs errors=$errors"
