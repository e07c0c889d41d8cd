# SPDX-License-Identifier: BSD-2-Clause
# shellcheck disable=SC2034 # the .bats files that load it read what it sets
# Completion as a person sees it: a real interactive bash or zsh in tmux,
# keys sent with send-keys, the screen read back with capture-pane.
#
#   tty_start bash|zsh       start the shell (the environment is this one's;
#                            bash loads bash-completion, zsh runs compinit
#                            with $ZSH_FPATH in front of its fpath)
#   tty_complete TEXT [N [KEYS]]
#                            at a fresh prompt type TEXT, press Tab N times
#                            (default 1), type KEYS (if any), then "@";
#                            sets TTY_LINE to the
#                            command line as it then reads, without the "@",
#                            and TTY_SCREEN to the whole screen
#   tty_listing              the lines of the screen that are not the
#                            prompt: what the last tty_complete listed
#   tty_stop                 end the shell and tmux
#
# "@" marks where the cursor was: "task-clock@" is a completion without a
# trailing space, "task-clock @" one with. The shell reads keys in order,
# so "@" is read only once completion is done.

TTY_SOCKET=
TTY_SCREEN=
TTY_LINE=

_tty() {
	tmux -S "$TTY_SOCKET" "$@"
}

# Wait until the screen matches the extended regular expression $1 (a
# loaded machine is slow, a wrong screen never matches); the screen last
# seen is in TTY_SCREEN.
_tty_wait() {
	wait_for _tty_shows "$1" && return 0
	echo "tty: the screen:" >&2
	sed 's/^/    | /' <<<"$TTY_SCREEN" >&2
	return 1
}
_tty_shows() {
	TTY_SCREEN=$(_tty capture-pane -p -J -t tty) &&
	    grep -Eq -- "$1" <<<"$TTY_SCREEN"
}

tty_start() {
	local shell=$1 dir=${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}
	TTY_SOCKET=$(mktemp -u "$dir/tmux.XXXXXX")
	if [ "$shell" = bash ]; then
		cat >"$dir/ttyrc" <<-'EOF'
			PS1='$ '
			PROMPT_COMMAND=
			bind 'set bell-style none'
			bind 'set completion-query-items -1'
			bind 'set page-completions off'
			source /usr/share/bash-completion/bash_completion
		EOF
		set -- bash --noprofile --rcfile "$dir/ttyrc" -i
	else
		mkdir -p "$dir/zdot"
		cat >"$dir/zdot/.zshrc" <<-'EOF'
			PROMPT='$ '
			RPROMPT=
			unsetopt beep
			LISTMAX=100000
			fpath=(${(s.:.)ZSH_FPATH} $fpath)
			autoload -U compinit
			compinit -u -D
		EOF
		set -- env ZDOTDIR="$dir/zdot" zsh -i
	fi
	# A wide screen: no line of interest wraps.
	_tty -f /dev/null new-session -d -s tty -x 250 -y 50 "$@" || return 1
	_tty set-option -t tty status off >/dev/null
	_tty_wait '^\$ ?$'
}

tty_complete() {
	local text=$1 tabs=${2:-1} keys=${3:-} i line
	# An empty line (end of line, then kill to its start: emacs keys in
	# bash and zsh alike) at the top of a clear screen. Not C-c: bash at
	# times loses a SIGINT that comes right after a completion.
	_tty send-keys -t tty C-e C-u C-l
	_tty_wait '^\$ ?$' || return 1
	_tty send-keys -t tty -l -- "$text"
	for ((i = 0; i < tabs; i++)); do
		_tty send-keys -t tty Tab
	done
	if [ -n "$keys" ]; then
		_tty send-keys -t tty -l -- "$keys"
	fi
	_tty send-keys -t tty -l @
	_tty_wait '^\$ .*@ *$' || return 1
	line=$(grep -E '^\$ .*@ *$' <<<"$TTY_SCREEN" | tail -n 1)
	line=${line#'$ '}
	line=${line%"${line##*@}"}
	TTY_LINE=${line%@}
}

tty_listing() {
	grep -v '^\$ ' <<<"$TTY_SCREEN" | sed '/^ *$/d'
}

tty_stop() {
	if [ -n "$TTY_SOCKET" ]; then
		_tty kill-server 2>/dev/null || true
	fi
	TTY_SOCKET=
}

# Debian's cpustat package, the unrelated program our cpustat completion
# must leave alone: prints the root its files are under (/ when installed,
# else a copy unpacked from the package apt downloads, kept in $1 for the
# next run). Fails, saying why, when neither can be had.
debian_cpustat_root() {
	local cache=$1 deb
	if dpkg-query -W -f '${Status}' cpustat 2>/dev/null |
	    grep -q 'install ok installed'; then
		echo /
		return 0
	fi
	mkdir -p "$cache"
	if [ ! -x "$cache/root/usr/sbin/cpustat" ]; then
		deb=$(ls "$cache"/cpustat_*.deb 2>/dev/null | head -n 1)
		if [ -z "$deb" ]; then
			(cd "$cache" && apt-get download cpustat) >"$cache/apt.log" 2>&1 ||
			    { echo "cannot download Debian's cpustat package: $(tail -n 1 "$cache/apt.log")"; return 1; }
			deb=$(ls "$cache"/cpustat_*.deb | head -n 1)
		fi
		rm -rf "$cache/root"
		dpkg-deb -x "$deb" "$cache/root" ||
		    { echo "cannot unpack $deb"; return 1; }
	fi
	echo "$cache/root"
}
