#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# cputrack: options, the exact table layout, usage errors and run errors.
# Counts come from syscalls:sys_enter_write, which the workloads make an
# exact number of times.

load cputrack_helper

setup() {
	ct_setup
}

teardown() {
	ct_teardown
}

usage_text() {
	printf '%s\n' \
	    'Usage:' \
	    '	cputrack [-T secs] [-N count] [-Defhntv] [-o file]' \
	    '		[--format=table|csv|json|trace|openmetrics|prometheus]' \
	    '		[--output-fd=fd] [--strict-exec] [--engine=bpf|ptrace|auto]' \
	    '		[--pass-status] [--metrics]' \
	    '		[--listen=addr:port] [--web-config=file] [--linger=secs]' \
	    '		[--thread-series] [--top] [-b]' \
	    '		-c events [command [args] | -p pid[,pid]... |' \
	    '		--tid=tid[,tid]... | --cgroup=dir |' \
	    '		--for-each-cgroup=dir[,depth=n][,max=n][,readonly]' \
	    '		[,kubelet-root=path]]' \
	    '	cputrack --input=file [-M name[,name]] [--format=...]' \
	    '	cputrack --list[=glob] | --help | --version' \
	    '' \
	    '	-T secs	  seconds between samples, default 1' \
	    '	-N count  number of samples, default unlimited' \
	    '	-D	  enable debug mode' \
	    '	-e	  follow exec(2), and execve(2)' \
	    '	-f	  follow fork(2), fork1(2), and vfork(2)' \
	    '	-h	  print extended usage information' \
	    '	-n	  suppress titles' \
	    '	-t	  include virtualized tsc register' \
	    '	-v	  verbose mode' \
	    '	-o file	  write cpu statistics to this file' \
	    '	-c events specify processor events to be monitored' \
	    '	-p pid[,pid]...' \
	    '		  pids of existing processes to capture (-p may be' \
	    '		  repeated)' \
	    '	--tid=tid[,tid]...' \
	    '		  count only these threads of existing processes, not' \
	    '		  those made later (--tid may be repeated)' \
	    '	--cgroup=dir' \
	    '		  every process in a cgroup (v2) and below it, those' \
	    '		  that come included, while they are there (BPF engine)' \
	    '	--for-each-cgroup=dir[,depth=n][,max=n][,readonly]' \
	    '		[,kubelet-root=path]' \
	    '		  as --cgroup, with rows and series of each cgroup apart' \
	    '		  (n levels below dir at most; max of them, default 4096;' \
	    '		  pod labels only below the kubelet'"'"'s root path)' \
	    '	--format=table|csv|json|trace|openmetrics|prometheus' \
	    '		  output format, default table' \
	    '	--output=file' \
	    '		  the same as -o file' \
	    '	--output-fd=fd' \
	    '		  write cpu statistics to this open descriptor' \
	    '	--listen=addr:port' \
	    '		  serve the counts as metrics over HTTP at /metrics' \
	    '	--web-config=file' \
	    "		  TLS and users for --listen (Prometheus's web config)" \
	    '	--linger=secs' \
	    '		  after a run that ended by itself, serve the final counts' \
	    '		  until a scrape takes them, secs at most (--listen)' \
	    '	--metrics' \
	    "		  add perf's derived metrics (insn per cycle, CPUs" \
	    '		  utilized, ...) to each row of counts' \
	    '	-M name[,name]' \
	    "		  count perf's metrics and metric groups of this CPU" \
	    '		  (TopdownL1, tma_retiring, MemoryBW: --list names them)' \
	    '	--metric-only' \
	    '		  print the metrics alone, a column each' \
	    '	--metric-no-group' \
	    "		  open each metric's events without a group" \
	    '	--metric-no-threshold' \
	    '		  show every metric, not only under crossed thresholds' \
	    '	--input=file' \
	    '		  print a JSON Lines record again instead of counting' \
	    '	--dry-run print what would be counted, and exit' \
	    '	--thread-series' \
	    '		  the metrics have a series per LWP as well as per' \
	    '		  process and cgroup' \
	    '	--engine=bpf|ptrace|auto' \
	    '		  how threads are followed and counted:' \
	    '		  bpf: BPF programs at each context switch' \
	    '		  ptrace: ptrace, each thread with counters of its own' \
	    '		  auto (the default): the first of these that can run' \
	    '	--strict-exec' \
	    "		  without -e, no exec is followed, not even a wrapper's" \
	    '		  (env, nice) before it makes a thread or a process' \
	    '	--pass-status' \
	    "		  exit with the command's status (128 + signal if a" \
	    '		  signal ended it) when the run itself succeeded' \
	    '	-r count, --repeat=count' \
	    '		  run the command count times, then give each event'"'"'s' \
	    '		  mean, +- %, min and max over the runs' \
	    '	--top	  a live view, redrawn at each interval, instead of' \
	    '		  rows (as cputop: with no target, the whole machine)' \
	    '	-b	  with --top: the view as text, once per interval' \
	    '	--list[=glob]' \
	    '		  list every countable event (matching glob), and exit' \
	    '	--help	  print this usage and exit' \
	    '	--version print the version and exit' \
	    '' \
	    "	Without -c, perf stat's default events, as far as this" \
	    '	machine counts them. perf users: -I msec, -x sep, -j (--json),' \
	    "	-G dir (--cgroup), --per-thread; perf's -e is -c, its -t --tid." \
	    '' \
	    "	$(engine_line)" \
	    '' \
	    '	Use cpustat(1) to monitor system-wide statistics.'
}

# The engine a run without --engine takes here, as --version says it
# (cputrack_engine.bats checks what it says).
engine_line() {
	if [ -n "${CPCTOOLS_ENGINE:-}" ]; then
		echo "engine: $CPCTOOLS_ENGINE (CPCTOOLS_ENGINE)"
	else
		"${CPUTRACK_BIN:-$CT}" --version | sed -n 's/^engine: auto/&/p'
	fi
}

# A usage error: exit 2, nothing on stdout, and on stderr the one line $1,
# which says what is wrong (the usage is -h's).
assert_usage_error() {
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$(cat "$T/err")" = "$1" ]
}

@test "-h: usage and capabilities on stdout, exit 0" {
	run --separate-stderr timeout 30 "$CT" -h
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	n=$(usage_text | wc -l)
	diff <(head -n "$n" <<<"$output") <(usage_text)
	# Then an empty line and the listing (bats drops empty lines).
	[ "$(sed -n "$((n + 1))p" <<<"$output")" = "" ]
	[[ "$(sed -n "$((n + 2))p" <<<"$output")" =~ ^"	CPU performance counter interface: " ]]
	assert_line --regexp '^	CPU performance counter interface: .+'
	assert_line '	event specification syntax:'
	assert_line --regexp ' task-clock '
	assert_line --regexp '^	Tracepoints: subsystem:event'
}

@test "-h: without a hardware PMU the interface line says so and lists no hardware events" {
	if ls /sys/bus/event_source/devices/ |
	    grep -qE '^(cpu|cpu_core|cpu_atom|armv[78]_.*|arm_.*)$'; then
		skip "this kernel has a hardware PMU"
	fi
	run timeout 30 "$CT" -h
	[ "$status" -eq 0 ]
	assert_line --regexp '^	CPU performance counter interface: .*no hardware PMU in this kernel'
	refute_line --regexp '(^|[ 	])(cycles|instructions|PAPI_tot_cyc) '
}

@test "-h: with a hardware PMU the interface line names it and cycles is listed" {
	require_pmu
	run timeout 30 "$CT" -h
	[ "$status" -eq 0 ]
	refute_line --regexp 'no hardware PMU'
	assert_line --regexp '[ 	]cycles '
}

@test "title line: exact text with its trailing space" {
	ct_run -c "$WRITE" "$W/wl_threads" 0 0
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "   time lwp      event      pic0 " ]
	ct_run -c "$WRITE,task-clock" "$W/wl_threads" 0 0
	[ "${lines[0]}" = "   time lwp      event      pic0      pic1 " ]
}

@test "title line with -f -t: pid and tsc columns" {
	ct_run -f -t -c "$WRITE,task-clock" "$W/wl_threads" 0 0
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "   time    pid lwp      event       tsc      pic0      pic1 " ]
}

@test "row layout: %7.3f time, %3d lwp, %10s label, %9lld values, trailing space" {
	ct_run -c "$WRITE,task-clock" "$W/wl_threads" 2 123
	[ "$status" -eq 0 ]
	local l
	for l in "${lines[@]:1}"; do
		[[ "$l" =~ ^[\ 0-9]{2}[0-9]\.[0-9]{3}\ [\ 0-9]{2}[0-9]\ [\ a-z_]{10}(\ [\ 0-9]{8}[0-9]){2}\ $ ]] ||
			{ echo "bad row: '$l'"; return 1; }
	done
	# The rows themselves, with their widths.
	[ "$(grep -c '^  [0-9]\.[0-9][0-9][0-9]   [23] lwp_create         0 ' "$T/out")" -eq 2 ]
	grep -qE '^  [0-9]\.[0-9]{3}   2   lwp_exit       123 [ 0-9]{8}[0-9] $' "$T/out"
	grep -qE '^  [0-9]\.[0-9]{3}   1       exit       246 [ 0-9]{8}[0-9] $' "$T/out"
}

@test "row layout with -f -t: %6d pid, %9lld tsc; fork row has two blank value fields" {
	ct_run -f -t -c "$WRITE" "$W/wl_forktree" 1 1 4
	[ "$status" -eq 0 ]
	local parent child
	parent=$(awk '$4 == "fork" { print $2 }' "$T/out")
	child=$(awk '$4 == "fork" { print $NF }' "$T/out")
	[ -n "$parent" ]
	[ -n "$child" ]
	# fork row: time, pid, lwp, label, blank tsc, two blank fields, "# child".
	grep -qE "^  [0-9]\.[0-9]{3} $(printf '%6d' "$parent")   1       fork {31}# $child\$" "$T/out"
	grep -qE "^  [0-9]\.[0-9]{3} $(printf '%6d' "$child")   1       exit [ 0-9]{8}[0-9]         4 \$" "$T/out"
	grep -qE "^  [0-9]\.[0-9]{3} $(printf '%6d' "$parent")   1       exit [ 0-9]{8}[0-9]         4 \$" "$T/out"
	# Without -t: no tsc field, still two blank value fields.
	ct_run -f -c "$WRITE" "$W/wl_forktree" 1 1 4
	grep -qE "^  [0-9]\.[0-9]{3} [ 0-9]{6}   1       fork {21}# [0-9]+\$" "$T/out"
}

@test "-n: no title, rows unchanged" {
	ct_run -n -c "$WRITE" "$W/wl_threads" 1 5
	[ "$status" -eq 0 ]
	refute_line --partial "event"
	[[ "${lines[0]}" =~ lwp_create ]]
	[ "$(ct_sum exit)" -eq 5 ]
}

@test "-v: init_lwp and fini_lwp rows for every LWP, in order" {
	ct_run -v -c "$WRITE" "$W/wl_threads" 2 9 4
	[ "$status" -eq 0 ]
	# Per LWP: init_lwp (0) first; lwp_create after init for threads;
	# fini_lwp (its total) before lwp_exit or exit.
	awk '{ print $2, $3, $4 }' "$T/out" | tail -n +2 >"$T/rows"
	[ "$(grep -c ' init_lwp 0$' "$T/rows")" -eq 3 ]
	[ "$(grep -c ' fini_lwp ' "$T/rows")" -eq 3 ]
	grep -qx '1 init_lwp 0' "$T/rows"
	grep -qx '1 fini_lwp 4' "$T/rows"
	grep -qx '2 fini_lwp 9' "$T/rows"
	grep -qx '3 fini_lwp 9' "$T/rows"
	grep -qx '1 exit 22' "$T/rows"
	local n
	for n in 2 3; do
		grep "^$n " "$T/rows" | awk '{ print $2 }' | tr '\n' ' ' >"$T/seq"
		[ "$(cat "$T/seq")" = "init_lwp lwp_create fini_lwp lwp_exit " ]
	done
	[ "$(grep '^1 ' "$T/rows" | awk '{ print $2 }' | tr '\n' ' ')" = "init_lwp fini_lwp exit " ]
}

@test "-t: tsc column is the LWP's on-CPU measure, non-negative and growing with work" {
	ct_run -t -c "$WRITE" "$W/wl_threads" 1 2000
	[ "$status" -eq 0 ]
	local tsc
	tsc=$(awk '$3 == "lwp_exit" { print $4 }' "$T/out")
	[ "$tsc" -gt 0 ]
	[ "$(awk '$3 == "lwp_exit" { print $5 }' "$T/out")" -eq 2000 ]
	[ "$(awk '$3 == "lwp_create" { print $4, $5 }' "$T/out")" = "0 0" ]
}

@test "-o file: rows go to the file, nothing on stdout, the file is truncated" {
	echo "old content that must go" >"$T/stats"
	ct_run -o "$T/stats" -c "$WRITE" "$W/wl_threads" 2 11
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
	run cat "$T/stats"
	[ "${lines[0]}" = "   time lwp      event      pic0 " ]
	refute_line --partial "old content"
	assert_line --regexp '^ +[0-9.]+   1       exit        22 $'
	[ "${#lines[@]}" -eq 6 ]
}

@test "-o /dev/full: write error message and exit 1" {
	ct_run -o /dev/full -c "$WRITE" "$W/wl_threads" 1 3
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: write error on '/dev/full': No space left on device" ]
}

@test "-o to a file that cannot be opened: message, exit 1, nothing started" {
	ct_run -o "$T/no/such/dir/f" -c "$WRITE" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: cannot open '$T/no/such/dir/f' for writing: No such file or directory" ]
	[ ! -e "$T/ran" ]
}

@test "-D: library messages gain the function name" {
	ct_run -D -p 999999 -c "$WRITE"
	[ "$status" -eq 1 ]
	# (The BPF engine says under -D which programs it loaded.)
	[ "$(grep -v '^cputrack: the BPF engine counts: programs ' <<<"$stderr")" = "cputrack: capture: pid 999999 doesn't exist
cputrack: failed to capture pid 999999" ]
	ct_run -D -c foo true
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: cpc_strtoset: bad token 'foo': no event has that name (--list lists them)" ]
}

@test "bad pid: doesn't exist, exit 1" {
	ct_run -p 999999 -c "$WRITE"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: pid 999999 doesn't exist
cputrack: failed to capture pid 999999" ]
}

@test "bad pid values are usage errors naming them" {
	local p
	for p in abc 0 -5 1x ""; do
		ct_run -p "$p" -c "$WRITE"
		assert_usage_error "cputrack: invalid pid '$p'"
	done
}

@test "bad pid lists are usage errors naming the token and why; nothing is captured" {
	"$W/wl_idle" 1 0 >"$T/target.out" 2>&1 </dev/null &
	local p=$!
	ct_bg "$p"
	wait_line "$T/target.out" '^ready$'
	ct_run -p "$p,abc" -c "$WRITE"
	assert_usage_error "cputrack: invalid pid 'abc' in '$p,abc' (not a number)"
	ct_run -p "$p,,1" -c "$WRITE"
	assert_usage_error "cputrack: invalid pid '' in '$p,,1' (empty)"
	ct_run -p "$p," -c "$WRITE"
	assert_usage_error "cputrack: invalid pid '' in '$p,' (empty)"
	ct_run -p ",$p" -c "$WRITE"
	assert_usage_error "cputrack: invalid pid '' in ',$p' (empty)"
	ct_run -p "$p,0" -c "$WRITE"
	assert_usage_error "cputrack: invalid pid '0' in '$p,0' (a pid is 1 or more)"
	ct_run -p "$p,-5" -c "$WRITE"
	assert_usage_error "cputrack: invalid pid '-5' in '$p,-5' (a pid is 1 or more)"
	ct_run -p "$p,99999999999" -c "$WRITE"
	assert_usage_error "cputrack: invalid pid '99999999999' in '$p,99999999999' (too large)"
	ct_run -p "$p,$p" -c "$WRITE"
	assert_usage_error "cputrack: pid $p is listed twice"
	ct_run -p "$p" -p "1,$p" -c "$WRITE"
	assert_usage_error "cputrack: pid $p is listed twice"
	ct_run -p "$p" -p abc -c "$WRITE"
	assert_usage_error "cputrack: invalid pid 'abc'"
	[ "$(tracer_of "$p")" = 0 ]
	[ "$(proc_state "$p")" = S ]
}

@test "a name perf list gives an SDT probe of several binaries: one line saying what it is, exit 2" {
	ct_run -c 'sdt_libc:setjmp@/usr/lib/libc.so.6(0123abcd)' "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ ! -e "$T/ran" ]
	[ "$stderr" = "cputrack: sdt_libc:setjmp: a statically defined probe (SDT) of /usr/lib/libc.so.6(0123abcd), which counts once \`perf probe\` has made it a tracepoint: then name that tracepoint" ]
}

@test "bad spec: one line, a name of no event with the nearest names; exit 2, nothing started" {
	ct_run -c foo "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: bad token 'foo': no event has that name (--list lists them)" ]
	ct_run -c task-clok "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: bad token 'task-clok'; did you mean task-clock?" ]
	ct_run -c "$WRITE,pagefaults" "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: bad token 'pagefaults'; did you mean page-faults?" ]
	ct_run -c syscalls:sys_enter_wrte "$W/ct_marker" "$T/ran"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "cputrack: syscalls:sys_enter_wrte: no such tracepoint in this kernel "*"; did you mean syscalls:sys_enter_write, "* ]]
	[ "$(wc -l <"$T/err")" -eq 1 ]
	ct_run -c "$WRITE" -c foo=bar "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: bad token 'foo=bar'"
	[ ! -e "$T/ran" ]
}

@test "bad -T values are usage errors naming them" {
	local v
	for v in abc -1 1x "" 0.0001 nan inf; do
		ct_run -T "$v" -c "$WRITE" "$W/ct_marker" "$T/ran"
		assert_usage_error "cputrack: invalid interval '$v' (0, or from 0.001 to 4294967 seconds)"
	done
	[ ! -e "$T/ran" ]
}

@test "bad -N values are usage errors naming them" {
	local v
	for v in x -1 1x "" 4294967296 1.5; do
		ct_run -N "$v" -c "$WRITE" "$W/ct_marker" "$T/ran"
		assert_usage_error "cputrack: invalid count '$v'"
	done
	[ ! -e "$T/ran" ]
}

@test "bad --format is a usage error naming it" {
	ct_run --format=xml -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: invalid format 'xml' (table, csv, json, trace, openmetrics or prometheus)"
}

@test "no target, both a command and -p: one line each, exit 2" {
	ct_run -c "$WRITE"
	assert_usage_error "cputrack: no command and no -p: give a command to start, -p pid, --tid=tid or --cgroup=dir"
	ct_run -c "$WRITE" -p $$ "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: -p and a command ('$W/ct_marker') cannot be given together"
	[ ! -e "$T/ran" ]
}

@test "no argument at all: the usage on stderr, exit 2" {
	# The command itself: the BPF variant's $CT adds --engine=bpf.
	local status=0
	"${CPUTRACK_BIN:-$CT}" >"$T/out" 2>"$T/err" || status=$?
	[ "$status" -eq 2 ]
	[ ! -s "$T/out" ]
	diff "$T/err" <(usage_text)
}

@test "unknown option, a missing argument and a bad -r: one line each, exit 2" {
	ct_run -Z -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: invalid option -- 'Z'"
	ct_run -c
	assert_usage_error "cputrack: option requires an argument -- 'c'"
	ct_run -r x -c "$WRITE" "$W/ct_marker" "$T/ran"
	assert_usage_error "cputrack: invalid repeat count 'x'"
	[ ! -e "$T/ran" ]
}

@test "a command that does not exist, or may not be run: why, failed to start program, exit 1" {
	ct_run -c "$WRITE" "$T/no-such-program" a b
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "cputrack: cannot find program '$T/no-such-program'
cputrack: failed to start program '$T/no-such-program'" ]
	printf '#!/bin/sh\n' >"$T/not-executable"
	chmod 644 "$T/not-executable"
	ct_run -c "$WRITE" "$T/not-executable"
	[ "$status" -eq 1 ]
	[ "$stderr" = "cputrack: cannot execute program '$T/not-executable': Permission denied
cputrack: failed to start program '$T/not-executable'" ]
}

@test "options after the command belong to the command" {
	ct_run -c "$WRITE" "$W/wl_threads" 1 5 -T 0
	[ "$status" -eq 0 ]
	[ "$(ct_sum exit)" -eq 5 ]
}

@test "--pass-status: the command's exit status, or 128 + its signal; cputrack's own failure keeps its status" {
	ct_run -T 0 -c "$WRITE" sh -c 'exit 7'
	[ "$status" -eq 0 ]
	ct_run --pass-status -T 0 -c "$WRITE" sh -c 'exit 7'
	[ "$status" -eq 7 ]
	[ "$(ct_rows exit | wc -l)" -eq 1 ]
	ct_run --pass-status -T 0 -c "$WRITE" "$W/ct_marker" "$T/ran" 3
	[ "$status" -eq 0 ]
	ct_run --pass-status -T 0 -c "$WRITE" sh -c 'kill -USR1 $$'
	[ "$status" -eq $((128 + $(kill -l USR1))) ]
	# An exec not followed ends the run with 1, whatever the command does.
	ct_run --pass-status --strict-exec -T 0 -c "$WRITE" sh -c 'exec sh -c "exit 7"'
	[ "$status" -eq 1 ]
	ct_run --pass-status -p 1 -c "$WRITE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "cputrack: --pass-status needs a command to start, not -p" ]
}
