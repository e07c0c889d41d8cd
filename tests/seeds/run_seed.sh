#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# run_seed.sh BUILD_DIR SOURCE_DIR NAME [EXTRA_CFLAGS]
#
# Build one seed example against the INSTALLED header and library, the
# way a user would (cmake --install, then cc with pkg-config), run it on
# software events, and check what it prints. Exit 77 (CTest: skipped) with
# a reason when the example cannot run here.
set -eu

build=$1
srcdir=$2
name=$3
extra=${4:-}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $name: $*"
	echo "--- output:"
	cat "$tmp/out"
	echo "--- stderr:"
	cat "$tmp/err"
	exit 1
}

# Tests run side by side, and every cmake --install of the build writes
# its install_manifest.txt, which package.install_uninstall reads: installs
# share the build's install.lock, which that test takes alone.
flock -s "$build/install.lock" \
    cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
pc=$(find "$tmp/prefix" -name cpctools-libcpc.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no cpctools-libcpc.pc installed"; exit 1; }
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config \
	--define-variable=prefix="$tmp/prefix" \
	--cflags --libs --static cpctools-libcpc)
case "$flags" in
*"$tmp/prefix"*) ;;
*) echo "FAIL: pkg-config flags do not point at the install: $flags"; exit 1 ;;
esac
# The linker takes libcpc.so.1 over libcpc.a where both are installed: the
# program finds it in the private prefix as a user's would.
LD_LIBRARY_PATH=$(dirname "$(dirname "$pc")")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
# The examples are 1990s C: warnings are shown, not fatal.
cc -std=gnu11 $extra -I"$srcdir" -o "$tmp/$name" "$srcdir/$name.c" $flags \
	>"$tmp/cc.log" 2>&1 ||
	{ cat "$tmp/cc.log"; echo "FAIL: $name does not compile"; exit 1; }

# Tracepoints need tracefs.
if [ ! -d /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		skip "tracefs is not mounted and cannot be mounted"
fi

# Someone else's CPU binding makes a per-thread bind fail with EAGAIN
# (Solaris semantics): try again for a while.
run() {
	tries=0
	while :; do
		if "$@" >"$tmp/out" 2>"$tmp/err"; then
			return 0
		fi
		if grep -q 'Resource temporarily unavailable' "$tmp/err" &&
		    [ $tries -lt 600 ]; then
			tries=$((tries + 1))
			sleep 0.1
			continue
		fi
		fail "exit status $?"
	done
}

# Rows "  n: a b": 20 of them, numbered 1..20, with a == b == n (the
# computation makes n page faults and n writes). In a sanitizer build the
# runtime's first touches of its shadow memory fault too, inside the first
# counted region: there the first row may count up to 4 page faults more.
check_rows() {
	case $extra in
	*-fsanitize*) slack=4 ;;
	*) slack=0 ;;
	esac
	awk -v slack="$slack" '
	/^ *[0-9]+: [0-9]+ [0-9]+$/ {
		rows++
		sub(":", "", $1)
		if ($1 != rows) bad = bad " numbering@" rows
		extra_faults = $2 - $1
		if ((extra_faults != 0 &&
		    !($1 == 1 && extra_faults > 0 && extra_faults <= slack)) ||
		    $3 != $1)
			bad = bad " row" $1 "=" $2 "," $3
		next
	}
	{ bad = bad " unexpected line: " $0 }
	END {
		if (rows != 20) bad = bad " rows=" rows
		if (bad != "") { print bad; exit 1 }
	}' "$tmp/out" >"$tmp/why" || fail "$(cat "$tmp/why")"
}

# check_overflows VALUES: 20 handler calls, from this process's main
# thread, each with si_addr equal to the ucontext's PC, then the VALUES
# counter(s) frozen at 0 (the preset 2^64 - 1000 plus 1000 events wraps
# to 0).
check_overflows() {
	awk -v values="$1" '
	/^lwp[0-9]+ - si_addr 0x[0-9a-f]+ ucontext: %pc 0x[0-9a-f]+ %sp 0x[0-9a-f]+$/ {
		signals++
		if ($4 != $7) bad = bad " si_addr!=pc@" signals
		lwp = $1
		sub("lwp", "", lwp)
		lwps[lwp] = 1
		next
	}
	/^0x/ {
		counts++
		if ($1 != "0x0") bad = bad " value" counts "=" $1
		if (values == 2 && NF != 2) bad = bad " fields@" counts
		next
	}
	{ bad = bad " unexpected line: " $0 }
	END {
		n = 0
		for (l in lwps) n++
		if (signals != 20 || counts != 20)
			bad = bad " signals=" signals " values=" counts
		if (n != 1) bad = bad " lwps=" n
		if (bad != "") { print bad; exit 1 }
	}' "$tmp/out" >"$tmp/why" || fail "$(cat "$tmp/why")"
}

cd "$tmp"
case $name in
seed000_ex1)
	EVENT0=page-faults EVENT1=syscalls:sys_enter_write run "./$name"
	check_rows
	;;
seed000_ex2)
	EVENT0=page-faults run "./$name"
	check_overflows 1
	;;
seed002_ex1)
	PERFEVENTS=pic0=page-faults,pic1=syscalls:sys_enter_write \
		run "./$name"
	check_rows
	;;
seed002_ex2)
	PERFEVENTS=pic0=page-faults,pic1=syscalls:sys_enter_write \
		run "./$name"
	check_overflows 2
	;;
*)
	echo "FAIL: no check for $name"
	exit 1
	;;
esac
echo "PASS: $name: $(wc -l <"$tmp/out") lines checked"
cat "$tmp/out"
