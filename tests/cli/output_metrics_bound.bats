#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# The metrics keep the series of the latest 1024 LWPs and processes that
# ended, the first ended going first, and count those dropped
# (cputrack_ended_series_dropped_total): a program that churns through
# threads leaves a bounded table, and the process's series keeps the
# whole count.

load output_helper

setup() {
	out_setup
}

teardown() {
	exec 9>&- 2>/dev/null || true
	out_teardown
}

@test "3000 churned threads: 1024 ended series kept, the latest; 1978 dropped and counted; the process exact" {
	# 300 rounds of 10 threads, each making 3 writes: 3001 LWP series
	# and 1 process series, all ended by the exit.
	ct_run --thread-series --format=prometheus -o "$T/m.prom" -T 0 -c "$WRITE" \
	    "$W/wl_churn" 300 10 3
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	prometheus_check "$T/m.prom"
	grep -qx 'cputrack_ended_series_dropped_total 1978' "$T/m.prom"
	sed -nE 's#^cputrack_events_total\{pid="[0-9]+",lwp="([0-9]+)",comm="wl_churn",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} ([0-9]+)$#\1 \2#p' \
	    "$T/m.prom" | sort -n >"$T/lwps"
	[ "$(grep -c . "$T/lwps")" -eq 1023 ]
	# The process's count is whole.
	grep -qE '^cputrack_process_events_total\{pid="[0-9]+",comm="wl_churn",'"$CGRE"'event="syscalls:sys_enter_write",set="0"\} 9000$' "$T/m.prom"
	# Kept: the main thread, exact (it wrote nothing: the total's share of
	# the threads dropped is not put on it), and the 1022 threads whose
	# ends cputrack learned last, each with its 3 writes. Rounds are
	# joined one after the other, so those are about two of round 197
	# (LWPs 1972 to 1981) and all of rounds 198 to 299 (LWPs 1982 to
	# 3001). About: a joined thread still has its exit to finish, and
	# ptrace learns of its end only when it is reaped, so on a busy
	# machine a thread of an earlier round can end after one of a later
	# round. Allow 10 rounds of that.
	[ "$(head -1 "$T/lwps")" = "1 0" ]
	awk 'NR > 1 && ($1 < 1872 || $1 > 3001 || $2 != 3) { print; bad = 1 }
	    END { exit bad }' "$T/lwps"
	# The table stays small: 1024 ended series, not 3002.
	local size
	size=$(wc -c <"$T/m.prom")
	echo "metrics: $size bytes"
	[ "$size" -lt 400000 ]
}

# scrape PORT: the metrics, to $T/m; sets n (LWP series) and d (ended
# series dropped, 0 before any). Fails while no server answers.
scrape() {
	curl -sf "http://127.0.0.1:$1/metrics" >"$T/m" 2>/dev/null || return 1
	n=$(grep -c '^cputrack_events_total{' "$T/m" || true)
	d=$(sed -n 's/^cputrack_ended_series_dropped_total //p' "$T/m")
	d=${d:-0}
}

# scraped_all_dropped PORT: one scrape (scrape), counted in scrapes, the
# most series of one kept in max, the series dropped in dropped; true once
# dropped is $want, or once it is fewer than a scrape before (said in
# fell).
scraped_all_dropped() {
	scrape "$1" && scrapes=$((scrapes + 1)) && max=$((n > max ? n : max)) &&
	    if [ "$d" -lt "$dropped" ]; then
		fell="$dropped to $d"
	    else
		dropped=$d && [ "$d" -eq "$want" ]
	    fi
}

@test "while the churn runs, a scrape never holds more than the bound; dropped grows to the exact count" {
	need_listener
	local port n d max=0 dropped=0 scrapes=0 fell=
	# 16000 threads end; the main thread and the process stay, held
	# until the gate closes, so the end of the churn can be scraped.
	local want=$((4000 * 4 - 1024))
	port=$(free_port)
	mkfifo "$T/gate"
	"$CT" --thread-series --listen=127.0.0.1:"$port" -o /dev/null -T 0.05 -c "$WRITE" \
	    "$W/wl_churn" 4000 4 3 hold <"$T/gate" >"$T/wl" 2>"$T/err" &
	CPID=$!
	ct_bg "$CPID"
	exec 9>"$T/gate"
	# Each wait's bound renewed while the count grows: the churn goes at
	# a busy machine's pace; only a count that stops is a hang.
	local last=-1
	while [ "$dropped" -gt "$last" ] && [ -z "$fell" ]; do
		last=$dropped
		! wait_while "$CPID" scraped_all_dropped "$port" || break
	done
	# Never fewer than a scrape before.
	[ -z "$fell" ] || { echo "dropped went from $fell"; false; }
	exec 9>&-
	wait "$CPID"
	[ ! -s "$T/err" ]
	grep -qx done "$T/wl"
	echo "$scrapes scrapes; most series in one: $max; dropped: $dropped (want $want)"
	# Every thread ended and its series went in order: the 1024 latest
	# ended and the main thread's, no more.
	[ "$dropped" -eq "$want" ]
	[ "$n" -eq 1025 ]
	# 1024 ended, and those of the LWPs whose end had not come yet (a
	# round's 4 and the main one, and a few whose exit rows were still
	# on their way): nowhere near the 16001 LWPs of the run.
	[ "$max" -le 1100 ]
}
