# bash completion for cputrack(1), from cpctools.                -*- sh -*-
#
# Options, --format values, pids for -p, files for -o, and the command and
# its arguments after the options. Event names for -c are taken at
# completion time from `cputrack -h`, so they are what this machine can
# count; tracepoints (subsystem:event) come from tracefs.
#
# The cputrack that is asked is $CPUTRACK if set, else the command being
# completed (./build/cmd/cputrack, say), else cputrack from PATH.

# The words of `cputrack -h`: with $2 = events, the names of its event
# lists; otherwise also its attributes line and pic0= ... picN= for its
# counters. One a line.
_cputrack_listing()
{
    "$1" -h 2>/dev/null | awk -v only="${2-}" '
        function words(s,    n, i, w) {
            if (only == "events" && !events)
                return
            n = split(s, w, /[ \t]+/)
            for (i = 1; i <= n; i++)
                if (w[i] != "" && !seen[w[i]]++)
                    print w[i]
        }
        /^\tevent(\[[0-9]+-[0-9]+\]|[0-9]+):/ {
            range = $0
            sub(/^\tevent\[?/, "", range)
            sub(/\]?:.*/, "", range)
            sub(/^[0-9]+-/, "", range)
            if (range + 0 > npic)
                npic = range + 0
            sub(/^\tevent[^:]*:/, "")
            events = 1
            words($0)
            more = 1
            next
        }
        /^\tattributes:/ {
            sub(/^\tattributes:/, "")
            events = 0
            words($0)
            more = 1
            next
        }
        /^ +[^ ]/ && more { words($0); next }
        { more = 0 }
        END {
            for (i = 0; i <= npic && only != "events"; i++)
                print "pic" i "="
        }'
}

# Tracepoint names for an item: subsystem:event once a colon is typed,
# else the subsystems (with their colon) that start with a non-empty item.
_cputrack_tracepoints()
{
    local item=$1 dir d
    for dir in /sys/kernel/tracing/events /sys/kernel/debug/tracing/events; do
        [[ -r $dir ]] || continue
        if [[ $item == *:* ]]; then
            [[ $item == *::* ]] && return
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

# Complete an event specification: the item after the last comma, and the
# event after picN=.
_cputrack_spec()
{
    local cmd=$1 cur=$2 head= item=$2 pic= IFS=$'\n'
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
        cands=($(_cputrack_tracepoints "$item"))
    else
        if [[ $pic ]]; then
            cands=($(_cputrack_listing "$cmd" events))
        else
            cands=($(_cputrack_listing "$cmd"))
        fi
        cands+=($(_cputrack_tracepoints "$item"))
    fi
    COMPREPLY=($(compgen -P "$head$pic" -W "${cands[*]}" -- "$item"))
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *[:=,] ]]; then
        compopt -o nospace 2>/dev/null
    fi
}

# Drop from each reply what bash already took as earlier words: the text up
# to the last character of the current word that is in COMP_WORDBREAKS.
_cputrack_ltrim()
{
    local cur=$1 i pre=
    for ((i = ${#cur} - 1; i >= 0; i--)); do
        if [[ $COMP_WORDBREAKS == *"${cur:i:1}"* ]]; then
            pre=${cur:0:i+1}
            break
        fi
    done
    [[ $pre ]] || return
    for i in "${!COMPREPLY[@]}"; do
        COMPREPLY[i]=${COMPREPLY[i]#"$pre"}
    done
}

# How many of bash's own words (split at ':' and '=') a word counts for.
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

_cputrack()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion -n := || return
    else
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
        cur=${COMP_WORDS[COMP_CWORD]}
    fi

    local cmd=${CPUTRACK:-${words[0]}}
    [[ $cmd == */* && -x $cmd ]] || type -P "$cmd" >/dev/null ||
        cmd=cputrack

    # Walk the options before the current word: getopt stops at the first
    # operand, the command.
    local i=1 w arg= j
    while ((i < cword)); do
        w=${words[i]}
        if [[ $arg ]]; then
            arg=
        elif [[ $w == -- ]]; then
            ((i++))
            break
        elif [[ $w == --format ]]; then
            arg=format
        elif [[ $w == --* ]]; then
            :
        elif [[ $w == -?* ]]; then
            for ((j = 1; j < ${#w}; j++)); do
                case ${w:j:1} in
                T | N | o | r | c | p)
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
        # The command, then its own arguments.
        if declare -F _command_offset >/dev/null; then
            local raw=0
            for ((j = 0; j < i; j++)); do
                ((raw += $(_cputrack_rawcount "${words[j]}")))
            done
            _command_offset $raw
        elif ((i == cword)); then
            COMPREPLY=($(compgen -c -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return
    fi

    case $arg in
    c)
        _cputrack_spec "$cmd" "$cur"
        ;;
    p)
        if declare -F _pids >/dev/null; then
            _pids
        else
            COMPREPLY=($(compgen -W "$(ls /proc | grep '^[0-9]*$')" -- "$cur"))
        fi
        ;;
    o)
        if declare -F _filedir >/dev/null; then
            _filedir
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        ;;
    format)
        COMPREPLY=($(compgen -W 'table csv json' -- "$cur"))
        ;;
    T | N | r) ;;
    *)
        case $cur in
        --format=*)
            COMPREPLY=($(compgen -P --format= -W 'table csv json' \
                -- "${cur#--format=}"))
            ;;
        -c?*)
            _cputrack_spec "$cmd" "${cur#-c}"
            COMPREPLY=("${COMPREPLY[@]/#/-c}")
            ;;
        *)
            COMPREPLY=($(compgen -W '-T -N -D -e -f -h -n -t -v -o -c -p
                --format=' -- "$cur"))
            [[ ${COMPREPLY[*]} == --format= ]] && compopt -o nospace 2>/dev/null
            ;;
        esac
        ;;
    esac
    _cputrack_ltrim "$cur"
} &&
    complete -F _cputrack cputrack
