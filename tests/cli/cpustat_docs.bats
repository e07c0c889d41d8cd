#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# cpustat's manual page and its renamed copies: lint-clean and complete.
# The page checked is the one the build configured (man1/ of the build
# tree), which is the one installed.
# The completions are tested interactively in completion_bash.bats and
# completion_zsh.bats.

bats_require_minimum_version 1.5.0
load helper

setup() {
	[ -x "${CPUSTAT:-}" ] || fail "CPUSTAT must name the cpustat binary (ctest sets it)"
	[ -d "${SOURCE_DIR:-}" ] || SOURCE_DIR=$BATS_TEST_DIRNAME/../..
	MAN=$SOURCE_DIR/man1/cpustat.1
	[ -f "${BUILD_DIR:-}/man1/cpustat.1" ] && MAN=$BUILD_DIR/man1/cpustat.1
	# The output formats' page, which holds the CSV and JSON schema.
	MAN5=$SOURCE_DIR/man5/cpctools-output.5
	[ -f "${BUILD_DIR:-}/man5/cpctools-output.5" ] &&
		MAN5=$BUILD_DIR/man5/cpctools-output.5
	return 0
}

@test "man page: mandoc -Tlint -W warning is clean" {
	mandoc_clean "$MAN" "$MAN5"
}

@test "man page: man --warnings (groff) is clean" {
	command -v man >/dev/null || skip "man is not installed"
	run --separate-stderr env LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
	    man --warnings -E UTF-8 -l "$MAN"
	assert_success
	[ -z "$stderr" ] || fail "groff warnings: $stderr"
	run --separate-stderr env LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
	    man --warnings -E UTF-8 -l "$MAN5"
	assert_success
	[ -z "$stderr" ] || fail "groff warnings on cpctools-output(5): $stderr"
}

@test "man page: under 800 lines at 80 columns, sections in the usual order" {
	command -v man >/dev/null || skip "man is not installed"
	local n order
	n=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$MAN" 2>/dev/null | wc -l)
	[ "$n" -lt 800 ] || fail "cpustat(1) renders to $n lines"
	order=$(sed -n 's/^\.SH //p' "$MAN" | tr -d '"' | tr '\n' '|')
	[ "$order" = "NAME|SYNOPSIS|DESCRIPTION|OPTIONS|OPERANDS|EVENT SPECIFICATION|EVENTS|OUTPUT|EXCLUSIVITY|PERMISSIONS|EXIT STATUS|SIGNALS|ENVIRONMENT|FILES|EXAMPLES|DIAGNOSTICS|DIFFERENCES FROM SOLARIS|INSTALLATION|SEE ALSO|" ] ||
		fail "sections: $order"
	sed -n '/^\.SH SEE ALSO/,$p' "$MAN" | grep -q '^\.BR cpctools\\-output (5)'
	# Examples name the paths the package installs.
	run grep -n 'usr/local/bin/cpustat\|INSTALL_FULL_BINDIR' "$MAN"
	assert_failure
}

@test "man page: every option, operand and required section is there" {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	run mandoc -Tutf8 -O width=80 "$MAN"
	assert_success
	text=$(printf '%s\n' "$output" | sed 's/.\x08//g')
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS OPERANDS OUTPUT EVENTS \
	    EXCLUSIVITY "EXIT STATUS" SIGNALS EXAMPLES "DIFFERENCES FROM SOLARIS" \
	    INSTALLATION "SEE ALSO"; do
		grep -qx "$sec" <<<"$text" || fail "no section $sec"
	done
	for opt in "-c eventspec" "-h" "-n" "-p period" "-s" "-t" "-T u|d" "-D" \
	    "--format=format" "--output=file" "--output-fd=fd" \
	    "--listen=addr:port" "--web-config=file" "--cpus=list" "-C list" \
	    "--per-core" "--per-die" "--per-socket" "--per-node" "--per-cache[=Ln]" "--shared" \
	    "--exclusive" "--list[=glob]" \
	    "--help" "--version" "interval" "count"; do
		grep -qE "^       $(sed 's/[][|.]/\\&/g' <<<"$opt")( |$)" <<<"$text" ||
			fail "option $opt is not documented"
	done
	# Every option the usage text names, long ones included.
	run "$CPUSTAT" --help
	assert_success
	for opt in $(printf '%s\n' "$output" |
	    sed -n 's/^\t\(--*[A-Za-z][-A-Za-z]*\).*/\1/p'); do
		grep -qE "^       $opt([ =[]|\$)" <<<"$text" ||
			fail "option $opt of the usage text is not documented"
	done
	# The documented layout is the program's: the table here, the CSV
	# here and in cpctools-output(5).
	grep -qF "   time cpu event      pic0      pic1" <<<"$text"
	grep -qF "time,pid,lwp,tid,cpu,ncpus,label,set,enabled_ns,running_ns,tsc,task-clock,proc,child,args,not_counted,partial,key,value" <<<"$text"
	grep -qF "0.000000,,,,,,meta,,,,,,,,,,,tool,cpustat" <<<"$text"
	text5=$(mandoc -Tutf8 -O width=80 "$MAN5" | sed 's/.\x08//g')
	grep -qF "time,pid,lwp,tid,cpu,ncpus,label,set,enabled_ns,running_ns,tsc,task-clock,proc,child,args,not_counted,partial,key,value" <<<"$text5"
	grep -qF "0.000000,,,,,,meta,,,,,,,,,,,tool,cpustat" <<<"$text5"
	# The layout shown is the program's.
	run --separate-stderr "$CPUSTAT" --format=csv -c task-clock 0.1 1
	[ "$status" -ne 2 ]
	assert_line --index 0 "time,pid,lwp,tid,cpu,ncpus,label,set,enabled_ns,running_ns,tsc,task-clock,proc,child,args,not_counted,partial,key,value"
	assert_line --index 3 "0.000000,,,,,,meta,,,,,,,,,,,tool,cpustat"
	# Exclusivity is the kernel's: no lock files, no invalidation; the
	# lines after "Resource temporarily unavailable" are the program's
	# and the library's (they need a PMU to be seen: tests/hw).
	if grep -qE "/run/cpctools|flock|any\.lock|contents invalidated" \
	    <<<"$text"; then
		fail "the page still describes lock files or invalidation"
	fi
	grep -qF -- "--shared" <<<"$text"
	wide=$(mandoc -Tascii -O width=1000 "$MAN" | sed 's/.\x08//g')
	for hint in "fewer events in a set, or --shared (counted in turns with the others, multiplexed), count beside them" \
	    "without --exclusive, cpustat counts beside them"; do
		grep -qF "cpustat: $hint" <<<"$wide" || fail "hint not documented: $hint"
		grep -aqF -- "$hint" "$CPUSTAT" || fail "hint not in the program: $hint"
	done
	# The library's causes, as the page shows them.
	for cause in "and others hold them: " "holding the whole PMU of cpu" \
	    "counters free, and " \
	    "the kernel's NMI watchdog keeps one on every CPU (kernel.nmi_watchdog is 1; sysctl kernel.nmi_watchdog=0 frees it)"; do
		grep -qF -- "$cause" <<<"$wide" || fail "cause not documented: $cause"
		grep -aqF -- "$cause" "$CPUSTAT" || fail "cause not the library's: $cause"
	done
	grep -qF -- "-DCPCTOOLS_CPUSTAT_NAME=cpc-cpustat" <<<"$text"
}

@test "man pages and completions renamed by CPCTOOLS_CPUSTAT_NAME stay clean, and name each other by the installed names" {
	command -v cmake >/dev/null || skip "cmake is not installed"
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	b=$BATS_TEST_TMPDIR/build
	run cmake -S "$SOURCE_DIR" -B "$b" -DCPCTOOLS_CPUSTAT_NAME=cpc-cpustat
	assert_success
	for page in man1/cpc-cpustat.1 man1/cputrack.1 man5/cpctools-output.5; do
		run mandoc -Tlint -W warning "$b/$page"
		assert_success
		assert_output ""
	done
	[ ! -e "$b/man1/cpustat.1" ]
	grep -q '^\.TH CPC\\-CPUSTAT 1 ' "$b/man1/cpc-cpustat.1"
	grep -q '^cpc\\-cpustat \\- ' "$b/man1/cpc-cpustat.1"
	# The CSV/JSON tool field and the metric names keep their names.
	grep -qF 'meta,,,,,,,,,,,tool,cpu\&stat' "$b/man1/cpc-cpustat.1"
	grep -qF '"tool":"cpu\&stat"' "$b/man1/cpc-cpustat.1"
	grep -qF 'cpu\&stat_events_total{cpu=' "$b/man1/cpc-cpustat.1"
	grep -qF 'meta,,,,,,,,,,,tool,cpu\&stat' "$b/man5/cpctools-output.5"
	grep -qF '.B cpu\&stat_gap_intervals_total' "$b/man5/cpctools-output.5"
	grep -qF '.I cpctools\-cpu\&stat\-exporter.service' "$b/man5/cpctools-output.5"
	# cpctools-output(5) sends the reader to the installed page too.
	grep -q '^\.BR cpc\\-cpustat (1)' "$b/man5/cpctools-output.5"
	# cputrack(1) sends the reader to the page that is installed.
	grep -q '^\.BR cpc\\-cpustat (1)' "$b/man1/cputrack.1"
	run grep -n 'cpustat (1)' "$b/man1/cputrack.1"
	refute_line --regexp '^[0-9]+:\.BR cpustat '
	# Both pages carry project(VERSION), nothing left unconfigured.
	version=$(sed -n 's/^project(cpctools VERSION \([0-9.]*\).*/\1/p' "$SOURCE_DIR/CMakeLists.txt")
	[ -n "$version" ]
	for page in cpc-cpustat cputrack; do
		grep -q "^\\.TH [^ ]* 1 [^ ]* \"cpctools $version\" " "$b/man1/$page.1"
		run grep -n '@[A-Za-z_]*@' "$b/man1/$page.1"
		assert_failure
	done
	grep -q "^\\.TH [^ ]* 5 [^ ]* \"cpctools $version\" " "$b/man5/cpctools-output.5"
	run grep -n '@[A-Za-z_]*@' "$b/man5/cpctools-output.5"
	assert_failure
	# cputrack -h names cpustat by the installed name too.
	grep -q '^#define CPCTOOLS_CPUSTAT_NAME[[:space:]]*"cpc-cpustat"$' \
	    "$b/generated/cpctools_version.h"
	[ "$(tail -n 1 "$b/cmd/cpc-cpustat.bash")" = "complete -F _cpctools_cpustat cpc-cpustat" ]
	[ "$(head -n 1 "$b/cmd/_cpc-cpustat")" = "#compdef cpc-cpustat" ]
}
