# SPDX-License-Identifier: BSD-2-Clause
# shellcheck disable=SC2034 # the .bats files that load it read what it sets
# Shared by the tests of --cgroup and --for-each-cgroup: a real cgroup v2
# directory made for each test, and workloads held at a gate in it.
load bpf_helper

# cg_setup: a cgroup $CG (named $NAME, under the cgroup2 mount $CGM) with
# a child $CG/sub, made for the test; skips where none can be made.
cg_setup() {
	bd_setup
	CGM=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup2") print $5; break } }' \
	    /proc/self/mountinfo | head -n 1)
	[ -n "$CGM" ] || skip "no cgroup v2 hierarchy is mounted here"
	NAME=cpctools-bats-$$-$BATS_TEST_NUMBER
	CG=$CGM/$NAME
	mkdir "$CG" "$CG/sub" ||
	    skip "cannot make a cgroup under $CGM (a container's read-only one)"
}

# cg_teardown: every process left in $CG or below it killed, and the
# cgroups removed, deepest first.
cg_teardown() {
	find "$CG" -name cgroup.procs -exec cat {} + 2>/dev/null |
	    while read -r p; do kill -KILL "$p" 2>/dev/null || true; done
	ct_teardown
	find "$CG" -depth -type d -exec rmdir {} + 2>/dev/null || true
}

# gated NAME THREADS K [into CGROUP_DIR | as SETPRIV_ARG...]: wl_gate
# THREADS K behind the gate $T/NAME.gate, its pid in $T/NAME.pid, waiting
# once it is ready. With "into", a shell puts itself into the cgroup,
# waits to be let on ($T/NAME.hold), then execs the workload: it is found
# there when it runs again (or at the exec), and its "ready" write is
# counted. With "as", setpriv runs it with those arguments (another user,
# capabilities).
gated() {
	local name=$1 threads=$2 k=$3
	mkfifo "$T/$name.gate"
	if [ "${4:-}" = as ]; then
		setpriv "${@:5}" "$(nobody_path "$W/wl_gate")" "$threads" "$k" \
		    <"$T/$name.gate" >"$T/$name.out" &
	elif [ "${4:-}" = into ]; then
		mkfifo "$T/$name.hold"
		sh -c 'echo $$ >"$1/cgroup.procs"; read x <"$2"; exec "$3" "$4" "$5"' \
		    sh "$5" "$T/$name.hold" "$W/wl_gate" "$threads" "$k" \
		    <"$T/$name.gate" >"$T/$name.out" &
	else
		"$W/wl_gate" "$threads" "$k" <"$T/$name.gate" >"$T/$name.out" &
	fi
	echo $! >"$T/$name.pid"
	ct_bg $!
	# Opened for writing only after the reader: the fifo blocks till then.
	eval "exec {fd}>\"$T/$name.gate\""
	echo "$fd" >"$T/$name.fd"
	if [ "${4:-}" = into ]; then
		echo >"$T/$name.hold"
	fi
	wait_line "$T/$name.out" '^ready$'
}

open_gate() {
	local fd
	fd=$(cat "$T/$1.fd")
	echo >&"$fd"
	eval "exec $fd>&-"
}

# moved NAME DIR: the gated workload NAME (all its threads) moved into
# cgroup DIR, by this shell: it waits at its gate, so the counts of each
# cgroup are the workload's writes after the gate. A process that moves
# itself has what it counted since its last context switch (the write to
# cgroup.procs among it) counted in the cgroup it moved to.
moved() {
	pid_of "$1" >"$2/cgroup.procs"
}

pid_of() {
	cat "$T/$1.pid"
}

# The value of the rows of pid $1 labelled $2, one per line, LWPs in order.
rows_of() {
	awk -v pid="$1" -v label="$2" '$2 == pid && $4 == label { print $5 }' \
	    "$T/out"
}

# wait_rows LABEL N: until the background cputrack ($CPID) printed N rows
# labelled LABEL.
wait_rows() {
	wait_while "$CPID" labelled_rows_at_least "$1" "$2"
}
labelled_rows_at_least() {
	[ "$(awk -v want="$1" '$4 == want' "$T/out" | wc -l)" -ge "$2" ]
}

