# bash completion for cpustat(1) of cpctools.
#
# Event names and attributes for -c come from "cpustat -h" of the very
# command being completed, so they are what this machine can count. If
# that command is not cpctools' cpustat (Debian's unrelated cpustat
# package has the same name), only file names are offered.

# The event names and attributes listed by "$1 -h", one per line.
_cpctools_cpustat_events()
{
	local cmd=$1
	[[ $cmd == */* ]] || cmd=$(type -P -- "$cmd") || return
	LC_ALL=C "$cmd" -h 2>/dev/null | awk '
		/^\tCPU performance counter interface: / { ours = 1 }
		!ours { next }
		/^\tevent(\[[0-9]+-[0-9]+\]|[0-9]+): / {
			inblock = 1
			sub(/^\tevent[^:]*: +/, "")
			print
			next
		}
		inblock && /^ / { print; next }
		{ inblock = 0 }
		/^\tattributes: / { sub(/^\tattributes: /, ""); print }
	' | tr -s ' ' '\n' | sed '/^$/d' | sort -u
}

_cpctools_cpustat()
{
	local i w cur prev trim words=() line brk=0
	local cword=$COMP_CWORD

	# bash splits words at "=" and ":" (--format=csv, sched:sched_switch);
	# join them again.
	for ((i = 0; i <= cword && i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		if ((${#words[@]} > 0)) && [[ $w == [=:] || $brk == 1 ]]; then
			words[-1]+=$w
		else
			words+=("$w")
		fi
		[[ $w == [=:] ]] && brk=1 || brk=0
	done
	cur=${words[-1]}
	((${#words[@]} > 1)) && prev=${words[-2]} || prev=
	# What bash replaces is the text after the last "=" or ":".
	trim=${cur%"${cur##*[=:]}"}
	COMPREPLY=()

	# Another program called cpustat: leave it to the default completion.
	if ! line=$(_cpctools_cpustat_events "${COMP_WORDS[0]}" | head -n 1) ||
	    [[ -z $line ]]; then
		compopt -o default 2>/dev/null
		return 0
	fi

	case $prev in
	-c)
		local item=${cur##*,} head=${cur%"${cur##*,}"} pic=
		if [[ $item == pic[0-9]*=* ]]; then
			pic=${item%%=*}=
			item=${item#*=}
		fi
		if [[ $item == *:* ]]; then
			# A tracepoint: subsystem:event, from tracefs.
			local d sub=${item%%:*}
			for d in /sys/kernel/tracing/events /sys/kernel/debug/tracing/events; do
				[[ -d $d/$sub ]] || continue
				COMPREPLY=($(compgen -P "$head$pic$sub:" -W "$(cd "$d/$sub" && ls -d -- */ 2>/dev/null | tr -d /)" -- "${item#*:}"))
				break
			done
		else
			COMPREPLY=($(compgen -P "$head$pic" -W "$(_cpctools_cpustat_events "${COMP_WORDS[0]}")" -- "$item"))
		fi
		;;
	-T)
		COMPREPLY=($(compgen -W "u d" -- "$cur"))
		;;
	-p)
		;;
	*)
		case $cur in
		--format=*)
			COMPREPLY=($(compgen -P --format= -W "table csv json" -- "${cur#--format=}"))
			;;
		--cpus=*)
			;;
		-*)
			COMPREPLY=($(compgen -W "-c -h -n -p -s -t -T -D --format= --cpus=" -- "$cur"))
			[[ ${COMPREPLY[*]} == *= ]] && compopt -o nospace 2>/dev/null
			;;
		esac
		;;
	esac
	if [[ -n $trim ]]; then
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${COMPREPLY[i]#"$trim"}
		done
	fi
	return 0
}

complete -F _cpctools_cpustat cpustat
