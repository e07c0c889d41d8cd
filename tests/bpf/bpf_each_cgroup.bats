#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# cputrack --for-each-cgroup: one run counts every cgroup at or below a
# real cgroup v2 directory, each apart. A thread's counts go to the cgroup
# it was in when it counted them, up to the moment it moves; cgroups there
# at the start are counted from it (an idle one's rows are 0), cgroups made
# during the run are named as they are made and counted from their first
# thread, and a removed one gives its last row (rmdir); depth= folds deeper cgroups into their ancestor, and
# cgroups past max= into their parent, said in one line. The same
# cgroups' counts equal perf stat -G's. It counts cgroups, not threads:
# its rows are the cgroups'. Like perf stat -a -G, it counts every
# process there, whoever's, and needs CAP_PERFMON, not CAP_SYS_PTRACE;
# it gives no pid, and runs in a container's pid namespace too.

load cgroup_helper

setup() {
	cg_setup
}

teardown() {
	cg_teardown
}

# cgroup_sum NAME [LABEL]: the sum of the rows (cgroup and rmdir, or
# LABEL) of cgroup NAME (as the rows' comment names it).
cgroup_sum() {
	# The name from the environment: awk -v would read its backslashes.
	name=$1 awk -v label="${2:-}" '
	    $2 != 0 || $NF != ENVIRON["name"] { next }
	    label == "" && ($4 == "cgroup" || $4 == "rmdir") { s += $5 }
	    label != "" && $4 == label { s += $5 }
	    END { print s + 0 }' "$T/out"
}

# until_sum NAME N: until the rows of cgroup NAME add up to N.
until_sum() {
	wait_while "$CPID" sum_is "$1" "$2" ||
	    { cat "$T/out" "$T/err"; false; }
}
sum_is() {
	[ "$(cgroup_sum "$1")" = "$2" ]
}

@test "--for-each-cgroup: each cgroup's rows hold exactly what its threads did in it; a move splits a process's counts; a removed cgroup gives its last row" {
	mkdir "$CG/a" "$CG/b" "$CG/b/deep" "$CG/gone"
	gated there 2 100 into "$CG/a"
	start_cputrack_until ' cgroup ' --for-each-cgroup="/$NAME" -T 0.2 \
	    -c "$WRITE"
	# Starting no command, the run has taken exec away from itself
	# (cputrack is the child of the timeout that CPID is).
	[ "$(awk '$1 == "Seccomp:" { print $2 }' \
	    "/proc/$(pgrep -P "$CPID" -x cputrack)/status")" = 2 ]
	gated inb 3 50
	moved inb "$CG/b"
	gated deep 1 70
	moved deep "$CG/b/deep"
	gated gone 1 33
	moved gone "$CG/gone"
	gated outside 1 44
	# One that moves from a to b between two steps of 25 writes.
	mkfifo "$T/steps"
	"$W/wl_steps" 1 25 <"$T/steps" &
	local mover=$!
	ct_bg "$mover"
	echo "$mover" >"$CG/a/cgroup.procs"
	exec {steps}>"$T/steps"
	echo w >&"$steps"
	until_sum "/$NAME/a" 25
	echo "$mover" >"$CG/b/cgroup.procs"
	echo w >&"$steps"
	until_sum "/$NAME/b" 25
	echo q >&"$steps"
	exec {steps}>&-
	wait "$mover"
	for w in there inb deep gone outside; do
		open_gate "$w"
	done
	wait "$(pid_of gone)"
	until_sum "/$NAME/gone" 33
	rmdir "$CG/gone"
	wait_while "$CPID" grep -q "rmdir .*# /$NAME/gone\$" "$T/out" ||
	    { cat "$T/out" "$T/err"; false; }
	until_sum "/$NAME/a" 225
	until_sum "/$NAME/b" 175
	until_sum "/$NAME/b/deep" 70
	kill -TERM "$CPID"
	wait_cputrack
	cat "$T/err"
	[ "$status" -eq 0 ]
	# Nothing more came to any of them, nothing ran in the target itself,
	# and the one outside it was not counted.
	[ "$(cgroup_sum "/$NAME/a")" = 225 ]
	[ "$(cgroup_sum "/$NAME/b")" = 175 ]
	[ "$(cgroup_sum "/$NAME/b/deep")" = 70 ]
	[ "$(cgroup_sum "/$NAME/gone")" = 33 ]
	[ "$(cgroup_sum "/$NAME")" = 0 ]
	[ -z "$(awk '$2 == 0 && $NF !~ "^/'"$NAME"'" && $4 != "event"' "$T/out")" ]
	# Cgroups are counted, not threads: every row is a cgroup's.
	[ -z "$(awk 'NR > 1 && $2 != 0' "$T/out")" ]
	# The removed one's last row is its last; the others' totals are
	# their rows' sums.
	[ "$(awk -v n="/$NAME/gone" '$2 == 0 && $NF == n { l = $4 } END { print l }' "$T/out")" = rmdir ]
	[ "$(cgroup_sum "/$NAME/a" total)" = 225 ]
	[ "$(cgroup_sum "/$NAME/b" total)" = 175 ]
}

# A set of several groups ({...}) is opened group by group on each CPU,
# and each cgroup keeps each group's own times: tracepoints never wait for
# a counter, so every group counts every write, and the rows' running
# time is their enabled time.
# rows_of NAME: how many cgroup rows cgroup NAME has had.
rows_of() {
	name=$1 awk '$2 == 0 && $4 == "cgroup" && $NF == ENVIRON["name"] { n++ }
	    END { print n + 0 }' "$T/out"
}
rows_reach() {
	[ "$(rows_of "$1")" -ge "$2" ]
}

@test "--for-each-cgroup: a cgroup there at the start, never run in, has its rows from the start, each 0, then exactly what runs there; one made during the run has none until its first thread" {
	mkdir "$CG/idle"
	start_cputrack_until ' cgroup ' --for-each-cgroup="/$NAME" -T 0.2 \
	    -c "$WRITE"
	mkdir "$CG/later"
	local n
	n=$(rows_of "/$NAME/idle")
	# Two ticks after the later cgroup was made.
	wait_while "$CPID" rows_reach "/$NAME/idle" $((n + 2)) ||
	    { cat "$T/out" "$T/err"; false; }
	[ "$(cgroup_sum "/$NAME/idle")" = 0 ] || { cat "$T/out"; false; }
	[ "$(rows_of "/$NAME/later")" = 0 ] || { cat "$T/out"; false; }
	gated idler 1 30
	moved idler "$CG/idle"
	open_gate idler
	until_sum "/$NAME/idle" 30
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ]
	[ "$(cgroup_sum "/$NAME/idle")" = 30 ]
}

@test "--for-each-cgroup: a set of several groups ({...}) counts each cgroup's writes exactly in every group" {
	local exit=syscalls:sys_exit_write
	mkdir "$CG/a"
	gated there 2 100 into "$CG/a"
	start_cputrack_until ' cgroup ' --for-each-cgroup="/$NAME" -T 0.2 \
	    -c "{$WRITE},{$exit,$WRITE},{$exit}"
	open_gate there
	wait "$(pid_of there)"
	until_sum "/$NAME/a" 200
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ] || { cat "$T/err"; false; }
	# Every group's columns, summed over the cgroup's rows.
	[ "$(awk -v n="/$NAME/a" '$2 == 0 && $NF == n && $4 == "cgroup" {
		for (i = 5; i <= 8; i++) s[i] += $i }
	    END { print s[5], s[6], s[7], s[8] }' "$T/out")" = "200 200 200 200" ] ||
		{ cat "$T/out"; false; }
}

@test "--for-each-cgroup: the write(2) that moves a process to another cgroup is counted in the one it left; the new one gets exactly what the process did there" {
	mkdir "$CG/a" "$CG/b"
	start_cputrack_until ' cgroup ' -D --for-each-cgroup="/$NAME" -T 0.2 \
	    -c "$WRITE"
	# A shell held at a fifo, put into a, then let on: it moves itself
	# to b with one write and execs wl_gate there, which makes 1,000
	# writes and its "ready": 1,001.
	mkfifo "$T/hold"
	sh -c 'read x <"$1"; echo $$ >"$2/cgroup.procs"; exec "$3" 1 1000' \
	    sh "$T/hold" "$CG/b" "$W/wl_gate" </dev/null >/dev/null &
	local mover=$!
	ct_bg "$mover"
	echo "$mover" >"$CG/a/cgroup.procs"
	echo >"$T/hold"
	wait "$mover"
	# Wherever the move's write went, the two add up to 1,002.
	wait_while "$CPID" sums_are 1002 "/$NAME/a" "/$NAME/b" ||
	    { cat "$T/out" "$T/err"; false; }
	kill -TERM "$CPID"
	wait_cputrack
	grep 'cgroup migrations' "$T/err" >&3 || true
	[ "$status" -eq 0 ]
	[ "$(cgroup_sum "/$NAME/a")" = 1 ]
	[ "$(cgroup_sum "/$NAME/b")" = 1001 ]
	grep -q "cgroup migrations: a task that moves itself counts in the cgroup it left until the move\$" "$T/err"
}

@test "--for-each-cgroup: cgroups made during the run, one inside another, are named as they are made; one removed gives its last row under its name" {
	start_cputrack_until ' cgroup ' -D --for-each-cgroup="/$NAME" -T 0.2 \
	    -c "$WRITE"
	grep -q "^cputrack: cgroups: named as they are made" "$T/err"
	mkdir "$CG/new" "$CG/new/inner" "$CG/brief"
	gated inner 1 40
	moved inner "$CG/new/inner"
	open_gate inner
	gated brief 1 30
	moved brief "$CG/brief"
	open_gate brief
	wait "$(pid_of brief)"
	until_sum "/$NAME/brief" 30
	rmdir "$CG/brief"
	wait_while "$CPID" grep -q "rmdir .*# /$NAME/brief\$" "$T/out" ||
	    { cat "$T/out" "$T/err"; false; }
	until_sum "/$NAME/new/inner" 40
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ]
	[ "$(cgroup_sum "/$NAME/new/inner")" = 40 ]
	[ "$(cgroup_sum "/$NAME/brief")" = 30 ]
	# None was named by its id.
	[ -z "$(grep '# id:' "$T/out")" ]
}

# sums_are N NAME...: the rows of cgroups NAME... add up to N.
sums_are() {
	local n=$1 sum=0 name
	shift
	for name; do
		sum=$((sum + $(cgroup_sum "$name")))
	done
	[ "$sum" = "$n" ]
}

# folded_served PORT N: the exporter on PORT says N cgroups are folded.
folded_served() {
	curl -sf "http://127.0.0.1:$1/metrics" |
	    grep -qx "cputrack_cgroups_folded $2"
}

@test "--for-each-cgroup: depth= counts deeper cgroups in their ancestor; past max=, a cgroup counts in its parent, and one line and a metric say so" {
	mkdir "$CG/a" "$CG/b" "$CG/b/deep" "$CG/c" "$CG/d"
	local port
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	start_cputrack_until ' cgroup ' \
	    --for-each-cgroup="/$NAME,depth=1,max=3" -T 0.2 \
	    --listen=127.0.0.1:"$port" -c "$WRITE"
	gated a 1 10
	moved a "$CG/a"
	gated deep 1 20
	moved deep "$CG/b/deep"
	gated c 1 30
	moved c "$CG/c"
	gated d 1 40
	moved d "$CG/d"
	# The target and the first two cgroups counted have room.
	open_gate a
	until_sum "/$NAME/a" 10
	open_gate deep
	until_sum "/$NAME/b" 20
	open_gate c
	open_gate d
	until_sum "/$NAME" 70
	# The exporter says it too.
	wait_while "$CPID" folded_served "$port" 2
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ]
	run ! grep -q "# /$NAME/[bcd]/\|# /$NAME/[cd]\$" "$T/out"
	# The first folded is c or d, whichever of their threads ran first.
	tail -n 1 "$T/err" | grep -qxF -e "cputrack: 2 cgroups under /$NAME (/$NAME/c, ...) are counted in their parents' rows: no more than max=3 are counted apart" \
	    -e "cputrack: 2 cgroups under /$NAME (/$NAME/d, ...) are counted in their parents' rows: no more than max=3 are counted apart" ||
	    { cat "$T/err"; false; }
	[ "$(grep -c . "$T/err")" -le 2 ]
}

@test "--for-each-cgroup's counts of each cgroup equal perf stat -G's of the same cgroups" {
	mkdir "$CG/a" "$CG/b"
	perf stat -a -x, -o "$T/perf" -e "$WRITE" -G "$NAME/a" -e "$WRITE" \
	    -G "$NAME/b" -- sleep 1000 &
	local perf=$!
	ct_bg "$perf"
	start_cputrack_until ' cgroup ' --for-each-cgroup="/$NAME" -T 0.2 \
	    -c "$WRITE"
	# perf stat has opened its counters when it waits for its command.
	wait_for pgrep -x -P "$perf" sleep
	gated a 2 300
	moved a "$CG/a"
	gated b 3 200
	moved b "$CG/b"
	open_gate a
	open_gate b
	until_sum "/$NAME/a" 600
	until_sum "/$NAME/b" 600
	wait "$(pid_of a)" "$(pid_of b)"
	# perf stat ends, with its counts, when its command does.
	pkill -TERM -x -P "$perf" sleep
	wait "$perf"
	kill -TERM "$CPID"
	wait_cputrack
	cat "$T/perf"
	[ "$(awk -F, -v g="$NAME/a" '$3 == "syscalls:sys_enter_write" && $4 == g { print $1 }' "$T/perf")" = "$(cgroup_sum "/$NAME/a")" ]
	[ "$(awk -F, -v g="$NAME/b" '$3 == "syscalls:sys_enter_write" && $4 == g { print $1 }' "$T/perf")" = "$(cgroup_sum "/$NAME/b")" ]
}

@test "--for-each-cgroup in OpenMetrics: a series per cgroup, labelled with its name; a removed cgroup's series keeps its last value" {
	mkdir "$CG/a" "$CG/gone"
	"$CPUTRACK" --for-each-cgroup="/$NAME" -T 0.2 --format=openmetrics \
	    -o "$T/m.prom" -c "$WRITE" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	wait_file "$T/m.prom"
	gated a 2 30
	moved a "$CG/a"
	gated gone 1 7
	moved gone "$CG/gone"
	open_gate a
	open_gate gone
	wait "$(pid_of a)" "$(pid_of gone)"
	rmdir "$CG/gone"
	local series="cputrack_cgroup_events_total{cgroup=\"/$NAME/%s\",event=\"$WRITE\",set=\"0\"} %s"
	# A thread's last counts are given at its last context switch, which
	# can come after its process was reaped: each series is waited for.
	# shellcheck disable=SC2059 # the format is the series'
	wait_while "$CPID" grep -qxF "$(printf "$series" a 60)" "$T/m.prom" ||
	    { cat "$T/m.prom"; false; }
	# shellcheck disable=SC2059
	wait_while "$CPID" grep -qxF "$(printf "$series" gone 7)" "$T/m.prom" ||
	    { cat "$T/m.prom"; false; }
	run ! grep -q 'pid="0"' "$T/m.prom"
	kill -TERM "$CPID"
	wait "$CPID"
}

@test "--for-each-cgroup: the ptrace engine, a bad option after the directory, a bad depth, max or kubelet-root are refused before anything starts" {
	run -2 "$CPUTRACK" --engine=ptrace --for-each-cgroup="/$NAME" -c "$WRITE"
	[ "$output" = "cputrack: --for-each-cgroup needs the BPF engine: the ptrace engine cannot see a process come into a cgroup" ]
	run -2 "$CPUTRACK" --for-each-cgroup="/$NAME,levels=2" -c "$WRITE"
	[ "${lines[0]}" = "cputrack: --for-each-cgroup: 'levels=2' is not depth=n, max=n, readonly or kubelet-root=path" ]
	run -2 "$CPUTRACK" --for-each-cgroup="/$NAME,kubelet-root=kubepods" -c "$WRITE"
	[ "$output" = "cputrack: --for-each-cgroup: kubelet-root=kubepods is not a path from the hierarchy's root (/...)" ]
	run -2 "$CPUTRACK" --for-each-cgroup="/$NAME,kubelet-root=/kubelet.slice" -c "$WRITE"
	[ "$output" = "cputrack: --for-each-cgroup: kubelet-root=/kubelet.slice does not end in the kubelet's own cgroup (kubepods, kubepods.slice or PREFIX-kubepods.slice)" ]
	run -2 "$CPUTRACK" --for-each-cgroup="/$NAME,kubelet-root=/a/../kubepods" -c "$WRITE"
	[ "$output" = "cputrack: --for-each-cgroup: kubelet-root=/a/../kubepods has '.' or '..' in it" ]
	run -2 "$CPUTRACK" --for-each-cgroup="/$NAME,depth=-1" -c "$WRITE"
	[ "${lines[0]}" = "cputrack: invalid depth '-1'" ]
	run -2 "$CPUTRACK" --for-each-cgroup="/$NAME,max=0" -c "$WRITE"
	[ "${lines[0]}" = "cputrack: invalid max '0'" ]
	run -2 "$CPUTRACK" --for-each-cgroup="/$NAME" -p 1 -c "$WRITE"
	[ "${lines[0]}" = "cputrack: --for-each-cgroup and -p cannot be given together" ]
	run -2 "$CPUTRACK" --for-each-cgroup=/no-such-cgroup-"$NAME" -c "$WRITE"
	[ "$output" = "cputrack: --for-each-cgroup '/no-such-cgroup-$NAME': no such cgroup under $CGM" ]
}

@test "--for-each-cgroup without CAP_PERFMON or CAP_SYS_ADMIN: refused in one line, exit 2, CAP_SYS_PTRACE or not" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local line="cputrack: --for-each-cgroup counts whole CPUs: it needs CAP_PERFMON (root has it)"
	# A user with no capability.
	run -2 setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    --inh-caps=-all "$(nobody_path "$CPUTRACK")" \
	    --for-each-cgroup="/$NAME" -c task-clock
	[ "$output" = "$line" ]
	# Root with CAP_SYS_PTRACE and CAP_BPF, without the two.
	run -2 setpriv --bounding-set=-perfmon,-sys_admin \
	    --inh-caps=-perfmon,-sys_admin "$CPUTRACK" \
	    --for-each-cgroup="/$NAME" -c task-clock
	[ "$output" = "$line" ]
}

@test "--for-each-cgroup as nobody with CAP_BPF and CAP_PERFMON alone: every process of the cgroups counted exactly, root's, another user's and one with a capability nobody lacks" {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local tp cpid
	mkdir "$CG/a" "$CG/b" "$CG/c"
	# tracefs is root's: the tracepoint is named by its id.
	tp=$(cat /sys/kernel/tracing/events/syscalls/sys_enter_write/id)
	gated root 2 100
	moved root "$CG/a"
	gated other 1 70 as --reuid=4242 --regid=4242 --clear-groups
	moved other "$CG/b"
	gated capable 3 10 as --reuid=nobody --regid=nogroup --clear-groups \
	    --inh-caps=+net_raw --ambient-caps=+net_raw
	moved capable "$CG/c"
	bg_until ' cgroup ' timeout --foreground -k 5 120 \
	    env --default-signal=INT,QUIT setpriv --reuid=nobody \
	    --regid=nogroup --clear-groups --inh-caps=-all,+bpf,+perfmon \
	    --ambient-caps=-all,+bpf,+perfmon --bounding-set=-all,+bpf,+perfmon \
	    "$(nobody_path "$CPUTRACK")" --for-each-cgroup="/$NAME" -T 0.2 \
	    -c "tracepoint/config=$tp/"
	# What it holds: CAP_BPF (39) and CAP_PERFMON (38), no more.
	cpid=$(pgrep -P "$CPID")
	grep -qx "CapEff:	$(printf '%016x' $(((1 << 38) | (1 << 39))))" \
	    "/proc/$cpid/status"
	grep -qE '^Uid:	65534	' "/proc/$cpid/status"
	for w in root other capable; do
		open_gate "$w"
	done
	wait "$(pid_of root)" "$(pid_of other)" "$(pid_of capable)"
	until_sum "/$NAME/a" 200
	until_sum "/$NAME/b" 70
	until_sum "/$NAME/c" 30
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ]
	[ ! -s "$T/err" ]
	[ "$(cgroup_sum "/$NAME/a")" = 200 ]
	[ "$(cgroup_sum "/$NAME/b")" = 70 ]
	[ "$(cgroup_sum "/$NAME/c")" = 30 ]
}

@test "--for-each-cgroup in a pid namespace of its own, as a container's pid 1: every process of the cgroups counted exactly; SIGTERM ends it, status 0" {
	command -v unshare >/dev/null || skip "unshare is not installed"
	local ctpid
	mkdir "$CG/a" "$CG/b"
	gated one 2 40
	moved one "$CG/a"
	gated two 1 15
	moved two "$CG/b"
	bg_until ' cgroup ' timeout --foreground -k 5 120 \
	    unshare --pid --fork --mount-proc env --default-signal=INT,QUIT \
	    "$CPUTRACK" --for-each-cgroup="/$NAME" -T 0.2 -c "$WRITE"
	# timeout, unshare, and cputrack, the namespace's first process.
	ctpid=$(pgrep -P "$(pgrep -P "$CPID")")
	[ "$(readlink "/proc/$ctpid/ns/pid")" != "$(readlink /proc/self/ns/pid)" ]
	grep -qE '^NSpid:	[0-9]+	1$' "/proc/$ctpid/status"
	open_gate one
	open_gate two
	wait "$(pid_of one)" "$(pid_of two)"
	until_sum "/$NAME/a" 80
	until_sum "/$NAME/b" 15
	# unshare passes no signal on: the kubelet's goes to the process.
	kill -TERM "$ctpid"
	wait_cputrack
	[ "$status" -eq 0 ]
	[ ! -s "$T/err" ]
	[ "$(cgroup_sum "/$NAME/a")" = 80 ]
	[ "$(cgroup_sum "/$NAME/b")" = 15 ]
}

@test "--for-each-cgroup: a cgroup's name keeps its row on one line, its controls, bidirectional controls and bad bytes escaped" {
	local name shown
	# A tab, a screen clear, CSI as C1, a right-to-left override, a
	# byte not UTF-8.
	name=$(printf 'tab\tname\033[2J\302\233\342\200\256\377')
	shown='tab\x09name\x1b[2J\xc2\x9b\xe2\x80\xae\xff'
	mkdir "$CG/$name"
	gated t 1 5
	moved t "$CG/$name"
	start_cputrack_until ' cgroup ' --for-each-cgroup="/$NAME" -T 0.2 \
	    -c "$WRITE"
	open_gate t
	until_sum "/$NAME/$shown" 5
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ]
	grep -qF "cgroup" "$T/out"
	grep -qF "# /$NAME/$shown" "$T/out"
	python3 "$SOURCE_DIR/tests/cli/inert_check.py" "$T/out"
}

# churn N: cgroups made under $CG/churn, each new to the run as a shell
# writes its own pid there, and removed, until $T/stop or N of them;
# how many so far in $T/churning, each hundred, and in all in $T/churned.
churn() {
	local i=0
	while [ ! -e "$T/stop" ] && [ "$i" -lt "$1" ]; do
		i=$((i + 1))
		mkdir "$CG/churn/$i"
		sh -c 'echo $$ >"$1/cgroup.procs"; echo $$ >"$2/cgroup.procs"' \
		    sh "$CG/churn/$i" "$CG/churn"
		rmdir "$CG/churn/$i"
		[ $((i % 100)) != 0 ] || echo "$i" >"$T/churning"
	done
	echo "$i" >"$T/churned"
}

churned() {
	[ "$(cat "$T/churning" 2>/dev/null)" -ge "$1" ] 2>/dev/null
}

# churned_past N: until the churn has made N cgroups, each hundred
# within the bound of a wait: a busy machine churns slowly, which is the
# test's own pace, not the run's, and only a churn that stops is a hang.
churned_past() {
	local n
	for n in $(seq 100 100 "$1"); do
		wait_for churned "$n" || return 1
	done
}

@test "--for-each-cgroup: 2,000 idle cgroups and cgroups made, counted and removed by the hundred do not stop the counting; a cgroup made meanwhile gets its rows; SIGINT, SIGTERM or SIGHUP in the churn ends the run with its totals" {
	mkdir "$CG/idle" "$CG/churn"
	(cd "$CG/idle" && seq 2000 | xargs mkdir)
	local sig churner start end
	for sig in INT TERM HUP; do
		rm -f "$T/stop" "$T/churning" "$T/out" "$T/err"
		mkdir "$CG/later$sig"
		# The default depth, 3, takes in $CG/idle/N and $CG/churn/N.
		# The run lasts as long as the churn takes: a busy machine's
		# pace, not the run's, so its bound is the test's own.
		CT_TIMEOUT=600 start_cputrack_until ' cgroup ' -D \
		    --for-each-cgroup="/$NAME" -T 0.2 -c "$WRITE"
		# Their names come as they are made: no walk of the directory.
		grep -q "^cputrack: cgroups: named as they are made" "$T/err"
		churn 100000 &
		churner=$!
		ct_bg "$churner"
		# Three hundred made and removed before the next cgroup is made.
		churned_past 300
		gated "later$sig" 1 50
		moved "later$sig" "$CG/later$sig"
		open_gate "later$sig"
		until_sum "/$NAME/later$sig" 50
		start=$(date +%s%N)
		kill -"$sig" "$CPID"
		wait_cputrack
		end=$(date +%s%N)
		touch "$T/stop"
		wait "$churner"
		echo "# SIG$sig in a churn of $(cat "$T/churned") cgroups: ended in $(((end - start) / 1000000)) ms" >&3
		[ "$status" -eq 0 ] || { cat "$T/err"; false; }
		[ "$(cgroup_sum "/$NAME/later$sig")" = 50 ]
		[ "$(cgroup_sum "/$NAME/later$sig" total)" = 50 ]
	done
}

@test "--for-each-cgroup: a name longer than 255 bytes is shortened to 255, its start, ... and a hash; two such names stay apart, each with its own counts" {
	local long x y
	long=$(printf 'l%.0s' $(seq 200))
	mkdir -p "$CG/$long/${long}x" "$CG/$long/${long}y"
	start_cputrack_until ' cgroup ' --for-each-cgroup="/$NAME" -T 0.2 \
	    -c "$WRITE"
	gated x 1 30
	moved x "$CG/$long/${long}x"
	gated y 1 40
	moved y "$CG/$long/${long}y"
	open_gate x
	open_gate y
	wait "$(pid_of x)" "$(pid_of y)"
	# The rows' names: 255 bytes, the first 236 of the path, "...", 16
	# hex digits.
	short() {
		awk -v p="/$NAME/$long/" '$2 == 0 && $4 == "cgroup" &&
		    index($NF, substr(p, 1, 236)) == 1 && $NF ~ /\.\.\.[0-9a-f]+$/ &&
		    length($NF) == 255 { print $NF }' "$T/out" | sort -u
	}
	named_twice() { [ "$(short | wc -l)" -eq 2 ]; }
	wait_while "$CPID" named_twice || { cat "$T/out"; false; }
	x=$(short | head -n 1)
	y=$(short | tail -n 1)
	[ "$x" != "$y" ]
	both_counted() { [ "$(($(cgroup_sum "$x") + $(cgroup_sum "$y")))" -eq 70 ]; }
	wait_while "$CPID" both_counted || { cat "$T/out"; false; }
	kill -TERM "$CPID"
	wait_cputrack
	[ "$status" -eq 0 ]
	# 30 writes in one, 40 in the other, whichever hash sorts first.
	[ "$(cgroup_sum "$x")" = 30 ] || [ "$(cgroup_sum "$x")" = 40 ]
	[ "$(($(cgroup_sum "$x") + $(cgroup_sum "$y")))" -eq 70 ]
	# No row's name is longer.
	[ -z "$(awk '$2 == 0 && length($NF) > 255' "$T/out")" ]
}
