#!/usr/bin/env bats
#
# cpustat's manual page and shell completions: lint-clean, complete, and
# completing what the built cpustat can count.

bats_require_minimum_version 1.5.0
load helper

setup() {
	[ -x "${CPUSTAT:-}" ] || fail "CPUSTAT must name the cpustat binary (ctest sets it)"
	[ -d "${SOURCE_DIR:-}" ] || SOURCE_DIR=$BATS_TEST_DIRNAME/../..
	MAN=$SOURCE_DIR/man1/cpustat.1
}

@test "man page: mandoc -Tlint -W warning is clean" {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	run mandoc -Tlint -W warning "$MAN"
	assert_success
	assert_output ""
}

@test "man page: man --warnings (groff) is clean" {
	command -v man >/dev/null || skip "man is not installed"
	run --separate-stderr env LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
	    man --warnings -E UTF-8 -l "$MAN"
	assert_success
	[ -z "$stderr" ] || fail "groff warnings: $stderr"
}

@test "man page: every option, operand and required section is there" {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	run mandoc -Tutf8 -O width=80 "$MAN"
	assert_success
	text=$(printf '%s\n' "$output" | sed 's/.\x08//g')
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS OPERANDS OUTPUT EVENTS \
	    EXCLUSIVITY "EXIT STATUS" EXAMPLES "DIFFERENCES FROM SOLARIS" \
	    INSTALLATION "SEE ALSO"; do
		grep -qx "$sec" <<<"$text" || fail "no section $sec"
	done
	for opt in "-c eventspec" "-h" "-n" "-p period" "-s" "-t" "-T u|d" "-D" \
	    "--format=format" "--cpus=list" "interval" "count"; do
		grep -qE "^       $(sed 's/[|.]/\\&/g' <<<"$opt")( |$)" <<<"$text" ||
			fail "option $opt is not documented"
	done
	# The documented layout is the program's.
	grep -qF "   time cpu event      pic0      pic1" <<<"$text"
	grep -qF "# cpctools csv 1 cpustat" <<<"$text"
	grep -qF "/run/cpctools" <<<"$text"
	grep -qF -- "-DCPCTOOLS_CPUSTAT_NAME=cpc-cpustat" <<<"$text"
}

@test "man page and completions renamed by CPCTOOLS_CPUSTAT_NAME stay clean" {
	command -v cmake >/dev/null || skip "cmake is not installed"
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	b=$BATS_TEST_TMPDIR/build
	run cmake -S "$SOURCE_DIR" -B "$b" -DCPCTOOLS_CPUSTAT_NAME=cpc-cpustat
	assert_success
	run mandoc -Tlint -W warning "$b/cmd/cpc-cpustat.1"
	assert_success
	assert_output ""
	grep -q '^\.TH CPC\\-CPUSTAT 1 ' "$b/cmd/cpc-cpustat.1"
	grep -q '^cpc\\-cpustat \\- ' "$b/cmd/cpc-cpustat.1"
	# The CSV/JSON tool field keeps its name.
	grep -qF '# cpctools csv 1 cpu\&stat' "$b/cmd/cpc-cpustat.1"
	[ "$(tail -n 1 "$b/cmd/cpc-cpustat.bash")" = "complete -F _cpctools_cpustat cpc-cpustat" ]
	[ "$(head -n 1 "$b/cmd/_cpc-cpustat")" = "#compdef cpc-cpustat" ]
}

# complete WORD...: run the bash completion on the words, the last being
# completed, with the built cpustat first in PATH.
complete_bash() {
	local bin
	bin=$(dirname "$CPUSTAT")
	# shellcheck disable=SC1091
	source "$SOURCE_DIR/completions/cpustat.bash"
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	PATH=$bin:$PATH _cpctools_cpustat
	printf '%s\n' "${COMPREPLY[@]}"
}

@test "bash completion: cpustat -c task- offers task-clock" {
	run complete_bash cpustat -c task-
	assert_success
	assert_line "task-clock"
	run complete_bash cpustat -c task-clock,context-sw
	assert_output "task-clock,context-switches"
	run complete_bash cpustat -c pic1=cpu-m
	assert_output "cpu-migrations"
	run complete_bash cpustat -c task-clock,nou
	assert_output "task-clock,nouser"
}

@test "bash completion: options, --format values, -T, tracepoints" {
	run complete_bash cpustat -
	assert_line -- "-c"
	assert_line -- "--format="
	assert_line -- "--cpus="
	run complete_bash cpustat --format = c
	assert_output "csv"
	run complete_bash cpustat --format =
	assert_output "$(printf '%s\n' table csv json)"
	run complete_bash cpustat -T ""
	assert_output "$(printf '%s\n' u d)"
	ensure_tracefs
	run complete_bash cpustat -c sched : sched_swi
	assert_output "sched_switch"
}

@test "bash completion: another program named cpustat gets no cpctools events" {
	d=$BATS_TEST_TMPDIR/other
	mkdir -p "$d"
	printf '#!/bin/sh\necho "cpustat: a /proc utilisation monitor"\n' >"$d/cpustat"
	chmod +x "$d/cpustat"
	CPUSTAT=$d/cpustat run complete_bash cpustat -c task-
	assert_success
	assert_output ""
}

@test "zsh completion: parses, and completes -c items from cpustat -h" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	run zsh -n "$SOURCE_DIR/completions/_cpustat"
	assert_success
	# Outside a completion widget: stand-ins for the completion builtins,
	# then the helper that completes one item of an event specification.
	cat >"$BATS_TEST_TMPDIR/t.zsh" <<'EOF'
setopt extendedglob
_arguments() { :; }
_default() { :; }
_call_program() { shift; eval "$@"; }
compset() {
  [[ $1 == -P ]] || return 1
  local m=${(M)PREFIX##${~2}}
  [[ -n $m ]] || return 1
  IPREFIX+=$m; PREFIX=${PREFIX#$m}
}
compadd() { [[ $1 == -a ]] && print -rl -- ${(P)2} | grep -e "^$PREFIX" | sed "s/^/$IPREFIX/"; }
words=(cpustat -c "$1"); PREFIX=$1; IPREFIX=
source $2
_cpctools_cpustat_spec
EOF
	for w in task-:task-clock pic1=cont:pic1=context-switches \
	    task-clock,nou:task-clock,nouser; do
		PATH=$(dirname "$CPUSTAT"):$PATH run zsh -f "$BATS_TEST_TMPDIR/t.zsh" \
		    "${w%%:*}" "$SOURCE_DIR/completions/_cpustat"
		assert_output "${w#*:}"
	done
}
