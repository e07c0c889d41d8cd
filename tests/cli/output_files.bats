#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# Output paths that are not plain files, and files that cannot be
# written: a FIFO that no process reads is refused at once (open(2)
# never waits), with a reader it gets the rows; the metrics file's
# temporary is made with O_EXCL|O_NOFOLLOW under a name no one can
# foresee; an -o that cannot be opened names its path and errno; and a
# full disk ends the run, letting a process captured with -p go, with
# both engines, as it stops cpustat.

load output_helper

setup() {
	out_setup
}

teardown() {
	out_teardown
}

@test "-o FIFO that no process reads: one line, exit 1, nothing started; cpustat the same" {
	mkfifo "$T/fifo"
	local fmt
	for fmt in table prometheus; do
		run --separate-stderr timeout 30 "$CT" --format="$fmt" -o "$T/fifo" \
		    -c "$WRITE" "$W/ct_marker" "$T/ran"
		echo "$fmt: $status: $stderr"
		[ "$status" -eq 1 ]
		[ "$stderr" = "cputrack: cannot open '$T/fifo' for writing: a FIFO that no process reads" ]
		[ ! -e "$T/ran" ]
		run --separate-stderr timeout 30 "$CS" --format="$fmt" \
		    --output="$T/fifo" -c task-clock 0.1 1
		echo "$fmt: $status: $stderr"
		[ "$status" -eq 1 ]
		[ "$stderr" = "cpustat: cannot open '$T/fifo' for writing: a FIFO that no process reads" ]
	done
}

@test "-o FIFO with a reader: the rows go there, written as to any file" {
	mkfifo "$T/fifo"
	# A reader from the start: it holds the FIFO open without waiting for
	# a writer (which a reader's plain open would, so that on a busy
	# machine cputrack could come first and find no reader), then reads
	# it to its end.
	"$PY" -c 'import os, sys
fifo, out, ready = sys.argv[1:4]
hold = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
open(ready, "w").close()
with open(fifo, "rb") as f, open(out, "wb") as o:
    os.close(hold)
    o.write(f.read())' "$T/fifo" "$T/got" "$T/ready" &
	ct_bg $!
	wait_file "$T/ready"
	ct_run -o "$T/fifo" -T 0 -c "$WRITE" "$W/wl_threads" 2 100
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	wait $!
	[ "$(awk '$3 == "lwp_exit" { print $2, $4 }' "$T/got" | sort)" = "$(printf '%s\n' '2 100' '3 100')" ]
}

@test "-o that cannot be opened: the path and the reason" {
	ct_run -o "$T/no/such/dir/f" -c "$WRITE" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: cannot open '$T/no/such/dir/f' for writing: No such file or directory" ]
	[ ! -e "$T/ran" ]
	mkdir "$T/dir"
	ct_run -o "$T/dir" -c "$WRITE" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: cannot open '$T/dir' for writing: Is a directory" ]
	[ ! -e "$T/ran" ]
}

@test "-o of a run that fails to start keeps the file as it was, and makes none; a run that starts replaces it" {
	printf 'rows of an earlier run\n' >"$T/kept"
	ct_run -o "$T/kept" -c "$WRITE" "$T/no-such-program"
	[ "$status" -eq 1 ]
	[ "$(cat "$T/kept")" = "rows of an earlier run" ]
	ct_run -o "$T/kept" -p 2147483647 -c "$WRITE"
	[ "$status" -ne 0 ]
	[ "$(cat "$T/kept")" = "rows of an earlier run" ]
	ct_run -o "$T/made" -c "$WRITE" "$T/no-such-program"
	[ "$status" -eq 1 ]
	[ ! -e "$T/made" ]
	ct_run -n -o "$T/kept" -c "$WRITE" "$W/wl_threads" 1 5
	[ "$status" -eq 0 ]
	[ "$(awk '$3 == "exit" { print $4 }' "$T/kept")" = 5 ]
	! grep -q 'earlier run' "$T/kept"
}

@test "the metrics file's temporary: beside it, O_EXCL|O_NOFOLLOW, a name no one can foresee" {
	command -v strace >/dev/null || skip "strace is not installed"
	local i
	# cpustat's output is the same code; cputrack's ptrace engine could
	# not trace under strace -f.
	for i in 1 2; do
		ASAN_OPTIONS=$(asan_under_ptrace) \
		    strace -f -qq -e trace=openat -o "$T/trace$i" "$CS" \
		    --format=prometheus --output="$T/m.prom" -c task-clock 0.1 3 \
		    2>"$T/err"
		[ ! -s "$T/err" ]
		grep -F "\"$T/m.prom." "$T/trace$i" >"$T/tmp$i"
		cat "$T/tmp$i"
		# Every temporary it made was made so.
		[ -s "$T/tmp$i" ]
		run ! grep -v 'O_CREAT' "$T/tmp$i"
		run ! grep -v 'O_EXCL' "$T/tmp$i"
		run ! grep -v 'O_NOFOLLOW' "$T/tmp$i"
		grep -o "\"$T/m.prom.[^\"]*\"" "$T/tmp$i" | sort -u >"$T/names$i"
	done
	# No name was made twice, in one run or across both.
	[ -z "$(sort "$T/names1" "$T/names2" | uniq -d)" ]
	grep -q '^cpustat_event_seconds_total{' "$T/m.prom"
	# Nothing is left beside it.
	[ "$(ls "$T" | grep -c '^m\.prom')" -eq 1 ]
}

# full_disk ENGINE: cputrack -p, writing its rows to a 64 KiB tmpfs of a
# mount namespace of its own, on a process that runs for a minute: it
# must end at the first write error, exit 1 saying it, and let the
# process go (running, untraced, not stopped).
full_disk() {
	[ "$(id -u)" -eq 0 ] || skip "mounting a tmpfs needs root"
	unshare --mount --propagation private true 2>/dev/null ||
		skip "new mount namespaces cannot be made here"
	"$W/ct_steady" 1 5 10 6000 &
	local target=$!
	ct_bg "$target"
	mkdir "$T/full"
	run --separate-stderr timeout -k 5 60 unshare --mount --propagation private \
	    sh -c 'mount -t tmpfs -o size=64k tmpfs "$1" && shift && exec "$@"' sh \
	    "$T/full" "$CT" --engine="$1" -p "$target" -T 0.001 -c "$WRITE" \
	    -o "$T/full/rows"
	echo "$status: $stderr"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: write error on '$T/full/rows': No space left on device" ]
	running "$target"
	assert_free "$target"
}

@test "a full disk ends cputrack -p, and lets the process go (ptrace engine)" {
	full_disk ptrace
}

@test "a full disk ends cputrack -p, and lets the process go (BPF engine)" {
	"$CT" --engine=bpf -c task-clock true >/dev/null 2>"$T/bpferr" ||
		skip "the BPF engine cannot run here: $(head -1 "$T/bpferr")"
	full_disk bpf
}
