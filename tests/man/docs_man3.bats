#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# The library manual pages (man3/): they are lint-clean; after an install
# into a staging prefix every function of <libcpc.h> and <libpctx.h> has a
# page of its name that man(1) finds and that documents it; the synopses
# are the headers' prototypes; the cross-references resolve; every errno
# the libraries set is documented; and every example program compiles
# without a warning against the installed headers and static libraries,
# and runs against the real kernel with the result its page states.

bats_require_minimum_version 1.5.0
# bats-support and bats-assert, and the waits.
load ../cli/helper

# Every example, by page and number, has a check below: the list must
# match the examples the pages have.
CHECKED="cpc_access_1 cpc_bind_curlwp_1 cpc_bind_curlwp_2 cpc_bind_curlwp_3
	cpc_bind_curlwp_4 cpc_bind_event_1 cpc_bind_event_2 cpc_buf_create_1
	cpc_count_usr_events_1 cpc_count_usr_events_2 cpc_enable_1 cpc_enable_2
	cpc_event_1 cpc_event_diff_1 cpc_event_status_1 cpc_getcpuver_1
	cpc_npic_1 cpc_open_1 cpc_pctx_bind_event_1 cpc_set_create_1
	cpc_set_create_2 cpc_set_group_1 cpc_set_request_attr_1 cpc_set_sample_1
	cpc_set_sample_pcbuf_1 cpc_set_sample_pcbuf_2 cpc_seterrfn_1
	cpc_seterrhndlr_1 cpc_shared_open_1 cpc_strtoevent_1 cpc_version_1
	generic_events_1 pctx_capture_1 pctx_capture_2 pctx_capture_3
	pctx_set_events_1 pctx_set_proc_data_1 pctx_set_proc_data_2
	pctx_set_proc_data_3"

setup_file() {
	SOURCE_DIR=${SOURCE_DIR:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD_DIR=${BUILD_DIR:-$SOURCE_DIR/build}
	export SOURCE_DIR BUILD_DIR
	export WORKLOADS=${WORKLOADS:-$BUILD_DIR/tests/workloads}
	export MAN3_BUILD=${MAN3_BUILD:-$BUILD_DIR/man3/man3}
	export CC=${CC:-cc}
	export EXAMPLE_LDFLAGS=${EXAMPLE_LDFLAGS:-}
	export STAGE=$BATS_FILE_TMPDIR/stage
	export EXDIR=$BATS_FILE_TMPDIR/examples
	# Tests run side by side, and every cmake --install of the build
	# writes its install_manifest.txt, which package.install_uninstall
	# reads: installs share the build's install.lock, which that test
	# takes alone.
	flock -s "$BUILD_DIR/install.lock" \
	    cmake --install "$BUILD_DIR" --prefix "$STAGE" \
	    >"$BATS_FILE_TMPDIR/install.log" 2>&1 || {
		cat "$BATS_FILE_TMPDIR/install.log" >&3
		return 1
	}
	MANDIR=$(find "$STAGE" -type d -path '*/man/man3' | head -n 1)
	export MANDIR=${MANDIR%/man3}
	mkdir -p "$EXDIR/bin"
	local page
	for page in "$SOURCE_DIR"/man3/*.3cpc "$SOURCE_DIR"/man3/*.3lib; do
		awk -v outdir="$EXDIR" -f "$BATS_TEST_DIRNAME/man3_examples.awk" \
		    "$page" >/dev/null || return 1
	done
}

setup() {
	PAGES=$(ls "$SOURCE_DIR"/man3/*.3cpc "$SOURCE_DIR"/man3/*.3lib)
}

# --- helpers --------------------------------------------------------------

# ignores_int PID: process PID ignores SIGINT (its SigIgn mask).
ignores_int() {
	local mask
	mask=$(awk '$1 == "SigIgn:" { print $2 }' "/proc/$1/status" 2>/dev/null)
	[ -n "$mask" ] && (((0x$mask >> 1) & 1))
}

# The functions the headers declare, one "name<TAB>prototype" a line.
header_protos() {
	awk -f "$BATS_TEST_DIRNAME/header_protos.awk" \
	    "$SOURCE_DIR/include/libcpc.h" "$SOURCE_DIR/include/libpctx.h"
}

# A page as plain text, one long line per line of input text.
render() {
	mandoc -T ascii -O width=1000 "$1" | sed 's/.\x08//g'
}

# One section of rendered text (stdin), as one line, blanks squeezed as
# header_protos.awk squeezes them.
section_line() {
	awk -v want="$1" '
	/^[A-Z][A-Z ]*$/ { in_section = ($0 == want); next }
	in_section { text = text " " $0 }
	END {
		gsub(/[ \t]+/, " ", text)
		gsub(/\( /, "(", text)
		gsub(/ \)/, ")", text)
		gsub(/ ,/, ",", text)
		print text
	}'
}

# The installed file that "man NAME" shows: the page a link points to.
page_of() {
	local f=$MANDIR/man3/$1
	[ -e "$f.3cpc" ] && f=$f.3cpc || f=$f.3lib
	readlink -f "$f"
}

# Page faults counted: exactly WANT. In a sanitizer build the runtime's
# first touches of its shadow memory fault too, inside the first measured
# interval, so there WANT to WANT + 4 pass where FIRST is 1.
assert_faults() {
	local got=$1 want=$2 first=${3:-0} slack=0
	[[ $EXAMPLE_LDFLAGS == *-fsanitize* && $first = 1 ]] && slack=4
	[ "$got" -ge "$want" ] && [ "$got" -le $((want + slack)) ] ||
		fail "$got page faults where $want are made"
}

ensure_tracefs() {
	[ -d /sys/kernel/tracing/events ] && return 0
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events ] ||
		skip "tracefs is not mounted and cannot be mounted here"
}

# Counting on a CPU needs CAP_PERFMON, root, or a permissive kernel.
require_cpu_counting() {
	local paranoid
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
	[ "$(id -u)" -eq 0 ] || [ "$paranoid" -le 0 ] ||
		skip "counting on a CPU needs root or CAP_PERFMON (kernel.perf_event_paranoid is $paranoid)"
}

# Whether the kernel has a PMU that counts hardware events.
has_core_pmu() {
	ls /sys/bus/event_source/devices/ |
	    grep -qE '^(cpu|cpu_core|cpu_atom|armv[78]_.*|arm_.*|riscv-pmu.*|cpum_cf)$'
}

# The kernel's version as a number: 6.1 is 601.
kernel_version() {
	uname -r | awk -F '[.-]' '{ print $1 * 100 + $2 }'
}

# The compile and link flags of the staged install, linking the static
# libraries by their file names.
example_flags() {
	local pc libdir flags
	pc=$(find "$STAGE" -name cpctools-libcpc.pc | head -n 1)
	[ -n "$pc" ] || { echo "no cpctools-libcpc.pc installed" >&2; return 1; }
	flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config \
	    --define-variable=prefix="$STAGE" --cflags --libs --static \
	    cpctools-libcpc) || return 1
	libdir=$(dirname "$(dirname "$pc")")
	[ -f "$libdir/libcpc.a" ] && flags=${flags//-lcpc/$libdir/libcpc.a}
	[ -f "$libdir/libpctx.a" ] && flags=${flags//-lpctx/$libdir/libpctx.a}
	echo "$flags"
}

# Compile example NAME (page_n) warning-free, once.
build() {
	local name=$1 bin=$EXDIR/bin/$1 flags
	[ -x "$bin" ] && return 0
	[ -f "$EXDIR/$name.c" ] || { echo "no example $name" >&2; return 1; }
	flags=$(example_flags) || return 1
	# shellcheck disable=SC2086
	"$CC" -std=gnu11 -Wall -Wextra -Werror -o "$bin.o" -c "$EXDIR/$name.c" \
	    $(printf '%s\n' $flags | grep '^-I') &&
	"$CC" -o "$bin" "$bin.o" $EXAMPLE_LDFLAGS \
	    $(printf '%s\n' $flags | grep -v '^-I')
}

# Run example NAME with ARGS.
run_example() {
	local name=$1
	shift
	build "$name" || fail "example $name does not compile"
	run --separate-stderr "$EXDIR/bin/$name" "$@"
}

# Run example NAME under the installed cputrack with its ARGS, counting
# from the start of the run to its end (-T 0): one exit row.
run_tracked() {
	local name=$1
	shift
	build "$name" || fail "example $name does not compile"
	# A sanitizer build's LeakSanitizer cannot check a traced process (it
	# traces the process itself): the examples run untraced keep it.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    run --separate-stderr "$STAGE/bin/cputrack" -T 0 "$@" "$EXDIR/bin/$name"
}

# The counts of the exit row of a cputrack run, from $output.
exit_row() {
	awk '$3 == "exit" { $1 = $2 = $3 = ""; print substr($0, 4) }' <<<"$output"
}

# --- the pages -------------------------------------------------------------

@test "pages: each starts with its SPDX line" {
	local page
	for page in $PAGES; do
		[ "$(head -n 1 "$page")" = '.\" SPDX-License-Identifier: BSD-2-Clause' ] ||
			fail "$page: no SPDX line first"
	done
}

@test "pages: mandoc -T lint -W style reports nothing, as written and as installed" {
	run mandoc -T lint -W style $PAGES
	assert_success
	assert_output ""
	run mandoc -T lint -W style "$MANDIR"/man3/*.3cpc "$MANDIR"/man3/*.3lib
	assert_success
	assert_output ""
}

@test "pages: man renders each one without a warning" {
	local page
	for page in "$MAN3_BUILD"/*.3cpc "$MAN3_BUILD"/*.3lib; do
		[ -L "$page" ] && continue
		run --separate-stderr env LC_ALL=C.UTF-8 MANWIDTH=80 \
		    man --warnings -E UTF-8 -l "$page"
		assert_success
		[ -z "$stderr" ] || fail "man warned on $page: $stderr"
	done
}

@test "pages: the installed ones name the version and install directories" {
	local version
	version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' \
	    "$BUILD_DIR/CMakeCache.txt")
	[ -n "$version" ]
	run grep -L "^\.TH [A-Z_]* 3[A-Z]* [0-9-]* \"cpctools $version\"" \
	    "$MANDIR"/man3/*.3cpc "$MANDIR"/man3/*.3lib
	assert_output ""
	run grep -l '@[A-Z_]*@' "$MANDIR"/man3/*.3cpc "$MANDIR"/man3/*.3lib
	assert_output ""
}

@test "pages: no lock files, no invalidation by a CPU binding: the kernel holds a CPU's hardware counters" {
	run grep -nE '/run/cpctools|flock|lwp_counting|perf counter contents invalidated' $PAGES
	assert_failure
	# Only cpc_bind_cpu and cpc_set_switch say EAGAIN for a held PMU.
	local text
	text=$(render "$SOURCE_DIR/man3/cpc_bind_curlwp.3cpc" | section_line ERRORS)
	[[ $text == *"EAGAIN For cpc_bind_cpu() of a set with hardware events"* ]] ||
		fail "cpc_bind_curlwp(3CPC) does not say when cpc_bind_cpu() fails with EAGAIN: $text"
	[[ $text == *"Binding a set to an LWP never fails with EAGAIN"* ]]
	grep -q 'CPC_BIND_SHARED' "$SOURCE_DIR/man3/cpc_bind_curlwp.3cpc"
	grep -q '^#define CPC_BIND_SHARED' "$SOURCE_DIR/include/libcpc.h"
}

@test "pages: each has the sections of its kind" {
	local page sections s
	for page in $PAGES; do
		case $page in
		*.3lib)
			sections="NAME SYNOPSIS DESCRIPTION INTERFACES FILES EXAMPLES" ;;
		*/cpc_event.3cpc|*/generic_events.3cpc)
			sections="NAME SYNOPSIS DESCRIPTION LINUX_DIFFERENCES EXAMPLES" ;;
		*)
			sections="NAME SYNOPSIS DESCRIPTION RETURN_VALUES ERRORS
			    LINUX_DIFFERENCES EXAMPLES" ;;
		esac
		for s in $sections SEE_ALSO; do
			grep -qx "\.SH ${s//_/ }" "$page" ||
				fail "$page: no section ${s//_/ }"
		done
	done
}

# --- names, synopses, references ------------------------------------------

@test "install: every function of the headers has a page man -w finds" {
	local name path missing=
	while IFS=$'\t' read -r name _; do
		path=$(MANPATH=$MANDIR man -w "$name" 2>/dev/null) ||
			{ missing="$missing $name"; continue; }
		case $path in
		"$MANDIR"/man3/*) ;;
		*) missing="$missing $name($path)" ;;
		esac
	done < <(header_protos)
	[ -z "$missing" ] || fail "no page for:$missing"
	# By the Solaris section too.
	run env MANPATH="$MANDIR" man -w 3cpc cpc_bind_curlwp
	assert_success
	assert_output "$MANDIR/man3/cpc_bind_curlwp.3cpc"
	run env MANPATH="$MANDIR" man -w 3lib libcpc
	assert_output "$MANDIR/man3/libcpc.3lib"
}

@test "install: man shows, for each function, a page that documents it" {
	local name where text
	while IFS=$'\t' read -r name _; do
		# Internal names are documented in NOTES.
		case $name in
		__*) where=NOTES ;;
		*) where=NAME ;;
		esac
		text=$(MANPATH=$MANDIR MANWIDTH=1000 MANPAGER=cat man "$name" \
		    2>/dev/null | section_line "$where")
		[[ " ${text//,/ } " == *" $name "* || $text == *" $name("* ]] ||
			fail "man $name: its $where section does not name it: $text"
	done < <(header_protos)
}

@test "synopses: each prototype is the header's, on the function's page" {
	local name proto page synopsis bad=
	while IFS=$'\t' read -r name proto; do
		page=$(page_of "$name")
		[ -f "$page" ] || { bad="$bad $name(no page)"; continue; }
		case $name in
		__*) synopsis=$(render "$page" | section_line NOTES) ;;
		*) synopsis=$(render "$page" | section_line SYNOPSIS) ;;
		esac
		[[ $synopsis == *"$proto"* ]] ||
			bad="$bad"$'\n'"$name: $proto not in $(basename "$page")"
	done < <(header_protos)
	[ -z "$bad" ] || fail "$bad"
}

@test "overviews: libcpc(3LIB) and libpctx(3LIB) list every function with its page" {
	local name lib listed want bad=
	while IFS=$'\t' read -r name _; do
		case $name in
		cpc_*) lib=libcpc ;;
		*) lib=libpctx ;;
		esac
		listed=$(awk -v n="$name" '$1 == n { print $2 }' \
		    "$SOURCE_DIR/man3/$lib.3lib")
		want=$(basename "$(page_of "$name")" .3cpc)"(3CPC)"
		[ "$listed" = "$want" ] ||
			bad="$bad"$'\n'"$name: $lib(3LIB) lists '$listed', man shows $want"
	done < <(header_protos)
	[ -z "$bad" ] || fail "$bad"
}

@test "references: every (3CPC) and (3LIB) page a page names is installed" {
	local page ref bad=
	for page in $PAGES; do
		for ref in $(render "$page" |
		    grep -oE '[a-z_][a-z0-9_]*\((3CPC|3LIB)\)' | sort -u); do
			name=${ref%%(*}
			sec=${ref#*(}
			sec=${sec%)}
			[ -e "$MANDIR/man3/$name.${sec,,}" ] ||
				bad="$bad $(basename "$page"):$ref"
		done
	done
	[ -z "$bad" ] || fail "unresolved:$bad"
}

@test "errors: every errno the libraries set is documented in an ERRORS section" {
	local errors e bad=
	errors=$(for page in $PAGES; do render "$page" | section_line ERRORS; done)
	# EEXIST stays inside libpctx's thread table; no call returns it.
	for e in $(grep -ohE 'errno = E[A-Z0-9]+' "$SOURCE_DIR"/libcpc/*.c \
	    "$SOURCE_DIR"/libpctx/*.c | sort -u | sed 's/errno = //'); do
		[ "$e" = EEXIST ] && continue
		[[ $errors == *"$e"* ]] || bad="$bad $e"
	done
	[ -z "$bad" ] || fail "not documented:$bad"
}

# --- the examples -----------------------------------------------------------

@test "examples: each one has a check here" {
	local have want
	have=$(cd "$EXDIR" && ls -- *.c | sed 's/\.c$//' | sort)
	want=$(printf '%s\n' $CHECKED | sort)
	[ "$have" = "$want" ] ||
		fail "examples and checks differ: $(diff <(echo "$want") <(echo "$have"))"
}

@test "examples: each one compiles with -Wall -Wextra -Werror against the install" {
	local src name bad=
	for src in "$EXDIR"/*.c; do
		name=$(basename "$src" .c)
		build "$name" 2>"$EXDIR/$name.log" ||
			bad="$bad"$'\n'"$name: $(cat "$EXDIR/$name.log")"
	done
	[ -z "$bad" ] || fail "$bad"
}

@test "example cpc_open: the handle describes the machine" {
	run_example cpc_open_1
	assert_success
	assert_line --regexp '^interface: .+'
	assert_line --regexp '^counters: ([89]|[1-9][0-9]+)$'
	assert_line 'capabilities: 0x3'
}

@test "example cpc_bind_curlwp: 100 writes, 5 overflows, a CPU's switches" {
	ensure_tracefs
	run_example cpc_bind_curlwp_1
	assert_success
	assert_output 'syscalls:sys_enter_write: 100'
	run_example cpc_bind_curlwp_2
	assert_success
	assert_output '5000 writes, 5 overflows'
	require_cpu_counting
	run_example cpc_bind_curlwp_3 0
	assert_success
	[[ $output =~ ^cpu0:\ ([0-9]+)\ context\ switches$ ]] ||
		fail "unexpected output: $output"
	# Ten sleeps of this thread, bound to CPU 0, switch there at least
	# ten times.
	[ "${BASH_REMATCH[1]}" -ge 10 ]
}

@test "example cpc_bind_curlwp: two sets take turns on each LWP, and together count every write" {
	ensure_tracefs
	local count=$BATS_TEST_TMPDIR/writes n a b sum switches
	run_example cpc_bind_curlwp_4 "$WORKLOADS/wl_spin_writes" "$count" 0.3
	assert_success
	[[ $output =~ ^([0-9]+)\ lwp1:\ ([0-9]+)\ \+\ ([0-9]+)\ =\ ([0-9]+)\ writes,\ ([0-9]+)\ switches$ ]] ||
		fail "unexpected output: $output"
	a=${BASH_REMATCH[2]} b=${BASH_REMATCH[3]} sum=${BASH_REMATCH[4]}
	switches=${BASH_REMATCH[5]}
	n=$(od -An -t u8 -N 8 "$count" | tr -d ' ')
	[ $((a + b)) -eq "$sum" ]
	# Both sets had turns, and no write was lost between them. The
	# writes of the microseconds of each switch, when both sets count,
	# count twice: a small part of the run.
	[ "$switches" -ge 2 ] && [ "$a" -gt 0 ] && [ "$b" -gt 0 ] ||
		fail "the sets did not take turns: $output"
	[ "$sum" -ge "$n" ] && [ "$sum" -le $((n + n / 10)) ] ||
		fail "$sum writes counted of $n made, $switches switches"
}

@test "example cpc_set_create: the requests walked, newest first" {
	run_example cpc_set_create_1
	assert_success
	assert_output "no-such-event: Invalid argument
1: syscalls:sys_enter_write preset 100 flags 0x6 picnum=1
0: page-faults preset 0 flags 0x2"
	[ "$stderr" = "libcpc: cpc_set_add_request: Unknown event" ]
}

@test "example cpc_set_create: a set checked before its bind, each refusal told in one line" {
	run_example cpc_set_create_2
	if [ "$status" -eq 1 ] && [ "$stderr" = "cpc_set_create_2: no hardware attributes here" ]; then
		skip "cpc_walk_attrs lists no hardware attribute on this machine"
	fi
	assert_success
	assert_output "1 of 2 requests refused"
	[[ $stderr =~ ^libcpc:\ cpc_set_check:\ task-clock:\ ([a-z_]+)=0x1\ is\ a\ hardware\ event\ attribute\ .*,\ and\ task-clock\ is\ a\ software\ event\;\ give\ the\ attribute\ to\ hardware\ events\ only\ \(([a-z_]+)N=0x1\ for\ counter\ N\)$ ]] ||
		fail "stderr: $stderr"
	[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
}

@test "example cpc_set_request_attr: a request counted on a counter of the program's own, with its tick" {
	ensure_tracefs
	run_example cpc_set_request_attr_1
	assert_success
	assert_output "writes: 10, on the program's own counter
ticks: some
request 1: Operation not supported"
}

@test "example cpc_set_group: twelve requests in three groups, each exact" {
	ensure_tracefs
	run_example cpc_set_group_1
	assert_success
	assert_output "group 1: 10 writes, 10 returns, 20 getppid, 20 returns; ran 100%
group 2: 10 writes, 10 returns, 20 getppid, 20 returns; ran 100%
group 3: 10 writes, 10 returns, 20 getppid, 20 returns; ran 100%"
}

@test "example cpc_buf_create: page faults and writes, interval by interval" {
	ensure_tracefs
	run_example cpc_buf_create_1
	assert_success
	local n
	for n in 10 20 30 40 50; do
		[[ $output =~ (^|$'\n')$n:\ ([0-9]+)\ page\ faults,\ $n\ writes,\ [0-9]+\ ns($'\n'|$) ]] ||
			fail "no row for $n: $output"
		assert_faults "${BASH_REMATCH[2]}" "$n" "$([ "$n" = 10 ] && echo 1)"
	done
	[[ $output =~ $'\n'total:\ ([0-9]+)\ page\ faults,\ 150\ writes,\ [0-9]+\ ticks$ ]] ||
		fail "no total: $output"
	assert_faults "${BASH_REMATCH[1]}" 150 1
}

@test "example cpc_set_sample: cumulative from the preset" {
	ensure_tracefs
	run_example cpc_set_sample_1
	assert_success
	assert_output "after 10 writes: 1010
after 20 more: 1030
after cpc_unbind: Invalid argument"
}

@test "example cpc_seterrhndlr: the handler gets each subcode" {
	run_example cpc_seterrhndlr_1
	assert_success
	assert_output "cpc_set_add_request: subcode 1: Unknown event
  errno Invalid argument, subcode 1
cpc_set_add_request: subcode 3: Unknown attribute
  errno Invalid argument, subcode 3
cpc_set_add_request: subcode 2: Invalid counter number
  errno Invalid argument, subcode 2"
}

@test "example cpc_npic: counters, walkers, the described walk, attributes" {
	run_example cpc_npic_1
	assert_success
	[[ $output =~ counters:\ ([0-9]+) ]] || fail "no counters line"
	local npic=${BASH_REMATCH[1]}
	[[ $output =~ events:\ ([1-9][0-9]*)\ \(page-faults\ listed\) ]] ||
		fail "page-faults is not walked: $output"
	assert_line "events of counter 0: ${BASH_REMATCH[1]}"
	assert_line --regexp '^generic events: [0-9]+$'
	# The described walk lists the same names and the forms with a
	# parameter: a breakpoint's, where the kernel has the PMU.
	[[ $output =~ described:\ [0-9]+,\ forms\ with\ a\ parameter:\ ([0-9]+) ]] ||
		fail "no described line: $output"
	if [ -d /sys/bus/event_source/devices/breakpoint ]; then
		[ "${BASH_REMATCH[1]}" -ge 1 ]
	else
		[ "${BASH_REMATCH[1]}" -ge 0 ]
	fi
	assert_line --regexp '^attributes:( [a-z_]+)* picnum$'
	assert_line "counter $npic: 0 events, Invalid argument"
}

@test "example cpc_enable: only the marked sections count, bound by the program or by cputrack" {
	ensure_tracefs
	run_example cpc_enable_1
	assert_success
	assert_output 'writes in the marked sections: 30'
	# Under cputrack, the target turns the counters cputrack bound on
	# and off: exactly the 10 writes of its marked section count.
	run_tracked cpc_enable_2 -c syscalls:sys_enter_write
	assert_success
	[ "$(exit_row)" = 10 ] || fail "not 10 writes: $output"
	[ -z "$stderr" ] || fail "stderr: $stderr"
	# Alone, with no controller, the target finds nothing to turn on or
	# off, says so, and runs to its end.
	run_example cpc_enable_2
	assert_success
	assert_output ""
	[ "$stderr" = "cpc_enable_2: cpc_disable: Invalid argument
cpc_enable_2: cpc_enable: Invalid argument
cpc_enable_2: cpc_disable: Invalid argument" ] || fail "stderr: $stderr"
}

@test "example cpc_set_sample_pcbuf: page-fault records and SIGEMT per 256" {
	[ "$(kernel_version)" -ge 600 ] ||
		skip "buffered overflow records need Linux 6.0 (this is $(uname -r))"
	ensure_tracefs
	run_example cpc_set_sample_pcbuf_1
	assert_success
	assert_output '64 records for the 64 pages touched, in order, 0 lost'
	run_example cpc_set_sample_pcbuf_2
	assert_success
	assert_output '778 calls: 3 signals, 768 PCs taken in the handler, 10 left'
}

@test "example cpc_event_status: the status, kind and note of names, the PMU, the times" {
	ensure_tracefs
	run_example cpc_event_status_1 page-faults no-such-event \
	    Dispatch0_mispred syscalls:no_such_tracepoint task-clock:S EC_ref
	assert_success
	assert_line --index 0 'page-faults: software, countable: page-faults (page faults)'
	assert_line --index 1 'no-such-event: no kind, unknown: no-such-event: unknown event'
	assert_line --index 2 'Dispatch0_mispred: ultrasparc, no equivalent: Dispatch0_mispred (UltraSPARC stall cycles on branch mispredictions): no equivalent on this CPU: Linux counts mispredicted branches (branch-misses), not the cycles they cost'
	assert_line --index 3 --regexp '^syscalls:no_such_tracepoint: tracepoint, unknown: syscalls:no_such_tracepoint: no such tracepoint in this kernel'
	assert_line --index 4 --regexp "^task-clock:S: modifier, unsupported: task-clock:S: perf's modifier 'S' .* means nothing when counting"
	# Counted by its nearest event, with a note, where there is a PMU.
	if has_core_pmu; then
		assert_line --index 5 --regexp '^EC_ref: ultrasparc, countable: '
		assert_line --index 6 '  note: EC_ref: counted as LLC references (cache-references), the nearest Linux event to UltraSPARC E-cache references'
	else
		assert_line --index 5 'EC_ref: ultrasparc, no PMU: EC_ref (UltraSPARC E-cache references, nearest: cache-references): a hardware event (counted as LLC references (cache-references)), and this kernel has no hardware counters (no PMU; a VM without a virtual PMU?)'
		refute_line --partial 'note:'
	fi
	assert_line 'subcode 5: Hardware resource unavailable'
	if has_core_pmu; then
		assert_line --regexp '^core PMU: [a-z0-9_-]+$'
		refute_line 'core PMU: none'
	else
		assert_line 'core PMU: none'
	fi
	[[ $output =~ task-clock\ (multiplexed|on\ its\ counter):\ enabled\ ([0-9]+)\ ns,\ running\ ([0-9]+)\ ns ]] ||
		fail "no times: $output"
	[ "${BASH_REMATCH[2]}" -gt 0 ]
	[ "${BASH_REMATCH[3]}" -le "${BASH_REMATCH[2]}" ]
	if [ "${BASH_REMATCH[3]}" -lt "${BASH_REMATCH[2]}" ]; then
		[ "${BASH_REMATCH[1]}" = multiplexed ]
	else
		[ "${BASH_REMATCH[1]}" = "on its counter" ]
	fi
}

@test "example generic_events: a generic name and what counts it here" {
	run_example generic_events_1 PAPI_tot_ins PAPI_no_such_name PAPI_fnv_ins
	assert_success
	assert_line --index 0 --regexp '^PAPI_tot_ins \(instructions completed \(.+\)\)'
	assert_line --index 1 'PAPI_no_such_name: unknown event'
	# A name that no event counts here, or one that a processor's own
	# event counts: never a bare "unknown event".
	assert_line --index 2 --regexp '^PAPI_fnv_ins \(floating point inverse instructions( \(.+\))?\)'
	# Alone it lists what this machine counts: generic names only.
	run_example generic_events_1
	assert_success
	run grep -v '^PAPI_' <<<"$output"
	assert_output ""
}

@test "example cpc_version: version 2, and 0 for an unknown one" {
	run_example cpc_version_1
	assert_success
	assert_output 'interface version 2; version 7: 0'
}

@test "example cpc_getcpuver: the cpuver of Linux perf events" {
	run_example cpc_getcpuver_1
	assert_success
	assert_line 'cpuver 4000: Linux perf_event'
	assert_line 'counters: 2'
	assert_line 'syntax: pic0=<event0>,pic1=<event1>[,sys[0|1]][,nouser[0|1]][,noedge[0|1]][,pc[0|1]][,int[0|1]][,inv[0|1]][,umask[0|1]=<mask>][,cmask[0|1]=<mask>]'
	assert_line --regexp '^see: .+'
	assert_line --regexp '^page-faults: code [0-9]+ on counter 0$'
}

@test "example cpc_strtoevent: the canonical form, and the parser's messages" {
	ensure_tracefs
	run_example cpc_strtoevent_1
	assert_success
	assert_output 'pic0=page-faults,pic1=syscalls:sys_enter_write,sys1'
	# The canonical form reads back as itself.
	run_example cpc_strtoevent_1 "$output"
	assert_output 'pic0=page-faults,pic1=syscalls:sys_enter_write,sys1'
	run_example cpc_strtoevent_1 page-faults
	assert_failure 1
	[ "$stderr" = "libcpc: strtoevent: two events must be specified
cpc_strtoevent_1: 1 error(s) in 'page-faults'" ]
	run_example cpc_strtoevent_1 pic0=page-faults,pic1=page-faults,bogus
	assert_failure 1
	[[ $stderr == "libcpc: strtoevent: bad token 'bogus'"* ]] ||
		fail "stderr: $stderr"
}

@test "example cpc_event: the control words of a specification" {
	run_example cpc_event_1
	assert_success
	assert_line --index 0 'cpuver 4000'
	assert_line --index 1 --regexp '^pic0: code [0-9]+ user 1 sys 0 edge 0 int 1 inv 0 umask 0 cmask 0$'
	assert_line --index 2 --regexp '^pic1: code [0-9]+ user 0 sys 1 edge 1 int 0 inv 0 umask 0x3 cmask 2$'
}

@test "example cpc_event_diff: differences and their sum" {
	ensure_tracefs
	run_example cpc_event_diff_1
	assert_success
	[ "${#lines[@]}" -eq 5 ]
	local i n
	for i in 0 1 2 3; do
		n=$(((i + 1) * 10))
		[[ ${lines[i]} =~ ^$n:\ ([0-9]+)\ $n$ ]] ||
			fail "not the row of $n: ${lines[i]}"
		assert_faults "${BASH_REMATCH[1]}" "$n" "$([ "$i" = 0 ] && echo 1)"
	done
	[[ ${lines[4]} =~ ^total:\ ([0-9]+)\ 100$ ]] || fail "no total: $output"
	assert_faults "${BASH_REMATCH[1]}" 100 1
}

@test "example cpc_bind_event: 100 writes, then 5 overflows rebound in the handler" {
	ensure_tracefs
	run_example cpc_bind_event_1
	assert_success
	assert_output "pic0 100
after cpc_rele: Invalid argument"
	run_example cpc_bind_event_2
	assert_success
	assert_output '500 writes: 5 overflows, 0 not at 0'
}

@test "example cpc_count_usr_events: only the marked section counts, bound by the program or by cputrack" {
	run_example cpc_count_usr_events_1
	assert_success
	[[ $output =~ ^page\ faults\ in\ the\ marked\ section:\ ([0-9]+)$ ]] ||
		fail "unexpected output: $output"
	assert_faults "${BASH_REMATCH[1]}" 10 1
	# Under cputrack counting no mode, the target turns user mode on for
	# its marked section: its 10 page faults, and none of the others.
	run_tracked cpc_count_usr_events_2 -c page-faults,nouser
	assert_success
	assert_faults "$(exit_row)" 10 1
	[ -z "$stderr" ] || fail "stderr: $stderr"
	run_example cpc_count_usr_events_2
	assert_success
	[ "$stderr" = "cpc_count_usr_events_2: cpc_count_usr_events: Invalid argument
cpc_count_usr_events_2: cpc_count_usr_events: Invalid argument" ] ||
		fail "stderr: $stderr"
}

@test "example cpc_access: the counters can be used" {
	run_example cpc_access_1
	assert_success
	assert_output 'the counters can be used'
}

@test "example cpc_seterrfn: the program's function, then the default" {
	run_example cpc_seterrfn_1
	assert_success
	assert_output "example: strtoevent: bad token 'bogus'"
	[ "$stderr" = "libcpc: strtoevent: bad token 'bogus'" ]
}

@test "example cpc_shared_open: a CPU's switches and writes" {
	ensure_tracefs
	require_cpu_counting
	run_example cpc_shared_open_1
	assert_success
	[[ $output =~ ^cpu0:\ ([0-9]+)\ context\ switches,\ ([0-9]+)\ writes$ ]] ||
		fail "unexpected output: $output"
	# This thread, bound to CPU 0, slept and wrote ten times there.
	[ "${BASH_REMATCH[1]}" -ge 10 ]
	[ "${BASH_REMATCH[2]}" -ge 10 ]
}

@test "example cpc_pctx_bind_event: each LWP's writes, by a controller" {
	ensure_tracefs
	run_example cpc_pctx_bind_event_1 "$WORKLOADS/wl_threads" 2 30 5
	assert_success
	[[ ${lines[0]} =~ ^([0-9]+)\ lwp ]] || fail "unexpected output: $output"
	local pid=${BASH_REMATCH[1]}
	[ "${#lines[@]}" -eq 3 ]
	assert_line --regexp "^$pid lwp1: 5 writes, [0-9]+ page faults$"
	assert_line --regexp "^$pid lwp2: 30 writes, [0-9]+ page faults$"
	assert_line --regexp "^$pid lwp3: 30 writes, [0-9]+ page faults$"
}

@test "example pctx_capture: a created command's LWPs, a captured process's ticks" {
	ensure_tracefs
	run_example pctx_capture_1 "$WORKLOADS/wl_threads" 3 100 50
	assert_success
	[[ ${lines[0]} =~ ^([0-9]+)[[:space:]] ]] || fail "unexpected output: $output"
	local pid=${BASH_REMATCH[1]}
	[ "${#lines[@]}" -eq 5 ]
	assert_line "$pid lwp1: 50 syscalls:sys_enter_write"
	assert_line "$pid lwp2: 100 syscalls:sys_enter_write"
	assert_line "$pid lwp3: 100 syscalls:sys_enter_write"
	assert_line "$pid lwp4: 100 syscalls:sys_enter_write"
	assert_line --index 4 "$pid exit 0"

	# A process that idles once it is ready (after its exec).
	"$WORKLOADS/wl_idle" 0 0 >"$BATS_TEST_TMPDIR/idle.out" 2>&1 &
	local target=$!
	wait_while "$target" grep -q ready "$BATS_TEST_TMPDIR/idle.out" ||
	    fail "wl_idle did not start"
	run_example pctx_capture_2 "$target"
	running "$target" || fail "the captured process did not run on"
	kill "$target"
	wait "$target" 2>/dev/null || true
	if [ "$status" -ne 0 ] && [[ $stderr == *"permission denied"* ]]; then
		skip "this user may not trace its sibling (kernel.yama.ptrace_scope?)"
	fi
	assert_success
	# Three ticks, but a deadline that a loaded machine made the loop
	# miss is skipped and counted, and taken from the three but for the
	# last one.
	local ticks=$((${#lines[@]} - 1)) missed
	[[ ${lines[ticks]} =~ ^pctx_run:\ 0,\ ([0-9]+)\ ticks\ missed$ ]] ||
		fail "no pctx_run line: $output"
	missed=${BASH_REMATCH[1]}
	[ "$ticks" -ge 1 ] && [ "$ticks" -le 3 ] &&
	    [ $((ticks + missed)) -ge 3 ] ||
		fail "$ticks ticks and $missed missed: $output"
	for ((i = 0; i < ticks; i++)); do
		assert_line --index "$i" "$target lwp1 tick (tid $target)"
	done
}

# The rows of a pctx_set_events_1 run over a fork tree ($output): each
# process has one init_lwp row and one exit row, the root's init_lwp row
# first; each fork row names the parent, the forking LWP (1) and a child
# whose init_lwp row comes after the fork row and before any other row of
# the child (its forks, its exit), the fork row coming before the parent's
# exit row. Sets PARENT, the root.
check_fork_rows() {
	local nprocs=$1 line i=0 parent child forks=0 exits
	declare -A exit_at fork_at init_at parent_of
	[ "${#lines[@]}" -eq $((3 * nprocs - 1)) ] ||
		fail "not $((3 * nprocs - 1)) rows: $output"
	for line in "${lines[@]}"; do
		if [[ $line =~ ^([0-9]+)\ lwp1\ exit\ 0$ ]]; then
			[ -z "${exit_at[${BASH_REMATCH[1]}]}" ] ||
				fail "two exit rows of ${BASH_REMATCH[1]}: $output"
			exit_at[${BASH_REMATCH[1]}]=$i
		elif [[ $line =~ ^([0-9]+)\ lwp1\ init_lwp$ ]]; then
			[ -z "${init_at[${BASH_REMATCH[1]}]}" ] ||
				fail "two init_lwp rows of ${BASH_REMATCH[1]}: $output"
			init_at[${BASH_REMATCH[1]}]=$i
		elif [[ $line =~ ^([0-9]+)\ lwp1\ fork\ ([0-9]+)$ ]]; then
			fork_at[${BASH_REMATCH[2]}]=$i
			parent_of[${BASH_REMATCH[2]}]=${BASH_REMATCH[1]}
			forks=$((forks + 1))
		else
			fail "not a fork or exit row: $line"
		fi
		i=$((i + 1))
	done
	[ "$forks" -eq $((nprocs - 1)) ] || fail "$forks fork rows: $output"
	exits=${#exit_at[@]}
	[ "$exits" -eq "$nprocs" ] || fail "$exits exit rows: $output"
	for child in "${!fork_at[@]}"; do
		parent=${parent_of[$child]}
		[ -n "${exit_at[$child]}" ] ||
			fail "the fork row names no child that exited: $child"
		[ -n "${exit_at[$parent]}" ] ||
			fail "the fork row names no parent that exited: $parent"
		[ "${fork_at[$child]}" -lt "${exit_at[$child]}" ] ||
			fail "$child exits before its fork row: $output"
		[ "${fork_at[$child]}" -lt "${exit_at[$parent]}" ] ||
			fail "$parent exits before it forks $child: $output"
		[ -n "${init_at[$child]}" ] ||
			fail "no init_lwp row of $child: $output"
		[ "${fork_at[$child]}" -lt "${init_at[$child]}" ] &&
		    [ "${init_at[$child]}" -lt "${exit_at[$child]}" ] ||
			fail "$child: init_lwp not between fork and exit: $output"
		[ -n "${init_at[$parent]}" ] &&
		    [ "${init_at[$parent]}" -lt "${fork_at[$child]}" ] ||
			fail "$parent forks $child before its init_lwp: $output"
	done
	[ "${#init_at[@]}" -eq "$nprocs" ] ||
		fail "${#init_at[@]} init_lwp rows: $output"
	# The root is the one process no fork row names as a child.
	PARENT=
	for child in "${!exit_at[@]}"; do
		[ -n "${fork_at[$child]}" ] || PARENT="$PARENT$child"
	done
	[[ $PARENT =~ ^[0-9]+$ ]] || fail "no single root: $output"
	assert_line --index 0 "$PARENT lwp1 init_lwp"
}

@test "example pctx_capture: the signal hook passes SIGTERM on; an ignored SIGINT stays ignored" {
	build pctx_capture_3 || fail "example pctx_capture_3 does not compile"
	local out=$BATS_TEST_TMPDIR/hook.out ctl child
	(trap '' INT; exec "$EXDIR/bin/pctx_capture_3" sleep 60) >"$out" 2>&1 &
	ctl=$!
	wait_while "$ctl" grep -q running "$out" || true
	[[ $(cat "$out") =~ ^([0-9]+)\ running$ ]] || {
		kill -KILL "$ctl"
		fail "the command did not start: $(cat "$out")"
	}
	child=${BASH_REMATCH[1]}
	# Ignored when the run started: neither the controller nor its
	# command takes it. Had either taken it, the SIGINT, pending with
	# the SIGTERM after it, would come first (the lower number), and be
	# in the output.
	kill -INT "$ctl"
	ignores_int "$ctl" && ignores_int "$child" || fail "SIGINT was not ignored"
	kill -TERM "$ctl"
	status=0
	wait "$ctl" || status=$?
	[ "$status" -eq 0 ] || fail "exit $status: $(cat "$out")"
	run cat "$out"
	assert_output "$child running
signal 15 (kill from pid $BASHPID): passed on
$child exit 143
pctx_run: 0"
}

@test "example pctx_set_events: forks followed by copies of the controller, or in its loop; threads and an exec" {
	# The Solaris model: each child in a copy of the controller.
	run_example pctx_set_events_1 "$WORKLOADS/wl_forktree" 1 2 10
	assert_success
	check_fork_rows 3
	# Children of children, by copies of copies.
	run_example pctx_set_events_1 "$WORKLOADS/wl_forktree" 2 2 1
	assert_success
	check_fork_rows 7
	# One loop: each child's init_lwp comes in the fork function, or at
	# its first stop where the kernel reports that after the fork event;
	# the parent waits for its children, so its exit is last.
	run_example pctx_set_events_1 -a "$WORKLOADS/wl_forktree" 1 2 10
	assert_success
	check_fork_rows 3
	assert_line --index 7 "$PARENT lwp1 exit 0"
	run_example pctx_set_events_1 -a "$WORKLOADS/wl_forktree" 2 2 1
	assert_success
	check_fork_rows 7
	assert_line --index 19 "$PARENT lwp1 exit 0"

	# Each new LWP: init_lwp, then lwp_create at once.
	run_example pctx_set_events_1 "$WORKLOADS/wl_threads" 2 3
	assert_success
	[[ ${lines[0]} =~ ^([0-9]+)\ lwp1\ init_lwp$ ]] ||
		fail "unexpected output: $output"
	local pid=${BASH_REMATCH[1]} n i
	[ "${#lines[@]}" -eq 8 ] || fail "not 8 rows: $output"
	for n in 2 3; do
		for ((i = 1; i < 7; i++)); do
			[ "${lines[i]}" = "$pid lwp$n init_lwp" ] && break
		done
		[ "${lines[i + 1]}" = "$pid lwp$n lwp_create" ] ||
			fail "lwp$n: no init_lwp row followed by lwp_create: $output"
		assert_line "$pid lwp$n lwp_exit"
	done
	assert_line --index 7 "$pid lwp1 exit 0"

	# An exec: init_lwp again for LWP 1 of the new program.
	run_example pctx_set_events_1 "$WORKLOADS/wl_exec_chain" 1 1
	assert_success
	[ "${#lines[@]}" -eq 4 ] || fail "not 4 rows: $output"
	[[ ${lines[1]} =~ ^([0-9]+)\ lwp1\ exec\ .*/wl_exec_chain\ 0\ 1$ ]] ||
		fail "no exec row: $output"
	pid=${BASH_REMATCH[1]}
	assert_line --index 0 "$pid lwp1 init_lwp"
	assert_line --index 2 "$pid lwp1 init_lwp"
	assert_line --index 3 "$pid lwp1 exit 0"
}

@test "example pctx_set_proc_data: records of the caller's own per LWP and process, freed by the library" {
	ensure_tracefs
	run_example pctx_set_proc_data_1 "$WORKLOADS/wl_threads" 3 100 50
	assert_success
	[[ ${lines[0]} =~ ^([0-9]+)\ lwp ]] || fail "unexpected output: $output"
	local pid=${BASH_REMATCH[1]}
	[ "${#lines[@]}" -eq 6 ]
	assert_line "$pid lwp1: 50 writes"
	assert_line "$pid lwp2: 100 writes"
	assert_line "$pid lwp3: 100 writes"
	assert_line "$pid lwp4: 100 writes"
	assert_line --index 4 "$pid exit 0: 350 writes in 4 LWPs"
	assert_line --index 5 "records freed: 4 of LWPs, 1 of the process"
}

@test "example pctx_set_proc_data: a client of the controller answers its target's requests" {
	build pctx_set_proc_data_2 || fail "example pctx_set_proc_data_2 does not compile"
	# The target runs traced: without LeakSanitizer (see run_tracked).
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    run_example pctx_set_proc_data_3 "$EXDIR/bin/pctx_set_proc_data_2"
	assert_success
	assert_output "my controller knows me as LWP 1
my controller knows me as LWP 2
requests served: 2; handle gone: 1"
	# No controller: nobody to ask.
	run_example pctx_set_proc_data_2
	assert_success
	assert_output "pctx_request: Operation not supported
pctx_request: Operation not supported"
}
