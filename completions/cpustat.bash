# SPDX-License-Identifier: BSD-2-Clause
# bash completion for cpustat(1) of cpctools.                    -*- sh -*-
#
# Built on bash-completion's helpers: _init_completion and _parse_help.
# What -c offers comes at completion time from the cpustat being completed,
# so it is what this machine can count: the events of `cpustat --list`
# (one a line, the name first), or, from a cpustat without --list, the
# event lists of `cpustat -h`; the attributes and picN= of `cpustat -h`;
# tracepoints from tracefs. An event specification is a comma-separated
# list, so an item is completed without a trailing space; so is one of -M
# (--metric-groups=), from the metrics and groups of `cpustat --list`.
#
# Debian's unrelated cpustat package has a command and a completion of the
# same name, and bash-completion loads the first completion named cpustat
# in its search path (~/.local/share, then each of XDG_DATA_DIRS:
# /usr/local/share before /usr/share). So this one completes only our
# cpustat: for any other command named cpustat it loads the next
# completion of that name in the search path after this one (Debian's),
# keeps itself registered, and hands over to it; with none, file names.

declare -F _init_completion >/dev/null || return 0

# This file, to tell it from another completion named cpustat.
_cpctools_cpustat_file=${BASH_SOURCE[0]}

# The cpustat to ask: the one being completed where it runs, else the one
# in PATH.
_cpctools_cpustat_command()
{
	local cmd=$1
	# shellcheck disable=SC2088 # a literal ~ that the user typed
	[[ $cmd == "~/"* ]] && cmd=$HOME/${cmd#"~/"}
	if [[ $cmd == */* ]]; then
		[[ -x $cmd ]] || return 1
	else
		cmd=$(type -P -- "$cmd") || return 1
	fi
	printf '%s\n' "$cmd"
}

# Whether $1 is cpctools' cpustat: its -h describes the counter interface.
_cpctools_cpustat_ours()
{
	LC_ALL=C "$1" -h 2>/dev/null |
	    grep -q '^	CPU performance counter interface: '
}

# From `$1 -h`, one a line: with $2 = events, the names of its event lists;
# with $2 = attrs, its attributes and pic0= ... picN= for its counters.
_cpctools_cpustat_listing()
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
_cpctools_cpustat_events()
{
	local list
	if list=$(LC_ALL=C "$1" --list 2>/dev/null) && [[ $list ]]; then
		awk -F '\t' 'NF && $2 != "metric group" && $2 != "metric" { print $1 }' <<<"$list"
	else
		_cpctools_cpustat_listing "$1" events
	fi
}

# Tracepoints for an item: subsystem:event once the colon is typed, else
# the subsystems (with their colon) that start with a non-empty item.
_cpctools_cpustat_tracepoints()
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

# COMPREPLY for $2, an event specification for the cpustat $1: the item
# after the last comma, and the event after picN=.
_cpctools_cpustat_spec()
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
		mapfile -t cands < <(_cpctools_cpustat_tracepoints "$item")
	else
		mapfile -t cands < <(_cpctools_cpustat_events "$cmd"
			[[ $pic ]] || _cpctools_cpustat_listing "$cmd" attrs
			_cpctools_cpustat_tracepoints "$item")
	fi
	local IFS=$'\n'
	mapfile -t COMPREPLY < <(compgen -P "$head$pic" -W "${cands[*]}" -- "$item")
	compopt -o nospace
}

# COMPREPLY for $2, a list of metric groups for the cpustat $1: the
# groups of its --list, for the item after the last comma.
_cpctools_cpustat_mgroups()
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

# The first completion file for command $1 in bash-completion's search
# order that is not a cpctools one (this file, or a copy in another prefix).
_cpctools_cpustat_find_other()
{
	local name=$1 dir file
	local -a dirs
	dirs=("${BASH_COMPLETION_USER_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion}/completions")
	local IFS=:
	for dir in ${XDG_DATA_DIRS:-/usr/local/share:/usr/share}; do
		dirs+=("$dir/bash-completion/completions")
	done
	dirs+=(/usr/share/bash-completion/completions)
	IFS=$' \t\n'
	for dir in "${dirs[@]}"; do
		for file in "$dir/$name" "$dir/$name.bash" "$dir/_$name"; do
			[[ -f $file ]] || continue
			[[ $file -ef $_cpctools_cpustat_file ]] && continue
			grep -q '_cpctools_cpustat' "$file" 2>/dev/null && continue
			printf '%s\n' "$file"
			return 0
		done
	done
	return 1
}

# Complete a command named like ours that is not ours: with the function
# its own completion file registers (loaded once, then remembered), or
# with file names where it has none.
declare -gA _cpctools_cpustat_other=()
_cpctools_cpustat_defer()
{
	local name=${1##*/} file spec fn
	if [[ -z ${_cpctools_cpustat_other[$name]+set} ]]; then
		_cpctools_cpustat_other[$name]=
		if file=$(_cpctools_cpustat_find_other "$name"); then
			# It registers itself for the name: take its function,
			# then put this completion back.
			# shellcheck disable=SC1090 # found at run time
			. "$file" >/dev/null 2>&1
			spec=$(complete -p "$name" 2>/dev/null)
			complete -F _cpctools_cpustat "$name"
			if [[ $spec =~ \ -F\ ([^ ]+) ]]; then
				fn=${BASH_REMATCH[1]}
				[[ $fn != _cpctools_cpustat ]] &&
				    _cpctools_cpustat_other[$name]=$fn
			fi
		fi
	fi
	fn=${_cpctools_cpustat_other[$name]}
	if [[ $fn ]] && declare -F "$fn" >/dev/null; then
		"$fn" "$@"
	else
		_minimal "$@"
	fi
}

_cpctools_cpustat()
{
	# shellcheck disable=SC2034 # _init_completion sets them all
	local cur prev words cword cmd
	_init_completion -n := || return

	if ! cmd=$(_cpctools_cpustat_command "${words[0]}") ||
	    ! _cpctools_cpustat_ours "$cmd"; then
		_cpctools_cpustat_defer "$@"
		return
	fi

	case $prev in
	-c | -e)
		_cpctools_cpustat_spec "$cmd" "$cur"
		;;
	-M | --metric-groups)
		_cpctools_cpustat_mgroups "$cmd" "$cur"
		;;
	-T)
		mapfile -t COMPREPLY < <(compgen -W 'u d' -- "$cur")
		;;
	-o)
		_filedir
		;;
	-p | -I | -x | -C) ;;
	*)
		case $cur in
		--format=*)
			mapfile -t COMPREPLY < <(compgen -P --format= \
			    -W 'table csv json openmetrics prometheus trace' -- "${cur#--format=}")
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
		--cpus=* | --output-fd=* | --listen=* | --linger=*) ;;
		-c?* | -e?*)
			_cpctools_cpustat_spec "$cmd" "${cur:2}"
			COMPREPLY=("${COMPREPLY[@]/#/${cur:0:2}}")
			;;
		--metric-groups=*)
			_cpctools_cpustat_mgroups "$cmd" "${cur#--metric-groups=}"
			COMPREPLY=("${COMPREPLY[@]/#/--metric-groups=}")
			;;
		-M?*)
			_cpctools_cpustat_mgroups "$cmd" "${cur#-M}"
			COMPREPLY=("${COMPREPLY[@]/#/-M}")
			;;
		-*)
			# The Solaris letters, perf stat's where they are free,
			# and every option the usage text names (long ones
			# included).
			local opts
			opts=$(printf '%s\n' -c -M -h -n -p -s -t -T -D --format= \
			    --metric-groups= \
			    --cpus= --shared --exclusive -a -A -e -I -x -j -o \
			    --json -C --per-core --per-die --per-socket \
			    --per-node --per-cache; _parse_help "$cmd" --help)
			mapfile -t COMPREPLY < <(compgen -W "$(sort -u <<<"$opts")" -- "$cur")
			[[ ${COMPREPLY[*]} == *= ]] && compopt -o nospace
			;;
		esac
		;;
	esac

	# bash replaces only the text after the last ":" or "=" of the word.
	local i pre=
	for ((i = ${#cur} - 1; i >= 0; i--)); do
		if [[ $COMP_WORDBREAKS == *"${cur:i:1}"* ]]; then
			pre=${cur:0:i+1}
			break
		fi
	done
	if [[ $pre ]]; then
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${COMPREPLY[i]#"$pre"}
		done
	fi
}

complete -F _cpctools_cpustat cpustat
