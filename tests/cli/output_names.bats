#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# Names are inert (cpctools-output(5), "Names"): whatever bytes a command
# line, a process's or a thread's name or a cgroup's name holds, what the
# commands write reaches a terminal with no control character, no bad
# UTF-8 and no bidirectional control raw, in every format: the table, CSV,
# JSON Lines, the trace, the metrics, cputop, the messages. What each
# shows is what the rule, written again in names_rule.py from the page,
# makes of the bytes.

load cputrack_helper

setup() {
	ct_setup
	PY=/usr/bin/python3
	[ -x "$PY" ] || PY=python3
	RULE=$SOURCE_DIR/tests/cli/names_rule.py
	INERT=$SOURCE_DIR/tests/cli/inert_check.py
}

teardown() {
	if [ -n "${NAMES_CG:-}" ] && [ -d "$NAMES_CG" ]; then
		# Back where they were, so that the cgroup can go.
		while read -r p; do
			kill -KILL "$p" 2>/dev/null || true
		done <"$NAMES_CG/cgroup.procs"
		ct_teardown
		wait_for rmdir "$NAMES_CG"
		return
	fi
	ct_teardown
}

@test "every byte 1-255, C1, the bidirectional controls and the separators in exec arguments: the table and CSV escape them as the rule says, JSON and the trace carry them escaped; all inert" {
	local n i fmt
	n=$("$PY" "$RULE" chunks "$T")
	[ "$n" -ge 9 ]
	for i in $(seq 0 $((n - 1))); do
		for fmt in table csv json trace; do
			status=0
			timeout -k 5 120 xargs -0 -a "$T/args.$i" "$CT" -e -T 0 \
			    --format=$fmt -o "$T/out.$fmt" -c "$WRITE" \
			    /usr/bin/env 2>"$T/err" || status=$?
			[ "$status" -eq 0 ] || { cat "$T/err"; false; }
			"$PY" "$INERT" "$T/out.$fmt" "$T/err"
		done
		grep -qF -- "$(cat "$T/table.$i")" "$T/out.table" ||
		    { echo "chunk $i: no $(cat "$T/table.$i") in:"; cat "$T/out.table"; false; }
		grep -qF -- "$(cat "$T/csv.$i")" "$T/out.csv" ||
		    { echo "chunk $i: no $(cat "$T/csv.$i") in:"; cat "$T/out.csv"; false; }
		"$PY" "$RULE" json-has "$T/out.json" "$T/json.$i"
		"$PY" "$RULE" json-has "$T/out.trace" "$T/json.$i"
	done
}

@test "every byte 1-255, C1 and the bidirectional controls in process names: cputop and the metrics labels escape them as the rule says, the trace carries them; all inert" {
	local n i pids
	n=$("$PY" "$RULE" comms "$T")
	[ "$n" -ge 17 ]
	"$PY" "$RULE" procs "$T/pids" &
	ct_bg $!
	wait_file "$T/pids"
	pids=$(cat "$T/pids")
	# cputop's view as text, wide enough for every name whole.
	COLUMNS=200 CT_TIMEOUT=60 ct_run --top -b -T 0.2 -N 2 -c "$WRITE" -p "$pids"
	[ "$status" -eq 0 ]
	"$PY" "$INERT" "$T/out" "$T/err"
	cp "$T/out" "$T/top"
	ct_run --format=openmetrics -T 0.2 -N 2 -c "$WRITE" -p "$pids"
	[ "$status" -eq 0 ]
	"$PY" "$INERT" "$T/out" "$T/err"
	cp "$T/out" "$T/metrics"
	for i in $(seq 0 $((n - 1))); do
		grep -qF -- " $(cat "$T/want.$i")" "$T/top" ||
		    { echo "name $i: no $(cat "$T/want.$i") in:"; cat "$T/top"; false; }
		# A label's backslashes and quotes escaped.
		grep -qF -- "comm=\"$(sed 's/\\/\\\\/g; s/"/\\"/g' "$T/want.$i")\"" "$T/metrics" ||
		    { echo "name $i: no comm label for $(cat "$T/want.$i")"; false; }
	done
	ct_run --format=trace -T 0.2 -N 2 -c "$WRITE" -p "$pids"
	[ "$status" -eq 0 ]
	"$PY" "$INERT" "$T/out" "$T/err"
}

@test "a cgroup's name in the metrics label, and a command line in a message: escaped as the rule says, inert" {
	local name shown
	# A screen clear, CSI as C1, a right-to-left override, a bad byte.
	name=$(printf '\033[2J\302\233\342\200\256\377x')
	shown=$("$PY" "$RULE" escape '\x1b[2J\xc2\x9b\xe2\x80\xae\xffx')
	# A message that names an image exec'd and not followed (-f, no -e).
	ln -s /bin/true "$T/true$name"
	ct_run -f -T 0 -c "$WRITE" sh -c 'exec "$0"' "$T/true$name"
	"$PY" "$INERT" "$T/out" "$T/err"
	grep -qF -- "true$shown" "$T/err"
	local cgm
	cgm=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup2") print $5; break } }' \
	    /proc/self/mountinfo | head -n 1)
	[ -n "$cgm" ] || skip "no cgroup v2 hierarchy is mounted here"
	NAMES_CG=$cgm/cpctools-names-$$-$name
	mkdir "$NAMES_CG" ||
	    skip "cannot make a cgroup under $cgm (a container's read-only one)"
	"$W/wl_idle" 0 0 >"$T/target.out" &
	ct_bg $!
	echo $! >"$NAMES_CG/cgroup.procs"
	ct_run --format=openmetrics -T 0.2 -N 2 -c "$WRITE" -p $!
	[ "$status" -eq 0 ]
	"$PY" "$INERT" "$T/out" "$T/err"
	grep -qF -- "/cpctools-names-$$-${shown//\\/\\\\}\"" "$T/out"
}
