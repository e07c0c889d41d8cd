# SPDX-License-Identifier: BSD-2-Clause
# The tests' one polling loop, in plain bash: helper.bash sources it for
# the bats files, and scripts outside bats (tests/package/run-deb) source
# it themselves.

# The bound of every wait of the tests, in seconds: for a run that hangs,
# never a time a test expects. A loaded machine (a sanitizer, CI's jobs
# side by side) may take long to get there, but gets there.
WAIT_BOUND_S=${WAIT_BOUND_S:-120}

# wait_for COMMAND...: until COMMAND succeeds, WAIT_BOUND_S at most; says
# what it waited for when it gives up. The one polling loop of the tests:
# a condition of several tests is a function, written as one && chain (a
# function called as a condition does not stop at its first failure).
wait_for() {
	local end=$((SECONDS + WAIT_BOUND_S))
	until "$@"; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "waited ${WAIT_BOUND_S} s in vain for: $*" >&2
			return 1
		fi
		sleep 0.1 # the library's wait
	done
}

# running PID: whether process PID is there and not a zombie.
running() {
	local st
	st=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# wait_while PID COMMAND...: wait_for, that gives up once process PID has
# ended, after a last look: what it did just before its end may have come
# after the look before.
wait_while() {
	local pid=$1 end=$((SECONDS + WAIT_BOUND_S))
	shift
	until "$@"; do
		if ! running "$pid"; then
			"$@" && return 0
			echo "process $pid ended before: $*" >&2
			return 1
		fi
		if [ "$SECONDS" -ge "$end" ]; then
			echo "waited ${WAIT_BOUND_S} s in vain for: $*" >&2
			return 1
		fi
		sleep 0.1 # the library's wait
	done
}
