#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# The BPF engine on commands it starts: exact per-thread and per-process
# counts of write(2) calls (a tracepoint), for threads, thread churn, fork
# trees, execs (one total per image, a non-leader exec, an exec not
# followed), checked against perf stat; exit statuses; the started
# command is never traced.

load bpf_helper

setup() {
	bd_setup
}

teardown() {
	ct_teardown
}

@test "threads: each thread's lwp_exit is K, the process total is the sum, as perf stat counts" {
	bd_run -c "$WRITE" "$W/wl_threads" 4 1000 77
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	pid=$(bd_first_pid)
	[ "$(bd_count create)" -eq 5 ]
	[ "$(bd_rows create | awk '$3 == "new"' | wc -l)" -eq 4 ]
	# Four threads of 1000 each; the main thread (tid = pid) made 77.
	[ "$(bd_lwp_exits "$pid" | awk -v p="$pid" '$1 != p { print $2 }' |
	    sort -u)" = 1000 ]
	[ "$(bd_lwp_exits "$pid" | awk -v p="$pid" '$1 == p { print $2 }')" = 77 ]
	[ "$(bd_total "$pid")" -eq 4077 ]
	[ "$(bd_rows exit)" = "$pid 0" ]
	[ "$(perf_count "$WRITE" "$W/wl_threads" 4 1000 77)" -eq 4077 ]
}

@test "thread churn: 100 short threads, each created and ended once with exactly 30" {
	bd_run -c "$WRITE" "$W/wl_churn" 20 5 30
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	[ "$(bd_rows create | awk '$3 == "new"' | wc -l)" -eq 100 ]
	[ "$(bd_lwp_exits "$pid" | awk -v p="$pid" '$1 != p' | wc -l)" -eq 100 ]
	[ "$(bd_lwp_exits "$pid" | awk -v p="$pid" '$1 != p { print $1 }' |
	    sort -u | wc -l)" -eq 100 ]
	[ "$(bd_lwp_exits "$pid" | awk -v p="$pid" '$1 != p && $2 != 30' |
	    wc -l)" -eq 0 ]
	[ "$(bd_total "$pid")" -eq 3000 ]
	[ "$(perf_count "$WRITE" "$W/wl_churn" 20 5 30)" -eq 3000 ]
}

@test "many threads alive at once: 200 threads, exact each" {
	bd_run -c "$WRITE" "$W/tt_manythreads" 200 20
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	[ "$(bd_lwp_exits "$pid" | awk '$2 == 20' | wc -l)" -eq 201 ]
	[ "$(bd_total "$pid")" -eq 4020 ]
}

@test "-f fork tree: a fork row per child, every process counted once, exactly, as perf stat" {
	bd_run -f -c "$WRITE" "$W/wl_forktree" 2 3 250
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	pid=$(bd_first_pid)
	# 1 + 3 + 9 processes: 12 forks, 13 exits, 250 writes each.
	[ "$(bd_count fork)" -eq 12 ]
	[ "$(bd_count exit)" -eq 13 ]
	[ "$(bd_rows exit_total | awk '$3 != 250' | wc -l)" -eq 0 ]
	[ "$(bd_rows exit_total | awk '{ s += $3 } END { print s }')" -eq 3250 ]
	# Each forked child is counted from its first thread, exits once.
	diff <(bd_rows fork | awk '{ print $3 }' | sort) \
	    <(bd_rows exit | awk -v p="$pid" '$1 != p { print $1 }' | sort)
	[ "$(bd_rows create | awk '$3 == "first"' | wc -l)" -eq 13 ]
	[ "$(perf_count "$WRITE" "$W/wl_forktree" 2 3 250)" -eq 3250 ]
}

@test "without -f: fork rows, the children are not counted" {
	bd_run -c "$WRITE" "$W/wl_forktree" 1 3 100
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	[ "$(bd_count fork)" -eq 3 ]
	[ "$(bd_rows exit)" = "$pid 0" ]
	[ "$(bd_total "$pid")" -eq 100 ]
	[ "$(bd_count create)" -eq 1 ]
}

@test "-f: vfork+exec and a bare clone(2) child are followed as processes" {
	bd_run -f -e -c "$WRITE" "$W/wl_vfork_exec" 40 "$W/wl_threads" 2 30
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	child=$(bd_rows fork | awk '{ print $3 }')
	[ -n "$child" ]
	[ "$(bd_total "$pid")" -eq 40 ]
	[ "$(bd_total "$child")" -eq 60 ]
	bd_run -f -c "$WRITE" "$W/wl_clone_proc" 10 20
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	child=$(bd_rows fork | awk '{ print $3 }')
	[ "$(bd_total "$pid")" -eq 10 ]
	[ "$(bd_total "$child")" -eq 20 ]
}

@test "-e exec chain: one total per image, each exactly K, args as psargs" {
	bd_run -e -c "$WRITE" "$W/wl_exec_chain" 3 120
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	[ "$(bd_total "$pid" 0 exec_total)" = "$(printf '120\n120\n120')" ]
	[ "$(bd_total "$pid")" -eq 120 ]
	[ "$(bd_rows exec | awk '{ print $3 }' | sort -u)" = followed ]
	[ "$(bd_rows exec | sed -n 1p)" = \
	    "$pid $pid followed '$(psargs "$W/wl_exec_chain" 2 120)'" ]
	# A thread per image, counted from zero: create first, 4 in all.
	[ "$(bd_rows create | awk '$3 == "first"' | wc -l)" -eq 4 ]
	[ "$(perf_count "$WRITE" "$W/wl_exec_chain" 3 120)" -eq 480 ]
}

@test "-e non-leader exec: the old leader ends by the exec, the image total has both threads" {
	bd_run -e -c "$WRITE" "$W/wl_nonleader_exec" 100 "$W/wl_threads" 2 50
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	[ "$(bd_rows lwp_exit | sed -n 1p | awk '{ print $1, $2, $4, $NF }')" = \
	    "$pid $pid 100 by_exec" ]
	# The exec'ing thread (another tid) made 100 too: 200 for the image.
	[ "$(bd_total "$pid" 0 exec_total)" -eq 200 ]
	[ "$(bd_rows exec | awk '{ print $2 != $1 }')" -eq 1 ]
	[ "$(bd_total "$pid")" -eq 100 ]
}

@test "an exec without -e: its image total, then the process runs on uncounted" {
	# The new image waits at a gate (a FIFO no one writes yet), then
	# marks its end.
	mkfifo "$T/gate"
	bd_run -c "$WRITE" "$W/ct_exec" 10 /bin/sh -c \
	    'read -r go <"$0" && : >"$1"' "$T/gate" "$T/done"
	[ "$status" -eq 0 ]
	pid=$(bd_first_pid)
	[ "$(bd_total "$pid" 0 exec_total)" -eq 10 ]
	[ "$(bd_rows exec | awk '{ print $3 }')" = released ]
	[ "$(bd_count exit)" -eq 0 ]
	# The engine was done at the exec, the program still at its gate; it
	# was let go, not killed: past the gate, it runs to its end.
	[ ! -e "$T/done" ]
	timeout 60 sh -c 'echo go >"$0"' "$T/gate"
	wait_file "$T/done"
}

@test "exit statuses: a normal exit, a fatal signal" {
	bd_run -c "$WRITE" "$W/wl_signals" 10
	[ "$status" -eq 0 ]
	[ "$(bd_rows exit | awk '{ print $2 }')" -eq 0 ]
	[ "$(bd_total "$(bd_first_pid)")" -eq 11 ]
	bd_run -c "$WRITE" "$W/wl_signals" 10 fatal
	[ "$status" -eq 0 ]
	# The wait status of a SIGTERM death.
	[ "$(bd_rows exit | awk '{ print $2 }')" -eq 15 ]
}

@test "the started command is not traced, and a missing program is one line, exit 1" {
	bd_run -c "$WRITE" sh -c 'grep TracerPid /proc/self/status'
	[ "$status" -eq 0 ]
	[[ "$output" == *"TracerPid:	0"* ]]
	bd_run -c "$WRITE" "$T/no-such-program"
	[ "$status" -eq 1 ]
	[ "$stderr" = "bpfdrive: cannot find program '$T/no-such-program'" ]
}

@test "one run counted by both engines at once: the same page faults and writes, per thread and in all" {
	# The BPF engine follows cputrack (the ptrace engine) into the
	# command cputrack starts and counts it beside it.
	bd_run -f -e -c page-faults,"$WRITE" \
	    "$CT" -o "$T/ct" -T 0 -c page-faults,"$WRITE" "$W/wl_threads" 3 100
	[ "$status" -eq 0 ]
	child=$(bd_rows exec | awk -v w="'$W/wl_threads" 'index($4, w) == 1 {
	    print $1 }')
	[ -n "$child" ]
	[ "$(bd_rows exit_total | awk -v p="$child" '$1 == p { print $3, $4 }')" = \
	    "$(awk '$3 == "exit" { print $4, $5 }' "$T/ct")" ]
	[ "$(awk '$3 == "exit" { print $5 }' "$T/ct")" -eq 300 ]
	[ "$(awk '$3 == "exit" { print $4 }' "$T/ct")" -gt 0 ]
	diff <(awk '$3 == "lwp_exit" { print $4, $5 }' "$T/ct" | sort) \
	    <(bd_rows lwp_exit | awk -v p="$child" '$1 == p && $2 != p {
	    print $4, $5 }' | sort)
}

# CPUs the kernel may bring up: the engine opens a counter on each.
possible_cpus() {
	tr , '\n' </sys/devices/system/cpu/possible |
	    awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }'
}

@test "the programs loaded by two threads, or by one (one CPU, few descriptors): the same exact counts" {
	command -v prlimit >/dev/null || skip "prlimit is not installed"
	command -v taskset >/dev/null || skip "taskset is not installed"
	local how want inherited limit
	# Descriptors open when cputrack starts; a limit that leaves the
	# engine what it needs and less than a second loader's share.
	inherited=$(ls /proc/self/fd | wc -l)
	limit=$(($(possible_cpus) + 40 + inherited + 8))
	for how in two one_cpu few_fds; do
		case $how in
		two)
			[ "$(nproc)" -ge 2 ] || continue
			set -- env
			want="two threads loaded them" ;;
		one_cpu)
			set -- taskset -c 0
			want="one thread loaded them" ;;
		few_fds)
			set -- prlimit --nofile=$limit:$limit
			want="one thread loaded them" ;;
		esac
		# Threads that come and go, a fork tree, an exec chain; ticks.
		# Each loads: none takes programs kept by an earlier run.
		status=0
		CPCTOOLS_KEEP_PROGRAMS=0 timeout -k 5 120 "$@" "$CPUTRACK" \
		    --engine=bpf -D -f -e -T 0.05 \
		    -c "$WRITE" sh -c '"$1" 2 5 30 && "$2" 1 3 250 &&
		    exec "$3" 2 120' sh "$W/wl_churn" "$W/wl_forktree" \
		    "$W/wl_exec_chain" >"$T/out" 2>"$T/err" || status=$?
		echo "$how: exit $status: $(grep -v '^cputrack: note' "$T/err")"
		[ "$status" -eq 0 ]
		grep -q "attached; $want; opened in" "$T/err"
		# 10 threads of 30; 4 processes of 250; 3 images of 120.
		[ "$(ct_rows -f lwp_exit | awk '$3 == 30' | wc -l)" -eq 10 ]
		[ "$(ct_rows -f exit | awk '$3 == 250' | wc -l)" -eq 4 ]
		[ "$(ct_rows -f exec | awk '$3 == 120' | wc -l)" -eq 2 ]
		[ "$(ct_rows -f exit | awk '{ s += $3 } END { print s }')" -eq \
		    $((300 + 1000 + 120)) ]
	done
}
