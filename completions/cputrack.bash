# SPDX-License-Identifier: BSD-2-Clause
# bash completion for cputrack(1) and cputop(1), from cpctools. -*- sh -*-
#
# Built on bash-completion's helpers: _init_completion, _parse_help, _pids,
# _filedir and _command_offset. What -c offers comes at completion time
# from the cputrack being completed (./build/cmd/cputrack, say, else the
# one in PATH), so it is what this machine can count:
#   - the events of `cputrack --list` (one a line, the name first), or,
#     from a cputrack without --list, the event lists of `cputrack -h`;
#   - the attributes and picN= of `cputrack -h`;
#   - tracepoints, subsystem:event, from tracefs.
# An event specification is a comma-separated list, so an item is
# completed without a trailing space: type "," for the next one. -M and
# --metric-groups= take a list of the metrics and groups `cputrack --list`
# names (kind "metric group"), completed the same way.

declare -F _init_completion >/dev/null || return 0

# The cputrack to ask: the one being completed where it runs, else the one
# in PATH.
_cputrack_command()
{
	local cmd=$1
	# shellcheck disable=SC2088 # a literal ~ that the user typed
	[[ $cmd == "~/"* ]] && cmd=$HOME/${cmd#"~/"}
	if [[ $cmd == */* && -x $cmd ]] || type -P -- "$cmd" >/dev/null; then
		printf '%s\n' "$cmd"
	else
		printf 'cputrack\n'
	fi
}

# From `$1 -h`, one a line: with $2 = events, the names of its event lists;
# with $2 = attrs, its attributes and pic0= ... picN= for its counters.
_cputrack_listing()
{
	LC_ALL=C "$1" -h 2>/dev/null | awk -v want="$2" '
		function words(s,    n, i, w) {
			if (block != want)
				return
			n = split(s, w, /[ \t]+/)
			for (i = 1; i <= n; i++)
				if (w[i] != "")
					print w[i]
		}
		/^\tevent(\[[0-9]+-[0-9]+\]|[0-9]+):/ {
			last = $0
			sub(/^\tevent\[?([0-9]+-)?/, "", last)
			sub(/\]?:.*/, "", last)
			if (last + 0 > npic)
				npic = last + 0
			sub(/^\tevent[^:]*:/, "")
			block = "events"
			words($0)
			next
		}
		/^\tattributes:/ {
			sub(/^\tattributes:/, "")
			block = "attrs"
			words($0)
			next
		}
		block != "" && /^ +[^ ]/ { words($0); next }
		{ block = "" }
		END {
			if (want == "attrs")
				for (i = 0; i <= npic; i++)
					print "pic" i "="
		}'
}

# The event names $1 can count, one a line.
_cputrack_events()
{
	local list
	if list=$(LC_ALL=C "$1" --list 2>/dev/null) && [[ $list ]]; then
		awk -F '\t' 'NF && $2 != "metric group" && $2 != "metric" { print $1 }' <<<"$list"
	else
		_cputrack_listing "$1" events
	fi
}

# COMPREPLY for $2, a list of metric groups for the cputrack $1: the
# groups of its --list, for the item after the last comma.
_cputrack_mgroups()
{
	local head='' item=$2
	if [[ $item == *,* ]]; then
		head=${item%,*},
		item=${item##*,}
	fi
	local -a groups
	mapfile -t groups < <(LC_ALL=C "$1" --list 2>/dev/null |
		awk -F '\t' '$2 == "metric group" || $2 == "metric" { print $1 }')
	local IFS=$'\n'
	mapfile -t COMPREPLY < <(compgen -P "$head" -W "${groups[*]}" -- "$item")
	compopt -o nospace
}

# Tracepoints for an item: subsystem:event once the colon is typed, else
# the subsystems (with their colon) that start with a non-empty item.
_cputrack_tracepoints()
{
	local item=$1 dir d
	for dir in /sys/kernel/tracing/events /sys/kernel/debug/tracing/events; do
		[[ -r $dir ]] || continue
		if [[ $item == *:* ]]; then
			for d in "$dir/${item%%:*}"/*/; do
				[[ -d $d ]] || continue
				d=${d%/}
				printf '%s\n' "${item%%:*}:${d##*/}"
			done
		elif [[ $item ]]; then
			for d in "$dir/$item"*/; do
				[[ -d $d ]] || continue
				d=${d%/}
				printf '%s:\n' "${d##*/}"
			done
		fi
		return
	done
}

# COMPREPLY for $2, an event specification for the cputrack $1: the item
# after the last comma, and the event after picN=.
_cputrack_spec()
{
	local cmd=$1 cur=$2 head='' item=$2 pic=''
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		item=${cur##*,}
	fi
	if [[ $item =~ ^pic[0-9]+= ]]; then
		pic=${BASH_REMATCH[0]}
		item=${item#"$pic"}
	fi
	local -a cands
	if [[ $item == *:* && $item != *::* ]]; then
		mapfile -t cands < <(_cputrack_tracepoints "$item")
	else
		mapfile -t cands < <(_cputrack_events "$cmd"
			[[ $pic ]] || _cputrack_listing "$cmd" attrs
			_cputrack_tracepoints "$item")
	fi
	local IFS=$'\n'
	mapfile -t COMPREPLY < <(compgen -P "$head$pic" -W "${cands[*]}" -- "$item")
	compopt -o nospace
}

# bash replaces only the text after the last character of the word that is
# in COMP_WORDBREAKS (":" and "="): drop that much from each reply, as
# __ltrim_colon_completions does for ":" alone.
_cputrack_ltrim()
{
	local cur=$1 i pre=
	for ((i = ${#cur} - 1; i >= 0; i--)); do
		if [[ $COMP_WORDBREAKS == *"${cur:i:1}"* ]]; then
			pre=${cur:0:i+1}
			break
		fi
	done
	[[ $pre ]] || return 0
	for i in "${!COMPREPLY[@]}"; do
		COMPREPLY[i]=${COMPREPLY[i]#"$pre"}
	done
}

# How many of bash's own words (it splits at ":" and "=") a word spans.
_cputrack_rawcount()
{
	local w=$1 i c n=0 last=
	for ((i = 0; i < ${#w}; i++)); do
		c=${w:i:1}
		if [[ ($c == : || $c == =) && $COMP_WORDBREAKS == *"$c"* ]]; then
			c=b
		else
			c=w
		fi
		[[ $c != "$last" ]] && ((n++))
		last=$c
	done
	echo $((n > 0 ? n : 1))
}

# _cputrack_tids WORD: the thread ids of /proc for the item after WORD's
# last comma, the list before it kept.
_cputrack_tids()
{
	local listed='' cur=$1 t
	[[ $cur == *,* ]] && listed=${cur%,*},
	cur=${cur##*,}
	COMPREPLY=()
	for t in /proc/[0-9]*/task/"$cur"*; do
		[[ -e $t ]] && COMPREPLY+=("$listed${t##*/}")
	done
}

_cputrack()
{
	# shellcheck disable=SC2034 # _init_completion sets them all
	local cur prev words cword
	_init_completion -n := || return

	local cmd
	cmd=$(_cputrack_command "${words[0]}")

	# Walk the options before the current word: getopt stops at the first
	# operand, the command.
	local i=1 w arg='' j
	while ((i < cword)); do
		w=${words[i]}
		if [[ $arg ]]; then
			arg=
		elif [[ $w == -- ]]; then
			((i++))
			break
		elif [[ $w == --format || $w == --engine ]]; then
			arg=${w#--}
		elif [[ $w == --output || $w == --web-config || $w == --input ]]; then
			arg=o
		elif [[ $w == --output-fd || $w == --listen || $w == --repeat ||
			$w == --linger ]]; then
			arg=N
		elif [[ $w == --cgroup || $w == --for-each-cgroup ]]; then
			arg=cgroup
		elif [[ $w == --tid ]]; then
			arg=tid
		elif [[ $w == --metric-groups ]]; then
			arg=M
		elif [[ $w == --* ]]; then
			:
		elif [[ $w == -?* ]]; then
			for ((j = 1; j < ${#w}; j++)); do
				case ${w:j:1} in
				T | N | o | r | c | p | I | x | G | M)
					((j == ${#w} - 1)) && arg=${w:j:1}
					break
					;;
				esac
			done
		else
			break
		fi
		((i++))
	done

	if ((i < cword)) || [[ ! $arg && $cur != -* && $i -eq $cword ]]; then
		# The command, then its own arguments, completed as if typed
		# alone; _command_offset counts bash's own words.
		local raw=0
		for ((j = 0; j < i; j++)); do
			((raw += $(_cputrack_rawcount "${words[j]}")))
		done
		_command_offset $raw
		return
	fi

	case $arg in
	c)
		_cputrack_spec "$cmd" "$cur"
		;;
	M)
		_cputrack_mgroups "$cmd" "$cur"
		;;
	p)
		# A list: the pid after its last comma.
		local listed=
		[[ $cur == *,* ]] && listed=${cur%,*},
		cur=${cur##*,} _pids
		COMPREPLY=("${COMPREPLY[@]/#/$listed}")
		;;
	tid)
		_cputrack_tids "$cur"
		;;
	o)
		_filedir
		;;
	format)
		mapfile -t COMPREPLY < <(compgen -W 'table csv json openmetrics prometheus trace' -- "$cur")
		;;
	engine)
		mapfile -t COMPREPLY < <(compgen -W 'bpf ptrace auto' -- "$cur")
		;;
	cgroup | G)
		_filedir -d
		;;
	T | N | r | I | x) ;;
	*)
		case $cur in
		--format=*)
			mapfile -t COMPREPLY < <(compgen -P --format= \
			    -W 'table csv json openmetrics prometheus trace' -- "${cur#--format=}")
			;;
		--engine=*)
			mapfile -t COMPREPLY < <(compgen -P --engine= -W 'bpf ptrace auto' \
			    -- "${cur#--engine=}")
			;;
		--output=*)
			mapfile -t COMPREPLY < <(compgen -f -P --output= -- "${cur#--output=}")
			;;
		--input=*)
			mapfile -t COMPREPLY < <(compgen -f -P --input= -- "${cur#--input=}")
			;;
		--web-config=*)
			mapfile -t COMPREPLY < <(compgen -f -P --web-config= -- "${cur#--web-config=}")
			;;
		--cgroup=*)
			mapfile -t COMPREPLY < <(compgen -d -P --cgroup= -- "${cur#--cgroup=}")
			compopt -o nospace
			;;
		--for-each-cgroup=*)
			mapfile -t COMPREPLY < <(compgen -d -P --for-each-cgroup= \
			    -- "${cur#--for-each-cgroup=}")
			compopt -o nospace
			;;
		--tid=*)
			_cputrack_tids "${cur#--tid=}"
			COMPREPLY=("${COMPREPLY[@]/#/--tid=}")
			;;
		--output-fd=* | --listen=* | --repeat=* | --linger=*) ;;
		-c?*)
			_cputrack_spec "$cmd" "${cur#-c}"
			COMPREPLY=("${COMPREPLY[@]/#/-c}")
			;;
		--metric-groups=*)
			_cputrack_mgroups "$cmd" "${cur#--metric-groups=}"
			COMPREPLY=("${COMPREPLY[@]/#/--metric-groups=}")
			;;
		-M?*)
			_cputrack_mgroups "$cmd" "${cur#-M}"
			COMPREPLY=("${COMPREPLY[@]/#/-M}")
			;;
		*)
			# The Solaris letters, perf stat's where they are free,
			# and every option the usage text names (long ones
			# included).
			local opts
			opts=$(printf '%s\n' -T -N -D -e -f -h -n -t -v -o -c -M -p \
			    --metric-groups= \
			    --format= -I -x -j --json -G --per-thread -r \
			    --repeat= --top -b; _parse_help "$cmd" --help)
			mapfile -t COMPREPLY < <(compgen -W "$(sort -u <<<"$opts")" -- "$cur")
			[[ ${COMPREPLY[*]} == *= ]] && compopt -o nospace
			;;
		esac
		;;
	esac
	_cputrack_ltrim "$cur"
} &&
	complete -F _cputrack cputrack cputop
