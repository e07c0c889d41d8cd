# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=dash
# The guest's half of the suites that boot under QEMU, sourced by their
# guest scripts (busybox sh). Each check prints one line on the serial
# console, which the host reads (tests/qemu/qemu-lib.sh, ql_report):
#   PASS name: detail | FAIL name: detail | SKIP name: reason
# with the output it was about under a failure ("    | " lines). Each
# name ends in $SUFFIX, where a script runs its checks again in another
# way (tests/hw: under cputrack's other engine).

npass=0 nfail=0 nskip=0

pass() { echo "PASS $1${SUFFIX:-}: $2"; npass=$((npass + 1)); }
fail() { echo "FAIL $1${SUFFIX:-}: $2"; nfail=$((nfail + 1)); }
skip() { echo "SKIP $1${SUFFIX:-}: $2"; nskip=$((nskip + 1)); }
# Show a command's output under a failed check.
show() { sed 's/^/    | /' "$@"; }

# eq NAME GOT WANT: an exact count; "NAME GOT" goes to $EQ_LOG if set.
eq() {
	[ -n "${EQ_LOG:-}" ] && echo "$1 $2" >> "$EQ_LOG"
	if [ "$2" = "$3" ]; then pass "$1" "$2"
	else fail "$1" "got '$2', want $3"; fi
}

# Field F of the row whose event label is L in cputrack's text output
# (columns: time lwp event pic0... ; with -f: time pid lwp event pic0...).
# Fields are counted from the label: 1 is pic0. With LWP, that LWP only.
row() {	# row FILE LABEL PICFIELD [LWP]
	awk -v l="$2" -v f="$3" -v w="$4" '
		$1 ~ /^[0-9.]+$/ {
			for (i = 2; i <= NF; i++) if ($i == l) break
			if (i > NF) next
			if (w != "" && $(i - 1) != w) next
			print $(i + f); exit
		}' "$1"
}

# Numeric rows (counts) in cputrack text output.
count_rows() { awk '$1 ~ /^[0-9.]+$/' "$1" | wc -l; }

# The last line the host looks for: TAG-DONE MODE pass=P fail=F skip=S.
done_line() { echo "$1-DONE $2 pass=$npass fail=$nfail skip=$nskip"; }
