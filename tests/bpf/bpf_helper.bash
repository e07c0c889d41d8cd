# SPDX-License-Identifier: BSD-2-Clause
# shellcheck disable=SC2034 # the .bats files that load it read what it sets
# Shared set-up for the BPF engine's tests: bpfdrive (see bpfdrive.c for
# the lines it prints) against the real kernel and the test workloads.
load ../cli/cputrack_helper

bd_setup() {
	ct_setup
	D=$BPFDRIVE
	[ "$(id -u)" -eq 0 ] ||
		skip "the BPF engine needs root (CAP_BPF and CAP_PERFMON)"
	[ -z "${BPF_MISSING:-}" ] || skip "$BPF_MISSING"
	ensure_tracefs
}

# bd_run [bpfdrive args...]: run bpfdrive under a timeout, once no cpustat
# holds the counters, and again (up to 9 times) if one took them
# meanwhile. Sets status, output, stderr; the raw files are $T/out, $T/err.
bd_run() {
	for _ in $(seq 10); do
		status=0
		timeout -k 5 120 "$D" "$@" >"$T/out" 2>"$T/err" || status=$?
		counters_taken || break
		sleep 1 # not a wait: a pause; the other cpustat lets go in its time; at most 10 tries
	done
	output=$(cat "$T/out")
	stderr=$(cat "$T/err")
	# Shown if the test fails.
	[ "$status" -eq 0 ] || echo "bpfdrive exit $status: $stderr"
}

# Lines of $T/out (or $2) that begin with label $1, label removed.
bd_rows() {
	awk -v want="$1" '$1 == want { sub(/^[^ ]+ /, ""); print }' \
	    "${2:-$T/out}"
}

bd_count() {
	bd_rows "$@" | wc -l
}

# The pid of the started command: the first "create <pid> <pid> first".
bd_first_pid() {
	awk '$1 == "create" && $4 == "first" { print $2; exit }' "$T/out"
}

# "<tid> <value>" of set $2 (default 0) from the lwp_exit rows of pid $1.
bd_lwp_exits() {
	awk -v p="$1" -v s="${2:-0}" \
	    '$1 == "lwp_exit" && $2 == p && $4 == s { print $3, $5 }' "$T/out"
}

# The first value of set $2 (default 0) in the $3 (default exit_total)
# rows of pid $1, one per row.
bd_total() {
	awk -v p="$1" -v s="${2:-0}" -v l="${3:-exit_total}" \
	    '$1 == l && $2 == p && $3 == s { print $4 }' "$T/out"
}
