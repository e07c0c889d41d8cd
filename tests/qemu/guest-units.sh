# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=dash
# cpustat --per-core/--per-die/--per-socket/--per-node/--per-cache in a guest whose
# QEMU command line gave it sockets, dies and NUMA nodes, sourced by the
# guest scripts (tests/hw/guest-sockets, tests/kernels/guest-topology).
# The units are read here from sysfs, not from cpustat:
#
#   units_topology FILE        "cpu socket die core node level cache" per
#                              online CPU: its highest data or unified
#                              cache's level and id ("- -" for none)
#   units_check FILE KIND TOPO EVENT...
#                              cpustat's CSV in FILE against TOPO: one row
#                              per KIND unit per interval (a gap row stands
#                              for several: a loaded host ran a unit's CPUs
#                              late, and the units' rows are then not as
#                              many as each other's), each with its
#                              own CPUs (ncpus; fewer only where it says
#                              so, as a CPU that a loaded host ran late
#                              makes it) and fields, and the rows' sum of
#                              each EVENT the total's, exactly (the total
#                              is summed from each CPU's counters).
#                              Prints "ok" then "UNIT:EVENT=SUM" words, or
#                              what is wrong.
#   units_want TOPO KIND N [A B]
#                              "UNIT:COUNT" words: what each unit counts
#                              when CPU c counts A + B * N * 2^c
#                              (A 0 and B 1 unless given): the sum of
#                              any set of CPUs says which they are
#   units_run FILE KIND WORKLOAD N CPUSTAT-ARGS...
#                              cpustat CPUSTAT-ARGS --per-KIND in the
#                              background while "WORKLOAD N * 2^c"
#                              runs pinned to each CPU c in turn (the
#                              number as 8 digits or more), then two
#                              intervals more, then SIGTERM (the run's
#                              total comes out)
#
# Uses $T (a scratch directory) of the sourcing script.

# A CPU list of sysfs (0-1,4) holds CPU $2.
in_cpulist() {	# LIST CPU
	echo "$1" | awk -v c="$2" -F, '{
		for (i = 1; i <= NF; i++) {
			n = split($i, r, "-")
			if (n && c >= r[1] && c <= r[n]) found = 1
		}
	} END { exit !found }'
}

units_topology() {	# FILE
	for d in /sys/devices/system/cpu/cpu[0-9]*; do
		c=${d##*/cpu}
		[ -r "$d/topology/physical_package_id" ] || continue
		# No die_id (arm64, kernels before 5.5): one die, 0.
		die=$(cat "$d/topology/die_id" 2>/dev/null || echo 0)
		node=0
		for n in /sys/devices/system/node/node[0-9]*; do
			[ -r "$n/cpulist" ] || continue
			in_cpulist "$(cat "$n/cpulist")" "$c" && node=${n##*/node}
		done
		echo "$c $(cat "$d/topology/physical_package_id") $die $(cat "$d/topology/core_id") $node $(top_cache "$d")"
	done | sort -n > "$1"
}

# A CPU directory's highest data or unified cache: "LEVEL ID", the id
# the first CPU sharing it where sysfs gives none; "- -" without caches.
top_cache() {	# CPUDIR
	best="- -"
	top=0
	for x in "$1"/cache/index[0-9]*; do
		[ -r "$x/level" ] || continue
		[ "$(cat "$x/type")" != Instruction ] || continue
		lv=$(cat "$x/level")
		[ "$lv" -gt "$top" ] || continue
		top=$lv
		if [ -r "$x/id" ]; then
			best="$lv $(cat "$x/id")"
		else
			best="$lv $(sed 's/[-,].*//' "$x/shared_cpu_list")"
		fi
	done
	echo "$best"
}

# The unit name of a topology line's CPU, as cpustat(1) names it.
UNITS_AWK_NAME='
function uname(kind, s, d, c, n, lv, id) {
	if (kind == "core") return sprintf("S%d-D%d-C%d", s, d, c)
	if (kind == "cache") return sprintf("S%d-D%d-L%d-ID%d", s, d, lv, id)
	if (kind == "die") return sprintf("S%d-D%d", s, d)
	if (kind == "socket") return sprintf("S%d", s)
	return sprintf("N%d", n)
}'

units_want() {	# TOPO KIND N [A B]
	awk -v kind="$2" -v n="$3" -v a="${4:-0}" -v b="${5:-1}" "$UNITS_AWK_NAME"'
	# busybox awk has no ^ (no math library): 2^c by doubling.
	{ u = uname(kind, $2, $3, $4, $5, $6, $7); m = 1; for (i = 0; i < $1; i++) m *= 2
	  w[u] += a + b * n * m }
	END { for (u in w) printf "%s:%.0f\n", u, w[u] }' "$1" | sort | tr '\n' ' '
}

units_check() {	# FILE KIND TOPO EVENT...
	file=$1 kind=$2 topo=$3
	shift 3
	awk -F, -v kind="$kind" -v events="$*" "$UNITS_AWK_NAME"'
	function bad(why) { if (err == "") err = why }
	FNR == NR {
		split($0, t, " ")
		u = uname(kind, t[2], t[3], t[4], t[5], t[6], t[7]); want[u]++; ncpu++; next
	}
	FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; nev = split(events, ev, " "); next }
	$col["label"] == "tick" || $col["label"] == "gap" {
		if ($col["label"] == "gap") gaps++
		s = $col["socket"]; d = $col["die"]; c = $col["core"]; n = $col["node"]
		lv = $col["cache_level"]; id = $col["cache"]
		if (kind != "cache" && (lv != "" || id != ""))
			bad("a " kind " row has a cache: " $0)
		if (kind == "cache") {
			u = "S" s "-D" d "-L" lv "-ID" id
			if (c != "" || n != "") bad(u " names a core or node: " $0)
		} else if (kind == "node") {
			u = "N" n
			if (s != "" || d != "" || c != "") bad(u " names a socket, die or core: " $0)
		} else {
			u = "S" s
			if (kind != "socket") u = u "-D" d
			if (kind == "core") u = u "-C" c
			if (n != "" || (kind == "socket" && (d != "" || c != "")) ||
			    (kind == "die" && c != ""))
				bad(u " has fields of another kind of unit: " $0)
		}
		if (!(u in want)) { bad("unit " u " is not in sysfs: " $0); next }
		if ($col["cpu"] != "") bad(u " names a CPU: " $0)
		# A row may hold fewer CPUs where it says which it lacks (a CPU
		# came late, and its row is in the next one), or where it is
		# the unit last (a signal ended the run between the CPUs of
		# the interval).
		if (short[u]) bad(u " has a row of " short[u] " CPUs before its last")
		k = $col["ncpus"]; p = $col["partial"]
		short[u] = 0
		if (k > want[u] || k < 1) bad(u ": " k " CPUs, sysfs gives it " want[u])
		else if (k < want[u] && p == (want[u] - k) " of " want[u] " CPUs not counted") late++
		else if (k < want[u] && p == "") short[u] = k
		else if (p != "") bad(u ": " k " CPUs, partial \"" p "\"")
		rows[u]++
		for (i = 1; i <= nev; i++) {
			v = $col[ev[i]]
			if (v !~ /^[0-9]+$/) bad(u ": " ev[i] " is \"" v "\"")
			sum[ev[i]] += v; part[u, ev[i]] += v
		}
		next
	}
	$col["label"] == "total" {
		totals++
		if ($col["ncpus"] != ncpu) bad("total over " $col["ncpus"] " CPUs, " ncpu " online")
		for (i = 1; i <= nev; i++) total[ev[i]] = $col[ev[i]]
	}
	END {
		if (totals != 1) bad(totals + 0 " total rows")
		for (u in want) {
			if (!(u in rows)) bad("no row of unit " u)
			else if (ref == "") ref = u
			else if (rows[u] != rows[ref] && !late && !gaps)
				bad(u " has " rows[u] " rows, " ref " " rows[ref])
		}
		for (i = 1; i <= nev; i++)
			if (sum[ev[i]] != total[ev[i]])
				bad(ev[i] ": the unit rows add up to " sum[ev[i]] ", the total is " total[ev[i]])
		if (err != "") { print err; exit }
		printf "ok"
		for (u in rows) for (i = 1; i <= nev; i++) printf " %s:%s=%.0f", u, ev[i], part[u, ev[i]]
		printf "\n"
	}' "$topo" "$file"
}

# The words "UNIT:N" of units_check's output for EVENT, sorted.
units_parts() {	# "ok ..." EVENT
	echo "$1" | tr ' ' '\n' | sed -n "s/^\([^:]*\):$2=\([0-9]*\)$/\1:\2/p" |
	    sort | tr '\n' ' '
}

units_ticks() { grep -c ',tick,\|,gap,' "$1"; }

units_run() {	# FILE KIND WORKLOAD N CPUSTAT-ARGS...
	file=$1 kind=$2 work=$3 n=$4
	shift 4
	# Emptied first: the wait below must not see an earlier run's rows.
	: > "$file"
	cpustat "$@" "--per-$kind" --format=csv 0.5 > "$file" 2> "$file.err" &
	ucs=$!
	i=0
	while [ $i -lt 600 ] && [ "$(units_ticks "$file")" = 0 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	while read -r c _; do
		taskset -c "$c" "$work" "$(printf '%08d' $((n * (1 << c))))"
	done < "$T/topo"
	# Two intervals more: the last call's interval has its rows.
	nu=$(units_ticks "$file")
	more=$(($(units_want "$T/topo" "$kind" 0 | wc -w) * 2))
	i=0
	while [ $i -lt 600 ] && [ "$(units_ticks "$file")" -lt $((nu + more)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -TERM $ucs 2>/dev/null
	wait $ucs
}

# A software event made exact: CPU c makes 1000 * 2^c getpriority(2)
# calls (WORKLOAD, tests/workloads/wl_getpriority), so that each unit's
# count says which CPUs it summed; beside it cpu-clock, which every CPU
# counts. Each unit's rows of the run hold its CPUs' calls, exactly.
units_exact() {	# NAME KIND WORKLOAD
	ev=syscalls:sys_enter_getpriority
	units_run $T/u "$2" "$3" 1000 -c "$ev,cpu-clock"
	r=$(units_check $T/u "$2" $T/topo $ev cpu-clock)
	got=$(units_parts "$r" $ev) want=$(units_want $T/topo "$2" 1000)
	if [ "${r%% *}" = ok ] && [ "$got" = "$want" ] && [ ! -s $T/u.err ]; then
		pass "$1" "$(units_ticks $T/u) rows, the total's = their sum; calls per unit ${got% }"
	else
		fail "$1" "${r%% S*}; calls per unit: got '${got% }', want '${want% }'"
		show $T/u $T/u.err
	fi
}

# -C: the CPUs of the last socket alone, summed in one row.
units_cpus() {	# NAME
	s=$(awk 'END { print $2 }' $T/topo)
	awk -v s="$s" '$2 == s' $T/topo > $T/topo.C
	list=$(awk '{ printf "%s%s", sep, $1; sep = "," }' $T/topo.C)
	cpustat -C "$list" --per-socket --format=csv -c cpu-clock 0.5 2 > $T/u 2> $T/u.err
	rc=$?
	r=$(units_check $T/u socket $T/topo.C cpu-clock)
	if [ $rc = 0 ] && [ "${r%% *}" = ok ] && [ ! -s $T/u.err ] &&
	    [ "$(units_ticks $T/u)" = 2 ]; then
		pass "$1" "-C $list: socket $s alone, 2 rows of its $(wc -l < $T/topo.C) CPUs"
	else
		fail "$1" "-C $list: exit $rc, ${r%% S*}"; show $T/u $T/u.err
	fi
}
