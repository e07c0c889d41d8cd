#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# Exactly the same numbers: one run of each workload counted three ways
# at once. cputrack --engine=bpf (every process of the run, from the
# outside) starts perf stat, which starts cputrack --engine=ptrace, which
# starts the workload. equal_check.py then holds every LWP's and every
# process's total of the ptrace engine against the BPF engine's for the
# same pid, image and tid; every row of one engine against the other's;
# tick rows against the totals; and perf stat's counts against the BPF
# engine's sum over its command's process tree.
#
# The events are exact: the write(2) and getpriority(2) tracepoints, and
# page faults taken in user mode (cputrack's default; perf stat's
# page-faults:u). Faults the kernel takes for a process in kernel mode
# are another matter: a forked child's first (the kernel writing its tid
# to the child, CLONE_CHILD_SETTID) comes before the ptrace engine can
# bind the child's counters, and those of an exec (its arguments copied
# to the new stack) fall, for the command perf stat starts, after perf
# stat begins and before the engines do. bpf_where.bats counts them.
#
# One thing a kernel can take from exactness: a task it hides from
# tracing (some sandboxes hide their own agent) switches out unseen, and
# what it counted goes to the tracked thread that leaves that CPU next.
# The BPF engine says so in debug mode; then its counts are checked to be
# at least the others', and the report says why.

load bpf_helper

setup() {
	bd_setup
	command -v perf >/dev/null || skip "perf is not installed"
	EV="$WRITE,syscalls:sys_enter_getpriority,page-faults"
	PERF_EV="$WRITE,syscalls:sys_enter_getpriority,page-faults:u"
	CHECK="$BATS_TEST_DIRNAME/equal_check.py"
	PY=$(python3 -c "import sys; print(sys.executable)")
	CHECK_OPTS=()
}

teardown() {
	ct_teardown
}

# thrice [ptrace engine options...] -- COMMAND...: one run of COMMAND
# counted by the three at once, with ticks every 50 ms in both engines,
# then checked by equal_check.py with the options in CHECK_OPTS; again (4
# times at most) if a cpustat elsewhere took the counters. Sets status,
# checked (the check's status) and check_output; the rows are in
# $T/bpf.csv, $T/pt.csv and $T/perf.
thrice() {
	local opts=() try
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	for try in 1 2 3 4 5; do
		status=0
		timeout -k 5 300 "$CT" --engine=bpf -D -v -f -e -T 0.05 \
		    --format=csv -o "$T/bpf.csv" -c "$EV" \
		    perf stat -x, -o "$T/perf" -e "$PERF_EV" -- \
		    "$CT" --engine=ptrace -v -T 0.05 --format=csv \
		    -o "$T/pt.csv" "${opts[@]}" -c "$EV" "$@" \
		    >"$T/out" 2>"$T/err" || status=$?
		counters_taken || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 5 tries
	done
	[ "$status" -eq 0 ] || { echo "exit $status: $(cat "$T/err")"; false; }
	# perf stat names the user-mode event as it was asked for.
	sed -i 's/,page-faults:u,/,page-faults,/' "$T/perf"
	checked=0
	check_output=$(python3 "$CHECK" "$T/bpf.csv" "$T/pt.csv" "$T/perf" \
	    --perf-exact "$WRITE" --perf-exact syscalls:sys_enter_getpriority \
	    --perf-exact page-faults --hidden "$(bpf_hidden)" \
	    "${CHECK_OPTS[@]}") || checked=$?
}

# equal: the three agreed (differences shown); with --summary in
# CHECK_OPTS, what was compared goes to the test's report.
equal() {
	echo "$check_output"
	[ "$checked" -eq 0 ]
	grep '^# ' <<<"$check_output" >&3 || true
}

# The ptrace engine's total of event column $2 (1: writes) in the rows
# labelled $1, summed.
pt_sum() {
	awk -F, -v l="$1" -v c="$((11 + ${2:-1}))" \
	    '$7 == l && $8 == "0" { s += $c } END { print s + 0 }' "$T/pt.csv"
}

@test "threads: every LWP and the process, equal in both engines and perf stat" {
	thrice -- "$W/wl_threads" 4 1000 77
	[ -z "$(grep -v -e 'note: the kernel hid' \
	    -e '^cputrack: the BPF engine counts: programs ' \
	    -e '^cputrack: start: ' "$T/err")" ]
	equal
	[ "$(pt_sum exit)" -eq 4077 ]
	[ "$(pt_sum fini_lwp)" -eq 4077 ]
	# Page faults too: each thread faults in its own stack.
	[ "$(awk -F, '$7 == "lwp_exit" && $14 > 0' "$T/pt.csv" | wc -l)" -eq 4 ]
}

@test "thread churn: 100 short threads, each equal, the process equal" {
	thrice -- "$W/wl_churn" 20 5 30
	equal
	[ "$(awk -F, '$7 == "lwp_exit"' "$T/pt.csv" | wc -l)" -eq 100 ]
	[ "$(pt_sum exit)" -eq 3000 ]
}

@test "200 threads alive at once, each equal" {
	thrice -- "$W/tt_manythreads" 200 20
	equal
	[ "$(awk -F, '$7 == "fini_lwp"' "$T/pt.csv" | wc -l)" -eq 201 ]
	[ "$(pt_sum exit)" -eq 4020 ]
}

@test "-f fork tree: 13 processes, each equal, their sum equal to perf stat's" {
	thrice -f -- "$W/wl_forktree" 2 3 250
	equal
	[ "$(awk -F, '$7 == "exit"' "$T/pt.csv" | wc -l)" -eq 13 ]
	[ "$(pt_sum exit)" -eq 3250 ]
}

@test "-f 300 children alive at once, each equal" {
	thrice -f -- "$W/ct_forkmany" 300 7
	equal
	[ "$(awk -F, '$7 == "exit"' "$T/pt.csv" | wc -l)" -eq 301 ]
	[ "$(pt_sum exit)" -eq 2100 ]
}

@test "-e exec chain: each image's total equal, with its arguments" {
	thrice -e -- "$W/wl_exec_chain" 3 321
	equal
	[ "$(awk -F, '$7 == "exec" && $8 == "0"' "$T/pt.csv" | wc -l)" -eq 3 ]
	[ "$(pt_sum exec)" -eq 963 ]
	[ "$(pt_sum exit)" -eq 321 ]
}

@test "-e non-leader exec: both threads of the old image, then the new image, equal" {
	thrice -e -- "$W/wl_nonleader_exec" 70 "$W/wl_threads" 2 30
	equal
	[ "$(pt_sum exec)" -eq 140 ]
	[ "$(pt_sum exit)" -eq 60 ]
}

@test "-ef vfork+exec and a bare clone(2) child: every process equal" {
	thrice -e -f -- "$W/wl_vfork_exec" 40 "$W/wl_threads" 2 60
	equal
	[ "$(pt_sum exit)" -eq 160 ]
	thrice -f -- "$W/wl_clone_proc" 30 40
	equal
	[ "$(pt_sum exit)" -eq 70 ]
}

@test "signals: handled, ignored and queued signals, then a death by SIGTERM: equal" {
	thrice -- "$W/wl_signals" 200
	equal
	[ "$(pt_sum exit)" -eq 201 ]
	thrice -- "$W/wl_signals" 200 fatal
	equal
	[ "$(pt_sum exit)" -eq 201 ]
	# Both engines say it, once each.
	[ "$(grep -c ': process terminated: killed by SIGTERM$' "$T/err")" -eq 2 ]
}

@test "getpriority(2): a tracepoint nothing else fires, equal" {
	thrice -f -e -- sh -c "\"$W/wl_getpriority\" 12345 & \"$W/wl_getpriority\" 678; wait"
	equal
	[ "$(pt_sum exit 2)" -eq 13023 ]
}

@test "ticks: each LWP's tick rows add up to its total, in both engines, and the totals are equal" {
	# Three threads write 10 every 250 ms, 4 times, and end 250 ms after
	# their last burst: ticks every 50 ms see all of it.
	CHECK_OPTS=(--whole-ticks "$WRITE")
	thrice -f -- "$W/ct_steady" 3 10 250 4
	equal
	[ "$(pt_sum exit)" -eq 120 ]
	[ "$(awk -F, '$7 == "tick" || $7 == "gap"' "$T/bpf.csv" | wc -l)" -gt 20 ]
	# Processes, each with a quiet end: children that sleep after their
	# writes, a parent that sleeps after them.
	thrice -f -- "$PY" -c '
import os, time
fd = os.open("/dev/null", os.O_WRONLY)
kids = []
for i in range(3):
    pid = os.fork()
    if pid == 0:
        for _ in range(50 * (i + 1)):
            os.write(fd, b"x")
        time.sleep(0.3)
        os._exit(0)
    kids.append(pid)
for _ in range(20):
    os.write(fd, b"x")
for pid in kids:
    os.waitpid(pid, 0)
time.sleep(0.3)
'
	equal
	[ "$(awk -F, '$7 == "exit"' "$T/pt.csv" | wc -l)" -eq 4 ]
	[ "$(pt_sum exit)" -eq 320 ]
}

# A small C project: $1 files, each with a few functions, and a Makefile.
make_project() {
	local dir=$1 n=$2 i
	mkdir -p "$dir"
	for i in $(seq "$n"); do
		cat >"$dir/m$i.c" <<EOF
#include <stdio.h>
int f$i(int x) { return x * $i + 1; }
int g$i(const char *s) { int n = 0; while (*s) n += *s++; return n + f$i(n); }
EOF
		printf 'int f%d(int);\nint g%d(const char *);\n' "$i" "$i" >>"$dir/all.h"
	done
	{
		printf '#include <stdio.h>\n#include "all.h"\nint main(void) { int s = 0;\n'
		for i in $(seq "$n"); do printf 's += g%d("x");\n' "$i"; done
		printf 'printf("%%d\\n", s); return 0; }\n'
	} >"$dir/main.c"
	printf 'OBJS = main.o %s\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c all.h\n\t$(CC) -O1 -c $<\n' \
	    "$(for i in $(seq "$n"); do printf 'm%d.o ' "$i"; done)" >"$dir/Makefile"
}

@test "make -j2: a C project built, every compiler, assembler and linker process equal" {
	command -v make >/dev/null || skip "make is not installed"
	command -v cc >/dev/null || skip "no C compiler"
	make_project "$T/proj" 6
	CHECK_OPTS=(--summary)
	thrice -f -e -- make -s -j2 -C "$T/proj"
	equal
	[ -x "$T/proj/prog" ]
	# The compiler proper ran once per source file, in both engines.
	[ "$(awk -F, '$7 == "exec" && $8 == "" && $17 ~ /cc1 /' "$T/pt.csv" | wc -l)" -eq 7 ]
	[ "$(awk -F, '$7 == "exec" && $8 == "" && $17 ~ /(^|\/)as /' "$T/pt.csv" | wc -l)" -eq 7 ]
}

@test "Python with threads and subprocesses: every thread and process equal" {
	CHECK_OPTS=(--summary)
	thrice -f -e -- "$PY" -c '
import os, subprocess, sys, threading
def work(n):
    fd = os.open("/dev/null", os.O_WRONLY)
    for _ in range(n):
        os.write(fd, b"x")
    os.getpriority(os.PRIO_PROCESS, 0)
    os.close(fd)
ts = [threading.Thread(target=work, args=(100 * (i + 1),)) for i in range(4)]
for t in ts: t.start()
subprocess.run([sys.executable, "-c", "import os; [os.write(2, b\"\") for _ in range(50)]"], check=True)
subprocess.run(["sh", "-c", "echo a >/dev/null; echo b >/dev/null"], check=True)
for t in ts: t.join()
'
	equal
	# The four threads' writes and getpriority calls, per thread.
	[ "$(awk -F, '$7 == "lwp_exit" { print $12, $13 }' "$T/pt.csv" | sort -n | tr '\n' ' ')" = \
	    "100 1 200 1 300 1 400 1 " ]
}
