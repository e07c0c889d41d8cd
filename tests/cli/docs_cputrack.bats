#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
# cputrack's documentation: the man page, and cpctools-output(5) beside
# it, are clean and say what the command does, and the bash and zsh completions offer options, formats
# and the event names that `cputrack -h` lists.

bats_require_minimum_version 1.5.0
load helper

setup() {
	SOURCE_DIR=${SOURCE_DIR:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	MAN=$SOURCE_DIR/man1/cputrack.1
	# The page as the build configured it, the one installed.
	[ -f "${BUILD_DIR:-}/man1/cputrack.1" ] && MAN=$BUILD_DIR/man1/cputrack.1
	# The output formats' page, which holds the CSV and JSON schema.
	MAN5=$SOURCE_DIR/man5/cpctools-output.5
	[ -f "${BUILD_DIR:-}/man5/cpctools-output.5" ] &&
		MAN5=$BUILD_DIR/man5/cpctools-output.5
	BASH_COMP=$BUILD_DIR/completions/cputrack.bash
	if [ -z "${CPUTRACK:-}" ]; then
		for CPUTRACK in "$SOURCE_DIR"/build*/cmd/cputrack; do
			[ -x "$CPUTRACK" ] && break
		done
	fi
	export CPUTRACK
}

require_cputrack() {
	[ -x "${CPUTRACK:-}" ] ||
		skip "cputrack is not built (CPUTRACK=${CPUTRACK:-unset})"
}

require_bash_completion() {
	[ -f /usr/share/bash-completion/bash_completion ] ||
		skip "bash-completion is not installed"
}

# The replies of the bash completion for LINE, the cursor at its end, one a
# line. COMP_WORDS is split as bash splits it: at blanks, and each run of
# ':' or '=' is a word of its own. The completion asks the cputrack it
# completes, the one in PATH: the built one.
bash_complete() {
	PATH=$(dirname "${CPUTRACK:-/nonexistent/cputrack}"):$PATH \
	bash --norc --noprofile -c '
		source /usr/share/bash-completion/bash_completion
		source "$1"
		line=$2
		read -ra parts <<<"$line"
		[[ $line == *" " ]] && parts+=("")
		raw=()
		for w in "${parts[@]}"; do
			[[ -z $w ]] && { raw+=(""); continue; }
			while [[ $w =~ ^([^:=]*)([:=]+)(.*)$ ]]; do
				[[ ${BASH_REMATCH[1]} ]] && raw+=("${BASH_REMATCH[1]}")
				raw+=("${BASH_REMATCH[2]}")
				w=${BASH_REMATCH[3]}
			done
			[[ $w ]] && raw+=("$w")
		done
		COMP_WORDS=("${raw[@]}")
		COMP_CWORD=$((${#raw[@]} - 1))
		COMP_LINE=$line
		COMP_POINT=${#line}
		COMPREPLY=()
		_cputrack cputrack "${COMP_WORDS[COMP_CWORD]}" \
		    "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
		((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}" | sort
		exit 0
	' bash "$BASH_COMP" "$1"
}

# --- the man page ---------------------------------------------------------

@test "man page: mandoc -Tlint -W warning reports nothing" {
	mandoc_clean "$MAN" "$MAN5"
}

@test "man page: man --warnings renders it without a warning" {
	command -v man >/dev/null || skip "man is not installed"
	run --separate-stderr env LC_ALL=C.UTF-8 MANWIDTH=80 \
	    man --warnings -E UTF-8 -l "$MAN"
	assert_success
	[ -z "$stderr" ] || fail "man warned: $stderr"
	assert_output --regexp 'cputrack +- +monitor +process +and +LWP'
	run --separate-stderr env LC_ALL=C.UTF-8 MANWIDTH=80 \
	    man --warnings -E UTF-8 -l "$MAN5"
	assert_success
	[ -z "$stderr" ] || fail "man warned on cpctools-output(5): $stderr"
	assert_output --regexp 'cpctools-output +- +the +output +formats'
}

@test "man pages: cputrack(1) and cpctools-output(5) stay under 800 lines at 80 columns" {
	command -v man >/dev/null || skip "man is not installed"
	local page n
	for page in "$MAN" "$MAN5"; do
		n=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$page" 2>/dev/null | wc -l)
		[ "$n" -lt 800 ] || fail "$page renders to $n lines"
	done
}

@test "man page: sections in the usual order, SEE ALSO naming cpctools-output(5)" {
	local order
	order=$(sed -n 's/^\.SH //p' "$MAN" | tr -d '"' | tr '\n' '|')
	[ "$order" = "NAME|SYNOPSIS|DESCRIPTION|OPTIONS|ENGINES|EVENT SPECIFICATION|OUTPUT|PERMISSIONS|EXIT STATUS|SIGNALS|ENVIRONMENT|FILES|EXAMPLES|DIAGNOSTICS|DIFFERENCES FROM SOLARIS|SEE ALSO|" ] ||
		fail "sections: $order"
	sed -n '/^\.SH SEE ALSO/,$p' "$MAN" | grep -q '^\.BR cpctools\\-output (5)'
	# Examples name the paths the package installs.
	run grep -n '/usr/local' "$MAN" "$MAN5"
	assert_failure
}

@test "man page: SEE ALSO names pages that are installed, and no file of the source tree" {
	local see name sect
	see=$(sed -n '/^\.SH SEE ALSO/,$p' "$MAN")
	! grep -qiE 'README|\.md|\.h\b' <<<"$see" ||
	    fail "SEE ALSO names a file the install does not give: $see"
	# Each of this project's pages it names is one the install gives.
	while read -r name sect; do
		case $name in
		cpustat | cputop) [ -f "$SOURCE_DIR/man1/$name.1" ] ;;
		cpctools\\-output) [ -f "$SOURCE_DIR/man5/cpctools-output.5" ] ;;
		libcpc | libpctx | generic_events)
			[ -f "$SOURCE_DIR/man3/$name.${sect,,}" ] ;;
		*) true ;;
		esac || fail "SEE ALSO names $name($sect), which is not installed"
	done < <(sed -n 's/^\.BR \([^ ]*\) (\([0-9A-Za-z]*\)).*/\1 \2/p' <<<"$see")
	grep -q '^\.BR libcpc (3LIB)' <<<"$see"
}

@test "man page: has the sections users look for" {
	local s
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EVENT SPECIFICATION" \
	    OUTPUT "EXIT STATUS" ENVIRONMENT FILES EXAMPLES \
	    "DIFFERENCES FROM SOLARIS" "SEE ALSO"; do
		grep -qx "\.SH $s" "$MAN" || fail "no section $s"
	done
}

@test "man page: a cpustat holds hardware counters through the kernel: no lock files, nothing invalidated" {
	run grep -nE "/run/cpctools|flock|contents invalidated" "$MAN"
	assert_failure
	grep -qx '\.SS Counters held by cpustat' "$MAN"
	# The reason of a row whose set never ran is the one cputrack gives.
	local reason="the kernel never let the set count (multiplexed out, or the PMU held by a CPU-wide counter such as cpustat's)"
	grep -qxF ".BR \"$reason\" ," "$MAN"
	require_cputrack
	grep -aqF "$reason" "$CPUTRACK"
}

@test "man page: documents every option of the usage text" {
	require_cputrack
	run -2 "$CPUTRACK"
	local opt
	for opt in $(printf '%s\n' "$output" |
	    sed -n 's/^\t\(-[A-Za-z]\).*/\1/p'); do
		grep -qE "^\.BI? \\\\$opt( |\$)" "$MAN" ||
			fail "option $opt of the usage text is not in the man page"
	done
	grep -q '^\.BI \\-\\-format= format$' "$MAN"
}

@test "man page: the CSV and JSON preambles are those cputrack prints" {
	require_cputrack
	# The preamble comes before tracking starts, so it is there even when
	# a cpustat elsewhere keeps the counters busy (exit status 1).
	run --separate-stderr "$CPUTRACK" --format=csv -T 0 \
	    -c task-clock,page-faults true
	[ "$status" -ne 2 ] || skip "cputrack cannot count task-clock here: $stderr"
	assert_line --index 0 \
	    'time,pid,lwp,tid,cpu,ncpus,label,set,enabled_ns,running_ns,tsc,task-clock,page-faults,proc,child,args,not_counted,partial,key,value'
	assert_line --index 1 '0.000000,,,,,,meta,,,,,,,,,,,,schema,cpctools'
	assert_line --index 2 '0.000000,,,,,,meta,,,,,,,,,,,,version,2'
	# cpctools-output(5) holds the schema.
	grep -qF 'time,pid,lwp,tid,cpu,ncpus,label,set,enabled_ns,running_ns,tsc,\fIevent\fP...,proc,child,args,not_counted,partial,key,value' "$MAN5"
	grep -qF '0.000000,,,,,,meta,,,,,,,,,,,schema,cpctools' "$MAN5"

	run --separate-stderr "$CPUTRACK" --format=json -T 0 \
	    -c task-clock,page-faults true
	[[ ${lines[0]} == '{"schema":"cpctools","version":2,"tool":"cputrack","tool_version":"'* ]]
	[[ ${lines[0]} == *',"sets":[{"set":0,"spec":"task-clock,page-faults","events":[{"name":"task-clock","unit":"ns"},{"name":"page-faults","unit":"count"}]}],"machine":{"cpuid":"'*'}}' ]]
	grep -qF '{"schema":"cpctools","version":2,"tool":"cputrack",' "$MAN5"
}

# --- bash completion ------------------------------------------------------

@test "bash completion: the file parses" {
	run bash -n "$BASH_COMP"
	assert_success
}

@test "bash completion: --format= offers csv json openmetrics prometheus table trace" {
	require_bash_completion
	run bash_complete "cputrack --format="
	assert_success
	assert_output $'csv\njson\nopenmetrics\nprometheus\ntable\ntrace'
	run bash_complete "cputrack -c cs --format=j"
	assert_output "json"
}

@test "bash completion: options" {
	require_bash_completion
	run bash_complete "cputrack -"
	assert_success
	local o
	for o in -T -N -D -e -f -h -n -t -v -o -c -p --format= --output= \
	    --output-fd= --listen=; do
		assert_line -- "$o"
	done
}

@test "bash completion: -c task- offers task-clock" {
	require_bash_completion
	require_cputrack
	run bash_complete "cputrack -c task-"
	assert_success
	assert_line "task-clock"
}

@test "bash completion: -c completes after the last comma" {
	require_bash_completion
	require_cputrack
	run bash_complete "cputrack -c task-clock,page-"
	assert_success
	assert_output "task-clock,page-faults"
	run bash_complete "cputrack -T 1 -c cs -c task-clock,pic3=page-"
	assert_output "page-faults"
}

@test "bash completion: -c offers the attributes, flags and counters of -h" {
	require_bash_completion
	require_cputrack
	run bash_complete "cputrack -c task-clock,"
	assert_success
	assert_line "task-clock,nouser"
	assert_line "task-clock,sys"
	assert_line "task-clock,pic0="
	assert_line "task-clock,page-faults"
	# Every event name in the -h listing, continuation lines included.
	local ev
	for ev in $("$CPUTRACK" -h | awk '
	    /^\tevent[^:]*:/ { sub(/^\tevent[^:]*:/, ""); print; m = 1; next }
	    /^ +[^ ]/ && m { print; next } { m = 0 }'); do
		assert_line "task-clock,$ev"
	done
}

@test "bash completion: tracepoints after subsystem:" {
	require_bash_completion
	require_cputrack
	[ -d /sys/kernel/tracing/events/syscalls ] ||
		skip "no syscalls tracepoints in /sys/kernel/tracing"
	# bash took "syscalls:" as words of their own: the reply is the rest.
	run bash_complete "cputrack -c task-clock,syscalls:sys_enter_wri"
	assert_success
	assert_line "sys_enter_write"
}

@test "bash completion: the command and its arguments after the options" {
	require_bash_completion
	run bash_complete "cputrack -c task-clock -T 0.5 ech"
	assert_success
	assert_line "echo"
	run bash_complete "cputrack -p "
	assert_success
	assert_line "$$"
}
