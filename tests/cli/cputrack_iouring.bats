# SPDX-License-Identifier: BSD-2-Clause
# Threads the kernel makes for io_uring in a tracked process: io-wq workers
# (iou-wrk-TID) and submission-queue pollers (iou-sqp-TID), made without
# clone(2) and without a clone event. What each engine counts of them, as
# cputrack(1) says, against perf stat and against the workload's exact
# count: wl_iouring makes each such thread take exactly PAGES kernel page
# faults (page-faults counted in system mode) and complete each read its
# submitting thread made (one, unless the kernel ended one early).
load cputrack_helper

PAGES=1000
PF=page-faults,sys

setup() {
	ct_setup
	IOU=$W/wl_iouring
	local why rc=0
	why=$("$IOU" 1 2>&1) || rc=$?
	[ "$rc" -ne 3 ] || skip "io_uring is not available here: $why" \
	    "(kernel.io_uring_disabled=$(cat /proc/sys/kernel/io_uring_disabled \
	    2>/dev/null || echo unknown))"
	[ "$rc" -eq 0 ]
}

teardown() {
	exec 9>&- 2>/dev/null || true
	ct_teardown
}

# Wait until the workload said $1 on its stdout ($T/wl).
wait_said() {
	wait_line "$T/wl" "^$1\$"
}

# The next line on the workload's stdin (its gate), kept open on fd 9.
open_gate() {
	echo >&9
}

# iou_command [cputrack args] -- [wl_iouring args]: cputrack starts the
# workload, its stdin a FIFO held on fd 9, rows in CSV to $T/csv; waits
# for "ready". Sets CPID and WPID (the workload).
iou_command() {
	local a=()
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	mkfifo "$T/gate"
	"$CT" --format=csv -o "$T/csv" -T 0.1 "${a[@]}" "$IOU" "$@" \
	    <"$T/gate" >"$T/wl" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	exec 9>"$T/gate"
	wait_said ready
	WPID=$(pgrep -P "$CPID")
	[ -n "$WPID" ]
}

# iou_target [wl_iouring args]: the workload alone, stdin on fd 9 as above;
# waits for "ready". Sets WPID.
iou_target() {
	mkfifo "$T/gate"
	"$IOU" "$@" <"$T/gate" >"$T/wl" &
	WPID=$!
	ct_bg "$WPID"
	exec 9>"$T/gate"
	wait_said ready
}

# iou_capture [cputrack args]: cputrack -p the workload, rows in CSV to
# $T/csv; waits for its first tick row. Sets CPID.
iou_capture() {
	"$CT" --format=csv -o "$T/csv" -T 0.1 "$@" -p "$WPID" \
	    >"$T/out" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_row tick ""
}

# End the workload's input and cputrack's run; sets status.
iou_finish() {
	exec 9>&-
	status=0
	wait "$CPID" || status=$?
	[ "$status" -eq 0 ] || cat "$T/err" >&2
}

# The tids of the workload's threads named $1* (iou-wrk-, iou-sqp-).
io_threads() {
	local f
	for f in /proc/"$WPID"/task/*/comm; do
		case $(cat "$f" 2>/dev/null) in
		"$1"*) f=${f%/comm}; echo "${f##*/}" ;;
		esac
	done
}

# CSV rows labelled $1 (of tid $2, or any tid if empty): "tid value" with
# the first event's value (the column after tsc).
rows() {
	awk -F, -v want="$1" -v tid="$2" '
	    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; ev = c["tsc"] + 1; next }
	    $c["label"] == want && (tid == "" || $c["tid"] == tid) {
		print $c["tid"], $(ev + off)
	    }' off="${3:-0}" "$T/csv" 2>/dev/null
}

# Wait for a row labelled $1 of tid $2 ("" any).
wait_row() {
	wait_for has_row "$1" "$2"
}
has_row() {
	[ -n "$(rows "$1" "$2")" ]
}

# The value of the lwp_exit row of tid $1 (event column $2, from 0).
exit_value() {
	rows lwp_exit "$1" "${2:-0}" | awk '{ print $2 }'
}

# The process's exit row value.
exit_total() {
	rows exit "" "${1:-0}" | awk '{ print $2 }'
}

@test "perf stat counts exactly PAGES kernel page faults in each io-wq worker (the reference for what follows)" {
	command -v perf >/dev/null || skip "perf is not installed"
	iou_target -w -g -t 2 "$PAGES"
	perf_stat_bg "$WPID" "$T/perf" -x, --per-thread -e page-faults:k
	open_gate
	exec 9>&-
	wait "$WPID"
	wait "$PERF_PID"
	run awk -F, '$1 ~ /^iou-wrk-/ { print $2 }' "$T/perf"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" -eq "$PAGES" ]
	[ "${lines[1]}" -eq "$PAGES" ]
}

@test "ptrace engine, started command: io-wq workers found at a tick are LWPs (lwp_create, lwp_exit) counted exactly from then on" {
	iou_command --engine=ptrace -c "$PF" -- -w -g -t 2 "$PAGES"
	local wrk t
	wrk=$(io_threads iou-wrk-)
	[ "$(echo "$wrk" | wc -w)" -eq 2 ]
	# Born after the start, with no clone event: found at the next tick.
	for t in $wrk; do wait_row lwp_create "$t"; done
	open_gate
	iou_finish
	[ "$status" -eq 0 ]
	for t in $wrk; do
		[ "$(rows lwp_create "$t" | wc -l)" -eq 1 ]
		[ "$(exit_value "$t")" -eq "$PAGES" ]
		# Each tick row of a worker is one LWP's, as for any thread.
		[ "$(rows tick "$t" | wc -l)" -ge 1 ]
	done
	# 2 submitters and 2 workers created; the process total has them all.
	[ "$(rows lwp_create "" | wc -l)" -eq 4 ]
	[ "$(exit_total)" -ge $((2 * PAGES)) ]
}

@test "ptrace engine, started command: each io-wq worker completes exactly the reads its thread submitted (io_uring:io_uring_complete)" {
	ensure_tracefs
	[ -d /sys/kernel/tracing/events/io_uring/io_uring_complete ] ||
	    skip "no io_uring:io_uring_complete tracepoint in this kernel"
	iou_command --engine=ptrace -c io_uring:io_uring_complete -- \
	    -w -g -t 2 "$PAGES"
	local wrk t reads sum=0
	local -A owner
	wrk=$(io_threads iou-wrk-)
	[ "$(echo "$wrk" | wc -w)" -eq 2 ]
	for t in $wrk; do
		wait_row lwp_create "$t"
		# Its submitting thread, which the kernel names it after.
		owner[$t]=$(sed 's/^iou-wrk-//' "/proc/$WPID/task/$t/comm")
	done
	open_gate
	iou_finish
	[ "$status" -eq 0 ]
	# Shown if the case fails.
	grep '^reads ' "$T/wl"
	rows lwp_exit ""
	for t in $wrk; do
		reads=$(awk -v tid="${owner[$t]}" \
		    '$1 == "reads" && $2 == tid { print $3 }' "$T/wl")
		[ "$(exit_value "$t")" -eq "$reads" ]
		sum=$((sum + reads))
	done
	[ "$(exit_total)" -eq "$sum" ]
}

# pollers_counted [cputrack args]: 2 SQPOLL pollers, there from their
# rings' setup, each an LWP once found, that counts its PAGES faults.
pollers_counted() {
	iou_command "$@" -c "$PF" -- -g -s -t 2 "$PAGES"
	local sqp t
	sqp=$(io_threads iou-sqp-)
	[ "$(echo "$sqp" | wc -w)" -eq 2 ]
	for t in $sqp; do wait_row lwp_create "$t"; done
	open_gate
	iou_finish
	[ "$status" -eq 0 ]
	for t in $sqp; do counted_exactly "$(exit_value "$t")" "$PAGES"; done
}

@test "ptrace engine, started command: an SQPOLL poller (iou-sqp) is an LWP, counted exactly from the tick it is found" {
	pollers_counted --engine=ptrace
}

@test "ptrace engine, -p: the io-wq workers there at the capture are LWPs from the start, counted exactly" {
	iou_target -w -g -t 2 "$PAGES"
	local wrk t
	wrk=$(io_threads iou-wrk-)
	[ "$(echo "$wrk" | wc -w)" -eq 2 ]
	iou_capture --engine=ptrace -c "$PF"
	open_gate
	iou_finish
	[ "$status" -eq 0 ]
	for t in $wrk; do
		# Captured, not created: no lwp_create row.
		[ "$(rows lwp_create "$t" | wc -l)" -eq 0 ]
		[ "$(exit_value "$t")" -eq "$PAGES" ]
	done
	[ "$(exit_total)" -ge $((2 * PAGES)) ]
}

@test "ptrace engine, -p: a worker born after the capture is an LWP from the tick after it came; what it did before is not counted" {
	# No warm-up: the workers are born after the gate, do all their
	# work at once, then idle until the second line.
	iou_target -g -h -t 2 "$PAGES"
	iou_capture --engine=ptrace -c "$PF"
	# No tick while they are born and work: cputrack is stopped (none of
	# the target's threads meets a ptrace-stop meanwhile).
	kill -STOP "$CPID"
	open_gate
	wait_said done
	local wrk t
	wrk=$(io_threads iou-wrk-)
	[ "$(echo "$wrk" | wc -w)" -eq 2 ]
	kill -CONT "$CPID"
	for t in $wrk; do wait_row lwp_create "$t"; done
	open_gate
	iou_finish
	[ "$status" -eq 0 ]
	for t in $wrk; do
		[ "$(rows lwp_create "$t" | wc -l)" -eq 1 ]
		# Its PAGES faults came before it was found.
		[ "$(exit_value "$t")" -eq 0 ]
	done
}

@test "ptrace engine, started command: a worker that comes and goes between two ticks is not seen; perf stat, whose counters it inherits, counts its work" {
	command -v perf >/dev/null || skip "perf is not installed"
	local perf_total
	perf_total=$(perf_count page-faults:k "$IOU" "$PAGES")
	[ "$perf_total" -ge "$PAGES" ]
	# One worker, alive for milliseconds, well before the first tick.
	ct_run --engine=ptrace --format=csv -T 10 -c "$PF" "$IOU" "$PAGES"
	[ "$status" -eq 0 ]
	cp "$T/out" "$T/csv"
	# The submitter is the one LWP created.
	[ "$(rows lwp_create "" | wc -l)" -eq 1 ]
	[ "$(rows exit "" | awk '{ print $2 }')" -lt "$PAGES" ]
}

# The BPF engine, where it runs here. Its counts are exact save where the
# kernel hid a switch from it (counted_exactly, in cputrack_helper.bash).
need_bpf() {
	"$CT" --engine=bpf -c task-clock true >/dev/null 2>"$T/bpferr" ||
	    skip "the BPF engine cannot run here: $(head -1 "$T/bpferr")"
}

@test "BPF engine, -p: the io-wq workers there at the attach are LWPs, counted exactly" {
	need_bpf
	iou_target -w -g -t 2 "$PAGES"
	local wrk t
	wrk=$(io_threads iou-wrk-)
	iou_capture --engine=bpf -D -c "$PF"
	open_gate
	iou_finish
	[ "$status" -eq 0 ]
	for t in $wrk; do counted_exactly "$(exit_value "$t")" "$PAGES"; done
	[ "$(exit_total)" -ge $((2 * PAGES)) ]
}

@test "BPF engine, started command: io-wq workers born after the start are LWPs from their birth (lwp_create), counted exactly" {
	need_bpf
	# No warm-up: the workers are born after the gate and do all their
	# work at once, between two ticks.
	iou_command --engine=bpf -D -c "$PF" -- -g -h -t 2 "$PAGES"
	open_gate
	wait_said done
	local wrk t
	wrk=$(io_threads iou-wrk-)
	[ "$(echo "$wrk" | wc -w)" -eq 2 ]
	for t in $wrk; do wait_row lwp_create "$t"; done
	open_gate
	iou_finish
	[ "$status" -eq 0 ]
	for t in $wrk; do
		[ "$(rows lwp_create "$t" | wc -l)" -eq 1 ]
		counted_exactly "$(exit_value "$t")" "$PAGES"
	done
	[ "$(exit_total)" -ge $((2 * PAGES)) ]
}

@test "BPF engine, started command: an SQPOLL poller (iou-sqp) is an LWP from its birth, counted exactly" {
	need_bpf
	pollers_counted --engine=bpf -D
}
